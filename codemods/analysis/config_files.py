"""The project's own YAML, JSON and TOML configuration files, read to see what a key may hold.

Code that reads `config["TRAIN_TRANSFORMS"]` from a file named on the command line may get
any value one of the project's configuration files gives under that key: the candidates.
"""

from __future__ import annotations

import json
import os
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from .facts import Kind, Value
from .memo import per_project
from .project import Project

_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
_SKIPPED = frozenset({"node_modules", "site-packages", "venv", "env", "__pycache__"})
#: Configuration is small; larger files are data.
_MAX_BYTES = 256 * 1024
_MAX_FILES = 2000


def config_values(project: Project, keys: tuple[str, ...]) -> list[tuple[Path, str]]:
    """Return (file, value) for every configuration file giving a string under `keys`."""
    return [
        (path, value) for path, value in config_entries(project, keys) if isinstance(value, str)
    ]


def config_entries(project: Project, keys: tuple[str, ...]) -> list[tuple[Path, object]]:
    """Return (file, value) for every configuration file giving a value under `keys` (only
    a file whose text spells the last key can)."""
    found: list[tuple[Path, object]] = []
    documents = (
        config_documents_mentioning(project, keys[-1:]) if keys else config_documents(project)
    )
    for path, value in documents:
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            found.append((path, value))
    return found


def config_strings_under(project: Project, key: str) -> list[tuple[Path, str]]:
    """Return (file, value) for every string a configuration file gives under `key`, at any
    depth."""
    return [
        (path, text)
        for path, content in config_documents_mentioning(project, (key,))
        for text, _ in strings_under(content, key)
    ]


def strings_under(content: object, key: str) -> list[tuple[str, object]]:
    """Return each string parsed configuration `content` gives under `key`, at any depth,
    with the key of the mapping that holds it (None at the top)."""
    found: list[tuple[str, object]] = []
    pending: list[tuple[object, object]] = [(content, None)]
    while pending:
        current, held_by = pending.pop()
        if isinstance(current, dict):
            for name, value in current.items():
                if name == key and isinstance(value, str):
                    found.append((value, held_by))
                else:
                    pending.append((value, name))
        elif isinstance(current, list):
            pending.extend((item, held_by) for item in current)
    return found


def config_files(project: Project) -> list[object]:
    """Return the content of every configuration file of the project that parses."""
    return [content for _, content in config_documents(project)]


@per_project
def config_documents(project: Project) -> tuple[tuple[Path, object], ...]:
    """Return (file, content) for every configuration file of the project that parses,
    once per project: a monorepo has more files than `_parsed` keeps."""
    parsed = ((path, _parsed(path, mtime_ns)) for path, mtime_ns in _versions(project))
    return tuple((path, content) for path, content in parsed if content is not None)


@per_project
def config_documents_mentioning(
    project: Project, words: tuple[str, ...]
) -> tuple[tuple[Path, object], ...]:
    """Return (file, content) for the configuration files whose text spells one of `words`,
    parsing only those, once per project and question: most projects have many files, and
    few are about the question."""
    found: list[tuple[Path, object]] = []
    for path, mtime_ns in _versions(project):
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        if any(word.encode() in raw for word in words):
            content = _parsed(path, mtime_ns)
            if content is not None:
                found.append((path, content))
    return tuple(found)


@per_project
def _versions(project: Project) -> tuple[tuple[Path, int], ...]:
    """Return each configuration file with its mtime, walking the tree once per project."""
    return tuple((path, stat.st_mtime_ns) for path, stat in _listing(project.root))


def config_stamps(root: Path) -> tuple[tuple[str, int, int, int, int], ...]:
    """Return what `stat` says of every configuration file: what a cached run depends on.

    Size, mtime, ctime and inode, as for the project's Python files (docs/caching.md).
    """
    stamps: list[tuple[str, int, int, int, int]] = []
    for path, stat in _listing(root):
        relative = path.relative_to(root).as_posix()
        stamps.append((relative, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino))
    return tuple(stamps)


def _listing(root: Path) -> list[tuple[Path, os.stat_result]]:
    found: list[tuple[Path, os.stat_result]] = []
    for directory, folders, names in os.walk(root):
        folders[:] = sorted(
            folder for folder in folders if not folder.startswith(".") and folder not in _SKIPPED
        )
        for name in sorted(names):
            if name.endswith(_SUFFIXES):
                path = Path(directory, name)
                stat = path.stat()
                if stat.st_size <= _MAX_BYTES:
                    found.append((path, stat))
        if len(found) >= _MAX_FILES:
            break
    return found[:_MAX_FILES]


@lru_cache(maxsize=512)
def _parsed(path: Path, mtime_ns: int) -> object:
    """Return a configuration file's content (None if it does not parse); cached per version."""
    del mtime_ns  # part of the cache key only
    import yaml  # only when a configuration file is read: it costs every run's start-up

    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            return json.loads(text)
        if path.suffix == ".toml":
            return tomllib.loads(text)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    fast, plain = _data_loaders(yaml)
    try:
        return yaml.load(text, Loader=fast)
    except yaml.YAMLError:
        pass
    try:
        # LibYAML's parser and PyYAML's own differ at the edges: what one rejects, the
        # other is asked too, so a file reads as it always did.
        return None if plain is fast else yaml.load(text, Loader=plain)
    except yaml.YAMLError:
        return None


@lru_cache(maxsize=1)
def _data_loaders(yaml: Any) -> tuple[Any, Any]:
    """Return safe YAML loaders, LibYAML's (when PyYAML has it: several times faster) and
    PyYAML's own, that read a tagged node (`!!python/tuple [512, 512]`, `!!python/float
    1e-4`, `!Custom {...}`) as the plain scalar, list or mapping it is written as: the
    file's data, with nothing imported or constructed."""

    def plain(loader: Any, _suffix: str, node: Any) -> object:
        if isinstance(node, yaml.ScalarNode):
            return loader.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_mapping(node, deep=True)

    def data_loader(base: Any) -> Any:
        loader: Any = type("DataLoader", (base,), {})
        loader.add_multi_constructor("tag:yaml.org,2002:python/", plain)
        loader.add_multi_constructor("!", plain)
        return loader

    python = data_loader(yaml.SafeLoader)
    native = getattr(yaml, "CSafeLoader", None)
    return (python if native is None else data_loader(native)), python


def node_key(config: Value) -> str | None:
    """Return the node a config argument reads: `cfg.trainer`, `cfg["trainer"]`."""
    if config.kind is Kind.ATTRIBUTE:
        return config.name
    if config.kind is Kind.SUBSCRIPT and len(config.args) == 1:
        key = config.args[0]
        if key.kind is Kind.CONSTANT:
            return key.name.strip("'\"") or None
    return None


def node_path(config: Value) -> tuple[str, ...] | None:
    """Return the keys a read of a config node follows: `cfg.trainer.kwargs` (or
    `cfg["trainer"]["kwargs"]`) gives ("trainer", "kwargs"); None for anything but attribute
    and constant-key reads of a name."""
    keys: list[str] = []
    current = config
    while current.kind in (Kind.ATTRIBUTE, Kind.SUBSCRIPT) and current.base is not None:
        key = node_key(current)
        if key is None:
            return None
        keys.append(key)
        current = current.base
    if not keys or current.kind not in (Kind.NAME, Kind.PARAM):
        return None
    return tuple(reversed(keys))
