"""A re-run on an unchanged tree: one `stat` per directory and file, nothing read or listed.

A project's results depend on its settings, the tool's code, the installed packages and the
files below its root: the sources, and the requirements, configuration, notebooks and
`.gitignore` files the run reads besides them. Before a run, a snapshot stamps every
directory and file below the root (all of them, not only those a run reads, so no reader can
be forgotten), the `.gitignore` and `.git` entries of every directory above it, git's
`info/exclude`, and the directories Python imports packages from. After the run, the snapshot
is stored with the results.

A later run with the same settings whose snapshot is equal gets the stored results: a
directory's stamp changes when an entry is added, removed or renamed in it, and a file's stamp
(`files.Stamp`) when it is written, even with its mtime set back. As in `caches.FileStamps`,
a snapshot holding a stamp from within `RACY_NS` of the moment it was taken is never stored:
a file written in the same clock tick as it was stamped may change without changing its stamp.

Two parts of the tree are left out: the cache itself, and `.git`, whose internals change on
every commit and which no run reads (a run that discovers a source file inside it stores no
snapshot).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from .analysis.read_once import kept_since, noted_reads
from .caches import CACHE_DIRECTORY, CODE_VERSION, FileStamps, RunCache, store_newest
from .files import Stamp, stamp_of
from .gitignore import git_sources
from .projects import ProjectSettings, by_root
from .settings import Settings
from .types import Failed, FileResult

__all__ = ["Snapshot", "TreeRecords", "stored_check", "take", "through_snapshot"]

#: What a run gives: results, or None when it has none to give (a cache lookup that missed).
Results = TypeVar("Results", list[FileResult], list[FileResult] | None)

#: Directories below the root a snapshot does not stamp (see the module docstring).
_LEFT_OUT = frozenset({".git", CACHE_DIRECTORY})
#: A tree with more entries than this is not snapshotted: stamping it would cost more than
#: the run it saves.
MAX_ENTRIES = 200_000


@dataclass(frozen=True)
class Snapshot:
    """The stamp of every path a project's results depend on (None: the path is absent)."""

    stamps: dict[str, Stamp | None]
    #: When the stamps were taken (ns).
    taken: int

    def with_files(self, paths: Iterable[Path]) -> Snapshot:
        """Return the snapshot with these files stamped too: files outside the tree that the
        run read (stamped after it, so one written meanwhile makes the snapshot untrusted)."""
        added = {os.fspath(path): _stamp(path) for path in paths}
        return Snapshot({**added, **self.stamps}, self.taken)

    def trusted(self) -> bool:
        """Return True if no stamp is too recent to vouch for its file (see the docstring)."""
        limit = self.taken - FileStamps.RACY_NS
        return all(
            stamp is None or max(stamp[1], stamp[2]) < limit for stamp in self.stamps.values()
        )


def take(root: Path, config: Path | None = None) -> Snapshot | None:
    """Stamp everything a run of the project at `root` depends on, or return None if the tree
    is too large to be worth it."""
    # Answers kept from earlier in the run were read before now: the stamps must be older.
    taken = min(time.time_ns(), kept_since() or time.time_ns())
    stamps: dict[str, Stamp | None] = {}
    outside = [*map(os.fspath, git_sources(root)), *_import_directories()]
    for path in [*outside, *([os.fspath(config)] if config else [])]:
        stamps[path] = _stamp(path)
    pending = [os.fspath(root)]
    while pending:
        directory = pending.pop()
        stamps[directory] = _stamp(directory)
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            try:
                stamps[entry.path] = _kept(entry.path, stamp_of(entry.stat(follow_symlinks=False)))
                if entry.is_symlink():
                    # What a link points to is read through it: its edits count too.
                    target = os.path.realpath(entry.path)
                    stamps.setdefault(target, _stamp(target))
                elif entry.is_dir(follow_symlinks=False) and entry.name not in _LEFT_OUT:
                    pending.append(entry.path)
            except OSError:
                stamps[entry.path] = None
        if len(stamps) > MAX_ENTRIES:
            return None
    return Snapshot(stamps, taken)


def covers(root: Path, paths: Sequence[Path]) -> bool:
    """Return True if no path lies in a part of the tree a snapshot leaves out."""
    top = os.path.realpath(root)
    prefix = top.rstrip(os.sep) + os.sep
    # The real path of a file that is no link is its directory's real path and its name:
    # one `lstat` for the file, and `realpath` once per directory rather than per file.
    directories: dict[str, str] = {}
    for path in paths:
        text = os.fspath(path)
        if os.path.islink(text):
            real = os.path.realpath(text)
        else:
            directory, name = os.path.split(text)
            if directory not in directories:
                directories[directory] = os.path.realpath(directory)
            real = os.path.join(directories[directory], name)
        if real.startswith(prefix) and _LEFT_OUT.intersection(real[len(prefix) :].split(os.sep)):
            return False
    return True


def _stamp(path: str | Path) -> Stamp | None:
    try:
        return _kept(os.fspath(path), stamp_of(os.stat(path, follow_symlinks=False)))
    except OSError:
        return None


def _kept(path: str, stamp: Stamp) -> Stamp:
    """Of a part left out, keep only what it is (inode, device, mode): git rewrites `.git`'s
    entries on every commit, and each run writes to the cache."""
    if os.path.basename(path) in _LEFT_OUT:
        return (0, 0, 0, *stamp[3:])
    return stamp


def _import_directories() -> list[str]:
    """The directories packages are imported from: installing one changes their stamps."""
    return [entry for entry in sys.path if entry and os.path.isdir(entry)]


class TreeRecords:
    """Snapshots stored with the results of the run they were taken for, per question."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory / "trees" / CODE_VERSION

    @staticmethod
    def key(root: Path, requested: list[Path], settings: Settings) -> str:
        """Return the key of a run's question: root, paths asked about, settings, Python."""
        question = (os.fspath(root), sorted(map(os.fspath, requested)), settings, sys.version)
        return hashlib.sha256(repr(question).encode()).hexdigest()[:40]

    def get(self, key: str) -> list[FileResult] | None:
        """Return the stored results if nothing the snapshot stamped has changed since."""
        entry = self.entry(key)
        return None if entry is None else entry[0]

    def entry(self, key: str) -> tuple[list[FileResult], ProjectSettings | None] | None:
        """Return the stored results, and the project's settings if they were stored with
        them, if nothing the snapshot stamped has changed since."""
        try:
            with (self._directory / key).open("rb") as handle:
                snapshot, results, project = pickle.load(handle)
        except Exception:  # a missing, damaged or foreign entry is no entry
            return None
        if not isinstance(snapshot, Snapshot) or not isinstance(results, list):
            return None
        if project is not None and not isinstance(project, ProjectSettings):
            return None
        for path, stamp in snapshot.stamps.items():
            if _stamp(path) != stamp:
                return None
        return results, project

    def put(
        self,
        key: str,
        snapshot: Snapshot,
        results: list[FileResult],
        project: ProjectSettings | None = None,
    ) -> None:
        """Store the results (and the settings the project was checked with, which depend
        on the same files) with the snapshot taken before the run; never raise."""
        if snapshot.trusted():
            store_newest(self._directory, key, (snapshot, results, project), RunCache.KEEP)


def through_snapshot(
    root: Path,
    requested: list[Path],
    settings: Settings,
    run: Callable[[], tuple[Results, Sequence[Path], ProjectSettings]],
) -> Results:
    """Return the stored results of this question if nothing they depend on changed, else
    `run()` (results, every file of the project, the project's settings) and store its
    results and settings with a snapshot taken before it."""
    if not settings.cache or not settings.prefilter:
        return run()[0]
    records = TreeRecords(root / CACHE_DIRECTORY)
    key = records.key(root, requested, _asked(settings))
    stored = records.get(key)
    if stored is not None:
        return stored
    with contextlib.suppress(OSError):
        # Made now, the cache directory changes no stamp of the snapshot when the run writes.
        (root / CACHE_DIRECTORY).mkdir(exist_ok=True)
    snapshot = take(root, settings.config)
    results, everything, project = run()
    if snapshot is None or results is None or not covers(root, everything):
        return results
    if not any(isinstance(result, Failed) for result in results):
        asked = replace(project, settings=_asked(project.settings))
        records.put(key, snapshot.with_files(noted_reads()), results, asked)
    return results


def _asked(settings: Settings) -> Settings:
    """Leave out what does not change a run's results: how many processes, which cluster.
    The configuration sets neither, so a project's settings keep the options' values."""
    return replace(settings, jobs=None, scheduler=None)


def stored_check(
    paths: Sequence[Path], settings: Settings
) -> tuple[list[ProjectSettings], list[FileResult]] | None:
    """Return what `check` of `paths` would (each project's settings and every result) if
    every project's last run of the same question is stored and nothing it depends on
    changed since, else None. Neither the rules nor the analysis are imported."""
    if not settings.cache or not settings.prefilter:
        return None
    projects: list[ProjectSettings] = []
    results: list[FileResult] = []
    for root, requested in by_root(paths).items():
        records = TreeRecords(root / CACHE_DIRECTORY)
        entry = records.entry(records.key(root, requested, _asked(settings)))
        if entry is None:
            return None
        stored, project = entry
        if project is None:
            return None
        options = replace(project.settings, jobs=settings.jobs, scheduler=settings.scheduler)
        projects.append(replace(project, settings=options))
        results.extend(stored)
    return projects, results
