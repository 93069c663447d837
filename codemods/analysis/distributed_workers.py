"""Whether a DataLoader that may start workers starts none in the distributed runs of a
project: code that sets `num_workers` to 0 on exactly the path where the job is distributed.

- `zeroed_beside_sampler()`: the `if` arm that gives the loader its `DistributedSampler` also
  sets the variable it passes as `num_workers` to 0 (`if is_ddp: sampler =
  DistributedSampler(ds); num_workers = 0 else: sampler = None; num_workers = 8`).
- `zeroed_on_joining()`: the block that joins the process group goes on to store 0 in the
  setting the loader reads as `num_workers` (`dist.init_process_group(...)`, then
  `opt.workers = 0`), and the loader is built after that store.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..types import Location, Span
from .branch_facts import within
from .data_parallel import DISTRIBUTED_SAMPLERS, Evidence
from .distributed_runs import evidence_runs
from .facts import AttributeStore, FunctionFacts, Kind, Value
from .known_values import passed_argument
from .loaders import LoaderCall, Presence
from .project import Project
from .refs import FunctionRef
from .statement_order import StatementReach
from .worker_conditions import unspanned

#: Evidence that makes the process group itself: the job is distributed where it runs.
GROUP_MAKERS = frozenset(
    {"init_process_group", "init_dist", "deepspeed.init_distributed", "hvd.init"}
)
#: Evidence that only works inside a process group some other code makes: wrappers and
#: samplers that raise without one.
NEEDS_A_GROUP = frozenset(
    {
        "DistributedSampler",
        "DistributedDataParallel",
        "FullyShardedDataParallel",
        "fully_shard",
        "MMDistributedDataParallel",
    }
)
#: How many calls up from the loader's function the function joining the group is sought.
_DEPTH = 3


def zeroed_when_distributed(
    project: Project, loader: LoaderCall, entries: frozenset[Path], evidence: list[Evidence]
) -> Location | None:
    """Return where the loader's `num_workers` is set to 0 on every path on which a run of
    `entries` (the files whose runs build it) is distributed, if it is: beside the
    `DistributedSampler` it is given, or right after each call that makes the process group
    those runs join (the rest of their evidence being code that needs such a group)."""
    beside = zeroed_beside_sampler(loader)
    if beside is not None:
        return beside
    shown = [item for item in evidence if evidence_runs(project, item) & entries]
    makers = [item for item in shown if item.label in GROUP_MAKERS]
    if not makers or any(
        item.label not in GROUP_MAKERS and item.label not in NEEDS_A_GROUP and not item.is_read
        for item in shown
    ):
        return None
    zeros = [zeroed_on_joining(project, loader, item) for item in makers]
    return zeros[0] if all(zeros) else None


def zeroed_beside_sampler(loader: LoaderCall) -> Location | None:
    """Return where the loader's `num_workers` is set to 0 in the `if` arm that gives it its
    `DistributedSampler`, when every arm that does so sets it to 0 and nothing sets it again
    before the loader is built: where the loader is sharded by rank it starts no workers."""
    facts = loader.function.function
    samplers = _options(loader, "sampler")
    workers = _options(loader, "num_workers")
    span = loader.call.span
    if samplers is None or workers is None or span is None:
        return None
    sharded = [option for option in samplers if _makes_distributed_sampler(option)]
    if not sharded:
        return None
    zeros: list[Span] = []
    for option in sharded:
        assert option.span is not None
        zero = next(
            (
                found
                for arm, statement in _arms_around(facts, option.span)
                if (found := _zero_in_arm(facts, arm, statement, workers, span)) is not None
            ),
            None,
        )
        if zero is None:
            return None
        zeros.append(zero)
    return Location(loader.function.path, zeros[0])


def _options(loader: LoaderCall, name: str) -> tuple[Value, ...] | None:
    """Return the values the loader's argument `name` may be, each read where it is bound
    (None if it is not spelled out, or one of them has no place)."""
    lookup = loader.argument(name)
    if lookup.presence is not Presence.PASSED or lookup.value is None:
        return None
    options = lookup.value.alternatives()
    return None if any(option.span is None for option in options) else options


def _makes_distributed_sampler(value: Value) -> bool:
    return (
        value.kind is Kind.CALL
        and value.base is not None
        and bool(DISTRIBUTED_SAMPLERS.intersection(value.base.qualnames))
    )


def _arms_around(facts: FunctionFacts, span: Span) -> Iterator[tuple[Span, Span]]:
    """Yield each `if` arm holding `span`, innermost first, with the extent of its `if`."""
    found = []
    for body, orelse in facts.choices:
        statement = Span(body.line, body.column, *_end(orelse or body))
        for arm in (body, orelse):
            if arm is not None and within(span, arm):
                found.append((arm, statement))
    found.sort(key=lambda pair: (pair[0].line, pair[0].column), reverse=True)
    yield from found


def _end(span: Span) -> tuple[int, int]:
    return span.end_line, span.end_column


def _zero_in_arm(
    facts: FunctionFacts, arm: Span, statement: Span, workers: tuple[Value, ...], loader: Span
) -> Span | None:
    """Return where `workers` is bound to 0 in `arm` when every binding of it there is 0, one
    of them runs whenever the arm does, and none after the `if` comes before the loader."""
    inside = [option for option in workers if option.span and within(option.span, arm)]
    if not inside or any(option.kind is not Kind.INT or option.number != 0 for option in inside):
        return None
    nested = [
        inner
        for body, orelse in facts.choices
        for inner in (body, orelse)
        if inner is not None and inner != arm and within(inner, arm)
    ]
    direct = [
        option.span
        for option in inside
        if option.span and not any(within(option.span, inner) for inner in nested)
    ]
    rebound = any(
        option.span
        and (option.span.line, option.span.column) > _end(statement)
        and (option.span.line, option.span.column) < (loader.line, loader.column)
        for option in workers
    )
    return direct[0] if direct and not rebound else None


def zeroed_on_joining(project: Project, loader: LoaderCall, evidence: Evidence) -> Location | None:
    """Return where the setting the loader reads as `num_workers` is set to 0 right after
    `evidence` joins the process group, when every call that builds the loader comes after
    that store (in the function that joins, or in functions it hands the setting to)."""
    if evidence.label not in GROUP_MAKERS or evidence.value.span is None:
        return None
    joining = evidence.function
    reach = next(
        (
            reach
            for reach in joining.function.statement_reaches
            if reach.call == evidence.value.span
        ),
        None,
    )
    setting = _setting_read(loader)
    if reach is None or setting is None or reach.after[0] is None:
        return None
    holder, attribute = setting
    stores = [
        store
        for store in joining.function.attribute_stores
        if store.attribute == attribute
        and store.value.kind is Kind.INT
        and store.value.number == 0
        and within(store.span, reach.after[0])
    ]
    for store in stores:
        at = (loader.function, loader.call, holder)
        if _built_after(project, joining, at, store, reach, _DEPTH):
            return Location(joining.path, store.span)
    return None


def _setting_read(loader: LoaderCall) -> tuple[Value, str] | None:
    """Return the object and attribute the loader reads as `num_workers` (`opt.workers`,
    also through `int(...)`)."""
    lookup = loader.argument("num_workers")
    value = lookup.value
    if lookup.presence is not Presence.PASSED or value is None:
        return None
    if value.is_call_to("builtins.int") and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if value.kind is not Kind.ATTRIBUTE or value.base is None:
        return None
    return value.base, value.name


def _built_after(
    project: Project,
    joining: FunctionRef,
    at: tuple[FunctionRef, Value, Value],
    store: AttributeStore,
    reach: StatementReach,
    depth: int,
) -> bool:
    """Return True if the call of `at` (function, call, the object it reads the setting
    from) runs only after `store`: it is in `joining`, after the store, reading the object
    stored to; or every call of its function passes that object on and is built so."""
    function, call, holder = at
    if function == joining:
        return unspanned(holder) == unspanned(store.base) and _follows(call, store, reach)
    if depth == 0 or holder.kind is not Kind.PARAM:
        return False
    sites = project.callers(function)
    bound = 1 if function.function.is_method else 0
    for site in sites:
        passed = passed_argument(site.call, function.function, holder.name, bound)
        if not isinstance(passed, Value):
            return False
        if not _built_after(
            project, joining, (site.function, site.call, passed), store, reach, depth - 1
        ):
            return False
    return bool(sites)


def _follows(call: Value, store: AttributeStore, reach: StatementReach) -> bool:
    """Return True if `call` runs only after the joining call and the store that follows
    it: in what follows the joining call, after the store."""
    span = call.span
    if span is None or (span.line, span.column) <= _end(store.span):
        return False
    return any(after is not None and within(span, after) for after in reach.after)
