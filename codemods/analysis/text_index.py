"""Which files spell an identifier: answered from the bytes of all files at once.

A project-wide question ("every file that mentions `DataLoader`") is asked about thousands
of files, and many such questions are asked (one per function whose callers are wanted).
The files are laid end to end in one buffer, so each identifier is found by `bytes.find`
over the buffer (C speed, no per-file Python loop), and each answer is cached by
identifier.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

#: Bytes that continue an identifier (as in the `\w` of a bytes regular expression).
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
#: Separates files in the buffer: never part of an identifier, so no match spans two files.
_SEPARATOR = b"\n\0\n"


class TextIndex:
    """The bytes of many files, searchable for whole identifiers and patterns."""

    def __init__(self, texts: Sequence[bytes]) -> None:
        self._count = len(texts)
        starts = []
        position = 0
        for text in texts:
            starts.append(position)
            position += len(text) + len(_SEPARATOR)
        #: Where each file starts in the buffer, plus the end of the buffer.
        self._starts = [*starts, position]
        self._buffer = _SEPARATOR.join(texts) + _SEPARATOR
        self._words: dict[str, frozenset[int]] = {}
        self._lowered: bytes | None = None

    def spelling(self, names: Iterable[str]) -> frozenset[int]:
        """Return the indices of the files that contain one of `names` as a whole word."""
        found: set[int] = set()
        for name in names:
            found |= self._spelling(name)
        return frozenset(found)

    def matching(self, pattern: re.Pattern[bytes], containing: bytes) -> frozenset[int]:
        """Return the indices of the files in which `pattern` matches.

        Every match of `pattern` contains `containing` (in any case): only the files that
        contain it are searched with the pattern.
        """
        if self._lowered is None:
            self._lowered = self._buffer.lower()
        lowered, starts = self._lowered, self._starts
        needle = containing.lower()
        found: set[int] = set()
        position = lowered.find(needle)
        while position >= 0:
            index = bisect_right(starts, position) - 1
            if pattern.search(self._buffer, starts[index], starts[index + 1]) is not None:
                found.add(index)
            position = lowered.find(needle, starts[index + 1])
        return frozenset(index for index in found if index < self._count)

    def _spelling(self, name: str) -> frozenset[int]:
        cached = self._words.get(name)
        if cached is not None:
            return cached
        word = name.encode()
        buffer, starts = self._buffer, self._starts
        found: set[int] = set()
        position = buffer.find(word)
        while position >= 0:
            end = position + len(word)
            before = buffer[position - 1] if position else 0
            if before not in _WORD and buffer[end] not in _WORD:
                index = bisect_right(starts, position) - 1
                found.add(index)
                position = buffer.find(word, starts[index + 1])
            else:
                position = buffer.find(word, position + 1)
        result = frozenset(found)
        self._words[name] = result
        return result
