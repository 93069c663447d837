"""Registries of functions: `OPS[name](x)` or `OPS[name].f(x)` calls one of the functions a
module-level dict holds, listed in its literal or stored by a project decorator
(`@register(17)` whose inner function runs `OPS[f.__name__] = OP(f, bins)`)."""

from __future__ import annotations

from collections.abc import Iterator

from .dataset_registries import registers
from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef, VariableRef


def registered_functions(
    project: Project, registry: VariableRef, field: str | None
) -> Iterator[FunctionRef]:
    """Yield the project functions a call of `registry[key]` (or `registry[key].<field>`) runs.

    With `field`, the registry holds records (namedtuples) and the function is the record's
    field of that name.
    """
    if field is None:
        for value in registry.values:
            for _, element in value.keywords if value.kind is Kind.DICT else ():
                for target in project.targets(element, registry.module):
                    if isinstance(target, FunctionRef):
                        yield target
    module = registry.module
    storing = {
        function.qualname.split(".")[0]
        for function in module.functions
        if any(
            store.target == registry.name
            and _stores_function(project, registry, store.value, field)
            for store in function.item_stores
        )
    }
    if not storing:
        return
    for other in project.modules_mentioning(registry.name, *storing):
        for function in other.functions:
            if any(
                registers(project, other, decorator, registry, storing)
                for decorator in function.decorators
            ):
                yield FunctionRef.of(other, function)


def _stores_function(
    project: Project, registry: VariableRef, stored: Value, field: str | None
) -> bool:
    """Return True if `stored` is the decorated function, or a record holding it as `field`."""
    if field is None:
        return stored.kind is Kind.PARAM
    if stored.kind is not Kind.CALL or stored.base is None:
        return False
    fields = _record_fields(project, registry, stored.base)
    if field not in fields:
        return False
    index = fields.index(field)
    passed = stored.keyword(field)
    if passed is None and index < len(stored.args):
        passed = stored.args[index]
    return passed is not None and passed.kind is Kind.PARAM


def _record_fields(project: Project, registry: VariableRef, record: Value) -> tuple[str, ...]:
    """Return the field names of a `namedtuple("OP", ("f", "bins"))` class, if it is one."""
    for target in project.targets(record, registry.module):
        if not isinstance(target, VariableRef):
            continue
        for made in target.values:
            if (
                made.kind is Kind.CALL
                and made.base is not None
                and project.is_one_of(
                    made.base, target.module, frozenset({"collections.namedtuple"})
                )
                and len(made.args) > 1
            ):
                names = made.args[1]
                if names.kind is Kind.SEQUENCE:
                    return tuple(name.name.strip("'\"") for name in names.args)
                if names.kind is Kind.CONSTANT:
                    return tuple(names.name.strip("'\"").replace(",", " ").split())
    return ()
