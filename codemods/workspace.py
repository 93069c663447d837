"""A project's files as read once for a run: their bytes, their summaries (made on demand,
cached on disk), and the fixed text of the files fixes rewrite."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import files
from .analysis.facts import ModuleFacts
from .analysis.function_table import FunctionSource
from .analysis.sources import SourceSet
from .caches import CACHE_DIRECTORY as CACHE_DIRECTORY
from .caches import FactsCache, FileStamps
from .settings import Settings
from .summaries import (
    PARALLEL_THRESHOLD,
    AheadOfNeed,
    Contents,
    ReopenedModule,
    read_all,
    summarise_bytes,
    summarise_many,
)
from .types import Failed, Skipped, SourceFile

#: Below this many bytes of files, summaries keep their syntax trees and summarise each
#: function when first asked for: less work when few functions matter. Above it, the
#: trees (many times the size of the files) would cost more memory than the work saved.
KEEP_TREES_BELOW = 8_000_000

#: Progress callback: (stage, done, total).
Progress = Callable[[str, int, int], None]


@dataclass
class Workspace:
    """The project's files while fixes rewrite them."""

    root: Path
    contents: Contents
    sources: SourceSet
    #: Skipped or failed summaries, by path.
    problems: dict[Path, Skipped | Failed] = field(default_factory=dict)
    #: Fixed text of the files fixes changed.
    texts: dict[Path, str] = field(default_factory=dict)
    cache: FactsCache = field(default_factory=lambda: FactsCache(None))
    #: The files being summarised ahead of need, if any.
    ahead: AheadOfNeed | None = None

    def close(self) -> None:
        """Stop summarising ahead of need (the run no longer asks questions)."""
        if self.ahead is not None:
            self.ahead.close()
            self.ahead = None

    def source(self, path: Path) -> SourceFile:
        """Return the original source of `path`."""
        return files.decode_source(path, self.contents.raw[path], self.contents.modes[path])

    def undecodable(self, path: Path) -> Skipped | None:
        """Return why `path` cannot be decoded, if it cannot.

        Files no question needed are not parsed, but decoding costs little: a file that is
        not text in its declared encoding is reported whether or not it mattered.
        """
        if path not in self.contents.raw or self.sources.summarised(path):
            return None
        try:
            self.source(path)
        except files.SourceError as error:
            return Skipped(path, error.reason, error.detail)
        return None


def open_workspace(
    root: Path,
    paths: Sequence[Path],
    settings: Settings,
    prefetch: tuple[bytes, ...],
    progress: Progress | None,
    unsaved: Mapping[Path, bytes] | None = None,
    *,
    stamps: FileStamps | None = None,
    ahead: bool = False,
) -> Workspace:
    """Read every file, and summarise those the rules will certainly need, in parallel.

    `unsaved` holds bytes that take the place of files (an editor's unsaved text, maybe of
    a file not yet on disk). `stamps` vouch for the content hash of the files they know
    unchanged, which then are not hashed again. `ahead`: in a large project, go on
    summarising the other files in the background while the analysis runs (see
    `AheadOfNeed`); the caller closes the workspace when its questions end.
    """
    contents = read_all([path for path in paths if path not in (unsaved or {})], settings.jobs)
    for path, raw in (unsaved or {}).items():
        contents.raw[path] = raw
        contents.modes.setdefault(path, 0o644)
    if stamps is not None:
        for path, stamp in contents.stamps.items():
            known = stamps.known(path, stamp)
            if known is not None:
                contents.digests[path] = known
    problems: dict[Path, Skipped | Failed] = dict(contents.problems)
    cache = FactsCache(root / CACHE_DIRECTORY if settings.cache else None)
    keep_tree = sum(map(len, contents.raw.values())) < KEEP_TREES_BELOW

    #: Summaries made (or read from the cache) ahead of the question that needs them.
    ready: dict[Path, ModuleFacts | Skipped | Failed] = {}
    from_cache: dict[Path, ModuleFacts] = {}

    background: AheadOfNeed | None = None

    def summarise(path: Path) -> ModuleFacts | None:
        outcome = ready.pop(path, None)
        if outcome is None and background is not None:
            outcome = background.take(path)
        if outcome is None:
            cached = from_cache.pop(path, None) or cache.get(path, contents.digest(path), root)
            if cached is not None:
                return cached
            raw, mode = contents.raw[path], contents.modes[path]
            outcome = summarise_bytes(path, raw, mode, root, keep_tree)
        if isinstance(outcome, Skipped | Failed):
            problems[path] = outcome
            return None
        cache.put(outcome)
        return outcome

    def reopen(path: Path) -> FunctionSource:
        return ReopenedModule(path, contents.raw[path], contents.modes[path], root)

    def prepare(paths: list[Path]) -> None:
        # A question about many files of a large project (every caller of `__init__`)
        # summarises them in worker processes, all at once; each summary is taken up, as
        # before, when the question reaches its file.
        items = []
        for path in paths:
            if path in ready or path in from_cache or path not in contents.raw:
                continue
            cached = cache.get(path, contents.digest(path), root)
            if cached is not None:
                from_cache[path] = cached
                continue
            taken = background.take(path) if background is not None else None
            if taken is not None:
                ready[path] = taken
            else:
                items.append((path, contents.raw[path], contents.modes[path]))
        if len(items) >= PARALLEL_THRESHOLD:
            for outcome in summarise_many(items, root, settings.jobs):
                ready[outcome.path] = outcome

    sources = SourceSet(
        root,
        dict(contents.raw),
        summarise,
        filtered=settings.prefilter,
        reopen=reopen,
        # With trees kept, a file summarised here summarises its functions on demand from
        # its tree; one from a worker process would have to be parsed again.
        prepare=None if keep_tree or settings.jobs == 1 else prepare,
    )
    if not settings.prefilter:
        selected = list(contents.raw)
    else:
        selected = [
            path for path, raw in contents.raw.items() if any(token in raw for token in prefetch)
        ]
    items = []
    for path in selected:
        cached = cache.get(path, contents.digest(path), root)
        if cached is not None:
            sources.add(path, cached)
        else:
            items.append((path, contents.raw[path], contents.modes[path]))
    summaries = summarise_many(items, root, settings.jobs, keep_tree=keep_tree)
    for done, outcome in enumerate(summaries, 1):
        if isinstance(outcome, Skipped | Failed):
            problems[outcome.path] = outcome
            sources.add(outcome.path, None)
        else:
            cache.put(outcome)
            sources.add(outcome.path, outcome)
        if progress:
            progress("analysing", done, len(items))
    if ahead and not keep_tree and settings.jobs != 1:
        rest = [
            (path, contents.raw[path], contents.modes[path])
            for path in sources.paths
            if path in contents.raw
            and not sources.summarised(path)
            and not (settings.cache and cache.holds(path, contents.digest(path)))
        ]
        if len(rest) >= PARALLEL_THRESHOLD:
            background = AheadOfNeed(rest, root, settings.jobs or os.cpu_count() or 1)
    return Workspace(root, contents, sources, problems, cache=cache, ahead=background)
