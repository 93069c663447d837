"""Property-based tests: for generated programs, `check` never fails, `fix` output parses,
and a second `fix` changes nothing.

Programs come from hypothesmith (arbitrary Python from the grammar, and from libcst's node
types), from hypothesmith code placed inside a Dataset that the rules fix, from random
combinations of the fixture forms (`generated_programs`), and from the fixture cases
themselves in random formats (coding cookies, indentation, line endings). Every rule runs,
with unsafe fixes, on torch 1.8 and on the latest torch.

The default profile is seeded (`derandomize=True`), so CI always tries the same programs.
`HYPOTHESIS_PROFILE=long python -m pytest tests/test_properties.py` tries twenty times as
many, with a new random seed on each run.
"""

from __future__ import annotations

import ast
import os
import tempfile
import textwrap
from pathlib import Path

import hypothesmith
import libcst
import pytest
from fixture_cases import discover_cases
from generated_programs import dressed, program, project
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codemods import Changed, Failed, FileResult, Settings, Unchanged, run_paths, run_source
from codemods.files import SourceError, encode_source, read_source, write_atomic
from codemods.lines import source_lines

# hypothesmith compiles what it generates: `1()` draws "'int' object is not callable".
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

#: How many more programs the long profile tries (profiles: see conftest.py).
SCALE = 20 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 1


def examples(count: int) -> settings:
    """Return settings that try `count` programs (times SCALE in the long profile)."""
    return settings(max_examples=count * SCALE)


TARGETS = st.sampled_from(["1.8", "latest"])
CASES = discover_cases()


def all_rules(torch_version: str) -> Settings:
    return Settings(
        select=("ALL",), torch_version=torch_version, unsafe_fixes=True, cache=False, jobs=1
    )


def _describe(result: FileResult) -> str:
    if isinstance(result, Failed):
        return f"{result.error}\n{result.traceback}"
    return repr(result)


def assert_properties(source: str, torch_version: str) -> None:
    """Check, fix, and fix again one module; assert the three properties."""
    options = all_rules(torch_version)
    checked = run_source(source, settings=options)
    assert not isinstance(checked, Failed), _describe(checked)
    fixed = run_source(source, settings=options, fix=True)
    assert not isinstance(fixed, Failed), _describe(fixed)
    if not isinstance(fixed, Changed):
        return
    ast.parse(fixed.new)
    libcst.parse_module(fixed.new)
    assert_same_line_endings(source, fixed.new)
    again = run_source(fixed.new, settings=options, fix=True)
    assert isinstance(again, Unchanged), _describe(again)


def endings(text: str) -> set[str]:
    return {line[len(line.rstrip("\r\n")) :] for line in source_lines(text)} - {""}


def assert_same_line_endings(old: str, new: str) -> None:
    """Assert that a fix adds no new kind of line ending and keeps the end of the file."""
    assert endings(new) <= (endings(old) or {"\n"})
    assert new.endswith(("\r", "\n")) == old.endswith(("\r", "\n"))


def assert_project_properties(files: dict[str, str], torch_version: str) -> None:
    """Check, fix (writing the files) and fix again a project; assert the three properties."""
    options = all_rules(torch_version)
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / ".git").mkdir()
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                path.write_bytes(encode_source(path, text))
            except SourceError:
                assume(False)  # a coding cookie that cannot hold the text
        for result in run_paths([root], options):
            assert not isinstance(result, Failed), _describe(result)
        for result in run_paths([root], options, fix=True):
            assert not isinstance(result, Failed), _describe(result)
            if isinstance(result, Changed):
                ast.parse(result.new)
                assert_same_line_endings(result.old, result.new)
                write_atomic(read_source(result.path), result.new)
        for result in run_paths([root], options, fix=True):
            assert not isinstance(result, Changed | Failed), _describe(result)


# --- arbitrary Python ---


# Generating these costs more than checking them: each is checked for both targets.


@examples(500)
@given(source=hypothesmith.from_grammar())
def test_arbitrary_programs_from_the_grammar(source: str) -> None:
    for torch_version in ("1.8", "latest"):
        assert_properties(source, torch_version)


@examples(100)
@given(source=hypothesmith.from_node())
def test_arbitrary_programs_from_libcst_nodes(source: str) -> None:
    for torch_version in ("1.8", "latest"):
        assert_properties(source, torch_version)


DATASET = """\
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self, items):
        self.items = items
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        noise = self.rng.normal() + np.random.rand()
{body}
        return self.items[index] + noise


def seed_worker(worker_id):
    np.random.seed(worker_id)


{module}
loader = DataLoader(Noisy(list(range(8))), num_workers=2, worker_init_fn=seed_worker)
"""


@examples(100)
@given(
    body=hypothesmith.from_grammar(),
    module=hypothesmith.from_grammar(),
    torch_version=TARGETS,
)
def test_arbitrary_code_around_a_fixed_dataset(body: str, module: str, torch_version: str) -> None:
    source = DATASET.format(body=textwrap.indent(body, " " * 8), module=module)
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        assume(False)
    assert_properties(source, torch_version)


# --- the fixture forms, combined at random ---


@examples(500)
@given(source=program(), torch_version=TARGETS)
def test_programs_from_fixture_forms(source: str, torch_version: str) -> None:
    assert_properties(source, torch_version)


@examples(100)
@given(files=project(), torch_version=TARGETS)
def test_two_file_projects_from_fixture_forms(files: dict[str, str], torch_version: str) -> None:
    assert_project_properties(files, torch_version)


@st.composite
def fixture_trees(draw: st.DrawFn) -> dict[str, str]:
    """Draw a fixture case's `before/` tree, each module in a random format (see `dressed`)."""
    case = draw(st.sampled_from(CASES))
    tree = {
        path.relative_to(case.before).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(case.before.rglob("*"))
        if path.is_file()
    }
    return {
        name: draw(dressed(text)) if name.endswith(".py") else text for name, text in tree.items()
    }


@examples(100)
@given(files=fixture_trees(), torch_version=TARGETS)
def test_fixture_cases_in_any_format(files: dict[str, str], torch_version: str) -> None:
    assert_project_properties(files, torch_version)


@pytest.mark.parametrize("torch_version", ["1.8", "latest"])
def test_the_generated_programs_are_fixed_at_all(torch_version: str) -> None:
    """Guard the generator: most fixture-form programs must give the fixes something to do."""
    changed = 0

    @settings(max_examples=40)
    @given(source=program())
    def count(source: str) -> None:
        nonlocal changed
        result = run_source(source, settings=all_rules(torch_version), fix=True)
        changed += isinstance(result, Changed)

    count()
    assert changed >= 10  # a quarter
