"""The names a registry lookup may be given, and the classes registered under them:
`REGISTRY.get(opt["type"])` inside `def build_dataset(opt)`, where the caller passes a dict
whose `"type"` entry is a string literal (`opt = {}; opt["type"] = "SingleImageDataset";
build_dataset(opt)`), makes a `SingleImageDataset` (registered by `@REGISTRY.register()`
under its class name, or under the name its decorator is given)."""

from __future__ import annotations

from dataclasses import replace

from .candidates import DatasetsOf
from .dataset_registries import picked_registry, registers
from .facts import Kind, Value, string_literal
from .forwarded_arguments import passed_argument
from .loader_kwargs import known_dict, with_item_stores
from .module_lookups import copied
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef

#: A call of a function, and the function the call is written in.
CallSite = tuple[Value, FunctionRef]


def picked_names(
    project: Project, key: Value, where: FunctionRef, site: CallSite | None = None
) -> frozenset[str] | None:
    """Return the strings `key` (seen in `where`) may be, if each is a literal: `key` itself,
    or an entry of a dict parameter of plain function `where` that every call of it (or the
    call `site`) passes as a dict it builds with a literal there. None if any of them is not
    known."""
    text = string_literal(key)
    if text is not None:
        return frozenset({text})
    if key.kind is not Kind.SUBSCRIPT or key.base is None or len(key.args) != 1:
        return None
    param = _parameter_held(project, key.base, where)
    entry = string_literal(key.args[0])
    facts = where.function
    if param is None or entry is None or facts.class_qualname is not None:
        return None
    if site is not None:
        sites = [site]
    else:
        sites = [(found.call, found.function) for found in project.callers(where)]
        if not sites or project.is_referenced(where):
            return None  # also called in ways not seen: what it is passed is not all known
    names: set[str] = set()
    for call, caller in sites:
        passed = passed_argument(where, call, param)
        if passed is None or passed.kind is Kind.STARRED:
            return None
        known = known_dict(project, caller.module, passed)
        if known is None:
            return None
        entries = with_item_stores(known, caller.function).entries
        values = [value for name, value in entries if name == entry]
        if not values or any(name is None for name, _ in entries):
            return None  # not set here, or maybe by a `**splat`
        for value in values:
            literal = string_literal(value)
            if literal is None:
                return None
            names.add(literal)
    return frozenset(names)


def _parameter_held(project: Project, value: Value, where: FunctionRef) -> str | None:
    """Return the parameter of `where` whose dict `value` is, also as copied first
    (`opt = deepcopy(opt)`); None if it may be anything else."""
    names: set[str] = set()
    for option in value.alternatives():
        if option.kind is Kind.RECURSIVE:
            continue  # the name rebound to a copy of itself: nothing beyond its other values
        original = copied(project, option, where)
        if original is not None:
            inner = _parameter_held(project, original, where)
            if inner is None:
                return None
            names.add(inner)
        elif option.kind is Kind.PARAM and option.name in where.function.params:
            names.add(option.name)
        else:
            return None
    return names.pop() if len(names) == 1 else None


def registry_named_by_call(
    project: Project, found: DatasetsOf, returned: Value, function: FunctionRef, site: CallSite
) -> DatasetsOf:
    """Return what `function`, returning `returned`, makes when called at `site`: for a
    registry lookup whose key this call names (`build_dataset(opt)` with `opt["type"] =
    "Single"`), only the classes registered under that name."""
    if returned.kind is not Kind.CALL or returned.base is None:
        return found
    picked = picked_registry(project, returned.base, function.module)
    if picked is None:
        return found
    registry, candidates = picked
    kept = named_by_key(project, registry, candidates, returned.base, function, site)
    if kept == candidates:
        return found
    # Named by this call, the class is no longer one the run picks from the registry.
    return replace(
        found,
        classes=tuple(ref for ref in found.classes if ref in kept or ref not in candidates),
        registries=tuple(name for name in found.registries if name != registry.name),
        made=tuple((ref, made) for ref, made in found.made if ref in kept or ref not in candidates),
    )


def named_by_key(
    project: Project,
    registry: VariableRef,
    candidates: tuple[ClassRef, ...],
    lookup: Value,
    where: FunctionRef,
    site: CallSite | None = None,
) -> tuple[ClassRef, ...]:
    """Return the candidates registered under a name the lookup's key may be, when those
    names are known (all of them, if none is registered under one)."""
    key = lookup.args[0] if lookup.args else None  # `REGISTRY[key]`, `REGISTRY.get(key)`
    picked = picked_names(project, key, where, site) if key is not None else None
    if picked is None:
        return candidates
    kept = tuple(
        ref
        for ref in candidates
        if (names := _registered_names(project, ref, registry)) is None or names & picked
    )
    return kept or candidates


def _registered_names(
    project: Project, ref: ClassRef, registry: VariableRef
) -> frozenset[str] | None:
    """Return the names a decorator registers class `ref` under in `registry`: the literal
    it is given, else the class's own name (`@DATASETS.register_module()`); None if it is
    registered some other way."""
    names: set[str] = set()
    for decorator in ref.cls.decorators:
        if not registers(project, ref.module, decorator, registry, set()):
            continue
        given = decorator.keyword("name") or (decorator.args[0] if decorator.args else None)
        text = string_literal(given) if given is not None else ref.cls.name
        if text is None:
            return None
        names.add(text)
    return frozenset(names) if names else None
