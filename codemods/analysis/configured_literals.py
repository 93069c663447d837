"""What a setting read from a configuration dict may be, from the project's config files.

`config["VAL"]["DATASET"]["AUGMENT"]`, read from a dict loaded from a YAML or JSON file, holds
what one of the project's configuration files gives under those keys: a dict read by
subscripts raises for a missing key, so no default hides behind the read.
"""

from __future__ import annotations

from .config_files import config_entries, node_key
from .facts import Kind, Value, self_attribute
from .project import Project

#: Literals longer than this are not compared (summaries cut long constants short).
_LONGEST = 39


def configured_literals(project: Project, value: Value) -> frozenset[str] | None:
    """Return the literals (as `literal_key` writes them) the project's configuration files
    give at the keys `value` reads by constant subscripts, two or more deep, of a name or
    of `self.<attribute>`; None unless at least one file gives them and every file that does
    gives a short literal."""
    keys: list[str] = []
    current = value
    while current.kind is Kind.SUBSCRIPT and current.base is not None:
        key = node_key(current)
        if key is None:
            return None
        keys.append(key)
        current = current.base
    if len(keys) < 2 or not (
        current.kind in (Kind.NAME, Kind.PARAM) or self_attribute(current) is not None
    ):
        return None
    entries = config_entries(project, tuple(reversed(keys)))
    literals = {_literal(entry) for _, entry in entries}
    if not literals or None in literals:
        return None
    return frozenset(literal for literal in literals if literal is not None)


def _literal(entry: object) -> str | None:
    if entry is None or isinstance(entry, bool | int | float | str):
        written = repr(entry)
        return written if len(written) <= _LONGEST else None
    return None
