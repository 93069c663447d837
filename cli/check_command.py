"""`workerseed check`: report worker randomness bugs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from . import output
from .engine_run import (
    all_findings,
    emit,
    exit_code,
    print_summary,
    run_engine,
    show_settings,
    write_report,
)
from .options import (
    CHECK_EXIT_HELP,
    SharedOptions,
    check_options,
    html_option,
    shared_options,
    to_settings,
)


@click.command(epilog=CHECK_EXIT_HELP, short_help="Report worker randomness bugs.")
@shared_options
@html_option
def check(paths: tuple[Path, ...], html_path: Path | None, **parsed: Any) -> None:
    """Report DataLoader worker randomness bugs in PATHS (default: the current directory).

    PATHS may be Python files, notebooks (.ipynb) and directories. Each is analysed with the
    rest of the repository it belongs to; findings are reported for PATHS only.
    """
    from codemods.report import summarise

    from . import render, render_bulk

    options = SharedOptions(**parsed)
    check_options(options)
    settings = to_settings(options)
    if options.show_settings:
        show_settings(paths, settings)
    run = run_engine(paths, settings, fix=False, options=options)
    results, unsafe = run.results, run.unsafe_fixes
    findings = all_findings(results)
    report = summarise(results, run.projects, unsafe_fixes=unsafe)
    out, err = output.console(), output.console(stderr=True)
    if not emit(findings, options, unsafe_fixes=unsafe):
        render.print_findings(out, findings, unsafe_fixes=unsafe)
        render.print_problems(err, results, verbose=options.verbose, quiet=options.quiet)
        if not options.quiet:
            if len(run.projects) > 1:
                render_bulk.print_run_report(out, report, fixed_column=None)
            print_summary(out, results, findings, unsafe_fixes=unsafe)
    else:
        render.print_problems(err, results, verbose=options.verbose, quiet=options.quiet)
    if options.report_path is not None:
        from . import formats

        write_report(options.report_path, formats.run_report_json(report, command="check"))
    if html_path is not None:
        from codemods import html_report

        write_report(html_path, html_report.check_page(report, findings, render.display_path))
    sys.exit(exit_code(results, findings, exit_zero=options.exit_zero))
