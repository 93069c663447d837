"""`workerseed scan`: the study's statistic, how many repositories are affected per torch
version."""

from __future__ import annotations

from pathlib import Path

import click

from . import output
from .engine_run import write_report
from .options import html_option, report_option

SCAN_EXIT_HELP = (
    "Exit status: 0 once the statistic is printed, whatever it says (a scan is a measurement, "
    "not a lint; use `check` to fail on findings); 2 for usage errors."
)


@click.command(
    "scan",
    epilog=SCAN_EXIT_HELP,
    short_help="Count the repositories affected, per torch version (the study's statistic).",
)
@click.argument("roots", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text: a table for people; json: the statistic and every repository's facts.",
)
@report_option("Also write the JSON document to FILE.")
@html_option
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Repositories analysed side by side (default: one per CPU).",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Also print a table of every repository, and tracebacks of those that failed.",
)
@click.option(
    "--quiet", "-q", is_flag=True, help="Print the statistic only: no progress, no warnings."
)
def scan_command(
    roots: tuple[Path, ...],
    output_format: str,
    report_path: Path | None,
    html_path: Path | None,
    jobs: int | None,
    verbose: bool,
    quiet: bool,
) -> None:
    """Measure how many repositories have duplicated worker randomness, per torch version.

    Reproduces the 2021 study's statistic. Each ROOT (default: the current directory) is a
    repository, or a directory whose immediate subdirectories are repositories. A repository
    is in scope when a custom Dataset whose per-item code draws from NumPy is loaded by a
    DataLoader that may start workers, and affected when WS101 or WS201 reports it. The rules
    run under torch 1.8 (before DataLoader seeded NumPy), each repository's declared torch
    version, and the latest torch.
    """
    from rich.text import Text

    from codemods import Settings, html_report
    from codemods import scan as scanning

    from . import formats, render, render_bulk

    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose cannot be used together")
    err = output.console(stderr=True)
    settings = Settings(jobs=jobs)
    targets = roots or (Path.cwd(),)
    if output.shows_progress(err, quiet):
        with render_bulk.progress_bar(err) as bar:
            task = bar.add_task("Repositories", total=None, detail="")

            def progress(stage: str, done: int, total: int) -> None:
                del stage
                bar.update(task, completed=done, total=total)

            report = scanning.scan(targets, settings, progress=progress)
    else:
        report = scanning.scan(targets, settings)
    document = formats.scan_json(report)
    write_report(report_path, document)
    if html_path is not None:
        write_report(html_path, html_report.scan_page(report, render.display_path))
    if not quiet:
        for repository in report.failed:
            err.print(
                Text.assemble(
                    ("warning", "bold yellow"),
                    f": {render.display_path(repository.root)}: not analysed: {repository.error}",
                ),
                soft_wrap=True,
            )
            if verbose and repository.traceback:
                err.print(Text(repository.traceback))
    if output_format == "json":
        click.echo(document, nl=False)
        return
    out = output.console()
    if verbose:
        out.print(render_bulk.scan_repository_table(report))
    out.print(render_bulk.scan_table(report))
    if not quiet:
        for note in render_bulk.scan_notes(report):
            out.print(note)
