"""The per-file summary that every rule reads: what names, calls and assignments mean.

A `ModuleFacts` is computed from one file alone (so it can be cached by content hash and
computed in parallel); cross-file questions are answered by `project.Project`.
Expressions are summarised as `Value`s with names already resolved through imports and
scopes, so no rule ever looks at raw source text.
"""

from __future__ import annotations

import ast
import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..types import Span
from .branch_facts import Branch
from .statement_order import StatementReach
from .suppressions import Suppressions

if TYPE_CHECKING:
    from .function_table import FunctionTable, TableAnswers


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
    #: One of several values (`a if c else b`, `a or b`, a name bound more than once): `args`;
    #: `name` is "and" or "or" for those operations.
    ALTERNATIVES = "alternatives"
    #: `*base` in a call.
    STARRED = "starred"
    #: `args[0] <name> args[1]` for one comparison, e.g. name ">" or "==".
    COMPARE = "compare"
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

    def is_call_to(self, qualname: str) -> bool:
        """Return True for a call whose callee may be `qualname` (`super()`, `range(n)`)."""
        return self.kind is Kind.CALL and self.base is not None and qualname in self.base.qualnames

    def alternatives(self) -> tuple[Value, ...]:
        """Return the possible values: the options of an ALTERNATIVES value, else itself."""
        if self.kind is Kind.ALTERNATIVES:
            return tuple(option for arg in self.args for option in arg.alternatives())
        return (self,)

    def placeless_options(self) -> frozenset[Value]:
        """Return the possible values without the places they are read at: one expression
        read twice (a local variable's two readings) gives the same options."""
        return frozenset(replace(option, span=None) for option in self.alternatives())

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


def self_attribute(value: Value) -> str | None:
    """Return `name` if `value` is `self.<name>`, else None."""
    if value.kind is Kind.ATTRIBUTE and value.base is not None and value.base.kind is Kind.SELF:
        return value.name
    return None


def string_literal(value: Value) -> str | None:
    """Return the text of a string literal (None for anything else, or one cut short)."""
    if value.kind is not Kind.CONSTANT:
        return None
    try:
        text = ast.literal_eval(value.name)
    except (ValueError, SyntaxError):
        return None
    return text if isinstance(text, str) else None


#: What `conf.get("key")` gives when the dict lacks the key and no default is passed.
_NONE = Value(Kind.CONSTANT, name="None")


def looked_up(value: Value) -> tuple[Value, str, Value | None] | None:
    """Return (container, key, value if the key is missing) for `c.get("key"[, default])` and
    `c["key"]` (None if missing raises), with a literal string key; None for anything else."""
    if value.kind is Kind.CALL and value.base is not None and value.base.kind is Kind.ATTRIBUTE:
        if value.base.name != "get" or value.base.base is None or not 1 <= len(value.args) <= 2:
            return None
        container, key = value.base.base, string_literal(value.args[0])
        default = value.args[1] if len(value.args) == 2 else _NONE
    elif value.kind is Kind.SUBSCRIPT and value.base is not None and len(value.args) == 1:
        container, key, default = value.base, string_literal(value.args[0]), None
    else:
        return None
    return None if key is None else (container, key, default)


def number_literal(value: Value) -> int | float | None:
    """Return the int or float a literal `value` is (None for anything else)."""
    key = literal_key(value)
    if key is None:
        return None
    try:
        number = ast.literal_eval(key)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return number if isinstance(number, int | float) and not isinstance(number, bool) else None


def parts(value: Value) -> Iterator[Value]:
    """Yield `value` and every value inside it (base, arguments, keywords), each once."""
    # Each shared sub-value is looked at once: summaries share them, and following every
    # path through them is exponential.
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        stack.extend(item.args)
        stack.extend(v for _, v in item.keywords)
        if item.base is not None:
            stack.append(item.base)


def mentions_param(value: Value, param: str) -> bool:
    """Return True if `value` reads parameter `param` anywhere in it."""
    return any(item.kind is Kind.PARAM and item.name == param for item in parts(value))


#: Summaries keep the first 40 characters of a literal's repr (a dotted path, whole).
_LITERAL_CUT = 40


@dataclass(frozen=True)
class ItemStore:
    """`target[key] = value` inside a function body, where `target` is a plain variable name
    or `self.<attr>` (then "self.<attr>"), or "" for any other holder (`cfg["loader"]`)."""

    target: str
    #: The key if it is a string literal, else None.
    key: str | None
    value: Value
    span: Span
    #: The last line of the innermost block holding the store (None: the function's whole
    #: body). Code below the store up to that line runs only after the store has run.
    block_end: int | None = None


@dataclass(frozen=True)
class AttributeStore:
    """`base.attribute = value` where `base` is not `self` itself (e.g. `info.dataset.rng`)."""

    base: Value
    attribute: str
    value: Value
    span: Span
    #: The last line of the innermost block holding the store (None: the function's whole
    #: body). Code below the store up to that line runs only after the store has run.
    block_end: int | None = None


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
    #: Parameters annotated with a (dotted) name, and that name: `fabric: L.Fabric`.
    annotations: tuple[tuple[str, Value], ...] = ()
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
    #: Items read from an object held on `self` (`self.dataset[index]`), as the subscript:
    #: indexing a held Dataset runs its `__getitem__`.
    self_subscripts: tuple[Value, ...] = ()
    has_docstring: bool = False
    #: The body (after a docstring) is one `raise`: a call never returns.
    only_raises: bool = False
    #: The body raises at its top level, after any set-up: a call never returns either.
    always_raises: bool = False
    #: The function has a `**kwargs`-style parameter.
    has_var_keyword: bool = False
    #: The function has a `*args`-style parameter (in `params` right after the positional).
    has_var_positional: bool = False
    #: Calls that are whole expression statements (their value is discarded), by span.
    statement_calls: tuple[Span, ...] = ()
    #: For each of those calls, the code that runs only after it (`StatementReach`).
    statement_reaches: tuple[StatementReach, ...] = ()
    #: Qualified names this code uses as values without calling them (passed, stored,
    #: returned): "pkg.mod.f" for module-level names, "f.<locals>.g" for nested functions.
    references: tuple[str, ...] = ()
    #: How often each local variable of this function is read here (name, count).
    local_reads: tuple[tuple[str, int], ...] = ()
    #: How many of those reads only take the variable's length (`len(name)`) (name, count).
    sized_reads: tuple[tuple[str, int], ...] = ()
    #: Local variables whose attributes this function's own code reads or calls
    #: (`loader.__iter__()`), which `local_reads` does not count.
    attribute_bases: tuple[str, ...] = ()
    #: Loop variables of this function's own code and what they take elements of:
    #: `for x in xs` gives (x, xs); `for a, b in zip(xs, ys)` gives (a, xs) and (b, ys).
    loops: tuple[tuple[str, Value], ...] = ()
    #: Loop variables unpacked from each element of an iterable (`for prob, p in
    #: self.pipeline`): (name, the iterable); each takes a part of an element.
    loop_parts: tuple[tuple[str, Value], ...] = ()
    #: Names bound by unpacking a value that is not a tuple display (`a, b = make()`):
    #: (name, its position, how many names the target has, the value).
    unpacked: tuple[tuple[str, int, int, Value], ...] = ()
    #: Calls that run only under a condition (in the body of an `if`, a loop, a `match` or an
    #: `except` of this function's own code), by span.
    conditional_calls: tuple[Span, ...] = ()
    #: Those of them under `if` statements only (no loop, `match` or `except` around them).
    if_only_calls: tuple[Span, ...] = ()
    #: Calls in the body of a `try` whose handler catches any error (`except Exception:`).
    caught_calls: tuple[Span, ...] = ()
    #: Statements that make an instance of a class-like name, with the rest of their block
    #: (see `constructions`): what runs only if making it returns.
    constructions: tuple[tuple[Span, Span], ...] = ()
    #: For each of them, the code that does not run when it raises (see `raise_skips`).
    raise_skips: tuple[tuple[Span, tuple[Span, ...]], ...] = ()
    #: Stores to an attribute of `self` that run only under a condition, by span.
    conditional_stores: tuple[Span, ...] = ()
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
    #: Every `if` statement of this function's own code, whatever it tests: its body and
    #: its `else` (None if it has none; an `elif` is an `if` of its own, inside the `else`).
    choices: tuple[tuple[Span, Span | None], ...] = ()
    #: Parameters whose default is a short literal, with that literal (see `literal_key`):
    #: what a call that does not pass the parameter gives it.
    literal_defaults: tuple[tuple[str, str], ...] = ()
    #: Parameters whose default is a name or a dotted name (`klass=DataLoader`), with its
    #: value, resolved where the function is defined.
    named_defaults: tuple[tuple[str, Value], ...] = ()

    def default_of(self, param: str) -> str | None:
        """Return the literal default of parameter `param` (None if it has none)."""
        for name, key in self.literal_defaults:
            if name == param:
                return key
        return None

    def named_default(self, param: str) -> Value | None:
        """Return the (dotted) name or call parameter `param` defaults to (None if it has
        none)."""
        for name, value in self.named_defaults:
            if name == param:
                return value
        return None

    def reads_of(self, name: str) -> int:
        """Return how often local variable `name` is read in this function's own code."""
        for local, count in self.local_reads:
            if local == name:
                return count
        return 0

    def sized_reads_of(self, name: str) -> int:
        """Return how many reads of local variable `name` only take its length (`len(name)`)."""
        for local, count in self.sized_reads:
            if local == name:
                return count
        return 0

    @property
    def is_method(self) -> bool:
        """Return True for a function defined directly in a class body."""
        return self.class_qualname is not None

    @property
    def shown(self) -> str:
        """Return the name a message gives it: `WorkerInitObj.__call__` for the `__call__`
        that calling an object runs, else its own name."""
        return self.qualname if self.name == "__call__" else self.name


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


def _no_functions() -> FunctionTable:
    # Imported here: the table holds this module's summaries, so it imports this module.
    from .function_table import FunctionTable

    return FunctionTable((), {}, None)


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
    table: FunctionTable = field(default_factory=_no_functions, compare=False, repr=False)
    #: Modules imported with `from module import *`.
    star_imports: tuple[str, ...] = ()
    #: Every name bound at module level (imports, defs, classes, assignments).
    module_names: frozenset[str] = field(default_factory=frozenset)
    #: SHA-256 of the file's bytes.
    digest: str = ""
    #: Parsed only with Python 3.6's grammar (`x.cuda(async=True)`): libcst cannot rewrite it.
    legacy_grammar: bool = False

    def answers_alike(self, earlier: ModuleFacts, answers: TableAnswers) -> bool:
        """Return True if this summary of a module (maybe of other bytes) answers every
        question a run asked of the `earlier` one the same (`answers`: what its text
        answered): an equal summary, and see `FunctionTable.answers_alike`."""
        return replace(self, digest=earlier.digest) == earlier and self.table.answers_alike(
            earlier.table, answers
        )

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

    def spells(self, names: frozenset[str]) -> bool:
        """Return True if the module's text spells one of `names` anywhere."""
        return self.table.spells(names)

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


def spelled(value: Value) -> set[str]:
    """Return the last names an expression spells (`a.b.C` -> {"C"}), as written or resolved."""
    if value.kind is Kind.NAME:
        return {qualname.rpartition(".")[2] for qualname in value.qualnames}
    if value.kind is Kind.ATTRIBUTE:
        return {value.name}
    if value.kind is Kind.SUBSCRIPT and value.base is not None:
        return spelled(value.base)
    if value.kind is Kind.ALTERNATIVES:
        return {name for option in value.args for name in spelled(option)}
    return set()
