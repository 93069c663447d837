"""The per-file summary that every rule reads: what names, calls and assignments mean.

A `ModuleFacts` is computed from one file alone (so it can be cached by content hash and
computed in parallel); cross-file questions are answered by `project.Project`.
Expressions are summarised as `Value`s with names already resolved through imports and
scopes, so no rule ever looks at raw source text.
"""

from __future__ import annotations

import enum
import itertools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..lines import source_lines
from ..types import Span
from .branch_facts import Branch
from .statement_order import StatementReach
from .suppressions import Suppressions, noqa_comments


class Kind(enum.Enum):
    """What an expression is, after name resolution."""

    #: A module, class, function or module-level variable: `qualnames` holds the candidates.
    NAME = "name"
    #: A function parameter that is not `self`: `name`.
    PARAM = "param"
    #: The first parameter of a method.
    SELF = "self"
    #: `base.name`, where `base` did not resolve to a module-level name.
    ATTRIBUTE = "attribute"
    #: `base(*args, **keywords)`.
    CALL = "call"
    #: `base[args[0]]`.
    SUBSCRIPT = "subscript"
    #: `args[0] <name> args[1]`, e.g. name "+" or "%".
    BINOP = "binop"
    #: An int literal: `number`.
    INT = "int"
    #: Another literal (str, float, bool, None, bytes).
    CONSTANT = "constant"
    #: A lambda or a function defined inside a function: `name` is its qualname.
    FUNCTION = "function"
    #: A dict literal: `keywords` maps literal string keys (None for `**splat` or other keys).
    DICT = "dict"
    #: A tuple, list or set display: `args`.
    SEQUENCE = "sequence"
    #: One of several values (`a if c else b`, `a or b`, a name bound more than once): `args`.
    ALTERNATIVES = "alternatives"
    #: `*base` in a call.
    STARRED = "starred"
    #: Anything else, or an unresolved name (`name`; `qualnames`: a function storing it globally).
    UNKNOWN = "unknown"
    #: A name met again while its own value is summarised (`items = items + [x]`, a list
    #: appended to in a loop): it adds nothing beyond the other values it is bound to.
    RECURSIVE = "recursive"


@dataclass(frozen=True, slots=True)
class Value:
    """A summarised expression. Only the fields that its `kind` documents are set."""

    kind: Kind
    span: Span | None = None
    qualnames: tuple[str, ...] = ()
    name: str = ""
    base: Value | None = None
    args: tuple[Value, ...] = ()
    keywords: tuple[tuple[str | None, Value], ...] = ()
    number: int | None = None
    #: The hash, computed when first asked for: candidate sets and call sites are kept in
    #: dicts keyed by values, and hashing a value hashes every sub-expression again.
    _hash: int | None = field(default=None, init=False, compare=False, repr=False)

    def __hash__(self) -> int:
        known = self._hash
        if known is None:
            known = hash(self._state())
            object.__setattr__(self, "_hash", known)
        return known

    def __reduce__(self) -> tuple[type[Value], tuple[object, ...]]:
        # Positional state: summaries are cached and sent between processes by the
        # hundred thousand, and the default (a dict per object) is three times larger.
        return (Value, self._state())

    def _state(self) -> tuple[object, ...]:
        """Return the fields, in the order the constructor takes them."""
        return (
            self.kind,
            self.span,
            self.qualnames,
            self.name,
            self.base,
            self.args,
            self.keywords,
            self.number,
        )

    @property
    def is_none(self) -> bool:
        """Return True for a literal `None`."""
        return self.kind is Kind.CONSTANT and self.name == "None"

    def alternatives(self) -> tuple[Value, ...]:
        """Return the possible values: the options of an ALTERNATIVES value, else itself."""
        if self.kind is Kind.ALTERNATIVES:
            return tuple(option for arg in self.args for option in arg.alternatives())
        return (self,)

    def keyword(self, name: str) -> Value | None:
        """Return the value passed as keyword `name` to this CALL, if it is spelled out."""
        for key, value in self.keywords:
            if key == name:
                return value
        return None


UNKNOWN = Value(Kind.UNKNOWN)


@dataclass(frozen=True)
class Assignment:
    """`target = value` inside a function or class body.

    `target` is "self.<attr>" for an attribute of the first parameter, or the plain name.
    """

    target: str
    value: Value
    span: Span


def literal_key(value: Value) -> str | None:
    """Return how a literal is written in `Branch.literals` (None if `value` is not one)."""
    if value.kind is Kind.INT and value.number is not None:
        return repr(value.number)
    if value.kind is Kind.CONSTANT and value.name and len(value.name) < _LITERAL_CUT:
        return value.name  # the literal's repr; a longer one may have been cut short
    return None


#: Summaries keep the first 40 characters of a literal's repr.
_LITERAL_CUT = 40


@dataclass(frozen=True)
class ItemStore:
    """`target[key] = value` inside a function body, where `target` is a plain variable name."""

    target: str
    #: The key if it is a string literal, else None.
    key: str | None
    value: Value
    span: Span


@dataclass(frozen=True)
class AttributeStore:
    """`base.attribute = value` where `base` is not `self` itself (e.g. `info.dataset.rng`)."""

    base: Value
    attribute: str
    value: Value
    span: Span


@dataclass(frozen=True)
class TypeTest:
    """`if isinstance(subject, classes):` (or `if not ...`), and its two bodies.

    `call` is the test's call as written; whether its callee is the builtin `isinstance` is
    resolved by the project, like every other name.
    """

    call: Value
    negated: bool
    body: Span
    #: The `else` body, or the statements after an `if` whose body always leaves.
    orelse: Span | None = None


@dataclass(frozen=True)
class FunctionFacts:
    """A function, method, lambda, or a module's top-level code (qualname "<module>")."""

    #: Dotted path inside the module: "f", "Cls.method", "f.<locals>.g", "f.<lambda:12:8>".
    qualname: str
    name: str
    #: The `def` line up to the end of the body (decorators excluded), or the lambda.
    span: Span
    #: All parameter names, in order (positional first, then `*args`, keyword-only, `**kw`).
    params: tuple[str, ...]
    #: How many of `params` can be passed by position (before `*args`).
    positional_count: int = 0
    #: Qualname of the class whose body defines this method directly.
    class_qualname: str | None = None
    #: Defined inside another function (a closure or a lambda): not picklable by reference.
    nested: bool = False
    is_lambda: bool = False
    decorators: tuple[Value, ...] = ()
    #: Every call made by this function's own code (not by functions nested in it).
    calls: tuple[Value, ...] = ()
    assignments: tuple[Assignment, ...] = ()
    #: `name[key] = value` stores (e.g. entries added to a kwargs dict after it is built).
    item_stores: tuple[ItemStore, ...] = ()
    #: Stores to attributes of anything but `self` itself (`self.a.b = v` included).
    attribute_stores: tuple[AttributeStore, ...] = ()
    returns: tuple[Value, ...] = ()
    #: Names read here that are bound by an enclosing function (captured variables).
    free_names: tuple[str, ...] = ()
    #: `self.<attr>` names read anywhere in the body.
    self_reads: tuple[str, ...] = ()
    has_docstring: bool = False
    #: The body (after a docstring) is one `raise`: a call never returns.
    only_raises: bool = False
    #: The function has a `**kwargs`-style parameter.
    has_var_keyword: bool = False
    #: Calls that are whole expression statements (their value is discarded), by span.
    statement_calls: tuple[Span, ...] = ()
    #: For each of those calls, the code that runs only after it (`StatementReach`).
    statement_reaches: tuple[StatementReach, ...] = ()
    #: Qualified names this code uses as values without calling them (passed, stored,
    #: returned): "pkg.mod.f" for module-level names, "f.<locals>.g" for nested functions.
    references: tuple[str, ...] = ()
    #: How often each local variable of this function is read here (name, count).
    local_reads: tuple[tuple[str, int], ...] = ()
    #: Loop variables of this function's own code and what they take elements of:
    #: `for x in xs` gives (x, xs); `for a, b in zip(xs, ys)` gives (a, xs) and (b, ys).
    loops: tuple[tuple[str, Value], ...] = ()
    #: Names bound by unpacking a value that is not a tuple display (`a, b = make()`):
    #: (name, its position, how many names the target has, the value).
    unpacked: tuple[tuple[str, int, int, Value], ...] = ()
    #: Calls that run only under a condition (in the body of an `if`, a loop, a `match` or an
    #: `except` of this function's own code), by span.
    conditional_calls: tuple[Span, ...] = ()
    #: Names declared `nonlocal` in this function.
    nonlocals: tuple[str, ...] = ()
    #: Names bound by an enclosing function (or comprehension) that this function's
    #: parameter defaults and decorators read: they are evaluated where it is defined.
    definition_names: tuple[str, ...] = ()
    #: `if` statements testing `self.<attribute>` or a parameter (`Branch`), for code that
    #: only runs on some instances or for some arguments.
    branches: tuple[Branch, ...] = ()
    #: `if isinstance(...)` tests, for code that runs only for some types of a value.
    type_tests: tuple[TypeTest, ...] = ()
    #: Parameters whose default is a short literal, with that literal (see `literal_key`):
    #: what a call that does not pass the parameter gives it.
    literal_defaults: tuple[tuple[str, str], ...] = ()

    def default_of(self, param: str) -> str | None:
        """Return the literal default of parameter `param` (None if it has none)."""
        for name, key in self.literal_defaults:
            if name == param:
                return key
        return None

    def reads_of(self, name: str) -> int:
        """Return how often local variable `name` is read in this function's own code."""
        for local, count in self.local_reads:
            if local == name:
                return count
        return 0

    @property
    def is_method(self) -> bool:
        """Return True for a function defined directly in a class body."""
        return self.class_qualname is not None


@dataclass(frozen=True)
class ClassFacts:
    """A class definition."""

    qualname: str
    name: str
    span: Span
    bases: tuple[Value, ...]
    #: Method name -> qualname of the FunctionFacts (the last definition wins, as in Python).
    methods: tuple[tuple[str, str], ...] = ()
    #: Assignments in the class body (class attributes).
    attributes: tuple[Assignment, ...] = ()
    #: The class declares `__slots__` (instances may have no `__dict__`).
    has_slots: bool = False
    #: Its decorators (`@DATASETS.register_module()`, `@register("name")`).
    decorators: tuple[Value, ...] = ()

    def method(self, name: str) -> str | None:
        """Return the qualname of method `name` defined in this class body, if any."""
        for method_name, qualname in self.methods:
            if method_name == name:
                return qualname
        return None


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
        self._starts: list[int] = []
        self._reach: list[int] = []
        self._sorted: tuple[FunctionFacts, ...] | None = None
        #: The top-level function each function of `_sorted` lies in (None: module level).
        self._sorted_groups: tuple[str | None, ...] = ()
        self._noqa: Suppressions | None = None

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
        spelled = self._spelling(names)
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
            position = text.find(name)
            while position >= 0:
                after = position + len(name)
                if (position == 0 or text[position - 1] not in _WORD_CHARACTERS) and (
                    after >= len(text) or text[after] not in _WORD_CHARACTERS
                ):
                    # A function defined twice spans both definitions and may enclose
                    # others: every range that holds the word spells it.
                    index = bisect_right(starts, position) - 1
                    while index >= 0 and reach[index] >= after:
                        _, end, group = ranges[index]
                        if end >= after:
                            found.add(group)
                        index -= 1
                position = text.find(name, position + 1)
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
            text = self._open().text
            ranges = {qualname: (start, end) for start, end, qualname in self._text_ranges(text)}
            for qualname in list(self._pending):
                start, end = ranges[qualname]
                segment = text[start:end]
                if containing and not any(part in segment for part in containing):
                    continue
                if pattern.search(segment):
                    self._summarise(qualname)
        return self._ordered()

    def noqa(self) -> Suppressions:
        """Return the module's `# noqa` comments (read from its text when first asked)."""
        if self._noqa is None:
            self._noqa = noqa_comments(self._open().text)
        return self._noqa

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


def _position(function: FunctionFacts) -> tuple[int, int, str]:
    return (function.span.line, function.span.column, function.qualname)


@dataclass(frozen=True)
class ModuleFacts:
    """Everything the rules need to know about one file."""

    path: Path
    #: The dotted module name this file is imported as (relative to its project root).
    module: str
    #: Module-level bindings from imports and assignments: name -> possible values.
    bindings: tuple[tuple[str, tuple[Value, ...]], ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    #: The module's functions (module-level code as "<module>"), summarised on demand.
    table: FunctionTable = field(
        default_factory=lambda: FunctionTable((), {}, None), compare=False, repr=False
    )
    #: Modules imported with `from module import *`.
    star_imports: tuple[str, ...] = ()
    #: Every name bound at module level (imports, defs, classes, assignments).
    module_names: frozenset[str] = field(default_factory=frozenset)
    #: SHA-256 of the file's bytes.
    digest: str = ""

    @property
    def noqa(self) -> Suppressions:
        """Return (line, suppressed codes) pairs; no codes means a bare `# noqa`."""
        return self.table.noqa()

    @property
    def functions(self) -> tuple[FunctionFacts, ...]:
        """Return every function of the module, in source order (summarising them all)."""
        return self.table.all()

    def functions_within(self, qualname: str) -> tuple[FunctionFacts, ...]:
        """Return the functions nested in function `qualname` (defs and lambdas)."""
        return self.table.within(qualname)

    def functions_spelling(self, names: frozenset[str]) -> tuple[FunctionFacts, ...]:
        """Return the functions whose code may use one of the identifiers `names`."""
        return self.table.spelling(names)

    def functions_matching(self, pattern: re.Pattern[str]) -> tuple[FunctionFacts, ...]:
        """Return the functions in whose code `pattern` may match."""
        return self.table.matching(pattern)

    def binding(self, name: str) -> tuple[Value, ...]:
        """Return the module-level values bound to `name` (empty if none)."""
        for bound, values in self.bindings:
            if bound == name:
                return values
        return ()

    def function(self, qualname: str) -> FunctionFacts | None:
        """Return the last function with this qualname."""
        return self.table.get(qualname)

    def class_(self, qualname: str) -> ClassFacts | None:
        """Return the last class with this qualname."""
        if ".<locals>." in qualname:
            return self.table.nested_class(qualname)
        found = None
        for cls in self.classes:
            if cls.qualname == qualname:
                found = cls
        return found
