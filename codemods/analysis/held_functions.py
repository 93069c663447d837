"""The project functions a value may be when it is called: a module-level function passed as
a transform (`Dataset(transform=augment)`), or a closure a factory returns
(`transform = make_transform(cfg)` with `def make_transform(cfg): def apply(x): ...; return
apply`), also when a dataset holds it in `self.<attribute>` and calls it per item."""

from __future__ import annotations

from collections.abc import Iterator

from .branch_feasibility import left_open
from .candidates import MAX_RESOLUTION_DEPTH, Construction, DatasetsOf
from .facts import Kind, Value
from .held_datasets import held
from .memo import per_project
from .module_lookups import constructions_of, looked_up_functions
from .parameter_sources import from_callers
from .project import Project
from .refs import ClassRef, FunctionRef

#: A project function a value may be, with the project modules it is one candidate of, for
#: a lookup by a name known only at run time (`globals()[cfg.name]`); () when named in code.
Picked = tuple[FunctionRef, tuple[str, ...]]


def functions_of(
    project: Project, value: Value, where: FunctionRef, depth: int = 0
) -> Iterator[FunctionRef]:
    """Yield the project functions `value` (written in `where`) may be."""
    for function, _ in picked_functions(project, value, where, depth):
        yield function


def picked_functions(
    project: Project, value: Value, where: FunctionRef, depth: int = 0
) -> Iterator[Picked]:
    """Yield the project functions `value` (written in `where`) may be, each with the
    modules a lookup by name on the way picks it among."""
    if depth > MAX_RESOLUTION_DEPTH:
        return
    module = where.module
    for option in value.alternatives():
        looked_up = looked_up_functions(project, option, where)
        if looked_up is not None:
            # `self.augment = globals()[cfg.augment]`: any function of that module.
            functions, modules = looked_up
            for function in functions:
                yield function, modules
        elif option.kind is Kind.FUNCTION and (nested := project.function_of(option, module)):
            yield nested, ()
        elif option.kind in (Kind.NAME, Kind.ATTRIBUTE):
            for target in project.targets(option, module):
                if isinstance(target, FunctionRef) and project.class_of_function(target) is None:
                    yield target, ()
        elif option.kind is Kind.CALL and option.base is not None:
            # What a factory returns: `make_transform(cfg)`, or `globals()[cfg.name](cfg)`,
            # which may call any function of the module.
            factories = looked_up_functions(project, option.base, where)
            if factories is None:
                named = project.targets(option.base, module)
                factories = tuple(t for t in named if isinstance(t, FunctionRef)), ()
            functions, modules = factories
            for factory in functions:
                for returned in left_open(factory.function.returns, option, where, factory):
                    for function, inner in picked_functions(project, returned, factory, depth + 1):
                        yield function, tuple(dict.fromkeys((*modules, *inner)))
        elif option.kind is Kind.PARAM:
            # `Crops(transform=transforms)` in `def train(transforms)`: what its callers pass.
            yield from _passed_by_callers(project, option.name, where, depth + 1)


@per_project
def _passed_by_callers(
    project: Project, param: str, where: FunctionRef, depth: int
) -> tuple[Picked, ...]:
    """Return the project functions the callers of `where` pass as `param`. Kept: every
    store of a held transform asks again for the same parameter."""
    found: list[Picked] = []

    def collect(project: Project, value: Value, where: FunctionRef, depth: int) -> DatasetsOf:
        found.extend(picked_functions(project, value, where, depth))
        return DatasetsOf((), True)

    from_callers(project, param, where, depth, collect)
    return tuple(found)


@per_project
def held_functions(
    project: Project,
    ref: ClassRef,
    attribute: str,
    sites: tuple[Construction, ...] | None,
) -> tuple[Picked, ...]:
    """Return the project functions `self.<attribute>` of an instance of `ref` may hold, for
    the constructions `sites` (every construction in the project when None)."""
    if sites is None:
        sites = constructions_of(project, ref)
    found: list[Picked] = []

    def collect(project: Project, value: Value, where: FunctionRef, depth: int) -> DatasetsOf:
        found.extend(picked_functions(project, value, where, depth))
        return DatasetsOf((), True)

    held(project, ref, attribute, collect, sites)
    return tuple(dict.fromkeys(found))
