"""Classes made from a configuration's `target` string: `instantiate_from_config(cfg)`.

A project function that turns `cfg["target"]` into a class by import
(`getattr(importlib.import_module(module), name)`), or Hydra's `instantiate` with
`_target_:`, may make any class a configuration names. The candidates are the project's
Dataset classes that its own YAML and JSON files name as `target` or `_target_`.
"""

from __future__ import annotations

from .candidates import CandidateSource, DatasetsOf
from .config_files import config_files
from .facts import Kind, Value
from .memo import per_project
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef

_TARGET_KEYS = frozenset({"target", "_target_"})
_GETATTR = frozenset({"builtins.getattr"})
_IMPORT = frozenset({"importlib.import_module"})
#: Hydra's functions that make (or return) the object a config's `_target_` names.
_HYDRA = frozenset(
    {
        "hydra.utils.instantiate",
        "hydra.utils.call",
        "hydra.utils.get_class",
        "hydra.utils.get_method",
        "hydra.utils.get_object",
    }
)
#: How many project functions deep a call is followed to the import that finds the class.
_MAX_DEPTH = 3


def configured_datasets(project: Project, call: Value, where: FunctionRef) -> DatasetsOf | None:
    """Return the candidate Dataset classes if `call` makes a class a configuration names.

    `call` is `instantiate(cfg)` (a project function or Hydra's) or
    `get_class(cfg["target"])(...)`, where `get_class` imports the class by its name.
    None if it is no such call, or if no configuration of the project names a Dataset.
    """
    maker = _config_maker(project, call, where, 0)
    if maker is None:
        return None
    classes = named_datasets(project, maker[1])
    if not classes:
        return None
    return DatasetsOf(classes, True, sources=(CandidateSource("configs", *maker),))


def _config_maker(
    project: Project, call: Value, where: FunctionRef, depth: int
) -> tuple[str, str] | None:
    """Return the function that makes `call`'s object from a config, and the key it reads."""
    if call.kind is not Kind.CALL or call.base is None or depth > _MAX_DEPTH:
        return None
    if call.base.kind is Kind.CALL:  # `get_obj_from_str(config["target"])(**params)`
        lookup = call.base
        key = _target_read(lookup.args[0]) if lookup.args else None
        if lookup.base is not None and key is not None:
            for target in project.targets(lookup.base, where.module):
                if isinstance(target, FunctionRef) and _imports_by_name(project, target):
                    return target.function.name, key
        return _config_maker(project, lookup, where, depth + 1)
    for target in project.targets(call.base, where.module):
        if isinstance(target, ExternalRef) and target.qualname in _HYDRA:
            return target.qualname, "_target_"
        if isinstance(target, FunctionRef):
            for value in target.function.returns:
                for option in value.alternatives():
                    inner = _config_maker(project, option, target, depth + 1)
                    if inner is not None:
                        return target.function.name, inner[1]
    return None


def _target_read(value: Value) -> str | None:
    """Return the key `config["target"]` or `config.target` (or `_target_`) reads, if any."""
    if value.kind is Kind.ATTRIBUTE:
        key = value.name
    elif value.kind is Kind.SUBSCRIPT and len(value.args) == 1:
        key = value.args[0].name.strip("'\"") if value.args[0].kind is Kind.CONSTANT else ""
    else:
        return None
    return key if key in _TARGET_KEYS else None


def _imports_by_name(project: Project, function: FunctionRef) -> bool:
    """Return True if `function` returns `getattr(importlib.import_module(...), ...)`."""
    for value in function.function.returns:
        for option in value.alternatives():
            if (
                option.kind is Kind.CALL
                and option.base is not None
                and project.is_one_of(option.base, function.module, _GETATTR)
                and option.args
                and option.args[0].kind is Kind.CALL
                and option.args[0].base is not None
                and project.is_one_of(option.args[0].base, function.module, _IMPORT)
            ):
                return True
    return False


@per_project
def named_datasets(project: Project, key: str) -> tuple[ClassRef, ...]:
    """Return the project Dataset classes the project's configuration files name under `key`."""
    from .datasets import is_dataset  # datasets resolves through this module

    found: list[ClassRef] = []
    for content in config_files(project):
        for name in _target_strings(content, key):
            found.extend(
                ref
                for ref in project.resolve(name)
                if isinstance(ref, ClassRef) and is_dataset(project, ref)
            )
    return tuple(dict.fromkeys(found))


def _target_strings(content: object, target_key: str) -> list[str]:
    found: list[str] = []
    pending = [content]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if key == target_key and isinstance(value, str) and "." in value:
                    found.append(value)
                else:
                    pending.append(value)
        elif isinstance(current, list):
            pending.extend(current)
    return found
