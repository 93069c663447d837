"""Rendering with rich: finding lines, diffs, summaries, rule docs. No analysis happens here."""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from codemods import (
    ALL_RULES,
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
from codemods.report import Counts, RunReport, applies
from codemods.rule import Rule
from codemods.scan import DECLARED, ScanReport

from .output import is_terminal, write_bytes

if TYPE_CHECKING:
    from rich.markdown import Markdown

    from codemods import ProjectSettings, TorchTarget

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


_SEVERITY_STYLES = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}


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


def _toml(value: object) -> str:
    if value is None:
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _library_versions_line(stated: tuple[tuple[str, str, str], ...]) -> str:
    """Return `library-versions = {...}`: the versions stated, the last one per library winning."""
    chosen = {name: (version, source) for name, version, source in stated}
    entries = ", ".join(f"{name} = {_toml(version)}" for name, (version, _) in chosen.items())
    sources = ", ".join(dict.fromkeys(source for _, source in chosen.values()))
    comment = f"  # from {sources}" if sources else "  # else lock files, requirements, installed"
    return f"library-versions = {{{entries}}}{comment}"


def settings_text(projects: Sequence[ProjectSettings]) -> str:
    """Return the resolved settings of each project, as TOML a user could paste back."""
    from codemods.files import DEFAULT_EXCLUDES

    defaults = tuple(rule.CODE for rule in ALL_RULES if rule.DEFAULT)
    blocks = []
    for project in projects:
        settings = project.settings
        target = project.target
        version = ".".join(map(str, target.version)) if target.version else "latest"
        torch_line = f"torch-version = {_toml(version)}  # from {target.source}"
        if target.below:
            torch_line = f"# torch-version: below {version} (from {target.source})"
        config = str(project.config) if project.config else "none (defaults)"
        lines = [
            f"# project root: {project.root}",
            f"# configuration: {config}",
            f"# target: {project.target.describe()}",
            "[tool.workerseed]",
            f"rules = {_toml(project.rules)}  # the rules that run",
            f"select = {_toml(settings.select or defaults)}"
            + ("  # the defaults" if settings.select is None else ""),
            f"extend-select = {_toml(settings.extend_select)}",
            f"ignore = {_toml(settings.ignore)}",
            f"exclude = {_toml(settings.exclude or DEFAULT_EXCLUDES)}"
            + ("  # the defaults" if settings.exclude is None else ""),
            f"extend-exclude = {_toml(settings.extend_exclude)}",
            torch_line,
            _library_versions_line(settings.library_versions),
            f"unsafe-fixes = {_toml(bool(settings.unsafe_fixes))}",
            f"respect-gitignore = {_toml(settings.respect_gitignore)}",
        ]
        if settings.per_file_ignores:
            lines.append("")
            lines.append("[tool.workerseed.per-file-ignores]")
            lines.extend(
                f"{_toml(pattern)} = {_toml(codes)}" for pattern, codes in settings.per_file_ignores
            )
        else:
            lines.append("per-file-ignores = {}")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


# --- bulk runs ---


def progress_bar(console: Console) -> Progress:
    """Return a progress bar for bulk runs; it vanishes when the run ends."""
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("[dim]{task.fields[detail]}"),
        console=console,
        transient=True,
    )


def torch_version(target: TorchTarget) -> str:
    """Return the version a target assumes, briefly: "1.8.1", "<1.9" or "latest"."""
    if target.version is None:
        return "latest"
    return ("<" if target.below else "") + ".".join(map(str, target.version))


def _count_column(table: Table, header: str) -> None:
    table.add_column(header, justify="right", no_wrap=True)


def project_table(report: RunReport, *, fixed_column: str | None) -> Table:
    """Return one row per project and a total: files, findings, fixable or fixed, problems.

    `fixed_column` heads the fixed counts ("Fixed", "Would fix"); None shows fixable ones.
    """
    table = Table(title="Projects", title_justify="left", header_style="bold")
    table.add_column("Project", overflow="fold")
    table.add_column("Torch", no_wrap=True)
    headers = ["Files", "Findings"]
    headers += ["Fixable"] if fixed_column is None else [fixed_column, "Remaining"]
    for header in [*headers, "Skipped", "Failed"]:
        _count_column(table, header)

    def cells(counts: Counts) -> list[str]:
        middle = (
            [str(counts.fixable)]
            if fixed_column is None
            else [str(counts.fixed), str(counts.remaining)]
        )
        return [
            str(counts.files),
            str(counts.findings),
            *middle,
            str(counts.skipped),
            str(counts.failed),
        ]

    for project in report.projects:
        style = "red" if project.counts.failed else None
        table.add_row(
            Text(display_path(project.root)),
            torch_version(project.target),
            *cells(project.counts),
            style=style,
        )
    table.add_section()
    table.add_row("Total", "", *cells(report.totals), style="bold")
    return table


def rule_table(report: RunReport, *, fixed_column: str | None) -> Table:
    """Return one row per rule with findings: code, name, findings, fixable or fixed."""
    table = Table(title="Rules", title_justify="left", header_style="bold")
    table.add_column("Code", no_wrap=True)
    table.add_column("Name")
    _count_column(table, "Findings")
    _count_column(table, fixed_column or "Fixable")
    for rule in report.rules:
        table.add_row(
            rule.code,
            Text(rule.name, no_wrap=True),
            str(rule.findings),
            str(rule.fixable if fixed_column is None else rule.fixed),
        )
    return table


def print_run_report(console: Console, report: RunReport, *, fixed_column: str | None) -> None:
    """Print the per-project table, and the per-rule one when anything was found."""
    console.print(project_table(report, fixed_column=fixed_column))
    if report.rules:
        console.print(rule_table(report, fixed_column=fixed_column))


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def scan_table(report: ScanReport) -> Table:
    """Return the statistic per torch-version assumption."""
    table = Table(title="Duplicated worker randomness", title_justify="left", header_style="bold")
    table.add_column("Assumption", no_wrap=True)
    for header in ("Scanned", "In scope", "Affected", "% affected", "Epoch repeats"):
        _count_column(table, header)
    for row in report.totals:
        table.add_row(
            row.assumption,
            str(row.scanned),
            str(row.in_scope),
            str(row.affected),
            _percent(row.affected_share),
            str(row.epoch_repeats),
        )
    return table


SCAN_LEGEND = (
    "In scope: a custom Dataset whose per-item code draws from NumPy (global functions or RNG "
    "objects) is loaded by a DataLoader that may start workers. Affected: in scope, and WS101 "
    "or WS201 reports it (workers draw duplicated numbers); % affected is of the repositories "
    "in scope. Epoch repeats: WS102 reports a worker seed "
    "that repeats every epoch. Declared: each repository's own torch version (latest when it "
    "declares none)."
)


def scan_notes(report: ScanReport) -> list[Text]:
    """Return the legend, and a note on repositories affected outside the scope."""
    notes = [Text(SCAN_LEGEND, style="dim")]
    for row in report.totals:
        if row.affected_out_of_scope:
            notes.append(
                Text(
                    f"{row.assumption}: "
                    f"{plural(row.affected_out_of_scope, 'repository', 'repositories')} "
                    "out of scope also affected (e.g. a shared torch.Generator or random.Random).",
                    style="dim",
                )
            )
    return notes


def scan_repository_table(report: ScanReport) -> Table:
    """Return one row per repository: its facts, and whether it is affected per assumption."""
    table = Table(title="Repositories", title_justify="left", header_style="bold")
    table.add_column("Repository", overflow="fold")
    for header in ("Files", "Datasets", "NumPy"):
        _count_column(table, header)
    table.add_column("Workers")
    table.add_column("In scope")
    labels = [row.assumption for row in report.totals]
    for label in labels:
        table.add_column(label)
    table.add_column("Declared torch", no_wrap=True)
    for repository in report.repositories:
        name = Text(display_path(repository.root))
        if repository.error is not None:
            failed = Text("not analysed", style="red")
            table.add_row(name, failed, *[""] * (5 + len(labels)))
            continue
        verdicts = []
        for label in labels:
            verdict = repository.verdict(label)
            codes = ", ".join(
                f"{count} {code}" for code, count in (verdict.findings if verdict else ())
            )
            verdicts.append(Text(codes or "-", style="red" if verdict and verdict.affected else ""))
        declared = repository.verdict(DECLARED.label)
        table.add_row(
            name,
            str(repository.files),
            str(repository.datasets),
            str(repository.numpy_datasets),
            "yes" if repository.multi_process else "no",
            "yes" if repository.in_scope else "no",
            *verdicts,
            torch_version(declared.target) if declared else "",
        )
    return table
