"""Callables handed to a function that calls them: `self.load(name, self.transform)` with
`def load(self, name, transform): ... transform(image)`, or a list of them handed to a
function that calls each one (`transform(data, self.ops)` with `for op in ops: data =
op(data)`). What the function calls through its parameter is what the call passes, written
where the call is."""

from __future__ import annotations

from .facts import Kind, Value
from .refs import FunctionRef


def called_arguments(function: FunctionRef, call: Value) -> list[Value]:
    """Return what `function` calls through its parameters, written where `call` passes
    them: the argument itself (`transform(image)`), a method of it (`search.pick(hits)`
    is `self.search.pick` for a call passing `self.search`), or each element of it
    (`op(data)` for `op` in a parameter `ops` is `self.ops[...]` for a call passing
    `self.ops`)."""
    facts = function.function
    called: dict[str, set[str | None]] = {}
    looped = _looped_params(function)
    elements: set[str] = set()
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
        elif callee is not None and callee.kind is Kind.UNKNOWN and callee.name in looped:
            elements.add(looped[callee.name])
    if not called and not elements:
        return []
    # A method called through its object passes no `self`.
    offset = 1 if facts.class_qualname is not None and facts.params[:1] == ("self",) else 0
    bound = bind_call(function, call, offset)
    found = [
        arg if method is None else Value(Kind.ATTRIBUTE, arg.span, name=method, base=arg)
        for param, arg in bound.items()
        for method in sorted(called.get(param, ()), key=lambda name: name or "")
    ]
    found.extend(
        Value(Kind.SUBSCRIPT, arg.span, base=arg)
        for param, arg in bound.items()
        if param in elements and arg.kind is not Kind.SUBSCRIPT
    )
    return found


def _looped_params(function: FunctionRef) -> dict[str, str]:
    """Map the loop variables of `function` that take the elements of one of its parameters
    (`for op in ops`, also after `if ops is None: ops = []`) to that parameter."""
    params = set(function.function.params)
    found: dict[str, str] = {}
    for name, iterable in function.function.loops:
        names = {
            option.name
            for option in iterable.alternatives()
            if option.kind is Kind.PARAM and option.name in params
        }
        if len(names) == 1 and name not in params:
            found[name] = names.pop()
    return found


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
