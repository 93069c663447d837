"""`--show-settings`: each project's resolved settings, as TOML a user could paste back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from codemods import ALL_RULES

if TYPE_CHECKING:
    from codemods import ProjectSettings


def _toml(value: object) -> str:
    if value is None:
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _library_versions_line(stated: tuple[tuple[str, str, str], ...]) -> str:
    """Return `library-versions = {...}`: the versions stated, the last one per library winning."""
    chosen = {name: (version, source) for name, version, source in stated}
    entries = ", ".join(f"{name} = {_toml(version)}" for name, (version, _) in chosen.items())
    sources = ", ".join(dict.fromkeys(source for _, source in chosen.values()))
    comment = f"  # from {sources}" if sources else "  # else lock files, requirements, installed"
    return f"library-versions = {{{entries}}}{comment}"


def settings_text(projects: Sequence[ProjectSettings]) -> str:
    """Return the resolved settings of each project, as TOML a user could paste back."""
    from codemods.files import DEFAULT_EXCLUDES

    defaults = tuple(rule.CODE for rule in ALL_RULES if rule.DEFAULT)
    blocks = []
    for project in projects:
        settings = project.settings
        target = project.target
        version = ".".join(map(str, target.version)) if target.version else "latest"
        torch_line = f"torch-version = {_toml(version)}  # from {target.source}"
        if target.below:
            torch_line = f"# torch-version: below {version} (from {target.source})"
        config = str(project.config) if project.config else "none (defaults)"
        lines = [
            f"# project root: {project.root}",
            f"# configuration: {config}",
            f"# target: {project.target.describe()}",
            "[tool.workerseed]",
            f"rules = {_toml(project.rules)}  # the rules that run",
            f"select = {_toml(settings.select or defaults)}"
            + ("  # the defaults" if settings.select is None else ""),
            f"extend-select = {_toml(settings.extend_select)}",
            f"ignore = {_toml(settings.ignore)}",
            f"exclude = {_toml(settings.exclude or DEFAULT_EXCLUDES)}"
            + ("  # the defaults" if settings.exclude is None else ""),
            f"extend-exclude = {_toml(settings.extend_exclude)}",
            torch_line,
            _library_versions_line(settings.library_versions),
            f"unsafe-fixes = {_toml(bool(settings.unsafe_fixes))}",
            f"respect-gitignore = {_toml(settings.respect_gitignore)}",
        ]
        if settings.per_file_ignores:
            lines.append("")
            lines.append("[tool.workerseed.per-file-ignores]")
            lines.extend(
                f"{_toml(pattern)} = {_toml(codes)}" for pattern, codes in settings.per_file_ignores
            )
        else:
            lines.append("per-file-ignores = {}")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)
