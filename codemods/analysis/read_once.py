"""Facts about a project's files that one run computes once, however often it asks.

Library and torch versions are asked for per package and per question (the run key, the
rules' messages), and each answer lists and reads the same declaration files; on a warm run
that repetition costs more than the rest of the run. Within `files_read_once()` each answer
is kept, keyed by what it was computed from. Outside it nothing is kept, so a long-lived
process (the language server) reads the files again for its next run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar, cast

__all__ = ["files_read_once", "once"]

T = TypeVar("T")

#: Answers kept while `files_read_once` is in effect (else None).
_kept: dict[Hashable, object] | None = None


@contextlib.contextmanager
def files_read_once() -> Iterator[None]:
    """Keep each answer of `once` until the outermost block ends."""
    global _kept
    outer, _kept = _kept, {} if _kept is None else _kept
    try:
        yield
    finally:
        _kept = outer


def once(key: Hashable, compute: Callable[[], T]) -> T:
    """Return `compute()`, computed once per `key` within `files_read_once`."""
    if _kept is None:
        return compute()
    if key not in _kept:
        _kept[key] = compute()
    return cast(T, _kept[key])
