"""The list of rules, and `--select` / `--ignore` by code or code prefix (as in ruff)."""

from __future__ import annotations

from typing import Protocol

from .errors import ConfigError
from .rule import Rule
from .rules.augmentation_pipeline_shared_by_workers import AugmentationPipelineSharedByWorkers
from .rules.epoch_invariant_worker_seed import EpochInvariantWorkerSeed
from .rules.legacy_numpy_random_in_dataset import LegacyNumpyRandomInDataset
from .rules.rank_invariant_worker_seed import RankInvariantWorkerSeed
from .rules.rng_object_shared_by_workers import RngObjectSharedByWorkers
from .rules.unpicklable_worker_init_fn import UnpicklableWorkerInitFn
from .rules.unseeded_numpy_in_workers import UnseededNumpyInWorkers


class RuleSelection(Protocol):
    """The options that choose rules (`Settings` has them)."""

    @property
    def select(self) -> tuple[str, ...] | None: ...

    @property
    def extend_select(self) -> tuple[str, ...]: ...

    @property
    def ignore(self) -> tuple[str, ...]: ...


ALL_RULES: tuple[type[Rule], ...] = (
    UnseededNumpyInWorkers,
    EpochInvariantWorkerSeed,
    UnpicklableWorkerInitFn,
    RankInvariantWorkerSeed,
    RngObjectSharedByWorkers,
    LegacyNumpyRandomInDataset,
    AugmentationPipelineSharedByWorkers,
)


def rule_by_code(code: str) -> type[Rule] | None:
    """Return the rule with this code (or kebab-case name), if any."""
    for rule in ALL_RULES:
        if code.upper() == rule.CODE or code == rule.NAME:
            return rule
    return None


def _matching(selector: str, option: str) -> set[type[Rule]]:
    selector = selector.strip()
    if selector.upper() == "ALL":
        return set(ALL_RULES)
    matched = {
        rule
        for rule in ALL_RULES
        if rule.CODE.startswith(selector.upper()) or selector == rule.NAME
    }
    if not matched:
        codes = ", ".join(rule.CODE for rule in ALL_RULES)
        raise ConfigError(f"{option}: unknown rule or prefix {selector!r} (rules: {codes})")
    return matched


def selected_rules(settings: RuleSelection) -> tuple[type[Rule], ...]:
    """Return the rules `settings` enables, in code order."""
    if settings.select is None:
        chosen = {rule for rule in ALL_RULES if rule.DEFAULT}
    else:
        chosen = set().union(*(_matching(code, "--select") for code in settings.select))
    for code in settings.extend_select:
        chosen |= _matching(code, "--extend-select")
    for code in settings.ignore:
        chosen -= _matching(code, "--ignore")
    return tuple(rule for rule in ALL_RULES if rule in chosen)


def codes_matching(selectors: tuple[str, ...], option: str) -> frozenset[str]:
    """Return the rule codes the given selectors name (for per-file ignores)."""
    return frozenset(rule.CODE for selector in selectors for rule in _matching(selector, option))
