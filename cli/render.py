"""Rendering with rich: finding lines, diffs, summaries, rule docs. No analysis happens here.

The tables of bulk runs and scans are in `render_bulk.py`; `--show-settings` is in
`render_settings.py`.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from codemods import (
    Changed,
    Failed,
    FileResult,
    Finding,
    Skipped,
    SkipReason,
    Unchanged,
)
from codemods.lines import source_lines
from codemods.notebooks import is_notebook, notebook_cells
from codemods.patches import file_patch
from codemods.report import applies

from .output import is_terminal, write_bytes

if TYPE_CHECKING:
    from rich.markdown import Markdown

    from codemods.rule import Rule


#: Skip reasons that are expected and only listed with --verbose.
QUIET_REASONS = frozenset({SkipReason.GENERATED, SkipReason.EXCLUDED})


_SEVERITY_STYLES = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}


def display_path(path: Path) -> str:
    """Return `path` relative to the working directory when it is below it."""
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return os.path.relpath(path) if path.is_absolute() else path.as_posix()


def plural(count: int, word: str, words: str | None = None) -> str:
    """Return e.g. "1 file" or "3 files"."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def is_applicable(finding: Finding, unsafe_fixes: bool) -> bool:
    """Return True if `fix` would apply this finding's fix with these options."""
    return applies(finding, unsafe_fixes)


def location(finding: Finding) -> str:
    """Return `path:line:col`, or `path:cell N:line:col` in a notebook (1-based columns)."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{display_path(finding.path)}:{cell}{finding.span.line}:{finding.span.column + 1}"


def finding_line(finding: Finding, *, unsafe_fixes: bool) -> Text:
    """Return `path:line:col: CODE [severity] [*] message` (the form editors and CI logs link).

    The severity is marked for warnings and informational findings; errors are unmarked.
    """
    text = Text()
    text.append(location(finding) + ":", style="bold")
    text.append(" ")
    text.append(finding.code, style=_SEVERITY_STYLES.get(finding.severity, "bold red"))
    if finding.severity != "error":
        # Marked in words, not only in colour, so logs and editors can tell it from an error.
        text.append(
            f" [{finding.severity}]", style="yellow" if finding.severity == "warning" else "blue"
        )
    if is_applicable(finding, unsafe_fixes):
        text.append(" [*]", style="cyan")
    text.append(" ")
    text.append(finding.message)
    return text


def print_findings(console: Console, findings: Sequence[Finding], *, unsafe_fixes: bool) -> None:
    """Print one line per finding."""
    for finding in findings:
        console.print(finding_line(finding, unsafe_fixes=unsafe_fixes), soft_wrap=True)


def _diff(old: str, new: str, name: str) -> str:
    lines = difflib.unified_diff(
        source_lines(old),
        source_lines(new),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def unified_diff(changed: Changed) -> str:
    """Return the unified diff of a change, with paths as the user sees them.

    A notebook's diff compares the code of each changed cell, not the JSON around it.
    """
    name = display_path(changed.path)
    if not is_notebook(changed.path):
        return _diff(changed.old, changed.new, name)
    old_cells, new_cells = notebook_cells(changed.old), notebook_cells(changed.new)

    def ended(source: str) -> str:
        # A cell's last line has no newline; without one, difflib shows it as changed.
        return source if not source or source.endswith("\n") else source + "\n"

    return "".join(
        _diff(ended(old_cells.get(number, "")), ended(source), f"{name}:cell {number}")
        for number, source in sorted(new_cells.items())
        if source != old_cells.get(number, "")
    )


def print_diff(console: Console, changed: Changed) -> None:
    """Print a change as a highlighted unified diff, with the fixes it applies."""
    for finding in changed.fixed:
        title = finding.fix.title if finding.fix else finding.message
        console.print(Text.assemble((f"{finding.code} ", "bold"), title), soft_wrap=True)
    if not is_terminal(console):
        # Piped or saved, the diff is a patch `git apply` reads: the file's own bytes.
        write_bytes(console, file_patch(changed, display_path(changed.path)))
        return
    diff = unified_diff(changed)
    console.print(
        Syntax(diff, "diff", theme="ansi_dark", background_color="default", word_wrap=True)
    )


def print_problems(
    console: Console, results: Sequence[FileResult], *, verbose: bool, quiet: bool = False
) -> None:
    """Print failed files, and skipped ones unless `quiet`, to the error console."""
    for result in results:
        if isinstance(result, Unchanged | Changed) and result.note and not quiet:
            console.print(
                Text.assemble(("note", "bold"), f": {display_path(result.path)}: {result.note}"),
                soft_wrap=True,
            )
        if isinstance(result, Failed):
            console.print(
                Text.assemble(
                    ("error", "bold red"), f": {display_path(result.path)}: {result.error}"
                ),
                soft_wrap=True,
            )
            if verbose and result.traceback:
                console.print(Text(result.traceback))
        elif isinstance(result, Skipped) and not quiet:
            if result.reason in QUIET_REASONS and not verbose:
                continue
            detail = f" ({result.detail})" if result.detail else ""
            console.print(
                Text.assemble(
                    ("warning", "bold yellow"),
                    f": {display_path(result.path)}: skipped, "
                    f"{result.reason.value.replace('_', ' ')}{detail}",
                ),
                soft_wrap=True,
            )


def summary_line(
    *,
    files: int,
    findings: int,
    fixable: int,
    hidden_unsafe: int,
    skipped: int,
    failed: int,
) -> Text:
    """Return e.g. "12 files checked: 3 findings, 2 fixable (run `workerseed fix`)."."""
    parts = [plural(findings, "finding")]
    if fixable:
        parts.append(f"{fixable} fixable (run `workerseed fix`)")
    if hidden_unsafe:
        parts.append(f"{plural(hidden_unsafe, 'more fix', 'more fixes')} with `--unsafe-fixes`")
    text = f"{plural(files, 'file')} checked: " + ", ".join(parts)
    if skipped:
        text += f"; {plural(skipped, 'file')} skipped"
    if failed:
        text += f"; {plural(failed, 'file')} failed"
    style = "bold green" if not findings and not failed else "bold"
    return Text(text + ".", style=style)


def assumed_versions(findings: Sequence[Finding]) -> Text | None:
    """Return a note naming the torch version(s) the findings assumed."""
    targets = sorted({finding.target.describe() for finding in findings})
    if not targets:
        return None
    return Text(f"Assumed {', '.join(targets)}.", style="dim")


def statistics(
    findings: Sequence[Finding], *, unsafe_fixes: bool
) -> list[tuple[str, str, int, int]]:
    """Return (code, name, count, fixable count) per rule that has findings, in code order."""
    counts = Counter(finding.code for finding in findings)
    fixable = Counter(finding.code for finding in findings if is_applicable(finding, unsafe_fixes))
    names = {finding.code: finding.name for finding in findings}
    return [(code, names[code], counts[code], fixable[code]) for code in sorted(counts)]


def print_statistics(console: Console, rows: Sequence[tuple[str, str, int, int]]) -> None:
    """Print one line per rule: count, code, `[*]` if fixable, name (as ruff does)."""
    width = max((len(str(count)) for _, _, count, _ in rows), default=1)
    for code, name, count, fixable in rows:
        line = Text(f"{count:>{width}}  ")
        line.append(code, style="bold red")
        line.append(" [*] " if fixable else "     ", style="cyan")
        line.append(name)
        if fixable and fixable != count:
            line.append(f" ({fixable} fixable)", style="dim")
        console.print(line, soft_wrap=True)


def rules_table() -> Table:
    """Return a table of every rule."""
    from codemods import ALL_RULES

    table = Table("Code", "Name", "Default", "Fixable", "Fix safety", header_style="bold")
    for rule in ALL_RULES:
        table.add_row(
            rule.CODE,
            Text(rule.NAME, no_wrap=True),
            "on" if rule.DEFAULT else "off",
            rule.FIX.value,
            rule.fix_safety(),
        )
    return table


def explain(rule: type[Rule]) -> Markdown:
    """Return a rule's documentation for the terminal."""
    from rich.markdown import Markdown  # slow to import; only needed here

    header = f"# {rule.CODE} {rule.NAME}\n\n"
    default = (
        "Enabled by default."
        if rule.DEFAULT
        else f"Off by default: enable with `--select {rule.CODE}`."
    )
    fix = f"Fix: {rule.FIX.value}; fix safety: {rule.fix_safety()}."
    return Markdown(header + default + " " + fix + "\n\n" + rule.documentation())
