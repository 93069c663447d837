"""Tests written around a DataLoader's `num_workers`: where the code itself says that no
worker starts (`if workers > 0: DataLoader(..., num_workers=workers) else: DataLoader(...,
num_workers=workers)`), or that the workers persist whenever they start
(`persistent_workers=workers > 0`). The expression tested must be the very one passed as
`num_workers`, the same value written at another place.
"""

from __future__ import annotations

from dataclasses import replace

from .facts import FunctionFacts, Kind, Value

__all__ = ["holds_when_workers_start", "made_only_without_workers"]


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
