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
#: A maximal run of the bytes of `_WORD`.
_IDENTIFIER = re.compile(rb"[A-Za-z0-9_]+")
#: Searches of the whole text after which every identifier is indexed at once: one pass that
#: indexes them all costs about as much as this many searches for one name.
_SEARCHES_BEFORE_INDEXING = 32
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
        #: Searched identifiers -> the files that contain them at all (even inside a word).
        self._containing: dict[bytes, list[int]] = {}
        #: How many names were searched for in the text itself.
        self._searches = 0
        #: Every identifier of the text -> the files that spell it, once searches add up.
        self._identifiers: dict[bytes, list[int]] | None = None

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
        if self._identifiers is None and self._searches >= _SEARCHES_BEFORE_INDEXING:
            self._identifiers = self._index_identifiers()
        if self._identifiers is not None and _IDENTIFIER.fullmatch(word):
            result = frozenset(self._identifiers.get(word, ()))
            self._words[name] = result
            return result
        self._searches += 1
        # A name that contains one searched before (`MyDataset`, after `Dataset`) can only
        # be in the files that contain that one: search those alone.
        known = [files for part, files in self._containing.items() if part in word]
        if known:
            within = min(known, key=len)
            spans = [(self._starts[index], self._starts[index + 1]) for index in within]
        else:
            spans = [(0, len(self._buffer))]
        found: set[int] = set()
        containing: set[int] = set()
        for start, end in spans:
            self._search(word, start, end, found, containing)
        result = frozenset(found)
        self._words[name] = result
        self._containing[word] = sorted(containing)
        return result

    def _index_identifiers(self) -> dict[bytes, list[int]]:
        """Return every identifier (a maximal run of word bytes) with the files spelling it:
        a whole-word occurrence of a name is exactly such a run."""
        found: dict[bytes, list[int]] = {}
        buffer, starts = self._buffer, self._starts
        for index in range(self._count):
            for word in set(_IDENTIFIER.findall(buffer, starts[index], starts[index + 1])):
                files = found.get(word)
                if files is None:
                    found[word] = [index]
                else:
                    files.append(index)
        return found

    def _search(
        self, word: bytes, start: int, end: int, found: set[int], containing: set[int]
    ) -> None:
        """Add the files between `start` and `end` that contain `word`, and those that contain
        it as a whole word."""
        buffer, starts = self._buffer, self._starts
        position = buffer.find(word, start, end)
        while position >= 0:
            index = bisect_right(starts, position) - 1
            containing.add(index)
            after = position + len(word)
            before = buffer[position - 1] if position else 0
            if before not in _WORD and buffer[after] not in _WORD:
                found.add(index)
                position = buffer.find(word, starts[index + 1], end)
            else:
                position = buffer.find(word, position + 1, end)
