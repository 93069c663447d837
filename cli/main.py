"""The `workerseed` command: options in, engine results out, rendered with rich."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from codemods import (
    ALL_RULES,
    Changed,
    ConfigError,
    Failed,
    FileResult,
    Finding,
    Settings,
    Skipped,
    __version__,
    project_settings,
    rule_by_code,
    run_paths,
)
from codemods.files import WriteError, write_atomic
from codemods.previews import preview_fixes

from . import formats, render

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_CODES_HELP = (
    "Exit status: 0 if nothing was found (or everything was fixed), 1 if findings remain "
    "(with --diff: if any file would change), 2 for usage, configuration or internal errors."
)
FORMATS = ("text", "json", "sarif", "github")

F = TypeVar("F", bound=Callable[..., Any])


def _codes(ctx: click.Context, param: click.Parameter, value: Sequence[str]) -> tuple[str, ...]:
    """Split repeated, comma-separated rule selectors (`--select WS101,WS2`)."""
    del ctx, param
    return tuple(part.strip() for item in value for part in item.split(",") if part.strip())


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


def _settings(options: dict[str, Any], *, unsafe_fixes: bool | None = None) -> Settings:
    return Settings(
        select=options["select"] or None,
        extend_select=options["extend_select"],
        ignore=options["ignore"],
        torch_version=options["torch_version"],
        exclude=options["exclude"] or None,
        extend_exclude=options["extend_exclude"],
        config=options["config"],
        jobs=options["jobs"],
        cache=not options["no_cache"],
        respect_gitignore=not options["no_respect_gitignore"],
        unsafe_fixes=unsafe_fixes,
    )


class ConfigurationError(click.ClickException):
    """An invalid configuration: click prints it, and the exit status is 2."""

    exit_code = EXIT_ERROR


def _check_options(options: dict[str, Any]) -> None:
    if options["quiet"] and options["verbose"]:
        raise click.UsageError("--quiet and --verbose cannot be used together")
    if options["statistics"] and options["output_format"] not in ("text", "json"):
        raise click.UsageError("--statistics prints text or json, not " + options["output_format"])


def _show_settings(paths: Sequence[Path], settings: Settings) -> None:
    try:
        projects = list(project_settings(paths or [Path.cwd()], settings))
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error
    click.echo(render.settings_text(projects), nl=False)
    sys.exit(EXIT_CLEAN)


def _run(
    paths: Sequence[Path], settings: Settings, *, fix: bool, options: dict[str, Any]
) -> tuple[list[FileResult], bool]:
    """Run the engine; return the results and whether unsafe fixes apply.

    Unsafe fixes apply with --unsafe-fixes, or when every project's configuration asks for
    them (`unsafe-fixes = true`), which is how the engine decided too.
    """
    err = Console(stderr=True, highlight=False)
    targets = paths or [Path.cwd()]
    try:
        projects = list(project_settings(targets, settings))
        if options["verbose"]:
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
        if options["quiet"] or not err.is_terminal:
            return list(run_paths(targets, settings, fix=fix)), unsafe
        with err.status("Analysing…") as status:

            def progress(stage: str, done: int, total: int) -> None:
                status.update(f"{stage.capitalize()} {done}/{total} files…")

            return list(run_paths(targets, settings, fix=fix, progress=progress)), unsafe
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error


def _all_findings(results: Sequence[FileResult]) -> list[Finding]:
    return sorted(
        (finding for result in results for finding in getattr(result, "findings", ())),
        key=lambda finding: finding.sort_key,
    )


def _emit(
    findings: Sequence[Finding],
    options: dict[str, Any],
    *,
    unsafe_fixes: bool,
    previews: bool = True,
) -> bool:
    """Print findings in a machine-readable format or as statistics; False for text lines."""
    output_format = options["output_format"]
    if options["statistics"]:
        rows = render.statistics(findings, unsafe_fixes=unsafe_fixes)
        if output_format == "json":
            click.echo(formats.statistics_json(rows))
        else:
            render.print_statistics(Console(highlight=False), rows)
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="workerseed")
def main() -> None:
    """Find and fix duplicated randomness in PyTorch DataLoader workers."""


@main.command(epilog=EXIT_CODES_HELP)
@shared_options
def check(paths: tuple[Path, ...], **options: Any) -> None:
    """Report DataLoader worker randomness bugs in PATHS (default: the current directory).

    PATHS may be Python files, notebooks (.ipynb) and directories. Each is analysed with the
    rest of the repository it belongs to; findings are reported for PATHS only.
    """
    _check_options(options)
    settings = _settings(options)
    if options["show_settings"]:
        _show_settings(paths, settings)
    results, unsafe = _run(paths, settings, fix=False, options=options)
    findings = _all_findings(results)
    out, err = Console(highlight=False), Console(stderr=True, highlight=False)
    if not _emit(findings, options, unsafe_fixes=unsafe):
        render.print_findings(out, findings, unsafe_fixes=unsafe)
        render.print_problems(err, results, verbose=options["verbose"], quiet=options["quiet"])
        if not options["quiet"]:
            _print_summary(out, results, findings, unsafe_fixes=unsafe)
    else:
        render.print_problems(err, results, verbose=options["verbose"], quiet=options["quiet"])
    sys.exit(_exit_code(results, findings, exit_zero=options["exit_zero"]))


def _print_summary(
    console: Console,
    results: Sequence[FileResult],
    findings: Sequence[Finding],
    *,
    unsafe_fixes: bool,
) -> None:
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
    if any(isinstance(result, Failed) for result in results):
        return EXIT_ERROR
    if findings and not exit_zero:
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


@main.command(epilog=EXIT_CODES_HELP)
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
    paths: tuple[Path, ...], diff_only: bool, yes: bool, unsafe_fixes: bool | None, **options: Any
) -> None:
    """Fix DataLoader worker randomness bugs in PATHS, showing each change as a diff.

    On a terminal, each change is reviewed: accept, skip, accept all, or quit. Without a
    terminal (CI, pre-commit) or with --yes, every change is applied. With a format other
    than text, diffs and questions go to standard error and the findings that remain to
    standard output.
    """
    _check_options(options)
    settings = _settings(options, unsafe_fixes=unsafe_fixes)
    if options["show_settings"]:
        _show_settings(paths, settings)
    results, unsafe = _run(paths, settings, fix=True, options=options)
    machine = options["output_format"] != "text" or options["statistics"]
    out, err = Console(highlight=False), Console(stderr=True, highlight=False)
    # Standard output carries only the chosen format; people read the rest on stderr.
    screen = err if machine else out
    changes = [result for result in results if isinstance(result, Changed)]
    interactive = not (yes or diff_only) and _interactive(screen)
    written: list[Changed] = []
    failures = 0
    apply_all = False
    for changed in changes:
        if not options["quiet"] or diff_only:
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
            failures += 1
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
    render.print_problems(err, results, verbose=options["verbose"], quiet=options["quiet"])
    if not options["quiet"]:
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
    if failures or any(isinstance(result, Failed) for result in results):
        sys.exit(EXIT_ERROR)
    if diff_only:
        sys.exit(EXIT_FINDINGS if changes and not options["exit_zero"] else EXIT_CLEAN)
    sys.exit(EXIT_FINDINGS if remaining and not options["exit_zero"] else EXIT_CLEAN)


def _remaining(results: Sequence[FileResult], written: Sequence[Changed]) -> list[Finding]:
    """Return the findings left after writing `written` (a skipped change keeps its findings)."""
    applied = {changed.path for changed in written}
    remaining: list[Finding] = []
    for result in results:
        if isinstance(result, Changed):
            remaining.extend(result.remaining if result.path in applied else result.findings)
        else:
            remaining.extend(getattr(result, "findings", ()))
    return sorted(dict.fromkeys(remaining), key=lambda finding: finding.sort_key)


@main.command()
@click.option("--explain", metavar="CODE", help="Show the documentation of one rule.")
def rules(explain: str | None) -> None:
    """List the rules, or explain one (`workerseed rules --explain WS201`)."""
    console = Console()
    if explain is None:
        console.print(render.rules_table())
        console.print("Run `workerseed rules --explain CODE` for a rule's documentation.")
        return
    rule = rule_by_code(explain)
    if rule is None:
        codes = ", ".join(known.CODE for known in ALL_RULES)
        raise click.BadParameter(f"no rule {explain!r} (rules: {codes})", param_hint="--explain")
    console.print(render.explain(rule))


if __name__ == "__main__":
    main()
