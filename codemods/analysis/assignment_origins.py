"""Where a seed written as a local variable was computed: `seed = base + worker_id`, then
`np.random.seed(seed)`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .facts import Value
from .refs import FunctionRef
from .seed_classification import MAX_DEPTH


def assignment_origin(
    function: FunctionRef, value: Value, seeds: Sequence[Value] | None = None
) -> Value:
    """Follow a local variable to the expression assigned to it in `function`.

    Names are resolved in the analysis: a use of `seed` after `seed = 42 + worker_id` is
    the summary of `42 + worker_id` with the span of the use. Return that assignment's value
    (with its own span), following chains of variables; otherwise `value` itself.
    With `seeds` (every seed expression in `function`), a variable is followed only if
    all its reads are among them, so that rewriting its assignment changes nothing else.
    """
    current = value
    for _ in range(MAX_DEPTH):
        for assignment in function.function.assignments:
            origin = assignment.value
            if (
                "." in assignment.target
                or origin.span == current.span
                or origin.span is None
                or replace(current, span=origin.span) != origin
            ):
                continue
            if seeds is not None:
                uses = sum(replace(seed, span=origin.span) == origin for seed in seeds)
                if uses < function.function.reads_of(assignment.target):
                    return current
            current = origin
            break
        else:
            return current
    return current
