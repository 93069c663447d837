"""The requirements a `setup.py` declares, read from its syntax tree without running it:
`install_requires`, `extras_require` and `tests_require`, as literals, names bound to them,
sums of them, keyword dicts, or what a function of `setup.py` returns."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

#: The keywords of `setup()` that take requirements.
SETUP_KEYWORDS = frozenset({"install_requires", "extras_require", "tests_require"})


def setup_requirements(path: Path) -> Iterator[str]:
    """Yield the requirement strings of the `setup.py` at `path`."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    assigned: dict[str, list[ast.expr]] = {}
    requirements: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            if isinstance(node.target, ast.Name) and node.value is not None:
                assigned.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, ast.Call):
            requirements += [kw.value for kw in node.keywords if kw.arg in SETUP_KEYWORDS]
        elif isinstance(node, ast.FunctionDef):
            # `install_requires=get_install_requires()`: what the function returns.
            assigned[f"{node.name}()"] = [
                sub.value
                for sub in ast.walk(node)
                if isinstance(sub, ast.Return) and sub.value is not None
            ]
        elif isinstance(node, ast.Dict):
            # `setup(**{"install_requires": [...]})` and similar keyword dicts.
            requirements += [
                value
                for key, value in zip(node.keys, node.values, strict=True)
                if isinstance(key, ast.Constant) and key.value in SETUP_KEYWORDS
            ]
    yield from (text for node in requirements for text in _literal_strings(node, assigned))


def _literal_strings(
    node: ast.expr, assigned: dict[str, list[ast.expr]], names: frozenset[str] = frozenset()
) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.List | ast.Tuple | ast.Set):
        for element in node.elts:
            yield from _literal_strings(element, assigned, names)
    elif isinstance(node, ast.Starred):
        yield from _literal_strings(node.value, assigned, names)
    elif isinstance(node, ast.Dict):
        for value in node.values:
            yield from _literal_strings(value, assigned, names)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _literal_strings(node.left, assigned, names)
        yield from _literal_strings(node.right, assigned, names)
    elif isinstance(node, ast.Name) and node.id not in names:
        for value in assigned.get(node.id, []):
            yield from _literal_strings(value, assigned, names | {node.id})
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
        called = f"{node.func.id}()"
        if called not in names:
            for value in assigned.get(called, []):
                yield from _literal_strings(value, assigned, names | {called})
