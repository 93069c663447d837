"""The per-file summary that every rule reads: what names, calls and assignments mean.

A `ModuleFacts` is computed from one file alone (so it can be cached by content hash and
computed in parallel); cross-file questions are answered by `project.Project`.
Expressions are summarised as `Value`s with names already resolved through imports and
scopes, so no rule ever looks at raw source text.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from ..types import Span


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
    #: Anything else, or a name that cannot be resolved (`name` holds it if it was a name).
    UNKNOWN = "unknown"


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

    def __reduce__(self) -> tuple[type[Value], tuple[object, ...]]:
        # Positional state: summaries are cached and sent between processes by the
        # hundred thousand, and the default (a dict per object) is three times larger.
        return (
            Value,
            (
                self.kind,
                self.span,
                self.qualnames,
                self.name,
                self.base,
                self.args,
                self.keywords,
                self.number,
            ),
        )

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
    #: The function has a `**kwargs`-style parameter.
    has_var_keyword: bool = False
    #: Calls that are whole expression statements (their value is discarded), by span.
    statement_calls: tuple[Span, ...] = ()
    #: Qualified names this code uses as values without calling them (passed, stored,
    #: returned): "pkg.mod.f" for module-level names, "f.<locals>.g" for nested functions.
    references: tuple[str, ...] = ()
    #: How often each local variable of this function is read here (name, count).
    local_reads: tuple[tuple[str, int], ...] = ()
    #: Names declared `nonlocal` in this function.
    nonlocals: tuple[str, ...] = ()
    #: Names bound by an enclosing function (or comprehension) that this function's
    #: parameter defaults and decorators read: they are evaluated where it is defined.
    definition_names: tuple[str, ...] = ()

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

    def method(self, name: str) -> str | None:
        """Return the qualname of method `name` defined in this class body, if any."""
        for method_name, qualname in self.methods:
            if method_name == name:
                return qualname
        return None


@dataclass(frozen=True)
class ModuleFacts:
    """Everything the rules need to know about one file."""

    path: Path
    #: The dotted module name this file is imported as (relative to its project root).
    module: str
    #: Module-level bindings from imports and assignments: name -> possible values.
    bindings: tuple[tuple[str, tuple[Value, ...]], ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    functions: tuple[FunctionFacts, ...] = ()
    #: Modules imported with `from module import *`.
    star_imports: tuple[str, ...] = ()
    #: Line -> suppressed codes (an empty tuple means a bare noqa comment).
    noqa: tuple[tuple[int, tuple[str, ...]], ...] = ()
    #: Every name bound at module level (imports, defs, classes, assignments).
    module_names: frozenset[str] = field(default_factory=frozenset)
    #: SHA-256 of the file's bytes.
    digest: str = ""

    def binding(self, name: str) -> tuple[Value, ...]:
        """Return the module-level values bound to `name` (empty if none)."""
        for bound, values in self.bindings:
            if bound == name:
                return values
        return ()

    def function(self, qualname: str) -> FunctionFacts | None:
        """Return the last function with this qualname."""
        found = None
        for function in self.functions:
            if function.qualname == qualname:
                found = function
        return found

    def class_(self, qualname: str) -> ClassFacts | None:
        """Return the last class with this qualname."""
        found = None
        for cls in self.classes:
            if cls.qualname == qualname:
                found = cls
        return found
