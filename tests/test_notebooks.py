"""Jupyter notebooks: checked and fixed like modules, written back with nothing else changed.

Every round trip here is real: notebooks are written with nbformat (as Jupyter does), fixed
through the engine, written with `write_atomic`, and read back with nbformat.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from codemods import Changed, Settings, Skipped, SkipReason, Unchanged, run_paths
from codemods.files import write_atomic
from codemods.notebooks import NotebookError, file_change, read_module

nbformat = pytest.importorskip("nbformat")
v4 = nbformat.v4

SETTINGS = Settings(torch_version="1.8", cache=False, jobs=1)

IMPORTS = (
    "%matplotlib inline\n"
    "!pip install numpy\n"
    "import numpy as np\n"
    "from torch.utils.data import DataLoader, Dataset"
)
DATASET = (
    "class Noisy(Dataset):\n"
    "    def __len__(self):\n"
    "        return 8\n"
    "\n"
    "    def __getitem__(self, index):\n"
    "        return np.random.rand()"
)
LOADER = (
    "%%time\nloader = DataLoader(Noisy(), num_workers=4)\nfor batch in loader:\n    print(batch)"
)


def _notebook(*cells: Any, **metadata: Any) -> Any:
    notebook = v4.new_notebook()
    notebook.metadata.update(
        {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python", "version": "3.11.4"},
            **metadata,
        }
    )
    notebook.cells = list(cells)
    return notebook


def _example() -> Any:
    """A notebook as Jupyter saves it: markdown, outputs, execution counts, magics."""
    stream = v4.new_output("stream", name="stdout", text="tensor([0.5])\ntensor([0.5])\n")
    image = v4.new_output(
        "display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}
    )
    return _notebook(
        v4.new_markdown_cell("# Noise\nEvery worker draws *the same* noise."),
        v4.new_code_cell(IMPORTS, execution_count=1, metadata={"tags": ["setup"]}),
        v4.new_code_cell(DATASET, execution_count=2),
        v4.new_code_cell(LOADER, execution_count=3, outputs=[stream, image]),
        v4.new_code_cell("%%bash\necho np.random.rand()\nls -la", execution_count=4),
        v4.new_code_cell("files = !ls\nfor name in files:\n    !echo {name}\nnp.random?"),
    )


def _write(notebook: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def _fix(path: Path, settings: Settings = SETTINGS) -> list[Changed]:
    changed = [
        result for result in run_paths([path], settings, fix=True) if isinstance(result, Changed)
    ]
    for result in changed:
        write_atomic(result.source, result.new)
    return changed


def _findings(path: Path, settings: Settings = SETTINGS) -> list[str]:
    lines = []
    for result in run_paths([path], settings):
        for finding in getattr(result, "findings", ()):
            lines.append(
                f"{finding.path.name}:cell {finding.cell}:{finding.span.line}:"
                f"{finding.span.column + 1} {finding.code}"
            )
    return lines


# --- checking ---


def test_finding_points_at_cell_and_line(repo: Path) -> None:
    path = _write(_example(), repo / "nb.ipynb")
    assert _findings(path) == ["nb.ipynb:cell 4:2:10 WS101"]


def test_message_locations_inside_the_notebook_name_cells(repo: Path) -> None:
    path = _write(_example(), repo / "nb.ipynb")
    (result,) = run_paths([path], SETTINGS)
    assert isinstance(result, Unchanged)
    assert "(nb.ipynb:cell 3:6)" in result.findings[0].message


def test_a_pipeline_built_over_several_lines_of_the_cell_is_a_related_place(repo: Path) -> None:
    """WS203 at a loader: the MONAI pipeline built above it, over several lines of the same
    cell, is a related place counted from the cell's first line."""
    (repo / "requirements.txt").write_text("monai==1.3.0\n", encoding="utf-8")
    code = (
        "from monai.data import CacheDataset\n"
        "from monai.transforms import Compose, RandFlipd, RandRotate90d\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        "train_trans = Compose(\n"
        '    [RandFlipd(keys="image", prob=0.5), RandRotate90d(keys="image")]\n'
        ")\n"
        "train_ds = CacheDataset([], train_trans)\n"
        "loader = DataLoader(train_ds, num_workers=2)"
    )
    path = _write(
        _notebook(v4.new_markdown_cell("# Training"), v4.new_code_cell(code)), repo / "nb.ipynb"
    )
    settings = Settings(select=("WS203",), cache=False, jobs=1)
    (result,) = run_paths([path], settings)
    assert isinstance(result, Unchanged | Changed)
    (finding,) = result.findings
    assert (finding.cell, finding.span.line) == (2, 9)
    (place,) = finding.related
    assert (place.span.line, place.span.end_line) == (5, 7)


def test_dataset_from_a_module_is_found_for_a_notebook_loader(repo: Path) -> None:
    (repo / "data.py").write_text(
        "import numpy as np\nfrom torch.utils.data import Dataset\n\n\n"
        "class Noisy(Dataset):\n"
        "    def __getitem__(self, index):\n"
        "        return np.random.rand()\n",
        encoding="utf-8",
    )
    path = _write(
        _notebook(
            v4.new_code_cell("from torch.utils.data import DataLoader\nfrom data import Noisy"),
            v4.new_code_cell("loader = DataLoader(Noisy(), num_workers=2)"),
        ),
        repo / "notebooks" / "explore.ipynb",
    )
    assert _findings(path) == ["explore.ipynb:cell 2:1:10 WS101"]


def test_notebook_dataset_is_part_of_the_project_index(repo: Path) -> None:
    """A Dataset defined in one cell and its DataLoader in another are one module."""
    path = _write(
        _notebook(
            v4.new_code_cell(IMPORTS),
            v4.new_markdown_cell("Some prose between the cells."),
            v4.new_code_cell(DATASET),
            v4.new_code_cell("loader = DataLoader(Noisy(), num_workers=4)"),
        ),
        repo / "nb.ipynb",
    )
    assert _findings(path) == ["nb.ipynb:cell 4:1:10 WS101"]


def test_noqa_in_a_cell_suppresses(repo: Path) -> None:
    notebook = _example()
    notebook.cells[3].source = notebook.cells[3].source.replace(
        "num_workers=4)", "num_workers=4)  # noqa: WS101"
    )
    path = _write(notebook, repo / "nb.ipynb")
    assert _findings(path) == []


def test_cell_magic_body_that_is_not_python_is_not_analysed(repo: Path) -> None:
    notebook = _notebook(
        v4.new_code_cell(IMPORTS),
        v4.new_code_cell("%%writefile data.py\n" + DATASET),
        v4.new_code_cell("loader = DataLoader(Noisy(), num_workers=4)"),
    )
    path = _write(notebook, repo / "nb.ipynb")
    assert _findings(path) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("x = 1\ny = 2", "x = 1\ny = 2", id="plain Python is left alone"),
        pytest.param(
            "%matplotlib inline\nx = 1",
            "# <<workerseed magic 0>>\nx = 1",
            id="line magic becomes a comment",
        ),
        pytest.param(
            "!pip install x\nfiles = !ls\nnp.random?",
            "# <<workerseed magic 0>>\n# <<workerseed magic 1>>\n# <<workerseed magic 2>>",
            id="shell escapes, assigned shell output and help",
        ),
        pytest.param(
            "for i in range(2):\n    !echo $i",
            "for i in range(2):\n    pass  # <<workerseed magic 0>>",
            id="indented magic becomes pass so the block stays valid",
        ),
        pytest.param(
            "%%time\nx = 1",
            "# <<workerseed magic 0>>\nx = 1",
            id="Python cell magic keeps its body",
        ),
        pytest.param(
            "%%bash\nls\necho hi",
            "# <<workerseed magic 0>>\n# <<workerseed magic 1>>\n# <<workerseed magic 2>>",
            id="other cell magics are masked whole",
        ),
        pytest.param(
            "%time x = \\\n    1\ny = 2",
            "# <<workerseed magic 0>>\n    # <<workerseed magic 1>>\ny = 2",
            id="continued magic line",
        ),
    ],
)
def test_masking(source: str, expected: str, tmp_path: Path) -> None:
    notebook = _notebook(v4.new_code_cell(source))
    raw = nbformat.writes(notebook).encode()
    module = read_module(tmp_path / "nb.ipynb", raw, 0o644)
    assert module.text == f"# <<workerseed cell 1>>\n{expected}\n"


# --- fixing ---


def test_fix_round_trip_keeps_outputs_metadata_and_magics(repo: Path) -> None:
    notebook = _example()
    path = _write(notebook, repo / "nb.ipynb")
    before = path.read_text(encoding="utf-8")

    (changed,) = _fix(path)

    after = path.read_text(encoding="utf-8")
    fixed = nbformat.read(str(path), as_version=4)
    nbformat.validate(fixed)
    # Everything but the source of the two edited cells is as it was.
    for index, (old, new) in enumerate(zip(notebook.cells, fixed.cells, strict=True)):
        assert {k: v for k, v in old.items() if k != "source"} == {
            k: v for k, v in new.items() if k != "source"
        }, index
        if index not in (1, 3):
            assert old.source == new.source, index
    assert fixed.metadata == notebook.metadata
    assert fixed.cells[1].source.startswith("%matplotlib inline\n!pip install numpy\n")
    assert "def seed_worker(worker_id: int) -> None:" in fixed.cells[1].source
    assert fixed.cells[3].source == LOADER.replace(
        "num_workers=4)", "num_workers=4, worker_init_fn=seed_worker)"
    )
    assert fixed.cells[5].source == notebook.cells[5].source
    # The file diff touches source lines only.
    changed_lines = [
        line[1:]
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed_lines
    assert all(line.startswith('    "') for line in changed_lines), changed_lines
    assert changed.fixed[0].cell == 4


def test_fixed_notebook_is_clean_and_stable(repo: Path) -> None:
    path = _write(_example(), repo / "nb.ipynb")
    _fix(path)
    first = path.read_bytes()
    assert _findings(path) == []
    assert _fix(path) == []
    assert path.read_bytes() == first


def test_fix_keeps_a_layout_that_is_not_jupyters(repo: Path) -> None:
    """Key order, indentation and escaping of another editor's JSON are kept."""
    document = json.loads(nbformat.writes(_example()))
    # Unsorted keys, two-space indentation, ASCII escapes, sources as single strings.
    document = {"nbformat_minor": 5, "nbformat": 4, **document}
    for cell in document["cells"]:
        cell["source"] = "".join(cell["source"])
        document_cell = dict(reversed(list(cell.items())))
        cell.clear()
        cell.update(document_cell)
    document["metadata"]["title"] = "Bruit blanc — première étude"
    text = json.dumps(document, indent=2, ensure_ascii=True) + "\n"
    path = repo / "nb.ipynb"
    path.write_text(text, encoding="utf-8")

    _fix(path)

    after = path.read_text(encoding="utf-8")
    new = json.loads(after)
    assert "worker_init_fn=seed_worker" in new["cells"][3]["source"]
    for new_cell, old_cell in zip(new["cells"], document["cells"], strict=True):
        new_cell["source"] = old_cell["source"]
    assert new == document
    assert list(json.loads(after)) == list(document)
    assert json.dumps(json.loads(after), indent=2, ensure_ascii=True) + "\n" == after
    diff = list(difflib.unified_diff(text.splitlines(), after.splitlines(), lineterm="", n=0))
    removed = [line for line in diff if line.startswith("-") and not line.startswith("---")]
    assert len(removed) == 2  # the two edited cells' single-string sources


def test_fix_keeps_windows_line_endings(repo: Path) -> None:
    text = (nbformat.writes(_example()) + "\n").replace("\n", "\r\n")
    path = repo / "nb.ipynb"
    path.write_bytes(text.encode("utf-8"))

    _fix(path)

    after = path.read_bytes().decode("utf-8")
    assert after.count("\n") == after.count("\r\n")
    changed = [
        line
        for line in difflib.unified_diff(text.split("\r\n"), after.split("\r\n"), lineterm="", n=0)
        if line.startswith("-") and not line.startswith("---")
    ]
    assert len(changed) == 2  # the last line of cell 2 gains a newline; cell 4's loader


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("x = f(1)  # why?\n%time y = 2", id="a comment ending in a question mark"),
        pytest.param('s = """\n!not a shell escape\n"""\n%matplotlib inline', id="string"),
    ],
)
def test_masked_code_round_trips(source: str, repo: Path) -> None:
    notebook = _notebook(
        v4.new_code_cell(IMPORTS),
        v4.new_code_cell(source),
        v4.new_code_cell(DATASET),
        v4.new_code_cell("loader = DataLoader(Noisy(), num_workers=4)"),
    )
    path = _write(notebook, repo / "nb.ipynb")
    _fix(path)
    fixed = nbformat.read(str(path), as_version=4)
    assert fixed.cells[1].source == source
    assert "worker_init_fn=seed_worker" in fixed.cells[3].source


def test_fix_falls_back_to_jupyters_layout(repo: Path) -> None:
    """JSON that json.dumps cannot reproduce is written the way Jupyter writes it."""
    text = nbformat.writes(_example()).replace('"execution_count": 1,', '"execution_count": 1 ,')
    path = repo / "nb.ipynb"
    path.write_text(text, encoding="utf-8")

    _fix(path)

    after = path.read_text(encoding="utf-8")
    assert after == nbformat.writes(nbformat.reads(after, as_version=4)) + "\n"
    assert "worker_init_fn=seed_worker" in nbformat.reads(after, as_version=4).cells[3].source


def test_file_change_refuses_edits_that_move_cells(tmp_path: Path) -> None:
    raw = nbformat.writes(_example()).encode()
    source = read_module(tmp_path / "nb.ipynb", raw, 0o644)
    with pytest.raises(NotebookError):
        file_change(source, source.text.replace("# <<workerseed cell 3>>\n", ""))


# --- what cannot be read ---
# Like Python files, only notebooks that mention a DataLoader or a Dataset are read at all
# (the others cannot change a finding), so each of these does.


def test_syntax_error_names_the_cell(repo: Path) -> None:
    notebook = _notebook(
        v4.new_code_cell("from torch.utils.data import DataLoader"),
        v4.new_code_cell("y = 2\ndef broken(:"),
    )
    path = _write(notebook, repo / "nb.ipynb")
    (result,) = run_paths([path], SETTINGS)
    assert isinstance(result, Skipped)
    assert result.reason is SkipReason.SYNTAX_ERROR
    assert result.detail.startswith("cell 2, line 2:")


def test_invalid_json_is_skipped_with_a_reason(repo: Path) -> None:
    path = repo / "nb.ipynb"
    path.write_text('{"cells": ["DataLoader"', encoding="utf-8")
    (result,) = run_paths([path], SETTINGS)
    assert isinstance(result, Skipped)
    assert result.reason is SkipReason.INVALID_NOTEBOOK
    assert result.detail.startswith("not a valid notebook")


def test_old_nbformat_is_skipped_with_a_reason(repo: Path) -> None:
    path = repo / "nb.ipynb"
    metadata = {"name": "DataLoader"}
    document = {"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": metadata}
    path.write_text(json.dumps(document), encoding="utf-8")
    (result,) = run_paths([path], SETTINGS)
    assert isinstance(result, Skipped)
    assert "nbformat 3 notebooks are not supported" in result.detail


def test_notebook_of_another_language_is_excluded(repo: Path) -> None:
    notebook = _notebook(v4.new_code_cell("Dataset <- rnorm(10)"))
    notebook.metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    notebook.metadata["language_info"] = {"name": "R"}
    path = _write(notebook, repo / "analysis.ipynb")
    (result,) = run_paths([path], SETTINGS)
    assert isinstance(result, Skipped)
    assert result.reason is SkipReason.EXCLUDED
    assert result.detail == "not a Python notebook (language: R)"


def test_without_nbformat_notebooks_are_checked_and_fixed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(_example(), repo / "nb.ipynb")
    original = path.read_bytes()
    expected = _fix(path)
    path.write_bytes(original)
    monkeypatch.setitem(sys.modules, "nbformat", None)  # `import nbformat` raises ImportError

    assert _findings(path) == ["nb.ipynb:cell 4:2:10 WS101"]
    assert [change.new for change in _fix(path)] == [change.new for change in expected]
    assert "worker_init_fn=seed_worker" in path.read_text(encoding="utf-8")


def test_without_nbformat_a_layout_json_dumps_cannot_reproduce_is_written_as_jupyter_does(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = nbformat.writes(_example()).replace('"execution_count": 1,', '"execution_count": 1 ,')
    path = repo / "nb.ipynb"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "nbformat", None)

    _fix(path)

    after = path.read_text(encoding="utf-8")
    monkeypatch.undo()
    assert after == nbformat.writes(nbformat.reads(after, as_version=4)) + "\n"
