"""Fix planning for WS201: reseed shared RNG objects in place once per worker.

Project datasets get `_reseed_rngs_in_worker(self, "rng", ...)` at the top of their per-item
methods (the instance route) or `_reseed_rngs_in_worker(sys.modules[__name__], "RNG")` at the
top of the function that draws (the namespace route). A dataset that is not the project's gets
`worker_init_fn=_reseed_worker_rngs`, a walker over the worker's dataset (the walker fix).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.loaders import LoaderCall, Presence
from ..analysis.per_item import entry_methods
from ..analysis.refs import ClassRef, FunctionRef
from ..analysis.rng_hosts import instances_have_dict, reseed_helpers_handle, rng_library
from ..analysis.rng_object_records import (
    CHAIN_WORKER_INIT,
    RESEED_IN_WORKER,
    RESEED_OBJECT,
    RESEED_WALKER,
    Creation,
    RngObject,
    RngUse,
)
from ..analysis.rng_objects import RngIndex
from ..types import (
    AddHelper,
    Edit,
    FileEdits,
    Fix,
    InsertStatements,
    ReplaceExpression,
    Safety,
    Span,
    WrapExpression,
)
from .helpers import (
    chain_worker_init_function,
    reseed_rng_object_function,
    reseed_rngs_in_worker_function,
    reseed_worker_rngs_function,
    rng_helper_names,
)
from .imports import module_reference
from .worker_init import add_worker_init_keyword

_WALKER_TITLE = (
    f"Pass `worker_init_fn={RESEED_WALKER}`, which reseeds every RNG object in the worker's dataset"
)


@dataclass
class ReseedCandidate:
    """One RNG object that per-item code of one or more datasets draws from."""

    obj: RngObject
    dataset: ClassRef
    draw: RngUse
    #: Per-item entry methods that reseed `self.<path>` (the instance route).
    entries: list[tuple[FunctionRef, str]] = field(default_factory=list)
    #: Drawing functions that reseed `<module>.<path>` (the namespace route).
    functions: list[tuple[FunctionRef, str]] = field(default_factory=list)
    #: Why some dataset drawing from it gets no fix.
    reasons: list[str] = field(default_factory=list)


@dataclass
class ReseedPlan:
    """Every insertion the fixes make, so that one function gets one merged call."""

    instance: dict[FunctionRef, dict[str, tuple[str, Span]]] = field(default_factory=dict)
    namespace: dict[FunctionRef, dict[str, tuple[str, Span]]] = field(default_factory=dict)
    #: The RNG libraries the helpers of each module must handle.
    kinds: dict[Path, set[str]] = field(default_factory=dict)

    def need(self, path: Path, creation: Creation) -> None:
        self.kinds.setdefault(path, set()).add(rng_library(creation.rng_type))

    def add(
        self,
        table: dict[FunctionRef, dict[str, tuple[str, Span]]],
        function: FunctionRef,
        name: str,
        obj: RngObject,
    ) -> None:
        names = table.setdefault(function, {})
        order = (obj.store.path.as_posix(), obj.store_span)
        names[name] = min(names.get(name, order), order)

    @staticmethod
    def names(
        table: dict[FunctionRef, dict[str, tuple[str, Span]]], function: FunctionRef
    ) -> list[str]:
        """Return the names to reseed in `function`, in the order the objects are created."""
        names = table.get(function, {})
        return sorted(names, key=lambda name: (names[name], name))


def plan_instance(
    index: RngIndex,
    dataset: ClassRef,
    obj: RngObject,
    uses: list[RngUse],
    candidate: ReseedCandidate,
    plan: ReseedPlan,
) -> str | None:
    """Plan `_reseed_rngs_in_worker(self, ...)` in the dataset's entries; else say why not."""
    project = index.project
    paths = {use.instance_path for use in uses if use.instance_path}
    if obj.owner is not None and obj.owner in project.mro(dataset):
        paths.add((obj.name,))
    valid = sorted(
        (path for path in paths if obj in index.objects_at_path(dataset, path)),
        key=lambda path: (len(path), path),
    )
    if not valid:
        return "per-item code reaches it through a name the fix cannot reseed it by"
    entries = entry_methods(project, dataset)
    if not entries:
        return f"the per-item methods of `{dataset.name}` are defined outside the project"
    if not instances_have_dict(project, dataset):
        return (
            f"`{dataset.name}` declares `__slots__` and its instances have no `__dict__` "
            "to record the once-per-worker reseed in"
        )
    for entry in entries:
        if not reseed_helpers_handle(project, entry.module, obj.creation.rng_type):
            return stale_helper(obj.creation)
    name = ".".join(valid[0])
    for entry in entries:
        plan.add(plan.instance, entry, name, obj)
        candidate.entries.append((entry, name))
        plan.need(entry.path, obj.creation)
    return None


def plan_namespace(
    index: RngIndex,
    obj: RngObject,
    draws: list[RngUse],
    candidate: ReseedCandidate,
    plan: ReseedPlan,
) -> tuple[bool, str | None]:
    """Plan `_reseed_rngs_in_worker(sys.modules[__name__], ...)` where it is drawn.

    Return whether it was planned, and a reason that is better than the instance route's
    when the route exists but cannot be used.
    """
    planned: list[tuple[FunctionRef, str]] = []
    for use in draws:
        function = use.reached.function
        path = use.namespace_path
        if (
            path is None
            or function.function.qualname == "<module>"
            or obj not in index.objects_at_name(function.module, path)
        ):
            return False, None
        if not reseed_helpers_handle(index.project, function.module, obj.creation.rng_type):
            return False, stale_helper(obj.creation)
        planned.append((function, path))
    for function, path in planned:
        plan.add(plan.namespace, function, path, obj)
        candidate.functions.append((function, path))
        plan.need(function.path, obj.creation)
    return True, None


def stale_helper(creation: Creation) -> str:
    return (
        f"the module's own `{RESEED_IN_WORKER}` or `{RESEED_OBJECT}` is not workerseed's, "
        f"or does not handle `{creation.rng_type}`; rename or delete it and run `fix` again"
    )


def candidate_fix(candidate: ReseedCandidate, plan: ReseedPlan) -> Fix | None:
    """Return the in-place reseed of the candidate's planned functions, if any."""
    functions = list(
        dict.fromkeys(
            [function for function, _ in candidate.entries]
            + [function for function, _ in candidate.functions]
        )
    )
    if not functions:
        return None
    by_path: dict[Path, list[Edit]] = {}
    for function in functions:
        by_path.setdefault(function.path, []).extend(_insertion(function, plan))
    files = tuple(FileEdits(path, tuple(edits)) for path, edits in by_path.items())
    names = sorted({name for _, name in (*candidate.entries, *candidate.functions)})
    where = sorted({function.function.qualname for function in functions})
    title = (
        f"Reseed {', '.join(f'`{name}`' for name in names)} in place once per worker, "
        f"at the top of {', '.join(f'`{qualname}`' for qualname in where)}"
    )
    return Fix(title, Safety.SAFE, files)


def _insertion(function: FunctionRef, plan: ReseedPlan) -> list[Edit]:
    module = function.module
    names = rng_helper_names(module, kinds=plan.kinds.get(function.path, ()))
    edits: list[Edit] = [
        AddHelper(RESEED_IN_WORKER, reseed_rngs_in_worker_function(RESEED_IN_WORKER, names)),
        *names.imports,
    ]
    lines = []
    instance = plan.names(plan.instance, function)
    if instance:
        owner = function.function.params[0] if function.function.params else "self"
        lines.append(_call(owner, instance))
    namespace = plan.names(plan.namespace, function)
    if namespace:
        avoid = frozenset(function.function.params) | frozenset(
            assignment.target
            for assignment in function.function.assignments
            if "." not in assignment.target
        )
        sys = module_reference(module, "sys", "sys", avoid=avoid)
        edits.extend(sys.imports)
        lines.append(_call(f"{sys.expression}.modules[__name__]", namespace))
    edits.append(InsertStatements(function.function.span, "".join(lines), at_top=True))
    return edits


def _call(owner: str, names: list[str]) -> str:
    arguments = ", ".join([owner, *(f'"{name}"' for name in names)])
    return f"{RESEED_IN_WORKER}({arguments})\n"


def walker_fix(loader: LoaderCall, plan: ReseedPlan) -> tuple[Fix | None, str | None]:
    """Return the `worker_init_fn=_reseed_worker_rngs` fix, or why there is none."""
    module = loader.module
    lookup = loader.argument("worker_init_fn")
    if lookup.presence is Presence.MAYBE:
        return None, "worker_init_fn may come from **kwargs"
    names = rng_helper_names(module, kinds=plan.kinds.get(module.path, ()), walker=True)
    helpers: list[Edit] = [
        AddHelper(RESEED_OBJECT, reseed_rng_object_function(RESEED_OBJECT, names)),
        AddHelper(RESEED_WALKER, reseed_worker_rngs_function(RESEED_WALKER, RESEED_OBJECT, names)),
        *names.imports,
    ]
    value = lookup.value
    path = module.path
    edit: Edit
    if lookup.presence is Presence.ABSENT:
        if not loader.accepts_keyword("worker_init_fn"):
            return None, "the DataLoader subclass does not accept worker_init_fn"
        keyword = add_worker_init_keyword(loader, RESEED_WALKER)
        (edit,) = keyword.edits
        path = keyword.path
        title = _WALKER_TITLE
    else:
        assert value is not None
        if value.span is None:
            return None, "the existing worker_init_fn cannot be located"
        if lookup.container is not None:
            splat = next(
                (s for s in loader.splats if s is not None and s.value == lookup.container),
                None,
            )
            if splat is None or splat.path != module.path:
                return None, "worker_init_fn comes from a dict in another module"
        if value.is_none:
            edit = ReplaceExpression(value.span, RESEED_WALKER)
            title = _WALKER_TITLE
        else:
            functools = module_reference(module, "functools", "functools")
            helpers.extend(functools.imports)
            helpers.append(
                AddHelper(
                    CHAIN_WORKER_INIT,
                    chain_worker_init_function(CHAIN_WORKER_INIT, RESEED_WALKER),
                )
            )
            edit = WrapExpression(
                value.span, f"{functools.expression}.partial({CHAIN_WORKER_INIT}, ", ")"
            )
            title = (
                f"Chain `{RESEED_WALKER}` after the existing worker_init_fn, which reseeds "
                "every RNG object in the worker's dataset"
            )
    files = [FileEdits(module.path, tuple(helpers))]
    files.append(FileEdits(path, (edit,)))
    return Fix(title, Safety.UNSAFE, tuple(files)), None
