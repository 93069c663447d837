"""Registries: module-level dicts or lists of classes that a `REGISTRY[key](...)` or a
`build(cfg, REGISTRY)` call picks a Dataset class from; factories, project functions
that return a class (`def make(name): class D(BASES[name]): ...; return D`); and classes
looked up by name in a project module imported by name
(`getattr(importlib.import_module("pkg.transforms"), name)`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import catalog
from .candidates import CandidateSource, DatasetsOf
from .evaluated_names import evaluated_classes
from .facts import Kind, ModuleFacts, Value, literal_key
from .imported_modules import classes_looked_up, imported_modules, namespace_classes
from .literal_tables import subscript_entries
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef, VariableRef


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


#: The lookup method of a registry object: `dict.get`, and the `get` of fvcore / mmengine /
#: detectron2 style `Registry` classes, which return the class registered under a name.
_LOOKUP_METHOD = "get"


def picked_registry(
    project: Project, value: Value, module: ModuleFacts
) -> tuple[VariableRef, tuple[ClassRef, ...]] | None:
    """Return the registry a class is picked from by `REGISTRY[key]` or `REGISTRY.get(key)`,
    and its candidate classes; None if `value` is neither, or the object holds no classes
    (a dict-like object that is no registry: what it gives is unknown)."""
    if value.kind is Kind.SUBSCRIPT:
        holder = value.base
    elif value.kind is Kind.CALL and value.args and value.base is not None:
        holder = _lookup_holder(value.base)
    else:
        return None
    if holder is None:
        return None
    for target in project.targets(holder, module):
        if isinstance(target, VariableRef):
            candidates = registry_candidates(project, target)
            if candidates:
                return target, candidates
    return None


def _lookup_holder(callee: Value) -> Value | None:
    """Return the object whose lookup method `callee` is (`REGISTRY` of `REGISTRY.get`)."""
    if callee.kind is Kind.ATTRIBUTE:
        return callee.base if callee.name == _LOOKUP_METHOD else None
    if callee.kind is not Kind.NAME:
        return None
    # A module-level object's method resolves as one dotted name: `pkg.build.REGISTRY.get`.
    suffix = f".{_LOOKUP_METHOD}"
    holders = tuple(q.removesuffix(suffix) for q in callee.qualnames if q.endswith(suffix))
    return Value(Kind.NAME, qualnames=holders) if holders else None


#: How many factory calls deep (`make()` returning `inner()`'s class) returns are followed.
_MAX_FACTORY_DEPTH = 4


@dataclass(frozen=True)
class ReturnedClasses:
    """The project classes (class objects, not instances) a factory call may return."""

    classes: tuple[ClassRef, ...]
    #: False if some return could not be resolved to classes.
    complete: bool
    #: What the factory picks the class from by a key known only at run time: a registry
    #: variable (`return DATASETS[name]`) or, for a table written in the factory itself
    #: (`return {"a": A, "b": B}[name]`), the factory's name. The classes are candidates.
    picked_from: tuple[str, ...] = ()
    #: The modules the classes are looked up in by a name known only at run time: the
    #: classes are candidates, one of which the run picks.
    looked_up_in: tuple[str, ...] = ()


def classes_returned(
    project: Project, call: Value, where: FunctionRef, depth: int = 0
) -> ReturnedClasses:
    """Return the project classes (the class objects, not instances) that `call` may return.

    A factory returns a class it defines (possibly on bases chosen from registries), a
    module-level class, a registry entry (`return DATASETS[name]`), an entry of a table it
    spells out (`return {"a": A, "b": B}[name]`), a class it looks up by name in a module it
    imports by name, or another factory's result; the factory is a function or a method of
    the calling instance (`self.transform_class(name)`).
    """
    if call.kind is not Kind.CALL or call.base is None or depth > _MAX_FACTORY_DEPTH:
        return ReturnedClasses((), False)
    bound = partial_of(project, call, where)
    if bound is not None:
        # `partial(Windows, ratio=r)` is no factory call: calling it makes a `Windows`.
        return _class_denoted(project, bound, where, depth + 1)
    looked_up = looked_up_by_name(project, call, where)
    if looked_up is not None:
        return looked_up
    evaluated = evaluated_classes(project, call, where)
    if evaluated is not None:
        module, classes = evaluated
        return ReturnedClasses(classes, True, looked_up_in=(module,))
    functions = [t for t in project.targets(call.base, where.module) if isinstance(t, FunctionRef)]
    if not functions:
        functions = _own_methods(project, call.base, where)
    if not functions:
        return ReturnedClasses((), False)
    found: list[ClassRef] = []
    picked: list[str] = []
    modules: list[str] = []
    complete = True
    for function in functions:
        returns = function.function.returns
        complete = complete and bool(returns)
        literals = _literal_arguments(function, call)
        for value in returns:
            for option in value.alternatives():
                returned = _class_denoted(project, option, function, depth + 1, literals)
                found.extend(returned.classes)
                picked.extend(returned.picked_from)
                modules.extend(returned.looked_up_in)
                complete = complete and returned.complete
    return ReturnedClasses(
        tuple(dict.fromkeys(found)),
        complete,
        tuple(dict.fromkeys(picked)),
        tuple(dict.fromkeys(modules)),
    )


def partial_of(project: Project, value: Value, where: FunctionRef) -> Value | None:
    """Return what `functools.partial(f, ...)` binds arguments to, if `value` is such a call."""
    if (
        value.kind is not Kind.CALL
        or value.base is None
        or not value.args
        or value.args[0].kind is Kind.STARRED
        or not project.is_one_of(value.base, where.module, catalog.PARTIAL)
    ):
        return None
    return value.args[0]


def classes_denoted(project: Project, value: Value, where: FunctionRef) -> ReturnedClasses:
    """Return the project classes (the class objects) that `value`, seen in `where`, may be:
    a class named, a registry or table entry, a factory's result or a `partial` of one."""
    results = [_class_denoted(project, option, where, 0) for option in value.alternatives()]
    return ReturnedClasses(
        tuple(dict.fromkeys(ref for result in results for ref in result.classes)),
        all(result.complete for result in results),
        tuple(dict.fromkeys(name for result in results for name in result.picked_from)),
        tuple(dict.fromkeys(name for result in results for name in result.looked_up_in)),
    )


def _literal_arguments(function: FunctionRef, call: Value) -> dict[str, str]:
    """Return the literals `call` passes to plain function `function`, by parameter name,
    as `literal_key` writes them."""
    facts = function.function
    if facts.class_qualname is not None:
        return {}  # a method: which parameter an argument fills depends on how it is called
    passed: dict[str, Value] = {}
    for index, argument in enumerate(call.args):
        if argument.kind is Kind.STARRED or index >= facts.positional_count:
            break
        passed[facts.params[index]] = argument
    for name, argument in call.keywords:
        if name is not None and name in facts.params:
            passed[name] = argument
    return {
        name: key for name, argument in passed.items() if (key := literal_key(argument)) is not None
    }


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
    project: Project,
    value: Value,
    where: FunctionRef,
    depth: int,
    literals: Mapping[str, str] | None = None,
) -> ReturnedClasses:
    if value.kind is Kind.NAME:
        targets = project.targets(value, where.module)
        classes = tuple(t for t in targets if isinstance(t, ClassRef))
        return ReturnedClasses(classes, bool(targets) and len(classes) == len(targets))
    entries = subscript_entries(value, lambda key: _key_literal(key, literals or {}))
    if entries is not None:
        return _entries_denoted(project, entries, where, depth)
    picked = picked_registry(project, value, where.module)
    if picked is not None:
        registry, candidates = picked
        return ReturnedClasses(candidates, True, (registry.name,))
    if value.kind is Kind.SUBSCRIPT:
        return ReturnedClasses((), False)
    if value.kind is Kind.CALL:
        return classes_returned(project, value, where, depth)
    if value.kind is Kind.UNKNOWN and value.name:
        return _loop_class(project, value.name, where)
    if value.kind is Kind.CONSTANT and value.name == "None":
        return ReturnedClasses((), True)  # `None(...)` raises: it makes nothing
    return ReturnedClasses((), False)


def _loop_class(project: Project, name: str, where: FunctionRef) -> ReturnedClasses:
    """Return the classes loop variable `name` of `where` may be when the loop runs over the
    namespace of a module imported by name (`for key, cls in module.__dict__.items()`)."""
    found: list[ClassRef] = []
    modules: list[str] = []
    loops = [iterable for loop_name, iterable in where.function.loops if loop_name == name]
    for iterable in loops:
        looked_up = namespace_classes(project, iterable, where)
        if looked_up is None:
            return ReturnedClasses((), False)
        found.extend(looked_up[0])
        modules.extend(looked_up[1])
    return ReturnedClasses(
        tuple(dict.fromkeys(found)), bool(loops), looked_up_in=tuple(dict.fromkeys(modules))
    )


def _key_literal(key: Value | None, literals: Mapping[str, str]) -> str | None:
    """Return the literal a table is indexed with: written there, or passed to the factory."""
    if key is None:
        return None
    if key.kind is Kind.PARAM:
        return literals.get(key.name)
    return literal_key(key)


def _entries_denoted(
    project: Project, entries: list[Value], where: FunctionRef, depth: int
) -> ReturnedClasses:
    """Return the classes the entries of a dict or list literal written in factory `where`
    may be, when a lookup picks one of them.

    With the key a literal (`pick("b")` for `return {"a": A, "b": B}[name]`), the entry it
    selects; otherwise any entry may be picked: several distinct classes are candidates,
    named after the factory. No entry for the key: the lookup raises KeyError and makes
    nothing (an empty literal table likewise holds nothing).
    """
    found: list[ClassRef] = []
    complete = True
    for entry in entries:
        denoted = _class_denoted(project, entry, where, depth)
        found.extend(denoted.classes)
        complete = complete and denoted.complete
    classes = tuple(dict.fromkeys(found))
    picked = (where.function.name,) if len(classes) > 1 else ()
    return ReturnedClasses(classes, complete, picked)


def looked_up_by_name(project: Project, call: Value, where: FunctionRef) -> ReturnedClasses | None:
    """Resolve `getattr(importlib.import_module(...), name)` to the project classes it may
    be, if `call` is such a lookup in a project module (see `imported_modules`).

    The name looked up is known only at run time: every class the module defines at its
    top level is a candidate (or, for a module picked by that same name, the class it binds
    under its own name). None if `call` is no such lookup.
    """
    if (
        call.base is None
        or len(call.args) not in (2, 3)
        or not project.is_one_of(call.base, where.module, catalog.GETATTR)
    ):
        return None
    imported = imported_modules(project, call.args[0], where)
    if imported is None:
        return None  # a third-party module: none of its classes is the project's
    classes, names = classes_looked_up(project, imported, call.args[1])
    return ReturnedClasses(classes, True, looked_up_in=names)


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
    """Resolve `REGISTRY[key](...)`, `REGISTRY.get(key)(...)` and `build(cfg, REGISTRY)` to
    the registry's candidates.

    A registry is a module-level dict (or list) of classes, filled by its literal, or an
    object whose classes are registered by decorator (`@REGISTRY.register_module()`,
    `@REGISTRY.register()`), or by a project decorator that stores the class into it
    (`@register("name")`).
    """
    assert call.base is not None
    picked = picked_registry(project, call.base, where.module)
    if picked is not None:
        from .registry_keys import named_by_key  # it reads the registrations made here

        # `REGISTRY[key](...)` and `REGISTRY.get(key)(...)` make the instance here.
        registry, candidates = picked
        # A class whose `__init__` takes none of a keyword would raise: it is not made here.
        candidates = tuple(ref for ref in candidates if _takes_keywords(project, ref, call))
        named = named_by_key(project, registry, candidates, call.base, where)
        made = tuple((ref, (call, where)) for ref in named)
        picked_from = (registry.name,) if named == candidates else ()
        return DatasetsOf(named, True, picked_from, made=made)
    if call.base.kind in (Kind.SUBSCRIPT, Kind.CALL):
        return None
    # A builder, a library's or the project's own (`build_from_cfg(cfg, PROCESS)`), makes an
    # instance of a class of the registry it is given.
    builders = project.targets(call.base, where.module)
    if not any(isinstance(target, ExternalRef | FunctionRef) for target in builders):
        return None
    if any(
        isinstance(target, ExternalRef) and target.qualname in catalog.OBJ_FROM_DICT
        for target in builders
    ):
        return _module_namespace(project, call, where)
    subjects = [*call.args, *(value for _, value in call.keywords)]
    for subject in subjects:
        if subject.kind is not Kind.NAME:
            continue
        for target in project.targets(subject, where.module):
            if isinstance(target, VariableRef):
                candidates = registry_candidates(project, target)
                if candidates:
                    # A builder makes the instance itself: no constructor call is seen.
                    return DatasetsOf(candidates, True, (target.name,))
    return None


def _module_namespace(project: Project, call: Value, where: FunctionRef) -> DatasetsOf | None:
    """Resolve `obj_from_dict(cfg, datasets)`, with `datasets` a project module (a package
    that imports its Dataset classes), to every Dataset class that module binds at its top
    level: the configuration's `type` picks one at run time. None for a library's module."""
    parent = call.keyword("parent") or (call.args[1] if len(call.args) > 1 else None)
    if parent is None or parent.kind is not Kind.NAME:
        return None
    found: list[ClassRef] = []
    names = parent.qualnames
    for qualname in names:
        module = project.module_named(qualname, where.module)
        if module is None:
            return None
        found.extend(ClassRef.of(module, cls) for cls in module.classes if "." not in cls.qualname)
        for _, values in module.bindings:
            for value in values:
                found.extend(t for t in project.targets(value, module) if isinstance(t, ClassRef))
    from .datasets import is_dataset  # datasets resolves through this module

    found = [ref for ref in found if is_dataset(project, ref)]
    if not found:
        return None
    sources = tuple(CandidateSource("module", name) for name in names)
    return DatasetsOf(tuple(dict.fromkeys(found)), True, sources=sources)


def _takes_keywords(project: Project, ref: ClassRef, call: Value) -> bool:
    """Return False if `ref(...)` cannot take a keyword `call` passes: its project `__init__`
    has no parameter of that name and no `**kwargs`."""
    found = project.find_method(ref, "__init__")
    if found is None:
        return True  # a library's `__init__`: what it takes is not known here
    init = found[1].function
    passed = (key for key, _ in call.keywords if key is not None)
    return init.has_var_keyword or all(key in init.params for key in passed)
