"""`workerseed fix`: show each change as a diff, ask when a person is there, write it safely."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import output
from .engine_run import emit, run_engine, show_settings, write_report
from .options import (
    EXIT_CLEAN,
    EXIT_CODES_HELP,
    EXIT_ERROR,
    EXIT_FINDINGS,
    SharedOptions,
    check_options,
    shared_options,
    to_settings,
)

if TYPE_CHECKING:
    # Imported where they are used: `--version` and `--help` start without rich, libcst,
    # the rules and the engine.
    from rich.console import Console

    from codemods import Changed, FileResult, Finding


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold back Ctrl-C until the block ends, then deliver it.

    A file being written is then always finished (and its temporary file gone) before the
    command stops: every file is its old or its new version, and nothing else is left.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        # None: a handler installed outside Python; Python's own is the best stand-in.
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
        if received:
            signal.raise_signal(signal.SIGINT)


def _interactive(console: Console) -> bool:
    """Return True when a person can answer questions (stdin and the output are terminals)."""
    return sys.stdin.isatty() and console.is_terminal


@click.command(
    epilog=EXIT_CODES_HELP, short_help="Fix worker randomness bugs, showing each change as a diff."
)
@shared_options
@click.option(
    "--diff",
    "diff_only",
    is_flag=True,
    help="Only show the changes; write nothing (exit 1 if any file would change).",
)
@click.option("--yes", "-y", is_flag=True, help="Apply every change without asking.")
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Also apply fixes that may change more than which random numbers are drawn.",
)
def fix(
    paths: tuple[Path, ...], diff_only: bool, yes: bool, unsafe_fixes: bool | None, **parsed: Any
) -> None:
    """Fix DataLoader worker randomness bugs in PATHS, showing each change as a diff.

    On a terminal, each change is reviewed: accept, skip, accept all, or quit. Without a
    terminal (CI, pre-commit) or with --yes, every change is applied. With a format other
    than text, diffs and questions go to standard error and the findings that remain to
    standard output.
    """
    from codemods import Changed, Failed
    from codemods.files import WriteError, write_atomic
    from codemods.report import summarise

    from . import formats, render, render_bulk

    options = SharedOptions(**parsed)
    check_options(options)
    settings = to_settings(options, unsafe_fixes=unsafe_fixes)
    if options.show_settings:
        show_settings(paths, settings)
    run = run_engine(paths, settings, fix=True, options=options)
    results, unsafe = run.results, run.unsafe_fixes
    machine = options.output_format != "text" or options.statistics
    out, err = output.console(), output.console(stderr=True)
    # Standard output carries only the chosen format; people read the rest on stderr.
    screen = err if machine else out
    changes = [result for result in results if isinstance(result, Changed)]
    interactive = not (yes or diff_only) and _interactive(screen)
    written: list[Changed] = []
    unwritten: dict[Path, Failed] = {}
    apply_all = False
    for changed in changes:
        if not options.quiet or diff_only:
            render.print_diff(screen, changed)
        if diff_only:
            continue
        if interactive and not apply_all:
            answer = click.prompt(
                f"Apply this change to {render.display_path(changed.path)}? "
                "[y]es, [n]o, [a]ll, [q]uit",
                type=click.Choice(["y", "n", "a", "q"]),
                default="y",
                show_choices=False,
                err=machine,
            )
            if answer == "q":
                break
            if answer == "n":
                continue
            apply_all = answer == "a"
        try:
            with _interrupts_deferred():
                write_atomic(changed.source, changed.new)
        except WriteError as error:
            unwritten[changed.path] = Failed(changed.path, str(error))
            err.print(
                f"error: {render.display_path(changed.path)}: {error}",
                markup=False,
                emoji=False,
                highlight=False,
                soft_wrap=True,
            )
            continue
        written.append(changed)
    # Under --diff, report what would remain once every shown change were applied.
    remaining = _remaining(results, changes if diff_only else written)
    # Previews read the files: under --diff they do not hold the text `remaining` is about.
    if not emit(remaining, options, unsafe_fixes=unsafe, previews=not diff_only):
        render.print_findings(out, remaining, unsafe_fixes=unsafe)
    render.print_problems(err, results, verbose=options.verbose, quiet=options.quiet)
    applied = changes if diff_only else written
    report = summarise(
        [unwritten.get(result.path, result) for result in results],
        run.projects,
        unsafe_fixes=unsafe,
        applied={change.path for change in applied},
    )
    if not options.quiet and len(run.projects) > 1:
        render_bulk.print_run_report(
            screen, report, fixed_column="Would fix" if diff_only else "Fixed"
        )
    command = "fix --diff" if diff_only else "fix"
    write_report(options.report_path, formats.run_report_json(report, command=command))
    if not options.quiet:
        fixed = sum(len(changed.fixed) for changed in written)
        verb = "would fix" if diff_only else "fixed"
        count = sum(len(changed.fixed) for changed in changes) if diff_only else fixed
        files = len(changes) if diff_only else len(written)
        screen.print(
            f"{render.plural(files, 'file')} {'would change' if diff_only else 'changed'}: "
            f"{verb} {render.plural(count, 'finding')}, {len(remaining)} remaining.",
            style="bold",
            highlight=False,
        )
    if unwritten or any(isinstance(result, Failed) for result in results):
        sys.exit(EXIT_ERROR)
    if diff_only:
        sys.exit(EXIT_FINDINGS if changes and not options.exit_zero else EXIT_CLEAN)
    failing = any(output.counts_for_exit(finding.severity) for finding in remaining)
    sys.exit(EXIT_FINDINGS if failing and not options.exit_zero else EXIT_CLEAN)


def _remaining(results: Sequence[FileResult], written: Sequence[Changed]) -> list[Finding]:
    """Return the findings left after writing `written` (a skipped change keeps its findings)."""
    from codemods import Changed

    applied = {changed.path for changed in written}
    remaining: list[Finding] = []
    for result in results:
        if isinstance(result, Changed):
            remaining.extend(result.remaining if result.path in applied else result.findings)
        else:
            remaining.extend(getattr(result, "findings", ()))
    return sorted(dict.fromkeys(remaining), key=lambda finding: finding.sort_key)
