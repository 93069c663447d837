"""WS102 epoch-invariant-worker-seed."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..analysis.assignment_origins import assignment_origin
from ..analysis.augmentations import global_numpy_library_calls
from ..analysis.candidates import DatasetsOf
from ..analysis.config_settings import setting_fixed_for_the_run
from ..analysis.dataset_arguments import applied_note
from ..analysis.dataset_reach import with_bases
from ..analysis.datasets import dataset_classes, datasets_of_loader
from ..analysis.init_functions import (
    InitUse,
    partial_bound_sources,
    unused_seeding_lookalikes,
    worker_init_uses,
)
from ..analysis.loaders import LoaderCall, loader_calls
from ..analysis.per_item import per_item_code
from ..analysis.randomness import NUMPY_GLOBAL_DRAWS, calls_to
from ..analysis.refs import ClassRef, FunctionRef
from ..analysis.seed_classification import (
    NUMPY_SEEDED_SINCE,
    SeedScope,
    Source,
    Verdict,
    in_spawned_workers,
    seed_sources,
    verdict,
)
from ..analysis.seed_descriptions import (
    clock_reason,
    describe_per_item,
    describe_seeding,
    describe_sources,
    fixed_per_item_reason,
    irreproducible_reason,
    joined,
    repeat_reason,
)
from ..analysis.seeds import Seeding, SinkKind, may_exceed_32_bits, seedings
from ..analysis.start_methods import spawns_workers
from ..analysis.worker_once import runs_once_per_worker
from ..fixes.worker_seed import WorkerSeedFix, merged_fix
from ..rule import FixAvailability, FixSafety, Rule
from ..types import Fix, Safety


@dataclass(frozen=True)
class _Cause:
    """Seeding calls of one function that repeat for one reason: reported as one finding."""

    function: FunctionRef
    subject: str
    #: The message after what the calls do: "from the worker id alone: ...".
    reason: str
    severity: str


@dataclass(frozen=True)
class _Call:
    seeding: Seeding
    what: str
    fix: Fix | None


@dataclass(frozen=True)
class _Context:
    """Where a seeding call runs: a worker_init_fn or a Dataset's per-item code."""

    #: How the finding names the code: "worker_init_fn `seed_worker`".
    subject: str
    scope: SeedScope
    #: The per-item entry method for Dataset code ("__getitem__", "__iter__"), else None.
    entry: str | None = None
    #: Uses that are not persistent: epoch repeats matter.
    repeats: bool = True
    #: The function is also called directly by project code (fixing it changes those calls).
    called_directly: bool = False
    #: Every loader that uses it passes `shuffle=False` and no sampler: repeating epochs may
    #: be the point (a fixed evaluation set), so the finding is a warning and its fix unsafe.
    fixed_order: bool = False
    #: Per-item Dataset code on torch < 1.9 in which no NumPy draw is seen: the draws a
    #: per-item NumPy reseed is there for are in code not seen (a third-party transform), and
    #: deleting the reseed would leave them to the NumPy state every worker inherits, with
    #: nothing that WS101 could report at a loader.
    numpy_draws_unseen: bool = False
    #: Every loader that uses it spawns its workers, which draw NumPy's state afresh.
    fresh_numpy: bool = False
    #: Dataset code of a class no DataLoader of the project takes, in a project whose every
    #: loader's datasets are known: the class named, seeding code no loader uses.
    unused_class: str | None = None


class EpochInvariantWorkerSeed(Rule):
    """Flags DataLoader worker seeding that gives every epoch the same random numbers.

    ## What it does
    Checks for code that runs in DataLoader workers and reseeds an RNG from a value that is
    the same in every epoch: a `worker_init_fn` (a function of the module, one imported from
    the project, a lambda, a `functools.partial(...)`, a bound method, or an entry of a
    `**kwargs` dict), or a Dataset's `__getitem__` / `__iter__`, that calls
    `np.random.seed`, `random.seed`, `torch.manual_seed` (or creates or reseeds an RNG
    object) with `worker_id`, `get_worker_info().id`, a constant, a constant plus
    `worker_id` (with or without a rank term), or the `np.random.get_state()[1][0] +
    worker_id` snippet. A seed from the clock, alone or plus `worker_id`, is a warning (the
    workers of processes started within one tick, such as the ranks of a distributed run, get
    the same seeds); so is a Dataset's `__getitem__` that reseeds from the clock for every
    item (`np.random.seed(datetime.now().microsecond)`: items loaded within one tick, in
    any worker, get the same seed). A per-item reseed from a constant or another value fixed
    for the run (`np.random.seed(0)`, `torch.manual_seed(self.seed)`, `random.seed(seed=7)`
    in `__getitem__`) is a warning too: every item, in every worker and every epoch, draws
    the same numbers after it. A per-item seed from the index is taken as deliberate (fixed
    evaluation crops that differ per item) and not reported. One from OS entropy (`os.urandom`,
    `secrets`, a uuid, a pid) gives distinct but irreproducible streams and is only an `info`
    note, as is seeding code that looks like a worker_init_fn but that no DataLoader uses,
    and the per-item code of a Dataset that no DataLoader of the project takes when every
    loader's datasets are known (in a project without loaders, a library, it is reported).

    It also reports, without a fix, `np.random.seed(torch.initial_seed())` (the seed does
    not fit in 32 bits) and functions that look like a worker_init_fn with such a seed but are
    not passed to any DataLoader the analysis can see.

    `torch.cuda.manual_seed(...)` and `torch.cuda.manual_seed_all(...)` are not reported and
    left as they are: DataLoader workers draw nothing from the CUDA generators, so no stream
    a worker uses repeats because of them.

    ## Why it matters
    torch gives each worker a fresh seed every epoch (`base_seed + worker_id`, with
    `base_seed` drawn anew from torch's RNG for every iterator) and seeds `random`, `torch`
    and, since torch 1.9, NumPy from it before `worker_init_fn` runs. Reseeding from
    `worker_id` *replaces* that seed with one that never changes: every epoch draws exactly
    the augmentations of the epoch before, and the run is identical even when nothing is
    seeded at all. Measured on torch 2.13: 32 of 32 draws in epochs 2-3 repeat epoch 1.
    After torch has seeded NumPy, `np.random.get_state()[1][0]` is always 2147483648, so the
    popular `np.random.seed(np.random.get_state()[1][0] + worker_id)` is just
    `np.random.seed(2147483648 + worker_id)`; on torch < 1.9 workers inherit the main
    process's state instead, which does not move between epochs either.

    > When used in a `worker_init_fn` passed over to `DataLoader`, this method can be
    > useful to set up each worker process differently, for instance, using `worker_id`
    > to configure the `dataset` object to only read a specific fraction of a sharded
    > dataset, or use `seed` to seed other libraries used in dataset code.
    > — [`torch.utils.data.get_worker_info`][info] (`worker_id` is for sharding; `seed`
    > is for seeding)

    Seeds from `time.time()` or `uuid4()` differ between epochs, but no `torch.manual_seed`
    reproduces them; workers that start within one clock tick may even share one.

    ## Example
    ```python
    def worker_init_fn(worker_id):
        np.random.seed(np.random.get_state()[1][0] + worker_id)

    loader = DataLoader(dataset, num_workers=4, worker_init_fn=worker_init_fn)
    ```

    Use instead:
    ```python
    def worker_init_fn(worker_id):
        np.random.seed(torch.initial_seed() % 2**32)
    ```

    ## Fix
    Replaces the seed expression with `torch.initial_seed() % 2**32`, which differs per
    worker and per epoch, follows `torch.manual_seed`, and fits NumPy's legacy seeding. When
    the seed is a local variable (`seed = base + worker_id`), its assignment is rewritten,
    so every call that uses it is fixed at once. Rank terms are kept:
    `worker_id + rank * num_workers + seed` becomes
    `(torch.initial_seed() + rank * num_workers) % 2**32`. `torch.initial_seed()` already
    contains `worker_id`, so ranks stay apart exactly as they did, and every term stays
    per-epoch. A `torch.manual_seed(<worker_id expression>)` statement is deleted: torch has
    already seeded itself per worker and epoch. The rest of the function is kept.
    A function imported from another project file is fixed in that file, once.

    In Dataset code, `__iter__` runs once per worker and epoch and is fixed the same way. In
    `__getitem__` the seeding line runs for every item; it is deleted (torch seeds `random`,
    `torch` and, since 1.9, NumPy per worker). On torch < 1.9 NumPy is then seeded by the
    worker_init_fn WS101 adds at the loader; a per-item reseed left in place would override
    it, so WS101 reports that loader once the reseed is gone, and `fix` applies the two in
    turn (select both, as by default).

    A per-item reseed from a constant is reported without a fix. Deleting it would turn
    noise that is often fixed on purpose (a test set's noise, identical in every
    evaluation) into noise that changes every epoch, and seeding from the index instead
    (which keeps it fixed but different per item) changes which numbers every item gets
    and assumes the index is an integer seed: the choice is the author's. WS101 agrees:
    draws that follow an unconditional per-item reseed never see the state a worker
    inherits, so no `worker_init_fn` is added for them.

    ## Fix safety
    Safe: only the random numbers drawn in workers change. Unsafe when the function is also
    called directly by project code (the fix changes what those calls seed too), and, on
    torch < 1.9, when it deletes a per-item NumPy reseed of a Dataset whose per-item code
    shows no NumPy draw: the draws the reseed is there for are in code not seen (a
    third-party transform), and without it they would come from the NumPy state every
    worker inherits, with no draw for WS101 to report.
    `persistent_workers=True` passed literally keeps one seed for the whole run, so such
    loaders are left alone.

    ## Known limitations
    - The rank term is recognised by what it calls (`torch.distributed.get_rank()`,
      `os.environ["LOCAL_RANK"]`, ...) or by its name (`rank`, `local_rank`,
      `process_index`); a rank under another name is dropped from the fixed seed.
    - Values bound with `functools.partial` are taken as fixed for the run.
    - Seeds that come from calls the analysis cannot see into are not reported.
    - Only loaders whose `worker_init_fn` can be resolved to project code are checked; a
      function chosen at run time (a registry, a config string) is not.
    - A `worker_init_fn` used only by loaders that pass `shuffle=False` (and no sampler) gets
      a warning and an unsafe fix: every epoch then loads the same items in the same workers,
      and a fixed seed makes evaluation augmentations identical every epoch, which may be the
      intent (mark it `# noqa: WS102` then).
    - "Looks like a worker_init_fn" for unused functions means: it calls
      `get_worker_info()`, uses `np.random.get_state()`, or its name or first parameter
      mentions a worker.

    ## References
    - [PyTorch docs: Randomness in multi-process data loading][docs]
    - [PyTorch docs: Reproducibility, DataLoader](https://pytorch.org/docs/stable/notes/randomness.html#dataloader)
    - [pytorch/pytorch#56488: seed NumPy in DataLoader workers](https://github.com/pytorch/pytorch/pull/56488)

    [docs]: https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading
    [info]: https://pytorch.org/docs/stable/data.html#torch.utils.data.get_worker_info
    """

    CODE = "WS102"
    NAME = "epoch-invariant-worker-seed"
    FIX = FixAvailability.SOMETIMES
    FIX_SAFETY = FixSafety.SOMETIMES_UNSAFE

    def check(self) -> None:
        self._causes: dict[_Cause, list[_Call]] = {}
        used: set[FunctionRef] = set()
        groups: dict[tuple[FunctionRef, str | None], list[InitUse]] = {}
        for loader in loader_calls(self.project):
            for use in worker_init_uses(loader):
                used.add(use.function)
                groups.setdefault((use.function, use.worker_param), []).append(use)
        for (function, param), uses in groups.items():
            self._check_init_function(function, param, uses)
        self._check_datasets()
        self._check_unused(used)
        self._report_causes()

    # --- worker_init_fn ---

    def _check_init_function(
        self, function: FunctionRef, param: str | None, uses: list[InitUse]
    ) -> None:
        starting = [use for use in uses if use.loader.may_start_workers()]
        if not starting:
            return
        repeats = any(not use.loader.persistent_workers() for use in starting)
        self_class = None
        if any(use.bound_method for use in uses):
            self_class = self.project.class_of_function(function)
        scope = SeedScope(
            function,
            worker_param=param,
            self_class=self_class,
            parameters=partial_bound_sources(self.project, function, uses),
        )
        context = _Context(
            self._init_subject(function, starting[0].loader),
            scope,
            repeats=repeats,
            called_directly=bool(self.project.callers(function)),
            fixed_order=all(use.loader.in_fixed_order() for use in starting),
            fresh_numpy=all(spawns_workers(self.project, use.loader) for use in starting),
        )
        for seeding in seedings(self.project, function, self_class=self_class):
            self._check_seeding(seeding, context)

    def _init_subject(self, function: FunctionRef, loader: LoaderCall) -> str:
        facts = function.function
        name = "a lambda worker_init_fn" if facts.is_lambda else f"worker_init_fn `{facts.shown}`"
        if function.path != loader.module.path and loader.call.span is not None:
            where = self.location(loader.module.path, loader.call.span.line)
            return f"{name} (of the DataLoader at {where})"
        return name

    # --- Dataset code ---

    def _check_datasets(self) -> None:
        project = self.project
        loaders: dict[ClassRef, list[LoaderCall]] = {}
        found: list[DatasetsOf] = []
        for loader in loader_calls(project):
            found.append(datasets_of_loader(project, loader))
            for ref in found[-1].classes:
                loaders.setdefault(ref, []).append(loader)
        # A Dataset (or a base of one) that no loader takes duplicates nothing yet, when
        # every loader's datasets are known; with none at all (a library) its users' loaders
        # are elsewhere.
        taken = (
            with_bases(project, loaders) if found and all(each.complete for each in found) else None
        )
        for ref in dataset_classes(project):
            used_by = loaders.get(ref, [])
            if used_by and not any(loader.may_start_workers() for loader in used_by):
                continue
            repeats = not used_by or any(
                loader.may_start_workers() and not loader.persistent_workers() for loader in used_by
            )
            applied = applied_note(found, ref)
            code = per_item_code(project, ref)
            draws_unseen = project.target.is_before(NUMPY_SEEDED_SINCE) and not (
                any(calls_to(project, code, NUMPY_GLOBAL_DRAWS))
                or global_numpy_library_calls(project, ref)
            )
            for reached in code:
                entry = reached.chain[0].rpartition(".")[2]
                function = reached.function
                context = _Context(
                    describe_per_item(reached, applied),
                    SeedScope(function, self_class=reached.self_class),
                    entry=entry,
                    repeats=repeats,
                    numpy_draws_unseen=draws_unseen and entry != "__iter__",
                    unused_class=ref.name if taken is not None and ref not in taken else None,
                )
                for seeding in seedings(project, function, self_class=reached.self_class):
                    self._check_seeding(seeding, context)

    # --- functions that look like a worker_init_fn but are not passed to a DataLoader ---

    def _check_unused(self, used: set[FunctionRef]) -> None:
        project = self.project
        for function, scope, found in unused_seeding_lookalikes(project, exclude=used):
            facts = function.function
            for seeding in found:
                sources = self._sources(seeding, scope)
                result = verdict(sources, project.target)
                unused = f"`{facts.name}` looks like a worker_init_fn but no DataLoader in the "
                unused += "project is seen to use it: it"
                what = describe_seeding(seeding)
                if result is Verdict.PER_EPOCH:
                    self._check_range(seeding, _Context(unused, scope), what, "info")
                    continue
                if Source.WORKER_ID not in sources or result is not Verdict.EPOCH_INVARIANT:
                    continue
                described = describe_sources(sources, project.target)
                message = (
                    f"{unused} {what} from {described}, which would repeat "
                    f"every epoch on {project.target.describe()}; derive the seed from "
                    f"`torch.initial_seed()`"
                )
                # Seeding code no loader uses duplicates nothing yet.
                self._report_once(seeding, message, None, "info")
                break

    # --- one seeding call ---

    def _sources(self, seeding: Seeding, scope: SeedScope) -> frozenset[Source]:
        if seeding.seed is None:
            return frozenset({Source.ENTROPY})
        sources = seed_sources(self.project, seeding.seed, scope)
        if Source.UNKNOWN in sources and setting_fixed_for_the_run(
            self.project, seeding.seed, scope
        ):
            # `args.seed + worker_id` of a parser or config object not seen through.
            return sources - {Source.UNKNOWN} | {Source.RUN_VALUE}
        return sources

    def _check_seeding(self, seeding: Seeding, context: _Context) -> None:
        if seeding.kind is SinkKind.GLOBAL and seeding.library == "torch.cuda":
            return  # no stream a worker draws comes from a CUDA generator: nothing repeats
        sources = self._sources(seeding, context.scope)
        if context.fresh_numpy:
            sources = in_spawned_workers(sources, self.project.target)
        in_dataset = context.entry is not None
        per_item = context.entry not in (None, "__iter__")
        involves_workers = sources & {Source.WORKER_ID, Source.WORKER_SEED, Source.CLOCK}
        if in_dataset and not involves_workers:
            if per_item:
                self._check_fixed_per_item(seeding, context, sources)
            return  # seeding once per worker from a constant is IterableDataset sharing
        result = verdict(
            sources, self.project.target, parameters_fixed=not in_dataset, per_item=per_item
        )
        version = self.project.target.describe()
        what = describe_seeding(seeding)
        if result is Verdict.PER_EPOCH:
            self._check_range(seeding, context, what)
            return
        if result is Verdict.UNKNOWN:
            return
        description = describe_sources(sources, self.project.target)
        if result is Verdict.CLOCK and per_item:
            # Reseeded for every item, the clock collides whether or not workers persist.
            reason = clock_reason(sources, description, version, per_item=True)
            self._add_cause(seeding, context, what, reason, "warning")
            return
        if not context.repeats:
            return
        if in_dataset and Source.WORKER_ID not in sources and result is not Verdict.CLOCK:
            return
        if result is Verdict.NOT_REPRODUCIBLE:
            # Distinct streams, merely irreproducible: nothing is duplicated.
            reason = irreproducible_reason(description, version)
            self._add_cause(seeding, context, what, reason, "info")
        elif result is Verdict.CLOCK:
            reason = clock_reason(sources, description, version)
            self._add_cause(seeding, context, what, reason, "warning")
        else:
            # With `shuffle=False` every epoch sends the same items to the same workers, so
            # identical epochs may be the intent (comparable evaluation scores).
            reason = repeat_reason(sources, description, version, fixed_order=context.fixed_order)
            severity = "warning" if context.fixed_order else "error"
            self._add_cause(seeding, context, what, reason, severity)

    def _check_fixed_per_item(
        self, seeding: Seeding, context: _Context, sources: frozenset[Source]
    ) -> None:
        """Report a per-item reseed from a value fixed for the run (`np.random.seed(0)` in
        `__getitem__`): every item starts the same stream. One from the index is left alone,
        and so is a generator of its own made per item (`rng = np.random.default_rng(42)`):
        it draws the same with or without workers, so it duplicates nothing across them."""
        if not seeding.reseeds_global:
            return
        result = verdict(sources, self.project.target, parameters_fixed=False, per_item=True)
        if result is not Verdict.EPOCH_INVARIANT or not sources <= _FIXED_FOR_THE_RUN:
            return
        reason = fixed_per_item_reason(seeding.seed, sources)
        # No fix: deleting the reseed makes deliberately fixed draws (evaluation noise)
        # change every epoch, and seeding from the index assumes what the items should share.
        self._add_cause(
            seeding, context, describe_seeding(seeding), reason, "warning", fixable=False
        )

    def _add_cause(
        self,
        seeding: Seeding,
        context: _Context,
        what: str,
        reason: str,
        severity: str,
        fixable: bool = True,
    ) -> None:
        if context.unused_class is not None:
            reason += f"; no DataLoader of the project takes `{context.unused_class}`"
            severity, fixable = "info", False
        cause = _Cause(seeding.function, context.subject, reason, severity)
        calls = self._causes.setdefault(cause, [])
        if all(call.seeding.span != seeding.span for call in calls):
            fix = self._fix(seeding, context) if fixable else None
            if fix is not None and context.fixed_order:
                fix = replace(fix, safety=Safety.UNSAFE)  # it changes evaluation augmentations
            if fix is not None and context.numpy_draws_unseen and _reseeds_numpy(seeding):
                # Deleting it may leave unseen draws duplicated across workers.
                fix = replace(fix, safety=Safety.UNSAFE)
            calls.append(_Call(seeding, what, fix))

    def _report_causes(self) -> None:
        """Report each cause once, at its first call, with the others as related places and
        one fix for all of them."""
        for cause, calls in self._causes.items():
            calls = [
                call
                for call in calls
                if not self.reported_at(call.seeding.function.path, call.seeding.span)
            ]
            if not calls:
                continue
            calls.sort(key=lambda call: (call.seeding.span.line, call.seeding.span.column))
            message = f"{cause.subject} {joined([call.what for call in calls])} {cause.reason}"
            self.report(
                cause.function,
                calls[0].seeding.span,
                message,
                fix=merged_fix([call.fix for call in calls]),
                severity=cause.severity,
                related=tuple(place for call in calls for place in call.seeding.places)[1:],
            )

    def _check_range(
        self, seeding: Seeding, context: _Context, what: str, severity: str = "error"
    ) -> None:
        if seeding.seed is None or not seeding.needs_32_bits:
            return
        origin = assignment_origin(seeding.function, seeding.seed)
        if not may_exceed_32_bits(origin):
            return
        message = (
            f"{context.subject} {what} from torch's worker seed, which is larger than "
            f"2**32 - 1 in a worker on {self.project.target.describe()}: NumPy raises "
            f"`ValueError: Seed must be between 0 and 2**32 - 1`; use "
            f"`torch.initial_seed() % 2**32`"
        )
        self._report_once(seeding, message, None, severity)

    def _report_once(
        self, seeding: Seeding, message: str, fix: Fix | None, severity: str = "error"
    ) -> None:
        if not self.reported_at(seeding.function.path, seeding.span):
            self.report(seeding.function, seeding.span, message, fix=fix, severity=severity)

    def _fix(self, seeding: Seeding, context: _Context) -> Fix | None:
        entry = context.entry
        scope = context.scope
        if entry is not None and runs_once_per_worker(
            self.project, scope.function, scope.self_class, seeding.span
        ):
            entry = None  # seeded at a worker's first item only: fixed as a worker_init_fn
        planner = WorkerSeedFix(self.project, scope, entry, called_directly=context.called_directly)
        return planner.fix(seeding)


#: What a per-item seed may depend on and still be the same for every item.
_FIXED_FOR_THE_RUN = frozenset({Source.CONSTANT, Source.RUN_VALUE, Source.RANK})


def _reseeds_numpy(seeding: Seeding) -> bool:
    return seeding.kind is SinkKind.GLOBAL and seeding.library == "numpy"
