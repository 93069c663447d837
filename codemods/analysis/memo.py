"""Project-wide answers computed once and shared by every rule that asks.

Several rules ask the same questions of one project (its DataLoader calls, what each
Dataset's per-item code runs, which RNG objects it draws from); each answer depends only on
the project and the arguments, so it is kept on the `Project` (in `Project.memo`) for as
long as the project is analysed. A fix round builds a new `Project` from the rewritten
files, and with it an empty memo.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from .facts import ModuleFacts, Value
from .refs import FunctionRef

if TYPE_CHECKING:
    from .project import Project

_P = ParamSpec("_P")
_R = TypeVar("_R")
_D = TypeVar("_D")


def per_project(
    function: Callable[Concatenate[Project, _P], _R],
) -> Callable[Concatenate[Project, _P], _R]:
    """Keep what `function(project, ...)` returns for each project and arguments.

    `function` must be deterministic in its arguments, and its result must not be mutated
    by callers (return tuples, frozen objects). Summarised expressions (`Value`) are keyed
    and modules (`ModuleFacts`) are keyed by identity: hashing one hashes every
    sub-expression, and a summary's objects are the same every time they are asked for.
    """

    @functools.wraps(function)
    def memoised(project: Project, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        table = project.memo.setdefault(function, {})
        key = _key(args, kwargs)
        found = table.get(key)
        if found is not None:
            return found[1]  # type: ignore[no-any-return]
        result = function(project, *args, **kwargs)
        # The arguments stay referenced with the result: an object keyed by identity is
        # never freed, so its id is never reused for another while the project lives.
        table[key] = ((args, kwargs), result)
        return result

    return memoised


def on_reentry(
    default: _D,
) -> Callable[
    [Callable[Concatenate[Project, _P], _R]], Callable[Concatenate[Project, _P], _R | _D]
]:
    """Make `function(project, ...)` answer `default` when asked again, with the same
    arguments, while it computes that answer.

    Some questions depend on their own answer: who calls method `a` is known once the object
    `a` is called on is resolved, and that object may come from a parameter of a method `b`
    whose callers are found through `a`. `default` must be the answer that claims least.
    """

    def decorate(
        function: Callable[Concatenate[Project, _P], _R],
    ) -> Callable[Concatenate[Project, _P], _R | _D]:
        @functools.wraps(function)
        def guarded(project: Project, /, *args: _P.args, **kwargs: _P.kwargs) -> _R | _D:
            running = project.memo.setdefault(guarded, {})
            key = _key(args, kwargs)
            if key in running:
                return default
            running[key] = None
            try:
                return function(project, *args, **kwargs)
            finally:
                del running[key]

        return guarded

    return decorate


def _key(args: tuple[object, ...], kwargs: dict[str, object]) -> Hashable:
    parts = tuple(_part(arg) for arg in args)
    if kwargs:
        parts += tuple((name, _part(value)) for name, value in sorted(kwargs.items()))
    return parts


def _part(argument: object) -> Hashable:
    if isinstance(argument, Value | ModuleFacts):
        return (type(argument), id(argument))
    if isinstance(argument, FunctionRef) and argument.receiver is not None:
        return (argument, argument.receiver)  # the method as it runs on a subclass
    return argument
