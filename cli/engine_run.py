"""Running the engine for `check` and `fix`: progress while it runs, then what both commands
print (machine-readable formats, statistics, the summary), write (reports) and exit with."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import output
from .options import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    ConfigurationError,
    OutputError,
    SharedOptions,
)

if TYPE_CHECKING:
    # Imported where they are used: `--version` and `--help` start without rich, libcst,
    # the rules and the engine.
    from rich.console import Console

    from codemods import FileResult, Finding, ProjectSettings, Settings


def show_settings(paths: Sequence[Path], settings: Settings) -> None:
    """Print the resolved settings of each project (`--show-settings`) and exit."""
    from codemods import ConfigError, project_settings

    from . import render_settings

    try:
        projects = list(project_settings(paths or [Path.cwd()], settings))
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error
    click.echo(render_settings.settings_text(projects), nl=False)
    sys.exit(EXIT_CLEAN)


@dataclass(frozen=True)
class Run:
    """What the engine returned, and the projects it ran on."""

    results: list[FileResult]
    projects: list[ProjectSettings]
    #: Unsafe fixes apply (as the engine decided).
    unsafe_fixes: bool


def run_engine(
    paths: Sequence[Path], settings: Settings, *, fix: bool, options: SharedOptions
) -> Run:
    """Run the engine over `paths`.

    Unsafe fixes apply with --unsafe-fixes, or when every project's configuration asks for
    them (`unsafe-fixes = true`), which is how the engine decided too.
    """
    from codemods.analysis.read_once import files_read_once
    from codemods.settings import ConfigError
    from codemods.tree_snapshots import stored_check

    err = output.console(stderr=True)
    targets = paths or [Path.cwd()]
    try:
        with files_read_once():
            # A re-run of a tree in which nothing changed costs a `stat` per file, and
            # imports neither the rules nor the analysis.
            stored = None if fix else stored_check(targets, settings)
            if stored is not None:
                projects, results = stored
                _print_projects(err, projects, options)
            else:
                projects, results = _run(err, targets, settings, fix=fix, options=options)
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error
    unsafe = bool(projects) and all(project.settings.unsafe_fixes for project in projects)
    return Run(results, projects, unsafe)


def _run(
    err: Console, targets: Sequence[Path], settings: Settings, *, fix: bool, options: SharedOptions
) -> tuple[list[ProjectSettings], list[FileResult]]:
    from codemods import project_settings, run_paths

    projects = list(project_settings(targets, settings))
    _print_projects(err, projects, options)
    if not output.shows_progress(err, options.quiet):
        return projects, list(run_paths(targets, settings, fix=fix))
    if len(projects) > 1:
        return projects, _with_progress_bar(err, targets, settings, fix=fix, total=len(projects))
    with err.status("Analysing…") as status:

        def progress(stage: str, done: int, total: int) -> None:
            status.update(f"{stage.capitalize()} {done}/{total} files…")

        return projects, list(run_paths(targets, settings, fix=fix, progress=progress))


def _print_projects(
    console: Console, projects: Sequence[ProjectSettings], options: SharedOptions
) -> None:
    """With --verbose, print each project's rules, torch target and configuration."""
    if not options.verbose:
        return
    for project in projects:
        console.print(
            f"{project.root}: rules {', '.join(project.rules) or 'none'}; "
            f"{project.target.describe()}; configuration "
            f"{project.config or 'none'}",
            markup=False,
            emoji=False,
            style="dim",
            soft_wrap=True,
        )


def _with_progress_bar(
    console: Console, paths: Sequence[Path], settings: Settings, *, fix: bool, total: int
) -> list[FileResult]:
    from codemods import run_paths

    from . import render_bulk

    with render_bulk.progress_bar(console) as bar:
        task = bar.add_task("Projects", total=total, detail="")

        def progress(stage: str, done: int, of: int) -> None:
            if stage == "projects":
                bar.update(task, completed=done, detail="")
            else:
                bar.update(task, detail=f"{stage} {done}/{of} files")

        return list(run_paths(paths, settings, fix=fix, progress=progress))


def write_report(path: Path | None, text: str) -> None:
    from codemods.files import WriteError, write_text_atomic

    if path is None:
        return
    try:
        write_text_atomic(path, text)
    except WriteError as error:
        raise OutputError(str(error)) from error


def all_findings(results: Sequence[FileResult]) -> list[Finding]:
    return sorted(
        (finding for result in results for finding in getattr(result, "findings", ())),
        key=lambda finding: finding.sort_key,
    )


def emit(
    findings: Sequence[Finding],
    options: SharedOptions,
    *,
    unsafe_fixes: bool,
    previews: bool = True,
) -> bool:
    """Print findings in a machine-readable format or as statistics; False for text lines."""
    from . import render

    output_format = options.output_format
    if output_format == "text" and not options.statistics:
        return False
    from codemods.previews import preview_fixes

    from . import formats

    if options.statistics:
        rows = render.statistics(findings, unsafe_fixes=unsafe_fixes)
        if output_format == "json":
            click.echo(formats.statistics_json(rows))
        else:
            render.print_statistics(output.console(), rows)
        return True
    if output_format == "github":
        click.echo(formats.github(findings), nl=False)
        return True
    fix_previews = preview_fixes(findings) if previews else {}
    if output_format == "json":
        click.echo(formats.findings_json(findings, fix_previews, unsafe_fixes=unsafe_fixes))
    else:
        click.echo(formats.sarif(findings, fix_previews))
    return True


def print_summary(
    console: Console,
    results: Sequence[FileResult],
    findings: Sequence[Finding],
    *,
    unsafe_fixes: bool,
) -> None:
    from codemods import Failed, Skipped

    from . import render

    fixable = sum(render.is_applicable(finding, unsafe_fixes) for finding in findings)
    hidden = sum(finding.fix is not None for finding in findings) - fixable
    skipped = sum(
        isinstance(result, Skipped) and result.reason not in render.QUIET_REASONS
        for result in results
    )
    failed = sum(isinstance(result, Failed) for result in results)
    checked = len(results) - skipped - failed
    note = render.assumed_versions(findings)
    if note is not None:
        console.print(note)
    console.print(
        render.summary_line(
            files=checked,
            findings=len(findings),
            fixable=fixable,
            hidden_unsafe=hidden,
            skipped=skipped,
            failed=failed,
        )
    )


def exit_code(
    results: Sequence[FileResult], findings: Sequence[Finding], *, exit_zero: bool
) -> int:
    from codemods import Failed

    if any(isinstance(result, Failed) for result in results):
        return EXIT_ERROR
    if any(output.counts_for_exit(finding.severity) for finding in findings) and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN
