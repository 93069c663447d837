"""Local dicts filled entry by entry: `pipelines = {}`, then `pipelines["train"] = ...`.

A local name's summary is the value it is bound to; these helpers find the name again from
that value, and the values the function stores into it by key.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from .facts import Assignment, FunctionFacts, Value


def assignments_of(function: FunctionFacts, values: Iterable[Value]) -> list[Assignment]:
    """Return the assignments in `function` that bind a local name to one of `values`.

    A local name's summary is the value it is bound to, with the span of the name where it
    is read; the assignment carries the span of the value itself.
    """
    return [
        assignment
        for assignment in function.assignments
        if assignment.value.span is not None
        and any(
            value.span is not None
            and replace(value, span=assignment.value.span) == assignment.value
            for value in values
        )
    ]


def stored_items(function: FunctionFacts, mapping: Value) -> list[Value]:
    """Return the values `function` stores into the local dict `mapping` by `name[key] = v`
    (`transforms = {}`, then `transforms["train"] = Compose(...)`).

    Only a local name's stores are all in `function`; a dict held on `self` is filled (and
    rewrapped, `self.sets[k] = Wrapped(self.sets[k])`) by other methods as well, and its
    entries are read under their keys elsewhere.
    """
    names = {
        assignment.target
        for assignment in assignments_of(function, (mapping,))
        if not assignment.target.startswith("self.")
    }
    return [store.value for store in function.item_stores if store.target in names]
