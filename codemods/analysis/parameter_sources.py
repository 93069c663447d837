"""What a parameter holds, from the calls that pass it an argument.

A function's callers, a class's constructions (and the subclass `__init__`s that run its
`__init__` through `super()`), or a method's callers in its own class: each passes the
parameter by keyword, by position, as part of a `*args` tuple, or hands it on from its own
`**kwargs`, whose keyword its own callers pass in turn.
"""

from __future__ import annotations

from ..types import Span
from .attribute_classes import attribute_constructions
from .base_inits import base_init_callers
from .branch_feasibility import ruled_out_by_call
from .candidates import MAX_RESOLUTION_DEPTH, DatasetsOf, Resolver, merge
from .facts import Kind, Value
from .forwarded_arguments import hides_arguments, spreads_own_keywords
from .memo import per_project
from .module_lookups import looked_up_constructions
from .project import Project
from .refs import FunctionRef
from .self_calls import self_callers, subclasses
from .spread_arguments import gathered_arguments, positional_argument


def from_callers(
    project: Project,
    param: str,
    where: FunctionRef,
    depth: int,
    resolve: Resolver,
    read: Span | None = None,
) -> DatasetsOf:
    """Resolve what parameter `param` of `where` holds, from every call that runs `where`.

    `read`: where `where` reads the parameter; a call of a plain function whose arguments
    rule out the branch holding it (`loaders(items, training=False)` for a read in the
    `if training:` arm) passes nothing that reaches the read.
    """
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
    gathered = function.has_var_positional and index + shift == function.positional_count
    results = []
    for call, caller in calls:
        if read is not None and shift == 0 and ruled_out_by_call(call, caller, where, read):
            continue
        if gathered:
            # `def __init__(self, *transforms)`: the tuple of what is passed from there on.
            passed = gathered_arguments(call, index)
        else:
            # `f(*pair, x)`: `x` fills the parameter only if `pair`'s length is known.
            passed = call.keyword(param) or positional_argument(project, call, caller, index)
        default = function.named_default(param)
        if (
            passed is None
            and default is not None
            and not gathered
            and not hides_arguments(project, call, caller)
            and not spreads_own_keywords(call, caller)
        ):
            # Not passed: the default (`augmentor=ImgAugTransform()`), seen where it is.
            results.append(resolve(project, default, where, depth + 1))
            continue
        results.append(_resolved(project, param, call, caller, passed, depth, resolve))
    return merge(results)


@per_project
def _calls_of_function(
    project: Project, where: FunctionRef
) -> tuple[tuple[tuple[Value, FunctionRef], ...], int] | None:
    """Return the calls that run `where`, each with the function it is written in, and how
    many parameters before the arguments they bind (1 for a method's `self`). Kept: each
    parameter of a constructor asks again."""
    owner = project.class_of_function(where)
    if owner is not None and where.function.name != "__init__":
        # A helper method (`self._loader(self.train_set)`): its callers are its class's code.
        sites = self_callers(project, where)
        return None if sites is None else (tuple(sites), 1)
    if owner is not None:
        calls = [(site.call, site.function) for site in project.callers(owner)]
        # `self.dataset(...)` after `self.dataset = Coco`: made through an attribute.
        calls.extend(attribute_constructions(project, owner))
        # A subclass that inherits this `__init__` runs it when made: `Coco(pipeline=p)`.
        for subclass in subclasses(project, owner):
            inherited = project.find_method(subclass, "__init__")
            if inherited is not None and inherited[1] == where:
                calls.extend((site.call, site.function) for site in project.callers(subclass))
                calls.extend(attribute_constructions(project, subclass))
        # A subclass's `__init__` hands its arguments on: `super().__init__(phase, transform)`.
        calls.extend(base_init_callers(project, where))
        # `getattr(module_data, cfg["type"])(...)`: made by a name looked up at run time.
        calls.extend(looked_up_constructions(project, owner))
        return (tuple(calls), 1) if calls else None
    calls = [(site.call, site.function) for site in project.callers(where)]
    return (tuple(calls), 0) if calls else None


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
    return merge(
        [
            _resolved(project, param, call, caller, call.keyword(param), depth, resolve)
            for call, caller in found[0]
        ]
    )


def _resolved(
    project: Project,
    param: str,
    call: Value,
    caller: FunctionRef,
    passed: Value | None,
    depth: int,
    resolve: Resolver,
) -> DatasetsOf:
    """Resolve what `call` (written in `caller`) passes as parameter `param`: `passed`, or,
    when it hands on `caller`'s own `**kwargs`, what `caller`'s callers pass under `param`."""
    if passed is not None and passed.kind is not Kind.STARRED:
        return resolve(project, passed, caller, depth)
    if passed is None and spreads_own_keywords(call, caller):
        handed_on = _from_keyword_callers(project, param, caller, depth + 1, resolve)
        if hides_arguments(project, call, caller):  # or by position, from `*args`
            return merge([handed_on, DatasetsOf((), False)])
        return handed_on
    return DatasetsOf((), False)
