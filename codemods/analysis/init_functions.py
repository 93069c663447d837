"""Which project functions DataLoader calls run as `worker_init_fn`, and how they are passed.

`worker_inits.worker_init()` resolves the common spellings; `worker_init_uses()` goes further and
returns every project function a call may run, each with the parameter that receives the
worker id: a function or lambda named directly or through a variable, `functools.partial(fn,
...)`, a bound method (`dataset.seed_worker`), an entry of a `**kwargs` dict, and a parameter
of the function that builds the loader, followed to the callers that pass it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import catalog
from .facts import FunctionFacts, Kind, Value, spelled
from .loaders import LoaderCall, Presence
from .project import Project
from .refs import FunctionRef, VariableRef
from .seed_classification import SeedScope, Source, seed_sources
from .seeds import Seeding, is_static, mentions, seedings
from .worker_inits import PARTIAL, bound_methods, call_method, held_callables

#: Words in a function's name or first parameter that say it is meant as a worker_init_fn.
_WORKER_WORDS = ("worker",)
#: A `def` whose name or first parameter spells one of those words, in any case.
_WORKER_DEF = re.compile(
    r"(?i)\bdef\s[^(]*(?:{0})|\bdef\s[^(]*\(\s*[^,)]*(?:{0})".format("|".join(_WORKER_WORDS))
)

#: How many callers deep a `worker_init_fn` parameter is followed.
_MAX_DEPTH = 4


@dataclass(frozen=True)
class InitUse:
    """A DataLoader call that runs project function `function` as its worker_init_fn."""

    loader: LoaderCall
    function: FunctionRef
    #: The parameter that receives the worker id (None if it cannot be told).
    worker_param: str | None
    #: The expression that names the function where it is written (a lambda, a name, a
    #: `partial(...)` call, `obj.method`), and the code it is written in.
    value: Value
    written_in: FunctionRef
    via_partial: bool = False
    #: The function is a method called through an instance (`self` is bound).
    bound_method: bool = False


def worker_init_uses(loader: LoaderCall) -> tuple[InitUse, ...]:
    """Return the project functions `loader` may run as worker_init_fn."""
    lookup = loader.argument("worker_init_fn")
    if lookup.value is None or lookup.presence not in (Presence.PASSED, Presence.IN_DICT):
        return ()
    written_in = loader.function
    if lookup.presence is Presence.IN_DICT:
        for splat in loader.splats:
            if splat is not None and splat.value == lookup.container:
                written_in = _code_of(loader.project, splat.path, loader.function)
    uses = []
    for found in _resolve(loader.project, lookup.value, written_in, 0, 0):
        function, positional, bound, partial, value, where = found
        offset = positional + (1 if bound else 0)
        uses.append(
            InitUse(
                loader,
                function,
                _worker_param(function, offset),
                value,
                where,
                via_partial=partial,
                bound_method=bound,
            )
        )
    return tuple(dict.fromkeys(uses))


_Found = tuple[FunctionRef, int, bool, bool, Value, FunctionRef]


def _code_of(project: Project, path: Path, fallback: FunctionRef) -> FunctionRef:
    if path == fallback.path:
        return fallback
    module = project.module_at(path)
    code = module.function("<module>") if module is not None else None
    return FunctionRef.of(module, code) if module is not None and code is not None else fallback


def _worker_param(function: FunctionRef, offset: int) -> str | None:
    facts = function.function
    if offset < facts.positional_count:
        return facts.params[offset]
    return None


def _resolve(
    project: Project, value: Value, where: FunctionRef, positional: int, depth: int
) -> Iterator[_Found]:
    """Yield (function, positional args bound, bound method, via partial, value, where)."""
    if depth > _MAX_DEPTH:
        return
    deeper = depth + 1
    module = where.module
    for option in value.alternatives():
        kind = option.kind
        if kind is Kind.CALL and option.base is not None:
            if option.args and project.is_one_of(option.base, module, PARTIAL):
                given = option.args[1:]
                if any(arg.kind is Kind.STARRED for arg in given):
                    continue
                count = positional + len(given)
                for found in _resolve(project, option.args[0], where, count, deeper):
                    yield (*found[:3], True, option, where)
            else:
                # `worker_init_fn=make_init_fn()`: what the project factory returns.
                yield from _returned(project, option, where, positional, deeper)
        elif kind is Kind.FUNCTION:
            nested = module.function(option.name)
            if nested is not None:
                yield FunctionRef.of(module, nested), positional, False, False, option, where
        elif kind is Kind.NAME:
            yield from _resolve_name(project, option, where, positional, deeper)
        elif kind is Kind.ATTRIBUTE and option.base is not None:
            methods = bound_methods(project, option, where)
            for method in methods or held_callables(project, option, where):
                yield method, positional, not is_static(method), False, option, where
        elif kind is Kind.PARAM:
            yield from _from_callers(project, option.name, where, positional, deeper)


def _resolve_name(
    project: Project, value: Value, where: FunctionRef, positional: int, depth: int
) -> Iterator[_Found]:
    for target in project.targets(value, where.module):
        if isinstance(target, FunctionRef):
            static = target.function.is_method and is_static(target)
            if target.function.is_method and not static:
                continue  # `Class.method` passed unbound: the worker id would be `self`
            yield target, positional, False, False, value, where
        elif isinstance(target, VariableRef) and len(target.values) == 1:
            code = target.module.function("<module>")
            if code is not None:
                inner = FunctionRef.of(target.module, code)
                yield from _resolve(project, target.values[0], inner, positional, depth)


def _returned(
    project: Project, call: Value, where: FunctionRef, positional: int, depth: int
) -> Iterator[_Found]:
    assert call.base is not None
    called = call_method(project, call.base, where.module)
    if called is not None:
        yield called, positional, True, False, call, where
        return
    factories = [
        target
        for target in project.targets(call.base, where.module)
        if isinstance(target, FunctionRef)
    ]
    if len(factories) != 1:
        return
    for returned in factories[0].function.returns:
        yield from _resolve(project, returned, factories[0], positional, depth)


def _from_callers(
    project: Project, param: str, where: FunctionRef, positional: int, depth: int
) -> Iterator[_Found]:
    function = where.function
    if param not in function.params or function.is_method or function.qualname == "<module>":
        return
    index = function.params.index(param)
    for site in project.callers(where):
        passed = site.call.keyword(param)
        if passed is None and index < function.positional_count:
            args = site.call.args
            if index < len(args) and all(arg.kind is not Kind.STARRED for arg in args[: index + 1]):
                passed = args[index]
        if passed is not None:
            yield from _resolve(project, passed, site.function, positional, depth)


def partial_bound_sources(
    project: Project, function: FunctionRef, uses: list[InitUse]
) -> dict[str, frozenset[Source]]:
    """Say which parameters `functools.partial` binds to a rank, or to an epoch.

    Bound values are evaluated once, when the loader is built, so they are fixed for it;
    but a loader rebuilt every epoch may bind the epoch (`seed=base + epoch`).
    """
    known: dict[str, set[Source]] = {}
    facts = function.function
    for use in uses:
        call = use.value
        if not use.via_partial or call.kind is not Kind.CALL:
            continue
        offset = 1 if use.bound_method else 0
        bound = [
            (facts.params[offset + index], arg)
            for index, arg in enumerate(call.args[1:])
            if offset + index < facts.positional_count
        ]
        bound += [(name, arg) for name, arg in call.keywords if name in facts.params]
        for name, arg in bound:
            if mentions(arg, "epoch"):
                known.setdefault(name, set()).add(Source.UNKNOWN)
                continue
            sources = seed_sources(project, arg, SeedScope(use.written_in))
            if Source.RANK in sources:
                known.setdefault(name, set()).update({Source.RANK, Source.PARAMETER})
    return {name: frozenset(sources) for name, sources in known.items()}


# --- functions that look like a worker_init_fn ---


def worker_init_lookalikes(
    project: Project, exclude: Collection[FunctionRef] = ()
) -> Iterator[FunctionRef]:
    """Yield module-level functions, other than `exclude`, whose name or first parameter says
    "worker", or whose code calls `get_worker_info` or `np.random.get_state`: functions meant
    as a worker_init_fn."""
    for function in _lookalike_candidates(project):
        if function not in exclude and _looks_like_worker_init(
            project, function, function.function.params[0]
        ):
            yield function


def _lookalike_candidates(project: Project) -> Iterator[FunctionRef]:
    """Yield module-level functions that may look like a worker_init_fn.

    Such a function's name or first parameter spells "worker", or its code spells a
    name for `get_worker_info` or `np.random.get_state`: only files (and functions)
    whose text can hold one are read.
    """
    hints = project.family(catalog.GET_WORKER_INFO | catalog.NUMPY_GET_STATE).names
    named = {
        module.path: module
        for module in project.sources.matching(_WORKER_DEF.pattern.encode(), b"worker")
    }
    spelling = {module.path: module for module in project.modules_mentioning(*hints)}
    for path in sorted(named.keys() | spelling.keys()):
        functions: dict[str, FunctionFacts] = {}
        if path in named:
            for facts in named[path].functions_matching(_WORKER_DEF):
                functions[facts.qualname] = facts
        if path in spelling:
            for facts in spelling[path].functions_spelling(hints):
                functions[facts.qualname] = facts
        module = named.get(path) or spelling[path]
        for facts in sorted(functions.values(), key=lambda f: (f.span, f.qualname)):
            if (
                facts.qualname != "<module>"
                and not facts.is_method
                and not facts.nested
                and not facts.decorators
                and facts.positional_count >= 1
            ):
                yield FunctionRef.of(module, facts)


def _looks_like_worker_init(project: Project, function: FunctionRef, param: str) -> bool:
    spellings = (function.function.name.lower(), param.lower())
    if any(word in spelling for word in _WORKER_WORDS for spelling in spellings):
        return True
    hints = catalog.GET_WORKER_INFO | catalog.NUMPY_GET_STATE
    names = project.family(hints).names
    return any(
        call.base is not None
        and spelled(call.base) & names  # resolve only what can be one of them
        and project.is_one_of(call.base, function.module, hints)
        for call in function.function.calls
    )


def unused_seeding_lookalikes(
    project: Project, exclude: Collection[FunctionRef]
) -> Iterator[tuple[FunctionRef, SeedScope, list[Seeding]]]:
    """Yield lookalike worker_init_fns that seed an RNG but that nothing calls, refers to or
    passes to a DataLoader, with the scope their seeds are read in and their seeding calls."""
    for function in worker_init_lookalikes(project, exclude=exclude):
        found = seedings(project, function)
        if not found or project.callers(function) or project.is_referenced(function):
            continue
        yield function, SeedScope(function, worker_param=function.function.params[0]), found
