"""Facts about a project's files that one run computes once, however often it asks.

Library and torch versions are asked for per package and per question (the run key, the
rules' messages), and each answer lists and reads the same declaration files; on a warm run
that repetition costs more than the rest of the run. Within `files_read_once()` each answer
is kept, keyed by what it was computed from. Outside it nothing is kept, so a long-lived
process (the language server) reads the files again for its next run.

The block also notes the declaration files read (`noted_reads`): a requirements file may
include one outside the project (`-r ../base.txt`), and a stored run depends on it too
(`tree_snapshots`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import TypeVar, cast

__all__ = ["files_read_once", "kept_since", "note_read", "noted_reads", "once"]

T = TypeVar("T")


class _Block(threading.local):
    """What the current thread's outermost block keeps (a server analyses in threads)."""

    def __init__(self) -> None:
        #: Answers kept while `files_read_once` is in effect (else None).
        self.kept: dict[Hashable, object] | None = None
        #: Files noted as read since the outermost block started.
        self.read: set[Path] = set()
        #: When the outermost block started (ns since the epoch).
        self.started = 0


_block = _Block()


@contextlib.contextmanager
def files_read_once() -> Iterator[None]:
    """Keep each answer of `once` until the outermost block ends."""
    outer = _block.kept
    if outer is None:
        _block.kept = {}
        _block.read = set()
        _block.started = time.time_ns()
    try:
        yield
    finally:
        _block.kept = outer


def once(key: Hashable, compute: Callable[[], T]) -> T:
    """Return `compute()`, computed once per `key` within `files_read_once`."""
    kept = _block.kept
    if kept is None:
        return compute()
    if key not in kept:
        kept[key] = compute()
    return cast(T, kept[key])


def note_read(path: Path) -> None:
    """Note that the run read `path` (kept until the next outermost block starts)."""
    _block.read.add(path)


def kept_since() -> int | None:
    """Return when the answers kept now may have been read (ns), if any are kept."""
    return _block.started if _block.kept is not None else None


def noted_reads() -> frozenset[Path]:
    """Return the files noted as read since the outermost block started."""
    return frozenset(_block.read)
