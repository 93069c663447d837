"""Instances a class makes of itself: `Shards.from_options(opts)`, whose `@classmethod`
returns `cls(...)`, is an instance of the class it is called on."""

from __future__ import annotations

from .candidates import DatasetsOf
from .facts import Kind, Value
from .project import Project
from .refs import ClassRef, FunctionRef


def is_classmethod(function: FunctionRef) -> bool:
    """Return True for a `@classmethod`."""
    return any(
        "builtins.classmethod" in decorator.qualnames for decorator in function.function.decorators
    )


def made_by_classmethod(
    project: Project, call: Value, where: FunctionRef, method: FunctionRef, returned: Value
) -> DatasetsOf | None:
    """Return the instance `returned` is when it is the `cls(...)` of classmethod `method`
    and `call` (written in `where`) names the class it runs on; None otherwise."""
    if not (
        returned.kind is Kind.CALL
        and returned.base is not None
        and returned.base.kind is Kind.SELF
        and is_classmethod(method)
    ):
        return None
    owners = _called_on(project, call, where)
    if not owners:
        return DatasetsOf((), False)  # `cls` is a subclass, or a class not named here
    return DatasetsOf(
        owners,
        True,
        tuple(name for owner in owners for name in project.chosen_bases(owner)),
        made=tuple((owner, (returned, method)) for owner in owners),
    )


def _called_on(project: Project, call: Value, where: FunctionRef) -> tuple[ClassRef, ...]:
    """Return the project classes `Class.method(...)` names as `Class`."""
    callee = call.base
    if callee is None or callee.kind is not Kind.NAME:
        return ()
    found: list[ClassRef] = []
    for qualname in callee.qualnames:
        owner, _, _ = qualname.rpartition(".")
        targets = project.resolve(owner, where.module) if owner else ()
        if not targets or not all(isinstance(target, ClassRef) for target in targets):
            return ()
        found.extend(target for target in targets if isinstance(target, ClassRef))
    return tuple(dict.fromkeys(found))
