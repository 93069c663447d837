"""Fix rounds: apply the fixes whose edits do not overlap, re-check, and repeat.

A fix may enable another (or overlap one that waits for the next round), so fixes are
applied to their own output until nothing applicable is left or `MAX_FIX_ROUNDS` is reached.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .analysis.project import Project
from .checking import check_project
from .files import python_text, with_cell_magic
from .rule import Rule
from .settings import Settings
from .summaries import Parsed, summarise_source
from .types import Edit, Finding, Safety, Span, TorchTarget
from .workspace import Workspace

#: How many times fixes are re-applied to their own output (a fix may enable another).
MAX_FIX_ROUNDS = 8


def applicable(finding: Finding, settings: Settings, allowed: set[Path]) -> bool:
    fix = finding.fix
    if fix is None:
        return False
    if fix.safety is Safety.UNSAFE and not settings.unsafe_fixes:
        return False
    return all(file_edits.path in allowed for file_edits in fix.files)


def _overlaps(a: Span, b: Span) -> bool:
    return (a.line, a.column) < (b.end_line, b.end_column) and (b.line, b.column) < (
        a.end_line,
        a.end_column,
    )


def choose_fixes(candidates: list[Finding]) -> list[Finding]:
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
            if (span := edit.span) is not None and not edit.is_insertion
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


def fix_rounds(
    workspace: Workspace,
    target: TorchTarget,
    rules: tuple[type[Rule], ...],
    settings: Settings,
    allowed: set[Path],
    findings: list[Finding],
) -> tuple[dict[Path, list[Finding]], dict[Path, str], list[Finding]]:
    """Apply fixes until none is left; return fixed findings, errors and remaining findings.

    `findings` are the workspace's findings as it is: the first round fixes them without
    running the rules again, and each later round checks the fixed files anew.
    """
    # libcst is imported only when something is fixed: it costs more than checking a tree.
    from .fixes.apply import FixError, apply_edits
    from .fixes.code_style import code_style

    style = code_style(workspace.root)

    fixed: dict[Path, list[Finding]] = {}
    errors: dict[Path, str] = {}
    remaining: list[Finding] = []
    for round_number in range(MAX_FIX_ROUNDS):
        if round_number == 0:
            remaining = list(findings)
        else:
            project = Project(workspace.root, workspace.sources, target)
            remaining = check_project(project, rules, settings)
        usable = allowed - set(errors)
        candidates = [finding for finding in remaining if applicable(finding, settings, usable)]
        if not candidates:
            break
        chosen = choose_fixes(candidates)
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
                # A `%%writefile` first line is edited as the comment it is to Python.
                edited = apply_edits(python_text(current), path_edits, style=style)
                new = with_cell_magic(current, edited)
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
