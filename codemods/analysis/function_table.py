"""A module's functions, summarised when first asked for (see `FunctionTable`)."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from ..lines import source_lines
from .facts import ClassFacts, FunctionFacts
from .suppressions import Suppressions, noqa_comments


class FunctionSource(Protocol):
    """Summarises the functions of one module that were left for later."""

    def summarise(self, qualname: str) -> tuple[list[FunctionFacts], list[ClassFacts]]:
        """Summarise the top-level function or method `qualname`: the functions and the
        classes defined in it."""
        ...

    @property
    def text(self) -> str:
        """Return the module's text."""
        ...


#: Re-creates a FunctionSource from the file (after a summary was cached or pickled).
Reopen = Callable[[], FunctionSource]


@dataclass(frozen=True)
class TableAnswers:
    """What the text of one module answered a run, through its `FunctionTable`.

    With the module's summary, these are all a run learns of a file: another version of the
    file whose summary is equal and that answers these the same gives every finding the same
    (see `FunctionTable.answers_alike`).
    """

    #: Identifiers asked for -> the top-level functions whose text spells one of them.
    spelling: dict[frozenset[str], frozenset[str]]
    #: Identifiers asked for -> whether the module's text spells one of them anywhere.
    spells: dict[frozenset[str], bool]
    #: (pattern, what every match contains) -> each function not yet summarised that was
    #: searched, and whether the pattern matched its text.
    matched: dict[tuple[re.Pattern[str], tuple[str, ...]], dict[str, bool]]
    #: The noqa comments, if they were read.
    noqa: Suppressions | None
    #: The top-level functions summarised by the end of the run.
    summarised: frozenset[str]


class FunctionTable:
    """A module's functions: summarised when first asked for.

    Most functions of a file never matter to a finding, and summarising a body costs
    several times what parsing it does. Module-level code is summarised at once; each
    top-level function and method (with what is nested in it) when a question asks for
    it, by name or because its text spells a name the question is about. The answers do
    not depend on what was asked before: functions come in source order.
    """

    def __init__(
        self,
        done: Iterable[FunctionFacts],
        pending: dict[str, tuple[int, int]],
        source: FunctionSource | None,
        spans: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        self._by_name: dict[str, FunctionFacts] = {}
        self._done: list[FunctionFacts] = []
        #: Classes defined inside functions (`def factory(): class D(...)`), by qualname.
        self._classes: dict[str, ClassFacts] = {}
        self._add(done)
        #: Top-level qualname -> its first and last line, for what is not summarised yet.
        self._pending = dict(pending)
        #: The same for every top-level function and method, summarised or not.
        self._spans = dict(pending) if spans is None else dict(spans)
        self._source = source
        self._reopen: Reopen | None = None
        #: (first character, end, qualname) of each top-level function's text.
        self._ranges: list[tuple[int, int, str]] | None = None
        self._range_of: dict[str, tuple[int, int]] = {}
        self._starts: list[int] = []
        self._reach: list[int] = []
        self._sorted: tuple[FunctionFacts, ...] | None = None
        #: The top-level function each function of `_sorted` lies in (None: module level).
        self._sorted_groups: tuple[str | None, ...] = ()
        self._noqa: Suppressions | None = None
        #: The text questions answered since this table was made (see `TableAnswers`).
        self._spelling_asked: dict[frozenset[str], frozenset[str]] = {}
        self._spells_asked: dict[frozenset[str], bool] = {}
        self._matched: dict[tuple[re.Pattern[str], tuple[str, ...]], dict[str, bool]] = {}
        self._noqa_asked = False

    def __getstate__(self) -> dict[str, object]:
        # What is pending is summarised again from the file if it is ever asked for.
        return {
            "done": self._done,
            "pending": self._pending,
            "spans": self._spans,
            "noqa": self._noqa,
            "classes": self._classes,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        FunctionTable.__init__(self, state["done"], state["pending"], None, state["spans"])
        self._noqa = state["noqa"]
        self._classes = state["classes"]

    def release(self, text: str) -> None:
        """Summarise every function now and let the parsed tree go, keeping only `text`.

        A summary lives as long as the run; the syntax tree it was made from is many times
        larger than the file (a gigabyte for a large repository), and no question reads it
        once every function is summarised.
        """
        self.all()
        self._source = _Text(text)

    def attach(self, reopen: Reopen) -> None:
        """Say how to read the file again, when its summary came from a cache or a process."""
        if self._source is None:
            self._reopen = reopen

    def get(self, qualname: str) -> FunctionFacts | None:
        """Return the last function defined with this qualname."""
        top = _top_level(qualname)
        if top in self._pending:
            self._summarise(top)
        return self._by_name.get(qualname)

    def nested_class(self, qualname: str) -> ClassFacts | None:
        """Return the class `qualname` defined inside a function (the last definition)."""
        top = _top_level(qualname)
        if top in self._pending:
            self._summarise(top)
        return self._classes.get(qualname)

    def within(self, qualname: str) -> tuple[FunctionFacts, ...]:
        """Return the functions defined inside function `qualname` (nested defs, lambdas)."""
        self.get(qualname)
        prefix = (qualname + ".<locals>.", qualname + ".<lambda")
        return tuple(f for f in self._ordered() if f.qualname.startswith(prefix))

    def all(self) -> tuple[FunctionFacts, ...]:
        """Return every function, in source order."""
        for qualname in list(self._pending):
            self._summarise(qualname)
        return self._ordered()

    def spelling(self, names: frozenset[str]) -> tuple[FunctionFacts, ...]:
        """Return the functions, in source order, leaving out only the top-level functions
        and methods (with what they contain) whose text spells none of `names`: they
        cannot be about them. Module-level code is always kept."""
        spelled = self._spelling_asked.get(names)
        if spelled is None:
            spelled = self._spelling_asked[names] = frozenset(self._spelling(names))
        for qualname in [qualname for qualname in spelled if qualname in self._pending]:
            self._summarise(qualname)
        ordered = self._ordered()
        return tuple(
            function
            for function, group in zip(ordered, self._sorted_groups, strict=True)
            if group is None or group in spelled
        )

    def _spelling(self, names: frozenset[str]) -> set[str]:
        """Return the top-level functions whose text spells one of `names` as a whole word
        (word boundaries as the text index draws them: any non-ASCII letter is one)."""
        text = self._open().text
        ranges = self._text_ranges(text)
        starts, reach = self._starts, self._reach
        found: set[str] = set()
        for name in names:
            for position in _word_positions(text, name):
                after = position + len(name)
                # A function defined twice spans both definitions and may enclose others:
                # every range that holds the word spells it.
                index = bisect_right(starts, position) - 1
                while index >= 0 and reach[index] >= after:
                    _, end, group = ranges[index]
                    if end >= after:
                        found.add(group)
                    index -= 1
        return found

    def spells(self, names: frozenset[str]) -> bool:
        """Return True if the module's text, anywhere, spells one of `names` as a whole word."""
        text = self._open().text
        found = any(next(_word_positions(text, name), None) is not None for name in names)
        self._spells_asked[names] = found
        return found

    def _text_ranges(self, text: str) -> list[tuple[int, int, str]]:
        """Return (first character, end, qualname) of every top-level function, by start."""
        if self._ranges is None:
            offsets = [0]
            for line in source_lines(text):
                offsets.append(offsets[-1] + len(line))
            last = len(offsets) - 1
            self._ranges = sorted(
                (offsets[min(first - 1, last)], offsets[min(end, last)], qualname)
                for qualname, (first, end) in self._spans.items()
            )
            self._range_of = {qualname: (start, end) for start, end, qualname in self._ranges}
            self._starts = [start for start, _, _ in self._ranges]
            #: The furthest end of the ranges up to each one.
            self._reach = list(itertools.accumulate((end for _, end, _ in self._ranges), max))
        return self._ranges

    def matching(
        self, pattern: re.Pattern[str], containing: tuple[str, ...] = ()
    ) -> tuple[FunctionFacts, ...]:
        """Return the functions, in source order, leaving out only functions not yet
        summarised in whose text `pattern` does not match. Every match contains one of
        `containing`, if given (a cheap test first)."""
        if self._pending:
            searched = self._matched.setdefault((pattern, containing), {})
            for qualname in list(self._pending):
                searched[qualname] = self._matches(qualname, pattern, containing)
                if searched[qualname]:
                    self._summarise(qualname)
        return self._ordered()

    def _matches(
        self, qualname: str, pattern: re.Pattern[str], containing: tuple[str, ...]
    ) -> bool:
        """Return True if `pattern` matches in the text of top-level function `qualname`."""
        text = self._open().text
        self._text_ranges(text)
        start, end = self._range_of[qualname]
        segment = text[start:end]
        if containing and not any(part in segment for part in containing):
            return False
        return pattern.search(segment) is not None

    def noqa(self) -> Suppressions:
        """Return the module's `# noqa` comments (read from its text when first asked)."""
        if self._noqa is None:
            self._noqa = noqa_comments(self._open().text)
        self._noqa_asked = True
        return self._noqa

    def answers(self) -> TableAnswers:
        """Return the text questions this table answered, with its answers."""
        return TableAnswers(
            dict(self._spelling_asked),
            dict(self._spells_asked),
            {key: dict(searched) for key, searched in self._matched.items()},
            self._noqa if self._noqa_asked else None,
            self.summarised_groups(),
        )

    def answers_alike(self, earlier: FunctionTable, answers: TableAnswers) -> bool:
        """Return True if this table, with every function summarised, answers each question
        a run asked of the `earlier` table (`answers`) the same: the same functions, with
        equal summaries, and the same answers to the text questions.

        `earlier` is the summary of another version of the module, as stored by the run's
        cache; if it holds fewer functions than the run summarised, the answer is False.
        """
        self.all()
        summarised = answers.summarised
        if self._spans != earlier._spans or not summarised <= earlier.summarised_groups():
            return False
        if _within(self._ordered(), self._spans, summarised) != _within(
            earlier._ordered(), earlier._spans, summarised
        ):
            return False
        if _nested_classes(self._classes, self._spans, summarised) != _nested_classes(
            earlier._classes, earlier._spans, summarised
        ):
            return False
        text = self._open().text
        return (
            all(self._spelling(names) == found for names, found in answers.spelling.items())
            and all(
                any(next(_word_positions(text, name), None) is not None for name in names) == found
                for names, found in answers.spells.items()
            )
            and all(
                self._matches(qualname, pattern, containing) == found
                for (pattern, containing), searched in answers.matched.items()
                for qualname, found in searched.items()
            )
            and (answers.noqa is None or noqa_comments(text) == answers.noqa)
        )

    def summarised_groups(self) -> frozenset[str]:
        """Return the top-level functions and methods summarised so far."""
        return frozenset(self._spans.keys() - self._pending.keys())

    def _open(self) -> FunctionSource:
        if self._source is None:
            if self._reopen is None:
                raise RuntimeError("the file of this summary cannot be read again")
            self._source = self._reopen()
        return self._source

    def _summarise(self, qualname: str) -> None:
        del self._pending[qualname]
        functions, classes = self._open().summarise(qualname)
        self._add(functions)
        for cls in classes:
            if "<locals>" in cls.qualname:
                self._classes[cls.qualname] = cls

    def _add(self, functions: Iterable[FunctionFacts]) -> None:
        for function in functions:
            self._done.append(function)
            previous = self._by_name.get(function.qualname)
            if previous is None or _position(previous) <= _position(function):
                self._by_name[function.qualname] = function
        self._sorted = None

    def _ordered(self) -> tuple[FunctionFacts, ...]:
        if self._sorted is None:
            self._sorted = tuple(sorted(self._done, key=_position))
            spans = self._spans
            self._sorted_groups = tuple(
                group if (group := _top_level(function.qualname)) in spans else None
                for function in self._sorted
            )
        return self._sorted


class _Text:
    """The text of a module whose functions are all summarised.

    Text that is not all ASCII is kept as UTF-8 and decoded when read: Python stores it
    with up to four bytes a character, hundreds of megabytes for a large project, kept
    for the few searches that read it.
    """

    def __init__(self, text: str) -> None:
        self._stored: str | bytes = (
            text if text.isascii() else text.encode("utf-8", "surrogatepass")
        )

    @property
    def text(self) -> str:
        """Return the module's text."""
        stored = self._stored
        return stored if isinstance(stored, str) else stored.decode("utf-8", "surrogatepass")

    def summarise(self, qualname: str) -> tuple[list[FunctionFacts], list[ClassFacts]]:
        raise RuntimeError(f"{qualname} was summarised with the rest of its module")


#: Characters that continue an identifier, as the text index counts them.
_WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _top_level(qualname: str) -> str:
    """Return the top-level function or method a (nested) function's qualname lies in."""
    for marker in (".<locals>.", ".<lambda"):
        qualname = qualname.partition(marker)[0]
    return qualname


def _within(
    functions: Iterable[FunctionFacts], spans: dict[str, tuple[int, int]], groups: frozenset[str]
) -> list[FunctionFacts]:
    """Return the functions of module-level code and of the top-level functions `groups`."""
    return [
        function
        for function in functions
        if (group := _top_level(function.qualname)) not in spans or group in groups
    ]


def _nested_classes(
    classes: dict[str, ClassFacts], spans: dict[str, tuple[int, int]], groups: frozenset[str]
) -> dict[str, ClassFacts]:
    """Return the classes defined in module-level code and in the top-level functions
    `groups`."""
    return {
        name: cls
        for name, cls in classes.items()
        if (group := _top_level(name)) not in spans or group in groups
    }


def _position(function: FunctionFacts) -> tuple[int, int, str]:
    return (function.span.line, function.span.column, function.qualname)


def _word_positions(text: str, name: str) -> Iterator[int]:
    """Yield where `text` spells `name` as a whole word (word boundaries as the text index
    draws them: any non-ASCII letter is one)."""
    position = text.find(name)
    while position >= 0:
        after = position + len(name)
        if (position == 0 or text[position - 1] not in _WORD_CHARACTERS) and (
            after >= len(text) or text[after] not in _WORD_CHARACTERS
        ):
            yield position
        position = text.find(name, position + 1)
