"""Lightning Trainers that run data-parallel: the options that ask for several processes,
in the call or in the project's configuration files.

A Trainer Hydra makes from a config node (`hydra.utils.instantiate(cfg.trainer)`), one
given `**cfg.trainer` options, and one a factory makes from a node that names Lightning's
Trainer as its type (`trainer: {type: pytorch_lightning.Trainer, strategy: ddp}` read by
`object_from_dict(config.trainer)`) are data-parallel when a configuration file says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from . import catalog
from .config_files import config_documents_mentioning, config_values, node_key, node_path
from .config_targets import ConfigNode, config_nodes, structured_targets
from .facts import Kind, Value
from .memo import per_project
from .project import Project
from .refs import FunctionRef

#: Lightning's Trainer and Fabric: data-parallel when given several devices or a DDP strategy.
LIGHTNING_LAUNCHERS = frozenset(
    {
        "pytorch_lightning.Trainer",
        "pytorch_lightning.trainer.Trainer",
        "pytorch_lightning.trainer.trainer.Trainer",
        "lightning.Trainer",
        "lightning.pytorch.Trainer",
        "lightning.pytorch.trainer.Trainer",
        "lightning.pytorch.trainer.trainer.Trainer",
        "lightning.Fabric",
        "lightning.fabric.Fabric",
        "lightning_fabric.Fabric",
    }
)
DATA_PARALLEL_STRATEGIES = ("ddp", "fsdp", "deepspeed", "horovod")
#: Lightning's Trainer, as a configuration's `_target_` names it.
LIGHTNING_TRAINERS = frozenset(name for name in LIGHTNING_LAUNCHERS if name.endswith(".Trainer"))
#: Hydra's function that makes the object a config node's `_target_` names.
HYDRA_INSTANTIATE = frozenset({"hydra.utils.instantiate"})

#: The Trainer methods that run a model's loaders (giving them Lightning's worker_init_fn).
TRAINER_METHODS = frozenset({"fit", "validate", "test", "predict", "tune"})
#: Trainer options that name the distributed strategy, across Lightning versions.
STRATEGY_OPTIONS = ("strategy", "distributed_backend", "accelerator")
#: Keys that name the class a configuration node makes, outside Hydra.
_TYPE_KEYS = ("type", "class_path")


@dataclass(frozen=True)
class ConfiguredTrainer:
    """A Trainer that configuration files make data-parallel."""

    #: What it is, as the message names it.
    label: str
    #: The configuration files whose options make it data-parallel.
    files: tuple[Path, ...]
    #: Hydra composes the files, which only a run it starts reads.
    composed_by_hydra: bool = True


def names_data_parallel_strategy(value: Value) -> bool:
    """Return True for a strategy name such as "ddp", or one of several values that is one
    (`"ddp" if n > 1 else "auto"`: the script is meant to run data-parallel)."""
    if value.kind is Kind.ALTERNATIVES:
        return any(names_data_parallel_strategy(option) for option in value.args)
    return value.kind is Kind.CONSTANT and is_data_parallel_strategy(value.name.strip("'\""))


def is_data_parallel_strategy(text: str) -> bool:
    """Return True for a strategy's name that asks for several processes ("ddp_spawn")."""
    return any(word in text.lower() for word in DATA_PARALLEL_STRATEGIES)


def configured_trainer(
    project: Project, function: FunctionRef, call: Value
) -> ConfiguredTrainer | None:
    """Return the evidence of a Lightning Trainer Hydra makes from a data-parallel config node.

    `hydra.utils.instantiate(cfg.trainer)`, where the node's target is Lightning's Trainer
    (its `_target_`, or that of the structured config the project keeps as `trainer`) and a
    project configuration file gives the node a data-parallel strategy or several devices.
    Which files a run composes is chosen on its command line: the evidence names the files.
    """
    if call.kind is not Kind.CALL or call.base is None:
        return None
    if project.is_one_of(call.base, function.module, LIGHTNING_LAUNCHERS):
        return _trainer_given_config_node(project, function, call) or _strategy_from_files(
            project, call
        )
    if not project.is_one_of(call.base, function.module, HYDRA_INSTANTIATE):
        return None
    strategy_files = _strategy_node_files(project, function, call.keyword("strategy"))
    files: list[Path] = []
    for node, targets in _instantiated_nodes(project, call):
        lightning = bool(targets) and all(target in LIGHTNING_TRAINERS for target in targets)
        if lightning and node_asks_data_parallel(node):
            files.append(node.path)
        elif lightning and strategy_files:
            files.extend((node.path, *strategy_files))
    if not files:
        return None
    return ConfiguredTrainer("Trainer(...) made by instantiate(...)", tuple(dict.fromkeys(files)))


def instantiates_trainer(project: Project, function: FunctionRef, call: Value) -> bool:
    """Return True for `hydra.utils.instantiate(cfg.trainer, ...)` whose config node targets
    Lightning's Trainer in every project file that gives it."""
    if call.kind is not Kind.CALL or call.base is None:
        return False
    if not project.is_one_of(call.base, function.module, HYDRA_INSTANTIATE):
        return False
    targets = {
        target for _, node_targets in _instantiated_nodes(project, call) for target in node_targets
    }
    return bool(targets) and targets <= LIGHTNING_TRAINERS


def _instantiated_nodes(
    project: Project, call: Value
) -> Iterator[tuple[ConfigNode, tuple[str, ...]]]:
    """Yield the project's config nodes that `instantiate(cfg.<key>, ...)` may be given, each
    with the classes it targets (its `_target_`, or that of the structured config the project
    keeps under the key; none for a node that only overrides options of the node a run's
    defaults list chose)."""
    config = call.keyword("config")
    if config is None and call.args:
        config = call.args[0]
    if config is None:
        return
    keys = {key for option in config.alternatives() if (key := node_key(option)) is not None}
    for key in sorted(keys):
        structured = structured_targets(project, key)
        for node in config_nodes(project, key):
            yield node, (node.target,) if node.target is not None else structured


def _strategy_node_files(
    project: Project, function: FunctionRef, strategy: Value | None
) -> tuple[Path, ...]:
    """Return the configuration files that make `strategy=instantiate(cfg.strategy)` a
    data-parallel Lightning strategy (the node's `_target_` is `DDPStrategy` or the like)."""
    if (
        strategy is None
        or strategy.kind is not Kind.CALL
        or strategy.base is None
        or not project.is_one_of(strategy.base, function.module, HYDRA_INSTANTIATE)
        or not strategy.args
    ):
        return ()
    key = node_key(strategy.args[0])
    if key is None:
        return ()
    return tuple(
        node.path
        for node in config_nodes(project, key)
        if node.target in catalog.LIGHTNING_DATA_PARALLEL_STRATEGIES
    )


#: Calls that turn a config node into a dict of the same options.
_CONFIG_TO_DICT = frozenset(
    {"omegaconf.OmegaConf.to_container", "omegaconf.OmegaConf.to_object", "builtins.dict"}
)


def _trainer_given_config_node(
    project: Project, function: FunctionRef, call: Value
) -> ConfiguredTrainer | None:
    """Return the evidence of `Trainer(**cfg.trainer.kwargs)` (also through
    `OmegaConf.to_container(...)`) where a project configuration file gives that node a
    data-parallel strategy or several devices."""
    files: list[Path] = []
    for key, splat in call.keywords:
        if key is not None:
            continue
        for option in splat.alternatives():
            if option.kind is Kind.CALL and option.base is not None and option.args:
                if not project.is_one_of(option.base, function.module, _CONFIG_TO_DICT):
                    continue
                option = option.args[0]
            path = node_path(option)
            if path is None:
                continue
            for node in config_nodes(project, path[0], path[1:]):
                if node_asks_data_parallel(node):
                    files.append(node.path)
    if not files:
        return None
    label = "Trainer(...) given options from the configuration"
    return ConfiguredTrainer(label, tuple(dict.fromkeys(files)))


def _strategy_from_files(project: Project, call: Value) -> ConfiguredTrainer | None:
    """Return the evidence of `Trainer(distributed_backend=cfg.General.multi_gpu_mode)`, a
    strategy read from a configuration object, where a project configuration file gives
    that setting a data-parallel strategy (`General: {multi_gpu_mode: ddp}`)."""
    files: list[Path] = []
    for option in STRATEGY_OPTIONS:
        value = call.keyword(option)
        path = node_path(value) if value is not None else None
        if path is not None:
            files.extend(
                file
                for file, text in config_values(project, path)
                if is_data_parallel_strategy(text)
            )
    if not files:
        return None
    label = "Trainer(...) given a strategy from the configuration"
    return ConfiguredTrainer(label, tuple(dict.fromkeys(files)), composed_by_hydra=False)


#: Hydra's decorator of a command-line entry point, which composes its configuration files.
_HYDRA_MAIN = frozenset({"hydra.main"})


@per_project
def hydra_entry_files(project: Project) -> frozenset[Path]:
    """Return the files that define a `@hydra.main` entry point.

    Hydra composes a run's configuration from the project's files only in a run it starts:
    code that calls the training function with a config built in Python reads none of them.
    """
    found: set[Path] = set()
    for module in project.modules_mentioning("hydra"):
        for function in module.functions:
            for decorator in function.decorators:
                maker = decorator.base if decorator.kind is Kind.CALL else decorator
                if maker is not None and project.is_one_of(maker, module, _HYDRA_MAIN):
                    found.add(module.path)
    return frozenset(found)


def node_asks_data_parallel(node: ConfigNode) -> bool:
    """Return True if a config node's options certainly ask Lightning for several processes.

    The same options as `Trainer(...)` keywords: a data-parallel strategy (by name, or a
    node Hydra makes one from), or several devices, GPUs or nodes.
    """
    for option in STRATEGY_OPTIONS:
        strategy = node.option(option)
        if isinstance(strategy, str) and is_data_parallel_strategy(strategy):
            return True
        if node.made_option(option) in catalog.LIGHTNING_DATA_PARALLEL_STRATEGIES:
            return True  # `strategy: {_target_: lightning.pytorch.strategies.DDPStrategy}`
    for keyword in ("devices", "gpus", "num_nodes"):
        value = node.option(keyword)
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and (value > 1 or (value == -1 and keyword != "num_nodes")):
            return True
        if isinstance(value, list) and len(value) > 1:
            return True
        if value == "-1" and keyword != "num_nodes":
            return True
    return False


def trainers_made_from_nodes(
    project: Project,
) -> Iterator[tuple[FunctionRef, Value, ConfiguredTrainer]]:
    """Yield the calls given a config node that names Lightning's Trainer as its type and
    asks for several processes (`object_from_dict(config.trainer, ...)`), a node of a file
    the code reads itself, whose result the same function then runs a Trainer method on
    (`trainer.fit(model)`): a call that only logs or copies the node makes no Trainer."""
    for key, files in _trainer_nodes(project).items():
        for function in project.functions_mentioning(key):
            for call in function.function.calls:
                if (
                    call.base is not None
                    and call.args
                    and node_key(call.args[0]) == key
                    and _runs_trainer_method(function, call)
                ):
                    spelled = call.base.qualnames[0] if call.base.qualnames else call.base.name
                    label = f"{spelled.rpartition('.')[2]}(...)"
                    yield function, call, ConfiguredTrainer(label, files, composed_by_hydra=False)


def _runs_trainer_method(function: FunctionRef, made: Value) -> bool:
    """Return True if `function` calls `fit`, `test`... on the object call `made` returns
    (a variable's use takes its own span)."""
    for call in function.function.calls:
        callee = call.base
        if callee is None or callee.kind is not Kind.ATTRIBUTE or callee.base is None:
            continue
        if callee.name in TRAINER_METHODS and any(
            option.kind is Kind.CALL and replace(option, span=made.span) == made
            for option in callee.base.alternatives()
        ):
            return True
    return False


@per_project
def _trainer_nodes(project: Project) -> dict[str, tuple[Path, ...]]:
    """Return each top-level configuration key whose node names Lightning's Trainer as its
    type and asks it for several processes, with the files that say so."""
    keys = {
        key
        for _, content in config_documents_mentioning(project, tuple(sorted(LIGHTNING_TRAINERS)))
        if isinstance(content, dict)
        for key, node in content.items()
        if isinstance(key, str)
        and isinstance(node, dict)
        and any(node.get(name) in LIGHTNING_TRAINERS for name in _TYPE_KEYS)
    }
    found: dict[str, tuple[Path, ...]] = {}
    for key in sorted(keys):
        files = tuple(
            node.path
            for node in config_nodes(project, key)
            if any(node.option(name) in LIGHTNING_TRAINERS for name in _TYPE_KEYS)
            and node_asks_data_parallel(node)
        )
        if files:
            found[key] = files
    return found
