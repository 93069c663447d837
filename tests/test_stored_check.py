"""`check` of a tree in which nothing changed is answered with each project's settings and
results as stored with the snapshot (`tree_snapshots.stored_check`), importing neither the
rules nor the analysis; every change is still seen, an edit within the same second or with
its mtime set back included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from file_trees import write_tree
from sample_project import SCRIPT as DATASET

from codemods import Settings, project_settings, run_paths
from codemods.caches import FileStamps
from codemods.tree_snapshots import stored_check

HERE = Path(__file__).resolve().parent.parent

_PROBE = """
import json, sys
from cli.main import main
try:
    main({arguments!r}, prog_name="workerseed")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _lines(results: list[object], repo: Path) -> list[str]:
    return sorted(
        f"{finding.path.relative_to(repo)}:{finding.span.line} {finding.code}"
        for result in results
        for finding in getattr(result, "findings", ())
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(FileStamps, "RACY_NS", 0)
    root = tmp_path / "repo"
    write_tree(root, {"src/train.py": DATASET, "requirements.txt": "torch==1.8.1\n"})
    (root / ".git").mkdir()
    assert _lines(list(run_paths([root], Settings(jobs=1))), root) == ["src/train.py:13 WS101"]
    return root


@pytest.mark.parametrize("jobs", [1, 2, None])
def test_the_stored_answer_is_what_a_run_gives(repo: Path, jobs: int | None) -> None:
    settings = Settings(jobs=jobs)
    stored = stored_check([repo], settings)
    assert stored is not None
    projects, results = stored
    assert projects == list(project_settings([repo], settings))
    assert results == list(run_paths([repo], settings))


def test_nothing_is_stored_without_the_cache(repo: Path) -> None:
    assert stored_check([repo], Settings(cache=False)) is None
    assert stored_check([repo], Settings(prefilter=False)) is None


def test_a_configuration_edit_with_its_mtime_set_back_is_seen(repo: Path) -> None:
    config = repo / "pyproject.toml"
    config.write_text('[tool.workerseed]\nselect = ["WS101"]\n')
    assert _lines(list(run_paths([repo], Settings())), repo) == ["src/train.py:13 WS101"]
    assert stored_check([repo], Settings()) is not None
    before = config.stat()
    config.write_text('[tool.workerseed]\nselect = ["WS102"]\n')  # same size
    os.utime(config, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert config.stat().st_size == before.st_size
    assert stored_check([repo], Settings()) is None
    (project,) = project_settings([repo], Settings())
    assert project.rules == ("WS102",)
    assert _lines(list(run_paths([repo], Settings())), repo) == []


def test_an_edit_within_the_same_second_is_seen(tmp_path: Path) -> None:
    # The real racy-clean wait: a run whose files were written just before it stores
    # no snapshot, so an edit in the same clock tick cannot hide behind an equal stamp.
    root = tmp_path / "repo"
    write_tree(root, {"src/train.py": DATASET, "requirements.txt": "torch==1.8.1\n"})
    (root / ".git").mkdir()
    assert _lines(list(run_paths([root], Settings())), root) == ["src/train.py:13 WS101"]
    assert stored_check([root], Settings()) is None
    path = root / "src" / "train.py"
    before = path.stat()
    path.write_text(DATASET.replace("np.random.rand()", "np.zeros(1)[0]  "))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert stored_check([root], Settings()) is None
    assert _lines(list(run_paths([root], Settings())), root) == []


def test_a_stored_check_imports_neither_rules_nor_analysis(repo: Path) -> None:
    arguments = ["check", "--quiet", "--exit-zero", os.fspath(repo)]
    probe = [sys.executable, "-c", _PROBE.format(arguments=arguments)]
    done = subprocess.run(probe, capture_output=True, text=True, check=True, cwd=HERE)
    assert "src/train.py" in done.stdout
    assert "WS101" in done.stdout
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    heavy = ("libcst", "codemods.engine", "codemods.registry", "codemods.rules", "codemods.rule")
    assert [name for name in loaded if name.startswith(heavy)] == []
    assert [name for name in loaded if name.startswith("codemods.analysis.")] == [
        "codemods.analysis.read_once"
    ]
