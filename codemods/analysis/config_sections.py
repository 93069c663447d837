"""Entries of configuration sections: `cfg.image.aug` or `cfg.image["aug"]`, where the
configuration class binds `image = AttributeDict(aug=Aug.Aug2a, ...)`.

Research code often keeps its settings on a class (or an instance of one handed around as
`cfg`) whose attributes are dicts, or dict subclasses that also answer attribute reads
(`class AttributeDict(dict): __getattr__ = dict.__getitem__`, EasyDict, addict). Reading a
key of such a section gives the value the construction passes under that keyword: an
augmentation pipeline built at module level and handed to a Dataset as
`transform=self._cfg.image.aug` is that module-level pipeline. Sections nest
(`cfg.train.cycle1.lr`), and a module-level variable bound to such a dict is a section too.
"""

from __future__ import annotations

from collections.abc import Iterator

from .candidates import MAX_RESOLUTION_DEPTH
from .datasets import classes_of
from .facts import Kind, ModuleFacts, Value, string_literal
from .held_datasets import held_classes
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef
from .self_calls import self_class, self_stores

#: Dict subclasses of libraries that take their entries as keywords and answer attribute
#: reads with them.
ATTRIBUTE_DICTS = frozenset(
    {
        "easydict.EasyDict",
        "addict.Dict",
        "addict.addict.Dict",
        "munch.Munch",
    }
)
_DICTS = frozenset({"builtins.dict", *ATTRIBUTE_DICTS})


def section_entries(
    project: Project, value: Value, where: FunctionRef, depth: int = 0
) -> tuple[tuple[Value, FunctionRef], ...]:
    """Return the values a read of a configuration entry (`value`, written in `where`) may
    give, each with the function its construction is written in (a class body's: its
    module's code)."""
    return tuple(dict.fromkeys(_entries(project, value, where, depth)))


def _entries(
    project: Project, value: Value, where: FunctionRef, depth: int
) -> Iterator[tuple[Value, FunctionRef]]:
    if depth > MAX_RESOLUTION_DEPTH:
        return
    for option in value.alternatives():
        for key, holder in _reads(option):
            for mapping, at in _mappings(project, holder, where, depth + 1):
                entry = _entry(mapping, key)
                if entry is not None:
                    yield entry, at


def _reads(option: Value) -> Iterator[tuple[str, Value]]:
    """Yield the key `option` reads and the value it reads it from: `holder.key`,
    `holder["key"]`, or a module-level dotted name `mod.cfg.key`."""
    if option.kind is Kind.ATTRIBUTE and option.base is not None:
        yield option.name, option.base
    elif option.kind is Kind.SUBSCRIPT and option.base is not None and len(option.args) == 1:
        key = string_literal(option.args[0])
        if key is not None:
            yield key, option.base
    elif option.kind is Kind.NAME:
        for qualname in option.qualnames:
            prefix, _, key = qualname.rpartition(".")
            if prefix:
                yield key, Value(Kind.NAME, option.span, qualnames=(prefix,))


def _entry(mapping: Value, key: str) -> Value | None:
    """Return what the dict construction `mapping` holds under `key`, if it spells it out."""
    found = mapping.keyword(key)
    if found is None and mapping.kind is Kind.CALL and mapping.args:
        first = mapping.args[0]  # `AttributeDict({"aug": ...})`
        found = first.keyword(key) if first.kind is Kind.DICT else None
    return found


def _mappings(
    project: Project, holder: Value, where: FunctionRef, depth: int
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the dict constructions `holder` may be, each with where it is written."""
    for option in holder.alternatives():
        # A section of a section: `cfg.train.cycle1`.
        for nested, at in _entries(project, option, where, depth):
            yield from _dicts(project, nested, at)
        if option.kind is Kind.ATTRIBUTE and option.base is not None:
            for owner in object_classes(project, option.base, where, depth):
                yield from _section(project, owner, option.name)
        elif option.kind is Kind.NAME:
            yield from _named(project, option, where.module)


def _named(project: Project, name: Value, near: ModuleFacts) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the dicts a module-level name denotes: a variable bound to one, or a section
    of a class (`Config.image`) or of an instance a variable holds (`cfg.image`)."""
    for target in project.targets(name, near):
        if isinstance(target, VariableRef):
            at = _module_code(target.module)
            if at is not None:
                for assigned in target.values:
                    yield from _dicts(project, assigned, at)
    for qualname in name.qualnames:
        prefix, _, section = qualname.rpartition(".")
        if not prefix:
            continue
        for target in project.resolve(prefix, near):
            if isinstance(target, ClassRef):
                yield from _section(project, target, section)
            elif isinstance(target, VariableRef):
                at = _module_code(target.module)
                if at is None:
                    continue
                for assigned in target.values:
                    for owner in classes_of(project, assigned, at).classes:
                        yield from _section(project, owner, section)


def object_classes(
    project: Project, holder: Value, where: FunctionRef, depth: int = 0
) -> tuple[ClassRef, ...]:
    """Return the project classes the object `holder` (written in `where`) may be: the
    class of `self`, what the class stores in `self.<attribute>`, or what `classes_of`
    finds."""
    own = self_class(project, where)
    if holder.kind is Kind.SELF:
        return (own,) if own is not None else ()
    if (
        holder.kind is Kind.ATTRIBUTE
        and holder.base is not None
        and holder.base.kind is Kind.SELF
        and own is not None
    ):
        return held_classes(project, own, holder.name)
    return classes_of(project, holder, where, depth).classes


def _section(project: Project, ref: ClassRef, name: str) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the dicts an instance of `ref` (or `ref` itself) holds as `name`: what the
    nearest class body in its lookup order binds, and what its methods store in
    `self.<name>`."""
    for value, at in self_stores(project, ref, name):
        yield from _dicts(project, value, at)
    for owner in project.mro(ref):
        bound = [assignment for assignment in owner.cls.attributes if assignment.target == name]
        if not bound:
            continue
        module_code = _module_code(owner.module)
        if module_code is not None:
            for assignment in bound:
                yield from _dicts(project, assignment.value, module_code)
        break  # the nearest class body that binds it


def _dicts(project: Project, value: Value, at: FunctionRef) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the options of `value` (written in `at`) that build a dict: a literal, or a
    call of `dict`, of a project subclass of it or of a library's attribute dict."""
    for option in value.alternatives():
        if option.kind is Kind.DICT or (
            option.kind is Kind.CALL
            and option.base is not None
            and _builds_dict(project, option.base, at.module)
        ):
            yield option, at


def _builds_dict(project: Project, callee: Value, near: ModuleFacts) -> bool:
    if project.is_one_of(callee, near, _DICTS):
        return True
    targets = project.targets(callee, near)
    return bool(targets) and all(
        isinstance(target, ClassRef) and project.derives_from(target, _DICTS) for target in targets
    )


def _module_code(module: ModuleFacts) -> FunctionRef | None:
    code = module.function("<module>")
    return FunctionRef.of(module, code) if code is not None else None
