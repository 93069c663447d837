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

    `call` is `instantiate(cfg)` (a project function or Hydra's) or `get_class(name)(...)`.
    None if it is no such call, or if no configuration of the project names a Dataset.
    """
    maker = _config_maker(project, call, where, 0)
    if maker is None:
        return None
    classes = named_datasets(project)
    if not classes:
        return None
    return DatasetsOf(classes, True, sources=(CandidateSource("configs", maker),))


def _config_maker(project: Project, call: Value, where: FunctionRef, depth: int) -> str | None:
    """Return the name of the function that makes `call`'s object by import, if it does."""
    if call.kind is not Kind.CALL or call.base is None or depth > _MAX_DEPTH:
        return None
    if call.base.kind is Kind.CALL:  # `get_obj_from_str(name)(**params)`
        return _config_maker(project, call.base, where, depth + 1)
    for target in project.targets(call.base, where.module):
        if isinstance(target, ExternalRef) and target.qualname in _HYDRA:
            return target.qualname
        if isinstance(target, FunctionRef) and any(
            _imports_by_name(project, option, target, depth)
            for value in target.function.returns
            for option in value.alternatives()
        ):
            return target.function.name
    return None


def _imports_by_name(project: Project, value: Value, where: FunctionRef, depth: int) -> bool:
    """Return True if `value` is `getattr(importlib.import_module(...), ...)` or makes one."""
    if value.kind is not Kind.CALL or value.base is None:
        return False
    if project.is_one_of(value.base, where.module, _GETATTR) and value.args:
        module = value.args[0]
        return (
            module.kind is Kind.CALL
            and module.base is not None
            and project.is_one_of(module.base, where.module, _IMPORT)
        )
    return _config_maker(project, value, where, depth + 1) is not None


@per_project
def named_datasets(project: Project) -> tuple[ClassRef, ...]:
    """Return the project Dataset classes the project's configuration files name as a target."""
    from .datasets import is_dataset  # datasets resolves through this module

    found: list[ClassRef] = []
    for content in config_files(project):
        for name in _target_strings(content):
            found.extend(
                ref
                for ref in project.resolve(name)
                if isinstance(ref, ClassRef) and is_dataset(project, ref)
            )
    return tuple(dict.fromkeys(found))


def _target_strings(content: object) -> list[str]:
    found: list[str] = []
    pending = [content]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if key in _TARGET_KEYS and isinstance(value, str) and "." in value:
                    found.append(value)
                else:
                    pending.append(value)
        elif isinstance(current, list):
            pending.extend(current)
    return found
