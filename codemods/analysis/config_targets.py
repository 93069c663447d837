"""Classes made from a configuration's `target` string: `instantiate_from_config(cfg)`.

A project function that turns `cfg["target"]` into a class by import
(`getattr(importlib.import_module(module), name)`), or Hydra's `instantiate` with
`_target_:`, may make any class a configuration names. The candidates are the project's
Dataset classes that its own YAML and JSON files name as `target` or `_target_`.

`config_nodes()` and `structured_targets()` say what a config node (`cfg.trainer`) may hold:
the options the project's files give it, and the `_target_` Hydra makes from it;
`config_makers()` which functions make a project class from such a node.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .candidates import CandidateSource, DatasetsOf
from .config_files import config_documents, config_files, node_key, strings_under
from .facts import Kind, ModuleFacts, Value, spelled
from .imported_modules import module_attribute_lookup
from .memo import per_project
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef

_TARGET_KEYS = frozenset({"target", "_target_"})
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
_INSTANTIATE = frozenset({"hydra.utils.instantiate"})
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
    passed = call.args[0] if call.args else None
    if passed is not None and passed.kind is Kind.PARAM:
        # `self.transform = instantiate_from_config(transform_config)`: a node the configs
        # give under that parameter's name (`transform_config: {target: ...}`).
        held = named_classes(project, maker[1], passed.name)
        if held:
            return DatasetsOf(held, True, sources=(CandidateSource("configs", *maker),))
    classes = named_datasets(project, maker[1])
    if not classes:
        return None
    made = _as_construction(call)
    return DatasetsOf(
        classes,
        True,
        made=tuple((ref, (made, where)) for ref in classes),
        sources=(CandidateSource("configs", *maker),),
    )


def _as_construction(call: Value) -> Value:
    """Return `instantiate(cfg.dataset, split="test")` as the construction of the class the
    configuration names: its keywords are the constructor's, and the rest may come from
    the configuration (`**cfg.dataset`)."""
    config = call.args[0] if call.args else Value(Kind.UNKNOWN)
    keywords = tuple((key, value) for key, value in call.keywords if key is not None)
    return replace(call, args=(), keywords=(*keywords, (None, config)))


def _config_maker(
    project: Project, call: Value, where: FunctionRef, depth: int
) -> tuple[str, str] | None:
    """Return the function that makes `call`'s object from a config, and the key it reads."""
    if call.kind is not Kind.CALL or call.base is None or depth > _MAX_DEPTH:
        return None
    for option in call.base.alternatives():
        key = _imported_by_dotted_name(project, option, where)
        if key is not None:
            return where.function.name, key
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


def _imported_by_dotted_name(project: Project, value: Value, where: FunctionRef) -> str | None:
    """Return the key of `module, name = config["target"].rsplit(".", 1)` when `value` is
    `getattr(importlib.import_module(module), name)`: the class a config names by its path."""
    imported = module_attribute_lookup(project, value, where.module)
    if imported is None or not imported.args:
        return None
    names = {
        option.name
        for part in (imported.args[0], value.args[1])
        for option in part.alternatives()
        if option.kind is Kind.UNKNOWN
    }
    for name, _, _, unpacked in where.function.unpacked:
        split = unpacked.base
        if name in names and split is not None and split.kind is Kind.ATTRIBUTE:
            key = _target_read(split.base) if split.base is not None else None
            if key is not None and split.name in ("rsplit", "split"):
                return key
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
    return any(
        module_attribute_lookup(project, option, function.module) is not None
        for value in function.function.returns
        for option in value.alternatives()
    )


@per_project
def named_datasets(project: Project, key: str, under: str | None = None) -> tuple[ClassRef, ...]:
    """Return the project Dataset classes the project's configuration files name under `key`.

    With `under`, only those of a node held under that key (`test: {target: ...}`).
    """
    from .datasets import is_dataset  # datasets resolves through this module

    return tuple(ref for ref in named_classes(project, key, under) if is_dataset(project, ref))


@per_project
def named_classes(project: Project, key: str, under: str | None = None) -> tuple[ClassRef, ...]:
    """Return the project classes the project's configuration files name under `key` (with
    `under`, in nodes held under that key)."""
    found: list[ClassRef] = []
    for content in config_files(project):
        for name in _target_strings(content, key, under):
            found.extend(ref for ref in project.resolve(name) if isinstance(ref, ClassRef))
    return tuple(dict.fromkeys(found))


def read_under_key(project: Project, elements: DatasetsOf, key: Value) -> DatasetsOf:
    """Return what `container[key]` holds when `elements` are what `container` holds.

    A mapping of datasets made from the configs' nodes (`{k: instantiate(cfgs[k]) for k in
    cfgs}`), read under a literal key, holds only the datasets the configs name under that
    key: `datasets["test"]` is none of the `train:` and `validation:` targets. When no
    config names one there, what it holds is unknown.
    """
    configs = [source for source in elements.sources if source.kind == "configs"]
    if not configs or key.kind is not Kind.CONSTANT or not key.name:
        return elements
    under = key.name.strip("'\"")
    configured = {ref for source in configs for ref in named_datasets(project, source.parameter)}
    keyed = {ref for source in configs for ref in named_datasets(project, source.parameter, under)}
    kept = tuple(ref for ref in elements.classes if ref not in configured or ref in keyed)
    if not kept:
        return DatasetsOf((), False)
    return replace(
        elements,
        classes=kept,
        made=tuple((ref, site) for ref, site in elements.made if ref in kept),
    )


def _target_strings(content: object, target_key: str, under: str | None = None) -> list[str]:
    """Return the dotted names under `target_key`; with `under`, only in nodes held there."""
    return [
        text
        for text, held_by in strings_under(content, target_key)
        if "." in text and (under is None or held_by == under)
    ]


@dataclass(frozen=True)
class ConfigNode:
    """The options one configuration file gives a config node (`trainer`), and its target."""

    path: Path
    #: The node's scalar options, as the file writes them (`("strategy", "ddp")`).
    options: tuple[tuple[str, object], ...]
    #: The `_target_` the node names itself or through its `defaults` list, if any.
    target: str | None
    #: The options that are nodes Hydra makes an object from, with the `_target_` each
    #: names (`("strategy", "lightning.pytorch.strategies.DDPStrategy")`).
    made_options: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> object:
        """Return the value the file gives option `name` (None if it gives none)."""
        return next((value for key, value in self.options if key == name), None)

    def made_option(self, name: str) -> str | None:
        """Return the `_target_` of the node the file gives option `name` (None if none)."""
        return next((target for key, target in self.made_options if key == name), None)


@per_project
def config_nodes(
    project: Project, key: str, within: tuple[str, ...] = ()
) -> tuple[ConfigNode, ...]:
    """Return what the project's configuration files give the config node `key`.

    Hydra composes a node from a mapping under `key` (`trainer: {strategy: ddp}`, in a file
    of the `_global_` package) or from a file of the config group `key` (a YAML file in a
    folder named `key`, `configs/trainer/ddp.yaml`), which may take its `_target_` from
    another file of its group through its `defaults` list. With `within`, the node nested
    in it under those keys (`cfg.trainer.kwargs`: key "trainer", within ("kwargs",)).
    """
    documents = config_documents(project)
    nodes: list[tuple[Path, dict[object, object]]] = []
    for path, content in documents:
        if not isinstance(content, dict):
            continue
        if path.parent.name == key and path.suffix in (".yaml", ".yml"):
            nodes.append((path, content))
        elif isinstance(content.get(key), dict):
            nodes.append((path, content[key]))
    for inner in within:
        nodes = [
            (path, nested) for path, node in nodes if isinstance(nested := node.get(inner), dict)
        ]
    by_path = dict(documents)
    found: list[ConfigNode] = []
    for path, node in nodes:
        options = tuple(
            (str(name), value)
            for name, value in node.items()
            if isinstance(value, str | int | float | bool | list)
        )
        made = tuple(
            (str(name), value["_target_"])
            for name, value in node.items()
            if isinstance(value, dict) and isinstance(value.get("_target_"), str)
        )
        found.append(ConfigNode(path, options, _node_target(path, node, by_path), made))
    return tuple(found)


@per_project
def config_makers(project: Project) -> dict[ClassRef, tuple[FunctionRef, ...]]:
    """Return the project classes made from a config node whose target key names them,
    by Hydra (`hydra.utils.instantiate(cfg.data)`, `data: {_target_: pkg.data.Clips}`) or
    by a project function that imports the class by name (`instantiate_from_config(
    config.data)`, `data: {target: pkg.Frames}`), each with the functions that make one."""
    makers = {
        function.function.name
        for function in project.functions_mentioning("import_module")
        if _imports_by_name(project, function)
    }
    for _ in range(_MAX_DEPTH):  # `instantiate_from_config` returns `get_obj_from_str(...)(...)`
        makers |= {
            function.function.name
            for function in project.functions_mentioning(*sorted(makers))
            if _returns_call_of(function, makers)
        }
    found: dict[ClassRef, dict[FunctionRef, None]] = {}
    for function in project.functions_mentioning("instantiate", *sorted(makers)):
        for call in function.function.calls:
            for ref in instantiated_classes(project, function, call):
                found.setdefault(ref, {})[function] = None
    return {ref: tuple(functions) for ref, functions in found.items()}


def _returns_call_of(function: FunctionRef, names: set[str]) -> bool:
    """Return True if `function` returns a call of a function spelled as one of `names`, or
    a call of what such a call returns (`get_obj_from_str(config["target"])(**params)`)."""
    for returned in function.function.returns:
        for option in returned.alternatives():
            callee = option.base if option.kind is Kind.CALL else None
            if callee is not None and callee.kind is Kind.CALL:
                callee = callee.base
            if callee is not None and spelled(callee) & names:
                return True
    return False


def _node_read(config: Value, module: ModuleFacts) -> str | None:
    """Return the node a config argument reads (`cfg.data`); at module level, where the
    summary names `config.data` as one dotted name, its last part."""
    if config.kind is Kind.NAME and len(config.qualnames) == 1:
        local = config.qualnames[0].removeprefix(f"{module.module}.")
        _, dot, key = local.rpartition(".")
        return key if dot and local != config.qualnames[0] else None
    return node_key(config)


def instantiated_classes(project: Project, function: FunctionRef, call: Value) -> list[ClassRef]:
    """Return the project classes `hydra.utils.instantiate(cfg.<key>)`, called in
    `function`, may make: those its config nodes name as `_target_`; or those a project
    function making objects from configs (`instantiate_from_config(config.data)`) may make:
    those the config nodes name under its target key."""
    if call.kind is not Kind.CALL or call.base is None or not call.args:
        return []
    key = _node_read(call.args[0], function.module)
    if key is None:
        return []
    if not project.is_one_of(call.base, function.module, _INSTANTIATE):
        maker = _config_maker(project, call, function, 0)
        return [*named_classes(project, maker[1], key)] if maker is not None else []
    return [
        target
        for node in config_nodes(project, key)
        if node.target is not None
        for target in project.resolve(node.target)
        if isinstance(target, ClassRef)
    ]


def _node_target(
    path: Path, node: dict[object, object], documents: dict[Path, object]
) -> str | None:
    """Return the `_target_` of a node, or of the group files its `defaults` list names."""
    target = node.get("_target_")
    if isinstance(target, str):
        return target
    defaults = node.get("defaults")
    if not isinstance(defaults, list):
        return None
    for entry in defaults:
        if not isinstance(entry, str) or entry == "_self_":
            continue
        for suffix in (".yaml", ".yml"):
            other = documents.get(path.with_name(entry + suffix))
            if isinstance(other, dict) and isinstance(other.get("_target_"), str):
                return str(other["_target_"])
    return None


@per_project
def structured_targets(project: Project, key: str) -> tuple[str, ...]:
    """Return the `_target_` of the structured configs the project keeps as setting `key`.

    `trainer: TrainerConf = TrainerConf()` (or `field(default_factory=TrainerConf)`) in a
    config dataclass, where `TrainerConf` or a base sets `_target_: str = "..."`.
    """
    found: list[str] = []
    for module in project.modules_mentioning(key):
        for cls in module.classes:
            for attribute in cls.attributes:
                if attribute.target != key:
                    continue
                for option in attribute.value.alternatives():
                    for made in _made_classes(project, option, module):
                        found.extend(_class_target(project, made))
    return tuple(dict.fromkeys(found))


def _made_classes(project: Project, value: Value, module: ModuleFacts) -> list[ClassRef]:
    """Return the project classes a default makes: `Conf()`, `field(default_factory=Conf)`."""
    if value.kind is not Kind.CALL or value.base is None:
        return []
    factory = value.keyword("default_factory")
    maker = factory if factory is not None else value.base
    return [ref for ref in project.targets(maker, module) if isinstance(ref, ClassRef)]


def _class_target(project: Project, ref: ClassRef) -> list[str]:
    for owner in project.mro(ref):
        for attribute in owner.cls.attributes:
            if attribute.target == "_target_" and attribute.value.kind is Kind.CONSTANT:
                return [attribute.value.name.strip("'\"")]
    return []
