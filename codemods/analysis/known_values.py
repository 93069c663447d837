"""What is known of a value a call passes: the literals it may be, or may not be, or its truth."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .facts import FunctionFacts, Kind, Value, literal_key


@dataclass(frozen=True)
class Known:
    """What is known of a value at one construction."""

    #: The literals it may be (repr keys); None if not known to be one of a few literals.
    one_of: frozenset[str] | None = None
    #: Literals it is known to differ from (an `elif` / `else` of `if mode == "train":`).
    excluded: frozenset[str] = frozenset()
    #: Its truth, when only that is known (`if flag:`).
    truth: bool | None = None


def literal_known(value: Value) -> Known | None:
    key = literal_key(value)
    return None if key is None else Known(frozenset({key}))


def element_known(known: Known, index: Value) -> Known | None:
    """Return what is known of `sequence[index]` when `known` is what is known of `sequence`:
    each tuple or list literal it may be, read at a literal int `index`."""
    if known.one_of is None or index.kind is not Kind.INT or index.number is None:
        return None
    keys: set[str] = set()
    for key in known.one_of:
        try:
            sequence = ast.literal_eval(key)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        if not isinstance(sequence, tuple | list) or not -len(sequence) <= index.number < len(
            sequence
        ):
            return None
        keys.add(repr(sequence[index.number]))
    return Known(frozenset(keys))


def union_of(options: list[Known | None]) -> Known | None:
    """Return what is known of a value that may be any of `options`."""
    if len(options) == 1:
        return options[0]
    keys: set[str] = set()
    for option in options:
        if option is None or option.one_of is None:
            return None
        keys |= option.one_of
    return Known(frozenset(keys))


def passed_argument(
    call: Value, init: FunctionFacts, param: str, bound: int = 1, *, positional: bool = True
) -> Value | Known | None:
    """Return the argument `call` passes as `param` of `init`: the value written, what is
    known of it when it is a literal or left to its literal default, or None if unknown.

    `positional=False`: `call` reaches `init` through a `**kwargs` handed on whole, so only
    its keywords do."""
    passed = call.keyword(param)
    index = init.params.index(param) - bound if param in init.params and positional else -1
    if passed is None and 0 <= index < len(call.args):
        if any(arg.kind is Kind.STARRED for arg in call.args[: index + 1]):
            return None  # the position may be filled from a `*args`
        passed = call.args[index]
    if passed is None:
        if any(arg.kind is Kind.STARRED for arg in call.args) or any(
            key is None for key, _ in call.keywords
        ):
            return None  # it may come in a `*args` / `**kwargs`
        # Not passed: the parameter takes its default, as known as a literal written here.
        default = init.default_of(param)
        return None if default is None else Known(frozenset({default}))
    key = literal_key(passed)
    if key is None and passed.kind is Kind.ALTERNATIVES and passed.args:
        keys = [literal_key(option) for option in passed.alternatives()]
        if None not in keys:
            return Known(frozenset(k for k in keys if k is not None))
    return passed if key is None else Known(frozenset({key}))
