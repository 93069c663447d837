"""The options `check` and `fix` share, how they become engine settings, and the exit
statuses the commands document."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    # Imported where they are used: `--version` and `--help` start without rich, libcst,
    # the rules and the engine.
    from codemods import Settings


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
    if not values:
        return ()  # the analysis' modules are imported only when an override needs them
    from codemods.analysis.package_versions import parse_override

    try:
        pairs = [parse_override(value, "--library-version") for value in values]
    except ValueError as error:
        raise click.BadParameter(str(error), context, parameter) from None
    return tuple((name, version, "--library-version") for name, version in pairs)


def to_settings(options: SharedOptions, *, unsafe_fixes: bool | None = None) -> Settings:
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


def check_options(options: SharedOptions) -> None:
    if options.quiet and options.verbose:
        raise click.UsageError("--quiet and --verbose cannot be used together")
    if options.statistics and options.output_format not in ("text", "json"):
        raise click.UsageError("--statistics prints text or json, not " + options.output_format)
