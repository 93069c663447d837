"""Where output goes and in what shape: consoles that never wrap piped output, whether
progress may be drawn, raw rule docs, and Ctrl-C's exit status. Rendering of findings stays
in `render.py`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    # rich and the rules are imported by the functions that use them: `--version` and
    # `--help` start without them.
    from rich.console import Console

    from codemods.rule import Rule

#: The exit status of a run stopped with Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130

#: Width of a console that is not a terminal: tables and summaries are written as full lines,
#: since a CI log or a file has no width of its own to wrap at.
UNWRAPPED_WIDTH = 10_000


def is_terminal(console: Console) -> bool:
    """Return True if the console writes to a terminal (where lines wrap and colours show)."""
    # Not `console.is_terminal`: FORCE_COLOR makes rich call any stream a terminal, and CI
    # logs set it for colour while still being logs.
    isatty = getattr(console.file, "isatty", None)
    return callable(isatty) and bool(isatty())


def shows_progress(console: Console, quiet: bool) -> bool:
    """Return True if progress may be drawn: on a terminal, never in a log or with --quiet.

    FORCE_COLOR makes rich treat any stream as a terminal; a progress bar written into a CI
    log would only add noise, so the stream itself must be a terminal.
    """
    if quiet or not console.is_terminal:
        return False
    isatty = getattr(console.file, "isatty", None)
    return callable(isatty) and bool(isatty())


def console(*, stderr: bool = False) -> Console:
    """Return a console for results (or, with `stderr`, for warnings and errors).

    On a terminal lines wrap at its width; anywhere else (a pipe, a file, a CI log) every
    line and table row is written whole.
    """
    from rich.console import Console

    screen = Console(stderr=stderr, highlight=False)
    if is_terminal(screen):
        return screen
    return Console(stderr=stderr, highlight=False, width=UNWRAPPED_WIDTH, soft_wrap=True)


def write_bytes(console: Console, data: bytes) -> None:
    """Write `data` unchanged to the console's stream (a patch must keep every byte)."""
    stream = console.file
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(data.decode("utf-8", errors="replace"))
        return
    buffer.write(data)
    buffer.flush()


def counts_for_exit(severity: str) -> bool:
    """Return True if a finding of this severity makes the run fail (exit 1).

    Informational findings are advice: they are shown but never fail a run.
    """
    return severity != "info"


def _without_trailing_spaces(text: str) -> str:
    return "".join(line.rstrip() + "\n" for line in text.strip("\n").splitlines())


def rule_markdown(rule: type[Rule]) -> str:
    """Return a rule's documentation as Markdown, as `rules --explain` renders it."""
    default = (
        "Enabled by default."
        if rule.DEFAULT
        else f"Off by default: enable with `--select {rule.CODE}`."
    )
    fix = f"Fix: {rule.FIX.value}; fix safety: {rule.fix_safety()}."
    return _without_trailing_spaces(
        f"# {rule.CODE} {rule.NAME}\n\n{default} {fix}\n\n{rule.documentation()}"
    )


def rule_document(rule: type[Rule]) -> dict[str, Any]:
    """Return a rule's metadata and documentation for `rules --format json`."""
    return {
        "code": rule.CODE,
        "name": rule.NAME,
        "summary": rule.summary(),
        "default": rule.DEFAULT,
        "fix": rule.FIX.value,
        "fix_safety": rule.fix_safety(),
        "explanation": _without_trailing_spaces(rule.documentation()),
    }


def rules_raw(rule: type[Rule] | None, output_format: str) -> str:
    """Return one rule's documentation (every rule's with None) as Markdown or JSON."""
    from codemods import ALL_RULES

    chosen = list(ALL_RULES) if rule is None else [rule]
    if output_format == "json":
        documents = [rule_document(each) for each in chosen]
        return json.dumps(documents[0] if rule is not None else documents, indent=2) + "\n"
    return "\n".join(rule_markdown(each) for each in chosen)


class InterruptibleGroup(click.Group):
    """A command group whose commands exit 130 on Ctrl-C, as interrupted programs do.

    click turns Ctrl-C into "Aborted!" and exit 1, which a script cannot tell from findings.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            pass
        except click.Abort as abort:
            # click raises Abort for Ctrl-C at a prompt (its context is the KeyboardInterrupt)
            # and for the end of input; only the first is an interrupt.
            if not isinstance(abort.__context__, KeyboardInterrupt):
                raise
        click.echo("\nInterrupted.", err=True)
        ctx.exit(EXIT_INTERRUPTED)
