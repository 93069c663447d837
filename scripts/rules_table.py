"""Generate the README's rule table from the rules: `python scripts/rules_table.py [--check]`.

A developer script: it is not part of the installed package.

The table sits between `<!-- rules-table -->` and `<!-- /rules-table -->`. Without
`--check` the README is rewritten in place; with it, nothing is written and the exit status
is 1 when the table is out of date (for CI).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from codemods import ALL_RULES

START = "<!-- rules-table -->"
END = "<!-- /rules-table -->"
README = Path(__file__).resolve().parent.parent / "README.md"


def rules_table() -> str:
    """Return the Markdown table of every rule."""
    lines = [
        "| code | name | default | fix | fix safety | what it does |",
        "|---|---|---|---|---|---|",
    ]
    for rule in ALL_RULES:
        summary = rule.summary().replace("|", "\\|")
        default = "on" if rule.DEFAULT else f"off (`--select {rule.CODE}`)"
        lines.append(
            f"| {rule.CODE} | `{rule.NAME}` | {default} | {rule.FIX.value} | "
            f"{rule.fix_safety()} | {summary} |"
        )
    return "\n".join(lines) + "\n"


def with_rules_table(text: str) -> str:
    """Return `text` with the table between the markers replaced by the current one."""
    start = text.find(START)
    end = text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"README has no {START} ... {END} markers")
    return text[: start + len(START)] + "\n" + rules_table() + text[end:]


def main(arguments: Sequence[str] = ()) -> int:
    """Rewrite the README's rule table, or with `--check` report whether it is current."""
    text = README.read_text(encoding="utf-8")
    current = with_rules_table(text)
    if "--check" in arguments:
        if current != text:
            print("README.md: the rule table is out of date; run `python scripts/rules_table.py`")
            return 1
        return 0
    if current != text:
        README.write_text(current, encoding="utf-8")
        print("README.md: rule table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
