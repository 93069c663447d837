"""The on-disk caches under `<root>/.workerseed_cache/`: summaries per file (`FactsCache`)
and whole `check` results per project (`RunCache`). Both are keyed by a hash of the code that
produced them, so a changed workerseed never reuses an old entry; deleting them only costs
time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .files import Stamp

if TYPE_CHECKING:
    # Imported where they are used: a re-run answered from a snapshot (`stored_runs`)
    # reads this module's entries without the analysis.
    from .analysis.facts import ModuleFacts
    from .analysis.function_table import TableAnswers
    from .analysis.sources import TextAnswers
    from .summaries import Contents
    from .types import Failed, FileResult, Finding, Skipped

#: Where each project keeps summaries between runs (safe to delete).
CACHE_DIRECTORY = ".workerseed_cache"


class FactsCache:
    """Summaries of earlier runs, one file each, keyed by path and content hash.

    They live under `<root>/.workerseed_cache/<analysis version>/`, where the version is a
    hash of the analysis code itself, so a changed analysis never reuses an old summary.
    Only the summaries a run needs are read. An entry that cannot be read is ignored, and
    deleting the cache only costs time. A summary read from the cache whose functions the
    run summarised further is stored again, so the entry holds every function a run read
    (the record of a run compares an edited file with it: see `records`).
    """

    def __init__(self, directory: Path | None) -> None:
        self._base = directory
        self._directory = directory / ANALYSIS_VERSION if directory is not None else None
        self._new: dict[str, ModuleFacts] = {}
        self._used: set[str] = set()
        #: Summaries read, with how many of their functions were summarised when read.
        self._read: dict[str, tuple[ModuleFacts, int]] = {}

    @staticmethod
    def _name(path: Path, content_digest: str) -> str:
        return hashlib.sha256(f"{path}\0{content_digest}".encode()).hexdigest()[:40]

    def holds(self, path: Path, content_digest: str) -> bool:
        """Return True if an entry for this version of `path` exists (it may still be
        unreadable: `get` says)."""
        if self._directory is None:
            return False
        name = self._name(path, content_digest)
        return (self._directory / name[:2] / name).is_file()

    def get(self, path: Path, content_digest: str, root: Path) -> ModuleFacts | None:
        """Return the cached summary of the version of `path` with this content hash, if any."""
        if self._directory is None:
            return None
        from .analysis.extract import module_name_for
        from .analysis.facts import ModuleFacts

        name = self._name(path, content_digest)
        try:
            with (self._directory / name[:2] / name).open("rb") as handle:
                facts = pickle.load(handle)
        except Exception:  # a missing, damaged or foreign entry is no entry
            return None
        # The module name depends on the tree (`__init__.py` files), not on the file's bytes.
        if not isinstance(facts, ModuleFacts) or facts.path != path:
            return None
        if facts.module != module_name_for(path, root):
            return None
        self._used.add(name)
        self._read[name] = (facts, len(facts.table.summarised_groups()))
        return facts

    def put(self, facts: ModuleFacts) -> None:
        """Remember a summary made in this run, to be written by `save()`."""
        if self._directory is not None:
            self._new[self._name(facts.path, facts.digest)] = facts

    def save(self) -> None:
        """Write the new summaries (and those read that the run summarised further)
        atomically, and drop other versions' caches; never raise."""
        for name, (facts, summarised) in self._read.items():
            if len(facts.table.summarised_groups()) > summarised:
                self._new.setdefault(name, facts)
        self._read.clear()
        if self._directory is None or self._base is None or not self._new:
            return
        try:
            self._base.mkdir(parents=True, exist_ok=True)
            _mark_cache_directory(self._base)
            for other in self._base.iterdir():
                if other.is_dir() and other.name not in (ANALYSIS_VERSION, "runs", "records"):
                    shutil.rmtree(other, ignore_errors=True)
            for name, facts in self._new.items():
                shard = self._directory / name[:2]
                shard.mkdir(parents=True, exist_ok=True)
                handle, temporary = tempfile.mkstemp(dir=shard, suffix=".tmp")
                with os.fdopen(handle, "wb") as stream:
                    pickle.dump(facts, stream, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, shard / name)
        except OSError:
            return
        finally:
            self._new.clear()


def _mark_cache_directory(directory: Path) -> None:
    """Keep the cache out of version control: it holds a `.gitignore` that ignores it all."""
    marker = directory / ".gitignore"
    if not marker.exists():
        marker.write_text("# Created by workerseed; safe to delete.\n*\n")


@dataclass(frozen=True)
class RunRecord:
    """What one project's last full analysis found, and everything its findings depend on.

    A later run whose files differ only in files that answer the same text questions
    (`answers`) and, if the analysis read them (`consulted`), have equal summaries that
    answer the same questions of their own text (`tables`) would ask the same questions,
    get the same answers and find the same: its results are built from this record (see
    `records`), reading only the files it reports on and summarising those changed.
    """

    #: The content hash of every file of the project.
    digests: dict[Path, str]
    consulted: frozenset[Path]
    answers: TextAnswers
    #: Every finding of the project, after suppressions.
    findings: tuple[Finding, ...]
    #: The files the run summarised before any result was asked for (the rules' prefetch
    #: and what they read), and why those of them that could not be analysed were skipped.
    summarised: frozenset[Path]
    problems: dict[Path, Skipped | Failed]
    #: What the text of each consulted file answered through its summary.
    tables: dict[Path, TableAnswers]


class RunCache:
    """The results of earlier `check` runs of one project, keyed by everything they depend on.

    A run's findings depend on every file of the project (a Dataset in one file, its
    DataLoader in another), on the settings and on the tool's own code. The key hashes all
    of them, so an entry is reused only for the very same question about the very same
    files: a re-run on an unchanged tree costs a `stat` per file (see `FileStamps`).
    """

    #: Entries kept per project; older ones are deleted.
    KEEP = 8

    def __init__(self, directory: Path) -> None:
        self._directory = directory / "runs" / CODE_VERSION
        self._records = directory / "records" / CODE_VERSION

    @staticmethod
    def key(question: str, contents: Contents) -> str:
        """Return the key of a run: `question` (settings, rules, target, paths) and the files."""
        return RunCache.key_of(
            question, {path: contents.digest(path) for path in contents.raw}, contents.problems
        )

    @staticmethod
    def key_of(question: str, digests: dict[Path, str], unreadable: Iterable[Path] = ()) -> str:
        """Return the key of a run from the content hash of every file (and those unreadable)."""
        hasher = hashlib.sha256(question.encode())
        for path in sorted(digests, key=os.fspath):
            hasher.update(f"\0{path}\0{digests[path]}".encode())
        for path in sorted(unreadable, key=os.fspath):
            hasher.update(f"\0{path}\0unreadable".encode())
        return hasher.hexdigest()[:40]

    def record(self, question: str) -> RunRecord | None:
        """Return the record of the last full analysis that answered `question`, if any."""
        try:
            with (self._records / self._record_name(question)).open("rb") as handle:
                record = pickle.load(handle)
        except Exception:  # a missing, damaged or foreign entry is no entry
            return None
        return record if isinstance(record, RunRecord) else None

    def put_record(self, question: str, record: RunRecord) -> None:
        """Store the record of a full analysis atomically; never raise."""
        if _write_entry(self._records, self._record_name(question), record):
            _remove_other_versions(self._records)

    @staticmethod
    def _record_name(question: str) -> str:
        return hashlib.sha256(question.encode()).hexdigest()[:40]

    def get(self, key: str) -> list[FileResult] | None:
        """Return the results stored under `key`, if any."""
        try:
            with (self._directory / key).open("rb") as handle:
                results = pickle.load(handle)
        except Exception:  # a missing, damaged or foreign entry is no entry
            return None
        return results if isinstance(results, list) else None

    def put(self, key: str, results: list[FileResult]) -> None:
        """Store a run's results atomically, keeping the newest entries; never raise."""
        store_newest(self._directory, key, results, self.KEEP)


def store_newest(directory: Path, name: str, entry: object, keep: int) -> None:
    """Store one entry atomically, keep the `keep` newest of `directory` and drop the
    directories other versions of the code wrote beside it; never raise."""
    if not _write_entry(directory, name, entry):
        return
    try:
        entries = sorted(directory.iterdir(), key=lambda entry: entry.stat().st_mtime, reverse=True)
        for old in entries[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        return
    _remove_other_versions(directory)


def _write_entry(directory: Path, name: str, entry: object) -> bool:
    """Write one pickled entry atomically; return False if it could not be written."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _mark_cache_directory(directory.parent.parent)
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            pickle.dump(entry, stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, directory / name)
    except OSError:
        return False
    return True


def _remove_other_versions(directory: Path) -> None:
    """Delete the entries that other versions of the code wrote beside `directory`."""
    with contextlib.suppress(OSError):
        for other in directory.parent.iterdir():
            if other.name != directory.name:
                shutil.rmtree(other, ignore_errors=True)


class FileStamps:
    """The content hash of each file, with the `stat` stamp it was read under.

    An unchanged tree then costs a `stat` per file, not reading and hashing every byte (the
    size-and-mtime key of ruff's cache, made strict). A hash is reused only if the file's
    stamp is equal in every field (size, mtime, ctime, inode, device, mode: an mtime set back
    by hand changes the ctime), and only if both times were at least `RACY_NS` older than
    the moment the stamp was taken: a file written within the same clock tick as it was read
    (git's "racily clean" entries) may have changed without changing its stamp, so it is
    read and hashed again until it is old enough. Every other file is read, as without this.
    """

    #: How much older than the moment it was taken a stamp's times must be to be trusted:
    #: more than the coarsest timestamp granularity in use (2 s on FAT).
    RACY_NS = 3_000_000_000
    FILE = "stamps"

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        #: path -> (stamp, content hash, when the stamp was taken in ns).
        self._entries: dict[str, tuple[Stamp, str, int]] = {}
        self._changed = False
        with contextlib.suppress(Exception):  # a missing or damaged index is no index
            with (directory / self.FILE).open("rb") as handle:
                entries = pickle.load(handle)
            if isinstance(entries, dict):
                self._entries = entries

    def known(self, path: Path, stamp: Stamp) -> str | None:
        """Return the content hash of `path` if its stamp vouches for it, else None."""
        entry = self._entries.get(os.fspath(path))
        if entry is None:
            return None
        old, content_digest, taken = entry
        if old != stamp or max(stamp[1], stamp[2]) + self.RACY_NS > taken:
            return None
        return content_digest

    def record(self, path: Path, stamp: Stamp, content_digest: str, taken: int) -> None:
        """Remember the hash of the bytes read after `stamp` was taken at time `taken` (ns)."""
        key = os.fspath(path)
        entry = (stamp, content_digest, taken)
        if self._entries.get(key) != entry:
            old = self._entries.get(key)
            # A stamp already trusted stays as it was: re-recording it would restart its wait.
            if old is None or old[:2] != entry[:2] or self.known(path, stamp) is None:
                self._entries[key] = entry
                self._changed = True

    def save(self) -> None:
        """Write the index atomically if it changed; never raise."""
        if not self._changed:
            return
        try:
            self._directory.mkdir(parents=True, exist_ok=True)
            _mark_cache_directory(self._directory)
            handle, temporary = tempfile.mkstemp(dir=self._directory, suffix=".tmp")
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(self._entries, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self._directory / self.FILE)
            self._changed = False
        except OSError:
            return


def _code_version(sources: list[Path]) -> str:
    hasher = hashlib.sha256()
    for source in sources:
        with contextlib.suppress(OSError):
            hasher.update(source.read_bytes())
    return hasher.hexdigest()[:16]


def _analysis_version() -> str:
    """Hash the code that produces summaries: a cache made by other code is never reused."""
    package = Path(__file__).resolve().parent
    sources = [
        package / "caches.py",
        package / "errors.py",
        package / "summaries.py",
        package / "files.py",
        package / "notebooks.py",
        *sorted((package / "analysis").glob("*.py")),
    ]
    return _code_version(sources)


ANALYSIS_VERSION = _analysis_version()
#: A hash of all of the engine's code: what a run's results depend on.
CODE_VERSION = _code_version(sorted(Path(__file__).resolve().parent.rglob("*.py")))
