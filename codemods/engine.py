"""Run the rules over a repository: read, summarise, analyse, fix.

The engine never raises for one bad file: a file that cannot be read or parsed becomes a
`Skipped` result, an unexpected error a `Failed` one, and every other file is still
processed. It never writes files either; `files.write_atomic` does that for the CLI.
"""

from __future__ import annotations

import fnmatch
import os
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import distributed, files, notebooks
from .analysis.facts import FunctionSource, ModuleFacts
from .analysis.project import Project
from .analysis.sources import SourceSet
from .analysis.torch_version import detect_target, target_from_option
from .registry import codes_matching, selected_rules
from .rule import Rule
from .settings import ConfigError, Settings, config_path, for_project
from .summaries import (
    Contents,
    FactsCache,
    Parsed,
    ReopenedModule,
    RunCache,
    collector_paused,
    read_all,
    summarise_bytes,
    summarise_many,
    summarise_source,
)
from .types import (
    Changed,
    Edit,
    Failed,
    FileResult,
    Finding,
    InsertStatements,
    Safety,
    Skipped,
    SourceFile,
    Span,
    TorchTarget,
    Unchanged,
)

#: Where each project keeps summaries between runs (safe to delete).
CACHE_DIRECTORY = ".workerseed_cache"
#: How many times fixes are re-applied to their own output (a fix may enable another).
MAX_FIX_ROUNDS = 8

#: Progress callback: (stage, done, total).
Progress = Callable[[str, int, int], None]

# --- checking ---


def _suppressed(finding: Finding, project: Project) -> bool:
    module = project.module_at(finding.path)
    if module is None:
        return False
    lines = {finding.span.line, finding.span.end_line}
    for line, codes in module.noqa:
        if line in lines and (not codes or finding.code in codes):
            return True
    return False


def _ignored_by_config(finding: Finding, root: Path, settings: Settings) -> bool:
    if not settings.per_file_ignores:
        return False
    try:
        relative = finding.path.relative_to(root).as_posix()
    except ValueError:
        relative = finding.path.as_posix()
    for pattern, selectors in settings.per_file_ignores:
        matches = fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(finding.path.name, pattern)
        if matches and finding.code in codes_matching(selectors, "per-file-ignores"):
            return True
    return False


def check_project(
    project: Project, rules: Iterable[type[Rule]], settings: Settings
) -> list[Finding]:
    """Run `rules` over `project`; return the findings not suppressed, in a stable order."""
    findings: list[Finding] = []
    for rule_class in rules:
        rule = rule_class(project)
        rule.check()
        findings.extend(rule.findings)
    kept = [
        finding
        for finding in dict.fromkeys(findings)
        if not _suppressed(finding, project)
        and not _ignored_by_config(finding, project.root, settings)
    ]
    return sorted(kept, key=lambda finding: finding.sort_key)


# --- fixing ---


def _applicable(finding: Finding, settings: Settings, allowed: set[Path]) -> bool:
    fix = finding.fix
    if fix is None:
        return False
    if fix.safety is Safety.UNSAFE and not settings.unsafe_fixes:
        return False
    return all(file_edits.path in allowed for file_edits in fix.files)


def _targets(edit: Edit) -> Span | None:
    """Return the span an edit rewrites (None for additions that merge, like imports)."""
    for name in ("call", "target", "function"):
        span = getattr(edit, name, None)
        if isinstance(span, Span):
            return span
    return None


def _overlaps(a: Span, b: Span) -> bool:
    return (a.line, a.column) < (b.end_line, b.end_column) and (b.line, b.column) < (
        a.end_line,
        a.end_column,
    )


def _choose_fixes(candidates: list[Finding]) -> list[Finding]:
    """Pick fixes whose edits do not overlap; the rest wait for the next round.

    Identical edits do not conflict: two findings fixed by one rewrite are both fixed.
    """
    taken: dict[Path, list[tuple[Span, Edit]]] = {}
    chosen = []
    for finding in candidates:
        assert finding.fix is not None
        spans = [
            (file_edits.path, span, edit)
            for file_edits in finding.fix.files
            for edit in file_edits.edits
            if (span := _targets(edit)) is not None and not _is_insertion(edit)
        ]
        if any(
            _overlaps(span, other) and edit != other_edit
            for path, span, edit in spans
            for other, other_edit in taken.get(path, [])
        ):
            continue
        for path, span, edit in spans:
            taken.setdefault(path, []).append((span, edit))
        chosen.append(finding)
    return chosen


def _is_insertion(edit: Edit) -> bool:
    # Statements inserted into one function by two fixes can both apply.
    return isinstance(edit, InsertStatements)


@dataclass
class _Workspace:
    """The project's files while fixes rewrite them."""

    root: Path
    contents: Contents
    sources: SourceSet
    #: Skipped or failed summaries, by path.
    problems: dict[Path, Skipped | Failed] = field(default_factory=dict)
    #: Fixed text of the files fixes changed.
    texts: dict[Path, str] = field(default_factory=dict)
    cache: FactsCache = field(default_factory=lambda: FactsCache(None))

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


def _fix_rounds(
    workspace: _Workspace,
    target: TorchTarget,
    rules: tuple[type[Rule], ...],
    settings: Settings,
    allowed: set[Path],
) -> tuple[dict[Path, list[Finding]], dict[Path, str], list[Finding]]:
    """Apply fixes until none is left; return fixed findings, errors and remaining findings."""
    # libcst is imported only when something is fixed: it costs more than checking a tree.
    from .fixes.apply import FixError, apply_edits

    fixed: dict[Path, list[Finding]] = {}
    errors: dict[Path, str] = {}
    remaining: list[Finding] = []
    for _ in range(MAX_FIX_ROUNDS):
        project = Project(workspace.root, workspace.sources, target)
        remaining = check_project(project, rules, settings)
        usable = allowed - set(errors)
        candidates = [finding for finding in remaining if _applicable(finding, settings, usable)]
        if not candidates:
            break
        chosen = _choose_fixes(candidates)
        edits: dict[Path, list[Edit]] = {}
        for finding in chosen:
            assert finding.fix is not None
            for file_edits in finding.fix.files:
                edits.setdefault(file_edits.path, []).extend(file_edits.edits)
        applied: set[Path] = set()
        for path, path_edits in edits.items():
            original = workspace.source(path)
            current = workspace.texts.get(path, original.text)
            try:
                new = apply_edits(current, path_edits)
            except FixError as error:
                errors[path] = str(error)
                continue
            summary = summarise_source(replace(original, text=new), workspace.root)
            if not isinstance(summary, Parsed):
                errors[path] = "the fixed code could not be analysed; not applied"
                continue
            workspace.texts[path] = new
            workspace.sources.replace(summary.facts, new.encode("utf-8"))
            applied.add(path)
        progressed = False
        for finding in chosen:
            assert finding.fix is not None
            paths = {file_edits.path for file_edits in finding.fix.files}
            if paths <= applied:
                progressed = True
                for path in paths:
                    fixed.setdefault(path, []).append(finding)
        if not progressed:
            break
    return fixed, errors, remaining


# --- running ---


def _by_root(paths: Iterable[Path]) -> dict[Path, list[Path]]:
    groups: dict[Path, list[Path]] = {}
    for path in paths:
        absolute = path.resolve()
        if absolute.exists() and not (absolute.is_dir() or absolute.is_file()):
            continue  # a pipe or a device is never read: it makes no project of its own
        groups.setdefault(files.find_project_root(absolute), []).append(absolute)
    return groups


def _target(root: Path, settings: Settings) -> TorchTarget:
    if settings.torch_version is not None:
        try:
            return target_from_option(settings.torch_version, settings.torch_version_source)
        except ValueError as error:
            raise ConfigError(str(error)) from error
    return detect_target(root)


@dataclass(frozen=True)
class ProjectSettings:
    """The settings one project root is checked with, after reading its configuration."""

    root: Path
    #: The configuration file that was read, if any.
    config: Path | None
    settings: Settings
    #: Codes of the rules that run.
    rules: tuple[str, ...]
    target: TorchTarget


def project_settings(paths: Sequence[Path], settings: Settings) -> Iterator[ProjectSettings]:
    """Yield the resolved settings of each project the paths belong to (ConfigError if invalid)."""
    for root in _by_root(paths):
        resolved = for_project(settings, root)
        yield ProjectSettings(
            root,
            config_path(settings, root),
            resolved,
            tuple(rule.CODE for rule in selected_rules(resolved)),
            _target(root, resolved),
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
    groups = _by_root(paths)
    workers = min(len(groups), settings.jobs or os.cpu_count() or 1)
    if workers <= 1 and settings.scheduler is None:
        for done, (root, requested) in enumerate(groups.items(), 1):
            yield from _project_results(root, requested, settings, fix, progress)
            if progress and len(groups) > 1:
                progress("projects", done, len(groups))
        return
    # One repository per process (or cluster worker); none starts a pool of its own.
    single = replace(settings, jobs=1)
    with distributed.executor(settings.scheduler, workers) as pool:
        futures = [
            pool.submit(_project_results, root, requested, single, fix)
            for root, requested in groups.items()
        ]
        for done, future in enumerate(futures, 1):
            yield from future.result()
            if progress:
                progress("projects", done, len(futures))


def open_project(root: Path, settings: Settings, target: TorchTarget) -> Project:
    """Return the project at `root` for questions beyond the rules (`scan`): nothing is
    summarised until a question needs it. Raises ConfigError for an invalid configuration."""
    settings = for_project(settings, root)
    workspace = _open_workspace(root, _discover([root], root, settings), settings, (), None)
    return Project(root, workspace.sources, target)


def _discover(paths: Sequence[Path], root: Path, settings: Settings) -> list[Path]:
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
    with collector_paused():
        return list(_run_project(root, requested, settings, fix=fix, progress=progress))


def _open_workspace(
    root: Path,
    paths: Sequence[Path],
    settings: Settings,
    prefetch: tuple[bytes, ...],
    progress: Progress | None,
    unsaved: Mapping[Path, bytes] | None = None,
) -> _Workspace:
    """Read every file, and summarise those the rules will certainly need, in parallel.

    `unsaved` holds bytes that take the place of files (an editor's unsaved text, maybe of
    a file not yet on disk).
    """
    contents = read_all([path for path in paths if path not in (unsaved or {})], settings.jobs)
    for path, raw in (unsaved or {}).items():
        contents.raw[path] = raw
        contents.modes.setdefault(path, 0o644)
    problems: dict[Path, Skipped | Failed] = dict(contents.problems)
    cache = FactsCache(root / CACHE_DIRECTORY if settings.cache else None)

    def summarise(path: Path) -> ModuleFacts | None:
        raw = contents.raw[path]
        cached = cache.get(path, raw, root)
        if cached is not None:
            return cached
        outcome = summarise_bytes(path, raw, contents.modes[path], root)
        if isinstance(outcome, Skipped | Failed):
            problems[path] = outcome
            return None
        cache.put(outcome)
        return outcome

    def reopen(path: Path) -> FunctionSource:
        return ReopenedModule(path, contents.raw[path], contents.modes[path], root)

    sources = SourceSet(
        root, dict(contents.raw), summarise, filtered=settings.prefilter, reopen=reopen
    )
    if not settings.prefilter:
        selected = list(contents.raw)
    else:
        selected = [
            path for path, raw in contents.raw.items() if any(token in raw for token in prefetch)
        ]
    items = []
    for path in selected:
        cached = cache.get(path, contents.raw[path], root)
        if cached is not None:
            sources.add(path, cached)
        else:
            items.append((path, contents.raw[path], contents.modes[path]))
    for done, outcome in enumerate(summarise_many(items, root, settings.jobs), 1):
        if isinstance(outcome, Skipped | Failed):
            problems[outcome.path] = outcome
            sources.add(outcome.path, None)
        else:
            cache.put(outcome)
            sources.add(outcome.path, outcome)
        if progress:
            progress("analysing", done, len(items))
    return _Workspace(root, contents, sources, problems, cache=cache)


def _run_project(
    root: Path,
    requested_paths: list[Path],
    settings: Settings,
    *,
    fix: bool,
    progress: Progress | None,
) -> Iterator[FileResult]:
    settings = for_project(settings, root)
    rules = selected_rules(settings)
    target = _target(root, settings)

    everything = _discover([root], root, settings)
    if requested_paths == [root]:
        requested = everything
    else:
        requested = _discover(requested_paths, root, settings)
        everything = sorted(set(everything) | set(requested), key=str)
    prefetch = tuple(dict.fromkeys(token for rule in rules for token in rule.prefetch(target)))
    workspace = _open_workspace(root, everything, settings, prefetch, progress)
    runs = RunCache(root / CACHE_DIRECTORY) if settings.cache and not fix else None
    key = ""
    if runs is not None:
        question = repr(
            (
                replace(settings, jobs=None, scheduler=None),
                [rule.CODE for rule in rules],
                target,
                sorted(path.as_posix() for path in requested),
            )
        )
        key = RunCache.key(question, workspace.contents)
        cached = runs.get(key)
        if cached is not None:
            yield from cached
            return
    # A file named on the command line is always parsed, so a syntax error in it is
    # reported even when no question needed it.
    for path in requested_paths:
        if path in workspace.contents.raw:
            workspace.sources.facts(path)
    results = list(_analyse(workspace, rules, settings, target, requested, fix=fix))
    if runs is not None and not any(isinstance(result, Failed) for result in results):
        runs.put(key, results)
    yield from results


def _analyse(
    workspace: _Workspace,
    rules: tuple[type[Rule], ...],
    settings: Settings,
    target: TorchTarget,
    requested: list[Path],
    *,
    fix: bool,
) -> Iterator[FileResult]:
    """Run the rules (and fixes) over an opened project; yield a result per requested file."""
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
    by_path: dict[Path, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    fixed: dict[Path, list[Finding]] = {}
    errors: dict[Path, str] = {}
    remaining_by_path: dict[Path, list[Finding]] | None = None
    if fix and any(finding.fix for finding in findings):
        try:
            fixed, errors, remaining = _fix_rounds(
                workspace, target, rules, settings, set(requested)
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
            results.append(Unchanged(path, _in_cells(workspace, path, left)))
    yield from sorted(results, key=lambda result: result.path.as_posix())


def _in_cells(
    workspace: _Workspace, path: Path, findings: tuple[Finding, ...], text: str | None = None
) -> tuple[Finding, ...]:
    """Locate a notebook's findings in its cells (`text`: the module they were made on)."""
    if not findings or not notebooks.is_notebook(path):
        return findings
    module = text if text is not None else workspace.source(path).text
    return tuple(notebooks.locate(finding, module) for finding in findings)


def _changed(
    workspace: _Workspace,
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
    settings = settings or Settings()
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
    workspace = _Workspace(root, contents, sources)
    findings = tuple(check_project(Project(root, sources, target), rules, settings))
    if not fix or not any(finding.fix for finding in findings):
        return Unchanged(path, findings)
    fixed, errors, remaining = _fix_rounds(workspace, target, rules, settings, {path})
    if path in errors:
        return Failed(path, f"fix not applied: {errors[path]}")
    if path not in workspace.texts:
        return Unchanged(path, findings)
    return Changed(
        path,
        findings,
        source,
        workspace.texts[path],
        fixed=tuple(fixed.get(path, ())),
        remaining=tuple(remaining),
    )
