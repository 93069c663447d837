"""Runs answered from the record of a project's last full analysis (see `caches.RunRecord`).

A full analysis records the files whose summaries the rules read and the text questions they
asked, with the files that answered each, and what the text of each file it read answered
through its summary. When every file changed since then answers exactly the same
questions, and each changed file the rules read has a summary equal to the one they read,
a full run would ask the same questions, get the same answers and find the same: the results
are built from the record, reading only the files reported on and summarising the changed
files the rules read (an edit in a test or model file, or a comment or a function no
question reached in a Dataset's file).
"""

from __future__ import annotations

import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import files, notebooks
from .analysis.facts import ModuleFacts
from .caches import FactsCache, RunRecord
from .summaries import digest, summarise_bytes
from .types import Failed, FileResult, Finding, Skipped, Unchanged
from .workspace import Workspace


@dataclass(frozen=True)
class Request:
    """What a run reports on, and what a full run of it would parse besides the analysis."""

    #: The files reported on.
    requested: Sequence[Path]
    #: The paths named on the command line: a file named is always parsed.
    named: Sequence[Path]
    #: The words that make a file worth summarising before any rule asks (rule prefetch).
    prefetch: tuple[bytes, ...]


class _Stale(Exception):
    """A file changed while a run was answered from its record."""


def answer(
    root: Path, record: RunRecord, digests: dict[Path, str], request: Request, cache: FactsCache
) -> list[FileResult] | None:
    """Return the results of a run from `record`, or None if an edit since may matter.

    `digests` holds the content hash of every file of the project now. Only the files
    reported on are read, and parsed only where a full run would parse them.
    """
    if record.digests.keys() != digests.keys():
        return None
    changed = {path for path, known in digests.items() if record.digests[path] != known}
    read_by_rules = changed & record.consulted
    if any(path not in record.tables or notebooks.is_notebook(path) for path in read_by_rules):
        return None
    read: dict[Path, tuple[bytes, int]] = {}

    def raw_of(path: Path) -> tuple[bytes, int]:
        if path not in read:
            raw, stamp = files.read_stamped(path)
            if digest(raw) != digests[path]:
                raise _Stale(path)
            read[path] = raw, stat.S_IMODE(stamp[5])
        return read[path]

    try:
        for path in changed:
            if not record.answers.same_answers(path, raw_of(path)[0]):
                return None
        for path in sorted(read_by_rules, key=str):
            if not _summarised_alike(root, record, path, raw_of, cache):
                cache.save()  # the full run that follows reads the summaries made here
                return None
        results = _results(root, record, changed, read_by_rules, request, raw_of, cache)
    except (_Stale, files.SourceError):
        return None
    cache.save()
    return results


def _summarised_alike(
    root: Path,
    record: RunRecord,
    path: Path,
    raw_of: Callable[[Path], tuple[bytes, int]],
    cache: FactsCache,
) -> bool:
    """Return True if the changed file `path`, whose summary the recorded analysis read, now
    has an equal summary that answers the same questions of its text (`RunRecord.tables`).

    The summary the analysis read is the one the cache holds for the recorded content hash;
    if the cache no longer holds it, the answer is False.
    """
    earlier = cache.get(path, record.digests[path], root)
    if earlier is None:
        return False
    raw, mode = raw_of(path)
    now = summarise_bytes(path, raw, mode, root)
    if not isinstance(now, ModuleFacts):
        return False
    cache.put(now)
    return now.answers_alike(earlier, record.tables[path])


def _results(
    root: Path,
    record: RunRecord,
    changed: set[Path],
    summarised_now: set[Path],
    request: Request,
    raw_of: Callable[[Path], tuple[bytes, int]],
    cache: FactsCache,
) -> list[FileResult]:
    """Return what a full run would for the requested files, given the record's findings
    (`summarised_now`: the changed files summarised already, without a problem)."""
    summarised = set(record.summarised - changed) | summarised_now
    problems = {path: problem for path, problem in record.problems.items() if path not in changed}
    by_path: dict[Path, list[Finding]] = {}
    for finding in record.findings:
        by_path.setdefault(finding.path, []).append(finding)
    named = set(request.named)
    results: list[FileResult] = []
    for path in request.requested:
        raw, mode = raw_of(path)
        # A full run summarises a file named on the command line, and a changed file its
        # rules prefetch; an unchanged one as the recorded run did.
        parsed = path in named or (
            path in changed and any(token in raw for token in request.prefetch)
        )
        if parsed and path not in summarised:
            outcome = cache.get(path, digest(raw), root) or summarise_bytes(path, raw, mode, root)
            summarised.add(path)
            if isinstance(outcome, Skipped | Failed):
                problems[path] = outcome
            else:
                cache.put(outcome)
        problem = problems.get(path)
        if problem is None and path not in summarised:
            try:
                files.decode_source(path, raw, mode)
            except files.SourceError as error:
                problem = Skipped(path, error.reason, error.detail)
        if problem is not None:
            results.append(problem)
            continue
        found = tuple(by_path.get(path, ()))
        if found and notebooks.is_notebook(path):
            text = files.decode_source(path, raw, mode).text
            found = tuple(notebooks.locate(finding, text) for finding in found)
        results.append(Unchanged(path, found, files.encoding_note(raw)))
    return sorted(results, key=lambda result: result.path.as_posix())


def record_of(workspace: Workspace, prefetched: set[Path], findings: list[Finding]) -> RunRecord:
    """Return the record of a full analysis of `workspace`.

    `prefetched`: the files summarised before the analysis started (the rules' prefetch);
    `findings`: every finding of the project.
    """
    sources = workspace.sources
    summarised = frozenset(prefetched | sources.consulted)
    return RunRecord(
        {path: workspace.contents.digest(path) for path in workspace.contents.raw},
        frozenset(sources.consulted),
        sources.answers(),
        tuple(findings),
        summarised,
        {path: problem for path, problem in workspace.problems.items() if path in summarised},
        sources.table_answers(),
    )
