"""workerseed's engine: find and fix duplicated randomness in PyTorch DataLoader workers.

The public API: `run_paths` and `run_source` return typed per-file results; `ALL_RULES`
lists the rules. Nothing here prints.
"""

from __future__ import annotations

from .analysis.read_once import files_read_once
from .engine import ProjectSettings, check_project, project_settings, run_paths, run_source
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
