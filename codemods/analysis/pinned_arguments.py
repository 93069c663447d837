"""Constructions as the code that uses their instance sees them.

`dataset = Clips(mode=mode)` may be built before the code branches on `mode`; a loader
under `elif mode == "test":` then loads a dataset built with `mode="test"`, as long as the
function never rebinds `mode`. The constructions of the loader's own function are read
with such a parameter passed as the one literal the `if` statements enclosing the loader
pin it to.

Likewise an object a dataset builds in its `__init__` from what it was given
(`self.transform = Augment(train=self.train)`) is built, for the datasets a loader loads,
with the literal their constructions give (`Poses(train=False)`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from ..types import Span
from .branch_feasibility import _attribute_values, constrained, constructed_with
from .candidates import Construction, DatasetsOf
from .facts import Kind, Value
from .known_values import Known
from .project import Project
from .refs import ClassRef, FunctionRef


def pinned_at(datasets: DatasetsOf, span: Span, where: FunctionRef) -> DatasetsOf:
    """Return `datasets` with the constructions written in `where` as the code at `span`
    sees them."""
    made = tuple(
        (ref, (_pinned(call, where, span), site)) if site == where else (ref, (call, site))
        for ref, (call, site) in datasets.made
    )
    return datasets if made == datasets.made else replace(datasets, made=made)


def _pinned(call: Value, where: FunctionRef, span: Span) -> Value:
    def pin(argument: Value) -> Value:
        if argument.kind is not Kind.PARAM or not _fixed_param(where, argument.name):
            return argument
        known = constrained(where, argument.name, span)
        return _literal(argument, None if known is None else [known])

    return _with_arguments(call, pin)


def seen_from_holder(
    project: Project,
    holder: ClassRef,
    inner: tuple[Construction, ...] | None,
    outer: tuple[Construction, ...] | None,
) -> tuple[Construction, ...] | None:
    """Return the constructions `inner` of an object that instances of `holder` hold, with
    the arguments an `__init__` of `holder` passes from its parameters or attributes read
    as the one literal every construction in `outer` (of `holder`) gives them."""
    if inner is None or outer is None:
        return inner
    order = project.mro(holder)
    seen: list[Construction] = []
    for call, where in inner:
        if where.function.name != "__init__" or project.class_of_function(where) not in order:
            seen.append((call, where))
            continue
        pin = partial(_given_by_holder, project, holder, outer, where)
        seen.append((_with_arguments(call, pin), where))
    return tuple(seen)


def _given_by_holder(
    project: Project,
    holder: ClassRef,
    outer: tuple[Construction, ...],
    where: FunctionRef,
    argument: Value,
) -> Value:
    """Return `argument` (passed in `__init__` `where` of `holder`) as the literal each
    construction in `outer` makes it, if they agree on one."""
    knowns: Sequence[Known | None] | None = None
    if argument.kind is Kind.PARAM and _fixed_param(where, argument.name):
        knowns = [
            constructed_with(project, holder, outer, index, where, argument.name)
            for index in range(len(outer))
        ]
    elif (
        argument.kind is Kind.ATTRIBUTE
        and argument.base is not None
        and argument.base.kind is Kind.SELF
    ):
        knowns = _attribute_values(project, holder, f"self.{argument.name}", outer)
    return _literal(argument, knowns)


def _fixed_param(where: FunctionRef, name: str) -> bool:
    """Return True if `name` is a parameter of `where` that it never assigns to."""
    function = where.function
    return name in function.params and not any(
        assignment.target == name for assignment in function.assignments
    )


def _literal(argument: Value, knowns: Sequence[Known | None] | None) -> Value:
    """Return the one literal all of `knowns` say `argument` is, else `argument`."""
    keys: set[str] = set()
    for known in knowns or [None]:
        if known is None or known.one_of is None or len(known.one_of) != 1:
            return argument
        keys |= known.one_of
    if len(keys) != 1:
        return argument
    (key,) = keys
    if key.lstrip("-").isdigit():
        return Value(Kind.INT, argument.span, number=int(key))
    return Value(Kind.CONSTANT, argument.span, name=key)


def _with_arguments(call: Value, pin: Callable[[Value], Value]) -> Value:
    def pin_within(argument: Value) -> Value:
        # The items of a list display passed on (`Compose([transform, ToTensor()])`) too.
        if argument.kind is Kind.SEQUENCE:
            items = tuple(pin_within(item) for item in argument.args)
            return argument if items == argument.args else replace(argument, args=items)
        return pin(argument)

    args = tuple(pin_within(argument) for argument in call.args)
    keywords = tuple((name, pin_within(argument)) for name, argument in call.keywords)
    if args == call.args and keywords == call.keywords:
        return call
    return replace(call, args=args, keywords=keywords)
