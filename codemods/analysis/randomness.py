"""Where code draws from, or reseeds, a global random number generator."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..types import Span
from . import catalog
from .branch_facts import within
from .branch_feasibility import arm_always_taken, branch_not_taken
from .candidates import MAX_CALL_DEPTH, Construction
from .facts import Value
from .known_values import Known
from .per_item import Reached, call_targets, per_item_code, reachable
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef
from .statement_order import StatementReach
from .worker_once import StoredBy, in_every_worker, taken_first_in_each_worker


@dataclass(frozen=True)
class GlobalCall:
    """A call to a global-RNG function in code a worker runs."""

    reached: Reached
    call: Value
    #: The qualified name called, e.g. "numpy.random.rand".
    qualname: str

    @property
    def function(self) -> FunctionRef:
        """Return the function that makes the call."""
        return self.reached.function


def calls_to(
    project: Project, functions: Iterable[Reached], wanted: frozenset[str]
) -> Iterator[GlobalCall]:
    """Yield the calls in `functions` whose callee certainly is one of `wanted`."""
    for reached in functions:
        module = reached.function.module
        for call in reached.function.function.calls:
            if call.base is None:
                continue
            names = project.qualnames(call.base, module) & wanted
            if names and not (call.span and branch_not_taken(project, reached, call.span)):
                yield GlobalCall(reached, call, min(names))


NUMPY_GLOBAL_DRAWS = frozenset(
    f"{module}.{name}"
    for module in catalog.NUMPY_RANDOM_MODULES
    for name in catalog.NUMPY_LEGACY_DRAWS
)
NUMPY_GLOBAL_SEED = frozenset(
    f"{module}.seed" for module in catalog.NUMPY_RANDOM_MODULES
) | frozenset(f"{module}.set_state" for module in catalog.NUMPY_RANDOM_MODULES)


_NUMPY_SEED = frozenset(f"{module}.seed" for module in catalog.NUMPY_RANDOM_MODULES)


def numpy_global_draws(
    project: Project, dataset: ClassRef, made_by: tuple[Construction, ...] | None = None
) -> list[GlobalCall]:
    """Return the legacy `np.random.*` draws in the per-item code of `dataset` that draw
    from the NumPy state a worker inherits (not after a per-item reseed).

    `made_by`: only the instances these constructor calls make (None: any instance).
    """
    code = per_item_code(project, dataset, made_by)
    return inherited_state_draws(project, code, list(calls_to(project, code, NUMPY_GLOBAL_DRAWS)))


def inherited_state_draws(
    project: Project, code: Sequence[Reached], draws: list[GlobalCall]
) -> list[GlobalCall]:
    """Return the `draws` (in per-item `code`) that may draw from the NumPy state a worker
    starts with: all but those that run only after per-item code has reseeded NumPy.

    A `np.random.seed(...)` statement in per-item code (`__getitem__`, or a base method it
    calls, as `super().__getitem__(index)`) replaces that state for the code that runs only
    after it: the rest of its block and, past an `if` that the instances built always take
    the same way, the code after that `if`. What is drawn there, or in project code called
    only from there, never comes from what the worker inherited, and a `worker_init_fn`
    seeding NumPy would change nothing for it. (Whether such a seed repeats is a question of
    the seed, not of the workers' inherited state.) A function reached another way as well
    counts as not reseeded.
    """
    seeds = {
        reached.function: found for reached in code if (found := _seed_statements(project, reached))
    }
    if not seeds:
        return draws

    def after_seed(reached: Reached, span: Span | None) -> bool:
        return span is not None and any(
            _runs_after(project, reached, seed, span) for seed in seeds.get(reached.function, ())
        )

    def follows(reached: Reached) -> Callable[[Value], bool] | None:
        if reached.function not in seeds:
            return None
        return lambda call: not after_seed(reached, call.span)

    entries = [reached for reached in code if len(reached.chain) == 1]
    exposed = {reached.function for reached in reachable(project, entries, follows)}
    return [
        draw
        for draw in draws
        if draw.function in exposed and not after_seed(draw.reached, draw.call.span)
    ]


def _seed_statements(project: Project, reached: Reached) -> list[StatementReach]:
    """Return the `np.random.seed(...)` statements of `reached`, with what follows each:
    the call itself, or a call of project code that always makes it
    (`self._set_random_seed(index)`)."""
    facts = reached.function.function
    statements = {reach.call for reach in facts.statement_reaches}
    seeding = {
        call.span
        for call in facts.calls
        if call.base is not None
        and call.span in statements
        and (
            (
                _spelled_seed(call.base)
                and project.qualnames(call.base, reached.function.module) & _NUMPY_SEED
            )
            or _always_seeding_helper(project, reached, call)
        )
    }
    return [reach for reach in facts.statement_reaches if reach.call in seeding]


def _always_seeding_helper(project: Project, reached: Reached, call: Value) -> bool:
    """Return True if `call` runs project code only, and each function it may run seeds
    NumPy's global RNG on every call."""
    targets = list(call_targets(project, reached, call))
    return bool(targets) and all(
        seeds_numpy(project, target.function, always=True, seed_only=True) for target in targets
    )


def _spelled_seed(callee: Value) -> bool:
    """Return True if `callee` is spelled as a `seed` function (resolving names costs more)."""
    return callee.name == "seed" or any(name.endswith(".seed") for name in callee.qualnames)


def _runs_after(project: Project, entry: Reached, seed: StatementReach, span: Span) -> bool:
    """Return True if the code at `span` of `entry` runs only after statement `seed`."""
    for level, rest in enumerate(seed.after):
        if rest is not None and within(span, rest):
            return True
        if level >= len(seed.arms):
            return False
        arm = seed.arms[level]
        if not (
            arm_always_taken(project, entry, arm) or taken_first_in_each_worker(project, entry, arm)
        ):
            return False
    return False


def seeds_numpy(
    project: Project,
    function: FunctionRef,
    *,
    always: bool = False,
    seed_only: bool = False,
    stored: StoredBy | None = None,
    arguments: Mapping[str, Known] | None = None,
) -> bool:
    """Return True if `function` (or project code it calls) seeds NumPy's global RNG.

    `always`: only a seeding that runs on every call of `function` counts (not one under an
    `if`, in a loop or an `except`, in `function` or on the way to the helper that seeds).
    `seed_only`: `np.random.set_state(...)` does not count (the state it sets may be one a
    worker inherited). `stored`: what every dataset the loader gets stores, for a seeding
    under `if hasattr(get_worker_info().dataset, name):`, and `arguments`, what is known of
    `function`'s parameters (see `in_every_worker`).
    """
    wanted = _NUMPY_SEED if seed_only else NUMPY_GLOBAL_SEED
    start = Reached(function, project.class_of_function(function), (function.qualname,))
    if not always:
        return any(calls_to(project, reachable(project, [start]), wanted))
    queue = [start]
    seen: set[FunctionRef] = set()
    while queue:
        current = queue.pop(0)
        facts = current.function.function
        if current.function in seen or len(current.chain) > MAX_CALL_DEPTH:
            continue
        seen.add(current.function)
        for call in facts.calls:
            if call.base is None:
                continue
            own = current.function == function
            if call.span in facts.conditional_calls and not in_every_worker(
                project,
                current.function,
                call.span,
                stored if own else None,
                arguments if own else None,
            ):
                continue
            if project.qualnames(call.base, current.function.module) & wanted:
                return True
            queue.extend(call_targets(project, current, call))
    return False


NUMPY_LEGACY = frozenset(
    f"{module}.{name}"
    for module in catalog.NUMPY_RANDOM_MODULES
    for name in catalog.NUMPY_LEGACY_DRAWS | catalog.NUMPY_LEGACY_STATE
)


@dataclass(frozen=True)
class LegacyNumpyCall:
    """A call of a legacy `numpy.random` function in per-item code."""

    reached: Reached
    #: The function whose own code makes the call: `reached.function`, or a lambda or
    #: function defined inside it.
    function: FunctionRef
    call: Value
    #: The legacy function, e.g. "rand".
    name: str
    #: False when the callee may also be something else (another function bound to the name).
    certain: bool

    @property
    def is_draw(self) -> bool:
        """Return True for a draw (`rand`, `normal`), False for `seed`, `get_state`, `set_state`."""
        return self.name in catalog.NUMPY_LEGACY_DRAWS


def legacy_numpy_calls(project: Project, code: Iterable[Reached]) -> list[LegacyNumpyCall]:
    """Return the legacy `np.random.*` calls (draws and state) in per-item `code`.

    `code` is what `per_item.per_item_code` returns; lambdas and functions defined inside
    those functions are searched too.
    """
    found: dict[tuple[str, int, int], LegacyNumpyCall] = {}
    for reached in code:
        for function in _with_nested(reached.function):
            for call in function.function.calls:
                legacy = _legacy_call(project, reached, function, call)
                if legacy is not None and call.span is not None:
                    key = (function.path.as_posix(), call.span.line, call.span.column)
                    found.setdefault(key, legacy)
    return list(found.values())


def _with_nested(function: FunctionRef) -> Iterator[FunctionRef]:
    """Yield `function` and the lambdas and functions defined inside it."""
    yield function
    prefix = f"{function.qualname}.<"
    for other in function.module.functions_within(function.qualname):
        if other.qualname.startswith(prefix) and other.class_qualname is None:
            yield FunctionRef.of(function.module, other)


def _legacy_call(
    project: Project, reached: Reached, function: FunctionRef, call: Value
) -> LegacyNumpyCall | None:
    if call.base is None:
        return None
    module = function.module
    names = project.qualnames(call.base, module) & NUMPY_LEGACY
    if not names:
        return None
    legacy = {found for name in names if (found := catalog.numpy_legacy_function(name))}
    targets = project.targets(call.base, module)
    certain = (
        len(legacy) == 1
        and bool(targets)
        and all(isinstance(target, ExternalRef) and target.qualname in names for target in targets)
    )
    return LegacyNumpyCall(reached, function, call, min(legacy), certain)
