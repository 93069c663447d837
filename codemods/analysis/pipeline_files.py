"""Pipelines deserialised from a file (`albumentations.load(path)`, `albumentations.from_dict`).

A loaded pipeline is a `Compose` of transforms the code does not show. When the file it
reads is named by a literal (or a module-level constant) and sits in the project as JSON, the
transforms are read from it; otherwise whether it draws random numbers is unknown, and a
finding about it rests on the assumption that it does.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import catalog
from .config_files import config_entries, config_values
from .facts import Kind, Value, string_literal
from .pipeline_libraries import Library, pipeline_module
from .pipeline_randomness import DETERMINISTIC_TRANSFORMS
from .project import Project
from .refs import FunctionRef, VariableRef

#: albumentations functions that build a pipeline from its serialised form.
DESERIALISERS = frozenset(
    {
        "albumentations.load",
        "albumentations.from_dict",
        "albumentations.core.serialization.load",
        "albumentations.core.serialization.from_dict",
    }
)
#: Compositions that apply every child they hold (the others choose among them: a draw).
_APPLY_ALL = frozenset({"Compose", "Sequential"})


class Drawing(enum.Enum):
    """Whether a deserialised pipeline draws random numbers when applied."""

    DRAWS = "draws"
    FIXED = "fixed"
    UNKNOWN = "unknown"


def deserialises(project: Project, call: Value, where: FunctionRef) -> bool:
    """Return True if `call` builds an albumentations pipeline from its serialised form."""
    if call.kind is not Kind.CALL or call.base is None:
        return False
    names = project.qualnames(call.base, where.module)
    return bool(names) and names <= DESERIALISERS


def looked_up_library(project: Project, call: Value, where: FunctionRef) -> Library | None:
    """Return the augmentation library `call` makes an object of by a class name known only
    at run time: mmcv's `obj_from_dict(cfg, A)` with `A` the library's module (the class
    a config's `type` names)."""
    if call.kind is not Kind.CALL or call.base is None:
        return None
    if not project.is_one_of(call.base, where.module, catalog.OBJ_FROM_DICT):
        return None
    module = call.keyword("parent") or (call.args[1] if len(call.args) > 1 else None)
    if module is None:
        return None
    libraries = {
        library
        for name in project.qualnames(module, where.module)
        if (library := pipeline_module(name)) is not None
    }
    return libraries.pop() if len(libraries) == 1 else None


@dataclass(frozen=True)
class LoadedPipeline:
    """Whether a deserialised pipeline draws, and what a finding about it must say."""

    drawing: Drawing
    #: How the finding knows (or what it assumes): the candidate configuration files.
    note: str | None = None


def loaded_pipeline(project: Project, call: Value, where: FunctionRef) -> LoadedPipeline:
    """Return whether the pipeline `albumentations.load` or `from_dict` builds draws.

    `from_dict(config["aug"])` of a mapping read from configuration may get any mapping
    one of the project's YAML or JSON configuration files gives under those keys: none of
    them drawing means no draw; some drawing gives the files that do.
    """
    if _deserialiser(project, call, where) == "from_dict":
        return _configured_mapping(project, call)
    drawing = loaded_pipeline_draws(project, call, where)
    return LoadedPipeline(drawing, loaded_pipeline_note(call, drawing))


def _deserialiser(project: Project, call: Value, where: FunctionRef) -> str:
    assert call.base is not None
    return min(project.qualnames(call.base, where.module)).rpartition(".")[2]


def _configured_mapping(project: Project, call: Value) -> LoadedPipeline:
    """Return what `from_dict(config["a"]["b"])` builds, from the project's configuration."""
    argument = call.keyword("transform_dict") or (call.args[0] if call.args else None)
    keys = _config_keys(argument) if argument is not None else None
    found = config_entries(project, keys) if keys is not None else []
    unknown = LoadedPipeline(
        Drawing.UNKNOWN,
        "this assumes the pipeline `from_dict` builds has random transforms: the mapping it "
        "reads is not known before run time",
    )
    if keys is None or not found:
        return unknown
    drawing = {path: _serialised_draws(value) for path, value in found}
    if set(drawing.values()) == {Drawing.FIXED}:
        return LoadedPipeline(Drawing.FIXED)
    lookup = "".join(f"[{key!r}]" for key in keys)
    random = [_shown(project, path) for path, draws in drawing.items() if draws is Drawing.DRAWS]
    if not random:
        return unknown
    shown = ", ".join(random[:_MAX_FILES_NAMED])
    if len(random) > _MAX_FILES_NAMED:
        shown += f" and {len(random) - _MAX_FILES_NAMED} more"
    if len(random) == len(drawing):
        return LoadedPipeline(
            Drawing.DRAWS,
            f"the mapping is chosen by configuration (`{lookup}`), and every one the "
            f"project's configuration files give there has random transforms ({shown})",
        )
    return LoadedPipeline(
        Drawing.UNKNOWN,
        f"the mapping is chosen by configuration (`{lookup}`): this assumes a run with "
        f"random transforms there, as {shown} gives",
    )


def _shown(project: Project, path: Path) -> str:
    """Return `path` as messages show it: relative to the project root."""
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return path.as_posix()


#: How many configuration files a message names.
_MAX_FILES_NAMED = 3


def loaded_pipeline_draws(project: Project, call: Value, where: FunctionRef) -> Drawing:
    """Return whether the pipeline `albumentations.load(path)` reads draws random numbers.

    Only JSON files the project holds are read: named by a literal or a module-level
    constant, or given under the looked-up keys by the project's configuration files. YAML
    pipelines, paths made at run time and `from_dict` (see `loaded_pipeline`) are unknown,
    and so is a set of candidate files of which some draw and some do not.
    """
    if _deserialiser(project, call, where) != "load":
        return Drawing.UNKNOWN
    data_format = call.keyword("data_format") or (call.args[1] if len(call.args) > 1 else None)
    if data_format is not None and string_literal(data_format) != "json":
        return Drawing.UNKNOWN
    argument = call.keyword("filepath_or_buffer") or call.keyword("filepath")
    if argument is None and call.args:
        argument = call.args[0]
    paths = _paths(project, argument, where) if argument is not None else None
    if not paths:
        return Drawing.UNKNOWN
    drawing = {_file_draws(path) for path in paths}
    return drawing.pop() if len(drawing) == 1 else Drawing.UNKNOWN


def loaded_pipeline_note(call: Value, drawing: Drawing) -> str | None:
    """Return what a finding about a loaded pipeline must say about how it knows it draws."""
    if drawing is Drawing.UNKNOWN:
        return (
            "this assumes the pipeline `load` reads has random transforms: the file it reads "
            "is not known before run time"
        )
    argument = call.keyword("filepath_or_buffer") or call.keyword("filepath")
    if argument is None and call.args:
        argument = call.args[0]
    keys = _config_keys(argument) if argument is not None else None
    if drawing is Drawing.DRAWS and keys is not None:
        lookup = "".join(f"[{key!r}]" for key in keys)
        return (
            f"the file is chosen by configuration (`{lookup}`), and every file the "
            "project's configuration files name there has random transforms"
        )
    return None


def _file_draws(path: Path) -> Drawing:
    try:
        serialised = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return Drawing.UNKNOWN
    return _serialised_draws(serialised)


def _serialised_draws(serialised: object) -> Drawing:
    """Return whether a serialised pipeline (`{"transform": {...}}`) draws when applied."""
    transform = serialised.get("transform") if isinstance(serialised, dict) else None
    if not isinstance(transform, dict):
        return Drawing.UNKNOWN
    return Drawing.DRAWS if _draws(transform) else Drawing.FIXED


def _paths(project: Project, argument: Value, where: FunctionRef) -> list[Path] | None:
    """Return the project files the path argument may name; None when one cannot be found.

    A literal or a module-level constant names one file. A lookup under literal keys in
    loaded configuration (`config["TRAIN_TRANSFORMS"]`) may name any file that one of the
    project's YAML or JSON configuration files gives under those keys.
    """
    keys = _config_keys(argument)
    if keys is None:
        path = _path(project, argument, where)
        return [path] if path is not None else None
    found: list[Path] = []
    for config, value in config_values(project, keys):
        path = _existing(value, (where.path.parent, project.root, config.parent))
        if path is None:
            return None
        found.append(path)
    return found or None


def _config_keys(argument: Value) -> tuple[str, ...] | None:
    """Return the literal keys of `config["a"]["b"]` (outermost first), or None."""
    keys: list[str] = []
    value = argument
    while value.kind is Kind.SUBSCRIPT and value.base is not None and len(value.args) == 1:
        key = string_literal(value.args[0])
        if key is None:
            return None
        keys.insert(0, key)
        value = value.base
    return tuple(keys) if keys else None


def _path(project: Project, argument: Value, where: FunctionRef) -> Path | None:
    """Return the project file a literal or module-level constant path names, if it exists."""
    text = string_literal(argument)
    if text is None and argument.kind is Kind.NAME:
        values = [
            value
            for qualname in argument.qualnames
            for target in project.resolve(qualname, where.module)
            if isinstance(target, VariableRef)
            for value in target.values
        ]
        texts = {string_literal(value) for value in values}
        text = texts.pop() if len(texts) == 1 else None
    return _existing(text, (where.path.parent, project.root)) if text else None


def _existing(text: str, folders: tuple[Path, ...]) -> Path | None:
    """Return the one file a relative path names from any of `folders`, if there is one.

    A relative path is read from the working directory, which the code does not name: the
    script's own folder, the project root or the configuration's folder is where it is run.
    """
    found = {candidate.resolve() for folder in folders if (candidate := folder / text).is_file()}
    return found.pop() if len(found) == 1 else None


def _draws(transform: dict[str, Any]) -> bool:
    """Return True if a serialised transform (or any transform it holds) draws when applied."""
    name = str(transform.get("__class_fullname__", "")).rpartition(".")[2]
    if name in _APPLY_ALL:
        children = transform.get("transforms")
        if not isinstance(children, list):
            return True
        # A composition is applied every time unless it says otherwise.
        return not _certain(transform.get("p", 1.0), transform) or any(
            not isinstance(child, dict) or _draws(child) for child in children
        )
    if name not in DETERMINISTIC_TRANSFORMS:
        return True
    return not _certain(transform.get("p"), transform)


def _certain(probability: object, transform: dict[str, Any]) -> bool:
    """Return True for a transform applied every time (`p` of 1, or `always_apply`)."""
    if transform.get("always_apply") is True:
        return True
    return isinstance(probability, int | float) and probability >= 1
