"""Entries of tables written as literals: `{"a": A, "b": B}[name]`, `(A, B)[0]`, and
lookups nested in them (`{"a": (A, collate)}[name][0]`)."""

from __future__ import annotations

from collections.abc import Callable

from .facts import Kind, Value

_TABLES = (Kind.DICT, Kind.SEQUENCE)


def picked_entries(table: Value, key: str | None) -> list[Value] | None:
    """Return the entries of the dict or list literal `table` that indexing it with `key`
    may give, a literal as `literal_key` writes it (None: known only at run time, any
    entry). None if some entry cannot be told (`**others`, `*rest`)."""
    if table.kind is Kind.DICT:
        keys = [name for name, _ in table.keywords]
        if None in keys:
            return None
        if key is not None:
            return [entry for name, entry in table.keywords if repr(name) == key]
        return [entry for _, entry in table.keywords]
    entries = list(table.args)
    if any(entry.kind is Kind.STARRED for entry in entries):
        return None
    if key is not None and key.lstrip("-").isdigit():
        position = int(key)
        return [entries[position]] if -len(entries) <= position < len(entries) else []
    return entries


def subscript_entries(value: Value, key_of: Callable[[Value], str | None]) -> list[Value] | None:
    """Return the entries `value`, a lookup in a literal table, may be: a nested lookup
    (`table[name][0]`) indexes each entry the outer key may pick. `key_of` tells the
    literal a key is. None if `value` is no such lookup, or some entry cannot be told."""
    if value.kind is not Kind.SUBSCRIPT or value.base is None:
        return None
    key = key_of(value.args[0]) if value.args else None
    if value.base.kind in _TABLES:
        return picked_entries(value.base, key)
    tables = subscript_entries(value.base, key_of)
    if tables is None or any(table.kind not in _TABLES for table in tables):
        return None
    found: list[Value] = []
    for table in tables:
        entries = picked_entries(table, key)
        if entries is None:
            return None
        found.extend(entries)
    return found
