"""What a parameter holds, from the calls that pass it an argument.

A function's callers, a class's constructions (and the subclass `__init__`s that run its
`__init__` through `super()`), or a method's callers in its own class: each passes the
parameter by keyword, by position, as part of a `*args` tuple, or hands it on from its own
`**kwargs`, whose keyword its own callers pass in turn.
"""

from __future__ import annotations

from .base_inits import base_init_callers
from .candidates import MAX_RESOLUTION_DEPTH, DatasetsOf, Resolver, merge
from .facts import Kind, Value
from .forwarded_arguments import spreads_own_keywords
from .module_lookups import looked_up_constructions
from .project import Project
from .refs import FunctionRef
from .self_calls import self_callers
from .spread_arguments import gathered_arguments, positional_argument


def from_callers(
    project: Project, param: str, where: FunctionRef, depth: int, resolve: Resolver
) -> DatasetsOf:
    """Resolve what parameter `param` of `where` holds, from every call that runs `where`."""
    function = where.function
    if function.qualname == "<module>":
        return DatasetsOf((), False)
    if param not in function.params:
        # A keyword that lands in `**kwargs` (handed on by `super().__init__(**kwargs)`).
        return _from_keyword_callers(project, param, where, depth, resolve)
    found = _calls_of_function(project, where)
    if found is None:
        return DatasetsOf((), False)
    calls, shift = found
    index = function.params.index(param) - shift
    results = []
    gathered = function.has_var_positional and index + shift == function.positional_count
    for call, caller in calls:
        passed = call.keyword(param)
        if gathered:
            # `def __init__(self, *transforms)`: the tuple of what is passed from there on.
            passed = gathered_arguments(call, index)
        elif passed is None:
            # `f(*pair, x)`: `x` fills the parameter only if `pair`'s length is known.
            passed = positional_argument(project, call, caller, index)
        if passed is None and spreads_own_keywords(call, caller):
            results.append(_from_keyword_callers(project, param, caller, depth + 1, resolve))
            if any(arg.kind is Kind.STARRED for arg in call.args):
                results.append(DatasetsOf((), False))  # or by position, from `*args`
        elif passed is None or passed.kind is Kind.STARRED:
            results.append(DatasetsOf((), False))
        else:
            results.append(resolve(project, passed, caller, depth))
    return merge(results)


def _calls_of_function(
    project: Project, where: FunctionRef
) -> tuple[list[tuple[Value, FunctionRef]], int] | None:
    """Return the calls that run `where`, each with the function it is written in, and how
    many parameters before the arguments they bind (1 for a method's `self`)."""
    owner = project.class_of_function(where)
    if owner is not None and where.function.name != "__init__":
        # A helper method (`self._loader(self.train_set)`): its callers are its class's code.
        sites = self_callers(project, where)
        return None if sites is None else (list(sites), 1)
    if owner is not None:
        calls = [(site.call, site.function) for site in project.callers(owner)]
        # A subclass's `__init__` hands its arguments on: `super().__init__(phase, transform)`.
        calls.extend(base_init_callers(project, where))
        # `getattr(module_data, cfg["type"])(...)`: made by a name looked up at run time.
        calls.extend(looked_up_constructions(project, owner))
        return (calls, 1) if calls else None
    calls = [(site.call, site.function) for site in project.callers(where)]
    return (calls, 0) if calls else None


def _from_keyword_callers(
    project: Project, param: str, where: FunctionRef, depth: int, resolve: Resolver
) -> DatasetsOf:
    """Return what keyword `param` holds in the `**kwargs` of `where`, from its callers."""
    facts = where.function
    if not facts.has_var_keyword or depth > MAX_RESOLUTION_DEPTH:
        return DatasetsOf((), False)
    found = _calls_of_function(project, where)
    if found is None:
        return DatasetsOf((), False)
    results = []
    for call, caller in found[0]:
        passed = call.keyword(param)
        if passed is None and spreads_own_keywords(call, caller):
            results.append(_from_keyword_callers(project, param, caller, depth + 1, resolve))
        elif passed is None or passed.kind is Kind.STARRED:
            results.append(DatasetsOf((), False))
        else:
            results.append(resolve(project, passed, caller, depth))
    return merge(results)
