"""What a function's own `*args` and `**kwargs` hold, from the calls the project makes of it.

`def loader(dataset, *args, klass=DataLoader, **kwargs): return klass(dataset, *args,
**kwargs)` hands its callers' extra arguments on. When it is a plain module-level function
that the project only calls (never hands on as a value), those calls are every call there
is: they tell which keywords its `**kwargs` may hold, and whether its `*args` is ever given
anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from .facts import Kind, Value, literal_key
from .memo import per_project
from .project import Project
from .refs import FunctionRef


@dataclass(frozen=True)
class Forwarded:
    """What the project's calls of a function put into its `*args` and `**kwargs`."""

    #: The keywords some call passes that name no parameter: they land in `**kwargs`.
    keywords: frozenset[str]
    #: Some call passes more positional arguments than the function names.
    positional: bool


@per_project
def forwarded(project: Project, function: FunctionRef) -> Forwarded | None:
    """Return what every call of `function` puts into its `*args` and `**kwargs`; None if a
    call may be hidden (a method, a nested function, one used as a value, one never called)
    or spreads arguments of its own."""
    facts = function.function
    if facts.class_qualname is not None or facts.nested or facts.qualname == "<module>":
        return None
    sites = project.callers(function)
    if not sites:
        return None
    named = facts.params[: facts.positional_count]
    keywords: set[str] = set()
    positional = False
    for site in sites:
        call = site.call
        if any(key is None for key, _ in call.keywords) or any(
            arg.kind is Kind.STARRED for arg in call.args
        ):
            return None
        keywords.update(
            key for key, _ in call.keywords if key is not None and key not in facts.params
        )
        positional = positional or len(call.args) > len(named)
    # Asked last: it reads every module that names the function, and a call above that
    # spreads arguments already answers.
    if project.is_referenced(function):
        return None
    return Forwarded(frozenset(keywords), positional)


def var_positional(function: FunctionRef) -> str | None:
    """Return the name of `function`'s `*args` parameter, if it has one."""
    facts = function.function
    return facts.params[facts.positional_count] if facts.has_var_positional else None


def forwards_nothing_positional(project: Project, function: FunctionRef, arg: Value) -> bool:
    """Return True if `*arg` spreads `function`'s own `*args`, which no call ever fills."""
    base = arg.base
    if arg.kind is not Kind.STARRED or base is None or base.kind is not Kind.PARAM:
        return False
    if base.name != var_positional(function):
        return False
    found = forwarded(project, function)
    return found is not None and not found.positional


def spreads_own_keywords(call: Value, caller: FunctionRef) -> bool:
    """Return True if `call` passes on `caller`'s own `**kwargs` (`super().__init__(**kwargs)`)."""
    return any(key is None and _own_kwargs(value, caller) for key, value in call.keywords)


def hides_arguments(project: Project, call: Value, caller: FunctionRef) -> bool:
    """Return True if `call` spreads arguments that cannot be seen where it is written.

    `caller`'s own `**kwargs` handed on is seen (its keywords come from `caller`'s calls),
    and so is its own `*args` when no construction of its class puts anything there.
    """
    if any(key is None and not _own_kwargs(value, caller) for key, value in call.keywords):
        return True
    return any(arg.kind is Kind.STARRED for arg in visible_args(project, call, caller))


def visible_args(project: Project, call: Value, caller: FunctionRef) -> tuple[Value, ...]:
    """Return the positional arguments of `call`, leaving out `*args` when it spreads
    `caller`'s own `*args` and no construction of `caller`'s class puts anything there."""
    own = var_positional(caller)
    if own is None or not _constructions_fill_no_args(project, caller):
        return call.args
    return tuple(
        arg
        for arg in call.args
        if not (
            arg.kind is Kind.STARRED
            and arg.base is not None
            and arg.base.kind is Kind.PARAM
            and arg.base.name == own
        )
    )


def _own_kwargs(value: Value, caller: FunctionRef) -> bool:
    facts = caller.function
    return facts.has_var_keyword and value.kind is Kind.PARAM and value.name == facts.params[-1]


@per_project
def _constructions_fill_no_args(project: Project, init: FunctionRef) -> bool:
    """Return True if `init` is an `__init__` whose class every construction makes with no
    more positional arguments than it names (its `*args` stays empty)."""
    owner = project.class_of_function(init)
    if owner is None or init.function.name != "__init__" or project.is_referenced(owner):
        return False
    sites = project.callers(owner)
    named = init.function.positional_count - 1
    return bool(sites) and all(
        not any(arg.kind is Kind.STARRED for arg in site.call.args) and len(site.call.args) <= named
        for site in sites
    )


def forwards_no_keyword(project: Project, function: FunctionRef, splat: Value, name: str) -> bool:
    """Return True if `**splat` spreads `function`'s own `**kwargs`, into which no call
    passes keyword `name`."""
    facts = function.function
    if not (splat.kind is Kind.PARAM and facts.has_var_keyword and splat.name == facts.params[-1]):
        return False
    found = forwarded(project, function)
    return found is not None and name not in found.keywords


def literal_of_every_call(project: Project, function: FunctionRef, param: str) -> str | None:
    """Return the literal (as `literal_key` writes it) that parameter `param` of `function`
    takes in every call the project makes of it, passed alike or left at its default; None
    if the calls differ, pass something else, or one may be hidden."""
    facts = function.function
    if param not in facts.params or forwarded(project, function) is None:
        return None
    found: set[str | None] = set()
    for site in project.callers(function):
        value = passed_argument(function, site.call, param)
        found.add(facts.default_of(param) if value is None else literal_key(value))
    return found.pop() if len(found) == 1 else None


def passed_argument(function: FunctionRef, call: Value, param: str) -> Value | None:
    """Return what `call` of plain function `function` passes as `param`, by keyword or by
    position; None if it leaves it at its default (or `function` has no such parameter)."""
    facts = function.function
    value = call.keyword(param)
    if value is None and param in facts.params:
        position = facts.params.index(param)
        if position < min(facts.positional_count, len(call.args)):
            value = call.args[position]
    return value
