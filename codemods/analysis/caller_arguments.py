"""What every call of a plain function passes as one of its parameters.

`def get_loaders(root, shuffle_tokens): ... Dataset(root, shuffle_tokens=shuffle_tokens)`,
called only as `get_loaders(root, CFG.SHUFFLE_TOKENS)` with `class CFG: SHUFFLE_TOKENS =
False`: inside, the parameter is False, as if the literal were written there.
"""

from __future__ import annotations

from .facts import Value
from .known_values import Known, passed_argument, union_of
from .module_constants import constant_keys
from .project import Project
from .refs import FunctionRef


def passed_by_every_caller(project: Project, function: FunctionRef, param: str) -> Known | None:
    """Return what every call of `function` in the project passes as `param`: literals,
    literal defaults, module constants and constants of settings classes. None if one is
    anything else, or `function` may be called in ways not seen (a method, a nested
    function, one handed on as a value, one nothing calls)."""
    passed = written_by_every_caller(project, function, param)
    if passed is None:
        return None
    options: list[Known | None] = []
    for value, caller in passed:
        if isinstance(value, Value):
            keys = constant_keys(project, value, caller.module)
            value = None if keys is None else Known(keys)
        if value is None:
            return None
        options.append(value)
    return union_of(options)


def written_by_every_caller(
    project: Project, function: FunctionRef, param: str
) -> list[tuple[Value | Known | None, FunctionRef]] | None:
    """Return what each call of plain function `function` passes as `param` (as
    `passed_argument` gives it), with the function the call is in; None if `function` may be
    called in ways not seen."""
    facts = function.function
    if facts.is_method or facts.nested or param not in facts.params:
        return None
    sites = project.callers(function)
    if not sites or project.is_referenced(function):
        return None
    return [(passed_argument(site.call, facts, param, bound=0), site.function) for site in sites]
