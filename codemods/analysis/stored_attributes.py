"""What an attribute of an object holds at a call: the value the calling function stored in
it just before (`config.workers = 0`, then `DataLoader(..., num_workers=config.workers)`;
`hps.aug_shift = False`, then `Dataset(hps)`).
"""

from __future__ import annotations

from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef
from .worker_conditions import unspanned

__all__ = ["stored_before"]


def stored_before(project: Project, where: FunctionRef, call: Value, read: Value) -> Value | None:
    """Return the value `read`, an attribute of an object (`config.input_threads`), holds at
    `call` in `where`: the one stored in it last before the call, by a store that runs on
    every path to it (`config.input_threads = 0` in the same block, or one around it).

    None when no such store is seen, or when a store in a branch may follow it. Handing the
    object to a call, or calling a method of it, between the two may change it: that is
    allowed only when no other function of the project stores an attribute of that name.
    """
    if call.span is None:
        return None
    target = _attribute_target(read)
    if target is None:
        return None
    base, attribute = target
    # A call bound to a variable takes the span of the variable's use; its callee keeps the
    # place the call is written (`dataset = Dataset(hps)`, used by a loader lines below).
    written = call.base.span if call.base is not None and call.base.span else call.span
    line = written.line
    function = where.function
    stores = [
        store
        for store in function.attribute_stores
        if store.attribute == attribute and unspanned(store.base) == base
    ]
    if any(line <= store.span.line <= call.span.line for store in stores):
        return None  # stored between the call and the use that took its place
    before = sorted(
        (store for store in stores if store.span.line < line),
        key=lambda store: (store.span.line, store.span.column),
    )
    always = [store for store in before if store.block_end is None or line <= store.block_end]
    if not always or always[-1] is not before[-1]:
        return None
    stored = always[-1].span.line
    handed = any(
        _hands_object(other, base)
        for other in function.calls
        if other.span is not None and stored <= other.span.line < line
    )
    if handed and _stored_elsewhere(project, where, attribute):
        return None
    return always[-1].value


def _hands_object(call: Value, base: Value) -> bool:
    """Return True if `call` passes the object `base` or calls a method of it (a builtin
    such as `print` changes no attribute)."""
    callee = call.base
    if (
        callee is not None
        and callee.kind is Kind.NAME
        and callee.qualnames
        and all(name.startswith("builtins.") for name in callee.qualnames)
    ):
        return False
    handed = (*call.args, *(value for _, value in call.keywords))
    return any(unspanned(value) == base for value in handed) or (
        call.base is not None and _is_method_of(call.base, base)
    )


def _stored_elsewhere(project: Project, where: FunctionRef, attribute: str) -> bool:
    """Return True if a project function other than `where` stores an attribute named
    `attribute` (`self.input_threads = ...`, `cfg.input_threads = ...`). Another file's
    module code is not called: it runs when the file is imported or run as a script."""
    suffix = f".{attribute}"
    return any(
        function != where
        and (function.path == where.path or function.function.qualname != "<module>")
        and (
            any(store.attribute == attribute for store in function.function.attribute_stores)
            or any(item.target.endswith(suffix) for item in function.function.assignments)
        )
        for function in project.functions_mentioning(attribute)
    )


def _is_method_of(callee: Value, base: Value) -> bool:
    """Return True if `callee` is a method of the object `base` (`config.load`)."""
    if callee.kind is Kind.ATTRIBUTE and callee.base is not None:
        return unspanned(callee.base) == base
    owners = base.qualnames
    return (
        callee.kind is Kind.NAME
        and len(owners) == 1
        and any(name.rpartition(".")[0] == owners[0] for name in callee.qualnames)
    )


def _attribute_target(read: Value) -> tuple[Value, str] | None:
    """Return the object and the attribute name `read` reads: `config.workers` in a function
    (an attribute of a local value), or at module level, where the summary names it
    `script.config.workers`."""
    if read.kind is Kind.ATTRIBUTE and read.base is not None:
        return unspanned(read.base), read.name
    if read.kind is Kind.NAME and len(read.qualnames) == 1:
        owner, _, attribute = read.qualnames[0].rpartition(".")
        if owner:
            return Value(Kind.NAME, qualnames=(owner,)), attribute
    return None
