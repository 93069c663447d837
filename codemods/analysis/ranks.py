"""Distributed ranks: do the seeds of a data-parallel project tell its ranks apart?

Every rank of a data-parallel job runs the same script. When each rank seeds torch with the
same value, each DataLoader iterator draws the same `base_seed` on every rank, so worker *k*
of every rank replays one random stream. This module gathers the facts about the seeds
(whether the project runs data-parallel is `data_parallel`'s; whether a loader's items are
random, `loader_randomness`'s):

- `torch_seedings()`: the calls that seed torch's global RNG, directly, through project
  helpers (`set_seed(cfg.seed)`, across files) or through Lightning, Accelerate and
  transformers; each with whether its seed depends on the rank (`seeds.Source.RANK`).
- `worker_rank_source()`: whether a loader's worker seed depends on the rank anyway (a
  worker_init_fn that reads the rank, a per-rank `generator=`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from ..types import Location
from . import library_seeders
from .config_settings import assigned_from_rank, setting_assumed_alike, setting_with_fallback
from .datasets import datasets_of_loader
from .distributed_runs import rank_never_passed
from .fabric import FABRICS, is_fabric
from .facts import Kind, Value
from .lightning_cli import cli_calls, seed_option
from .loaders import LoaderCall, Presence
from .memo import per_project
from .per_item import Reached, callees, per_item_code
from .project import Project
from .rank_reads import first_parameter, reads_rank
from .refs import FunctionRef
from .seed_classification import (
    SeedScope,
    Source,
    is_command_line_option,
    seed_sources,
)
from .seeds import Seeding, SinkKind, seeding_parameters, seedings
from .worker_conditions import unspanned
from .worker_inits import WorkerInit, seed_left_none, worker_init_choices

#: Fabric's `seed_everything`, called on the class (a static method).
_FABRIC_SEED_EVERYTHING = frozenset(f"{name}.seed_everything" for name in FABRICS)
_SEEDING_WORDS = tuple(
    sorted(
        {"manual_seed", "seed_everything", "set_seed"}
        | {n.rpartition(".")[2] for n in library_seeders.TORCH_SEEDERS}
    )
)


class RankDependence(enum.Enum):
    """Whether a seed tells ranks apart."""

    #: The same value on every rank.
    SAME = "same"
    #: Depends on the rank (or is drawn from entropy, which differs per rank too).
    PER_RANK = "per_rank"
    #: Cannot be told.
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class SeedingCall:
    """A call that seeds torch, where it is written."""

    function: FunctionRef
    call: Value
    #: How the message names the call: "torch.manual_seed", "set_seed", "seed_everything".
    label: str


@dataclass(frozen=True)
class TorchSeeding:
    """A call that seeds torch's global RNG in the main process of each rank."""

    #: The function of the rank's own code that seeds, and the call it makes (for a project
    #: helper, the helper's call, where the seed value is chosen).
    function: FunctionRef
    call: Value
    #: How the message names the call: "torch.manual_seed", "set_seed", "seed_everything".
    label: str
    rank: RankDependence
    #: `seed_everything(..., workers=True)`: Lightning mixes the rank into worker seeds.
    seeds_workers_per_rank: bool = False
    #: For a project helper's call: the call inside the helper that seeds torch.
    inner: SeedingCall | None = None
    #: A configuration setting whose origin is not visible (a config file, a command-line
    #: parser the analysis does not know), assumed the same on every rank: its name.
    assumed_setting: str | None = None
    #: The per-process draw the seed falls back to when that setting is unset.
    fallback: Value | None = None

    @property
    def seeding_call(self) -> SeedingCall:
        """Return the call that seeds torch itself (inside a helper, if one is called)."""
        return self.inner or SeedingCall(self.function, self.call, self.label)

    @property
    def places(self) -> tuple[Location, ...]:
        """Return the call that seeds torch, then the project helper call that runs it."""
        calls = (self.seeding_call, self)
        return tuple(Location(c.function.path, c.call.span) for c in calls if c.call.span)


def torch_seedings(project: Project) -> list[TorchSeeding]:
    """Return the calls that seed torch's global RNG, with whether they depend on the rank."""
    found: list[TorchSeeding] = []
    helpers: dict[FunctionRef, SeedingCall] = {}
    for function in project.functions_mentioning(*_SEEDING_WORDS):
        found.extend(_library_seedings(project, function))
        for seeding in seedings(project, function):
            if not (seeding.is_torch and seeding.library == "torch"):
                continue
            if _seeds_from_own_parameter(project, function) and project.callers(function):
                helpers.setdefault(
                    function, SeedingCall(function, seeding.call, "torch.manual_seed")
                )
                continue
            classified = _classified(project, function, seeding.call, "torch.manual_seed")
            if rank_never_passed(project, function, seeding.seed):
                continue  # the rank it mixes in is a parameter nothing passes
            found.append(classified)
    found.extend(_helper_seedings(project, helpers))
    for function, call in cli_calls(project):
        # `LightningCLI(...)` seeds with `seed_everything(<seed>, workers=True)`, from a
        # setting of its configuration.
        option = seed_option(call)
        if option is None or not _is_false(option):
            found.append(
                TorchSeeding(
                    function,
                    call,
                    "LightningCLI",
                    RankDependence.UNKNOWN,
                    seeds_workers_per_rank=True,
                )
            )
    unique = {(item.function.path, item.call.span): item for item in found}
    return [item for item in unique.values() if not _in_worker(project, item)]


def _seeds_from_own_parameter(project: Project, function: FunctionRef) -> bool:
    """Return True for a helper that seeds torch from its parameter (`def set_seed(seed)`)."""
    parameters = seeding_parameters(project, function)
    return any("torch" in libraries for libraries in parameters.values())


def _helper_seedings(
    project: Project, helpers: dict[FunctionRef, SeedingCall]
) -> Iterator[TorchSeeding]:
    """Yield the calls of project seeding helpers, following helpers of helpers once.

    Each names the helper's own torch seeding call as the one that runs.
    """
    seen = set(helpers)
    pending = dict(helpers)
    for _ in range(2):
        callers_helpers: dict[FunctionRef, SeedingCall] = {}
        for helper, inner in pending.items():
            for site in project.callers(helper):
                passed = False
                for seeding in seedings(project, site.function):
                    if (
                        seeding.kind is not SinkKind.PROJECT_FUNCTION
                        or "torch" not in seeding.seeds
                        or seeding.call != site.call
                    ):
                        continue
                    passed = True
                    # A plain function started by a launcher (`mp.spawn(run, args=...)`) or
                    # from the command line, which nothing calls by name, gets the same
                    # arguments in every process: its seeding counts where it is, not at its
                    # callers. So does a method nothing calls by name: its callers through
                    # `self` are not all seen, and its seed's parameters are followed to them.
                    function = site.function
                    started = not project.callers(function) or (
                        function.function.class_qualname is None and project.is_referenced(function)
                    )
                    if _seeds_from_own_parameter(project, function) and not started:
                        if function not in seen:
                            seen.add(function)
                            callers_helpers[function] = inner
                        continue
                    label = seeding.library
                    yield _classified(project, function, site.call, label, seeding.seed, inner)
                if not passed:
                    yield from _splat_seeding(project, helper, site.function, site.call, inner)
        pending = callers_helpers


def _splat_seeding(
    project: Project, helper: FunctionRef, function: FunctionRef, call: Value, inner: SeedingCall
) -> Iterator[TorchSeeding]:
    """Yield the seeding of a helper called with its seed in a `**settings` dict."""
    parameters = [
        param
        for param, libraries in seeding_parameters(project, helper).items()
        if "torch" in libraries and "." not in param
    ]
    splats = [value for name, value in call.keywords if name is None]
    if len(parameters) != 1 or len(splats) != 1:
        return
    (settings,) = splats
    (parameter,) = parameters
    sources = seed_sources(project, settings, SeedScope(function))
    if sources & {Source.RANK, Source.ENTROPY, Source.CLOCK, Source.WORKER_ID}:
        return
    if assigned_from_rank(project, parameter, function):
        return
    assumed = parameter if Source.UNKNOWN in sources else None
    label = helper.function.name
    yield TorchSeeding(
        function, call, label, RankDependence.SAME, inner=inner, assumed_setting=assumed
    )


def _library_seedings(project: Project, function: FunctionRef) -> Iterator[TorchSeeding]:
    module = function.module
    for call in function.function.calls:
        if call.base is None or call.span is None:
            continue
        if _is_fabric_seeding(project, call, function):
            # Fabric's `seed_everything` asks for per-worker seeding unless told not to.
            workers = _workers_option(call)
            seeding = _classified(project, function, call, "seed_everything")
            yield replace(seeding, seeds_workers_per_rank=workers is None or not _is_false(workers))
            continue
        names = project.qualnames(call.base, module)
        if not names:
            continue
        if names <= library_seeders.LIGHTNING_SEED_EVERYTHING:
            workers = _workers_option(call)
            per_rank_workers = workers is not None and not _is_false(workers)
            seeding = _classified(project, function, call, "seed_everything")
            yield replace(seeding, seeds_workers_per_rank=per_rank_workers)
        elif (option := _rank_option(names)) is not None:
            keyword, position = option
            shift = call.keyword(keyword)
            if shift is None and len(call.args) > position:
                shift = call.args[position]
            label = min(names).rpartition(".")[2]
            if shift is not None and not _is_false(shift):
                yield TorchSeeding(function, call, label, RankDependence.PER_RANK)
            else:
                yield _classified(project, function, call, label)
        elif names <= library_seeders.TORCH_SEEDERS:
            yield _classified(project, function, call, min(names).rpartition(".")[2])


def _is_fabric_seeding(project: Project, call: Value, function: FunctionRef) -> bool:
    """Return True for `fabric.seed_everything(...)` on a Fabric (or LightningLite), or
    called on the class itself (`L.Fabric.seed_everything(...)`)."""
    callee = call.base
    if callee is None:
        return False
    if callee.kind is Kind.ATTRIBUTE and callee.name == "seed_everything" and callee.base:
        return is_fabric(project, callee.base, function)
    names = project.qualnames(callee, function.module)
    return bool(names) and names <= _FABRIC_SEED_EVERYTHING


def _workers_option(call: Value) -> Value | None:
    """Return the `workers` argument of a `seed_everything(seed, workers)` call."""
    workers = call.keyword("workers")
    if workers is None and len(call.args) > 1:
        workers = call.args[1]
    return workers


def _rank_option(names: frozenset[str]) -> tuple[str, int] | None:
    """Return the option (keyword, position) that asks the library seeder `names` names to
    add the rank to the seed, if it is one (`RANK_OPTION_SEEDERS`)."""
    options = {library_seeders.RANK_OPTION_SEEDERS.get(name) for name in names}
    return options.pop() if len(options) == 1 else None


def _is_false(value: Value) -> bool:
    return (value.kind is Kind.CONSTANT and value.name in ("False", "None")) or (
        value.kind is Kind.INT and value.number == 0
    )


def _classified(
    project: Project,
    function: FunctionRef,
    call: Value,
    label: str,
    seed: Value | None = None,
    inner: SeedingCall | None = None,
) -> TorchSeeding:
    if seed is None:
        seed = call.args[0] if call.args else call.keyword("seed")
    if seed is None or (seed.kind is Kind.CONSTANT and seed.name == "None"):
        # No seed: each rank seeds from entropy (Lightning: from the environment or 0).
        return TorchSeeding(function, call, label, RankDependence.UNKNOWN, inner=inner)
    rank = rank_dependence(project, seed, function)
    if rank is not RankDependence.SAME:
        # Alike on every rank in a run whose configuration sets the seed.
        chosen = setting_with_fallback(project, seed, function)
        if chosen is not None:
            return TorchSeeding(
                function,
                call,
                label,
                RankDependence.SAME,
                inner=inner,
                assumed_setting=chosen.setting,
                fallback=chosen.fallback,
            )
    if rank is RankDependence.UNKNOWN:
        setting = setting_assumed_alike(project, seed, function)
        if setting is not None:
            return TorchSeeding(
                function, call, label, RankDependence.SAME, inner=inner, assumed_setting=setting
            )
    return TorchSeeding(function, call, label, rank, inner=inner)


def _in_worker(project: Project, seeding: TorchSeeding) -> bool:
    """Return True for a reseed from torch's worker seed: code that runs in a worker."""
    seed = _seed_of(seeding.call)
    if seed is None:
        return False
    return Source.WORKER_SEED in seed_sources(project, seed, SeedScope(seeding.function))


def rank_dependence(project: Project, seed: Value, function: FunctionRef) -> RankDependence:
    """Return whether the seed expression `seed` (written in `function`) depends on the rank."""
    if is_command_line_option(project, seed, function):
        return RankDependence.SAME  # every rank is started with the same command line
    sources = seed_sources(project, seed, SeedScope(function))
    # A clock seed is not provably alike on every rank (ranks start at different times), so
    # it is not reported, like OS entropy.
    if sources & {Source.RANK, Source.ENTROPY, Source.CLOCK}:
        return RankDependence.PER_RANK
    if sources & {Source.UNKNOWN, Source.WORKER_ID}:
        return RankDependence.UNKNOWN
    return RankDependence.SAME


def worker_rank_source(
    project: Project, loader: LoaderCall, *, unseen_as_absent: bool = False
) -> RankDependence:
    """Return whether the worker seeds of `loader` depend on the rank.

    SAME when nothing in the worker seed tells ranks apart: no worker_init_fn, or a project
    one that never reads the rank, and no `generator=` seeded per rank. With
    `unseen_as_absent`, a `generator` or `worker_init_fn` that only a `**kwargs` of unknown
    contents may pass counts as not passed (the answer then rests on that).
    """
    generator = loader.argument("generator")
    if generator.presence is Presence.MAYBE and not unseen_as_absent:
        return RankDependence.UNKNOWN
    if generator.value is not None and not _is_false(generator.value):
        generator_rank = _generator_rank(project, loader)
        if generator_rank is not RankDependence.SAME:
            return generator_rank
    # A worker_init_fn chosen at run time (`init = seed_fn if flag else None`) decides the
    # answer only when every choice gives the same one.
    answers = {
        _init_rank_source(project, loader, init, unseen_as_absent)
        for init in worker_init_choices(loader)
    }
    if answers == {RankDependence.PER_RANK, RankDependence.SAME} and seed_left_none(
        project, loader
    ):
        # OpenMMLab's `build_dataloader`: the loaders its callers build without a seed
        # (validation, test) get no worker_init_fn at all.
        return RankDependence.SAME
    return answers.pop() if len(answers) == 1 else RankDependence.UNKNOWN


def _init_rank_source(
    project: Project, loader: LoaderCall, init: WorkerInit, unseen_as_absent: bool
) -> RankDependence:
    """Return whether the worker seeds one `worker_init_fn` choice gives depend on the rank."""
    if init.is_absent or (unseen_as_absent and _only_maybe(init)):
        return RankDependence.SAME
    if init.via_partial and _partial_binds_rank(project, loader, init):
        # `partial(worker_init_fn, rank=rank, ...)`, a library's function included.
        return RankDependence.PER_RANK
    if init.lookup.presence is Presence.MAYBE or init.function is None:
        value = init.lookup.value
        if value is not None and value.kind is Kind.CALL and value.base is not None:
            value = value.base if not value.args else value.args[0]
        if value is not None and project.is_one_of(
            value, loader.module, library_seeders.LIGHTNING_WORKER_INIT
        ):
            return RankDependence.PER_RANK
        return RankDependence.UNKNOWN
    if init.factory is not None and (
        _factory_given_rank(project, loader, init) or reads_rank(project, init.factory)
    ):
        return RankDependence.PER_RANK  # `make_init(rank)` may bind it into what it returns
    if reads_rank(project, init.function) or _seeds_from_entropy(project, init.function):
        return RankDependence.PER_RANK
    return RankDependence.SAME


#: The global RNGs torch seeds in each worker from the worker's seed, as `seedings` names them.
WORKER_SEEDED_RNGS = ("torch", "random", "numpy")


def rngs_reseeded_per_rank(project: Project, loader: LoaderCall) -> frozenset[str] | None:
    """Return the global RNGs the loader's one project worker_init_fn reseeds itself, when
    it tells ranks apart by reading the rank or the clock; None when that is not all it is.

    Such a function makes only those RNGs differ across ranks: `np.random.seed(worker_id +
    time_ms)` leaves torch and `random` on torch's worker seeds, alike on every rank.
    """
    choices = worker_init_choices(loader)
    if len(choices) != 1:
        return None
    init = choices[0]
    function = init.function
    if function is None or init.via_partial or init.factory is not None:
        return None
    if _init_rank_source(project, loader, init, False) is not RankDependence.PER_RANK:
        return None
    found = seedings(project, function)
    helpers = {seeding.library for seeding in found if seeding.kind is SinkKind.PROJECT_FUNCTION}
    own = Reached(function, None, (function.qualname,))
    if any(callee.function.function.name not in helpers for callee in callees(project, own)):
        return None  # a project function it calls may reseed more than is seen here
    reseeded = _reseeded_libraries(found)
    # A function that reseeds no global RNG tells ranks apart some other way.
    if not reseeded:
        return None
    if "numpy" in reseeded:
        reseeded |= _reseeded_per_item_from_numpy(project, loader)
    return reseeded


def _reseeded_libraries(found: Iterable[Seeding]) -> frozenset[str]:
    """Return the global RNGs the seeding calls `found` reseed."""
    return frozenset(
        library.removesuffix(".cuda")
        for seeding in found
        if seeding.kind in (SinkKind.GLOBAL, SinkKind.PROJECT_FUNCTION)
        for library in (seeding.seeds or (seeding.library,))
    )


def _reseeded_per_item_from_numpy(project: Project, loader: LoaderCall) -> frozenset[str]:
    """Return the global RNGs the per-item code of every dataset the loader may load
    reseeds from a draw of NumPy's (`reseed(np.random.randint(2**31))` before each
    torchvision transform): where NumPy differs across ranks, so do they."""
    datasets = datasets_of_loader(project, loader)
    if not datasets.complete or not datasets.classes:
        return frozenset()
    common: frozenset[str] | None = None
    for ref in datasets.classes:
        found = [
            seeding
            for reached in per_item_code(project, ref, datasets.made_by(ref))
            for seeding in seedings(project, reached.function)
            if seeding.seed is not None
            and seed_sources(project, seeding.seed, SeedScope(reached.function))
            == {Source.NUMPY_DRAW}
        ]
        libraries = _reseeded_libraries(found)
        common = libraries if common is None else common & libraries
    return common or frozenset()


@per_project
def mentions_worker_seeding(project: Project) -> bool:
    """Return True if some project code may put a `worker_init_fn` or `generator` into a
    loader's `**kwargs` of unknown contents: a dict given such a key (`options[
    "worker_init_fn"] = seed_fn`, `dict(generator=g)`, `{"worker_init_fn": fn}`), or a
    project function (a loader wrapper) given such a keyword. Then nothing is assumed of
    those `**kwargs`. Naming them otherwise feeds no `**kwargs`: passing one to a DataLoader
    itself, or `generator=` to a library function (`torch.randperm(n, generator=g)`)."""
    for function in project.functions_mentioning(*_WORKER_SEEDING_KEYS):
        facts = function.function
        if any(store.key in _WORKER_SEEDING_KEYS for store in facts.item_stores):
            return True
        for call in facts.calls:
            if any(_names_key(arg) for arg in call.args) or any(
                _names_key(value) for _, value in call.keywords
            ):
                return True
            if any(key in _WORKER_SEEDING_KEYS for key, _ in call.keywords) and not (
                call.base is not None and _takes_no_kwargs_on(project, call.base, function)
            ):
                return True
        values = [assignment.value for assignment in facts.assignments]
        if any(_names_key(value) for value in (*values, *facts.returns)):
            return True
    return False


#: The DataLoader arguments that seed its workers.
_WORKER_SEEDING_KEYS = ("worker_init_fn", "generator")
#: Builtins that make a dict of the keywords they are given.
_DICT_MAKERS = frozenset({"builtins.dict"})


def _names_key(value: Value) -> bool:
    """Return True for a dict display with such a key, or the key as a string."""
    return any(
        (
            option.kind is Kind.DICT
            and any(key in _WORKER_SEEDING_KEYS for key, _ in option.keywords)
        )
        or (option.kind is Kind.CONSTANT and option.name.strip("'\"") in _WORKER_SEEDING_KEYS)
        for option in value.alternatives()
    )


def _takes_no_kwargs_on(project: Project, callee: Value, function: FunctionRef) -> bool:
    """Return True if a keyword given to `callee` goes nowhere a loader's `**kwargs` reads:
    a library's function or class other than `dict` (torch's DataLoader included). A project
    function or class, a DataLoader subclass among them, may hand it on."""
    names = project.qualnames(callee, function.module)
    return bool(names) and not names & _DICT_MAKERS


def _only_maybe(init: WorkerInit) -> bool:
    """Return True for a worker_init_fn that only a `**kwargs` of unknown contents may pass."""
    return init.lookup.presence is Presence.MAYBE and init.lookup.value is None


def _seeds_from_entropy(project: Project, function: FunctionRef) -> bool:
    """Return True if `function` reseeds from the clock, a uuid or `os.urandom`: per rank too."""
    scope = SeedScope(function, worker_param=first_parameter(function))
    return any(
        seeding.seed is not None
        and bool(seed_sources(project, seeding.seed, scope) & {Source.ENTROPY, Source.CLOCK})
        for seeding in seedings(project, function)
    )


def _factory_given_rank(project: Project, loader: LoaderCall, init: WorkerInit) -> bool:
    """Return True if the factory call passed as `worker_init_fn` is given the rank."""
    value = init.lookup.value
    if value is None:
        return False
    given = [arg for option in value.alternatives() for arg in option.args]
    given += [arg for option in value.alternatives() for _, arg in option.keywords]
    scope = SeedScope(loader.function)
    return any(Source.RANK in seed_sources(project, arg, scope) for arg in given)


def _partial_binds_rank(project: Project, loader: LoaderCall, init: WorkerInit) -> bool:
    value = init.lookup.value
    if value is None:
        return False
    for option in value.alternatives():
        bound = [*option.args[1:], *(item for _, item in option.keywords)]
        for item in bound:
            if Source.RANK in seed_sources(project, item, SeedScope(loader.function)):
                return True
    return False


def _generator_rank(project: Project, loader: LoaderCall) -> RankDependence:
    """Return whether the loader's `generator=` is seeded per rank, from its seeding call."""
    seeding = generator_seeding(project, loader)
    return seeding.rank if seeding is not None else RankDependence.UNKNOWN


def generator_seeding(project: Project, loader: LoaderCall) -> TorchSeeding | None:
    """Return the `.manual_seed(...)` call that seeds the loader's `generator=`, if seen.

    A call in the function that creates the loader, on the object it passes; for a
    generator held in `self.<attr>`, a call on that attribute in any method of the
    loader's class (its `__init__`, typically).
    """
    generator = loader.argument("generator").value
    if generator is None:
        return None
    wanted = unspanned(generator)
    for function in _generator_scopes(project, loader.function, generator):
        for seeding in seedings(project, function):
            callee = seeding.call.base
            if (
                seeding.kind is SinkKind.METHOD
                and seeding.library == ".manual_seed()"
                and callee is not None
                and callee.base is not None
                and unspanned(callee.base) == wanted
            ):
                seed = _seed_of(seeding.call)
                if seed is None:
                    return None
                return _classified(project, function, seeding.call, ".manual_seed()", seed)
    return None


def _generator_scopes(
    project: Project, where: FunctionRef, generator: Value
) -> Iterator[FunctionRef]:
    """Yield the functions that may seed `generator`, passed by `where`: `where` itself, and
    for `self.<attr>` the other methods of its class and of the classes it derives from."""
    yield where
    if generator.kind is not Kind.ATTRIBUTE or generator.base is None:
        return
    own = project.class_of_function(where) if generator.base.kind is Kind.SELF else None
    for cls in project.mro(own) if own is not None else ():
        for _, qualname in cls.cls.methods:
            method = cls.module.function(qualname)
            if method is not None and method is not where.function:
                yield FunctionRef.of(cls.module, method)


def _seed_of(call: Value) -> Value | None:
    seed = call.args[0] if call.args else call.keyword("seed")
    return None if seed is None or (seed.kind is Kind.CONSTANT and seed.name == "None") else seed
