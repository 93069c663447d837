"""Settings the code itself fixes: `CFG.num_workers`, a class attribute, or `config.num_workers`
of a settings object its module makes and fills in once.

Scripts written as notebooks keep their options on a class (`class CFG: num_workers = 0`) or
on one object the module fills in (`config = Config()`, `config.num_workers = 0`) and hand
it on (`main(config)`). Such a setting is as fixed as a literal when nothing else in the
project may store that attribute on it. Anything the analysis cannot see through (an object
a function receives from a caller it cannot see, an attribute stored on an object it cannot
tell apart from this one) leaves the setting unknown.
"""

from __future__ import annotations

from .facts import Kind, Value, literal_key
from .forwarded_arguments import forwarded, passed_argument
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef

#: How many calls up a setting object is followed from the parameter that receives it.
_CALLER_DEPTH = 2

Holder = ClassRef | VariableRef


def fixed_setting(project: Project, value: Value, where: FunctionRef) -> Value | None:
    """Return the one literal that the setting read `value` (seen in `where`) holds, if the
    code fixes it; None if it may hold anything else."""
    if value.kind is Kind.NAME and (constant := _module_constant(project, value, where)):
        return constant  # `NUM_WORKERS = 0` at module level, read in a function
    if value.kind is Kind.NAME and len(value.qualnames) == 1:
        owner, _, attribute = value.qualnames[0].rpartition(".")
        holders = _resolved(project, project.resolve(owner, where.module))
    elif value.kind is Kind.ATTRIBUTE and value.base is not None:
        attribute = value.name
        holders = _holders(project, value.base, where, 0)
    else:
        return None
    if not holders:
        return None
    found = [_held_literal(project, holder, attribute) for holder in holders]
    literals = {literal_key(literal) for literal in found if literal is not None}
    if None in found or len(literals) != 1 or not _stored_only_by(project, holders, attribute):
        return None
    return found[0]


def _module_constant(project: Project, name: Value, where: FunctionRef) -> Value | None:
    """Return the literal a module-level name is bound to, if every binding of it (also
    under `global` in a function) binds that one literal."""
    targets = project.targets(name, where.module)
    if len(targets) != 1 or not isinstance(targets[0], VariableRef):
        return None
    values = targets[0].values
    literals = {literal_key(value) for value in values}
    if not values or None in literals or len(literals) != 1:
        return None
    return values[0]


def _holders(
    project: Project, base: Value, where: FunctionRef, depth: int
) -> tuple[Holder, ...] | None:
    """Return the classes and module-level objects `base` may be; None if it may be another."""
    if base.kind is Kind.NAME:
        return _resolved(project, project.targets(base, where.module))
    if base.kind is not Kind.PARAM or depth >= _CALLER_DEPTH:
        return None
    # `def main(config)`: what every call passes, when no call is hidden.
    if forwarded(project, where) is None:
        return None
    found: list[Holder] = []
    for site in project.callers(where):
        passed = passed_argument(where, site.call, base.name)
        held = None if passed is None else _holders(project, passed, site.function, depth + 1)
        if held is None:
            return None
        found.extend(held)
    return tuple(dict.fromkeys(found))


def _resolved(project: Project, targets: tuple[object, ...]) -> tuple[Holder, ...] | None:
    """Return `targets` if each is a project class or a module-level instance of one."""
    holders: list[Holder] = []
    for target in targets:
        if not isinstance(target, ClassRef | VariableRef):
            return None
        if isinstance(target, VariableRef) and not (
            target.values and all(_instance_class(project, target, made) for made in target.values)
        ):
            return None  # not an object the project makes from its own class
        holders.append(target)
    return tuple(holders) or None


def _instance_class(project: Project, variable: VariableRef, made: Value) -> ClassRef | None:
    if made.kind is not Kind.CALL or made.base is None:
        return None
    classes = [
        target
        for target in project.targets(made.base, variable.module)
        if isinstance(target, ClassRef)
    ]
    return classes[0] if len(classes) == 1 else None


def _held_literal(project: Project, holder: Holder, attribute: str) -> Value | None:
    """Return the literal `holder` holds as `attribute`: stored once on the object by its
    module (agreeing with its class body, if that gives one: the store may sit under a test),
    else given by its class body; None if its class's methods may set it."""
    if isinstance(holder, ClassRef):
        return _class_literal(project, holder, attribute)
    classes = {_instance_class(project, holder, made) for made in holder.values}
    cls = classes.pop() if len(classes) == 1 else None
    if cls is None or _set_by_methods(project, cls, attribute):
        return None
    stored = _module_stores(holder, attribute)
    given = _class_literal(project, cls, attribute)
    if not stored:
        return given
    literal = stored[0]
    if len(stored) > 1 or literal.kind not in (Kind.INT, Kind.CONSTANT):
        return None
    return literal if given is None or literal_key(given) == literal_key(literal) else None


def _class_literal(project: Project, cls: ClassRef, attribute: str) -> Value | None:
    """Return the literal the class body of `cls` (or of its nearest base that binds it)
    gives `attribute`, if its methods never set it on instances."""
    if _set_by_methods(project, cls, attribute):
        return None
    for ancestor in project.mro(cls):
        bound = [item.value for item in ancestor.cls.attributes if item.target == attribute]
        if bound:
            literal = bound[-1]
            fixed = len(bound) == 1 and literal.kind in (Kind.INT, Kind.CONSTANT)
            return literal if fixed else None
    return None


def _set_by_methods(project: Project, cls: ClassRef, attribute: str) -> bool:
    """Return True if a method of `cls` or its bases sets `self.<attribute>`."""
    for ancestor in project.mro(cls):
        for _, qualname in ancestor.cls.methods:
            method = ancestor.module.function(qualname)
            if method is not None and any(
                item.target == f"self.{attribute}" for item in method.assignments
            ):
                return True
    return False


def _module_stores(variable: VariableRef, attribute: str) -> list[Value]:
    """Return what the module-level code of `variable`'s module stores as its `attribute`."""
    code = variable.module.function("<module>")
    return [
        store.value
        for store in (code.attribute_stores if code is not None else ())
        if store.attribute == attribute and _names(store.base, variable)
    ]


def _names(base: Value, variable: VariableRef) -> bool:
    return base.kind is Kind.NAME and base.qualnames == (
        f"{variable.module.module}.{variable.name}",
    )


def _stored_only_by(project: Project, holders: tuple[Holder, ...], attribute: str) -> bool:
    """Return True if no code but the module-level code of the holders' own modules stores
    `attribute` on an object that may be one of them."""
    for function in project.functions_mentioning(attribute):
        for store in function.function.attribute_stores:
            if store.attribute != attribute:
                continue
            if function.function.qualname == "<module>" and any(
                isinstance(holder, VariableRef) and _names(store.base, holder) for holder in holders
            ):
                continue  # the stores `_held_literal` reads
            targets = (
                project.targets(store.base, function.module) if store.base.kind is Kind.NAME else ()
            )
            if not targets or any(target in holders for target in targets):
                return False
    return True
