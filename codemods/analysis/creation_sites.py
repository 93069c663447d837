"""Where an object a Dataset holds is made: the line that builds it, and what callers pass.

An RNG object or an augmentation pipeline is often built in a training script and handed to
the Dataset through a variable, or through the parameters of a loader-building function. A
finding belongs where the object is made, so these helpers follow a value back to the call
that builds it and a parameter back to the arguments its callers pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from ..types import Span
from .attribute_classes import attribute_constructions
from .candidates import MAX_CALL_DEPTH
from .facts import FunctionFacts, Kind, ModuleFacts, Value
from .project import Project
from .refs import CallSite, ClassRef, FunctionRef
from .stored import splat_entries


def created_at(call: Value, where: FunctionRef) -> tuple[FunctionRef, Span]:
    """Return the function and span where `call` is written: `where` or a function enclosing it.

    A call reached through a local variable (`rng = default_rng(0)`, later
    `Dataset(rng=rng)`) carries the span of the name; the call itself is the one that differs
    from it only in its span.
    """
    assert call.span is not None
    if any(made.span == call.span for made in where.function.calls):
        return where, call.span
    qualname = where.qualname
    while True:
        for made in where.function.calls:
            if made.span is not None and replace(made, span=call.span) == call:
                return where, made.span
        # A closure reads the variables of the functions it is defined in.
        qualname = qualname.rpartition(".<locals>.")[0]
        enclosing = where.module.function(qualname) if qualname else None
        if enclosing is None:
            return where, call.span
        where = FunctionRef.of(where.module, enclosing)


def arguments_for(
    project: Project,
    callee: FunctionRef | ClassRef,
    function: FunctionFacts,
    param: str,
    sites: Sequence[CallSite] | None = None,
) -> Iterator[tuple[CallSite, Value]]:
    """Yield each call of `callee` (whose code is `function`) with what it passes as `param`.

    `sites`: the calls known to make the instance in question; None: every call of
    `callee` in the project.
    """
    if param not in function.params:
        return
    offset = 1 if function.class_qualname is not None else 0
    index = function.params.index(param) - offset
    for site in _sites(project, callee) if sites is None else sites:
        args = site.call.args
        passed = site.call.keyword(param)
        if (
            passed is None
            and 0 <= index < min(len(args), function.positional_count - offset)
            and all(arg.kind is not Kind.STARRED for arg in args[: index + 1])
        ):
            passed = args[index]
        if passed is None:
            # `config["random_state"] = RandomState(seed)`, then `Flip(**config)`.
            entries = splat_entries(site.call, site.function, param)
            passed = Value(Kind.ALTERNATIVES, args=tuple(entries)) if entries else None
        if passed is not None and passed.kind is not Kind.STARRED:
            yield site, passed


def _sites(project: Project, callee: FunctionRef | ClassRef) -> list[CallSite]:
    """Return the calls of `callee`: those spelling it, and for a class, those made through
    an attribute holding it (`self.dataset(...)` after `self.dataset = Tiles`)."""
    sites = project.callers(callee)
    if isinstance(callee, ClassRef):
        made = attribute_constructions(project, callee)
        sites = [*sites, *(CallSite(function, call) for call, function in made)]
    return sites


def forwarded(
    project: Project, value: Value, where: FunctionRef, depth: int = 0
) -> Iterator[tuple[FunctionRef, Value]]:
    """Yield what the callers of `where` pass for each of its parameters `value` may be.

    `make_loader(rng)` building `Dataset(rng=rng)`: the object is the one its callers pass
    (and, a few levels up, what their callers pass).
    """
    if depth > MAX_CALL_DEPTH:
        return
    for option in value.alternatives():
        if option.kind is not Kind.PARAM:
            continue
        for site, passed in arguments_for(project, where, where.function, option.name):
            yield site.function, passed
            yield from forwarded(project, passed, site.function, depth + 1)


def method_of_made_object(
    project: Project, callee: Value, module: ModuleFacts
) -> Iterator[tuple[ClassRef, FunctionRef]]:
    """Yield the class and the method that `Builder(...).build` (a method called on an
    object of a project class made right there, in `module`) runs."""
    if (
        callee.kind is not Kind.ATTRIBUTE
        or callee.base is None
        or callee.base.kind is not Kind.CALL
    ):
        return
    made = callee.base.base
    for target in project.targets(made, module) if made is not None else ():
        if not isinstance(target, ClassRef):
            continue
        found = project.find_method(target, callee.name)
        if found is not None:
            yield target, found[1]
