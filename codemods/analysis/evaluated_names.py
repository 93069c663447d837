"""Classes named by a string that `eval` turns into a class at run time.

`eval("datasets." + cfg.name)(...)` calls a class that the project package `datasets` binds
(defines, imports or re-exports); `eval(cfg.name)(...)` one bound in the namespace of the
module calling `eval`. Which one is known only at run time: every class bound there is a
candidate. Only the string literal written in the call is read; an `eval` whose text cannot
be tied to a project module (a third-party package, a local variable, a literal that names
no module) tells nothing.
"""

from __future__ import annotations

import ast

from .config_files import config_values, node_path
from .facts import Kind, ModuleFacts, Value, literal_key
from .project import Project
from .refs import ClassRef, FunctionRef

_EVAL = frozenset({"builtins.eval"})

#: How many `from module import *` steps a namespace is followed through.
_MAX_STAR_DEPTH = 4


def evaluated_classes(
    project: Project, call: Value, where: FunctionRef
) -> tuple[str, tuple[ClassRef, ...]] | None:
    """Return the module whose namespace `eval(text)` (seen in `where`) looks a class up in,
    and the project classes bound there, if `call` is such an `eval`; else None.

    The text is a string literal naming a module followed by a part known only at run time
    (`"datasets." + name`), or a value known only at run time (`cfg.name`): then the names
    are those of the calling module, where `eval` runs.
    """
    if (
        call.base is None
        or len(call.args) != 1
        or call.keywords
        or not project.is_one_of(call.base, where.module, _EVAL)
    ):
        return None  # not `eval`, or evaluated in namespaces passed to it
    namespace = _namespace(project, call.args[0], where)
    if namespace is None:
        return None
    classes = _bound_classes(project, namespace, 0, set())
    if not classes:
        return None  # nothing of the project's: what the string names is unknown
    text = call.args[0]
    setting = text.args[1] if text.kind is Kind.BINOP else text
    configured = _configured_names(project, setting, where.module)
    if configured:
        # `eval("dataset." + config.DATASET.TEST_DATASET)`: the names the project's
        # configuration files give that setting, when each is a class bound there.
        table = _bound_by_name(project, namespace, 0, set())
        if all(name in table for name in configured):
            classes = [ref for name in configured for ref in table[name]]
    return namespace.module, tuple(dict.fromkeys(classes))


def _configured_names(project: Project, setting: Value, module: ModuleFacts) -> list[str]:
    """Return the strings the project's configuration files give the setting `setting`
    reads (`config.DATASET.TEST_DATASET`, `cfg["dataset"]["name"]`), if it reads one."""
    path = node_path(setting) or _path_in_variable(project, setting, module)
    if path is None:
        return []
    return sorted({value for _, value in config_values(project, path)})


def _path_in_variable(
    project: Project, setting: Value, module: ModuleFacts
) -> tuple[str, ...] | None:
    """Return the keys read below a module-level variable of the project: the summary of
    `config.DATASET.TEST_DATASET`, with `config` imported from `core.config`, is the one
    dotted name `core.config.config.DATASET.TEST_DATASET`."""
    if setting.kind is not Kind.NAME or len(setting.qualnames) != 1:
        return None
    parts = setting.qualnames[0].split(".")
    for end in range(len(parts) - 2, 0, -1):
        owner = project.module_named(".".join(parts[:end]), module)
        if owner is not None and owner.binding(parts[end]):
            return tuple(parts[end + 1 :])
    return None


def _bound_by_name(
    project: Project, module: ModuleFacts, depth: int, seen: set[str]
) -> dict[str, list[ClassRef]]:
    """Return the project classes bound at the top level of `module` by the name each is
    bound to there (`from .coco import COCODataset as coco` binds `coco`)."""
    if module.module in seen or depth > _MAX_STAR_DEPTH:
        return {}
    seen.add(module.module)
    found: dict[str, list[ClassRef]] = {}
    for star in module.star_imports:
        other = project.module_named(star, module)
        if other is not None:
            found.update(_bound_by_name(project, other, depth + 1, seen))
    for cls in module.classes:
        if "." not in cls.qualname:
            found[cls.qualname] = [ClassRef.of(module, cls)]
    for name, values in module.bindings:
        targets = [
            target
            for value in values
            for target in project.targets(value, module)
            if isinstance(target, ClassRef)
        ]
        if targets:
            found[name] = targets
    return found


def _namespace(project: Project, text: Value, where: FunctionRef) -> ModuleFacts | None:
    """Return the project module in whose namespace the name `text` evaluates to is bound."""
    if text.kind in (Kind.CONSTANT, Kind.INT, Kind.FUNCTION, Kind.DICT, Kind.SEQUENCE):
        return None  # a literal (or no string at all): nothing looked up at run time
    if text.kind is not Kind.BINOP:
        return where.module
    if text.name != "+" or len(text.args) != 2:
        return None
    prefix, rest = text.args
    if rest.kind in (Kind.CONSTANT, Kind.INT):
        return None
    dotted = _module_prefix(prefix)
    if dotted is None:
        return None
    return _module_of(project, dotted, where)


def _module_prefix(prefix: Value) -> list[str] | None:
    """Return the dotted module path a literal like `"pkg.sub."` spells, if it is one."""
    key = literal_key(prefix)
    if prefix.kind is not Kind.CONSTANT or key is None:
        return None
    try:
        text = ast.literal_eval(key)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(text, str) or not text.endswith("."):
        return None
    parts = text[:-1].split(".")
    return parts if all(part.isidentifier() for part in parts) else None


def _module_of(project: Project, parts: list[str], where: FunctionRef) -> ModuleFacts | None:
    """Return the project module that `parts` names as seen from code in `where`."""
    function = where.function
    first = parts[0]
    if first in function.params or any(a.target == first for a in function.assignments):
        return None  # a local name: what it holds is not followed here
    found: list[ModuleFacts] = []
    for value in where.module.binding(first):
        if value.kind is not Kind.NAME:
            continue
        for qualname in value.qualnames:
            module = project.module_named(".".join([qualname, *parts[1:]]), where.module)
            if module is not None:
                found.append(module)
    paths = {module.path for module in found}
    return found[0] if len(paths) == 1 else None


def _bound_classes(
    project: Project, module: ModuleFacts, depth: int, seen: set[str]
) -> list[ClassRef]:
    """Return the project classes bound at the top level of `module`, star imports included."""
    if module.module in seen or depth > _MAX_STAR_DEPTH:
        return []
    seen.add(module.module)
    found = [ClassRef.of(module, cls) for cls in module.classes if "." not in cls.qualname]
    # What the names are bound to, not the dotted names: `from .sub import Sub as sub` binds
    # `pkg.sub` to the class, though the submodule has that dotted name too.
    for _, values in module.bindings:
        for value in values:
            found.extend(
                target for target in project.targets(value, module) if isinstance(target, ClassRef)
            )
    for star in module.star_imports:
        other = project.module_named(star, module)
        if other is not None:
            found.extend(_bound_classes(project, other, depth + 1, seen))
    return found
