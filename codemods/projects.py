"""Which project each path belongs to, and the settings a project is checked with.

Kept apart from the engine: a re-run answered from the cache (`stored_runs`) needs these,
and neither the rules nor the analysis.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import files

if TYPE_CHECKING:
    from .settings import Settings
    from .types import TorchTarget


def by_root(paths: Iterable[Path]) -> dict[Path, list[Path]]:
    """Group `paths` (made absolute) by the project root each belongs to."""
    groups: dict[Path, list[Path]] = {}
    for path in paths:
        absolute = path.resolve()
        if absolute.exists() and not (absolute.is_dir() or absolute.is_file()):
            continue  # a pipe or a device is never read: it makes no project of its own
        groups.setdefault(files.find_project_root(absolute), []).append(absolute)
    return groups


@dataclass(frozen=True)
class ProjectSettings:
    """The settings one project root is checked with, after reading its configuration."""

    root: Path
    #: The configuration file that was read, if any.
    config: Path | None
    settings: Settings
    #: Codes of the rules that run.
    rules: tuple[str, ...]
    target: TorchTarget
