"""Pipelines deserialised from a file (`albumentations.load(path)`, `albumentations.from_dict`).

A loaded pipeline is a `Compose` of transforms the code does not show. When the file it
reads is named by a literal (or a module-level constant) and sits in the project as JSON, the
transforms are read from it; otherwise whether it draws random numbers is unknown, and a
finding about it rests on the assumption that it does.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

from .facts import Kind, Value
from .pipeline_randomness import DETERMINISTIC_TRANSFORMS
from .project import Project
from .refs import FunctionRef, VariableRef
from .rng_draws import _string

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


def loaded_pipeline_draws(project: Project, call: Value, where: FunctionRef) -> Drawing:
    """Return whether the pipeline `albumentations.load(path)` reads draws random numbers.

    Only a JSON file the project holds, named by a literal or a module-level constant, is
    read; YAML, paths made at run time and `from_dict` of a computed dict are unknown.
    """
    assert call.base is not None
    if min(project.qualnames(call.base, where.module)).rpartition(".")[2] != "load":
        return Drawing.UNKNOWN
    data_format = call.keyword("data_format") or (call.args[1] if len(call.args) > 1 else None)
    if data_format is not None and _string(data_format) != "json":
        return Drawing.UNKNOWN
    argument = call.keyword("filepath_or_buffer") or call.keyword("filepath")
    if argument is None and call.args:
        argument = call.args[0]
    path = _path(project, argument, where) if argument is not None else None
    if path is None:
        return Drawing.UNKNOWN
    try:
        serialised = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return Drawing.UNKNOWN
    transform = serialised.get("transform") if isinstance(serialised, dict) else None
    if not isinstance(transform, dict):
        return Drawing.UNKNOWN
    return Drawing.DRAWS if _draws(transform) else Drawing.FIXED


def _path(project: Project, argument: Value, where: FunctionRef) -> Path | None:
    """Return the project file a literal or module-level constant path names, if it exists."""
    text = _string(argument)
    if text is None and argument.kind is Kind.NAME:
        values = [
            value
            for qualname in argument.qualnames
            for target in project.resolve(qualname, where.module)
            if isinstance(target, VariableRef)
            for value in target.values
        ]
        texts = {_string(value) for value in values}
        text = texts.pop() if len(texts) == 1 else None
    if not text:
        return None
    # A relative path is read from the working directory, which the code does not name:
    # the script's own folder and the project root are where it is run from.
    found = {
        candidate.resolve()
        for folder in (where.path.parent, project.root)
        if (candidate := folder / text).is_file()
    }
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
