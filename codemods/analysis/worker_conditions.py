"""Code written around a DataLoader's `num_workers`: where the code itself says that no
worker starts (`if workers > 0: DataLoader(..., num_workers=workers) else: DataLoader(...,
num_workers=workers)`, or `config.workers = 0` just before it), or that the workers persist
whenever they start (`persistent_workers=workers > 0`). The expression tested must be the
very one passed as `num_workers`, the same value written at another place.
"""

from __future__ import annotations

from dataclasses import replace

from .facts import FunctionFacts, Kind, Value
from .project import Project
from .refs import FunctionRef

__all__ = ["holds_when_workers_start", "made_only_without_workers", "stored_before"]


def made_only_without_workers(function: FunctionFacts, call: Value, workers: Value) -> bool:
    """Return True if `call` (in `function`) runs only where `workers`, the expression it
    passes as `num_workers`, is at most 0: the `else` of `if workers > 0:` (or `>= 1`), the
    body of `if workers <= 0:` (or `< 1`)."""
    if call.span is None:
        return False
    for branch in function.branches:
        if branch.compared is None or branch.order is None:
            continue
        holds = branch.governs(call.span)
        if holds is None or unspanned(branch.compared) != unspanned(workers):
            continue
        if (branch.order, holds) in _NO_WORKERS:
            return True
    return False


#: (ordering test of `num_workers`, its outcome) pairs under which no worker starts.
_NO_WORKERS = frozenset(
    {
        ((">", "0"), False),
        ((">=", "1"), False),
        (("<=", "0"), True),
        (("<", "1"), True),
    }
)
#: (comparison, number) pairs for which `num_workers <comparison> number` says workers start.
_WORKERS_START = frozenset({(">", 0), ("!=", 0), (">=", 1)})
#: The same comparisons with the number on the left (`0 < num_workers`).
_MIRRORED = {"<": ">", "!=": "!=", "<=": ">="}


def holds_when_workers_start(test: Value, workers: Value) -> bool:
    """Return True if `test` compares the very expression passed as `num_workers` so that it
    holds exactly when workers start (`num_workers > 0`, `0 != num_workers`, ...)."""
    if test.kind is not Kind.COMPARE or len(test.args) != 2:
        return False
    left, right = test.args
    if right.kind is Kind.INT and (test.name, right.number) in _WORKERS_START:
        subject = left
    elif left.kind is Kind.INT and (_MIRRORED.get(test.name), left.number) in _WORKERS_START:
        subject = right
    else:
        return False
    return unspanned(subject) == unspanned(workers)


def persists(persistent: Value, workers: Value | None) -> bool:
    """Return True if `persistent_workers=persistent` keeps the workers whenever they start."""
    if persistent.kind is Kind.CONSTANT and persistent.name == "True":
        return True
    return workers is not None and holds_when_workers_start(persistent, workers)


def unspanned(value: Value) -> Value:
    """Return `value` without the places it was written: the same expression at two places."""
    return replace(
        value,
        span=None,
        base=None if value.base is None else unspanned(value.base),
        args=tuple(unspanned(arg) for arg in value.args),
        keywords=tuple((name, unspanned(item)) for name, item in value.keywords),
    )


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
    line = call.span.line
    function = where.function
    before = sorted(
        (
            store
            for store in function.attribute_stores
            if store.attribute == attribute
            and unspanned(store.base) == base
            and store.span.line < line
        ),
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
    """Return True if `call` passes the object `base` or calls a method of it."""
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
