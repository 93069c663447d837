"""The `workerseed` command: options in, engine results out, rendered with rich."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from . import output

if TYPE_CHECKING:
    # Imported where they are used: `--version` and `--help` start without rich, libcst,
    # the rules and the engine.
    from rich.console import Console

    from codemods import Changed, FileResult, Finding, ProjectSettings, Settings
    from codemods.rule import Rule

__version__ = "0.1.0"  # kept equal to codemods.__version__ (tests/test_startup.py)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_CODES_HELP = (
    "Exit status: 0 if nothing was found (or everything was fixed), 1 if findings remain "
    "(with --diff: if any file would change), 2 for usage, configuration or internal errors, "
    "130 when interrupted."
)
CHECK_EXIT_HELP = (
    "Exit status: 0 if nothing was found (informational findings do not count), 1 if findings "
    "remain, 2 for usage, configuration or internal errors, 130 when interrupted."
)
FORMATS = ("text", "json", "sarif", "github")

F = TypeVar("F", bound=Callable[..., Any])


def _codes(ctx: click.Context, param: click.Parameter, value: Sequence[str]) -> tuple[str, ...]:
    """Split repeated, comma-separated rule selectors (`--select WS101,WS2`)."""
    del ctx, param
    return tuple(part.strip() for item in value for part in item.split(",") if part.strip())


def _report_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Refuse a report path whose directory does not exist, before any work is done."""
    del ctx
    if value is not None and not value.absolute().parent.is_dir():
        raise click.BadParameter(f"directory {value.parent} does not exist", param=param)
    return value


def report_option(help_text: str) -> Callable[[F], F]:
    """Return the `--report FILE` option."""
    return click.option(
        "--report",
        "report_path",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        callback=_report_file,
        help=help_text,
    )


@dataclass(frozen=True)
class SharedOptions:
    """The options `check` and `fix` share, as click parsed them (see `shared_options`)."""

    select: tuple[str, ...]
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    torch_version: str | None
    library_version: tuple[tuple[str, str, str], ...]
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    config: Path | None
    output_format: str
    statistics: bool
    report_path: Path | None
    show_settings: bool
    exit_zero: bool
    jobs: int | None
    scheduler: str | None
    no_cache: bool
    no_respect_gitignore: bool
    verbose: bool
    quiet: bool


def html_option(function: F) -> F:
    """Add the `--html FILE` option (a self-contained HTML report)."""
    return click.option(
        "--html",
        "html_path",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        callback=_report_file,
        help="Also write a self-contained HTML report (charts and every finding) to FILE.",
    )(function)


def shared_options(function: F) -> F:
    """Add the options `check` and `fix` share."""
    options = [
        click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path)),
        click.option(
            "--select",
            multiple=True,
            callback=_codes,
            help="Rules to enable, replacing the defaults (codes or prefixes: WS101,WS2).",
        ),
        click.option(
            "--extend-select",
            multiple=True,
            callback=_codes,
            help="Rules to enable in addition to the defaults.",
        ),
        click.option("--ignore", multiple=True, callback=_codes, help="Rules to disable."),
        click.option(
            "--torch-version",
            metavar="VERSION",
            help="The torch version the code runs on (e.g. 1.8). Default: the lowest the "
            "project's requirements admit, else the installed torch.",
        ),
        click.option(
            "--library-version",
            metavar="NAME==VERSION",
            multiple=True,
            callback=_library_versions,
            help="A library version the code runs on (e.g. albumentations==2.0.8); repeatable. "
            "Default: the project's lock files or requirements, else the installed one, else "
            "its newest release.",
        ),
        click.option(
            "--exclude",
            multiple=True,
            callback=_codes,
            help="Glob patterns to exclude, replacing the defaults.",
        ),
        click.option(
            "--extend-exclude",
            multiple=True,
            callback=_codes,
            help="Glob patterns to exclude in addition to the defaults.",
        ),
        click.option(
            "--config",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            help="Read settings from this file instead of the project's pyproject.toml "
            "([tool.workerseed], or top-level keys in a file of its own).",
        ),
        click.option(
            "--format",
            "output_format",
            type=click.Choice(FORMATS),
            default="text",
            show_default=True,
            help="Output format: text for people; json, sarif (2.1.0) or github (workflow "
            "annotations) for tools.",
        ),
        click.option(
            "--statistics",
            is_flag=True,
            help="Print the number of findings per rule instead of each finding (text or json).",
        ),
        report_option(
            "Also write the counts per project and per rule (files, findings, fixable or "
            "fixed, skipped, failed) to FILE as JSON."
        ),
        click.option(
            "--show-settings",
            is_flag=True,
            help="Print the resolved settings of each project and exit.",
        ),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option(
            "--jobs",
            "-j",
            type=click.IntRange(min=1),
            help="Worker processes for parsing (default: one per CPU).",
        ),
        click.option(
            "--scheduler",
            metavar="ADDRESS",
            help="Analyse the repositories on a Dask cluster (tcp://host:8786); its workers "
            "must see them at the same paths. Needs workerseed[dask].",
        ),
        click.option("--no-cache", is_flag=True, help="Do not read or write the analysis cache."),
        click.option(
            "--no-respect-gitignore",
            is_flag=True,
            help="Also analyse files that .gitignore excludes.",
        ),
        click.option(
            "--verbose",
            "-v",
            is_flag=True,
            help="Also print each project's settings, skipped files and tracebacks.",
        ),
        click.option(
            "--quiet",
            "-q",
            is_flag=True,
            help="Print findings only: no summary, no warnings about skipped files.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _library_versions(
    context: click.Context, parameter: click.Parameter, values: tuple[str, ...]
) -> tuple[tuple[str, str, str], ...]:
    from codemods.analysis.package_versions import parse_override

    try:
        pairs = [parse_override(value, "--library-version") for value in values]
    except ValueError as error:
        raise click.BadParameter(str(error), context, parameter) from None
    return tuple((name, version, "--library-version") for name, version in pairs)


def _settings(options: SharedOptions, *, unsafe_fixes: bool | None = None) -> Settings:
    from codemods import Settings

    return Settings(
        select=options.select or None,
        extend_select=options.extend_select,
        ignore=options.ignore,
        torch_version=options.torch_version,
        library_versions=options.library_version,
        exclude=options.exclude or None,
        extend_exclude=options.extend_exclude,
        config=options.config,
        jobs=options.jobs,
        scheduler=options.scheduler,
        cache=not options.no_cache,
        respect_gitignore=not options.no_respect_gitignore,
        unsafe_fixes=unsafe_fixes,
    )


class ConfigurationError(click.ClickException):
    """An invalid configuration: click prints it, and the exit status is 2."""

    exit_code = EXIT_ERROR


class OutputError(click.ClickException):
    """An output file could not be written: click prints it, and the exit status is 2."""

    exit_code = EXIT_ERROR


def _check_options(options: SharedOptions) -> None:
    if options.quiet and options.verbose:
        raise click.UsageError("--quiet and --verbose cannot be used together")
    if options.statistics and options.output_format not in ("text", "json"):
        raise click.UsageError("--statistics prints text or json, not " + options.output_format)


def _show_settings(paths: Sequence[Path], settings: Settings) -> None:
    from codemods import ConfigError, project_settings

    from . import render

    try:
        projects = list(project_settings(paths or [Path.cwd()], settings))
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error
    click.echo(render.settings_text(projects), nl=False)
    sys.exit(EXIT_CLEAN)


@dataclass(frozen=True)
class _Run:
    """What the engine returned, and the projects it ran on."""

    results: list[FileResult]
    projects: list[ProjectSettings]
    #: Unsafe fixes apply (as the engine decided).
    unsafe_fixes: bool


def _shows_progress(console: Console, quiet: bool) -> bool:
    """Return True if progress may be drawn: on a terminal, never in a log or with --quiet.

    FORCE_COLOR makes rich treat any stream as a terminal; a progress bar written into a CI
    log would only add noise, so the stream itself must be a terminal.
    """
    if quiet or not console.is_terminal:
        return False
    isatty = getattr(console.file, "isatty", None)
    return callable(isatty) and bool(isatty())


def _run(paths: Sequence[Path], settings: Settings, *, fix: bool, options: SharedOptions) -> _Run:
    """Run the engine over `paths`.

    Unsafe fixes apply with --unsafe-fixes, or when every project's configuration asks for
    them (`unsafe-fixes = true`), which is how the engine decided too.
    """
    from codemods import ConfigError, project_settings, run_paths

    err = output.console(stderr=True)
    targets = paths or [Path.cwd()]
    try:
        projects = list(project_settings(targets, settings))
        if options.verbose:
            for project in projects:
                err.print(
                    f"{project.root}: rules {', '.join(project.rules) or 'none'}; "
                    f"{project.target.describe()}; configuration "
                    f"{project.config or 'none'}",
                    markup=False,
                    emoji=False,
                    style="dim",
                    soft_wrap=True,
                )
        unsafe = bool(projects) and all(project.settings.unsafe_fixes for project in projects)
        if not _shows_progress(err, options.quiet):
            results = list(run_paths(targets, settings, fix=fix))
        elif len(projects) > 1:
            results = _with_progress_bar(err, targets, settings, fix=fix, total=len(projects))
        else:
            with err.status("Analysing…") as status:

                def progress(stage: str, done: int, total: int) -> None:
                    status.update(f"{stage.capitalize()} {done}/{total} files…")

                results = list(run_paths(targets, settings, fix=fix, progress=progress))
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error
    return _Run(results, projects, unsafe)


def _with_progress_bar(
    console: Console, paths: Sequence[Path], settings: Settings, *, fix: bool, total: int
) -> list[FileResult]:
    from codemods import run_paths

    from . import render

    with render.progress_bar(console) as bar:
        task = bar.add_task("Projects", total=total, detail="")

        def progress(stage: str, done: int, of: int) -> None:
            if stage == "projects":
                bar.update(task, completed=done, detail="")
            else:
                bar.update(task, detail=f"{stage} {done}/{of} files")

        return list(run_paths(paths, settings, fix=fix, progress=progress))


def _write_report(path: Path | None, text: str) -> None:
    from codemods.files import WriteError, write_text_atomic

    if path is None:
        return
    try:
        write_text_atomic(path, text)
    except WriteError as error:
        raise OutputError(str(error)) from error


def _all_findings(results: Sequence[FileResult]) -> list[Finding]:
    return sorted(
        (finding for result in results for finding in getattr(result, "findings", ())),
        key=lambda finding: finding.sort_key,
    )


def _emit(
    findings: Sequence[Finding],
    options: SharedOptions,
    *,
    unsafe_fixes: bool,
    previews: bool = True,
) -> bool:
    """Print findings in a machine-readable format or as statistics; False for text lines."""
    from codemods.previews import preview_fixes

    from . import formats, render

    output_format = options.output_format
    if options.statistics:
        rows = render.statistics(findings, unsafe_fixes=unsafe_fixes)
        if output_format == "json":
            click.echo(formats.statistics_json(rows))
        else:
            render.print_statistics(output.console(), rows)
        return True
    if output_format == "text":
        return False
    if output_format == "github":
        click.echo(formats.github(findings), nl=False)
        return True
    fix_previews = preview_fixes(findings) if previews else {}
    if output_format == "json":
        click.echo(formats.findings_json(findings, fix_previews, unsafe_fixes=unsafe_fixes))
    else:
        click.echo(formats.sarif(findings, fix_previews))
    return True


@click.group(
    cls=output.InterruptibleGroup, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, prog_name="workerseed")
def main() -> None:
    """Find and fix duplicated randomness in PyTorch DataLoader workers."""


@main.command(epilog=CHECK_EXIT_HELP, short_help="Report worker randomness bugs.")
@shared_options
@html_option
def check(paths: tuple[Path, ...], html_path: Path | None, **parsed: Any) -> None:
    """Report DataLoader worker randomness bugs in PATHS (default: the current directory).

    PATHS may be Python files, notebooks (.ipynb) and directories. Each is analysed with the
    rest of the repository it belongs to; findings are reported for PATHS only.
    """
    from codemods import html_report
    from codemods.report import summarise

    from . import formats, render

    options = SharedOptions(**parsed)
    _check_options(options)
    settings = _settings(options)
    if options.show_settings:
        _show_settings(paths, settings)
    run = _run(paths, settings, fix=False, options=options)
    results, unsafe = run.results, run.unsafe_fixes
    findings = _all_findings(results)
    report = summarise(results, run.projects, unsafe_fixes=unsafe)
    out, err = output.console(), output.console(stderr=True)
    if not _emit(findings, options, unsafe_fixes=unsafe):
        render.print_findings(out, findings, unsafe_fixes=unsafe)
        render.print_problems(err, results, verbose=options.verbose, quiet=options.quiet)
        if not options.quiet:
            if len(run.projects) > 1:
                render.print_run_report(out, report, fixed_column=None)
            _print_summary(out, results, findings, unsafe_fixes=unsafe)
    else:
        render.print_problems(err, results, verbose=options.verbose, quiet=options.quiet)
    _write_report(options.report_path, formats.run_report_json(report, command="check"))
    if html_path is not None:
        _write_report(html_path, html_report.check_page(report, findings, render.display_path))
    sys.exit(_exit_code(results, findings, exit_zero=options.exit_zero))


def _print_summary(
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


def _exit_code(
    results: Sequence[FileResult], findings: Sequence[Finding], *, exit_zero: bool
) -> int:
    from codemods import Failed

    if any(isinstance(result, Failed) for result in results):
        return EXIT_ERROR
    if any(output.counts_for_exit(finding.severity) for finding in findings) and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


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


@main.command(
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

    from . import formats, render

    options = SharedOptions(**parsed)
    _check_options(options)
    settings = _settings(options, unsafe_fixes=unsafe_fixes)
    if options.show_settings:
        _show_settings(paths, settings)
    run = _run(paths, settings, fix=True, options=options)
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
    if not _emit(remaining, options, unsafe_fixes=unsafe, previews=not diff_only):
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
        render.print_run_report(screen, report, fixed_column="Would fix" if diff_only else "Fixed")
    command = "fix --diff" if diff_only else "fix"
    _write_report(options.report_path, formats.run_report_json(report, command=command))
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


@main.command(short_help="List the rules, or explain one.")
@click.option("--explain", metavar="CODE", help="Show the documentation of one rule.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "markdown", "json")),
    default="text",
    show_default=True,
    help="text: rendered for the terminal; markdown or json: the raw documentation.",
)
def rules(explain: str | None, output_format: str) -> None:
    """List the rules, or explain one (`workerseed rules --explain WS201`)."""
    from rich.console import Console

    from . import render

    console = Console()
    if output_format != "text":
        click.echo(output.rules_raw(_rule(explain) if explain else None, output_format), nl=False)
        return
    if explain is None:
        console.print(render.rules_table())
        console.print("Run `workerseed rules --explain CODE` for a rule's documentation.")
        return
    console.print(render.explain(_rule(explain)))


def _rule(code: str) -> type[Rule]:
    from codemods import ALL_RULES, rule_by_code

    rule = rule_by_code(code)
    if rule is None:
        codes = ", ".join(known.CODE for known in ALL_RULES)
        raise click.BadParameter(f"no rule {code!r} (rules: {codes})", param_hint="--explain")
    return rule


@main.command("server")
def server_command() -> None:
    """Run a Language Server on standard input and output, for editors.

    Diagnostics, quick fixes and a "fix all" action, with rule documentation on hover. Needs
    the optional dependencies: pip install 'workerseed[server]'.
    """
    try:
        from . import server
    except ModuleNotFoundError as error:
        package = (error.name or "").partition(".")[0]
        if package not in ("pygls", "lsprotocol"):
            raise
        raise ConfigurationError(
            f"`workerseed server` needs {package}, which is not installed: "
            "pip install 'workerseed[server]'"
        ) from error
    server.serve()


SCAN_EXIT_HELP = (
    "Exit status: 0 once the statistic is printed, whatever it says (a scan is a measurement, "
    "not a lint; use `check` to fail on findings); 2 for usage errors."
)


@main.command(
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

    from . import formats, render

    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose cannot be used together")
    err = output.console(stderr=True)
    settings = Settings(jobs=jobs)
    targets = roots or (Path.cwd(),)
    if _shows_progress(err, quiet):
        with render.progress_bar(err) as bar:
            task = bar.add_task("Repositories", total=None, detail="")

            def progress(stage: str, done: int, total: int) -> None:
                del stage
                bar.update(task, completed=done, total=total)

            report = scanning.scan(targets, settings, progress=progress)
    else:
        report = scanning.scan(targets, settings)
    document = formats.scan_json(report)
    _write_report(report_path, document)
    if html_path is not None:
        _write_report(html_path, html_report.scan_page(report, render.display_path))
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
        out.print(render.scan_repository_table(report))
    out.print(render.scan_table(report))
    if not quiet:
        for note in render.scan_notes(report):
            out.print(note)


if __name__ == "__main__":
    main()
