"""The code a fix inserts is small enough to review at a glance: one function per module,
with a docstring that says why."""

from __future__ import annotations

import ast
import textwrap

from codemods import Settings, run_source

DATASET = textwrap.dedent(
    """\
    import numpy as np
    from torch.utils.data import DataLoader, Dataset


    class Noisy(Dataset):
        def __init__(self):
            self.rng = np.random.default_rng(0)

        def __len__(self):
            return 8

        def __getitem__(self, index):
            return self.rng.random()


    loader = DataLoader(Noisy(), num_workers=2)
    """
)


def _inserted_functions(before: str, after: str) -> list[ast.FunctionDef]:
    old = {node.name for node in ast.parse(before).body if isinstance(node, ast.FunctionDef)}
    return [
        node
        for node in ast.parse(after).body
        if isinstance(node, ast.FunctionDef) and node.name not in old
    ]


def test_ws201_inserts_one_short_documented_function() -> None:
    result = run_source(DATASET, settings=Settings(select=("WS201",)), fix=True)
    (helper,) = _inserted_functions(DATASET, getattr(result, "new", ""))
    assert helper.end_lineno is not None
    assert helper.end_lineno - helper.lineno + 1 <= 20
    assert ast.get_docstring(helper)
