"""One file's way from bytes to `ModuleFacts`, and doing that for many files at once."""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import os
import pickle
import stat
import traceback
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import files
from .analysis.extract import extract, function_source, module_name_for
from .analysis.facts import ClassFacts, FunctionFacts, ModuleFacts
from .analysis.function_table import FunctionSource
from .types import Failed, Skipped, SkipReason, SourceFile

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


def summarise_source(
    source: SourceFile, root: Path, *, keep_tree: bool = False
) -> Parsed | Skipped:
    """Parse `source` and summarise it, or say why it is skipped (`keep_tree`: see
    `extract`)."""
    if files.is_generated(source.text):
        return Skipped(source.path, SkipReason.GENERATED, "marked as generated")
    try:
        tree, legacy = _parse(source.text, source.path)
    except SyntaxError as error:
        where = f"line {error.lineno}: " if error.lineno else ""
        return Skipped(source.path, SkipReason.SYNTAX_ERROR, f"{where}{error.msg}")
    except (ValueError, RecursionError, MemoryError) as error:
        return Skipped(source.path, SkipReason.SYNTAX_ERROR, str(error) or type(error).__name__)
    module = module_name_for(source.path, root)
    with collector_paused():
        facts = extract(tree, source.text, source.path, module, keep_tree=keep_tree)
    return Parsed(replace(facts, digest=digest(source.raw), legacy_grammar=legacy), source)


def _parse(text: str, path: Path) -> tuple[ast.Module, bool]:
    """Parse module text, and say whether only Python 3.6's grammar parses it; SyntaxError
    (or ValueError, RecursionError) if it cannot be parsed."""
    with warnings.catch_warnings(), collector_paused():
        # Invalid escape sequences and the like in analysed code are not our findings.
        warnings.simplefilter("ignore")
        source = files.python_text(text)
        try:
            return ast.parse(source, filename=str(path)), False
        except SyntaxError as error:
            # Before Python 3.7 `async` and `await` were names: old PyTorch code calls
            # `x.cuda(async=True)`. Such code parses with the grammar it was written for.
            try:
                return ast.parse(source, filename=str(path), feature_version=(3, 6)), True
            except SyntaxError:
                raise error from None


@contextlib.contextmanager
def collector_paused(*, release: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while a summary is built, then freeze what lives.

    Summaries are many small acyclic objects that live until the run ends. Every automatic
    collection re-scanned all of them, which made summarising a large file several times
    slower than parsing it; frozen objects are never scanned again. Reference counting
    still frees garbage at once.

    `release`, for a whole run: hand what was frozen back to the collector when it ends,
    so that the cycles a finished run leaves are freed, not kept for the rest of the
    process (`run_source` called many times). Collecting them costs a large project about a
    second, so a command-line run, which ends the process, keeps them frozen.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if release:
            gc.unfreeze()
        else:
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
        self._functions: FunctionSource | None = None

    @property
    def text(self) -> str:
        """Return the module's text."""
        return self._read()

    def summarise(self, qualname: str) -> tuple[list[FunctionFacts], list[ClassFacts]]:
        """Summarise function `qualname` (and what it contains), parsing the file once."""
        if self._functions is None:
            text = self._read()
            module = module_name_for(self._path, self._root)
            self._functions = function_source(_parse(text, self._path)[0], text, self._path, module)
        return self._functions.summarise(qualname)

    def _read(self) -> str:
        if self._text is None:
            self._text = files.decode_source(self._path, self._raw, self._mode).text
        return self._text


def summarise_bytes(
    path: Path, raw: bytes, mode: int, root: Path, keep_tree: bool = False
) -> ModuleFacts | Skipped | Failed:
    """Decode, parse and summarise one file's bytes; never raise."""
    try:
        source = files.decode_source(path, raw, mode)
    except files.SourceError as error:
        return Skipped(path, error.reason, error.detail)
    try:
        outcome = summarise_source(source, root, keep_tree=keep_tree)
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
    #: What `stat` said of each file just before it was read (none for unsaved text).
    stamps: dict[Path, files.Stamp] = field(default_factory=dict)
    #: Content hashes already known: computed once, or vouched for by an unchanged stamp.
    digests: dict[Path, str] = field(default_factory=dict)

    def digest(self, path: Path) -> str:
        """Return the content hash of the file `path` (read)."""
        known = self.digests.get(path)
        if known is None:
            known = self.digests[path] = digest(self.raw[path])
        return known


def _read(path: Path) -> tuple[Path, bytes, files.Stamp] | Skipped:
    try:
        raw, stamp = files.read_stamped(path)
    except files.SourceError as error:
        return Skipped(path, error.reason, error.detail)
    return path, raw, stamp


def read_all(paths: Sequence[Path], jobs: int | None) -> Contents:
    """Read every file; reading releases the GIL, so threads overlap the waits."""
    workers = max(1, min(8, jobs or (os.cpu_count() or 1) * 2))
    contents = Contents({}, {}, {})
    if workers == 1 or len(paths) < PARALLEL_THRESHOLD:
        results: Iterable[tuple[Path, bytes, files.Stamp] | Skipped] = map(_read, paths)
        for result in results:
            _store(result, contents)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_read, paths, chunksize=64):
                _store(result, contents)
    return contents


def _store(result: tuple[Path, bytes, files.Stamp] | Skipped, contents: Contents) -> None:
    if isinstance(result, Skipped):
        contents.problems[result.path] = result
    else:
        path, data, stamp = result
        contents.raw[path] = data
        contents.modes[path] = stat.S_IMODE(stamp[5])
        contents.stamps[path] = stamp


def summarise_many(
    items: Sequence[tuple[Path, bytes, int]],
    root: Path,
    jobs: int | None,
    *,
    keep_tree: bool = False,
) -> Iterator[ModuleFacts | Skipped | Failed]:
    """Summarise many files, in worker processes when there are enough of them."""
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(items) < PARALLEL_THRESHOLD:
        for path, raw, mode in items:
            yield summarise_bytes(path, raw, mode, root, keep_tree)
        return
    chunk = max(1, len(items) // (workers * 4))
    # Imported here: multiprocessing costs start-up time a run from the cache never needs.
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        paths, raws, modes = zip(*items, strict=True)
        for pickled in pool.map(
            _summarise_pickled,
            paths,
            raws,
            modes,
            [root] * len(items),
            [keep_tree] * len(items),
            chunksize=chunk,
        ):
            # Unpickled here, not by the pool's result thread: a summary is many small
            # objects, and automatic collections while they are made re-scan every summary
            # made before (that made the pool slower than summarising in one process).
            with collector_paused():
                yield pickle.loads(pickled)


class AheadOfNeed:
    """Summaries made in worker processes of low priority while the analysis runs.

    A large project's analysis reads most of its files in the end, one question at a
    time, and leaves the other cores idle meanwhile: each file is handed to them at once,
    and taken when a question needs it. A summary not started by then is made where it is
    needed, as before; one never needed is dropped. Exact: a file's summary depends on its
    bytes alone.
    """

    def __init__(self, items: Sequence[tuple[Path, bytes, int]], root: Path, jobs: int) -> None:
        # Imported here: multiprocessing costs start-up time a run from the cache never needs.
        from concurrent.futures import Future, ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(max_workers=jobs, initializer=_yield_to_the_analysis)
        self._futures: dict[Path, Future[bytes]] = {
            path: self._pool.submit(_summarise_pickled, path, raw, mode, root, False)
            for path, raw, mode in items
        }

    def take(self, path: Path) -> ModuleFacts | Skipped | Failed | None:
        """Return the summary of `path` (waiting while a worker makes it); None if no worker
        has started it, which none will now."""
        future = self._futures.pop(path, None)
        if future is None or future.cancel():
            return None
        try:
            pickled = future.result()
        except Exception:  # a broken worker: the file is summarised where it is needed
            return None
        with collector_paused():
            outcome: ModuleFacts | Skipped | Failed = pickle.loads(pickled)
        return outcome

    def close(self) -> None:
        """Stop the workers; summaries not taken are dropped."""
        self._futures.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)


def _yield_to_the_analysis() -> None:
    """Run a worker at low priority: the analysis, waiting on no summary, goes first."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(10)


def _summarise_pickled(path: Path, raw: bytes, mode: int, root: Path, keep_tree: bool) -> bytes:
    """Summarise a file in a worker process, pickled for the process that asked."""
    return pickle.dumps(summarise_bytes(path, raw, mode, root, keep_tree), pickle.HIGHEST_PROTOCOL)
