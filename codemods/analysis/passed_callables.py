"""Callables handed to a function that calls them: `self.load(name, self.transform)` with
`def load(self, name, transform): ... transform(image)`. What the function calls through its
parameter is what the call passes, written where the call is."""

from __future__ import annotations

from .facts import Kind, Value
from .refs import FunctionRef


def called_arguments(function: FunctionRef, call: Value) -> list[Value]:
    """Return what `function` calls through its parameters, written where `call` passes
    them: the argument itself (`transform(image)`), or a method of it (`search.pick(hits)`
    is `self.search.pick` for a call passing `self.search`)."""
    facts = function.function
    called: dict[str, set[str | None]] = {}
    for inner in facts.calls:
        callee = inner.base
        if callee is not None and callee.kind is Kind.PARAM:
            called.setdefault(callee.name, set()).add(None)
        elif (
            callee is not None
            and callee.kind is Kind.ATTRIBUTE
            and callee.base is not None
            and callee.base.kind is Kind.PARAM
        ):
            called.setdefault(callee.base.name, set()).add(callee.name)
    if not called:
        return []
    # A method called through its object passes no `self`.
    offset = 1 if facts.class_qualname is not None and facts.params[:1] == ("self",) else 0
    bound = bind_call(function, call, offset)
    return [
        arg if method is None else Value(Kind.ATTRIBUTE, arg.span, name=method, base=arg)
        for param, arg in bound.items()
        for method in sorted(called.get(param, ()), key=lambda name: name or "")
    ]


def bind_call(function: FunctionRef, call: Value, offset: int = 0) -> dict[str, Value]:
    """Map `function`'s parameters to the arguments `call` passes (up to a `*spread`).

    `offset` skips leading parameters the call does not pass (`self` of a bound method).
    """
    params = function.function.params
    bound: dict[str, Value] = {}
    for index, arg in enumerate(call.args):
        if arg.kind is Kind.STARRED:
            break
        position = index + offset
        if position < function.function.positional_count:
            bound[params[position]] = arg
    for name, arg in call.keywords:
        if name is not None and name in params:
            bound[name] = arg
    return bound
