"""The `workerseed` command: options in, engine results out, rendered with rich."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from codemods import (
    Changed,
    ConfigError,
    Failed,
    FileResult,
    Finding,
    Settings,
    Skipped,
    __version__,
    rule_by_code,
    run_paths,
)
from codemods.files import WriteError, write_atomic

from . import render

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_CODES_HELP = (
    "Exit status: 0 if nothing was found (or everything was fixed), 1 if findings remain "
    "(with --diff: if any file would change), 2 for usage, configuration or internal errors."
)

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
            help="Read [tool.workerseed] from this file instead of the project's pyproject.toml.",
        ),
        click.option(
            "--format",
            "output_format",
            type=click.Choice(["text", "json"]),
            default="text",
            show_default=True,
            help="Output format.",
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
            "--verbose", "-v", is_flag=True, help="Also list skipped files and tracebacks."
        ),
        click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary."),
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


def _run(paths: Sequence[Path], settings: Settings, *, fix: bool, quiet: bool) -> list[FileResult]:
    err = Console(stderr=True)
    try:
        if quiet or not err.is_terminal:
            return list(run_paths(paths or [Path.cwd()], settings, fix=fix))
        with err.status("Analysing…") as status:

            def progress(stage: str, done: int, total: int) -> None:
                status.update(f"{stage.capitalize()} {done}/{total} files…")

            return list(run_paths(paths or [Path.cwd()], settings, fix=fix, progress=progress))
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="workerseed")
def main() -> None:
    """Find and fix duplicated randomness in PyTorch DataLoader workers."""


@main.command(epilog=EXIT_CODES_HELP)
@shared_options
def check(paths: tuple[Path, ...], **options: Any) -> None:
    """Report DataLoader worker randomness bugs in PATHS (default: the current directory)."""
    settings = _settings(options)
    results = _run(paths, settings, fix=False, quiet=options["quiet"])
    findings = sorted(
        (finding for result in results for finding in getattr(result, "findings", ())),
        key=lambda finding: finding.sort_key,
    )
    out, err = Console(highlight=False), Console(stderr=True, highlight=False)
    unsafe = bool(settings.unsafe_fixes)
    if options["output_format"] == "json":
        click.echo(render.findings_json(findings))
    else:
        render.print_findings(out, findings, unsafe_fixes=unsafe)
        render.print_problems(err, results, verbose=options["verbose"])
        if not options["quiet"]:
            _print_summary(out, results, findings, unsafe_fixes=unsafe)
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
        isinstance(result, Skipped) and result.reason.value not in ("generated", "excluded")
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
    terminal (CI, pre-commit) or with --yes, every change is applied.
    """
    settings = _settings(options, unsafe_fixes=unsafe_fixes)
    results = _run(paths, settings, fix=True, quiet=options["quiet"])
    out, err = Console(highlight=False), Console(stderr=True, highlight=False)
    changes = [result for result in results if isinstance(result, Changed)]
    interactive = not (yes or diff_only) and sys.stdin.isatty() and out.is_terminal
    written: list[Changed] = []
    failures = 0
    apply_all = False
    for changed in changes:
        if not options["quiet"] or diff_only:
            render.print_diff(out, changed)
        if diff_only:
            continue
        if interactive and not apply_all:
            answer = click.prompt(
                f"Apply this change to {render.display_path(changed.path)}? "
                "[y]es, [n]o, [a]ll, [q]uit",
                type=click.Choice(["y", "n", "a", "q"]),
                default="y",
                show_choices=False,
            )
            if answer == "q":
                break
            if answer == "n":
                continue
            apply_all = answer == "a"
        try:
            write_atomic(changed.source, changed.new)
        except WriteError as error:
            failures += 1
            err.print(
                f"error: {render.display_path(changed.path)}: {error}",
                markup=False,
                highlight=False,
            )
            continue
        written.append(changed)
    # Under --diff, report what would remain once every shown change were applied.
    remaining = _remaining(results, changes if diff_only else written)
    unsafe = bool(settings.unsafe_fixes)
    render.print_findings(out, remaining, unsafe_fixes=unsafe)
    render.print_problems(err, results, verbose=options["verbose"])
    if not options["quiet"]:
        fixed = sum(len(changed.fixed) for changed in written)
        verb = "would fix" if diff_only else "fixed"
        count = sum(len(changed.fixed) for changed in changes) if diff_only else fixed
        files = len(changes) if diff_only else len(written)
        out.print(
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
        return
    rule = rule_by_code(explain)
    if rule is None:
        raise click.BadParameter(f"no rule {explain!r}", param_hint="--explain")
    console.print(render.explain(rule))


if __name__ == "__main__":
    main()
