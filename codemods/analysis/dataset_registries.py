"""Registries: module-level dicts or lists of classes that a `REGISTRY[key](...)` or a
`build(cfg, REGISTRY)` call picks a Dataset class from."""

from __future__ import annotations

from .facts import Kind, ModuleFacts, Value
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef


def registry_candidates(project: Project, registry: VariableRef) -> tuple[ClassRef, ...]:
    """Return the project classes registry variable `registry` may hold."""
    found: list[ClassRef] = []
    for value in registry.values:
        elements = [v for _, v in value.keywords] if value.kind is Kind.DICT else []
        if value.kind is Kind.SEQUENCE:
            elements = list(value.args)
        for element in elements:
            if element.kind is Kind.STARRED and element.base is not None:
                # `{c.__name__: c for c in ALL}`: the classes of the list it is built from.
                found.extend(_listed(project, element.base, registry.module))
                continue
            found.extend(
                t for t in project.targets(element, registry.module) if isinstance(t, ClassRef)
            )
    # Project functions (and the functions nested in them) that store into the registry.
    module = registry.module
    storing = {
        function.qualname.split(".")[0]
        for function in module.functions
        if any(store.target == registry.name for store in function.item_stores)
    }
    names = [registry.name, *storing]
    for other in project.modules_mentioning(*names):
        for cls in other.classes:
            if any(
                registers(project, other, decorator, registry, storing)
                for decorator in cls.decorators
            ):
                found.append(ClassRef.of(other, cls))
    return tuple(dict.fromkeys(found))


def _listed(project: Project, value: Value, module: ModuleFacts) -> list[ClassRef]:
    """Return the project classes a module-level list or tuple of classes holds."""
    found: list[ClassRef] = []
    for target in project.targets(value, module):
        if isinstance(target, VariableRef):
            for listed in target.values:
                if listed.kind is Kind.SEQUENCE:
                    found.extend(
                        t
                        for element in listed.args
                        for t in project.targets(element, target.module)
                        if isinstance(t, ClassRef)
                    )
    return found


def registers(
    project: Project,
    module: ModuleFacts,
    decorator: Value,
    registry: VariableRef,
    storing: set[str],
) -> bool:
    callee = decorator.base if decorator.kind is Kind.CALL else decorator
    if callee is None:
        return False
    if callee.kind is Kind.ATTRIBUTE and callee.base is not None:
        holder = callee.base
    elif callee.kind is Kind.NAME:
        # `DATASETS.register_module` resolves as one dotted name; `register` as a function.
        for target in project.targets(callee, module):
            if (
                isinstance(target, FunctionRef)
                and target.path == registry.path
                and target.qualname in storing
            ):
                return True
        qualnames = [q.rpartition(".")[0] for q in callee.qualnames]
        holder = Value(Kind.NAME, qualnames=tuple(q for q in qualnames if q))
    else:
        return False
    return any(
        isinstance(target, VariableRef)
        and target.path == registry.path
        and target.name == registry.name
        for target in project.targets(holder, module)
    )
