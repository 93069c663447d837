"""WS201 rng-object-shared-by-workers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis import catalog
from ..analysis.datasets import (
    Reached,
    dataset_classes,
    datasets_of_loader,
    reachable,
    single_process_only,
)
from ..analysis.facts import Kind, Value
from ..analysis.loaders import LoaderCall, Presence, dataset_argument, loader_calls, worker_init
from ..analysis.project import ClassRef, ExternalRef, FunctionRef, VariableRef
from ..analysis.rng_objects import (
    CHAIN_WORKER_INIT,
    RESEED_IN_WORKER,
    RESEED_OBJECT,
    RESEED_WALKER,
    Creation,
    PerItemRngs,
    Place,
    RngIndex,
    RngObject,
    RngUse,
    UseKind,
    instances_have_dict,
    reseed_helpers_handle,
    rng_library,
)
from ..fixes.helpers import (
    chain_worker_init_function,
    reseed_rng_object_function,
    reseed_rngs_in_worker_function,
    reseed_worker_rngs_function,
    rng_helper_names,
)
from ..fixes.imports import module_reference
from ..fixes.worker_init import add_worker_init_keyword
from ..rule import FixAvailability, Rule
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

_WALKER_TITLE = (
    f"Pass `worker_init_fn={RESEED_WALKER}`, which reseeds every RNG object in the worker's dataset"
)


@dataclass
class _Candidate:
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
class _Plan:
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


class RngObjectSharedByWorkers(Rule):
    """Flags RNG objects that every DataLoader worker receives as an identical copy.

    ## What it does
    Checks for RNG objects that exist before DataLoader workers start and that a Dataset
    draws from for every item.

    The objects are `np.random.default_rng(...)`, `np.random.RandomState(...)`,
    `np.random.Generator(...)`, `random.Random(...)` and `torch.Generator(...)`, seeded or
    not, created in `__init__` (or code it calls), as a class attribute, or at module level.
    Per-item code is `__getitem__`, `__getitems__`, `__iter__` and the project code they
    call, including transforms the dataset holds.

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
    every DataLoader of the project loads with `num_workers=0`.

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
    Inserts two module-level helpers once per module, `_reseed_rng_object` and
    `_reseed_rngs_in_worker`, and a call `_reseed_rngs_in_worker(self, "rng", ...)` as the
    first statement (after a docstring) of each per-item method: `__getitem__`,
    `__getitems__` if defined, and `__iter__`, where they are defined (a project base class
    included). In a worker, once per worker process, it reseeds the named objects *in place*
    from the worker seed mixed with a draw from the object's own state; in the main process
    it does nothing. So:

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
      built dynamically (`getattr(module, name)(**config)`) is not seen.
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

    def check(self) -> None:
        project = self.project
        self.index = RngIndex(project)
        self.loaders = [
            (loader, datasets_of_loader(project, loader)) for loader in loader_calls(project)
        ]
        candidates: dict[tuple[str, Span, str, Span], _Candidate] = {}
        plan = _Plan()
        for dataset in dataset_classes(project):
            if single_process_only(project, dataset, self.loaders):
                continue
            per_item = self.index.per_item(dataset)
            covered = self._covered(dataset, per_item)
            for obj, uses in _by_object(per_item.uses):
                if obj.key in covered:
                    continue
                self._assess(dataset, per_item, obj, uses, candidates, plan)
        walkers = list(self._external_datasets(plan))
        for candidate in candidates.values():
            self._report(candidate, plan)
        for loader, creations in walkers:
            self._report_walker(loader, creations, plan)

    # --- which datasets, and which objects, are affected ---

    def _loaders_of(self, dataset: ClassRef) -> list[LoaderCall]:
        order = self.project.mro
        return [
            loader
            for loader, datasets in self.loaders
            if any(dataset in order(ref) for ref in datasets.classes)
        ]

    def _covered(
        self, dataset: ClassRef, per_item: PerItemRngs
    ) -> set[tuple[str, Span, str, Span]]:
        """Return the objects that per-item code or every worker_init_fn already reseeds."""
        index = self.index
        found: list[RngObject] = []
        for call in per_item.reseed_calls:
            if call.instance_owner is not None:
                if call.names:
                    for name in call.names:
                        path = (*call.instance_owner, *name.split("."))
                        found.extend(index.objects_at_path(dataset, path))
                else:
                    depth = len(call.instance_owner) + 1
                    found.extend(
                        use.obj
                        for use in per_item.uses
                        if use.instance_path is not None
                        and len(use.instance_path) == depth
                        and use.instance_path[:-1] == call.instance_owner
                        and use.obj.place is Place.ATTRIBUTE
                    )
            elif call.module_owner:
                module = call.reached.function.module
                for name in call.names:
                    found.extend(index.objects_at_name(module, name))
        keys = {obj.key for obj in found}
        starting = [loader for loader in self._loaders_of(dataset) if loader.may_start_workers()]
        if starting:
            covers = [self._worker_init_covers(loader, dataset) for loader in starting]
            for use in per_item.uses:
                obj = use.obj
                if all(_init_covers(obj, walker, names) for walker, names in covers):
                    keys.add(obj.key)
        return keys

    def _worker_init_covers(
        self, loader: LoaderCall, dataset: ClassRef
    ) -> tuple[bool, frozenset[str]]:
        """Return (reseeds every RNG object, attribute names it re-creates or reseeds)."""
        init = worker_init(loader)
        function = init.function
        if init.is_absent or function is None:
            return False, frozenset()
        project = self.project
        start = Reached(function, project.class_of_function(function), (function.qualname,), None)
        code = list(reachable(project, [start]))
        names: set[str] = set()
        walker = False
        for reached in list(code):
            facts = reached.function.function
            walker = walker or facts.name == RESEED_WALKER
            names.update(store.attribute for store in facts.attribute_stores)
            for call in facts.calls:
                base = call.base
                if base is None or base.kind is not Kind.ATTRIBUTE or base.base is None:
                    continue
                subject = base.base
                if base.name in catalog.RNG_SEED_METHODS and subject.kind is Kind.ATTRIBUTE:
                    names.add(subject.name)
                elif subject.kind is not Kind.SELF:
                    # `get_worker_info().dataset.reseed(...)`: a method of the dataset.
                    found = project.find_method(dataset, base.name)
                    if found is not None:
                        code.extend(
                            reachable(project, [Reached(found[1], dataset, (found[1].qualname,))])
                        )
        for reached in code:
            facts = reached.function.function
            for assignment in facts.assignments:
                if assignment.target.startswith("self."):
                    names.add(assignment.target[len("self.") :])
            for call in facts.calls:
                base = call.base
                if (
                    base is not None
                    and base.kind is Kind.ATTRIBUTE
                    and base.name in catalog.RNG_SEED_METHODS
                    and base.base is not None
                    and base.base.kind is Kind.ATTRIBUTE
                ):
                    names.add(base.base.name)
        return walker, frozenset(names)

    def _assess(
        self,
        dataset: ClassRef,
        per_item: PerItemRngs,
        obj: RngObject,
        uses: list[RngUse],
        candidates: dict[tuple[str, Span, str, Span], _Candidate],
        plan: _Plan,
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
            candidate = candidates[obj.key] = _Candidate(obj, dataset, shown)
        if sharding:
            entry = sharding[0].reached.chain[0]
            candidate.reasons.append(
                f"it also decides which items each worker gets (`{entry}` shards by "
                "`get_worker_info()`), so reseeding it per worker would break the shard; "
                "give the per-item randomness an RNG of its own"
            )
            return
        reason = self._plan_instance(dataset, obj, uses, candidate, plan)
        if reason is None:
            return
        planned, better = self._plan_namespace(obj, draws, candidate, plan)
        if not planned:
            candidate.reasons.append(better or reason)

    def _plan_instance(
        self,
        dataset: ClassRef,
        obj: RngObject,
        uses: list[RngUse],
        candidate: _Candidate,
        plan: _Plan,
    ) -> str | None:
        """Plan `_reseed_rngs_in_worker(self, ...)` in the dataset's entries; else say why not."""
        project = self.project
        paths = {use.instance_path for use in uses if use.instance_path}
        if obj.owner is not None and obj.owner in project.mro(dataset):
            paths.add((obj.name,))
        valid = sorted(
            (path for path in paths if obj in self.index.objects_at_path(dataset, path)),
            key=lambda path: (len(path), path),
        )
        if not valid:
            return "per-item code reaches it through a name the fix cannot reseed it by"
        entries = []
        for method in catalog.ENTRY_METHODS:
            found = project.find_method(dataset, method)
            if found is not None and found[1] not in entries:
                entries.append(found[1])
        if not entries:
            return f"the per-item methods of `{dataset.name}` are defined outside the project"
        if not instances_have_dict(project, dataset):
            return (
                f"`{dataset.name}` declares `__slots__` and its instances have no `__dict__` "
                "to record the once-per-worker reseed in"
            )
        for entry in entries:
            if not reseed_helpers_handle(project, entry.module, obj.creation.rng_type):
                return _stale_helper(obj.creation)
        name = ".".join(valid[0])
        for entry in entries:
            plan.add(plan.instance, entry, name, obj)
            candidate.entries.append((entry, name))
            plan.need(entry.path, obj.creation)
        return None

    def _plan_namespace(
        self, obj: RngObject, draws: list[RngUse], candidate: _Candidate, plan: _Plan
    ) -> tuple[bool, str | None]:
        """Plan `_reseed_rngs_in_worker(sys.modules[__name__], ...)` where it is drawn.

        Return whether it was planned, and a reason that is better than the instance
        route's when the route exists but cannot be used.
        """
        planned: list[tuple[FunctionRef, str]] = []
        for use in draws:
            function = use.reached.function
            path = use.namespace_path
            if (
                path is None
                or function.function.qualname == "<module>"
                or obj not in self.index.objects_at_name(function.module, path)
            ):
                return False, None
            if not reseed_helpers_handle(self.project, function.module, obj.creation.rng_type):
                return False, _stale_helper(obj.creation)
            planned.append((function, path))
        for function, path in planned:
            plan.add(plan.namespace, function, path, obj)
            candidate.functions.append((function, path))
            plan.need(function.path, obj.creation)
        return True, None

    # --- reports and fixes for project datasets ---

    def _report(self, candidate: _Candidate, plan: _Plan) -> None:
        obj = candidate.obj
        where, span = obj.report_at
        message = (
            f"{self._describe(obj)} is copied into every DataLoader worker and never "
            f"reseeded, so all workers draw the same numbers: {self._describe_draw(candidate.draw)}"
        )
        fix = self._fix(candidate, plan)
        if candidate.reasons:
            message += "; no automatic fix: " + candidate.reasons[0]
        self.report(where, span, message, fix=fix)

    def _describe(self, obj: RngObject) -> str:
        creation = obj.creation
        made = creation.constructor
        if creation.factory:
            made += f" via `{creation.factory}`"
        location = self.location(creation.function.path, creation.span.line)
        if obj.place is Place.ATTRIBUTE and obj.owner is not None:
            return f"`{obj.label}` of `{obj.owner.name}` ({made}, {location})"
        return f"`{obj.label}` ({obj.place.value}, {made}, {location})"

    def _describe_draw(self, draw: RngUse) -> str:
        chain = draw.reached.chain
        via = f" via `{chain[-1]}`" if len(chain) > 1 else ""
        span = draw.call.span
        line = span.line if span else draw.reached.function.function.span.line
        return (
            f"`{chain[0]}` draws from it{via} ({self.location(draw.reached.function.path, line)})"
        )

    def _fix(self, candidate: _Candidate, plan: _Plan) -> Fix | None:
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
            by_path.setdefault(function.path, []).extend(self._insertion(function, plan))
        files = tuple(FileEdits(path, tuple(edits)) for path, edits in by_path.items())
        names = sorted({name for _, name in (*candidate.entries, *candidate.functions)})
        where = sorted({function.function.qualname for function in functions})
        title = (
            f"Reseed {', '.join(f'`{name}`' for name in names)} in place once per worker, "
            f"at the top of {', '.join(f'`{qualname}`' for qualname in where)}"
        )
        return Fix(title, Safety.SAFE, files)

    def _insertion(self, function: FunctionRef, plan: _Plan) -> list[Edit]:
        module = function.module
        names = rng_helper_names(module, kinds=plan.kinds.get(function.path, ()))
        edits: list[Edit] = [
            AddHelper(RESEED_OBJECT, reseed_rng_object_function(RESEED_OBJECT, names)),
            AddHelper(
                RESEED_IN_WORKER,
                reseed_rngs_in_worker_function(RESEED_IN_WORKER, RESEED_OBJECT, names),
            ),
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

    # --- third-party datasets: the worker_init_fn walker ---

    def _external_datasets(
        self, plan: _Plan
    ) -> Iterator[tuple[LoaderCall, list[tuple[str, Creation]]]]:
        """Yield loaders whose dataset is not the project's to edit but is given RNG objects."""
        for loader, _ in self.loaders:
            if not loader.may_start_workers():
                continue
            init = worker_init(loader)
            function = init.function
            if function is not None and function.function.name in (
                RESEED_WALKER,
                CHAIN_WORKER_INIT,
            ):
                continue
            value = dataset_argument(loader)
            if value is None:
                continue
            creations = list(dict.fromkeys(self._external_rngs(value, loader.function, 0)))
            if not creations:
                continue
            if function is not None and self._reseeds_something(function):
                continue
            for _, creation in creations:
                plan.need(loader.module.path, creation)
            yield loader, creations

    def _reseeds_something(self, function: FunctionRef) -> bool:
        """Return True if a project worker_init_fn re-creates or reseeds some object's RNG."""
        project = self.project
        start = Reached(function, project.class_of_function(function), (function.qualname,), None)
        for reached in reachable(project, [start]):
            facts = reached.function.function
            for store in facts.attribute_stores:
                if self.index.constructors(store.value, reached.function, reached.self_class):
                    return True
            for call in facts.calls:
                base = call.base
                if (
                    base is not None
                    and base.kind is Kind.ATTRIBUTE
                    and base.name in catalog.RNG_SEED_METHODS
                    and base.base is not None
                    and base.base.kind is Kind.ATTRIBUTE
                ):
                    return True
        return False

    def _external_rngs(
        self, value: Value, where: FunctionRef, depth: int
    ) -> Iterator[tuple[str, Creation]]:
        """Yield (dataset class, RNG object) for datasets whose per-item code is not ours."""
        if depth > 4:
            return
        project = self.project
        for option in value.alternatives():
            if option.kind is Kind.NAME:
                for target in project.targets(option, where.module):
                    if isinstance(target, VariableRef):
                        module_code = target.module.function("<module>")
                        if module_code is None:
                            continue
                        context = FunctionRef.of(target.module, module_code)
                        for assigned in target.values:
                            yield from self._external_rngs(assigned, context, depth + 1)
                continue
            if option.kind is not Kind.CALL or option.base is None:
                continue
            for target in project.targets(option.base, where.module):
                if isinstance(target, ExternalRef):
                    if target.qualname in catalog.TORCH_DATASET_WRAPPERS:
                        for inner in (*option.args, *(v for _, v in option.keywords)):
                            yield from self._external_rngs(inner, where, depth + 1)
                    else:
                        for creation in self._argument_rngs(option, where, depth + 1):
                            yield target.qualname, creation
                elif isinstance(target, FunctionRef):
                    for returned in target.function.returns:
                        yield from self._external_rngs(returned, target, depth + 1)
                elif isinstance(target, ClassRef) and not any(
                    project.find_method(target, method) for method in catalog.ENTRY_METHODS
                ):
                    # A project subclass of a third-party dataset: its per-item code is not ours.
                    found = list(self._argument_rngs(option, where, depth + 1))
                    for reached in self.index.init_code(target):
                        facts = reached.function.function
                        for assignment in facts.assignments:
                            if assignment.target.startswith("self."):
                                name = assignment.target[len("self.") :]
                                for obj in self.index.attribute_objects(target, name):
                                    found.append(obj.creation)
                        for call in facts.calls:
                            found.extend(self._argument_rngs(call, reached.function, depth + 1))
                    for creation in found:
                        yield target.name, creation

    def _argument_rngs(self, call: Value, where: FunctionRef, depth: int) -> Iterator[Creation]:
        """Yield the RNG objects passed to `call`, also inside lists, dicts and nested calls."""
        if depth > 4:
            return
        project = self.project
        self_class = project.class_of_function(where)
        for argument in (*call.args, *(value for _, value in call.keywords)):
            yield from self.index.constructors(argument, where, self_class)
            for option in argument.alternatives():
                if option.kind in (Kind.SEQUENCE, Kind.DICT):
                    elements = (*option.args, *(value for _, value in option.keywords))
                    for element in elements:
                        yield from self._argument_rngs(
                            Value(Kind.CALL, args=(element,)), where, depth + 1
                        )
                elif option.kind is Kind.NAME:
                    for obj in self.index.name_objects(option, where.module):
                        yield obj.creation
                elif (
                    option.kind is Kind.ATTRIBUTE
                    and option.base is not None
                    and option.base.kind is Kind.SELF
                    and self_class is not None
                ):
                    for obj in self.index.attribute_objects(self_class, option.name):
                        yield obj.creation
                elif (
                    option.kind is Kind.CALL
                    and option.base is not None
                    and not self.index.constructors(option, where, self_class)
                    and all(
                        isinstance(target, ExternalRef)
                        for target in project.targets(option.base, where.module)
                    )
                ):
                    yield from self._argument_rngs(option, where, depth + 1)

    def _report_walker(
        self, loader: LoaderCall, creations: list[tuple[str, Creation]], plan: _Plan
    ) -> None:
        holder, first = creations[0]
        location = self.location(first.function.path, first.span.line)
        message = (
            f"`{holder}` is given an RNG object ({first.constructor}, {location}) that every "
            "DataLoader worker receives as an identical copy; its per-item code is not the "
            "project's, and nothing reseeds the object in the workers"
        )
        fix, reason = self._walker_fix(loader, plan)
        if reason:
            message += f"; no automatic fix: {reason}"
        span = loader.call.span
        assert span is not None
        self.report(loader.function, span, message, fix=fix)

    def _walker_fix(self, loader: LoaderCall, plan: _Plan) -> tuple[Fix | None, str | None]:
        module = loader.module
        lookup = loader.argument("worker_init_fn")
        if lookup.presence is Presence.MAYBE:
            return None, "worker_init_fn may come from **kwargs"
        names = rng_helper_names(module, kinds=plan.kinds.get(module.path, ()), walker=True)
        helpers: list[Edit] = [
            AddHelper(RESEED_OBJECT, reseed_rng_object_function(RESEED_OBJECT, names)),
            AddHelper(
                RESEED_WALKER, reseed_worker_rngs_function(RESEED_WALKER, RESEED_OBJECT, names)
            ),
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


def _by_object(uses: Iterable[RngUse]) -> Iterator[tuple[RngObject, list[RngUse]]]:
    grouped: dict[tuple[str, Span, str, Span], list[RngUse]] = {}
    for use in uses:
        grouped.setdefault(use.obj.key, []).append(use)
    for group in grouped.values():
        yield group[0].obj, group


def _init_covers(obj: RngObject, walker: bool, names: frozenset[str]) -> bool:
    if obj.place is Place.MODULE:
        return False
    return (walker and obj.place is Place.ATTRIBUTE) or obj.name in names


def _stale_helper(creation: Creation) -> str:
    return (
        f"the module's own `{RESEED_IN_WORKER}` or `{RESEED_OBJECT}` is not workerseed's, "
        f"or does not handle `{creation.rng_type}`; rename or delete it and run `fix` again"
    )


def _call(owner: str, names: list[str]) -> str:
    arguments = ", ".join([owner, *(f'"{name}"' for name in names)])
    return f"{RESEED_IN_WORKER}({arguments})\n"
