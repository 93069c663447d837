"""What a `**settings` splat of configuration data cannot pass: a Python object.

`DataLoader(dataset, **config["loader"])` spreads a section of the run's configuration, read
from a YAML or JSON file the analysis does not know. Such a file holds data (numbers,
strings, lists), never a function or a `torch.Generator`: the section passes a
`worker_init_fn` only if project code puts one there, or turns a string of the file into one,
and code that does spells the key. So when neither the project's code nor its configuration
files spell the key, the splat does not pass it.
"""

from __future__ import annotations

from .config_files import config_documents_mentioning
from .facts import Kind, Value
from .module_lookups import copied
from .project import Project
from .refs import ExternalRef, FunctionRef

#: DataLoader parameters that take a Python object no configuration file can hold.
OBJECT_PARAMETERS = frozenset({"worker_init_fn", "generator"})


def settings_cannot_pass(project: Project, function: FunctionRef, splat: Value, name: str) -> bool:
    """Return True if `**splat` (in `function`), a section of configuration settings
    (`config["loader"]`, `cfg.data.loader`), cannot pass object-valued parameter `name`."""
    if name not in OBJECT_PARAMETERS or not _is_settings_section(project, function, splat):
        return False
    wanted = frozenset({name})
    if any(module.spells(wanted) for module in project.modules_mentioning(name)):
        return False  # some code spells the key: it may store an object under it
    return not any(_has_key(content, name) for content in _mentioning(project, name))


def left_at_default(project: Project, function: FunctionRef, param: str) -> str | None:
    """Return the literal default of `param` when no call of `function` can pass it.

    mmseg's `build_dataloader(dataset, **train_loader_cfg)` spreads settings gathered from
    its configs: no call names `persistent_workers`, and no code outside the function's own
    module, nor any configuration file, spells the key, so no spread carries it either.
    None when some call may pass it or it has no literal default.
    """
    facts = function.function
    default = facts.default_of(param)
    if default is None or param not in facts.params:
        return None
    wanted = frozenset({param})
    if any(
        module is not function.module and module.spells(wanted)
        for module in project.modules_mentioning(param)
    ):
        return None
    if any(_has_key(content, param) for content in _mentioning(project, param)):
        return None
    position = facts.params.index(param)
    for site in project.callers(function):
        args = site.call.args
        if site.call.keyword(param) is not None or any(arg.kind is Kind.STARRED for arg in args):
            return None
        if position < facts.positional_count and len(args) > position:
            return None
    return default


def _is_settings_section(project: Project, function: FunctionRef, value: Value) -> bool:
    """Return True for constant-key lookups (`cfg["loader"]`, `cfg.loader`) in an object of
    the project's code: a parameter, `self`, a project variable, or a copy of one."""
    current = value
    steps = 0
    while current.kind in (Kind.ATTRIBUTE, Kind.SUBSCRIPT) and current.base is not None:
        if current.kind is Kind.SUBSCRIPT and (
            len(current.args) != 1 or current.args[0].kind is not Kind.CONSTANT
        ):
            return False
        current = current.base
        steps += 1
    return steps > 0 and _is_project_object(project, function, current)


def _is_project_object(project: Project, function: FunctionRef, value: Value) -> bool:
    original = copied(project, value, function)
    if original is not None:
        return _is_project_object(project, function, original)
    if value.kind in (Kind.PARAM, Kind.SELF):
        return True
    if value.kind is Kind.NAME:
        # A module of a library may hold objects under any key: only the project's own names.
        targets = project.targets(value, function.module)
        return bool(targets) and not any(isinstance(target, ExternalRef) for target in targets)
    return False


def _mentioning(project: Project, key: str) -> list[object]:
    """Return the content of the configuration files whose text spells `key` (only those can
    hold it; most projects have many files, and parsing them all costs)."""
    return [content for _, content in config_documents_mentioning(project, (key,))]


def _has_key(content: object, name: str) -> bool:
    """Return True if parsed configuration `content` has key `name` at any depth."""
    if isinstance(content, dict):
        return name in content or any(_has_key(item, name) for item in content.values())
    if isinstance(content, list):
        return any(_has_key(item, name) for item in content)
    return False
