"""What a subclass `__init__` passes to a base class's `__init__`: `super().__init__(a, b)`
or `Base.__init__(self, a, b)`. A base that stores a parameter (`self.transform =
transform`) stores what the subclass passes there."""

from __future__ import annotations

from .facts import Kind, Value
from .project import Project
from .refs import ClassRef, FunctionRef


def forwarded(
    project: Project, ref: ClassRef, base_init: FunctionRef, value: Value
) -> list[tuple[Value, FunctionRef]]:
    """Return, for parameter `value` of `base_init` (a base's `__init__`), what the
    `__init__` of each subclass of that base in `ref`'s hierarchy passes for it, and where.

    Empty when `value` is not a parameter or no subclass `__init__` calls the base's.
    """
    params = base_init.function.params
    if value.kind is not Kind.PARAM or value.name not in params:
        return []
    owner = project.class_of_function(base_init)
    index = params.index(value.name) - 1
    found: list[tuple[Value, FunctionRef]] = []
    for cls in project.mro(ref):
        qualname = cls.cls.method("__init__")
        function = cls.module.function(qualname) if qualname else None
        if function is None or cls == owner or owner not in project.mro(cls):
            continue
        init = FunctionRef.of(cls.module, function)
        for call in function.calls:
            offset = _base_init_offset(project, call, init, base_init)
            if offset is None or any(arg.kind is Kind.STARRED for arg in call.args):
                continue
            passed = call.keyword(value.name)
            if passed is None and 0 <= index + offset < len(call.args):
                passed = call.args[index + offset]
            if passed is not None:
                found.append((passed, init))
    return found


def _base_init_offset(
    project: Project, call: Value, caller: FunctionRef, base_init: FunctionRef
) -> int | None:
    """Return how many arguments precede the base's own parameters in a call of its
    `__init__` (0 for `super().__init__`, 1 for `Base.__init__(self, ...)`); None if the
    call is not one."""
    callee = call.base
    if callee is None:
        return None
    if (
        callee.kind is Kind.ATTRIBUTE
        and callee.name == "__init__"
        and callee.base is not None
        and callee.base.kind is Kind.CALL
        and callee.base.base is not None
        and "builtins.super" in callee.base.base.qualnames
    ):
        return 0
    if (
        callee.kind is Kind.NAME
        and call.args
        and call.args[0].kind is Kind.SELF
        and base_init in project.targets(callee, caller.module)
    ):
        return 1
    return None
