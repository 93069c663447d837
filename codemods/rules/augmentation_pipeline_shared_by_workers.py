"""WS203 augmentation-pipeline-shared-by-workers."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ..analysis.augmentations import (
    ALBUMENTATIONS,
    AUDIOMENTATIONS,
    IMGAUG,
    MONAI,
    RESEED_PIPELINE,
    Library,
    PipelineIndex,
    applied_by_instances,
    held_in_a_container,
    library_named,
    library_version,
    library_worker_init_reseeds,
    redraws_from_global_rng,
    reseeding_loader_only,
    reseeds_library_globally,
    reseeds_pipelines,
    seeded,
    uses_any,
)
from ..analysis.branch_facts import within
from ..analysis.candidate_notes import picked_note
from ..analysis.dataset_arguments import applied_note
from ..analysis.dataset_reach import loaders_of, loaders_that_may_load, single_process_only
from ..analysis.datasets import dataset_classes, datasets_of_loader
from ..analysis.facts import Kind, Value
from ..analysis.loaders import LoaderCall, Presence, loader_calls
from ..analysis.package_versions import LibraryVersion
from ..analysis.per_item import entry_methods
from ..analysis.pipeline_datasets import third_party_datasets
from ..analysis.refs import ClassRef, FunctionRef
from ..analysis.rng_object_records import Creation, Place, RngUse, UseKind
from ..analysis.rng_objects import RngIndex
from ..analysis.rng_reseeding import worker_init_reseeds
from ..analysis.seed_descriptions import joined
from ..analysis.worker_inits import worker_init
from ..fixes.pipelines import reseed_dataset_transform_function, reseed_pipeline_helper
from ..fixes.worker_seed import merged_fix
from ..rule import FixAvailability, FixSafety, Rule
from ..types import (
    AddHelper,
    AddKeyword,
    Edit,
    FileEdits,
    Fix,
    InsertStatements,
    Location,
    Safety,
    Span,
    TorchTarget,
)

#: The worker_init_fn the fix adds for a library dataset.
_WORKER_INIT = "_reseed_dataset_transform"
#: albumentations releases whose transforms own an RNG made at construction.
_OWN_RNG = ((1, 4, 21), (2, 0, 9))
#: albumentationsx re-syncs every pipeline from torch's worker seed from this release on.
_RESYNCED_SINCE = (2, 3, 1)


class AugmentationPipelineSharedByWorkers(Rule):
    """Flags augmentation pipelines whose own RNG every DataLoader worker copies.

    ## What it does
    Checks for Dataset per-item code (`__getitem__`, `__iter__` and what they call) applying
    an augmentation pipeline holding its own random state, built before the workers start:
    in `__init__` (or passed in by the training script, built by a factory function), as a
    class attribute, or at module level, held directly or by a transform wrapper, held in a
    list that per-item code loops over (`for flip in self.flips: flip.randomize(None)`), or
    read by a closure that a factory returns (`seq = iaa.Sequential(...)` beside `def
    transform(x)`).
    A pipeline built elsewhere is reported where it is built. It fires when the assumed library
    version keeps that state per pipeline and nothing reseeds it in each worker:

    | library | versions | affected |
    |---|---|---|
    | albumentations | <= 1.4.20 | no: global `random`, a few transforms `np.random` (WS101) |
    | albumentations | 1.4.21 - 2.0.8 | yes, with or without `seed=` |
    | albumentationsx | 2.0.9 - 2.3.0 | pipelines built without `seed=` |
    | albumentationsx | >= 2.3.1 | no; but a pipeline built inside `__getitem__` is (see below) |
    | imgaug | all (0.4.0) | yes |
    | MONAI | all (1.6.1) | `Rand*` transforms and `Compose` under torch's DataLoader |
    | audiomentations, torchvision, kornia, torchio | all | no |

    It also fires at a torch DataLoader whose dataset is a library's own (MONAI's `Dataset`,
    `CacheDataset`, ...) given such a pipeline as `transform`. With albumentationsx >= 2.3.1
    a pipeline built *per call* is reported instead: each one starts from the same worker
    seed, so every sample of a worker is augmented alike. A MONAI `Rand*` transform built per
    call without `set_random_state` gets a warning: it draws from MONAI's class-level
    `Randomizable.R`, made when monai is imported in the main process, which forked workers
    copy (workers started by spawn or forkserver import monai anew and get their own).

    The library version comes from `--library-version NAME==VERSION`, `[tool.workerseed]
    library-versions = {albumentations = "2.0.8"}`, a lock file, the project's requirements
    (the lowest release they admit, as for torch: `albumentations>=1.4.21` stands for 1.4.21;
    a bare name or only an upper bound, the newest release admitted), the installed
    distribution, or the newest release, in that order; the message says which.
    `albumentations` and `albumentationsx` are different distributions with one import name.
    When nothing names the version (no option, setting, declaration or installed copy), the
    finding is a warning: it assumes the newest release.

    Not reported: a pipeline that only DataLoaders without workers are given (a notebook
    previewing a few augmented images with `num_workers=0`, while training loaders get
    another), and the pipelines of datasets that every DataLoader of the project loads with
    `num_workers=0`.

    ## Why it matters
    Each worker receives a copy of the pipeline and its generators: worker 0 and worker 1
    produce the same augmentations, and without persistent workers every epoch repeats the
    first one. Without `seed=` the state comes from OS entropy, so runs are not reproducible
    either. Measured on torch 2.13 with albumentations 2.0.8: 4 distinct outputs of 8 in an
    epoch, 8 of 8 repeated the next epoch. `seed=` makes it reproducible, still duplicated.

    ## Example
    ```python
    import albumentations as A

    class Images(Dataset):
        def __init__(self, images):
            self.images = images
            self.augment = A.Compose([A.HorizontalFlip(), A.RandomBrightnessContrast()])

        def __getitem__(self, index):
            return self.augment(image=self.images[index])["image"]

    loader = DataLoader(Images(images), num_workers=4)
    ```

    Use instead:
    ```python
        def __getitem__(self, index):
            _reseed_pipeline_in_worker(self, "augment")
            return self.augment(image=self.images[index])["image"]
    ```

    ## Fix
    Inserts a module-level `_reseed_pipeline_in_worker(pipeline)` and calls it at the top of
    the Dataset's per-item methods. In a worker it reseeds the pipeline once per process,
    with the library's own API: albumentations `set_random_seed(seed)` (the user's `seed=`
    mixed in), imgaug `seed_(seed)` (`reseed(seed)` before 0.4, which has no `seed_`), MONAI
    `set_random_state(seed=seed)`, where `seed` is
    `get_worker_info().seed % 2**32` (equal to `torch.initial_seed()` in a worker, but immune
    to a `worker_init_fn` that reseeds torch). It is placed in the Dataset rather than in a
    `worker_init_fn`, as WS201 does, because that keeps DESIGN section 3: every DataLoader
    of the class is fixed wherever it is built, `Subset` / `ConcatDataset` wrappers do not
    hide it, the pipeline is reseeded in place (a wrapper holding it sees the change), and
    the main process (`num_workers=0`) is untouched. A library dataset cannot be edited: its
    DataLoader gets `worker_init_fn=_reseed_dataset_transform`, a module-level function (so
    it pickles under spawn) that reseeds the worker's copy of `dataset.transform`.

    ## Fix safety
    Safe for albumentations and MONAI, unsafe for imgaug. Only the pipeline's random draws
    change, through the libraries' documented reseeding calls; an imgaug augmenter given
    `seed_` (or `reseed`) also stops following later `imgaug.random.seed()` calls in that
    worker.

    ## Known limitations
    - The version is one assumption per project; a repository pinning different versions
      for different entry points gets the highest one.
    - A library dataset is fixed through its DataLoader: wrapped in a `Subset` there, the
      added `worker_init_fn` finds no `transform` and does nothing; a loader that already
      passes a `worker_init_fn` which does not reseed gets the finding without a fix.
    - A pipeline whose randomness cannot be told (built from a variable list) counts as
      random; a `Compose` of deterministic albumentations transforms (`Resize`, `Normalize`,
      ...) or of project transforms whose methods draw nothing does not, nor does an imgaug
      `Sequential` of `.to_deterministic()` augmenters or of fixed ones with constant
      arguments (`Resize(128)`, `CenterPadToSquare()`).
    - A pipeline read with `albumentations.load(path)` is judged by its JSON file when the
      path is a literal or a module-level constant (read from the script's folder or the
      project root), or a lookup under literal keys (`config["aug"]`) that the project's
      YAML/JSON configuration files all answer with such files. Any other path, a YAML
      pipeline and candidates that disagree give a warning that assumes the pipeline draws.
    - A pipeline built with `albumentations.from_dict(config["aug"])` is judged by the
      mappings the project's YAML/JSON configuration files give under those keys: none
      drawing is no finding, all drawing is an error naming the files, some drawing a
      warning naming the ones that do. A mapping no configuration file gives (or one built
      in code) gives a warning that assumes the pipeline draws.
    - A pipeline held inside a list or a torchvision `Compose`, or read by a closure, has no
      path the fix can name: it is reported without a fix. So is one read from an attribute
      that may hold a list around it instead (`steps if isinstance(steps, list) else
      [steps]`), and an imgaug pipeline whose per-item code calls `reseed()` without a seed
      (on a `Sequential` built around it, say): that call draws new states from imgaug's
      global RNG, a copy in every worker, replacing what the fix would give it.
    - A transform factory looked up by name in a module's namespace
      (`globals()[cfg.transform.name](split)`, `getattr(module, name)(split)`) may be any
      function that module defines or imports: a finding about a pipeline one of them builds
      says it rests on that candidate set.
    - A pipeline handed per item to a project function that reseeds it in place (assigns
      each augmenter's `random_state`, or calls `reseed(seed)` / `seed_(seed)` on it) counts
      as reseeded, whatever the seed; a bare `reseed()` does not (it draws from imgaug's
      global RNG, a copy in every worker).
    - An unseeded imgaug pipeline a Dataset holds, whose only reseeding is of imgaug's
      global RNG in the worker (`imgaug.seed(worker_id)` in a `worker_init_fn` or per
      item), gets a warning: under fork it shares that RNG and is reseeded; under spawn or
      forkserver it is not. One made at module level is made again in every worker, holding
      that worker's global RNG: no finding.
    - Two unseeded pipelines of one Dataset get the same worker seed: their draws line up.
    - imgaug 0.4.0 needs NumPy < 1.24, so its fix is checked on its shape, not at run time.

    ## References
    - [albumentations: reproducibility and seeds](https://albumentations.ai/docs/)
    - [PyTorch docs: Randomness in multi-process data loading][docs]
    - [MONAI DataLoader](https://docs.monai.io/en/stable/data.html#dataloader)

    [docs]: https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading
    """

    CODE = "WS203"
    NAME = "augmentation-pipeline-shared-by-workers"
    FIX = FixAvailability.SOMETIMES
    FIX_SAFETY = FixSafety.SOMETIMES_UNSAFE

    @classmethod
    def prefetch(cls, target: TorchTarget) -> tuple[bytes, ...]:
        del target
        return (b"albumentations", b"imgaug", b"monai")

    def check(self) -> None:
        project = self.project
        if not uses_any(project):
            return
        index = PipelineIndex(project)
        self.index = index
        rng_index = RngIndex(project)
        self.loaders = [
            (loader, datasets_of_loader(project, loader)) for loader in loader_calls(project)
        ]
        reported: set[tuple[str, object, str, object]] = set()
        # One finding per place: a pipeline a factory builds for several Datasets is one bug.
        by_place: dict[tuple[Path, Span], list[_Shared]] = {}
        for dataset in dataset_classes(project):
            if single_process_only(project, dataset, self.loaders):
                continue
            if reseeding_loader_only(project, dataset) and not loaders_of(
                project, dataset, self.loaders
            ):
                continue
            if self._worker_init_reseeds(dataset, index):
                continue
            per_item = index.per_item(dataset)
            reseeded = {use.obj.key for use in per_item.uses if use.kind is UseKind.RESEED}
            recreated = self._recreated_in_workers(dataset)
            global_reseed = reseeds_library_globally(
                project, per_item.functions
            ) or self._worker_init_reseeds_globally(dataset)
            # An RNG object WS201 reports (`self.R` of a project MONAI transform) is its
            # finding: the pipeline holding it, or stored under the same name, is left alone.
            rng_uses = rng_index.per_item(dataset).uses
            rng_objects = {(use.obj.owner, use.obj.name) for use in rng_uses}
            rng_paths = {use.instance_path for use in rng_uses if use.instance_path}
            for use in per_item.uses:
                obj = use.obj
                if use.kind is not UseKind.DRAW or obj.key in reseeded or obj.key in reported:
                    continue
                if obj.place is Place.ATTRIBUTE and obj.name in recreated:
                    continue  # each worker builds its own: nothing was built before they start
                if (obj.owner, obj.name) in rng_objects or _holds(use, rng_paths):
                    continue
                given, unresolved = self._given_to_workers(index, dataset, use)
                if not given and unresolved is None:
                    continue
                library = library_named(obj.creation.rng_type)
                version = library_version(project, library)
                is_seeded = seeded(obj.creation, project)
                if not _affected(library, version, is_seeded, obj.creation):
                    continue
                fork_only = global_reseed and library.name == "imgaug" and not is_seeded
                if fork_only and obj.place is not Place.ATTRIBUTE:
                    continue  # it draws from the global RNG that the worker reseeds
                reported.add(obj.key)
                where, span = obj.report_at
                by_place.setdefault((where.path, span), []).append(
                    _Shared(dataset, use, version, fork_only, None if given else unresolved)
                )
            self._check_per_call(index, dataset, per_item.functions)
            self._check_monai_built_per_item(index, dataset, per_item.functions)
        for shared in by_place.values():
            self._report(shared)
        for loader, _ in self.loaders:
            self._check_third_party(index, loader)

    def _check_third_party(self, index: PipelineIndex, loader: LoaderCall) -> None:
        """A library dataset (MONAI's) applying a pipeline: reseed it from a worker_init_fn."""
        value = loader.argument("dataset").value
        if value is None or not loader.may_start_workers() or library_worker_init_reseeds(loader):
            return
        for found in third_party_datasets(index, value, loader.function):
            pipeline = found.pipeline
            library = library_named(pipeline.rng_type)
            version = library_version(self.project, library)
            if not _affected(library, version, seeded(pipeline, self.project), pipeline):
                continue
            init = worker_init(loader)
            span = loader.call.span
            assert span is not None
            location = self.location(pipeline.function.path, pipeline.span.line)
            message = (
                f"`{found.dataset}` applies `{_short(pipeline)}` (built at {location}, "
                f"{version.describe()}) per item; every DataLoader worker gets a copy and "
                "nothing reseeds it, so workers repeat each other's augmentations and every "
                "epoch repeats the previous one"
            )
            related = (Location(pipeline.function.path, pipeline.span),)
            fix = None
            if init.is_absent and init.lookup.presence is Presence.ABSENT:
                # The added worker_init_fn reseeds the loader's `dataset.transform`.
                fix = self._worker_init_fix(loader, library) if found.held_as_transform else None
            elif init.function is not None and reseeds_pipelines(index, init.function):
                continue
            self.report(
                loader.function,
                span,
                message,
                fix=fix,
                severity=_severity(version),
                related=related,
            )
            return

    def _worker_init_fix(self, loader: LoaderCall, library: Library) -> Fix | None:
        if not loader.accepts_keyword("worker_init_fn") or any(loader.splats):
            return None
        module = loader.module
        helper, imports = reseed_pipeline_helper(module)
        code, more = reseed_dataset_transform_function(_WORKER_INIT, module)
        span = loader.call.span
        assert span is not None
        edits: list[Edit] = [
            helper,
            AddHelper(_WORKER_INIT, code),
            *imports,
            *more,
            AddKeyword(span, "worker_init_fn", _WORKER_INIT),
        ]
        title = f"Pass `worker_init_fn={_WORKER_INIT}`, which reseeds the dataset's transform"
        safety = Safety.UNSAFE if library.name == "imgaug" else Safety.SAFE
        return Fix(title, safety, (FileEdits(module.path, tuple(edits)),))

    def _given_to_workers(
        self, index: PipelineIndex, dataset: ClassRef, use: RngUse
    ) -> tuple[bool, LoaderCall | None]:
        """Return whether a DataLoader that may start workers is known to load instances of
        `dataset` built with the pipeline `use` applies (not when every such loader loads
        instances built without it: a notebook's preview loader with `num_workers=0` shows
        the random pipeline, the training loaders get another), and, if none is, the first
        loader whose datasets are not all known, which may."""
        unresolved = None
        for loader, found in self.loaders:
            if not loader.may_start_workers():
                continue
            if dataset in found.classes:
                if applied_by_instances(index, dataset, found.made_by(dataset), use):
                    return True, None
            elif any(dataset in self.project.mro(ref) for ref in found.classes):
                return True, None  # a subclass's instances: built by its own constructions
            if not found.complete and unresolved is None:
                unresolved = loader  # it may load `dataset`, built any way
        return False, unresolved

    def _loaders_of(self, dataset: ClassRef) -> list[LoaderCall]:
        return loaders_that_may_load(self.project, dataset, self.loaders)

    def _worker_init_reseeds(self, dataset: ClassRef, index: PipelineIndex) -> bool:
        """Return True if every loader that starts workers for `dataset` reseeds pipelines."""
        starting = [loader for loader in self._loaders_of(dataset) if loader.may_start_workers()]
        if not starting:
            return False
        return all(
            library_worker_init_reseeds(loader)
            or (
                (function := worker_init(loader).function) is not None
                and reseeds_pipelines(index, function)
            )
            for loader in starting
        )

    def _worker_init_reseeds_globally(self, dataset: ClassRef) -> bool:
        """Return True if every loader that starts workers for `dataset` has a worker_init_fn
        that calls a library's module-level seeder (`imgaug.seed(worker_id)`)."""
        starting = [loader for loader in self._loaders_of(dataset) if loader.may_start_workers()]
        functions = [worker_init(loader).function for loader in starting]
        return bool(functions) and all(
            function is not None and reseeds_library_globally(self.project, (function,))
            for function in functions
        )

    def _recreated_in_workers(self, dataset: ClassRef) -> frozenset[str]:
        """Return the attributes that every worker_init_fn starting workers for `dataset`
        re-creates or reseeds (`get_worker_info().dataset.setup_augmentor(seed)`)."""
        starting = [loader for loader in self._loaders_of(dataset) if loader.may_start_workers()]
        if not starting:
            return frozenset()
        names = [worker_init_reseeds(self.project, loader, dataset).names for loader in starting]
        return frozenset.intersection(*names)

    def _check_per_call(
        self, index: PipelineIndex, dataset: ClassRef, functions: frozenset[FunctionRef]
    ) -> None:
        """albumentationsx >= 2.3.1 re-syncs a pipeline built per call to the same seed."""
        version = library_version(self.project, ALBUMENTATIONS)
        if version.distribution != "albumentationsx" or not version.within(_RESYNCED_SINCE, None):
            return
        for function in sorted(functions, key=lambda ref: (ref.path, ref.qualname)):
            built = [
                creation
                for call in function.function.calls
                for creation in index.constructors(call, function, dataset)
                if creation.rng_type == ALBUMENTATIONS.name
            ]
            for creation in built:
                if any(_inside(creation, other) for other in built if other != creation):
                    continue  # a transform given to a pipeline built here: one finding
                self.report(
                    function,
                    creation.span,
                    f"`{_short(creation)}` is built in per-item code `{function.qualname}` "
                    f"on {version.describe()}: each one starts from the worker's seed, so "
                    "every sample of a worker is augmented alike; build it once in "
                    "`__init__`",
                )

    def _check_monai_built_per_item(
        self, index: PipelineIndex, dataset: ClassRef, functions: frozenset[FunctionRef]
    ) -> None:
        """A MONAI `Rand*` transform built per item without a random state of its own draws
        from the class-level `Randomizable.R`, made when monai is imported in the main
        process: forked workers each start from a copy of it (spawned ones import monai
        anew and get their own)."""
        version = library_version(self.project, MONAI)
        for function in sorted(functions, key=lambda ref: (ref.path, ref.qualname)):
            if any(
                call.base is not None
                and call.base.kind is Kind.ATTRIBUTE
                and call.base.name == "set_random_state"
                for call in function.function.calls
            ):
                continue  # given a state of its own (which one is WS102's question)
            for call in function.function.calls:
                if not _spelled_rand(call):
                    continue  # only a `Rand*(...)` written here is a transform built here
                for creation in index.constructors(call, function, dataset):
                    if creation.rng_type != MONAI.name or not _short(creation).startswith("Rand"):
                        continue
                    self.report(
                        function,
                        creation.span,
                        f"`{_short(creation)}` is built in per-item code `{function.qualname}` "
                        f"({version.describe()}) without a random state of its own: it draws "
                        "from MONAI's class-level `Randomizable.R`, made when monai is "
                        "imported in the main process, so forked DataLoader workers draw the "
                        "same numbers and every epoch repeats the previous one; build it once "
                        "in `__init__`, or call its `set_random_state`",
                        severity="warning",
                    )

    def _report(self, shared: list[_Shared]) -> None:
        """Report a pipeline at its place, with every Dataset that applies it."""
        use, version = shared[0].use, shared[0].version
        obj = use.obj
        where, span = obj.report_at
        made = _short(obj.creation)
        related: tuple[Location, ...] = ()
        creation = obj.creation
        if creation.factory and (creation.function, creation.span) != (where, span):
            # Built by a project factory the store calls: the line that builds it is part
            # of the finding.
            location = self.location(creation.function.path, creation.span.line)
            made += f" built by `{creation.factory}` at {location}"
            related = (Location(creation.function.path, creation.span),)
        appliers = list(dict.fromkeys(self._applier(item) for item in shared))
        if len(appliers) == 1:
            ((name, place),) = appliers
            applied = f"{name} applies it ({place})"
        else:
            applied = joined([f"{name} ({place})" for name, place in appliers]) + " apply it"
        severity = _severity(version)
        unresolved = [item.unresolved for item in shared]
        if all(unresolved):
            # Nothing is known to load it, so nothing is known to repeat: a note (as WS101
            # says of a drawing Dataset no loader is seen to load), without a fix.
            loader = unresolved[0]
            assert loader is not None
            message = (
                f"`{_label(use)}` ({made}, {version.describe()}) is never reseeded: "
                f"{applied}, and {self.unresolved_note(loader)}: if a DataLoader that starts "
                "workers loads it, workers repeat each other's augmentations and every epoch "
                "repeats the previous one"
            )
            self.report(where, span, message, severity="info", related=related)
            return
        if all(item.fork_only for item in shared):
            message = (
                f"`{_label(use)}` ({made}, {version.describe()}) is copied into every "
                f"DataLoader worker: {applied}. Reseeding imgaug's global RNG in the worker "
                "reaches it only when workers are forked; under spawn or forkserver (the "
                "default on macOS, Windows and Python 3.14+ on Linux) each worker unpickles "
                "its own copy, never reseeded, so workers repeat each other's augmentations "
                "and every epoch repeats the previous one"
            )
            severity = "warning"
        else:
            message = (
                f"`{_label(use)}` ({made}, {version.describe()}) is copied into "
                f"every DataLoader worker and never reseeded: {applied}, so workers repeat "
                "each other's augmentations and every epoch repeats the previous one"
            )
        # The transform applying it is picked by a name known only at run time.
        message += picked_note([name for item in shared for name in item.use.reached.picked_in])
        if obj.creation.note is not None:
            message += f"; {obj.creation.note}"
        if any(item.use.obj.creation.draws_assumed for item in shared):
            severity = "warning"
        fixes = [
            self._fix(item.dataset, item.use, library_named(item.use.obj.creation.rng_type))
            for item in shared
        ]
        # A Dataset that cannot be fixed leaves the bug: no fix for the others alone.
        fix = merged_fix(fixes) if all(fixes) else None
        self.report(where, span, message, fix=fix, severity=severity, related=related)

    def _applier(self, shared: _Shared) -> tuple[str, str]:
        """Name the per-item code of one Dataset that applies the pipeline, and where."""
        reached = shared.use.reached
        draw_span = shared.use.call.span
        line = draw_span.line if draw_span else 0
        applied = applied_note((found for _, found in self.loaders), shared.dataset)
        return f"`{reached.chain[0]}`{applied}", self.location(reached.function.path, line)

    def _fix(self, dataset: ClassRef, use: RngUse, library: Library) -> Fix | None:
        arguments = _arguments(use)
        if arguments is None or held_in_a_container(self.project, use):
            return None  # no path, or on some instances one that leads to a list holding it
        if library is IMGAUG and redraws_from_global_rng(self.index.per_item(dataset).functions):
            return None  # a bare `reseed()` per item replaces the state the fix would give it
        by_path: dict[Path, list[Edit]] = {}
        where: list[str] = []
        for function in entry_methods(self.project, dataset):
            if use.instance_path is None and function.module != use.reached.function.module:
                return None
            helper, imports = reseed_pipeline_helper(function.module)
            statement = f"{RESEED_PIPELINE}({arguments})\n"
            by_path.setdefault(function.path, []).extend(
                [helper, *imports, InsertStatements(function.function.span, statement)]
            )
            where.append(f"`{function.qualname}`")
        if not by_path:
            return None
        safety = Safety.UNSAFE if library.name == "imgaug" else Safety.SAFE
        title = f"Reseed `{_label(use)}` once per worker, at the top of {', '.join(where)}"
        files = tuple(FileEdits(path, tuple(edits)) for path, edits in by_path.items())
        return Fix(title, safety, files)


class _Shared(NamedTuple):
    """A Dataset whose per-item code applies a pipeline built before the workers start."""

    dataset: ClassRef
    use: RngUse
    version: LibraryVersion
    #: It holds imgaug's global RNG, which worker code reseeds: shared only under fork.
    fork_only: bool = False
    #: No DataLoader is known to load the Dataset: this one, whose datasets are not all
    #: known, may.
    unresolved: LoaderCall | None = None


def _severity(version: LibraryVersion) -> str:
    """Nothing names the library's version: the finding rests on its newest release."""
    return "warning" if version.source == "newest release" else "error"


def _holds(use: RngUse, paths: set[tuple[str, ...]]) -> bool:
    """Return True if one of the RNG objects at `paths` lives inside the pipeline `use` applies."""
    prefix = use.instance_path
    if not prefix:
        return False
    return any(path[: len(prefix)] == prefix for path in paths)


def _inside(inner: Creation, outer: Creation) -> bool:
    return within(inner.span, outer.span)


def _affected(
    library: Library, version: LibraryVersion, is_seeded: bool, pipeline: Creation
) -> bool:
    if library is AUDIOMENTATIONS or pipeline.never_built_on(version):
        return False
    if library is ALBUMENTATIONS:
        if version.distribution == "albumentationsx":
            return not is_seeded and version.within(None, _RESYNCED_SINCE)
        return version.within(*_OWN_RNG)
    return True


def _arguments(use: RngUse) -> str | None:
    """Return the helper's arguments: `self, "transform.pipeline"`, or a module-level name."""
    if use.instance_path:
        return f'self, "{".".join(use.instance_path)}"'
    return use.namespace_path


def _label(use: RngUse) -> str:
    if use.instance_path:
        return "self." + ".".join(use.instance_path)
    return use.namespace_path or use.obj.label


def _spelled_rand(call: Value) -> bool:
    """Return True if `call` is spelled as a call of a `Rand*` name (`RandAffined(...)`,
    `mt.RandFlip(...)`)."""
    base = call.base
    if base is None:
        return False
    names = (base.name, *(qualname.rpartition(".")[2] for qualname in base.qualnames))
    return any(name.startswith("Rand") for name in names)


def _short(creation: Creation) -> str:
    """Return the class a pipeline is made by, as it is called (`Compose`, `RandFlipd`)."""
    return creation.constructor.rpartition(".")[2]
