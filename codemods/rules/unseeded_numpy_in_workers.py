"""WS101 unseeded-numpy-in-workers."""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis import catalog
from ..analysis.augmentations import global_numpy_library_calls
from ..analysis.candidate_notes import OneOf, candidate_note, picked_note
from ..analysis.candidates import Construction, DatasetsOf
from ..analysis.collate_code import collate_draw
from ..analysis.dataset_arguments import applied_note
from ..analysis.dataset_reach import with_bases
from ..analysis.datasets import dataset_classes, datasets_of_loader, is_dataset
from ..analysis.facts import Value
from ..analysis.held_candidates import drawn_by_every_candidate
from ..analysis.known_values import Known
from ..analysis.lightning_loaders import seeded_by_lightning
from ..analysis.loader_kwargs import KnownDict
from ..analysis.loaders import LoaderCall, Presence, loader_calls
from ..analysis.per_item import per_item_code
from ..analysis.randomness import (
    GlobalCall,
    inherited_state_draws,
    numpy_global_draws,
    seeds_numpy,
)
from ..analysis.refs import ClassRef, FunctionRef
from ..analysis.seed_classification import NUMPY_SEEDED_SINCE
from ..analysis.start_methods import spawns_workers
from ..analysis.worker_inits import (
    WorkerInit,
    worker_arguments,
    worker_init,
    worker_init_choices,
)
from ..analysis.worker_once import stored_by_every_dataset
from ..fixes.helpers import seed_worker_function, seeding_names, seeding_statements
from ..fixes.worker_init import add_worker_init_keyword
from ..rule import FixAvailability, FixSafety, Rule
from ..types import (
    AddHelper,
    Edit,
    FileEdits,
    Fix,
    InsertStatements,
    ReplaceExpression,
    Safety,
    TorchTarget,
)

_HELPER_NAMES = ("seed_worker", "seed_numpy_worker", "_workerseed_seed_worker")


class UnseededNumpyInWorkers(Rule):
    """Flags DataLoaders whose workers all start from one copy of NumPy's global RNG state.

    ## What it does
    Checks for `torch.utils.data.DataLoader(...)` calls that may start worker processes
    (`num_workers` is not provably 0: a literal 0, a setting the code fixes at 0, or an
    attribute such as `config.workers` the function sets to 0 before the call on every path,
    with no other function of the project storing that attribute when the object is handed
    on between the two) and pass no `worker_init_fn` that seeds NumPy, when the
    project targets torch < 1.9 and the Dataset's per-item code draws from NumPy's global RNG
    (`np.random.rand`, `np.random.randint`, ...).

    Per-item code includes the project callables a torchvision dataset applies per item: every
    class of `torchvision.datasets` (the `VisionDataset` family) calls its `transform=`,
    `target_transform=` and `transforms=` arguments in its own `__getitem__`, so a project
    transform passed there (directly, through a variable or factory, or inside a torchvision
    `Compose`) runs in the workers; the message names it and the dataset that applies it.
    A torch module called on an item runs `forward` (an `nn.Sequential`, each step's), and a
    helper handed a held object runs the methods it calls on it. The loader's `collate_fn`
    (a project function, or an object whose `__call__` batches the items) runs in the workers
    too, but it is not Dataset code: its draws (and those of the project code it calls) give
    an `info` note with the same fix, which never fails a run.

    A Dataset that a project factory builds and returns is read as the loader's call of that
    factory builds it: a pipeline made of steps the factory picks by its arguments (`if
    augmentation == "hard": augs = [A.GaussianBlur()] else: augs = []`, then
    `Tiles(files, transform=A.Compose(augs + [A.Normalize()]))`) holds none of the `"hard"`
    steps for `tiles_dataset(files, augmentation=None)`.

    Draws that follow a per-item reseed are not counted: code of `__getitem__` or `__iter__`
    that runs only after a `np.random.seed(...)` statement, or a call of project code that
    always makes one (`self._reseed(index)`) (later in the same block, or after
    an `if` holding the reseed that every instance the loader gets takes), and project code
    called only from there, never draws from the inherited state: a `worker_init_fn` would
    change nothing. A reseed under a test whose outcome is not known
    leaves the draws after that `if` counted.
    Whether that seed repeats across workers or epochs is WS102's question (a seed from the
    worker id or the clock is reported there; once WS102's fix deletes the per-item reseed,
    this rule reports the loader, so `fix` applies both in turn).

    A loader without `worker_init_fn` is not reported when its run calls Lightning's
    `seed_everything(..., workers=True)` and the loader is seen handed to a Lightning Trainer
    (`trainer.fit(model, loader)`, or returned by a `train_dataloader()` hook of what a Trainer
    method is given): the Trainer adds `pl_worker_init_function`, which seeds NumPy per
    worker. A loader the run iterates itself gets nothing from it.

    Spawned workers (`multiprocessing_context="spawn"`, `set_start_method("spawn")`) are
    not reported: NumPy starts anew in them.

    A project subclass of DataLoader whose `__init__` builds its dataset and hands it to
    `super().__init__(dataset, ...)` is checked at that call, where the dataset, `num_workers`
    and `worker_init_fn` are given and the fix adds `worker_init_fn=`.

    ## Why it matters
    Before torch 1.9, DataLoader seeded `torch` and `random` in each worker, but not NumPy.
    Every worker process starts with a copy of the parent's NumPy state, so every worker
    draws the *same* "random" augmentations; and because the parent's state never moves,
    every epoch repeats them too. A 2021 study of over 100,000 GitHub repositories found the
    bug in over 95% of the projects combining custom datasets, NumPy randomness and workers.

    > Each worker will have its PyTorch seed set to `base_seed + worker_id` [...] However,
    > seeds for other libraries may be duplicated upon initializing workers, causing each
    > worker to return identical random numbers.
    > — [PyTorch docs: Randomness in multi-process data loading][docs]

    The target torch version comes from `--torch-version`, `[tool.workerseed] torch-version`,
    the lowest version the project's requirements admit (`torch>=1.4` stands for 1.4; pins
    below the root count only when no root file declares torch), or the installed torch, in
    that order; the message says which one it assumed and where. Silent on torch >= 1.9.

    ## Example
    ```python
    class Noisy(Dataset):
        def __getitem__(self, index):
            return np.random.rand()

    loader = DataLoader(Noisy(), num_workers=4)
    ```

    Use instead:
    ```python
    def seed_worker(worker_id: int) -> None:
        worker_seed = torch.initial_seed() % 2**32
        np.random.seed(worker_seed)
        random.seed(worker_seed)

    loader = DataLoader(Noisy(), num_workers=4, worker_init_fn=seed_worker)
    ```

    ## Fix
    Inserts a module-level `seed_worker` function (once per module, after the imports) and
    passes it as `worker_init_fn=seed_worker`; when the call's keyword arguments come from a
    dict literal in scope (`DataLoader(ds, **loader_kwargs)`), the key is added to that dict.
    A literal `worker_init_fn=None` is replaced. When the call already passes a function
    defined in the project, NumPy and `random` seeding is added at the top of that function
    instead. `torch.initial_seed()` differs per worker and per epoch and follows
    `torch.manual_seed`, so runs stay reproducible. Imports of `torch`, `numpy` and `random`
    are added where missing.

    ## Fix safety
    Safe: only the numbers NumPy and `random` draw inside workers change. `generator=` is never
    added, because it would change the shuffle order as well.

    ## Known limitations
    - When `worker_init_fn` may come from a `**kwargs` whose contents are unknown, the finding
      has no fix: adding the keyword could raise `TypeError: got multiple values`. A section
      of configuration settings (`**config["loader"]`) is known not to hold one when neither
      the project's code nor its YAML/JSON files spell `worker_init_fn`.
    - A project DataLoader subclass whose `__init__` does not accept `worker_init_fn` gets no fix.
    - `worker_init_fn=make_init(dataset)`, a project function returning None on every path,
      passes no worker_init_fn; the finding has no fix (the call is not removed).
    - A `worker_init_fn` defined outside the project (or a lambda) is not edited; see WS103.
    - A `worker_init_fn` chosen at run time (`init = seed_fn if flag else None`) gets a warning
      when some choice leaves NumPy unseeded, and no fix: no one place covers every branch.
    - Per-item code is followed a few calls deep through project functions and methods; of
      third-party transforms only audiomentations and the albumentations transforms measured
      to draw from NumPy in their release are known to (timm's `RandAugment` is not seen).
    - An object the dataset holds whose class is looked up by a name known only at run time
      (`getattr(module, cfg["type"])(...)`) may be any class its module defines: the loader is
      reported only when every such candidate draws, and the message says it rests on them.
    - When the loader's dataset may be any of several classes (a factory's branches, a
      registry, a table) and only some of them draw, the finding is a warning that names the
      drawing class and says the run must pick it: which class the run picks is not known.
    - A project subclass of a torchvision dataset that keeps its inherited `__getitem__` is
      not followed into the transforms its base class applies.
    - When some loader's dataset cannot be resolved, no Dataset is named at that loader. A
      Dataset that draws and that no loader is seen to load gets an `info` note at its draw.
    - A Dataset class built from a dotted-path string by a project function that imports it
      by name (`construct_class_by_name(**dataset_kwargs)`) may be any Dataset class the
      project's code names under that keyword (`class_name="pkg.data.ImageSet"`): a name
      given only on the command line is not seen, and such a finding says what it rests on.
    - A Dataset class chosen with `eval` of a configured name (`eval("datasets." + name)`,
      where `datasets` is a project package the module imports, or `eval(cfg.name)`) may be
      any class bound in that package or in the calling module: such a finding says it rests
      on that candidate set. An `eval` of a name in a third-party package, of a string built
      some other way (an f-string, `%`), or evaluated with namespaces of its own tells
      nothing, and the loader is treated as having an unknown dataset.
    - A Dataset class looked up by name in its module's own namespace
      (`globals()[cfg.name](...)`, `globals().get(name)`, `getattr(sys.modules[__name__],
      name)`) may be any Dataset class that module defines or imports, and a function looked
      up so (a transform factory) any function of it: such a finding says it rests on that
      candidate set.

    ## References
    - [PyTorch docs: Randomness in multi-process data loading][docs]
    - [pytorch/pytorch#56488: seed NumPy in DataLoader workers](https://github.com/pytorch/pytorch/pull/56488)

    [docs]: https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading
    """

    CODE = "WS101"
    NAME = "unseeded-numpy-in-workers"
    FIX = FixAvailability.SOMETIMES
    FIX_SAFETY = FixSafety.SAFE

    @classmethod
    def prefetch(cls, target: TorchTarget) -> tuple[bytes, ...]:
        if not target.is_before(NUMPY_SEEDED_SINCE):
            return ()
        return (b"DataLoader", b"Dataset", b"torchvision", b"albumentations")

    def check(self) -> None:
        project = self.project
        if not project.target.is_before(NUMPY_SEEDED_SINCE):
            return
        library: dict[tuple[ClassRef, tuple[Construction, ...] | None], list[GlobalCall]] = {}

        def library_calls(
            ref: ClassRef, made_by: tuple[Construction, ...] | None = None
        ) -> list[GlobalCall]:
            # A transform of a library drawing from NumPy's global RNG is a NumPy draw too;
            # which pipeline the instances hold may depend on how they are built.
            key = (ref, made_by)
            if key not in library:
                code = per_item_code(project, ref, made_by)
                calls = global_numpy_library_calls(project, ref, made_by)
                calls = inherited_state_draws(project, code, calls)
                library[key] = drawn_by_every_candidate(code, calls)
            return library[key]

        unsited: dict[ClassRef, list[GlobalCall]] = {}

        def global_draws(
            ref: ClassRef, made_by: tuple[Construction, ...] | None
        ) -> list[GlobalCall]:
            # Without known constructions the answer is the same for every loader.
            if made_by is not None:
                code = per_item_code(project, ref, made_by)
                return drawn_by_every_candidate(code, numpy_global_draws(project, ref, made_by))
            if ref not in unsited:
                code = per_item_code(project, ref)
                unsited[ref] = drawn_by_every_candidate(code, numpy_global_draws(project, ref))
            return unsited[ref]

        drawing: dict[ClassRef, GlobalCall] = {}
        for ref in dataset_classes(project):
            draws = global_draws(ref, None) or library_calls(ref)
            if draws:
                drawing[ref] = draws[0]
        project_datasets = [ref for ref in drawing if is_dataset(project, ref)]
        loaded: set[ClassRef] = set()
        unresolved: list[LoaderCall] = []
        for loader in loader_calls(project):
            datasets = datasets_of_loader(project, loader)
            loaded.update(datasets.classes)
            if not loader.may_start_workers() or spawns_workers(project, loader):
                continue  # spawned workers seed NumPy afresh: nothing is inherited
            # What one loader's instances hold may draw where no instance seen elsewhere does
            # (a transform passed only here): each loader's datasets are checked as built.
            draws_of = {
                ref: (
                    global_draws(ref, datasets.made_by(ref))
                    or library_calls(ref, datasets.made_by(ref))
                )[:1]
                for ref in datasets.classes
            }
            found = next(
                (
                    (ref, draw, applied_note([datasets], ref))
                    for ref, draws in draws_of.items()
                    for draw in draws
                ),
                None,
            )
            # The loader's collate_fn runs in its workers too (CutMix boxes drawn per batch):
            # not Dataset code, which the rule is about, so a note.
            collating = None if found else collate_draw(project, loader)
            if collating is not None:
                applied = " (the loader's collate_fn, not Dataset code)"
                self._check_loader(loader, collating, DatasetsOf((), True), applied, None)
                continue
            if found is not None:
                ref, draw, applied = found
                # Only classes that serve items are alternatives: a mixin composed into the
                # dataset (`type("D", (Frames, Tagged), {})`) is part of it, not another choice.
                serving = [
                    draws
                    for other, draws in draws_of.items()
                    if any(project.find_method(other, name) for name in catalog.PER_ITEM_METHODS)
                ]
                quiet = sum(1 for draws in serving if not draws)
                one_of = OneOf(ref, quiet, len(serving))
                self._check_loader(loader, draw, datasets, applied, one_of)
            elif (
                not datasets.complete
                and self._leaves_numpy_unseeded(loader)
                and not self._seeded_by_lightning(loader)
            ):
                unresolved.append(loader)
        # A loader whose dataset cannot be resolved is given no culprit: a drawing dataset no
        # loader is seen to load gets a note of its own, which duplicates nothing yet.
        # A base whose subclass a loader loads was judged there, through the subclass.
        judged = with_bases(project, loaded) if unresolved else set()
        for ref in (ref for ref in project_datasets if ref not in judged) if unresolved else ():
            self._report_unresolved(drawing[ref], unresolved[0])

    def _seeded_by_lightning(self, loader: LoaderCall) -> bool:
        """Return True if a Lightning Trainer gives `loader` its per-worker seeding."""
        return (
            worker_init(loader).is_absent and seeded_by_lightning(self.project, loader) is not None
        )

    def _leaves_numpy_unseeded(self, loader: LoaderCall) -> bool:
        """Return True if `loader` is seen to pass no worker_init_fn that always seeds NumPy
        (on some choice, when the function is chosen at run time)."""
        choices = worker_init_choices(loader)
        if len(choices) > 1:
            return any(self._leaves_unseeded(init, always=False) for init in choices)
        arguments = worker_arguments(self.project, loader, choices[0])
        return self._leaves_unseeded(choices[0], always=True, arguments=arguments)

    def _leaves_unseeded(
        self, init: WorkerInit, *, always: bool, arguments: dict[str, Known] | None = None
    ) -> bool:
        """Return True if `init` is absent or a project function that does not seed NumPy
        (`always`: on every call, its parameters known as `arguments` says; otherwise:
        anywhere)."""
        if init.is_absent:
            return True
        function = init.function
        return function is not None and not seeds_numpy(
            self.project, function, always=always, arguments=arguments
        )

    def _check_loader(
        self,
        loader: LoaderCall,
        draw: GlobalCall,
        datasets: DatasetsOf,
        applied: str,
        one_of: OneOf | None,
    ) -> None:
        init = worker_init(loader)
        if self._seeded_by_lightning(loader):
            return
        span = loader.call.span
        assert span is not None
        where = self._describe_draw(draw, applied) + candidate_note(datasets)
        version = self.project.target.describe() + (one_of.condition() if one_of else "")
        # No `one_of`: the draw is the collate_fn's, not Dataset code: a note. Some class the
        # dataset may be draws nothing: the finding assumes the run picks one that does.
        severity = "info" if one_of is None else "warning" if one_of.quiet else "error"
        if init.is_absent:
            message = (
                f"DataLoader workers start with identical NumPy RNG state on {version}: "
                f"{where}, and {init.why_none_runs}no worker_init_fn reseeds NumPy"
            )
            if not loader.accepts_keyword("worker_init_fn"):
                names = ", ".join(f"`{ref.name}.__init__`" for ref in loader.subclasses)
                message += f"; {names} does not accept worker_init_fn, so it cannot be fixed here"
                self.report(loader.function, span, message, severity=severity)
                return
            fix = self._add_worker_init(loader)
            self.report(loader.function, span, message, fix=fix, severity=severity)
            return
        if init.lookup.presence is Presence.MAYBE:
            message = (
                f"DataLoader workers may start with identical NumPy RNG state on {version}: "
                f"{where}; worker_init_fn may come from **kwargs, so it cannot be fixed here"
            )
            self.report(loader.function, span, message, severity=severity)
            return
        choices = worker_init_choices(loader)
        if len(choices) > 1:
            self._check_choices(loader, choices, where, "warning" if one_of else severity)
            return
        function = init.function
        stored = stored_by_every_dataset(self.project, datasets)
        arguments = worker_arguments(self.project, loader, init)
        if function is None or seeds_numpy(
            self.project, function, always=True, stored=stored, arguments=arguments
        ):
            return
        how = "does not seed NumPy"
        if seeds_numpy(self.project, function):
            how = "seeds NumPy only under a condition"
        message = (
            f"DataLoader workers start with identical NumPy RNG state on {version}: "
            f"{where}, and worker_init_fn `{function.function.name}` {how}"
        )
        fix = None
        if not function.function.is_lambda:
            fix = self._seed_in_function(function)
        self.report(loader.function, span, message, fix=fix, severity=severity)

    def _check_choices(
        self, loader: LoaderCall, choices: tuple[WorkerInit, ...], where: str, severity: str
    ) -> None:
        """Report a worker_init_fn chosen at run time of which some choice leaves NumPy alone.

        Which branch a run takes is not known: the finding is a warning naming the choices
        that leave the workers alike, and it has no fix (no one place covers every branch).
        """
        named: list[str] = []
        for init in choices:
            value = init.lookup.value
            # Only a choice that never seeds NumPy is named (one seeding in each arm of an
            # `if` is not "always"), and not a None taken only when no seed is given.
            if not self._leaves_unseeded(init, always=False) or init.without_seed:
                continue
            if init.is_absent and value is not None and value.span is not None:
                at = self.location(loader.module.path, value.span.line)
                named.append(f"the `None` chosen at {at}")
            elif init.function is not None:
                named.append(f"`{init.function.function.name}`, which does not seed NumPy")
        if not named:
            return
        span = loader.call.span
        assert span is not None
        message = (
            f"DataLoader workers start with identical NumPy RNG state on "
            f"{self.project.target.describe()} when worker_init_fn is "
            f"{' or '.join(dict.fromkeys(named))}: {where}; the worker_init_fn is chosen at "
            "run time, so it cannot be fixed here"
        )
        self.report(loader.function, span, message, severity=severity)

    def _report_unresolved(self, draw: GlobalCall, loader: LoaderCall) -> None:
        span = draw.call.span
        assert span is not None
        message = (
            f"{self._describe_draw(draw)}, and {self.unresolved_note(loader)}: if a DataLoader "
            f"that starts workers loads it, every worker starts with the same NumPy RNG state "
            f"on {self.project.target.describe()}; seed NumPy in a worker_init_fn"
        )
        # Nothing is known to load it, so nothing is known to repeat: like seeding code no
        # loader uses, it is a note, not a finding about a loader.
        self.report(draw.function, span, message, severity="info")

    def _describe_draw(self, draw: GlobalCall, applied: str = "") -> str:
        span = draw.call.span
        line = span.line if span else 0
        name = draw.qualname.replace("numpy.", "np.", 1)
        chain = draw.reached.chain
        via = f" via `{chain[-1]}`" if len(chain) > 1 else ""
        at = self.location(draw.function.path, line)
        where = f"`{chain[0]}`{applied} draws from `{name}`{via} ({at})"
        if draw.reached.registries:
            names = ", ".join(f"`{name}`" for name in dict.fromkeys(draw.reached.registries))
            where += f", when the run picks it from the functions {names} holds"
        if draw.reached.looked_up_in:
            # The object applying the pipeline is made from a class looked up by name: every
            # candidate draws (see `drawn_by_every_candidate`), so the finding holds for any.
            names = ", ".join(f"`{name}`" for name in dict.fromkeys(draw.reached.looked_up_in))
            where += (
                f" (resting on a candidate set: the classes {names} defines, looked up by"
                " name at run time; each of them draws)"
            )
        return where + picked_note(draw.reached.picked_in)

    def _add_worker_init(self, loader: LoaderCall) -> Fix | None:
        module = loader.module
        names = seeding_names(module)
        helper = self._helper_name(loader)
        edits: list[Edit] = []
        if helper.needs_definition:
            edits.append(AddHelper(helper.name, seed_worker_function(helper.name, names)))
        edits.extend(names.imports)
        files = [FileEdits(module.path, tuple(edits))]
        lookup = loader.argument("worker_init_fn")
        if lookup.value is not None and not lookup.value.is_none:
            return None  # a call that evaluates to None (a factory's result): not ours to drop
        if lookup.value is not None and lookup.value.span is not None:
            # A literal `worker_init_fn=None`, spelled out or in a known `**dict`.
            path = module.path
            if lookup.container is not None:
                container = _dict_of(loader, lookup.container)
                if container is None:
                    return None
                path = container.path
            files.append(FileEdits(path, (ReplaceExpression(lookup.value.span, helper.name),)))
        else:
            files.append(add_worker_init_keyword(loader, helper.name))
        title = f"Pass `worker_init_fn={helper.name}`, which seeds NumPy and `random` per worker"
        return Fix(title, Safety.SAFE, tuple(files))

    def _helper_name(self, loader: LoaderCall) -> _HelperName:
        module = loader.module
        for name in _HELPER_NAMES:
            existing = module.function(name)
            if existing is not None and existing.class_qualname is None and not existing.nested:
                if seeds_numpy(self.project, FunctionRef.of(module, existing), always=True):
                    return _HelperName(name, needs_definition=False)
                continue
            if name not in module.module_names:
                return _HelperName(name, needs_definition=True)
        return _HelperName(_HELPER_NAMES[-1], needs_definition=True)

    def _seed_in_function(self, function: FunctionRef) -> Fix:
        names = seeding_names(function.module, function.function)
        edits: list[Edit] = [
            _insert_at_top(function, seeding_statements(names)),
            *names.imports,
        ]
        title = f"Seed NumPy and `random` from `torch.initial_seed()` in `{function.function.name}`"
        return Fix(title, Safety.SAFE, (FileEdits(function.path, tuple(edits)),))


@dataclass(frozen=True)
class _HelperName:
    name: str
    needs_definition: bool


def _dict_of(loader: LoaderCall, container: Value) -> KnownDict | None:
    for splat in loader.splats:
        if splat is not None and splat.value == container:
            return splat
    return None


def _insert_at_top(function: FunctionRef, code: str) -> Edit:
    return InsertStatements(function.function.span, code, at_top=True)
