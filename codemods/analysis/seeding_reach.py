"""Whether a process's torch seeding reaches the distributed run that builds a loader.

`main()` seeds torch, then starts the ranks: by a launcher it hands the rank's function to
(`mp.spawn(train, ...)`), or by calling it: as a single-process run (`train(0, ...)`), or
as one of the ranks a launcher such as torchrun starts, each running the seeding itself.
"""

from __future__ import annotations

from ..types import Span
from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef
from .runs import callers_up, spawn_sites
from .seed_classification import SeedScope, bind_arguments, is_rank_name


def seeding_carries_to(
    project: Project, seeding: FunctionRef, loader: FunctionRef, at: Span | None = None
) -> bool:
    """Return False if the function that seeds starts the loader's run only elsewhere.

    `main()` seeds, then hands `train` to a launcher (`mp.spawn(train, ...)`): the spawned
    ranks start with their own RNG state; its direct call `train(0, ...)`, passing rank 0,
    is a single-process run. Then `main`'s seeding does not reach a distributed `train`.
    Checked for the loader's function and the functions that call it, a few levels up
    (`mp.spawn(main_worker, ...)`, where `main_worker` makes the Trainer that builds it).
    """
    for function in callers_up(project, loader):
        if function == seeding or not _hands_over(project, seeding, function):
            continue
        if _starts(project, function, seeding):
            # `setup` launches `main`, which seeds and passes `setup` on only as a value
            # (to record its signature): the seeding is part of `setup`'s run.
            continue
        if _rerun_when_spawned(project, seeding, at, function):
            continue
        direct = [site for site in project.callers(function) if site.function == seeding]
        if all(_passes_rank_zero(function, site.call, seeding) for site in direct):
            return False
    return True


def _rerun_when_spawned(
    project: Project, seeding: FunctionRef, at: Span | None, function: FunctionRef
) -> bool:
    """Return True if the seeding at `at` is top-level code of the script that spawns
    `function`, outside any `if` (`if __name__ == "__main__":` included): each spawned rank
    imports the script again and runs it before `function`."""
    return (
        at is not None
        and seeding.function.qualname == "<module>"
        and at not in seeding.function.conditional_calls
        and any(site.function == seeding for site in spawn_sites(project).get(function, ()))
    )


def _hands_over(project: Project, caller: FunctionRef, function: FunctionRef) -> bool:
    """Return True if `caller` passes `function` on as a value (to a launcher)."""
    return any(
        target == function
        for name in caller.function.references
        for target in project.resolve(name, caller.module)
    )


def _starts(project: Project, function: FunctionRef, seeding: FunctionRef) -> bool:
    """Return True if `function` runs `seeding` itself: calls it, or hands it on."""
    return _hands_over(project, function, seeding) or any(
        site.function == function for site in project.callers(seeding)
    )


def _passes_rank_zero(function: FunctionRef, call: Value, caller: FunctionRef) -> bool:
    """Return True if `call` passes 0 as the rank: to a parameter named so, or to the first,
    which a launcher fills with the process index (`mp.spawn(train, ...)`, `train(0, 1)`)."""
    bound = bind_arguments(function, call, SeedScope(caller))
    first = function.function.params[:1]
    return any(
        (is_rank_name(param) or param in first) and _is_zero(value, call, caller)
        for param, (value, _) in bound.items()
    )


def _is_zero(value: Value, call: Value, caller: FunctionRef) -> bool:
    """Return True for `0`, or for `args.gpu` that `caller` sets to 0, and to nothing else,
    before `call` (`args.gpu = 0`, then `main_worker(args.gpu, args)`)."""
    if value.kind is Kind.INT:
        return value.number == 0
    options = value.alternatives()
    name = options[0].name
    if call.span is None or not all(
        option.kind is Kind.ATTRIBUTE and option.base is not None and option.name == name
        for option in options
    ):
        return False
    objects = frozenset().union(
        *(option.base.placeless_options() for option in options if option.base is not None)
    )
    stores = [
        store
        for store in caller.function.attribute_stores
        if store.attribute == name and store.base.placeless_options() == objects
    ]
    return bool(stores) and all(
        store.value.kind is Kind.INT
        and store.value.number == 0
        and store.span.line < call.span.line
        for store in stores
    )
