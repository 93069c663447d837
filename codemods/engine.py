"""Run the rules over a repository: read, parse, summarise, analyse, fix.

The engine never raises for one bad file: a file that cannot be read or parsed becomes a
`Skipped` result, an unexpected error a `Failed` one, and every other file is still
processed. It never writes files either; `files.write_atomic` does that for the CLI.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import os
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from . import files
from .analysis.extract import extract, module_name_for
from .analysis.facts import ModuleFacts
from .analysis.project import Project
from .analysis.torch_version import detect_target, target_from_option
from .fixes.apply import FixError, apply_edits
from .registry import codes_matching, selected_rules
from .rule import Rule
from .settings import ConfigError, Settings, for_project
from .types import (
    Changed,
    Edit,
    Failed,
    FileResult,
    Finding,
    InsertStatements,
    Safety,
    Skipped,
    SkipReason,
    SourceFile,
    Span,
    TorchTarget,
    Unchanged,
)

#: How many times fixes are re-applied to their own output (a fix may enable another).
MAX_FIX_ROUNDS = 8
#: Below this many files, a process pool costs more than it saves.
_PARALLEL_THRESHOLD = 64

#: Progress callback: (stage, done, total).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Parsed:
    """A file's summary and the source it came from."""

    facts: ModuleFacts
    source: SourceFile


def summarise_source(source: SourceFile, root: Path) -> Parsed | Skipped:
    """Parse `source` and summarise it, or say why it is skipped."""
    if files.is_generated(source.text):
        return Skipped(source.path, SkipReason.GENERATED, "marked as generated")
    try:
        with warnings.catch_warnings():
            # Invalid escape sequences and the like in analysed code are not our findings.
            warnings.simplefilter("ignore")
            tree = ast.parse(source.text, filename=str(source.path))
    except SyntaxError as error:
        where = f"line {error.lineno}: " if error.lineno else ""
        return Skipped(source.path, SkipReason.SYNTAX_ERROR, f"{where}{error.msg}")
    except (ValueError, RecursionError, MemoryError) as error:
        return Skipped(source.path, SkipReason.SYNTAX_ERROR, str(error) or type(error).__name__)
    module = module_name_for(source.path, root)
    facts = extract(tree, source.text, source.path, module)
    return Parsed(replace(facts, digest=_digest(source.raw)), source)


def summarise_file(path: Path, root: Path) -> Parsed | Skipped | Failed:
    """Read, parse and summarise one file; never raise."""
    try:
        source = files.read_source(path)
    except files.SourceError as error:
        return Skipped(path, error.reason, error.detail)
    try:
        return summarise_source(source, root)
    except Exception as error:  # one file's crash must not stop the run
        return Failed(path, f"{type(error).__name__}: {error}", traceback.format_exc())


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _summarise_many(
    paths: Sequence[Path], root: Path, jobs: int | None, progress: Progress | None
) -> Iterator[Parsed | Skipped | Failed]:
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(paths) < _PARALLEL_THRESHOLD:
        for done, path in enumerate(paths, 1):
            yield summarise_file(path, root)
            if progress:
                progress("analysing", done, len(paths))
        return
    chunk = max(1, len(paths) // (workers * 8))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        roots = [root] * len(paths)
        for done, result in enumerate(pool.map(summarise_file, paths, roots, chunksize=chunk), 1):
            yield result
            if progress:
                progress("analysing", done, len(paths))


# --- checking ---


def _suppressed(finding: Finding, modules: dict[Path, ModuleFacts]) -> bool:
    module = modules.get(finding.path)
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
        if not _suppressed(finding, project.by_path)
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
class _FixState:
    parsed: dict[Path, Parsed]
    texts: dict[Path, str]
    fixed: dict[Path, list[Finding]]
    errors: dict[Path, str]


def _fix_rounds(
    root: Path,
    parsed: dict[Path, Parsed],
    target: TorchTarget,
    rules: tuple[type[Rule], ...],
    settings: Settings,
    allowed: set[Path],
) -> tuple[_FixState, list[Finding]]:
    """Apply fixes until none is left; return the final state and the remaining findings."""
    state = _FixState(dict(parsed), {}, {}, {})
    remaining: list[Finding] = []
    for _ in range(MAX_FIX_ROUNDS):
        project = Project(root, (item.facts for item in state.parsed.values()), target)
        remaining = check_project(project, rules, settings)
        usable = allowed - set(state.errors)
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
            current = state.texts.get(path, state.parsed[path].source.text)
            try:
                new = apply_edits(current, path_edits)
                summary = summarise_source(replace(state.parsed[path].source, text=new), root)
            except FixError as error:
                state.errors[path] = str(error)
                continue
            if not isinstance(summary, Parsed):
                state.errors[path] = "the fixed code could not be analysed; not applied"
                continue
            state.texts[path] = new
            state.parsed[path] = replace(summary, source=state.parsed[path].source)
            applied.add(path)
        progressed = False
        for finding in chosen:
            assert finding.fix is not None
            paths = {file_edits.path for file_edits in finding.fix.files}
            if paths <= applied:
                progressed = True
                for path in paths:
                    state.fixed.setdefault(path, []).append(finding)
        if not progressed:
            break
    return state, remaining


# --- running ---


def _by_root(paths: Iterable[Path]) -> dict[Path, list[Path]]:
    groups: dict[Path, list[Path]] = {}
    for path in paths:
        absolute = path.resolve()
        groups.setdefault(files.find_project_root(absolute), []).append(absolute)
    return groups


def _target(root: Path, settings: Settings) -> TorchTarget:
    if settings.torch_version is not None:
        try:
            return target_from_option(settings.torch_version, settings.torch_version_source)
        except ValueError as error:
            raise ConfigError(str(error)) from error
    return detect_target(root)


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
    limited to the named paths. Raises ConfigError for an invalid configuration.
    """
    for root, requested_paths in _by_root(paths).items():
        yield from _run_project(root, requested_paths, settings, fix=fix, progress=progress)


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

    def discover(paths: Sequence[Path]) -> Iterator[Path]:
        return files.discover(
            paths,
            root,
            exclude=settings.exclude or (),
            extend_exclude=settings.extend_exclude,
            respect_gitignore=settings.respect_gitignore,
        )

    requested = list(discover(requested_paths))
    everything = sorted(set(discover([root])) | set(requested))
    wanted = set(requested)
    parsed: dict[Path, Parsed] = {}
    results: dict[Path, FileResult] = {}
    for outcome in _summarise_many(everything, root, settings.jobs, progress):
        if isinstance(outcome, Parsed):
            parsed[outcome.facts.path] = outcome
        elif outcome.path in wanted:
            results[outcome.path] = outcome
    project = Project(root, (item.facts for item in parsed.values()), target)
    try:
        findings = check_project(project, rules, settings)
    except Exception as error:  # a rule bug is reported, not raised
        yield Failed(
            root, f"internal error: {type(error).__name__}: {error}", traceback.format_exc()
        )
        return
    by_path: dict[Path, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    state: _FixState | None = None
    remaining_by_path: dict[Path, list[Finding]] = {}
    if fix and any(finding.fix for finding in findings):
        try:
            state, remaining = _fix_rounds(root, parsed, target, rules, settings, wanted)
        except Exception as error:
            yield Failed(root, f"internal error while fixing: {error}", traceback.format_exc())
            return
        for finding in remaining:
            remaining_by_path.setdefault(finding.path, []).append(finding)
    for path in requested:
        if path in results:
            continue
        own = tuple(by_path.get(path, ()))
        if state is not None and path in state.errors:
            results[path] = Failed(path, f"fix not applied: {state.errors[path]}")
        elif state is not None and path in state.texts:
            results[path] = Changed(
                path,
                own,
                parsed[path].source,
                state.texts[path],
                fixed=tuple(state.fixed.get(path, ())),
                remaining=tuple(remaining_by_path.get(path, ())),
            )
        elif path in parsed:
            # After fixing, what is left here may differ: a fix elsewhere can resolve it.
            left = tuple(remaining_by_path.get(path, ())) if state is not None else own
            results[path] = Unchanged(path, left)
    for path in sorted(results, key=lambda item: item.as_posix()):
        yield results[path]


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
    raw = text.encode("utf-8")
    source = SourceFile(path, raw, text, "utf-8", False, 0o644)
    root = path.parent
    summary = summarise_source(source, root)
    if not isinstance(summary, Parsed):
        return summary
    rules = selected_rules(settings)
    project = Project(root, [summary.facts], target)
    findings = tuple(check_project(project, rules, settings))
    if not fix or not any(finding.fix for finding in findings):
        return Unchanged(path, findings)
    state, remaining = _fix_rounds(root, {path: summary}, target, rules, settings, {path})
    if path in state.errors:
        return Failed(path, f"fix not applied: {state.errors[path]}")
    if path not in state.texts:
        return Unchanged(path, findings)
    return Changed(
        path,
        findings,
        source,
        state.texts[path],
        fixed=tuple(state.fixed.get(path, ())),
        remaining=tuple(remaining),
    )
