"""Data-parallel training: does a project run on several ranks, and does it mean its ranks
to share seeds?

- `distributed_evidence()`: calls and reads that show the project runs on several ranks
  (`init_process_group`, `DistributedDataParallel`, `DistributedSampler`, the launchers'
  `RANK` / `LOCAL_RANK` environment, a Lightning `Trainer` on several devices, also one
  Hydra makes from a config node the project's YAML files set so, Accelerate, DeepSpeed,
  Horovod, `get_rank()`).
- `intends_shared_seeds()`: tensor- or pipeline-parallel RNG trackers (Megatron-style),
  where identical seeds across ranks are the point.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..types import Span
from . import catalog
from .config_targets import ConfigNode, config_nodes, structured_targets
from .facts import Kind, ModuleFacts, Value
from .loader_kwargs import known_dict
from .memo import per_project
from .project import Project
from .refs import ExternalRef, FunctionRef

#: Calls that start or join a data-parallel job, by what they show.
DISTRIBUTED_CALLS = {
    "torch.distributed.init_process_group": "init_process_group",
    "torch.distributed.distributed_c10d.init_process_group": "init_process_group",
    "torch.nn.parallel.DistributedDataParallel": "DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "DistributedDataParallel",
    "torch.distributed.fsdp.FullyShardedDataParallel": "FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel": (
        "FullyShardedDataParallel"
    ),
    "torch.distributed.fsdp.fully_shard": "fully_shard",
    "torch.utils.data.DistributedSampler": "DistributedSampler",
    "torch.utils.data.distributed.DistributedSampler": "DistributedSampler",
    "accelerate.Accelerator": "Accelerator",
    "accelerate.accelerator.Accelerator": "Accelerator",
    "deepspeed.initialize": "deepspeed.initialize",
    "deepspeed.init_distributed": "deepspeed.init_distributed",
    "horovod.torch.init": "hvd.init",
    # OpenMMLab's wrappers (mmcv 1.x, mmengine): `init_dist(args.launcher)` and its DDP.
    **{
        f"{module}.init_dist": "init_dist"
        for module in (
            "mmcv.runner",
            "mmcv.runner.dist_utils",
            "mmengine.dist",
            "mmengine.dist.utils",
        )
    },
    **{
        f"{module}.MMDistributedDataParallel": "MMDistributedDataParallel"
        for module in ("mmcv.parallel", "mmcv.parallel.distributed", "mmengine.model")
    },
    **{name: name.rpartition(".")[2] for name in catalog.DISTRIBUTED_RANKS},
    **{name: name.rpartition(".")[2] for name in catalog.LIGHTNING_DATA_PARALLEL_STRATEGIES},
}

DISTRIBUTED_SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)

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
_DATA_PARALLEL_STRATEGIES = ("ddp", "fsdp", "deepspeed", "horovod")
#: Lightning's Trainer, as a configuration's `_target_` names it.
LIGHTNING_TRAINERS = frozenset(name for name in LIGHTNING_LAUNCHERS if name.endswith(".Trainer"))
#: Hydra's function that makes the object a config node's `_target_` names.
_HYDRA_INSTANTIATE = frozenset({"hydra.utils.instantiate"})

#: Functions of tensor- and pipeline-parallel RNG trackers (Megatron and its descendants):
#: ranks of one model-parallel group must draw the same dropout masks.
SHARED_SEED_TRACKERS = frozenset({"model_parallel_cuda_manual_seed", "get_cuda_rng_tracker"})


@dataclass(frozen=True)
class Evidence:
    """A call or read that shows the project runs on several ranks."""

    function: FunctionRef
    value: Value
    #: What it is, as the message names it: "init_process_group", "os.environ['RANK']".
    label: str
    #: The configuration files whose options make it data-parallel, when it rests on one
    #: of them being chosen (Hydra picks a run's files on the command line).
    config_files: tuple[Path, ...] = ()
    #: A read of the rank environment with a fallback (`os.environ.get("RANK", 0)`): the
    #: code also runs without a launcher, so the read alone does not show that one starts it.
    fallback: bool = False

    @property
    def is_read(self) -> bool:
        """Return True for a read of the rank (the environment, `get_rank()`), not a call
        that starts or joins the job."""
        return self.label.startswith("os.") or self.label in _RANK_READS


_RANK_READS = frozenset(name.rpartition(".")[2] for name in catalog.DISTRIBUTED_RANKS)


def distributed_evidence(project: Project) -> list[Evidence]:
    """Return the places that show the project runs data-parallel, in project order."""
    words = {name.rpartition(".")[2] for name in DISTRIBUTED_CALLS}
    words |= {name.rpartition(".")[2] for name in LIGHTNING_LAUNCHERS}
    words |= set(catalog.RANK_ENVIRONMENT)
    words |= {name.rpartition(".")[2] for name in _HYDRA_INSTANTIATE}
    found: dict[tuple[Path, Span | None], Evidence] = {}
    for module in project.modules_mentioning(*sorted(words)):
        # Names the module binds to them count too: `import DistributedDataParallel as DDP`.
        aliases = {
            name
            for name, values in module.bindings
            for value in values
            for qualname in value.qualnames
            if qualname.rpartition(".")[2] in words
        }
        for facts in module.functions_spelling(frozenset(words | aliases)):
            function = FunctionRef.of(module, facts)
            for value in _values_in(function):
                if value.span is None:
                    continue
                label = _evidence_label(project, function, value)
                if label is not None:
                    fallback = label.startswith("os.") and _has_fallback(value)
                    found[(function.path, value.span)] = Evidence(
                        function, value, label, fallback=fallback
                    )
                    continue
                configured = _configured_trainer(project, function, value)
                if configured is not None:
                    found[(function.path, value.span)] = configured
    return sorted(found.values(), key=_position)


def _position(evidence: Evidence) -> tuple[str, int, int]:
    span = evidence.value.span
    assert span is not None
    return (evidence.function.path.as_posix(), span.line, span.column)


def _values_in(function: FunctionRef) -> Iterator[Value]:
    """Yield the calls of `function` and every expression nested in them or assigned."""
    roots = [*function.function.calls, *(a.value for a in function.function.assignments)]
    roots.extend(function.function.returns)
    stack = list(roots)
    # Summaries share sub-values (a name bound in a chain of assignments holds the earlier
    # values as alternatives): visiting each object once keeps the walk linear, not
    # exponential, in the size of the function.
    seen: set[int] = set()
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        yield value
        stack.extend(value.args)
        stack.extend(item for _, item in value.keywords)
        if value.base is not None:
            stack.append(value.base)


def _evidence_label(project: Project, function: FunctionRef, value: Value) -> str | None:
    module = function.module
    if value.kind is Kind.SUBSCRIPT and value.base is not None and value.args:
        if project.is_one_of(value.base, module, catalog.ENVIRONMENT):
            key = _rank_variable(value.args[0])
            return f"os.environ['{key}']" if key else None
        return None
    if value.kind is not Kind.CALL or value.base is None:
        return None
    names = project.qualnames(value.base, module)
    if not names:
        if (
            value.base.kind is Kind.ATTRIBUTE
            and value.base.name == "get"
            and value.base.base is not None
            and project.is_one_of(value.base.base, module, catalog.ENVIRONMENT)
            and value.args
        ):
            key = _rank_variable(value.args[0])
            return f"os.environ.get('{key}')" if key else None
        return None
    if names <= catalog.ENVIRONMENT_READS and value.args:
        key = _rank_variable(value.args[0])
        return (
            f"{min(names).replace('os.environ.__getitem__', 'os.environ')}('{key}')"
            if key
            else None
        )
    for name in sorted(names):
        if name in DISTRIBUTED_CALLS:
            if name in DISTRIBUTED_SAMPLERS and _replicas_given(value):
                return None
            return DISTRIBUTED_CALLS[name]
    if names & LIGHTNING_LAUNCHERS and any(
        _lightning_data_parallel(options) for options in _trainer_options(project, module, value)
    ):
        return f"{min(names).rpartition('.')[2]}(...) on several devices"
    if names & _LIGHTNING_FROM_ARGUMENTS and _options_ask_data_parallel(function):
        return "Trainer.from_argparse_args(...) with a DDP strategy"
    return None


#: `Trainer.from_argparse_args(namespace)`: the options come from a namespace or dict.
_LIGHTNING_FROM_ARGUMENTS = frozenset(f"{name}.from_argparse_args" for name in LIGHTNING_LAUNCHERS)
#: Trainer options that name the distributed strategy, across Lightning versions.
_STRATEGY_OPTIONS = ("strategy", "distributed_backend", "accelerator")


def _configured_trainer(project: Project, function: FunctionRef, call: Value) -> Evidence | None:
    """Return the evidence of a Lightning Trainer Hydra makes from a data-parallel config node.

    `hydra.utils.instantiate(cfg.trainer)`, where the node's target is Lightning's Trainer
    (its `_target_`, or that of the structured config the project keeps as `trainer`) and a
    project configuration file gives the node a data-parallel strategy or several devices.
    Which files a run composes is chosen on its command line: the evidence names the files.
    """
    if call.kind is not Kind.CALL or call.base is None:
        return None
    if project.is_one_of(call.base, function.module, LIGHTNING_LAUNCHERS):
        return _trainer_given_config_node(project, function, call)
    if not project.is_one_of(call.base, function.module, _HYDRA_INSTANTIATE):
        return None
    config = call.keyword("config")
    if config is None and call.args:
        config = call.args[0]
    if config is None:
        return None
    keys = {key for option in config.alternatives() if (key := _node_key(option)) is not None}
    strategy_files = _strategy_node_files(project, function, call.keyword("strategy"))
    files: list[Path] = []
    for key in sorted(keys):
        structured = structured_targets(project, key)
        for node in config_nodes(project, key):
            targets = (node.target,) if node.target is not None else structured
            lightning = bool(targets) and all(target in LIGHTNING_TRAINERS for target in targets)
            if lightning and _node_asks_data_parallel(node):
                files.append(node.path)
            elif lightning and strategy_files:
                files.extend((node.path, *strategy_files))
    if not files:
        return None
    label = "Trainer(...) made by instantiate(...)"
    return Evidence(function, call, label, tuple(dict.fromkeys(files)))


def _strategy_node_files(
    project: Project, function: FunctionRef, strategy: Value | None
) -> tuple[Path, ...]:
    """Return the configuration files that make `strategy=instantiate(cfg.strategy)` a
    data-parallel Lightning strategy (the node's `_target_` is `DDPStrategy` or the like)."""
    if (
        strategy is None
        or strategy.kind is not Kind.CALL
        or strategy.base is None
        or not project.is_one_of(strategy.base, function.module, _HYDRA_INSTANTIATE)
        or not strategy.args
    ):
        return ()
    key = _node_key(strategy.args[0])
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
) -> Evidence | None:
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
            path = _node_path(option)
            if path is None:
                continue
            for node in config_nodes(project, path[0], path[1:]):
                if _node_asks_data_parallel(node):
                    files.append(node.path)
    if not files:
        return None
    label = "Trainer(...) given options from the configuration"
    return Evidence(function, call, label, tuple(dict.fromkeys(files)))


def _node_path(config: Value) -> tuple[str, ...] | None:
    """Return the keys a read of a config node follows: `cfg.trainer.kwargs` gives
    ("trainer", "kwargs"); None for anything but attribute reads of a name."""
    keys: list[str] = []
    current = config
    while current.kind is Kind.ATTRIBUTE and current.base is not None:
        keys.append(current.name)
        current = current.base
    if not keys or current.kind not in (Kind.NAME, Kind.PARAM):
        return None
    return tuple(reversed(keys))


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


def _node_key(config: Value) -> str | None:
    """Return the node a config argument reads: `cfg.trainer`, `cfg["trainer"]`."""
    if config.kind is Kind.ATTRIBUTE:
        return config.name
    if config.kind is Kind.SUBSCRIPT and len(config.args) == 1:
        key = config.args[0]
        if key.kind is Kind.CONSTANT:
            return key.name.strip("'\"") or None
    return None


def _node_asks_data_parallel(node: ConfigNode) -> bool:
    """Return True if a config node's options certainly ask Lightning for several processes.

    The same options as `Trainer(...)` keywords: a data-parallel strategy, or several
    devices, GPUs or nodes.
    """
    for option in _STRATEGY_OPTIONS:
        strategy = node.option(option)
        if isinstance(strategy, str) and any(
            word in strategy.lower() for word in _DATA_PARALLEL_STRATEGIES
        ):
            return True
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


def _options_ask_data_parallel(function: FunctionRef) -> bool:
    """Return True if `function` sets a data-parallel strategy in a dict of Trainer options.

    `trainer_config["distributed_backend"] = "ddp"` before
    `Trainer.from_argparse_args(argparse.Namespace(**trainer_config))`.
    """
    return any(
        store.key in _STRATEGY_OPTIONS and _names_data_parallel_strategy(store.value)
        for store in function.function.item_stores
    )


def _names_data_parallel_strategy(value: Value) -> bool:
    """Return True for a strategy name such as "ddp", or one of several values that is one
    (`"ddp" if n > 1 else "auto"`: the script is meant to run data-parallel)."""
    if value.kind is Kind.ALTERNATIVES:
        return any(_names_data_parallel_strategy(option) for option in value.args)
    if value.kind is not Kind.CONSTANT:
        return False
    text = value.name.strip("'\"").lower()
    return any(word in text for word in _DATA_PARALLEL_STRATEGIES)


def _replicas_given(sampler: Value) -> bool:
    """Return True for a DistributedSampler told its number of replicas.

    Without `num_replicas` it asks the process group, which only a distributed run has;
    with it, it also serves single-process runs (`num_replicas=1, rank=0`), so it shows
    nothing by itself.
    """
    return sampler.keyword("num_replicas") is not None or len(sampler.args) > 1


def _has_fallback(read: Value) -> bool:
    """Return True for `os.environ.get(key, default)` or `os.getenv(key, default)`."""
    return read.kind is Kind.CALL and (len(read.args) > 1 or read.keyword("default") is not None)


def _rank_variable(key: Value) -> str | None:
    if key.kind is Kind.CONSTANT:
        name = key.name.strip("'\"")
        if name in catalog.RANK_ENVIRONMENT:
            return name
    return None


def _trainer_options(project: Project, module: ModuleFacts, call: Value) -> Iterator[Value]:
    """Yield the options a Trainer or Fabric call is given: its own keywords, and for each
    `**options` dict the analysis can see, the keywords of each dict it may be (one per
    branch that binds it), as calls of their own."""
    yield call
    for key, splat in call.keywords:
        if key is not None:
            continue
        known = known_dict(project, module, splat)
        if known is None:
            continue
        for option in known.branches or (known.value,):
            entries = known.entries if option is known.value else option.keywords
            yield Value(Kind.CALL, keywords=entries)


def _lightning_data_parallel(call: Value) -> bool:
    """Return True if a Trainer or Fabric call certainly asks for several processes."""
    for option in _STRATEGY_OPTIONS:
        strategy = call.keyword(option)
        if strategy is not None and _names_data_parallel_strategy(strategy):
            return True
    for keyword in ("devices", "gpus", "num_nodes"):
        value = call.keyword(keyword)
        if value is None:
            continue
        number = value.number if value.kind is Kind.INT else None
        if number is not None and (number > 1 or (number == -1 and keyword != "num_nodes")):
            return True
        if value.kind is Kind.SEQUENCE and len(value.args) > 1:
            return True
        if value.kind is Kind.CONSTANT and value.name.strip("'\"") == "-1":
            return True
    return False


def intends_shared_seeds(project: Project) -> Evidence | None:
    """Return a tensor- or pipeline-parallel RNG tracker's use, where shared seeds are meant."""
    for function in project.functions_mentioning(*sorted(SHARED_SEED_TRACKERS)):
        for call in function.function.calls:
            if call.base is None or call.span is None:
                continue
            targets = project.targets(call.base, function.module)
            for target in targets:
                name = target.qualname if isinstance(target, ExternalRef) else _target_name(target)
                if name.rpartition(".")[2] in SHARED_SEED_TRACKERS:
                    return Evidence(function, call, name.rpartition(".")[2])
    return None


def _target_name(target: object) -> str:
    if isinstance(target, FunctionRef):
        return target.function.name
    return ""
