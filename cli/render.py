"""Rendering with rich: finding lines, diffs, summaries, rule docs. No analysis happens here."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from codemods import ALL_RULES, Changed, Failed, FileResult, Finding, Safety, Skipped
from codemods.rule import Rule

if TYPE_CHECKING:
    from rich.markdown import Markdown


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
    fix = finding.fix
    return fix is not None and (fix.safety is Safety.SAFE or unsafe_fixes)


def finding_line(finding: Finding, *, unsafe_fixes: bool) -> Text:
    """Return `path:line:col: CODE [*] message` (the form editors and CI logs link)."""
    text = Text()
    location = f"{display_path(finding.path)}:{finding.span.line}:{finding.span.column + 1}:"
    text.append(location, style="bold")
    text.append(" ")
    text.append(finding.code, style="bold red" if finding.severity == "error" else "bold yellow")
    if is_applicable(finding, unsafe_fixes):
        text.append(" [*]", style="cyan")
    text.append(" ")
    text.append(finding.message)
    return text


def print_findings(console: Console, findings: Sequence[Finding], *, unsafe_fixes: bool) -> None:
    """Print one line per finding."""
    for finding in findings:
        console.print(finding_line(finding, unsafe_fixes=unsafe_fixes), soft_wrap=True)


def unified_diff(changed: Changed) -> str:
    """Return the unified diff of a change, with paths as the user sees them."""
    name = display_path(changed.path)
    lines = difflib.unified_diff(
        changed.old.splitlines(keepends=True),
        changed.new.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def print_diff(console: Console, changed: Changed) -> None:
    """Print a change as a highlighted unified diff, with the fixes it applies."""
    for finding in changed.fixed:
        title = finding.fix.title if finding.fix else finding.message
        console.print(Text.assemble((f"{finding.code} ", "bold"), title), soft_wrap=True)
    console.print(
        Syntax(
            unified_diff(changed),
            "diff",
            theme="ansi_dark",
            background_color="default",
            word_wrap=True,
        )
    )


def print_problems(console: Console, results: Sequence[FileResult], *, verbose: bool) -> None:
    """Print skipped and failed files to the error console."""
    for result in results:
        if isinstance(result, Failed):
            console.print(
                Text.assemble(
                    ("error", "bold red"), f": {display_path(result.path)}: {result.error}"
                ),
                soft_wrap=True,
            )
            if verbose and result.traceback:
                console.print(Text(result.traceback))
        elif isinstance(result, Skipped) and (
            verbose or result.reason.value not in ("generated", "excluded")
        ):
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


def findings_json(findings: Sequence[Finding]) -> str:
    """Return the findings as a JSON array."""
    return json.dumps([finding_dict(finding) for finding in findings], indent=2)


def finding_dict(finding: Finding) -> dict[str, Any]:
    """Return a finding as plain data."""
    fix = finding.fix
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "severity": finding.severity,
        "path": display_path(finding.path),
        "location": {"line": finding.span.line, "column": finding.span.column + 1},
        "end_location": {"line": finding.span.end_line, "column": finding.span.end_column + 1},
        "torch_version": {
            "version": ".".join(map(str, finding.target.version))
            if finding.target.version
            else None,
            "below": finding.target.below,
            "source": finding.target.source,
        },
        "fix": None
        if fix is None
        else {
            "title": fix.title,
            "applicability": fix.safety.value,
            "files": [display_path(file_edits.path) for file_edits in fix.files],
        },
    }


def rules_table() -> Table:
    """Return a table of every rule."""
    table = Table("Code", "Name", "Default", "Fix", "What it does", header_style="bold")
    for rule in ALL_RULES:
        table.add_row(
            rule.CODE,
            rule.NAME,
            "on" if rule.DEFAULT else "off",
            rule.FIX.value,
            rule.summary(),
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
    return Markdown(header + default + "\n\n" + rule.documentation())
