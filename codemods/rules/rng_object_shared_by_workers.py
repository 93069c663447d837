"""WS201 rng-object-shared-by-workers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..analysis.candidate_notes import picked_note
from ..analysis.dataset_arguments import applied_note
from ..analysis.dataset_reach import loaders_that_may_load, looked_up_in, single_process_only
from ..analysis.datasets import dataset_classes, datasets_of_loader
from ..analysis.loaders import LoaderCall, loader_calls
from ..analysis.refs import ClassRef
from ..analysis.rng_object_records import Creation, PerItemRngs, Place, RngObject, RngUse, UseKind
from ..analysis.rng_objects import RngIndex
from ..analysis.rng_reseeding import ObjectKey, covered_objects, rngs_given_to_third_party
from ..fixes.rng_reseed import (
    ReseedCandidate,
    ReseedPlan,
    candidate_fix,
    plan_instance,
    plan_namespace,
    walker_fix,
)
from ..rule import FixAvailability, FixSafety, Rule
from ..types import Span


class RngObjectSharedByWorkers(Rule):
    """Flags RNG objects that every DataLoader worker receives as an identical copy.

    ## What it does
    Checks for RNG objects that exist before DataLoader workers start and that a Dataset
    draws from for every item.

    The objects are `np.random.default_rng(...)`, `np.random.RandomState(...)`,
    `np.random.Generator(...)`, `random.Random(...)` and `torch.Generator(...)`, seeded or
    not, created in `__init__` (or code it calls), as a class attribute, or at module level,
    or created by the training script and passed to the Dataset (directly, through a
    variable, or through a loader-building function's parameters). Such an object is
    reported where it is created; factories returning one (a nested `def` included) are
    followed to the line that creates it. Per-item code is `__getitem__`, `__getitems__`,
    `__iter__` and the project code they call, including transforms the dataset holds.

    ## Why it matters
    Each DataLoader worker process gets a *copy* of the dataset. torch seeds `random`,
    `torch` and (since 1.9) NumPy's global RNG in every worker, but nothing reseeds RNG
    objects: every worker replays the same stream, and without `persistent_workers` every
    epoch replays it again. Four workers then apply the same "random" crop, flip and noise
    to four different images, on every torch version and with fork, spawn and forkserver
    alike.

    > Each worker will have its PyTorch seed set to `base_seed + worker_id` [...] However,
    > seeds for other libraries may be duplicated upon initializing workers, causing each
    > worker to return identical random numbers.
    > — [PyTorch docs: Randomness in multi-process data loading][docs]

    Not reported: an RNG used only in `__init__` (a fixed train/validation split); an RNG
    that per-item code re-creates or reseeds itself (from `get_worker_info().seed`, or
    `default_rng((seed, epoch, index))`); one a project `worker_init_fn` re-creates or
    reseeds; an `IterableDataset` whose shared RNG only shuffles what it then shards by
    `get_worker_info()` (identical streams are what makes that shard correct); datasets that
    every DataLoader of the project loads with `num_workers=0` (a dataset no loader is seen
    to load counts as such when every loader whose dataset is not resolved has no workers).

    ## Example
    ```python
    class Noisy(Dataset):
        def __init__(self, seed=0):
            self.rng = np.random.default_rng(seed)

        def __getitem__(self, index):
            return self.rng.normal()
    ```

    Use instead:
    ```python
    class Noisy(Dataset):
        def __init__(self, seed=0):
            self.rng = np.random.default_rng(seed)

        def __getitem__(self, index):
            _reseed_rngs_in_worker(self, "rng")
            return self.rng.normal()
    ```

    ## Fix
    Inserts one module-level helper once per module, `_reseed_rngs_in_worker` (a branch for each
    kind of RNG object the module uses), and a call `_reseed_rngs_in_worker(self, "rng", ...)`
    as the first statement (after a docstring) of each per-item method: `__getitem__`,
    `__getitems__` if defined, and `__iter__`, where they are defined (a project base class
    included). In a worker, once per worker process, it reseeds the named objects *in place*
    from the worker seed mixed with a draw from the object's own state; in the main process it
    does nothing. So:

    - every worker, and every epoch, gets its own stream; `torch.manual_seed` (or
      `DataLoader(generator=...)`) still reproduces it; `num_workers=0` is unchanged;
    - a transform holding the same object sees the new stream (it is reseeded in place, and
      an RNG a held transform creates itself is named by its path, `"augment.rng"`);
    - two objects seeded differently stay independent, and two seeded alike (a label flip
      that must match an image flip) stay in lockstep;
    - it pickles under spawn and forkserver (module-level functions only).

    Module-level RNGs and class attributes reached by name get
    `_reseed_rngs_in_worker(sys.modules[__name__], "RNG")` at the top of the function that
    draws from them. When the dataset class is not the project's (or its per-item methods
    are not), but an RNG object is passed into it, the DataLoader gets
    `worker_init_fn=_reseed_worker_rngs`, a function that walks the worker's dataset
    (through `Subset`, `ConcatDataset`, transforms, lists and dicts) and reseeds every RNG
    object it finds; an existing `worker_init_fn` is kept and chained with
    `functools.partial(_chain_worker_init, existing)`. Imports (`torch`,
    `torch.utils.data.get_worker_info`, `random`, and `numpy`, `sys`, `types`, `functools`
    where needed) are added where missing.

    ## Fix safety
    The in-place reseed is safe: only the numbers the RNG objects draw inside workers change
    (it also stores a small marker dict, `_rngs_reseeded_in_worker`, in the reseeded
    object's `__dict__` inside workers). The `worker_init_fn` walker is unsafe: the rule
    cannot see the third-party per-item code, so it reseeds by guesswork every RNG object
    reachable from the dataset, including one whose identical copies might be intended.
    `generator=` is never added: it would change the shuffle order as well.

    ## Known limitations
    - Per-item code is followed a few calls deep through project code; an RNG drawn only
      inside a third-party transform, in a list of transforms, or through `getattr` is not
      seen (the `worker_init_fn` walker covers the third-party cases it can see).
    - An RNG whose per-item draws both shard an `IterableDataset` and augment items is
      reported without a fix: reseeding it would break the shard.
    - A class whose instances have no `__dict__` (every class in its hierarchy declares
      `__slots__`) gets no fix. A Dataset subclass that declares `__slots__` still has a
      `__dict__` (torch's `Dataset` declares none), so it is fixed.
    - An RNG created as a default argument value (`def __init__(self, rng=default_rng(0))`),
      a per-item method assigned rather than defined (`__getitem__ = load`), or a transform
      looked up in a module that is not imported by a literal name
      (`getattr(module, name)(**config)` on an imported module, a module name from a
      config) is not seen. A class looked up by name in a module imported by a literal name
      (`getattr(importlib.import_module("pkg.transforms"), name)`) may be any class that
      module defines: such a finding says it rests on that candidate set. An RNG object such
      a class holds in a transform list gets no automatic fix. A function looked up by name
      in its module's own namespace (`globals()[cfg.augment]`, `getattr(sys.modules[__name__],
      name)`) may be any function that module defines or imports: such a finding says so.
    - A `worker_init_fn` defined outside the project is assumed not to reseed RNG objects.
    - A dataset holding a `torch.Generator` cannot be sent to spawn or forkserver workers
      with torch's default sharing strategy (pytorch/pytorch#146828); the fix does not
      change that.
    - The inserted helper leaves NumPy out when the module did not use NumPy; if NumPy RNG
      objects are added to such a module later, delete the helpers and run `fix` again.

    ## References
    - [PyTorch docs: Randomness in multi-process data loading][docs]
    - [NumPy: Parallel random number generation](https://numpy.org/doc/stable/reference/random/parallel.html)
    - [pytorch/pytorch#146828: torch.Generator and spawn](https://github.com/pytorch/pytorch/issues/146828)

    [docs]: https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading
    """

    CODE = "WS201"
    NAME = "rng-object-shared-by-workers"
    FIX = FixAvailability.SOMETIMES
    FIX_SAFETY = FixSafety.SOMETIMES_UNSAFE

    def check(self) -> None:
        project = self.project
        self.index = RngIndex(project)
        self.loaders = [
            (loader, datasets_of_loader(project, loader)) for loader in loader_calls(project)
        ]
        candidates: dict[ObjectKey, ReseedCandidate] = {}
        plan = ReseedPlan()
        for dataset in dataset_classes(project):
            if single_process_only(project, dataset, self.loaders):
                continue
            per_item = self.index.per_item(dataset)
            covered = covered_objects(self.index, dataset, per_item, self._loaders_of(dataset))
            for obj, uses in _by_object(per_item.uses):
                if obj.key in covered:
                    continue
                self._assess(dataset, per_item, obj, uses, candidates, plan)
        walkers = list(
            rngs_given_to_third_party(self.index, [loader for loader, _ in self.loaders])
        )
        for loader, creations in walkers:
            # The walker's helpers must handle these objects' libraries too.
            for _, creation in creations:
                plan.need(loader.module.path, creation)
        for group in _by_creation(candidates.values(), plan):
            self._report(group, plan)
        for loader, creations in walkers:
            self._report_walker(loader, creations, plan)

    # --- which datasets, and which objects, are affected ---

    def _loaders_of(self, dataset: ClassRef) -> list[LoaderCall]:
        return loaders_that_may_load(self.project, dataset, self.loaders)

    def _assess(
        self,
        dataset: ClassRef,
        per_item: PerItemRngs,
        obj: RngObject,
        uses: list[RngUse],
        candidates: dict[ObjectKey, ReseedCandidate],
        plan: ReseedPlan,
    ) -> None:
        if obj.created_in in per_item.functions or obj.store in per_item.functions:
            return  # created per item (or by an object created per item)
        draws = [use for use in uses if use.kind is UseKind.DRAW]
        if not draws or len(draws) != len(uses):
            return  # never drawn from, or reseeded by per-item code itself
        if obj.owner is not None and (obj.owner, obj.name) in per_item.reassigned:
            return  # re-created by per-item code
        sharding = [
            use for use in draws if use.is_order_draw and self.index.shards(use.reached, per_item)
        ]
        if len(sharding) == len(draws):
            return  # a shared shuffle that workers shard by get_worker_info(): deliberate
        candidate = candidates.get(obj.key)
        if candidate is None:
            shown = next(use for use in draws if use not in sharding)
            candidate = candidates[obj.key] = ReseedCandidate(obj, dataset, shown)
        if sharding:
            entry = sharding[0].reached.chain[0]
            candidate.reasons.append(
                f"it also decides which items each worker gets (`{entry}` shards by "
                "`get_worker_info()`), so reseeding it per worker would break the shard; "
                "give the per-item randomness an RNG of its own"
            )
            return
        reason = plan_instance(self.index, dataset, obj, uses, candidate, plan)
        if reason is None:
            return
        planned, better = plan_namespace(self.index, obj, draws, candidate, plan)
        if not planned:
            candidate.reasons.append(better or reason)

    # --- reports and fixes for project datasets ---

    def _report(self, group: list[ReseedCandidate], plan: ReseedPlan) -> None:
        candidate = group[0]
        obj = candidate.obj
        where, span = obj.report_at
        message = (
            f"{self._describe(obj, [other.obj for other in group[1:]])} is copied into every "
            "DataLoader worker and never reseeded, so all workers draw the same numbers: "
            + self._describe_draw(candidate.draw, candidate.dataset)
        )
        chosen = self.project.chosen_bases(candidate.dataset)
        if chosen:
            # The dataset's bases are picked at run time: say that the finding rests on that.
            names = ", ".join(f"`{name}`" for name in chosen)
            message += f" (resting on the candidate classes of {names}, chosen at run time)"
        looked_up = candidate.draw.reached.looked_up_in or looked_up_in(
            self.project, candidate.dataset, self.loaders
        )
        if looked_up:
            # The class holding the object is picked by a name known only at run time.
            names = ", ".join(f"`{name}`" for name in looked_up)
            message += (
                f" (resting on the candidate classes bound in {names}, looked up by name at"
                " run time)"
            )
        message += picked_note(candidate.draw.reached.picked_in)
        fix = candidate_fix(candidate, plan)
        if candidate.reasons:
            message += "; no automatic fix: " + candidate.reasons[0]
        self.report(where, span, message, fix=fix)

    def _describe(self, obj: RngObject, others: list[RngObject]) -> str:
        creation = obj.creation
        made = creation.constructor
        if creation.factory:
            made += f" via `{creation.factory}`"
        location = self.location(creation.function.path, creation.span.line)
        if obj.place is Place.ATTRIBUTE and obj.owner is not None:
            owners = [
                f"`{owner.name}`" for owner in (obj.owner, *(o.owner for o in others)) if owner
            ]
            shown = ", ".join(owners[:_OWNERS_SHOWN])
            if len(owners) > _OWNERS_SHOWN:
                shown += f" and {len(owners) - _OWNERS_SHOWN} more candidate classes"
            return f"`{obj.label}` of {shown} ({made}, {location})"
        return f"`{obj.label}` ({obj.place.value}, {made}, {location})"

    def _describe_draw(self, draw: RngUse, dataset: ClassRef) -> str:
        chain = draw.reached.chain
        applied = applied_note((found for _, found in self.loaders), dataset)
        via = f" via `{chain[-1]}`" if len(chain) > 1 else ""
        span = draw.call.span
        line = span.line if span else draw.reached.function.function.span.line
        return (
            f"`{chain[0]}`{applied} draws from it{via} "
            f"({self.location(draw.reached.function.path, line)})"
        )

    def _report_walker(
        self, loader: LoaderCall, creations: list[tuple[str, Creation]], plan: ReseedPlan
    ) -> None:
        holder, first = creations[0]
        location = self.location(first.function.path, first.span.line)
        message = (
            f"`{holder}` is given an RNG object ({first.constructor}, {location}) that every "
            "DataLoader worker receives as an identical copy; its per-item code is not the "
            "project's, and nothing reseeds the object in the workers"
        )
        fix, reason = walker_fix(loader, plan)
        if reason:
            message += f"; no automatic fix: {reason}"
        span = loader.call.span
        assert span is not None
        self.report(loader.function, span, message, fix=fix)


#: How many of the candidate classes holding one passed-in object a message names.
_OWNERS_SHOWN = 3


def _by_creation(
    candidates: Iterable[ReseedCandidate], plan: ReseedPlan
) -> Iterator[list[ReseedCandidate]]:
    """Yield the candidates to report together: one object created by one call and handed
    to each candidate class of a set looked up by name at run time is one finding there
    (when none of them gets a fix); any other candidate is a finding of its own."""
    groups: dict[tuple[str, Span, str], list[ReseedCandidate]] = {}
    for candidate in candidates:
        obj = candidate.obj
        if (
            obj.created_in == obj.store
            or not candidate.draw.reached.looked_up_in
            or candidate_fix(candidate, plan) is not None
        ):
            yield [candidate]
            continue
        where, span = obj.report_at
        groups.setdefault((where.path.as_posix(), span, obj.label), []).append(candidate)
    for group in groups.values():
        yield sorted(
            group, key=lambda candidate: candidate.obj.owner.name if candidate.obj.owner else ""
        )


def _by_object(uses: Iterable[RngUse]) -> Iterator[tuple[RngObject, list[RngUse]]]:
    grouped: dict[ObjectKey, list[RngUse]] = {}
    for use in uses:
        grouped.setdefault(use.obj.key, []).append(use)
    for group in grouped.values():
        yield group[0].obj, group
