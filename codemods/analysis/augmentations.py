"""Augmentation pipelines that carry their own RNG, and how Dataset code uses them.

albumentations 1.4.21 - 2.0.8 (and albumentationsx before 2.3.1 for pipelines built without
`seed=`) give every transform its own NumPy Generator and `random.Random`; imgaug augmenters
share one module-level RNG object (or own one, given `seed=`); MONAI randomizable transforms
hold `self.R`. A pipeline built before the workers start is copied into every worker, and
nothing in torch reseeds it. This module finds such pipelines the way `rng_objects` finds
RNG objects (in `__init__`, as class attributes, at module level, passed in by callers,
held by a wrapper), and in the variables of a factory that a closure it returns reads,
treating a pipeline *applied* in per-item code (`self.aug(image=x)`,
`aug.augment_image(x)`, passing it on) as a draw, and the library's own reseeding calls
(`set_random_seed`, `set_random_state`, `seed_`), or passing it to a project function that
reseeds it in place, as a reseed.

It also answers WS101's question: which per-item code calls into a library that draws from
NumPy's global RNG (audiomentations, and the albumentations transforms that do in their
release: `numpy_global_transforms`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from ..types import Span
from .branch_feasibility import branch_not_taken
from .candidates import Construction
from .closed_bindings import stored_when_made
from .creation_sites import created_at
from .datasets import classes_of
from .facts import Kind, Value, parts, string_literal
from .held_candidates import stored_when_built
from .loaders import LoaderCall
from .memo import per_project
from .numpy_global_transforms import IMGAUG_WRAPPERS, applies_any, numpy_global_transforms
from .package_versions import detect_library
from .per_item import Reached, per_item_code
from .pipeline_files import (
    Drawing,
    deserialises,
    loaded_pipeline,
    looked_up_library,
)
from .pipeline_libraries import (
    ALBUMENTATIONS,
    AUDIOMENTATIONS,
    IMGAUG,
    LIBRARIES,
    MONAI,
    Library,
    library_named,
    pipeline_library,
)
from .pipeline_randomness import builds_random_pipeline, library_version, raises_from
from .project import Project
from .randomness import GlobalCall
from .refs import ClassRef, ExternalRef, FunctionRef
from .rng_draws import ScannedFunction, _Scan
from .rng_object_records import Creation, PerItemRngs, Place, RngObject, RngUse, UseKind
from .rng_objects import RngIndex
from .self_calls import self_stores

#: The helper workerseed inserts; a call to it reseeds the pipeline it is given.
RESEED_PIPELINE = "_reseed_pipeline_in_worker"
#: torch DataLoaders of other libraries that reseed their workers' transforms themselves.
RESEEDING_LOADERS = frozenset({"monai.data.DataLoader", "monai.data.dataloader.DataLoader"})
#: `worker_init_fn`s of other libraries that reseed the worker's transforms (MONAI's set_rnd).
RESEEDING_WORKER_INITS = frozenset({"monai.data.worker_init_fn", "monai.data.utils.worker_init_fn"})
#: Module-level seeders that reseed every unseeded augmenter of a library.
LIBRARY_SEEDERS = frozenset({"imgaug.random.seed", "imgaug.seed"})


def uses_any(project: Project, libraries: tuple[Library, ...] = LIBRARIES) -> bool:
    """Return True if some module of the project mentions one of `libraries` (a cheap filter)."""
    return (
        next(project.modules_mentioning(*(library.name for library in libraries)), None) is not None
    )


def assumed_versions(root: Path, overrides: tuple[tuple[str, str, str], ...]) -> tuple[str, ...]:
    """Return every library version a run assumes (for keys of cached runs)."""
    return tuple(
        detect_library(root, library.distributions, overrides).describe() for library in LIBRARIES
    )


def seeded(creation: Creation, project: Project) -> bool:
    """Return True if the pipeline was built with a `seed=` (albumentations, imgaug)."""
    call = _call_at(project, creation)
    return call is not None and any(
        name in ("seed", "random_state")
        and not (value.kind is Kind.CONSTANT and value.name == "None")
        for name, value in call.keywords
    )


def _call_at(project: Project, creation: Creation) -> Value | None:
    for call in creation.function.function.calls:
        if call.span == creation.span:
            return call
    return None


class PipelineIndex(RngIndex):
    """`RngIndex` whose objects are augmentation pipelines (`Creation.rng_type`: the library)."""

    def __init__(self, project: Project) -> None:
        super().__init__(project)
        self._element_cache: dict[
            tuple[ClassRef, str, tuple[Construction, ...] | None], tuple[RngObject, ...]
        ] = project.memo[type(self)].setdefault("elements", {})

    def _constructor(
        self, value: Value, where: FunctionRef, self_class: ClassRef | None, depth: int
    ) -> Iterator[Creation]:
        if value.kind is not Kind.CALL or value.base is None or value.span is None:
            return
        written_in, span = created_at(value, where)
        names = self.project.qualnames(value.base, where.module)
        libraries = sorted(
            {library.name for name in names if (library := pipeline_library(name)) is not None}
        )
        if deserialises(self.project, value, where):
            loaded = loaded_pipeline(self.project, value, where)
            if loaded.drawing is not Drawing.FIXED:
                unknown = loaded.drawing is Drawing.UNKNOWN
                note = loaded.note
                kind = ALBUMENTATIONS.name
                yield Creation(min(names), kind, written_in, span, None, unknown, note)
            return
        looked_up = looked_up_library(self.project, value, where)
        if looked_up is not None:
            # `obj_from_dict(cfg, A)`: which class, so whether it draws, is a config's.
            note = f"which class of `{looked_up.name}` it is, a configuration says: assumed to draw"
            name = f"{looked_up.name}.a class named at run time"
            yield Creation(name, looked_up.name, written_in, span, None, True, note)
            return
        if libraries:
            if builds_random_pipeline(self.project, value, where):
                raising = raises_from(self.project, value, where)
                yield Creation(min(names), libraries[0], written_in, span, raises_from=raising)
            return
        for target in self.project.targets(value.base, where.module):
            if isinstance(target, ClassRef):
                # A project transform deriving from a library's (MONAI's RandomizableTransform).
                library = self._library_base(target)
                if library is not None:
                    yield Creation(target.name, library.name, written_in, span)
                    return
        # Factories, as for RNG objects; RNG constructors are WS201's.
        for creation in super()._constructor(value, where, self_class, depth):
            if creation.rng_type in {library.name for library in LIBRARIES}:
                yield creation

    def element_objects(
        self, ref: ClassRef, name: str, made_by: tuple[Construction, ...] | None = None
    ) -> tuple[RngObject, ...]:
        """Return the pipelines a `ref` instance holds as elements of a list (or tuple) it
        stores in `self.<name>` from construction on: `self.flips = [RandFlip(spatial_axis=a)
        for a in axes]`."""
        key = (ref, name, made_by)
        cached = self._element_cache.get(key)
        if cached is not None:
            return cached
        found: list[RngObject] = []
        target = f"self.{name}"
        for reached in self.init_code(ref):
            where = reached.function
            for assignment in where.function.assignments:
                if assignment.target != target:
                    continue
                for value, _ in stored_when_made(self.project, ref, made_by, where, assignment):
                    items = [
                        item
                        for option in value.alternatives()
                        if option.kind is Kind.SEQUENCE
                        for item in option.args
                    ]
                    found.extend(
                        RngObject(Place.ATTRIBUTE, ref, name, where, assignment.span, made, where)
                        for item in items
                        for made in self.constructors(item, where, ref)
                    )
        result = tuple(dict.fromkeys(found))
        self._element_cache[key] = result
        return result

    def _library_base(self, ref: ClassRef) -> Library | None:
        for target in self.project.ancestors(ref):
            if isinstance(target, ExternalRef):
                library = pipeline_library(target.qualname)
                if library is not None:
                    return library
        return None

    def _scan_per_item(self, dataset: ClassRef) -> PerItemRngs:
        reached = per_item_code(self.project, dataset)
        uses: list[RngUse] = []
        for current in reached:
            for function in self._with_lambdas(current.function):
                uses.extend(self._scanned(current, function).uses)
        functions = {current.function for current in reached}
        # A closure made by per-item code captures a pipeline that each worker builds.
        uses = [
            use
            for use in uses
            if use.obj.place is not Place.CLOSURE or use.obj.created_in not in functions
        ]
        return PerItemRngs(dataset, reached, tuple(uses), frozenset(), ())

    def _scan(self, reached: Reached, function: FunctionRef) -> ScannedFunction:
        uses = tuple(_PipelineScan(self, reached, function).uses())
        return ScannedFunction(reached, uses, (), frozenset())


class _PipelineScan(_Scan):
    """Applying a pipeline (calling it, or a method of it) is a draw."""

    def __init__(self, index: PipelineIndex, reached: Reached, function: FunctionRef) -> None:
        super().__init__(index, reached, function)
        self.pipelines = index

    def objects(
        self, value: Value
    ) -> Iterator[tuple[RngObject, tuple[str, ...] | None, str | None]]:
        yield from super().objects(value)
        yield from ((obj, None, None) for obj in self._captured(value))
        yield from ((obj, None, None) for obj in self._elements(value))

    def _elements(self, value: Value) -> Iterator[RngObject]:
        """Yield the pipelines a loop variable takes from a list `self.<name>` holds (`for
        flip in self.flips: flip.randomize(None)`). No path names one of them for a fix."""
        owner = self.reached.self_class
        if owner is None:
            return
        for option in value.alternatives():
            if option.kind is not Kind.UNKNOWN or not option.name:
                continue
            for name, iterable in self.function.function.loops:
                if name != option.name:
                    continue
                for source in iterable.alternatives():
                    if (
                        source.kind is Kind.ATTRIBUTE
                        and source.base is not None
                        and source.base.kind is Kind.SELF
                    ):
                        made_by = self.reached.made_by
                        yield from self.pipelines.element_objects(owner, source.name, made_by)

    def _captured(self, value: Value) -> Iterator[RngObject]:
        """Yield the pipelines a nested function reads from a variable of a function
        enclosing it (`seq = iaa.Sequential(...)`, then `def transform(image): ...
        seq.augment_image(image)`, returned): built when the enclosing function ran."""
        function = self.function
        if not function.function.nested:
            return
        for option in value.alternatives():
            if option.kind is not Kind.CALL or option.span is None:
                continue
            enclosing, span = created_at(option, function)
            if enclosing == function:
                continue  # built by this function's own code: per call
            store, store_span = _binding_of(enclosing, span)
            if store is None:
                continue
            owner = self.project.class_of_function(enclosing)
            built = replace(option, span=span)
            for creation in self.index.constructors(built, enclosing, owner):
                yield RngObject(
                    Place.CLOSURE, None, store, enclosing, store_span, creation, enclosing
                )

    def uses(self) -> Iterator[RngUse]:
        for call in self.function.function.calls:
            base = call.base
            if base is None:
                continue
            if self._is_reseed_helper(base):
                for obj in self._reseeded(call):
                    yield RngUse(self.reached, call, obj, UseKind.RESEED, None, None, None)
                continue
            for obj, path, name in self.objects(base):
                yield RngUse(self.reached, call, obj, UseKind.DRAW, path, name, "__call__")
        for use in super().uses():
            if use.kind is UseKind.DRAW and use.method is None and self._reseeded_by_callee(use):
                use = replace(use, kind=UseKind.RESEED)
            yield use

    def _reseeded_by_callee(self, use: RngUse) -> bool:
        """Return True if the project function `use.call` hands the pipeline to reseeds it
        in place: `reseed(color_seq)` with `def reseed(seq): for aug in seq:
        aug.random_state = ...` (how well it is seeded is WS102's question)."""
        call = use.call
        if call.base is None:
            return False
        arguments: list[tuple[int | str | None, Value]] = [*enumerate(call.args), *call.keywords]
        for position, argument in arguments:
            bound = self._bound_parameter(call.base, position)
            if bound is None or not _reseeds_parameter(*bound):
                continue
            if any(obj == use.obj for obj, _, _ in self.objects(argument)):
                return True
        return False

    def _method_uses(self, call: Value, subject: Value, method: str) -> Iterator[RngUse]:
        for obj, path, name in self.objects(subject):
            library = library_named(obj.creation.rng_type)
            kind = UseKind.RESEED if method in library.reseed_methods else UseKind.DRAW
            yield RngUse(self.reached, call, obj, kind, path, name, method)

    def _reseeded(self, call: Value) -> Iterator[RngObject]:
        """`helper(self, "a.b")` reseeds `self.a.b`; `helper(PIPELINE)` reseeds that object."""
        if len(call.args) == 1:
            yield from (obj for obj, _, _ in self.objects(call.args[0]))
            return
        owner, path = call.args[0], string_literal(call.args[1]) if len(call.args) == 2 else None
        if self.reached.self_class is None or owner.kind is not Kind.SELF or path is None:
            return
        yield from self.index.objects_at_path(self.reached.self_class, tuple(path.split(".")))

    def _is_reseed_helper(self, base: Value) -> bool:
        return any(
            isinstance(target, FunctionRef)
            and target.function.name == RESEED_PIPELINE
            and target.function.class_qualname is None
            for target in self.project.targets(base, self.function.module)
        )


#: Attributes whose assignment reseeds an augmenter in place (imgaug's `random_state`).
_RNG_ATTRIBUTES = frozenset({"random_state"})


def _reseeds_parameter(function: FunctionRef, param: str) -> bool:
    """Return True if `function` reseeds the pipeline in its parameter `param`, or each
    augmenter in it, in place: assigns its `random_state`, or calls a library's reseeding
    method with a seed (`seed_(s)`, `reseed(s)`, `set_random_seed(s)`). A bare `reseed()`
    draws the new seeds from the library's global RNG, itself a copy in every worker."""
    facts = function.function
    # The loop variables that take each augmenter of it (`for aug in seq:`).
    elements = {
        name
        for name, iterable in facts.loops
        if any(
            option.kind is Kind.PARAM and option.name == param for option in iterable.alternatives()
        )
    }

    def denotes(value: Value | None) -> bool:
        if value is None:
            return False
        if value.kind is Kind.PARAM:
            return value.name == param
        return value.kind is Kind.UNKNOWN and value.name in elements

    if any(
        store.attribute in _RNG_ATTRIBUTES and denotes(store.base)
        for store in facts.attribute_stores
    ):
        return True
    reseeding = {method for library in LIBRARIES for method in library.reseed_methods}
    return any(
        call.base is not None
        and call.base.kind is Kind.ATTRIBUTE
        and call.base.name in reseeding
        and (call.args or call.keywords)
        and denotes(call.base.base)
        for call in facts.calls
    )


def _binding_of(function: FunctionRef, span: Span) -> tuple[str | None, Span]:
    """Return the local variable `function` binds to the call at `span`, and the binding."""
    for assignment in function.function.assignments:
        if assignment.target.isidentifier() and any(
            option.span == span for option in assignment.value.alternatives()
        ):
            return assignment.target, assignment.span
    return None, span


#: The libraries' in-place reseeding calls.
_RESEED_CALLS = frozenset({"set_random_seed", "set_random_state", "seed_"})


def reseeds_pipelines(index: PipelineIndex, function: FunctionRef) -> bool:
    """Return True if a `worker_init_fn` reseeds augmentation pipelines.

    It calls workerseed's helper or a reseeding method (`set_random_seed`, `set_random_state`,
    `seed_`) on anything: which pipeline that reaches is not followed. A library's
    module-level seeder (`imgaug.random.seed`) does not count: see `reseeds_library_globally`.
    """
    project = index.project
    for call in function.function.calls:
        base = call.base
        if base is None:
            continue
        if base.kind is Kind.ATTRIBUTE and base.name in _RESEED_CALLS:
            return True
        if any(
            isinstance(target, FunctionRef) and target.function.name == RESEED_PIPELINE
            for target in project.targets(base, function.module)
        ):
            return True
    return False


def reseeds_library_globally(project: Project, functions: Iterable[FunctionRef]) -> bool:
    """Return True if worker code calls a library's module-level seeder (`imgaug.seed(t)`).

    An augmenter built without a seed of its own holds the global RNG object it reseeds, in
    each worker (how well it is seeded is WS102's question), as long as the worker shares
    that object: one made at module level is made again in every worker, one a Dataset
    holds only when workers are forked (under spawn or forkserver each unpickles its own
    copy of the RNG, apart from the worker's global one).
    """
    return any(
        call.base is not None and project.is_one_of(call.base, function.module, LIBRARY_SEEDERS)
        for function in functions
        for call in function.function.calls
    )


def redraws_from_global_rng(functions: Iterable[FunctionRef]) -> bool:
    """Return True if worker code calls imgaug's reseeding method without a seed
    (`seq.reseed()`, `seq.seed_()`): each such call draws new states for the augmenters it
    reaches (a `Sequential` built around a held pipeline reaches that pipeline's) from
    imgaug's global RNG, replacing any state they were reseeded with before."""
    return any(
        call.base is not None
        and call.base.kind is Kind.ATTRIBUTE
        and call.base.name in IMGAUG.reseed_methods
        and not call.args
        and not call.keywords
        for function in functions
        for call in function.function.calls
    )


def held_in_a_container(project: Project, use: RngUse) -> bool:
    """Return True if the attribute per-item code reads the pipeline of `use` from may hold a
    list or tuple around it instead (`self.steps = steps if isinstance(steps, list) else
    [steps]`): on some instances the attribute's path leads to that container."""
    holder, path, owner = use.reached.holder, use.instance_path, use.reached.self_class
    if holder is None or path is None or owner is None or len(path) != len(holder) + 1:
        return False
    return any(
        option.kind is Kind.SEQUENCE
        for value, _ in self_stores(project, owner, path[-1])
        for option in value.alternatives()
    )


def library_worker_init_reseeds(loader: LoaderCall) -> bool:
    """Return True if the loader passes a library's reseeding `worker_init_fn` (MONAI's)."""
    value = loader.argument("worker_init_fn").value
    return value is not None and any(
        loader.project.is_one_of(option, loader.module, RESEEDING_WORKER_INITS)
        for option in value.alternatives()
    )


def reseeding_loader_only(project: Project, dataset: ClassRef) -> bool:
    """Return True if `dataset` is passed to a DataLoader that reseeds transforms (MONAI's)."""
    return any(dataset in project.mro(ref) for ref in _given_to_reseeding_loaders(project))


@per_project
def _given_to_reseeding_loaders(project: Project) -> tuple[ClassRef, ...]:
    """Return the classes of the datasets passed to DataLoaders that reseed transforms."""
    found: list[ClassRef] = []
    for function in project.functions_mentioning("DataLoader"):
        for call in function.function.calls:
            if call.base is None or not project.is_one_of(
                call.base, function.module, RESEEDING_LOADERS
            ):
                continue
            argument = call.keyword("dataset") or (call.args[0] if call.args else None)
            if argument is None:
                continue
            found.extend(classes_of(project, argument, function).classes)
    return tuple(dict.fromkeys(found))


def global_numpy_library_calls(
    project: Project, dataset: ClassRef, made_by: tuple[Construction, ...] | None = None
) -> list[GlobalCall]:
    """Return per-item applications of library transforms that draw from NumPy's global RNG.

    audiomentations, and some transforms of albumentations 1.1 and older, draw from
    `np.random`: on torch < 1.9 those draws repeat in every worker (WS101). The qualname
    names the library version assumed, for the message.

    `made_by`: only the instances these constructor calls make (None: any instance); a
    pipeline that building them never stores in an object they hold is not applied.
    """
    found: list[GlobalCall] = []
    if not uses_any(project, (ALBUMENTATIONS, AUDIOMENTATIONS, IMGAUG)):
        return found
    index = PipelineIndex(project)
    for use in index.per_item(dataset).uses:
        if use.kind is not UseKind.DRAW or not applied_by_instances(index, dataset, made_by, use):
            continue
        label = _global_label(project, use.obj.creation)
        seen = _as_constructed(use.obj.creation, made_by)
        if (
            label is not None
            and seen
            and not any(_global_label(project, use.obj.creation, call=call) for call in seen)
        ):
            label = None  # the factory that builds them leaves the drawing steps out
        if label is not None:
            found.append(GlobalCall(use.reached, use.call, label))
    found.extend(_applied_where_built(index, dataset, made_by))
    return found


def _as_constructed(
    creation: Creation, made_by: tuple[Construction, ...] | None
) -> tuple[Value, ...]:
    """Return the pipeline call `creation` as each of the constructions `made_by` is given it
    (read for the arguments of the factory call that makes it, see `closed_to_call`); empty
    unless every construction is written where the pipeline is and is given it."""
    if not made_by:
        return ()
    seen: list[Value] = []
    for call, where in made_by:
        if where != creation.function:
            return ()
        found = _calls_at(call, creation.span)
        if not found:
            return ()
        seen.extend(found)
    return tuple(seen)


def _calls_at(value: Value, span: Span) -> list[Value]:
    """Return the calls written at `span` inside `value`."""
    return [item for item in parts(value) if item.kind is Kind.CALL and item.span == span]


def _applied_where_built(
    index: PipelineIndex, dataset: ClassRef, made_by: tuple[Construction, ...] | None
) -> Iterator[GlobalCall]:
    """Yield the pipelines that per-item code builds and applies itself, in one function
    (`aug = A.Compose(self.steps); aug(image=x)`), when their library draws from NumPy's
    global RNG: a new pipeline per item still draws from the state the worker inherited.
    """
    project = index.project
    for reached in per_item_code(project, dataset, made_by):
        function = reached.function
        for call in function.function.calls:
            pipeline = _applied_pipeline(call)
            if pipeline is None:
                continue  # applying a pipeline held elsewhere: `PipelineIndex.per_item`'s
            if call.span is not None and branch_not_taken(project, reached, call.span):
                continue
            for creation in index.constructors(pipeline, function, reached.self_class):
                if creation.function == function and (
                    branch_not_taken(project, reached, creation.span)
                    or not _random_as_reached(project, reached, creation)
                ):
                    continue  # `seq = ...` in an arm the call never takes: not this pipeline
                label = _global_label(project, creation, built_per_item=True)
                if label is not None:
                    yield GlobalCall(reached, call, label)
                    break


def _random_as_reached(project: Project, reached: Reached, creation: Creation) -> bool:
    """Return True if the pipeline built here draws with the steps the code, as reached,
    adds to it: `steps.append(A.Flip())` under `if self.augment:` is not among them for an
    instance made with `augment=False`."""
    call = _call_at(project, creation)
    return call is None or builds_random_pipeline(
        project,
        call,
        creation.function,
        lambda span: not branch_not_taken(project, reached, span),
    )


def _applied_pipeline(call: Value) -> Value | None:
    """Return the object `call` applies when it is built right there: `A.Compose(...)(image=x)`
    or `seq.augment_image(x)` with `seq = iaa.Sequential(...)` in the same function."""
    base = call.base
    if base is not None and base.kind is Kind.ATTRIBUTE and base.base is not None:
        base = base.base  # a method of the pipeline: `augment_image`, `to_deterministic`
    if base is None or base.kind not in (Kind.CALL, Kind.ALTERNATIVES):
        return None
    return base


def _global_label(
    project: Project,
    creation: Creation,
    *,
    built_per_item: bool = False,
    call: Value | None = None,
) -> str | None:
    """Return how a draw of the pipeline `creation` makes reads in a message, if the library
    version assumed draws from NumPy's global RNG (None otherwise).

    imgaug 0.3 and later give unseeded augmenters one global RNG, made from `np.random` when
    first needed: by an augmenter built per item, in the worker (one built before the workers
    start is WS203's). imgaug 0.2 seeds its own RandomState(42) at import instead.
    """
    # A pipeline whose transforms cannot be seen (loaded from a file) is not known to draw.
    if creation.draws_assumed or creation.rng_type not in (
        ALBUMENTATIONS.name,
        AUDIOMENTATIONS.name,
        IMGAUG.name,
    ):
        return None
    library = library_named(creation.rng_type)
    version = library_version(project, library)
    if library is IMGAUG:
        if not built_per_item or not version.within((0, 3), None):
            return None
        return (
            f"{creation.constructor}` of {version.describe()}, through imgaug's global RNG, "
            "made from `np.random"
        )
    if library is ALBUMENTATIONS:
        # Only some transforms of some releases draw from NumPy's global RNG (measured); the
        # imgaug wrappers draw from imgaug's global RNG, which imgaug 0.3 and later make from
        # `np.random` when first needed: in the worker.
        call = call or _call_at(project, creation)
        drawing = numpy_global_transforms(version)
        # The wrappers exist before albumentations 1.3.
        wrappers = version.within(None, (1, 3)) and library_version(project, IMGAUG).within(
            (0, 3), None
        )
        step = (
            applies_any(project, call, creation.function, drawing, imgaug_wrappers=wrappers)
            if call
            else ""
        )
        if not step:
            return None
        through = "`np.random"
        if step.startswith(IMGAUG_WRAPPERS):
            through = "imgaug's global RNG, made from `np.random"
        return f"{creation.constructor}` of {version.describe()}, through {through}` in `{step}"
    return f"{creation.constructor}` of {version.describe()}, through `np.random"


def applied_by_instances(
    index: PipelineIndex, dataset: ClassRef, made_by: tuple[Construction, ...] | None, use: RngUse
) -> bool:
    """Return True if the instances of `dataset` the constructor calls `made_by` make (None:
    any instance) may apply the pipeline `use` draws from: building them stores it."""
    init_code = index.init_code(dataset)
    return stored_when_built(index.project, init_code, dataset, made_by, use.obj) and _made_with(
        index, dataset, made_by, use
    )


def _made_with(
    index: PipelineIndex, dataset: ClassRef, made_by: tuple[Construction, ...] | None, use: RngUse
) -> bool:
    """Return False if the constructions `made_by` are known to store in the attribute `use`
    applies some other pipeline than `use.obj` (a validation set built with the fixed
    pipeline, beside a training set built with the random one)."""
    path = use.instance_path
    if made_by is None or path is None or len(path) != 1:
        return True
    creation = use.obj.creation
    if all(obj.creation != creation for obj in index.attribute_objects(dataset, path[0])):
        return True  # reached some other way than through what `__init__` stores there
    held = index.attribute_objects(dataset, path[0], made_by=made_by)
    # One factory's pipeline, built where these instances are built (not by another caller).
    return any(obj.creation == creation and obj.created_in == use.obj.created_in for obj in held)


__all__ = [
    "ALBUMENTATIONS",
    "AUDIOMENTATIONS",
    "IMGAUG",
    "LIBRARIES",
    "MONAI",
    "RESEED_PIPELINE",
    "Library",
    "PipelineIndex",
    "applied_by_instances",
    "global_numpy_library_calls",
    "held_in_a_container",
    "library_named",
    "library_version",
    "pipeline_library",
    "redraws_from_global_rng",
    "reseeding_loader_only",
    "seeded",
]
