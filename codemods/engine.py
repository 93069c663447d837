"""Run the rules over a repository: read, summarise, analyse, fix.

The engine never raises for one bad file: a file that cannot be read or parsed becomes a
`Skipped` result, an unexpected error a `Failed` one, and every other file is still
processed. It never writes files either; `files.write_atomic` does that for the CLI.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from . import distributed, files, notebooks, records
from .analysis.augmentations import assumed_versions
from .analysis.config_files import config_stamps
from .analysis.project import Project
from .analysis.read_once import files_read_once
from .analysis.sources import SourceSet
from .analysis.torch_version import detect_target, target_from_option
from .caches import CACHE_DIRECTORY, FactsCache, FileStamps, RunCache
from .checking import check_project as check_project
from .fixing import fix_rounds
from .projects import ProjectSettings as ProjectSettings
from .projects import by_root
from .registry import selected_rules
from .rule import Rule
from .settings import ConfigError, Settings, config_path, for_project
from .summaries import (
    Contents,
    Parsed,
    collector_paused,
    digest,
    summarise_source,
)
from .tree_snapshots import through_snapshot
from .types import (
    Changed,
    Failed,
    FileResult,
    Finding,
    Skipped,
    TorchTarget,
    Unchanged,
)
from .workspace import Progress, Workspace, open_workspace

# --- running ---


def project_target(root: Path, settings: Settings) -> TorchTarget:
    if settings.torch_version is not None:
        try:
            return target_from_option(settings.torch_version, settings.torch_version_source)
        except ValueError as error:
            raise ConfigError(str(error)) from error
    return detect_target(root)


def project_settings(paths: Sequence[Path], settings: Settings) -> Iterator[ProjectSettings]:
    """Yield the resolved settings of each project the paths belong to (ConfigError if invalid)."""
    for root in by_root(paths):
        resolved = for_project(settings, root)
        yield ProjectSettings(
            root,
            config_path(settings, root),
            resolved,
            tuple(rule.CODE for rule in selected_rules(resolved)),
            project_target(root, resolved),
        )


def run_paths(
    paths: Sequence[Path],
    settings: Settings,
    *,
    fix: bool = False,
    progress: Progress | None = None,
) -> Iterator[FileResult]:
    """Check (or fix) the files below `paths`, one result per file, project by project.

    Each path is analysed together with the rest of the repository it belongs to, so a
    Dataset defined in a file that was not named is still found; results (and edits) are
    limited to the named paths. Several repositories are analysed side by side in worker
    processes (`settings.jobs`). Raises ConfigError for an invalid configuration.
    """
    groups = by_root(paths)
    workers = min(len(groups), settings.jobs or os.cpu_count() or 1)
    if workers <= 1 and settings.scheduler is None:
        for done, (root, requested) in enumerate(groups.items(), 1):
            yield from _project_results(root, requested, settings, fix, progress)
            if progress and len(groups) > 1:
                progress("projects", done, len(groups))
        return
    # A repository whose run is stored costs a `stat` per file: no process is started for it.
    stored = {
        root: results
        for root, requested in groups.items()
        if not fix and (results := _cached_results(root, requested, settings)) is not None
    }
    missing = {root: requested for root, requested in groups.items() if root not in stored}
    if not missing:
        for done, results in enumerate(stored.values(), 1):
            yield from results
            if progress:
                progress("projects", done, len(stored))
        return
    # One repository per process (or cluster worker); none starts a pool of its own.
    single = replace(settings, jobs=1)
    workers = min(len(missing), workers)
    with distributed.executor(settings.scheduler, workers) as pool:
        futures = {
            root: pool.submit(_project_results, root, requested, single, fix)
            for root, requested in missing.items()
        }
        for done, root in enumerate(groups, 1):
            yield from stored[root] if root in stored else futures[root].result()
            if progress:
                progress("projects", done, len(groups))


def open_project(root: Path, settings: Settings, target: TorchTarget) -> Project:
    """Return the project at `root` for questions beyond the rules (`scan`): nothing is
    summarised until a question needs it. Raises ConfigError for an invalid configuration."""
    settings = for_project(settings, root)
    workspace = open_workspace(root, discover([root], root, settings), settings, (), None)
    return Project(root, workspace.sources, target)


def discover(paths: Sequence[Path], root: Path, settings: Settings) -> list[Path]:
    """Return the analysable files below `paths` that the settings do not exclude."""
    return list(
        files.discover(
            paths,
            root,
            exclude=settings.exclude or (),
            extend_exclude=settings.extend_exclude,
            respect_gitignore=settings.respect_gitignore,
        )
    )


def _project_results(
    root: Path,
    requested: list[Path],
    settings: Settings,
    fix: bool,
    progress: Progress | None = None,
) -> list[FileResult]:
    """Return the results of one repository (a separate function so a process can run it)."""

    def run() -> tuple[list[FileResult], list[Path], ProjectSettings]:
        with files_read_once():
            question = _Question.of(root, requested, settings)
            results = list(_run_project(root, question, fix=fix, progress=progress))
            return results, question.everything, question.project(root, settings)

    with collector_paused():
        if fix:
            return run()[0]
        return through_snapshot(root, requested, settings, run)


@dataclass(frozen=True)
class _Question:
    """What a run of one project asks: its settings, rules, target and files."""

    settings: Settings
    rules: tuple[type[Rule], ...]
    target: TorchTarget
    everything: list[Path]
    requested: list[Path]
    #: The paths named on the command line (a file named is always parsed).
    named: tuple[Path, ...] = ()

    @classmethod
    def of(cls, root: Path, requested_paths: list[Path], settings: Settings) -> _Question:
        settings = for_project(settings, root)
        everything = discover([root], root, settings)
        if requested_paths == [root]:
            requested = everything
        else:
            requested = discover(requested_paths, root, settings)
            everything = sorted(set(everything) | set(requested), key=str)
        return cls(
            settings,
            selected_rules(settings),
            project_target(root, settings),
            everything,
            requested,
            tuple(requested_paths),
        )

    def project(self, root: Path, options: Settings) -> ProjectSettings:
        """Return what `project_settings` says of this project (`options`: as given)."""
        codes = tuple(rule.CODE for rule in self.rules)
        return ProjectSettings(root, config_path(options, root), self.settings, codes, self.target)

    def text(self, analysis_text: str) -> str:
        """Return what a cached run's key says besides the files' contents."""
        return analysis_text + repr(sorted(path.as_posix() for path in self.requested))

    def analysis_text(self, root: Path) -> str:
        """Return what the project's findings depend on besides its files' contents: the
        key of its `RunRecord`, whichever files a run reports on."""
        with files_read_once():
            versions = assumed_versions(root, self.settings.library_versions)
        return repr(
            (
                replace(self.settings, jobs=None, scheduler=None),
                [rule.CODE for rule in self.rules],
                self.target,
                # Library versions come from files no rule reads (requirements, lock files).
                versions,
                # Loaded augmentation pipelines are judged by the project's JSON/YAML files.
                config_stamps(root),
            )
        )

    @property
    def prefetch(self) -> tuple[bytes, ...]:
        """Return the words that make a file worth summarising before any rule asks."""
        return tuple(
            dict.fromkeys(token for rule in self.rules for token in rule.prefetch(self.target))
        )


def _cached_results(
    root: Path, requested_paths: list[Path], settings: Settings
) -> list[FileResult] | None:
    """Return the stored results of the very same run, if there are any, reading no file
    whose stamp vouches for its content hash (see `caches.FileStamps`)."""
    if not settings.cache:
        return None

    def run() -> tuple[list[FileResult] | None, list[Path], ProjectSettings]:
        with files_read_once():
            question = _Question.of(root, requested_paths, settings)
            results = _stored_run(root, question, question.analysis_text(root))
            return results, question.everything, question.project(root, settings)

    return through_snapshot(root, requested_paths, settings, run)


def _stored_run(root: Path, question: _Question, base: str) -> list[FileResult] | None:
    """Return the results of the very same run, or of one that differs only in files
    that cannot change a finding (see `records`), if the cache holds them.

    `base` is the question's `analysis_text`."""
    stamps = FileStamps(root / CACHE_DIRECTORY)
    taken = time.time_ns()
    digests: dict[Path, str] = {}
    for path in question.everything:
        try:
            stamp = files.stamp_of(os.stat(path))
        except OSError:
            return None  # the full run reports it
        known = stamps.known(path, stamp)
        if known is None:
            try:
                raw, stamp = files.read_stamped(path)
            except files.SourceError:
                return None
            known = digest(raw)
            stamps.record(path, stamp, known, taken)
        digests[path] = known
    runs = RunCache(root / CACHE_DIRECTORY)
    key = RunCache.key_of(question.text(base), digests)
    cached = runs.get(key)
    if cached is None:
        record = runs.record(base) if question.settings.prefilter else None
        if record is not None:
            request = records.Request(question.requested, question.named, question.prefetch)
            cache = FactsCache(root / CACHE_DIRECTORY)
            cached = records.answer(root, record, digests, request, cache)
        if cached is not None:
            runs.put(key, cached)
    if cached is not None:
        stamps.save()
    return cached


def _run_project(
    root: Path, question: _Question, *, fix: bool, progress: Progress | None
) -> Iterator[FileResult]:
    settings, rules, target = question.settings, question.rules, question.target
    everything, requested = question.everything, question.requested
    runs = RunCache(root / CACHE_DIRECTORY) if settings.cache and not fix else None
    base = question.analysis_text(root) if runs is not None else ""
    text = question.text(base)
    if runs is not None:
        cached = _stored_run(root, question, base)
        if cached is not None:
            yield from cached
            return
    stamps = FileStamps(root / CACHE_DIRECTORY) if settings.cache else None
    taken = time.time_ns()
    workspace = open_workspace(
        root, everything, settings, question.prefetch, progress, stamps=stamps, ahead=True
    )
    prefetched = {path for path in everything if workspace.sources.summarised(path)}
    key = RunCache.key(text, workspace.contents) if runs is not None else ""
    if stamps is not None:
        contents = workspace.contents
        for path, stamp in contents.stamps.items():
            stamps.record(path, stamp, contents.digest(path), taken)
        stamps.save()
    # A file named on the command line is always parsed, so a syntax error in it is
    # reported even when no question needed it.
    for path in question.named:
        if path in workspace.contents.raw:
            workspace.sources.facts(path)
    sources = workspace.sources
    sources.consulted.clear()
    findings: list[Finding] = []
    try:
        results = list(
            _analyse(workspace, rules, settings, target, requested, fix=fix, collected=findings)
        )
    finally:
        workspace.close()
    if runs is not None and not any(isinstance(result, Failed) for result in results):
        runs.put(key, results)
        if sources.filtered and not workspace.contents.problems:
            runs.put_record(base, records.record_of(workspace, prefetched, findings))
    yield from results


def _analyse(
    workspace: Workspace,
    rules: tuple[type[Rule], ...],
    settings: Settings,
    target: TorchTarget,
    requested: list[Path],
    *,
    fix: bool,
    collected: list[Finding] | None = None,
) -> Iterator[FileResult]:
    """Run the rules (and fixes) over an opened project; yield a result per requested file
    (and add every finding of the project to `collected`, if given)."""
    root = workspace.root
    project = Project(root, workspace.sources, target)
    try:
        findings = check_project(project, rules, settings)
    except Exception as error:  # a rule bug is reported, not raised
        yield Failed(
            root, f"internal error: {type(error).__name__}: {error}", traceback.format_exc()
        )
        return
    workspace.cache.save()
    if collected is not None:
        collected.extend(findings)
    by_path: dict[Path, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    fixed: dict[Path, list[Finding]] = {}
    errors: dict[Path, str] = {}
    remaining_by_path: dict[Path, list[Finding]] | None = None
    if fix and any(finding.fix for finding in findings):
        try:
            fixed, errors, remaining = fix_rounds(
                workspace, target, rules, settings, set(requested), findings
            )
        except Exception as error:
            yield Failed(root, f"internal error while fixing: {error}", traceback.format_exc())
            return
        remaining_by_path = {}
        for finding in remaining:
            remaining_by_path.setdefault(finding.path, []).append(finding)
    results: list[FileResult] = []
    for path in requested:
        own = tuple(by_path.get(path, ()))
        problem = workspace.problems.get(path) or workspace.undecodable(path)
        if problem is not None:
            results.append(problem)
        elif path in errors:
            results.append(Failed(path, f"fix not applied: {errors[path]}"))
        elif path in workspace.texts:
            results.append(
                _changed(
                    workspace,
                    path,
                    own,
                    fixed=tuple(fixed.get(path, ())),
                    remaining=tuple((remaining_by_path or {}).get(path, ())),
                )
            )
        else:
            # After fixing, what is left here may differ: a fix elsewhere can resolve it.
            left = own if remaining_by_path is None else tuple(remaining_by_path.get(path, ()))
            note = files.encoding_note(workspace.contents.raw.get(path, b""))
            results.append(Unchanged(path, _in_cells(workspace, path, left), note))
    yield from sorted(results, key=lambda result: result.path.as_posix())


def _in_cells(
    workspace: Workspace, path: Path, findings: tuple[Finding, ...], text: str | None = None
) -> tuple[Finding, ...]:
    """Locate a notebook's findings in its cells (`text`: the module they were made on)."""
    if not findings or not notebooks.is_notebook(path):
        return findings
    module = text if text is not None else workspace.source(path).text
    return tuple(notebooks.locate(finding, module) for finding in findings)


def _changed(
    workspace: Workspace,
    path: Path,
    findings: tuple[Finding, ...],
    *,
    fixed: tuple[Finding, ...],
    remaining: tuple[Finding, ...],
) -> Changed | Unchanged | Failed:
    source, new = workspace.source(path), workspace.texts[path]
    fixed_text = new
    if notebooks.is_notebook(path):
        try:
            source, new = notebooks.file_change(source, new)
        except notebooks.NotebookError as error:
            return Failed(path, f"fix not applied: {error}")
        if new == source.text:
            return Unchanged(path, _in_cells(workspace, path, remaining, fixed_text))
    return Changed(
        path,
        _in_cells(workspace, path, findings),
        source,
        new,
        fixed=_in_cells(workspace, path, fixed),
        remaining=_in_cells(workspace, path, remaining, fixed_text),
    )


def run_source(
    text: str,
    *,
    path: Path = Path("example.py"),
    settings: Settings | None = None,
    target: TorchTarget | None = None,
    fix: bool = False,
) -> FileResult:
    """Check (or fix) one module given as text, as if it were the only file of a project."""
    with collector_paused(release=True):
        return _run_source(text, path, settings or Settings(), target, fix)


def _run_source(
    text: str, path: Path, settings: Settings, target: TorchTarget | None, fix: bool
) -> FileResult:
    if target is None:
        target = (
            target_from_option(settings.torch_version, settings.torch_version_source)
            if settings.torch_version
            else TorchTarget(None)
        )
    root = path.parent
    try:
        raw = files.encode_source(path, text)
        source = files.decode_source(path, raw, 0o644)
    except files.SourceError as error:
        return Skipped(path, error.reason, error.detail)
    contents = Contents({path: raw}, {path: 0o644}, {})
    summary = summarise_source(source, root)
    if not isinstance(summary, Parsed):
        return summary
    rules = selected_rules(settings)
    sources = SourceSet(root, dict(contents.raw), lambda _: None, parsed=[summary.facts])
    workspace = Workspace(root, contents, sources)
    findings = tuple(check_project(Project(root, sources, target), rules, settings))
    if not fix or not any(finding.fix for finding in findings):
        return Unchanged(path, findings, source.note)
    fixed, errors, remaining = fix_rounds(
        workspace, target, rules, settings, {path}, list(findings)
    )
    if path in errors:
        return Failed(path, f"fix not applied: {errors[path]}")
    if path not in workspace.texts:
        return Unchanged(path, findings, source.note)
    return Changed(
        path,
        findings,
        source,
        workspace.texts[path],
        fixed=tuple(fixed.get(path, ())),
        remaining=tuple(remaining),
    )
