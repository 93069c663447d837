"""Registries: module-level dicts or lists of classes that a `REGISTRY[key](...)` or a
`build(cfg, REGISTRY)` call picks a Dataset class from; factories, project functions
that return a class (`def make(name): class D(BASES[name]): ...; return D`); and classes
looked up by name in a project module imported by name
(`getattr(importlib.import_module("pkg.transforms"), name)`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

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


@dataclass(frozen=True)
class ReturnedClasses:
    """The project classes (the class objects, not instances) a call may return."""

    classes: tuple[ClassRef, ...]
    #: False if some return could not be resolved to classes.
    complete: bool
    #: The modules the classes are looked up in by a name known only at run time: the
    #: classes are candidates, one of which the run picks.
    looked_up_in: tuple[str, ...] = ()


def classes_returned(
    project: Project, call: Value, where: FunctionRef, depth: int = 0
) -> ReturnedClasses:
    """Return the project classes (the class objects, not instances) that `call` may return.

    A factory returns a class it defines (possibly on bases chosen from registries), a
    module-level class, a registry entry (`return DATASETS[name]`), a class it looks up by
    name in a module it imports by name, or another factory's result; the factory is a
    function or a method of the calling instance (`self.transform_class(name)`).
    """
    if call.kind is not Kind.CALL or call.base is None or depth > _MAX_FACTORY_DEPTH:
        return ReturnedClasses((), False)
    looked_up = looked_up_by_name(project, call, where)
    if looked_up is not None:
        return looked_up
    functions = [t for t in project.targets(call.base, where.module) if isinstance(t, FunctionRef)]
    if not functions:
        functions = _own_methods(project, call.base, where)
    if not functions:
        return ReturnedClasses((), False)
    found: list[ClassRef] = []
    modules: list[str] = []
    complete = True
    for function in functions:
        returns = function.function.returns
        complete = complete and bool(returns)
        for value in returns:
            for option in value.alternatives():
                denoted = _class_denoted(project, option, function, depth + 1)
                found.extend(denoted.classes)
                modules.extend(denoted.looked_up_in)
                complete = complete and denoted.complete
    return ReturnedClasses(tuple(dict.fromkeys(found)), complete, tuple(dict.fromkeys(modules)))


def _own_methods(project: Project, callee: Value, where: FunctionRef) -> list[FunctionRef]:
    """Return the method `self.<name>` denotes in a method of a project class."""
    if (
        callee.kind is not Kind.ATTRIBUTE
        or callee.base is None
        or callee.base.kind is not Kind.SELF
    ):
        return []
    own = project.class_of_function(where)
    found = project.find_method(own, callee.name) if own is not None else None
    return [found[1]] if found is not None else []


def _class_denoted(
    project: Project, value: Value, where: FunctionRef, depth: int
) -> ReturnedClasses:
    if value.kind is Kind.NAME:
        targets = project.targets(value, where.module)
        classes = tuple(t for t in targets if isinstance(t, ClassRef))
        return ReturnedClasses(classes, bool(targets) and len(classes) == len(targets))
    if value.kind is Kind.SUBSCRIPT and value.base is not None:
        for target in project.targets(value.base, where.module):
            if isinstance(target, VariableRef):
                candidates = registry_candidates(project, target)
                if candidates:
                    return ReturnedClasses(candidates, True)
        return ReturnedClasses((), False)
    if value.kind is Kind.CALL:
        return classes_returned(project, value, where, depth)
    return ReturnedClasses((), False)


_GETATTR = frozenset({"builtins.getattr"})
_IMPORT_MODULE = frozenset({"importlib.import_module"})


def looked_up_by_name(project: Project, call: Value, where: FunctionRef) -> ReturnedClasses | None:
    """Resolve `getattr(importlib.import_module("pkg.mod"), name)` to the classes `pkg.mod`
    defines, if `call` is such a lookup in a project module named by a literal.

    The name looked up is known only at run time: every class the module defines at its
    top level is a candidate. None if `call` is no such lookup.
    """
    if (
        call.base is None
        or len(call.args) not in (2, 3)
        or not project.is_one_of(call.base, where.module, _GETATTR)
    ):
        return None
    imported = call.args[0]
    if (
        imported.kind is not Kind.CALL
        or imported.base is None
        or len(imported.args) != 1
        or imported.keywords
        or imported.args[0].kind is not Kind.CONSTANT
        or not project.is_one_of(imported.base, where.module, _IMPORT_MODULE)
    ):
        return None
    try:
        name = ast.literal_eval(imported.args[0].name)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(name, str) or name.startswith("."):
        return None
    module = project.module_named(name, where.module)
    if module is None:
        return None  # a third-party module: none of its classes is the project's
    classes = tuple(ClassRef.of(module, cls) for cls in module.classes if "." not in cls.qualname)
    return ReturnedClasses(classes, True, (name,))


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
