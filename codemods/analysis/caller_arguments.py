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
    facts = function.function
    if facts.is_method or facts.nested or param not in facts.params:
        return None
    sites = project.callers(function)
    if not sites or project.is_referenced(function):
        return None
    options: list[Known | None] = []
    for site in sites:
        passed = passed_argument(site.call, facts, param, bound=0)
        if isinstance(passed, Value):
            keys = constant_keys(project, passed, site.function.module)
            passed = None if keys is None else Known(keys)
        if passed is None:
            return None
        options.append(passed)
    return union_of(options)
