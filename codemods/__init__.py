"""workerseed's engine: find and fix duplicated randomness in PyTorch DataLoader workers.

The public API: `run_paths` and `run_source` return typed per-file results; `ALL_RULES`
lists the rules. Nothing here prints.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis.read_once import files_read_once
    from .engine import check_project, project_settings, run_paths, run_source
    from .projects import ProjectSettings
    from .registry import ALL_RULES, rule_by_code, selected_rules
    from .settings import ConfigError, Settings
    from .types import (
        Changed,
        Failed,
        FileResult,
        Finding,
        Fix,
        Safety,
        Skipped,
        SkipReason,
        Span,
        TorchTarget,
        Unchanged,
    )

#: Where each public name is defined. They are imported when first used: a re-run answered
#: from the cache needs neither the rules nor the analysis (see `stored_runs`).
_HOMES = {
    "files_read_once": ".analysis.read_once",
    "check_project": ".engine",
    "project_settings": ".engine",
    "run_paths": ".engine",
    "run_source": ".engine",
    "ProjectSettings": ".projects",
    "ALL_RULES": ".registry",
    "rule_by_code": ".registry",
    "selected_rules": ".registry",
    "ConfigError": ".settings",
    "Settings": ".settings",
    **dict.fromkeys(
        (
            "Changed",
            "Failed",
            "FileResult",
            "Finding",
            "Fix",
            "Safety",
            "Skipped",
            "SkipReason",
            "Span",
            "TorchTarget",
            "Unchanged",
        ),
        ".types",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "ALL_RULES",
    "Changed",
    "ConfigError",
    "Failed",
    "FileResult",
    "Finding",
    "Fix",
    "ProjectSettings",
    "Safety",
    "Settings",
    "SkipReason",
    "Skipped",
    "Span",
    "TorchTarget",
    "Unchanged",
    "__version__",
    "check_project",
    "files_read_once",
    "project_settings",
    "rule_by_code",
    "run_paths",
    "run_source",
    "selected_rules",
]
