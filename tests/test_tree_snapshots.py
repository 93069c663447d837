"""A re-run on an unchanged tree is answered from a snapshot of stamps, listing and reading
nothing; every change a run depends on (a source, a new file, a pin, a `.gitignore`, a file
outside the project that a requirements file includes) is seen, and a snapshot taken too
close to a write is never stored."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from file_trees import write_tree
from sample_project import SCRIPT as DATASET

from codemods import Settings, engine, run_paths
from codemods.caches import FileStamps
from codemods.tree_snapshots import TreeRecords


def _findings(repo: Path, *, jobs: int = 1) -> list[str]:
    return sorted(
        f"{finding.path.relative_to(repo)}:{finding.span.line} {finding.code}"
        for result in run_paths([repo], Settings(jobs=jobs))
        for finding in getattr(result, "findings", ())
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project pinned to torch 1.8, whose loader gets WS101; stamps are trusted as soon
    as their times are in the past (no racy-clean wait)."""
    monkeypatch.setattr(FileStamps, "RACY_NS", 0)
    root = tmp_path / "repo"
    write_tree(root, {"src/train.py": DATASET, "requirements.txt": "torch==1.8.1\n"})
    (root / ".git").mkdir()
    assert _findings(root) == ["src/train.py:13 WS101"]
    _settle()
    return root


def _settle() -> None:
    # Past the coarsest kernel timestamp tick, so a later write gets a later stamp.
    time.sleep(0.05)


def _no_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> list[Path]:
        raise AssertionError("the tree was listed")

    monkeypatch.setattr(engine, "discover", refuse)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_unchanged_tree_is_neither_listed_nor_read(
    repo: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    _no_listing(monkeypatch)
    assert _findings(repo, jobs=jobs) == ["src/train.py:13 WS101"]


def test_git_writing_its_own_files_keeps_the_snapshot(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / ".git" / "index").write_bytes(b"new index")
    _no_listing(monkeypatch)
    assert _findings(repo) == ["src/train.py:13 WS101"]


def test_an_edit_keeping_size_and_mtime_is_seen(repo: Path) -> None:
    path = repo / "src" / "train.py"
    before = path.stat()
    path.write_text(DATASET.replace("np.random.rand()", "np.zeros(1)[0]  "))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert _findings(repo) == []


def test_a_new_file_is_seen(repo: Path) -> None:
    write_tree(repo, {"src/extra.py": DATASET})
    assert _findings(repo) == ["src/extra.py:13 WS101", "src/train.py:13 WS101"]


def test_a_changed_pin_is_seen(repo: Path) -> None:
    (repo / "requirements.txt").write_text("torch==2.1\n")
    assert _findings(repo) == []


def test_a_new_gitignore_is_seen(repo: Path) -> None:
    (repo / ".gitignore").write_text("src/train.py\n")
    assert _findings(repo) == []


def test_an_included_file_outside_the_project_is_seen(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"train.py": DATASET, "requirements.txt": "-r ../shared/requirements.txt\n"})
    (root / ".git").mkdir()
    write_tree(tmp_path, {"shared/requirements.txt": "torch==1.8.1\n"})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FileStamps, "RACY_NS", 0)
        assert _findings(root) == ["train.py:13 WS101"]
        _settle()
        (tmp_path / "shared" / "requirements.txt").write_text("torch==2.1\n")
        assert _findings(root) == []


def test_a_snapshot_too_close_to_a_write_is_not_stored(tmp_path: Path) -> None:
    """With the real racy-clean wait, files written just now keep the snapshot out."""
    root = tmp_path / "repo"
    write_tree(root, {"train.py": DATASET, "requirements.txt": "torch==1.8.1\n"})
    (root / ".git").mkdir()
    assert _findings(root) == ["train.py:13 WS101"]
    records = TreeRecords(root / ".workerseed_cache")
    assert records.get(records.key(root, [root], Settings())) is None
