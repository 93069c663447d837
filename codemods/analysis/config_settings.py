"""Configuration settings: which seeds read from a config every rank shares.

A seed read from a configuration (`cfg.manual_seed`, `config["train"]["seed"]`) whose origin
the analysis cannot follow (a YAML or JSON file, a config class, a parser it does not know)
is the same on every rank of a data-parallel job: every rank reads the same files and the
same command line. Unless the project itself stores a rank-dependent value under that name.
"""

from __future__ import annotations

from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef
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
    settings: list[str] = []
    if not _alike_terms(seed, function, settings) or not settings:
        return None
    if any(is_rank_name(key) or assigned_from_rank(project, key) for key in settings):
        return None
    return settings[0]


def _alike_terms(value: Value, function: FunctionRef, settings: list[str]) -> bool:
    """Return True if every term of `value` is a setting, a constant or a counter over them.

    Adds the names of the settings read to `settings`.
    """
    if value.kind in (Kind.INT, Kind.CONSTANT):
        return True
    if value.kind is Kind.BINOP:
        return all(_alike_terms(term, function, settings) for term in value.args)
    if _is_setting_lookup(value):
        key = _setting_name(value)
        if key is None:
            return False
        settings.append(key)
        return True
    if value.kind is Kind.UNKNOWN and value.name:
        # `for epoch in range(start, cfg.epochs)`: every rank counts alike.
        for name, iterable in function.function.loops:
            if name == value.name and _is_range(iterable):
                return all(_alike_terms(bound, function, settings) for bound in iterable.args)
    return False


def _is_range(value: Value) -> bool:
    return (
        value.kind is Kind.CALL
        and value.base is not None
        and "builtins.range" in value.base.qualnames
    )


def _is_setting_lookup(value: Value) -> bool:
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
    return steps > 0 and current is not None and current.kind in _SETTING_ROOTS


_SETTING_ROOTS = frozenset({Kind.NAME, Kind.PARAM, Kind.CALL, Kind.SELF})


def _setting_name(value: Value) -> str | None:
    if value.kind is Kind.ATTRIBUTE:
        return value.name
    if value.kind is Kind.SUBSCRIPT and value.args:
        return value.args[0].name.strip("'\"") or None
    return None


def assigned_from_rank(project: Project, key: str) -> bool:
    """Return True if the project stores a rank-dependent value as setting `key`.

    `args.seed = args.seed + args.rank`, `cfg["seed"] = seed + get_rank()`.
    """
    for function in project.functions_mentioning(key):
        facts = function.function
        stored = [
            *(store.value for store in facts.attribute_stores if store.attribute == key),
            *(store.value for store in facts.item_stores if store.key == key),
            *(item.value for item in facts.assignments if item.target == f"self.{key}"),
        ]
        for value in stored:
            if Source.RANK in seed_sources(project, value, SeedScope(function)):
                return True
    return False
