"""Registries: module-level dicts or lists of classes that a `REGISTRY[key](...)` or a
`build(cfg, REGISTRY)` call picks a Dataset class from; and factories, project functions
that return a class (`def make(name): class D(BASES[name]): ...; return D`)."""

from __future__ import annotations

from .candidates import DatasetsOf
from .facts import Kind, ModuleFacts, Value
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef


def registry_candidates(project: Project, registry: VariableRef) -> tuple[ClassRef, ...]:
    """Return the project classes registry variable `registry` may hold."""
    found = [held for held in project.held_in_container(registry) if isinstance(held, ClassRef)]
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


#: How many factory calls deep (`make()` returning `inner()`'s class) returns are followed.
_MAX_FACTORY_DEPTH = 4


def classes_returned(
    project: Project, call: Value, where: FunctionRef, depth: int = 0
) -> tuple[tuple[ClassRef, ...], bool]:
    """Return the project classes (the class objects, not instances) that `call` may return.

    A factory returns a class it defines (possibly on bases chosen from registries), a
    module-level class, a registry entry (`return DATASETS[name]`) or another factory's
    result. The flag is False if some return could not be resolved to classes.
    """
    if call.kind is not Kind.CALL or call.base is None or depth > _MAX_FACTORY_DEPTH:
        return (), False
    functions = [t for t in project.targets(call.base, where.module) if isinstance(t, FunctionRef)]
    if not functions:
        return (), False
    found: list[ClassRef] = []
    complete = True
    for function in functions:
        returns = function.function.returns
        complete = complete and bool(returns)
        for value in returns:
            for option in value.alternatives():
                classes, known = _class_denoted(project, option, function, depth + 1)
                found.extend(classes)
                complete = complete and known
    return tuple(dict.fromkeys(found)), complete


def _class_denoted(
    project: Project, value: Value, where: FunctionRef, depth: int
) -> tuple[tuple[ClassRef, ...], bool]:
    if value.kind is Kind.NAME:
        targets = project.targets(value, where.module)
        classes = tuple(t for t in targets if isinstance(t, ClassRef))
        return classes, bool(targets) and len(classes) == len(targets)
    if value.kind is Kind.SUBSCRIPT and value.base is not None:
        for target in project.targets(value.base, where.module):
            if isinstance(target, VariableRef):
                candidates = registry_candidates(project, target)
                if candidates:
                    return candidates, True
        return (), False
    if value.kind is Kind.CALL:
        return classes_returned(project, value, where, depth)
    return (), False


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


def made_by_type(
    project: Project, value: Value, module: ModuleFacts
) -> tuple[ClassRef, ...] | None:
    """Return the project bases of a class made by `type("D", (A, B), {...})`, if it is one."""
    if (
        value.kind is not Kind.CALL
        or value.base is None
        or len(value.args) != 3
        or value.args[1].kind is not Kind.SEQUENCE
        or not project.is_one_of(value.base, module, frozenset({"builtins.type"}))
    ):
        return None
    return tuple(
        target
        for base in value.args[1].args
        for target in project.targets(base, module)
        if isinstance(target, ClassRef)
    )


def registry_lookup(project: Project, call: Value, where: FunctionRef) -> DatasetsOf | None:
    """Resolve `REGISTRY[key](...)` and `build(cfg, REGISTRY)` to the registry's candidates.

    A registry is a module-level dict (or list) of classes, filled by its literal, by
    `@REGISTRY.register_module()` / `@REGISTRY.register(...)`, or by a project decorator
    that stores the class into it (`@register("name")`).
    """
    assert call.base is not None
    constructs = call.base.kind is Kind.SUBSCRIPT
    if call.base.kind is Kind.SUBSCRIPT and call.base.base is not None:
        subjects = [call.base.base]
    elif project.qualnames(call.base, where.module):
        subjects = [*call.args, *(value for _, value in call.keywords)]  # an external builder
    else:
        return None
    for subject in subjects:
        if subject.kind is not Kind.NAME:
            continue
        for target in project.targets(subject, where.module):
            if isinstance(target, VariableRef):
                candidates = registry_candidates(project, target)
                if candidates:
                    # `REGISTRY[key](...)` makes the instance; a builder makes it itself.
                    made = tuple((ref, (call, where)) for ref in candidates) if constructs else ()
                    return DatasetsOf(candidates, True, (target.name,), made=made)
    return None
