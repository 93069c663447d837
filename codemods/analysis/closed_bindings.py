"""What an `__init__` stores for the instances one construction makes, without the
bindings its arguments rule out.

`__init__` often picks what it holds by its arguments: `if train: ... if mode == "pad":
step = PadAtRandom(size) elif mode == "crop": step = Crop(size)` and then
`self.pipeline = Chain([step, ...])`. An instance built with `mode="crop"` never holds the
random padding: a binding (of the stored value itself, or of a local name it reads) in a
branch that the construction's literal arguments (or the defaults it leaves) close never
runs. An argument that is not known keeps every branch open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial

from ..types import Span
from .branch_facts import within
from .branch_feasibility import ConstructionArguments, decided_by_param, ruled_out_by_call
from .candidates import Construction
from .facts import Assignment, Kind, Value
from .project import Project
from .refs import ClassRef, FunctionRef


def stored_per_construction(
    project: Project,
    ref: ClassRef,
    sites: tuple[Construction, ...],
    where: FunctionRef,
    assignment: Assignment,
) -> Iterator[tuple[Value, tuple[Construction, ...]]]:
    """Yield what `assignment` (in method `where` of `ref` or a base) stores, each with the
    constructions in `sites` it stores it for; nothing for the constructions whose
    arguments rule the assignment out.

    Only an `__init__` run when `ref` is built takes its arguments from `sites`; a store in
    any other method is yielded unchanged for every construction.
    """
    if where.function.name != "__init__" or not _branches_on_params(where):
        yield assignment.value, sites
        return
    arguments = ConstructionArguments(project, project.mro(ref), sites)
    by_value: dict[Value, list[Construction]] = {}
    for index, site in enumerate(sites):
        if arguments.rules_out(where, assignment.span, index):
            continue
        value = open_value(assignment.value, partial(_skipped, arguments, where, index))
        by_value.setdefault(value, []).append(site)
    for value, kept in by_value.items():
        yield value, tuple(kept)


def stored_when_made(
    project: Project,
    ref: ClassRef,
    made_by: tuple[Construction, ...] | None,
    where: FunctionRef,
    assignment: Assignment,
) -> Iterator[tuple[Value, tuple[Construction, ...] | None]]:
    """`stored_per_construction`, where the constructions may be unknown (None: every
    branch stays open)."""
    if made_by is None:
        yield assignment.value, None
    else:
        yield from stored_per_construction(project, ref, made_by, where, assignment)


def _skipped(arguments: ConstructionArguments, where: FunctionRef, index: int, span: Span) -> bool:
    """Return True if code of `where` at `span` never runs for construction `index`."""
    return within(span, where.function.span) and arguments.rules_out(where, span, index)


def _branches_on_params(where: FunctionRef) -> bool:
    return any(decided_by_param(where, branch.subject) for branch in where.function.branches)


def open_value(value: Value, closed: Callable[[Span], bool]) -> Value:
    """Return `value` without the options of its local names whose binding is at a span
    `closed` says never runs (`step` of `Chain([step])`, bound in `if mode == ...`)."""
    # Summaries share sub-values (a name bound in a chain of assignments holds the earlier
    # values as alternatives): each object is opened once, or the walk grows exponentially.
    opened: dict[int, Value] = {}

    def open_(value: Value) -> Value:
        done = opened.get(id(value))
        if done is not None:
            return done
        base = None if value.base is None else open_(value.base)
        args = tuple(open_(arg) for arg in value.args)
        keywords = tuple((key, open_(arg)) for key, arg in value.keywords)
        if value.kind is Kind.ALTERNATIVES:
            args = tuple(arg for arg in args if arg.span is None or not closed(arg.span))
        if (
            base is value.base
            and len(args) == len(value.args)
            and all(new is old for new, old in zip(args, value.args, strict=True))
            and all(new is old for (_, new), (_, old) in zip(keywords, value.keywords, strict=True))
        ):
            result = value
        else:
            result = replace(value, base=base, args=args, keywords=keywords)
        opened[id(value)] = result
        return result

    return open_(value)


def returned_by(
    project: Project, call: Value, where: FunctionRef
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield what each project function `call` (in `where`) calls may return there, with the
    function: a plain function only what the branches open to the call's arguments return,
    a method whatever it returns."""
    if call.base is None:
        return
    for target in project.targets(call.base, where.module):
        if isinstance(target, FunctionRef):
            plain = project.class_of_function(target) is None
            returned = returned_for_call(call, where, target) if plain else target.function.returns
            yield from ((value, target) for value in returned)


def returned_for_call(call: Value, where: FunctionRef, factory: FunctionRef) -> tuple[Value, ...]:
    """Return what plain function `factory` may return when `call` (in `where`) calls it:
    the returns and local bindings in branches the call's arguments close are left out
    (`get_transform(train=False)` never returns the steps its `if train:` binds)."""
    function = factory.function

    def closed(span: Span) -> bool:
        return within(span, function.span) and ruled_out_by_call(call, where, factory, span)

    if not any(branch.subject in function.params for branch in function.branches):
        return function.returns
    return tuple(
        open_value(returned, closed)
        for returned in function.returns
        if returned.span is None or not closed(returned.span)
    )
