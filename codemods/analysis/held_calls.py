"""Objects per-item code calls that a dataset holds: `self.transform(x)`, each element of a
held list (`for t in self.transforms: x = t(x)`) or a held list's tuples (`for prob, p in
self.pipeline: x = p.perturb(x)`), and the callables a held `Compose` calls."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from . import held_datasets
from .called_objects import run_when_called
from .candidates import Construction, DatasetsOf
from .facts import Kind, Value
from .held_datasets import held_elements, held_parts
from .held_functions import held_functions
from .pinned_arguments import seen_from_holder
from .project import Project
from .refs import ClassRef, FunctionRef

if TYPE_CHECKING:
    from .per_item import Reached


#: A function a call runs: on which class's instance, as which held object, made by which
#: constructor calls, the modules its class was looked up in by name at run time, and the
#: modules the function itself (or the factory that made it) was so looked up in.
Callee = tuple[
    FunctionRef,
    ClassRef | None,
    tuple[str, ...] | None,
    tuple[Construction, ...] | None,
    tuple[str, ...],
    tuple[str, ...],
]


def held_called(
    project: Project,
    self_class: ClassRef,
    name: str,
    made_by: tuple[Construction, ...] | None,
    same: tuple[str, ...] | None,
) -> Iterator[Callee]:
    """Yield what calling `self.<name>(x)`, an object the dataset holds, runs per item."""
    held = held_datasets.held(project, self_class, name, sites=made_by)
    looked_up = looked_up_in(held)
    for ref in held.classes:
        built = seen_from_holder(project, self_class, held.made_by(ref), made_by)
        for hook in run_when_called(project, ref):
            yield hook, ref, extend_holder(same, name), built, looked_up, ()
    # ... or the callables a `Compose` it holds calls.
    yield from calls_of(project, held.contained, held)
    # ... or a function (a closure a factory returned) it holds.
    for held_function, picked_in in held_functions(project, self_class, name, made_by):
        yield held_function, None, None, None, (), picked_in


def loop_variable_called(
    project: Project, caller: Reached, name: str, method: str | None
) -> Iterator[Callee]:
    """Yield what calling loop variable `name` (or its `method`) runs: each element of the
    list held on `self` it takes (`for t in self.transforms`), or each object in the tuples
    it holds (`for prob, p in self.pipeline`)."""
    facts = caller.function.function
    for loops, held_in in ((facts.loops, held_elements), (facts.loop_parts, held_parts)):
        for loop_name, iterable in loops:
            if loop_name == name:
                yield from held_elements_called(project, caller, iterable, held_in, method)


def held_elements_called(
    project: Project,
    caller: Reached,
    iterable: Value,
    held_in: Callable[..., DatasetsOf] = held_elements,
    method: str | None = None,
) -> Iterator[Callee]:
    """Yield what calling each element of `iterable` (or its `method`) runs, for a list held
    on `self`."""
    if caller.self_class is None:
        return
    for option in iterable.alternatives():
        if (
            option.kind is Kind.ATTRIBUTE
            and option.base is not None
            and option.base.kind is Kind.SELF
        ):
            held = held_in(project, caller.self_class, option.name, caller.made_by)
            classes = (*held.classes, *held.contained)
            if method is None:
                yield from calls_of(project, classes, held)
                continue
            looked_up = looked_up_in(held)
            for ref in classes:
                found = project.find_method(ref, method)
                if found is not None:
                    yield found[1], ref, None, held.made_by(ref), looked_up, ()


def extend_holder(holder: tuple[str, ...] | None, attribute: str) -> tuple[str, ...] | None:
    return None if holder is None else (*holder, attribute)


def calls_of(project: Project, classes: Sequence[ClassRef], held: DatasetsOf) -> Iterator[Callee]:
    """Yield what calling each class's instances runs: objects in a list, not an attribute.

    `held` tells which constructor calls made them: what their `__init__` stored comes from
    those calls only (an object picked from a candidate set is made by the call that picks
    it, not by every construction of its class in the project).
    """
    looked_up = looked_up_in(held)
    for ref in classes:
        for function in run_when_called(project, ref):
            yield function, ref, None, held.made_by(ref), looked_up, ()


def looked_up_in(held: DatasetsOf) -> tuple[str, ...]:
    """Return the modules a held object's class is looked up in by name at run time."""
    return tuple(source.function for source in held.sources if source.kind == "module")
