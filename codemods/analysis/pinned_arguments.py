"""Constructions as the DataLoader that loads their instance sees them.

`dataset = Clips(mode=mode)` may be built before the code branches on `mode`; a loader
under `elif mode == "test":` then loads a dataset built with `mode="test"`, as long as the
function never rebinds `mode`. The constructions of the loader's own function are read
with such a parameter passed as the one literal the `if` statements enclosing the loader
pin it to.
"""

from __future__ import annotations

from dataclasses import replace

from ..types import Span
from .branch_feasibility import constrained
from .candidates import DatasetsOf
from .facts import Kind, Value
from .refs import FunctionRef


def pinned_at(datasets: DatasetsOf, span: Span, where: FunctionRef) -> DatasetsOf:
    """Return `datasets` with the constructions written in `where` as the code at `span`
    sees them."""
    made = tuple(
        (ref, (_pinned(call, where, span), site)) if site == where else (ref, (call, site))
        for ref, (call, site) in datasets.made
    )
    return datasets if made == datasets.made else replace(datasets, made=made)


def _pinned(call: Value, where: FunctionRef, span: Span) -> Value:
    rebound = {assignment.target for assignment in where.function.assignments}

    def pin(argument: Value) -> Value:
        if (
            argument.kind is not Kind.PARAM
            or argument.name in rebound
            or argument.name not in where.function.params
        ):
            return argument
        known = constrained(where, argument.name, span)
        if known is None or known.one_of is None or len(known.one_of) != 1:
            return argument
        (key,) = known.one_of
        if key.lstrip("-").isdigit():
            return Value(Kind.INT, argument.span, number=int(key))
        return Value(Kind.CONSTANT, argument.span, name=key)

    args = tuple(pin(argument) for argument in call.args)
    keywords = tuple((name, pin(argument)) for name, argument in call.keywords)
    if args == call.args and keywords == call.keywords:
        return call
    return replace(call, args=args, keywords=keywords)
