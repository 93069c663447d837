"""Rendering for runs over many projects and for `scan`: the progress bar and the tables."""

from __future__ import annotations

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
from rich.table import Table
from rich.text import Text

from codemods.report import Counts, RunReport

from .render import display_path, plural

if TYPE_CHECKING:
    from codemods import TorchTarget
    from codemods.scan import ScanReport


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
    from codemods.scan import DECLARED  # `scan` imports the engine: only `scan` draws this

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
