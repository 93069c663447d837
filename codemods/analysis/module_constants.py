"""Module-level constants: `DATASET_SIZE = 128 * 256` at the top of a script, passed on.

A name bound at module level only to int literals, other short literals, or integer
arithmetic on them (`128 * 256`, `2 ** 10`) is one of those values wherever it is read. So
is an attribute of a settings class (`class CFG: SHUFFLE = False`) that its body binds only
to such values and that no code of the project stores.
"""

from __future__ import annotations

from .facts import Kind, ModuleFacts, Value, literal_key
from .project import Project
from .refs import ClassRef, VariableRef

#: Integer operators whose result is computed here (others may raise or grow without bound).
_ARITHMETIC = {
    "+": int.__add__,
    "-": int.__sub__,
    "*": int.__mul__,
}


def constant_keys(project: Project, value: Value, near: ModuleFacts) -> frozenset[str] | None:
    """Return the literals (as `literal_key` writes them) that NAME `value`, read in `near`,
    may be, when it is a module-level variable bound only to constants (None otherwise)."""
    if value.kind is not Kind.NAME:
        return None
    targets = project.targets(value, near)
    if not targets:
        return _class_attribute_keys(project, value, near)
    if not all(isinstance(target, VariableRef) for target in targets):
        return None
    keys: set[str] = set()
    for target in targets:
        assert isinstance(target, VariableRef)
        for assigned in target.values:
            key = _constant_key(assigned)
            if key is None:
                return None
            keys.add(key)
    return frozenset(keys)


def _class_attribute_keys(
    project: Project, value: Value, near: ModuleFacts
) -> frozenset[str] | None:
    """Return the literals `CFG.SHUFFLE` may be: bound in the class body of project class
    `CFG` to constants only, and stored nowhere in the project (`CFG.SHUFFLE = True`)."""
    keys: set[str] = set()
    for qualname in value.qualnames:
        owner, _, attribute = qualname.rpartition(".")
        classes = [
            target for target in project.resolve(owner, near) if isinstance(target, ClassRef)
        ]
        if not owner or not classes:
            return None
        for ref in classes:
            bound = [item.value for item in ref.cls.attributes if item.target == attribute]
            found = [_constant_key(item) for item in bound]
            if not found or None in found:
                return None
            keys.update(key for key in found if key is not None)
        if any(
            store.attribute == attribute
            and set(project.targets(store.base, function.module)) & set(classes)
            for function in project.functions_mentioning(attribute)
            for store in function.function.attribute_stores
        ):
            return None
    return frozenset(keys) if keys else None


def _constant_key(value: Value) -> str | None:
    number = _number(value)
    return repr(number) if number is not None else literal_key(value)


def _number(value: Value, depth: int = 0) -> int | None:
    if value.kind is Kind.INT:
        return value.number
    if value.kind is not Kind.BINOP or depth > _MAX_TERMS or len(value.args) != 2:
        return None
    operator = _ARITHMETIC.get(value.name)
    left, right = (_number(arg, depth + 1) for arg in value.args)
    if operator is None or left is None or right is None:
        return None
    return operator(left, right)


#: How deeply nested an arithmetic expression is computed.
_MAX_TERMS = 8
