"""Configuration settings: which seeds read from a config every rank shares.

A seed read from a configuration (`cfg.manual_seed`, `config["train"]["seed"]`) whose origin
the analysis cannot follow (a YAML or JSON file, a config class, a parser it does not know)
is the same on every rank of a data-parallel job: every rank reads the same files and the
same command line. Unless the project itself stores a rank-dependent value under that name.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from . import catalog
from .facts import Kind, Value, looked_up
from .memo import per_project
from .project import Project
from .randomness import NUMPY_GLOBAL_DRAWS
from .refs import FunctionRef, VariableRef
from .runs import entry_modules
from .seed_classification import SeedScope, Source, is_rank_name, seed_sources


def setting_assumed_alike(project: Project, seed: Value, function: FunctionRef) -> str | None:
    """Return the name of the configuration setting a seed is taken from, assumed alike.

    `cfg.manual_seed`, `config["train"]["seed"]`, `hps.train.seed`: a setting read from an
    object whose origin is not visible (a YAML or JSON file, a config class, a parser the
    analysis does not know). Every rank reads the same files and command line, so such a
    setting is the same on every rank, and so is arithmetic on it with constants and epoch
    counters (`cfg.seed + 1031 * epoch`), unless the project stores a rank-dependent value
    under its name; then nothing is assumed.
    """
    sources = seed_sources(project, seed, SeedScope(function))
    if sources & {Source.RANK, Source.ENTROPY, Source.CLOCK, Source.WORKER_ID}:
        return None
    return _setting_read(project, seed, function, frozenset())


def setting_fixed_for_the_run(project: Project, seed: Value, scope: SeedScope) -> str | None:
    """Return the setting a worker seed is taken from, if it is one read from a configuration.

    `np.random.seed(args.seed + worker_id)` with `args = parser.parse_args()` made in the
    function that builds the loader, `cfg.SEED + worker_id` with `cfg = Config()`: the
    analysis cannot see the object through, but a configuration is read once, before the
    workers start, so the setting is the same in every epoch, like a literal. The seed may add
    only constants and the worker id to it; a setting the project derives from the rank is
    not assumed anything.
    """
    worker_id = frozenset({scope.worker_param} if scope.worker_param else ())
    return _setting_read(project, seed, scope.function, worker_id)


def _setting_read(
    project: Project, seed: Value, function: FunctionRef, parameters: frozenset[str]
) -> str | None:
    """Return the first setting `seed` reads, if it reads settings, constants, counters and
    `parameters` only, and the project derives none of those settings from the rank."""
    settings: list[str] = []
    if not _alike_terms(project, seed, function, settings, parameters) or not settings:
        return None
    if any(is_rank_name(key) or assigned_from_rank(project, key, function) for key in settings):
        return None
    return settings[0]


@dataclass(frozen=True)
class SettingWithFallback:
    """A seed taken from a setting when the configuration sets it, else drawn per process."""

    #: The name of the setting (`manual_seed`), assumed the same on every rank.
    setting: str
    #: The draw the seed falls back to when the setting is unset (`random.randint(1, 10000)`).
    fallback: Value


def setting_with_fallback(
    project: Project, seed: Value, function: FunctionRef
) -> SettingWithFallback | None:
    """Return the setting a seed comes from when it is set, and the per-process fallback.

    `seed = opt["manual_seed"]; if seed is None: seed = random.randint(1, 10000)`: in a run
    whose configuration sets the seed, every rank seeds alike; only an unset seed makes each
    rank draw its own (from `random` or NumPy, which every process seeds from OS entropy,
    from entropy or the clock).
    Nothing is assumed when any value the seed may take mixes in the rank, or is neither
    such a setting, a constant nor such a draw.
    """
    settings: list[str] = []
    fallbacks: list[Value] = []
    for option in seed.alternatives():
        sources = seed_sources(project, option, SeedScope(function))
        if Source.RANK in sources:
            return None
        setting = setting_assumed_alike(project, option, function)
        if setting is not None:
            settings.append(setting)
        elif _draws_per_process(project, option, function, sources):
            fallbacks.append(option)
        elif not sources <= {Source.CONSTANT, Source.RUN_VALUE}:
            return None
    if not settings or not fallbacks:
        return None
    return SettingWithFallback(settings[0], fallbacks[0])


#: What a seed drawn anew in each rank's main process depends on: draws from RNGs every
#: process seeds from OS entropy (`random`, NumPy's global RNG; not torch, whose default
#: seed is the same in every process), entropy itself, the clock.
_PER_PROCESS = frozenset({Source.WORKER_STREAM, Source.NUMPY_DRAW, Source.ENTROPY, Source.CLOCK})
_PER_PROCESS_DRAWS = catalog.PYTHON_RANDOM_DRAWS | NUMPY_GLOBAL_DRAWS


def _draws_per_process(
    project: Project, value: Value, function: FunctionRef, sources: frozenset[Source]
) -> bool:
    """Return True for a value drawn anew in each process (`random.randint(1, 10000)`)."""
    if not sources & _PER_PROCESS or not sources <= _PER_PROCESS | {Source.CONSTANT}:
        return False
    if Source.WORKER_STREAM not in sources:
        return True
    # A draw from `random` differs per process; one from torch's unseeded RNG does not.
    called = set(_called(project, value, function))
    return not called & catalog.TORCH_DRAWS and bool(called & _PER_PROCESS_DRAWS)


def _called(project: Project, value: Value, function: FunctionRef) -> Iterator[str]:
    """Yield the qualified names of the functions `value` calls (`int(random.random())`)."""
    if value.kind is Kind.CALL and value.base is not None:
        yield from project.qualnames(value.base, function.module)
    for item in (*value.args, *(arg for _, arg in value.keywords)):
        yield from _called(project, item, function)


def _alike_terms(
    project: Project,
    value: Value,
    function: FunctionRef,
    settings: list[str],
    parameters: frozenset[str] = frozenset(),
    depth: int = 0,
) -> bool:
    """Return True if every term of `value` is a setting, a constant or a counter over them
    (or one of the function's `parameters`), read directly or through a module-level
    variable bound to one (`seed = configs["training"]["seed"]` in a script's module code).

    Adds the names of the settings read to `settings`.
    """

    def alike(term: Value) -> bool:
        return _alike_terms(project, term, function, settings, parameters, depth)

    if value.kind in (Kind.INT, Kind.CONSTANT, Kind.RECURSIVE):
        return True  # a name met again (`epoch += 1`) adds nothing beyond its other values
    if value.kind is Kind.PARAM:
        return value.name in parameters
    if value.kind in (Kind.BINOP, Kind.ALTERNATIVES):
        # `cfg = complete(cfg)` before `cfg.seed`: the read of either binding.
        return all(alike(term) for term in value.args)
    if _is_setting_lookup(value, function):
        key = _setting_name(value)
        if key is None:
            return False
        settings.append(key)
        return True
    key = _setting_get(value, function)
    if key is not None:
        settings.append(key)
        return True
    if value.kind is Kind.UNKNOWN and value.name:
        # `for epoch in range(start, cfg.epochs)`: every rank counts alike.
        for name, iterable in function.function.loops:
            if name == value.name and iterable.is_call_to("builtins.range"):
                return all(alike(bound) for bound in iterable.args)
    if value.kind is Kind.NAME and depth < _VARIABLE_DEPTH:
        variables = [
            target
            for target in project.targets(value, function.module)
            if isinstance(target, VariableRef)
        ]
        code = [variable.module.function("<module>") for variable in variables]
        return bool(variables) and all(
            module_code is not None
            and all(
                _alike_terms(
                    project,
                    assigned,
                    FunctionRef.of(variable.module, module_code),
                    settings,
                    parameters,
                    depth + 1,
                )
                for assigned in variable.values
            )
            for variable, module_code in zip(variables, code, strict=True)
        )
    return False


#: How many module-level variables a seed is followed through (`seed = base_seed`).
_VARIABLE_DEPTH = 3


def _is_setting_lookup(value: Value, function: FunctionRef) -> bool:
    """Return True for a chain of attribute reads and constant keys (`cfg.train["seed"]`)."""
    current: Value | None = value
    steps = 0
    while current is not None and current.kind in (Kind.ATTRIBUTE, Kind.SUBSCRIPT):
        if current.kind is Kind.ATTRIBUTE and is_rank_name(current.name):
            return False
        if current.kind is Kind.SUBSCRIPT and (
            len(current.args) != 1 or current.args[0].kind is not Kind.CONSTANT
        ):
            return False
        current = current.base
        steps += 1
    if steps == 0 or current is None:
        return False
    # `opt = parse(path)` then `opt = to_namespace(opt)`: a configuration reassigned (a name
    # met again while its value is summarised adds nothing beyond its other values).
    options = [option for option in current.alternatives() if option.kind is not Kind.RECURSIVE]
    return bool(options) and all(
        option.kind in _SETTING_ROOTS or _unpacked_from_call(option, function) for option in options
    )


_SETTING_ROOTS = frozenset({Kind.NAME, Kind.PARAM, Kind.CALL, Kind.SELF})


def _unpacked_from_call(value: Value, function: FunctionRef) -> bool:
    """Return True for a name the function unpacks from a call (`args, cfg = parse_config()`):
    as much a configuration object as the call's own result (`parse_config().seed`)."""
    return value.kind is Kind.UNKNOWN and any(
        name == value.name and unpacked.kind is Kind.CALL
        for name, _, _, unpacked in function.function.unpacked
    )


def _setting_get(value: Value, function: FunctionRef) -> str | None:
    """Return the key of `cfg.get("seed")` or `dict(cfg).get("seed", None)`, where `cfg` is
    a configuration object and the default, if any, is a constant (or a module constant of
    the function's module, `cfg.get("seed", _GLOBAL_SEED)`)."""
    found = looked_up(value) if value.kind is Kind.CALL else None
    if found is None:
        return None
    mapping, key, default = found
    if default is None or not _is_constant(default, function) or is_rank_name(key):
        return None
    if _is_setting_lookup(mapping, function) or all(
        option.kind in _SETTING_ROOTS for option in mapping.alternatives()
    ):
        return key
    return None


_CONSTANTS = frozenset({Kind.INT, Kind.CONSTANT})


def _is_constant(value: Value, function: FunctionRef) -> bool:
    """Return True for a literal, or a name its module binds to literals only."""
    if value.kind in _CONSTANTS:
        return True
    module = function.module
    names = [name.rpartition(".") for name in value.qualnames] if value.kind is Kind.NAME else []
    return bool(names) and all(
        owner == module.module
        and bool(module.binding(name))
        and all(bound.kind in _CONSTANTS for bound in module.binding(name))
        for owner, _, name in names
    )


def _setting_name(value: Value) -> str | None:
    if value.kind is Kind.ATTRIBUTE:
        return value.name
    if value.kind is Kind.SUBSCRIPT and value.args:
        return value.args[0].name.strip("'\"") or None
    return None


@per_project
def assigned_from_rank(project: Project, key: str, near: FunctionRef) -> bool:
    """Return True if the project stores a rank-dependent value as setting `key` in code
    that takes part in a run of `near` (a store in another script, `tools/train.py`'s
    `cfg.seed = cfg.seed + rank`, changes no setting `tools/test.py` reads).

    `args.seed = args.seed + args.rank`, `cfg["seed"] = seed + get_rank()`.
    """
    storing = _rank_dependent_stores(project, key)
    if not storing:
        return False
    runs = entry_modules(project, near)
    return any(entry_modules(project, function) & runs for function in storing)


@per_project
def _rank_dependent_stores(project: Project, key: str) -> tuple[FunctionRef, ...]:
    """Return the functions that store a rank-dependent value as setting `key`.

    Found once per setting, not once per function asking: the runs a function takes part in
    cost far more to find than its stores (a large project has thousands of functions that
    spell `seed`, and a handful that store one).
    """
    found: list[FunctionRef] = []
    for function in project.functions_mentioning(key):
        facts = function.function
        stored = [
            *(store.value for store in facts.attribute_stores if store.attribute == key),
            *(store.value for store in facts.item_stores if store.key == key),
            *(item.value for item in facts.assignments if item.target == f"self.{key}"),
        ]
        scope = SeedScope(function)
        if any(Source.RANK in seed_sources(project, value, scope) for value in stored):
            found.append(function)
    return tuple(found)
