"""One file's way from bytes to `ModuleFacts`, and doing that for many files at once."""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import os
import pickle
import shutil
import tempfile
import traceback
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from . import files
from .analysis.extract import extract, function_source, module_name_for
from .analysis.facts import FunctionFacts, FunctionSource, ModuleFacts
from .lines import source_lines
from .types import Failed, FileResult, Skipped, SkipReason, SourceFile

#: Below this many files, a process pool costs more than it saves.
PARALLEL_THRESHOLD = 48


@dataclass(frozen=True)
class Parsed:
    """A file's summary and the source it came from."""

    facts: ModuleFacts
    source: SourceFile


def digest(raw: bytes) -> str:
    """Return the content hash that identifies a file's version."""
    return hashlib.sha256(raw).hexdigest()


def summarise_source(source: SourceFile, root: Path) -> Parsed | Skipped:
    """Parse `source` and summarise it, or say why it is skipped."""
    if files.is_generated(source.text):
        return Skipped(source.path, SkipReason.GENERATED, "marked as generated")
    try:
        tree = _parse(source.text, source.path)
    except SyntaxError as error:
        where = f"line {error.lineno}: " if error.lineno else ""
        return Skipped(source.path, SkipReason.SYNTAX_ERROR, f"{where}{error.msg}")
    except (ValueError, RecursionError, MemoryError) as error:
        return Skipped(source.path, SkipReason.SYNTAX_ERROR, str(error) or type(error).__name__)
    module = module_name_for(source.path, root)
    with collector_paused():
        facts = extract(tree, source.text, source.path, module)
    return Parsed(replace(facts, digest=digest(source.raw)), source)


def _parse(text: str, path: Path) -> ast.Module:
    """Parse module text; SyntaxError (or ValueError, RecursionError) if it cannot be."""
    with warnings.catch_warnings(), collector_paused():
        # Invalid escape sequences and the like in analysed code are not our findings.
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=str(path))


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a summary is built, then freeze what lives.

    Summaries are many small acyclic objects that live until the run ends. Every automatic
    collection re-scanned all of them, which made summarising a large file several times
    slower than parsing it; frozen objects are never scanned again. Reference counting
    still frees garbage at once.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


class ReopenedModule:
    """A file whose summary came from the cache or another process, read again on demand.

    Its text is decoded when a question reads it; it is parsed only if a function its
    summary left for later is asked for.
    """

    def __init__(self, path: Path, raw: bytes, mode: int, root: Path) -> None:
        self._path, self._raw, self._mode, self._root = path, raw, mode, root
        self._text: str | None = None
        self._lines: list[str] | None = None
        self._functions: FunctionSource | None = None

    @property
    def lines(self) -> list[str]:
        """Return the module's text, line by line."""
        if self._lines is None:
            self._lines = source_lines(self._read())
        return self._lines

    def summarise(self, qualname: str) -> list[FunctionFacts]:
        """Summarise function `qualname` (and what it contains), parsing the file once."""
        if self._functions is None:
            text = self._read()
            module = module_name_for(self._path, self._root)
            self._functions = function_source(_parse(text, self._path), text, self._path, module)
        return self._functions.summarise(qualname)

    def _read(self) -> str:
        if self._text is None:
            self._text = files.decode_source(self._path, self._raw, self._mode).text
        return self._text


def summarise_bytes(
    path: Path, raw: bytes, mode: int, root: Path
) -> ModuleFacts | Skipped | Failed:
    """Decode, parse and summarise one file's bytes; never raise."""
    try:
        source = files.decode_source(path, raw, mode)
    except files.SourceError as error:
        return Skipped(path, error.reason, error.detail)
    try:
        outcome = summarise_source(source, root)
    except Exception as error:  # one file's crash must not stop the run
        return Failed(path, f"{type(error).__name__}: {error}", traceback.format_exc())
    return outcome.facts if isinstance(outcome, Parsed) else outcome


@dataclass(frozen=True)
class Contents:
    """The bytes of many files, read once."""

    raw: dict[Path, bytes]
    modes: dict[Path, int]
    #: Files that could not be read.
    problems: dict[Path, Skipped]


def _read(path: Path) -> tuple[Path, bytes, int] | Skipped:
    try:
        raw, mode = files.read_bytes(path)
    except files.SourceError as error:
        return Skipped(path, error.reason, error.detail)
    return path, raw, mode


def read_all(paths: Sequence[Path], jobs: int | None) -> Contents:
    """Read every file; reading releases the GIL, so threads overlap the waits."""
    workers = max(1, min(8, jobs or (os.cpu_count() or 1) * 2))
    raw: dict[Path, bytes] = {}
    modes: dict[Path, int] = {}
    problems: dict[Path, Skipped] = {}
    if workers == 1 or len(paths) < PARALLEL_THRESHOLD:
        results: Iterable[tuple[Path, bytes, int] | Skipped] = map(_read, paths)
        for result in results:
            _store(result, raw, modes, problems)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_read, paths, chunksize=64):
                _store(result, raw, modes, problems)
    return Contents(raw, modes, problems)


def _store(
    result: tuple[Path, bytes, int] | Skipped,
    raw: dict[Path, bytes],
    modes: dict[Path, int],
    problems: dict[Path, Skipped],
) -> None:
    if isinstance(result, Skipped):
        problems[result.path] = result
    else:
        path, data, mode = result
        raw[path] = data
        modes[path] = mode


def summarise_many(
    items: Sequence[tuple[Path, bytes, int]], root: Path, jobs: int | None
) -> Iterator[ModuleFacts | Skipped | Failed]:
    """Summarise many files, in worker processes when there are enough of them."""
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(items) < PARALLEL_THRESHOLD:
        for path, raw, mode in items:
            yield summarise_bytes(path, raw, mode, root)
        return
    chunk = max(1, len(items) // (workers * 4))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        paths, raws, modes = zip(*items, strict=True)
        yield from pool.map(
            summarise_bytes, paths, raws, modes, [root] * len(items), chunksize=chunk
        )


class FactsCache:
    """Summaries of earlier runs, one file each, keyed by path and content hash.

    They live under `<root>/.workerseed_cache/<analysis version>/`, where the version is a
    hash of the analysis code itself, so a changed analysis never reuses an old summary.
    Only the summaries a run needs are read. An entry that cannot be read is ignored, and
    deleting the cache only costs time.
    """

    def __init__(self, directory: Path | None) -> None:
        self._base = directory
        self._directory = directory / ANALYSIS_VERSION if directory is not None else None
        self._new: dict[str, ModuleFacts] = {}
        self._used: set[str] = set()

    @staticmethod
    def _name(path: Path, content_digest: str) -> str:
        return hashlib.sha256(f"{path}\0{content_digest}".encode()).hexdigest()[:40]

    def get(self, path: Path, raw: bytes, root: Path) -> ModuleFacts | None:
        """Return the cached summary of this version of `path`, if any."""
        if self._directory is None:
            return None
        name = self._name(path, digest(raw))
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
        return facts

    def put(self, facts: ModuleFacts) -> None:
        """Remember a summary made in this run, to be written by `save()`."""
        if self._directory is not None:
            self._new[self._name(facts.path, facts.digest)] = facts

    def save(self) -> None:
        """Write the new summaries atomically and drop other versions' caches; never raise."""
        if self._directory is None or self._base is None or not self._new:
            return
        try:
            self._base.mkdir(parents=True, exist_ok=True)
            _mark_cache_directory(self._base)
            for other in self._base.iterdir():
                if other.is_dir() and other.name not in (ANALYSIS_VERSION, "runs"):
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


class RunCache:
    """The results of earlier `check` runs of one project, keyed by everything they depend on.

    A run's findings depend on every file of the project (a Dataset in one file, its
    DataLoader in another), on the settings and on the tool's own code. The key hashes all
    of them, so an entry is reused only for the very same question about the very same
    files: a re-run on an unchanged tree costs reading and hashing it.
    """

    #: Entries kept per project; older ones are deleted.
    KEEP = 8

    def __init__(self, directory: Path) -> None:
        self._directory = directory / "runs" / CODE_VERSION

    @staticmethod
    def key(question: str, contents: Contents) -> str:
        """Return the key of a run: `question` (settings, rules, target, paths) and the files."""
        hasher = hashlib.sha256(question.encode())
        for path in sorted(contents.raw, key=os.fspath):
            hasher.update(f"\0{path}\0{digest(contents.raw[path])}".encode())
        for path in sorted(contents.problems, key=os.fspath):
            hasher.update(f"\0{path}\0unreadable".encode())
        return hasher.hexdigest()[:40]

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
        try:
            self._directory.mkdir(parents=True, exist_ok=True)
            _mark_cache_directory(self._directory.parent.parent)
            handle, temporary = tempfile.mkstemp(dir=self._directory, suffix=".tmp")
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(results, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self._directory / key)
            entries = sorted(
                self._directory.iterdir(), key=lambda entry: entry.stat().st_mtime, reverse=True
            )
            for old in entries[self.KEEP :]:
                old.unlink(missing_ok=True)
            for other in self._directory.parent.iterdir():
                if other.name != CODE_VERSION:
                    shutil.rmtree(other, ignore_errors=True)
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
        package / "summaries.py",
        package / "files.py",
        package / "notebooks.py",
        *sorted((package / "analysis").glob("*.py")),
    ]
    return _code_version(sources)


ANALYSIS_VERSION = _analysis_version()
#: A hash of all of the engine's code: what a run's results depend on.
CODE_VERSION = _code_version(sorted(Path(__file__).resolve().parent.rglob("*.py")))
