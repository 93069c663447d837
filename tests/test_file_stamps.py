"""The warm path trusts a file's `stat` stamp instead of its bytes: no edit may hide behind
it (same size, same second, mtime set back), and an unchanged tree is not read again."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import pytest
from fixture_cases import copy_repository, discover_cases

from codemods import Settings, files, run_paths
from codemods.caches import FileStamps

CASE = next(case for case in discover_cases() if case.id.endswith("/basic"))


def _findings(repo: Path, settings: Settings) -> list[str]:
    return sorted(
        f"{finding.path.relative_to(repo)}:{finding.span.line} {finding.code}"
        for result in run_paths([repo], settings)
        for finding in getattr(result, "findings", ())
    )


def _blank_keeping_stat_times(path: Path) -> None:
    """Overwrite `path` with a comment of the same size, then set its times back."""
    before = path.stat()
    path.write_bytes(b"#" * (before.st_size - 1) + b"\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trust a stamp as soon as its times are in the past (no racy-clean wait)."""
    monkeypatch.setattr(FileStamps, "RACY_NS", 0)


def _settle() -> None:
    # Past the coarsest kernel timestamp tick, so a later write gets a later ctime.
    time.sleep(0.05)


@pytest.mark.usefixtures("trusting")
def test_an_edit_with_the_same_size_and_mtime_is_seen(tmp_path: Path) -> None:
    repo = copy_repository(CASE.before, tmp_path / "repo")
    settings = replace(CASE.settings(), cache=True)
    assert _findings(repo, settings)
    _settle()
    for path in repo.rglob("*.py"):
        _blank_keeping_stat_times(path)
    assert _findings(repo, settings) == []


def test_an_edit_in_the_same_second_is_seen(tmp_path: Path) -> None:
    """With the real racy-clean wait: files written just before a run are hashed again."""
    repo = copy_repository(CASE.before, tmp_path / "repo")
    settings = replace(CASE.settings(), cache=True)
    assert _findings(repo, settings)
    for path in repo.rglob("*.py"):
        _blank_keeping_stat_times(path)
    assert _findings(repo, settings) == []


@pytest.mark.usefixtures("trusting")
def test_an_unchanged_tree_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = copy_repository(CASE.before, tmp_path / "repo")
    settings = replace(CASE.settings(), cache=True, jobs=1)
    first = _findings(repo, settings)
    assert first
    _settle()

    def no_reading(path: Path) -> tuple[bytes, files.Stamp]:
        raise AssertionError(f"read {path}")

    monkeypatch.setattr(files, "read_stamped", no_reading)
    assert _findings(repo, settings) == first


def test_a_stamp_too_close_to_its_reading_is_not_trusted(tmp_path: Path) -> None:
    stamps = FileStamps(tmp_path)
    path = tmp_path / "module.py"
    now = time.time_ns()
    old = (10, now - 60 * 10**9, now - 60 * 10**9, 1, 1, 0o100644)
    fresh = (10, now - 10**9, now - 10**9, 2, 1, 0o100644)
    stamps.record(path, old, "a", now)
    stamps.record(tmp_path / "fresh.py", fresh, "b", now)
    assert stamps.known(path, old) == "a"
    assert stamps.known(tmp_path / "fresh.py", fresh) is None
    # Any field of the stamp differing (here the ctime only) means the file is read.
    assert stamps.known(path, (10, old[1], old[2] + 1, 1, 1, 0o100644)) is None
    stamps.save()
    assert FileStamps(tmp_path).known(path, old) == "a"
