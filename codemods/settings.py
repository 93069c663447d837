"""Options from the command line and `[tool.workerseed]`, merged into one `Settings`."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .errors import ConfigError as ConfigError


@dataclass(frozen=True)
class Settings:
    """What to check and how; None means "not set here" (a lower layer decides)."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    #: (glob relative to the project root, codes) pairs.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Replaces the default excludes when set.
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    torch_version: str | None = None
    #: Where `torch_version` came from, for messages.
    torch_version_source: str = "--torch-version"
    #: Library versions to assume, as (distribution, version, where it was stated) triples;
    #: later ones win (see `analysis.package_versions`).
    library_versions: tuple[tuple[str, str, str], ...] = ()
    unsafe_fixes: bool | None = None
    respect_gitignore: bool = True
    #: Worker processes for reading and parsing; None picks one per CPU.
    jobs: int | None = None
    #: A Dask scheduler address: repositories are analysed on that cluster's workers.
    scheduler: str | None = None
    cache: bool = True
    #: An explicit configuration file (`--config`); else pyproject.toml of the project root.
    config: Path | None = None
    #: Internal switch for tests: analyse every file, skipping no shortcut.
    prefilter: bool = True


#: `[tool.workerseed]` keys and the Settings field each one sets.
_CONFIG_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "extend-select": "extend_select",
    "per-file-ignores": "per_file_ignores",
    "exclude": "exclude",
    "extend-exclude": "extend_exclude",
    "torch-version": "torch_version",
    "library-versions": "library_versions",
    "unsafe-fixes": "unsafe_fixes",
    "respect-gitignore": "respect_gitignore",
}


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        if not all(item.strip() for item in value):
            raise ConfigError(f"{where}: empty string in {value!r}")
        return tuple(item.strip() for item in value)
    raise ConfigError(f"{where}: expected a list of strings, got {value!r}")


def _rule_selectors(value: Any, where: str) -> tuple[str, ...]:
    """Return rule codes or prefixes, checking that each names at least one rule."""
    from .registry import codes_matching  # here: settings load without the rules

    selectors = _strings(value, where)
    codes_matching(selectors, where)
    return selectors


def _display(path: Path) -> str:
    """Return `path` as a user would type it: relative to the working directory if below it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (OSError, ValueError):
        return str(path)


def _settings_from_table(
    table: Mapping[str, Any], origin: str, section: str, source: str
) -> dict[str, Any]:
    """Check and convert a configuration table (`origin`: the file, for messages)."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = f"{origin}: {section}{key}"
        name = _CONFIG_KEYS.get(key)
        if name is None:
            known = ", ".join(sorted(_CONFIG_KEYS))
            in_section = f" in {section.strip()}" if section else ""
            raise ConfigError(f"{origin}: unknown key {key!r}{in_section} (known: {known})")
        if name in ("select", "ignore", "extend_select"):
            values[name] = _rule_selectors(value, where)
        elif name in ("exclude", "extend_exclude"):
            values[name] = _strings(value, where)
        elif name == "per_file_ignores":
            if not isinstance(value, dict):
                raise ConfigError(
                    f'{where}: expected a table of glob = [codes], e.g. {{ "tests/*" = ["WS201"] }}'
                )
            values[name] = tuple(
                (str(pattern), _rule_selectors(codes, f'{where}."{pattern}"'))
                for pattern, codes in value.items()
            )
        elif name == "torch_version":
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise ConfigError(f'{where}: expected a version string such as "1.8"')
            from .analysis.torch_version import target_from_option

            try:
                target_from_option(str(value), source)
            except ValueError:
                raise ConfigError(
                    f"{where}: invalid torch version {value!r}; expected e.g. "
                    '"1.8", "1.8.1" or "latest"'
                ) from None
            values[name] = str(value)
            values["torch_version_source"] = source
        elif name == "library_versions":
            values[name] = _library_versions(value, where, source)
        else:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: expected true or false, got {value!r}")
            values[name] = value
    return values


def _library_versions(value: Any, where: str, source: str) -> tuple[tuple[str, str, str], ...]:
    """Check `library-versions = {albumentations = "2.0.8"}`."""
    from .analysis.package_versions import parse_override

    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise ConfigError(f'{where}: expected a table such as {{ albumentations = "2.0.8" }}')
    try:
        pairs = [parse_override(f"{name}=={version}", where) for name, version in value.items()]
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return tuple((name, version, source) for name, version in pairs)


def load_config(path: Path, *, required: bool) -> dict[str, Any]:
    """Return the `[tool.workerseed]` values of a pyproject-style file (empty if none).

    A file not named pyproject.toml (given with `--config`) may instead hold the keys at
    its top level, like a `workerseed.toml`.
    """
    origin = _display(path)
    if not path.is_file():
        if required:
            raise ConfigError(f"{origin}: configuration file not found")
        return {}
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{origin}: cannot read configuration: {error}") from error
    tool = document.get("tool", {})
    table = tool.get("workerseed") if isinstance(tool, dict) else None
    section = "[tool.workerseed] "
    if table is None and path.name != "pyproject.toml" and "tool" not in document:
        table, section = document, ""
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ConfigError(f"{origin}: [tool.workerseed] must be a table")
    return _settings_from_table(table, origin, section, path.name)


def config_path(settings: Settings, root: Path) -> Path | None:
    """Return the configuration file `settings` read for the project at `root`, if any."""
    path = settings.config or root / "pyproject.toml"
    return path if path.is_file() else None


def for_project(settings: Settings, root: Path) -> Settings:
    """Return `settings` completed by the project's configuration (options win)."""
    config_path = settings.config or root / "pyproject.toml"
    configured = load_config(config_path, required=settings.config is not None)
    defaults = Settings()
    merged: dict[str, Any] = {}
    for item in fields(Settings):
        explicit = getattr(settings, item.name)
        if explicit != getattr(defaults, item.name) or item.name not in configured:
            merged[item.name] = explicit
        else:
            merged[item.name] = configured[item.name]
    if settings.torch_version is not None:
        merged["torch_version_source"] = settings.torch_version_source
    # List options accumulate: extend-select and ignore from both layers apply.
    for name in (
        "ignore",
        "extend_select",
        "extend_exclude",
        "per_file_ignores",
        "library_versions",
    ):
        if name in configured and getattr(settings, name):
            merged[name] = tuple(dict.fromkeys((*configured[name], *getattr(settings, name))))
    if settings.select is not None:
        # As in ruff, a selection on the command line starts afresh: the configuration's
        # ignore and extend-select belonged to the selection it replaces.
        merged["ignore"] = settings.ignore
        merged["extend_select"] = settings.extend_select
    return replace(Settings(), **merged)
