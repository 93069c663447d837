"""Which RNG objects are already reseeded in DataLoader workers, and which RNG objects reach
a dataset whose per-item code is not the project's (WS201).

An object is already reseeded when per-item code calls the reseed helper on it, or when
every `worker_init_fn` of the loaders that can start workers re-creates or reseeds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..types import Span
from . import catalog
from .facts import Kind, Value
from .loaders import LoaderCall
from .per_item import Reached, reachable
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef, VariableRef
from .rng_object_records import (
    CHAIN_WORKER_INIT,
    RESEED_WALKER,
    Creation,
    PerItemRngs,
    Place,
    RngObject,
)
from .rng_objects import RngIndex
from .worker_inits import worker_init

#: How many assignments, calls and containers the value flow from an RNG object to a
#: third-party dataset is followed through: enough for `Wrapper(Dataset(rng=make()))` built
#: by a factory function, few enough to stay fast on large repositories.
MAX_VALUE_FLOW_DEPTH = 4

ObjectKey = tuple[str, Span, str, Span]


@dataclass(frozen=True)
class WorkerInitReseeds:
    """What a project worker_init_fn re-creates or reseeds in the worker's dataset."""

    #: It is workerseed's walker, which reseeds every RNG object the dataset holds.
    walker: bool
    #: Attribute names it assigns or calls a seeding method on.
    names: frozenset[str]

    def covers(self, obj: RngObject) -> bool:
        if obj.place is Place.MODULE:
            return False
        return (self.walker and obj.place is Place.ATTRIBUTE) or obj.name in self.names


def covered_objects(
    index: RngIndex, dataset: ClassRef, per_item: PerItemRngs, loaders: list[LoaderCall]
) -> set[ObjectKey]:
    """Return the objects that per-item code, or every worker_init_fn of `loaders` that can
    start workers, already reseeds."""
    found: list[RngObject] = []
    for call in per_item.reseed_calls:
        if call.instance_owner is not None:
            if call.names:
                for name in call.names:
                    path = (*call.instance_owner, *name.split("."))
                    found.extend(index.objects_at_path(dataset, path))
            else:
                depth = len(call.instance_owner) + 1
                found.extend(
                    use.obj
                    for use in per_item.uses
                    if use.instance_path is not None
                    and len(use.instance_path) == depth
                    and use.instance_path[:-1] == call.instance_owner
                    and use.obj.place is Place.ATTRIBUTE
                )
        elif call.module_owner:
            module = call.reached.function.module
            for name in call.names:
                found.extend(index.objects_at_name(module, name))
    keys = {obj.key for obj in found}
    starting = [loader for loader in loaders if loader.may_start_workers()]
    if starting:
        covers = [worker_init_reseeds(index.project, loader, dataset) for loader in starting]
        for use in per_item.uses:
            if all(init.covers(use.obj) for init in covers):
                keys.add(use.obj.key)
    return keys


def worker_init_reseeds(
    project: Project, loader: LoaderCall, dataset: ClassRef
) -> WorkerInitReseeds:
    """Return what the loader's worker_init_fn re-creates or reseeds in `dataset`."""
    init = worker_init(loader)
    function = init.function
    if init.is_absent or function is None:
        return WorkerInitReseeds(False, frozenset())
    code = list(_reached_from(project, function))
    names: set[str] = set()
    walker = False
    for reached in list(code):
        facts = reached.function.function
        walker = walker or facts.name == RESEED_WALKER
        names.update(store.attribute for store in facts.attribute_stores)
        for call in facts.calls:
            base = call.base
            if base is None or base.kind is not Kind.ATTRIBUTE or base.base is None:
                continue
            if _seeded_attribute(call) is None and base.base.kind is not Kind.SELF:
                # `get_worker_info().dataset.reseed(...)`: a method of the dataset.
                found = project.find_method(dataset, base.name)
                if found is not None:
                    code.extend(
                        reachable(project, [Reached(found[1], dataset, (found[1].qualname,))])
                    )
    for reached in code:
        facts = reached.function.function
        for assignment in facts.assignments:
            if assignment.target.startswith("self."):
                names.add(assignment.target[len("self.") :])
        for call in facts.calls:
            seeded = _seeded_attribute(call)
            if seeded is not None:
                names.add(seeded)
    return WorkerInitReseeds(walker, frozenset(names))


def reseeds_something(index: RngIndex, function: FunctionRef) -> bool:
    """Return True if a project worker_init_fn re-creates or reseeds some object's RNG."""
    for reached in _reached_from(index.project, function):
        facts = reached.function.function
        for store in facts.attribute_stores:
            if index.constructors(store.value, reached.function, reached.self_class):
                return True
        if any(_seeded_attribute(call) is not None for call in facts.calls):
            return True
    return False


def _reached_from(project: Project, function: FunctionRef) -> tuple[Reached, ...]:
    start = Reached(function, project.class_of_function(function), (function.qualname,), None)
    return reachable(project, [start])


def _seeded_attribute(call: Value) -> str | None:
    """Return `rng` for a call `<...>.rng.seed(...)` (any RNG seeding method), else None."""
    base = call.base
    if (
        base is not None
        and base.kind is Kind.ATTRIBUTE
        and base.name in catalog.RNG_SEED_METHODS
        and base.base is not None
        and base.base.kind is Kind.ATTRIBUTE
    ):
        return base.base.name
    return None


# --- third-party datasets given RNG objects ---


def rngs_given_to_third_party(
    index: RngIndex, loaders: list[LoaderCall]
) -> Iterator[tuple[LoaderCall, list[tuple[str, Creation]]]]:
    """Yield loaders that can start workers and whose dataset, not the project's to edit, is
    given RNG objects that no project worker_init_fn reseeds: with (dataset class, object)."""
    for loader in loaders:
        if not loader.may_start_workers():
            continue
        function = worker_init(loader).function
        if function is not None and function.function.name in (RESEED_WALKER, CHAIN_WORKER_INIT):
            continue
        value = loader.argument("dataset").value
        if value is None:
            continue
        creations = list(dict.fromkeys(_third_party_rngs(index, value, loader.function, 0)))
        if not creations:
            continue
        if function is not None and reseeds_something(index, function):
            continue
        yield loader, creations


def _third_party_rngs(
    index: RngIndex, value: Value, where: FunctionRef, depth: int
) -> Iterator[tuple[str, Creation]]:
    """Yield (dataset class, RNG object) for datasets whose per-item code is not ours."""
    if depth > MAX_VALUE_FLOW_DEPTH:
        return
    project = index.project
    for option in value.alternatives():
        if option.kind is Kind.NAME:
            for target in project.targets(option, where.module):
                if isinstance(target, VariableRef):
                    module_code = target.module.function("<module>")
                    if module_code is None:
                        continue
                    context = FunctionRef.of(target.module, module_code)
                    for assigned in target.values:
                        yield from _third_party_rngs(index, assigned, context, depth + 1)
            continue
        if option.kind is not Kind.CALL or option.base is None:
            continue
        for target in project.targets(option.base, where.module):
            if isinstance(target, ExternalRef):
                if target.qualname in catalog.TORCH_DATASET_WRAPPERS:
                    for inner in (*option.args, *(v for _, v in option.keywords)):
                        yield from _third_party_rngs(index, inner, where, depth + 1)
                else:
                    for creation in _argument_rngs(index, option, where, depth + 1):
                        yield target.qualname, creation
            elif isinstance(target, FunctionRef):
                for returned in target.function.returns:
                    yield from _third_party_rngs(index, returned, target, depth + 1)
            elif isinstance(target, ClassRef) and not any(
                project.find_method(target, method) for method in catalog.ENTRY_METHODS
            ):
                # A project subclass of a third-party dataset: its per-item code is not ours.
                for creation in _subclass_rngs(index, target, option, where, depth):
                    yield target.name, creation


def _subclass_rngs(
    index: RngIndex, target: ClassRef, call: Value, where: FunctionRef, depth: int
) -> list[Creation]:
    found = list(_argument_rngs(index, call, where, depth + 1))
    for reached in index.init_code(target):
        facts = reached.function.function
        for assignment in facts.assignments:
            if assignment.target.startswith("self."):
                name = assignment.target[len("self.") :]
                for obj in index.attribute_objects(target, name):
                    found.append(obj.creation)
        for inner in facts.calls:
            found.extend(_argument_rngs(index, inner, reached.function, depth + 1))
    return found


def _argument_rngs(
    index: RngIndex, call: Value, where: FunctionRef, depth: int
) -> Iterator[Creation]:
    """Yield the RNG objects passed to `call`, also inside lists, dicts and nested calls."""
    if depth > MAX_VALUE_FLOW_DEPTH:
        return
    project = index.project
    self_class = project.class_of_function(where)
    for argument in (*call.args, *(value for _, value in call.keywords)):
        yield from index.constructors(argument, where, self_class)
        for option in argument.alternatives():
            if option.kind in (Kind.SEQUENCE, Kind.DICT):
                elements = (*option.args, *(value for _, value in option.keywords))
                for element in elements:
                    yield from _argument_rngs(
                        index, Value(Kind.CALL, args=(element,)), where, depth + 1
                    )
            elif option.kind is Kind.NAME:
                for obj in index.name_objects(option, where.module):
                    yield obj.creation
            elif (
                option.kind is Kind.ATTRIBUTE
                and option.base is not None
                and option.base.kind is Kind.SELF
                and self_class is not None
            ):
                for obj in index.attribute_objects(self_class, option.name):
                    yield obj.creation
            elif (
                option.kind is Kind.CALL
                and option.base is not None
                and not index.constructors(option, where, self_class)
                and all(
                    isinstance(target, ExternalRef)
                    for target in project.targets(option.base, where.module)
                )
            ):
                yield from _argument_rngs(index, option, where, depth + 1)
