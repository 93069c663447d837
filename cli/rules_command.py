"""`workerseed rules`: list the rules, or show one's documentation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from . import output

if TYPE_CHECKING:
    # Imported where they are used: `--version` and `--help` start without rich, libcst,
    # the rules and the engine.
    from codemods.rule import Rule


@click.command(short_help="List the rules, or explain one.")
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
