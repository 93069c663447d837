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
from .branch_feasibility import bound_values
from .branch_records import ENVIRONMENT
from .config_files import config_entries
from .configured_trainers import (
    HYDRA_INSTANTIATE,
    LIGHTNING_LAUNCHERS,
    LIGHTNING_TRAINERS,
    STRATEGY_OPTIONS,
    ConfiguredTrainer,
    configured_trainer,
    names_data_parallel_strategy,
    trainers_made_from_nodes,
)
from .facts import Kind, ModuleFacts, Value, string_literal
from .loader_kwargs import known_dict
from .memo import per_project
from .package_versions import detect_library
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
    **{name: name.rpartition(".")[2] for name in catalog.LIGHTNING_MODEL_PARALLEL_STRATEGIES},
}

DISTRIBUTED_SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)

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
    #: Hydra composes `config_files`, which only a run it starts reads.
    composed_by_hydra: bool = True
    #: A read of the rank environment with a fallback (`os.environ.get("RANK", 0)`): the
    #: code also runs without a launcher, so the read alone does not show that one starts it.
    fallback: bool = False

    @property
    def chosen_by_hydra(self) -> bool:
        """Return True if it rests on configuration files that only a Hydra run reads."""
        return bool(self.config_files) and self.composed_by_hydra

    @property
    def is_read(self) -> bool:
        """Return True for a read of the rank (the environment, `get_rank()`), not a call
        that starts or joins the job."""
        return self.label.startswith("os.") or self.label in _RANK_READS

    @property
    def rests_on_the_machine(self) -> bool:
        """Return True for a Trainer left to take every visible GPU: it starts several
        processes only on a machine that has several."""
        return self.label.endswith(EVERY_VISIBLE_GPU)

    @property
    def needs_a_group(self) -> bool:
        """Return True for a call that raises unless a process group exists, which it does
        not make: a `DistributedSampler` told no `num_replicas`, `get_rank()`."""
        return self.label == "DistributedSampler" or self.label in _RANK_READS


_RANK_READS = frozenset(name.rpartition(".")[2] for name in catalog.DISTRIBUTED_RANKS)
#: How the evidence of a Trainer left to choose its devices ends.
EVERY_VISIBLE_GPU = "on every visible GPU"
#: What the launchers (`torchrun`, `torch.distributed.launch`, SLURM, MPI) put in each rank's
#: environment: its rank, and the job's size, which a script reads to know it was launched.
LAUNCHER_ENVIRONMENT = catalog.RANK_ENVIRONMENT | {"WORLD_SIZE"}


def distributed_evidence(project: Project) -> list[Evidence]:
    """Return the places that show the project runs data-parallel, in project order."""
    words = {name.rpartition(".")[2] for name in DISTRIBUTED_CALLS}
    words |= {name.rpartition(".")[2] for name in LIGHTNING_LAUNCHERS}
    words |= set(LAUNCHER_ENVIRONMENT)
    words |= {name.rpartition(".")[2] for name in HYDRA_INSTANTIATE}
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
            values = list(_values_in(function))
            defaulted = _defaulted_by_or(values)
            for value in values:
                if value.span is None:
                    continue
                label = _evidence_label(project, function, value)
                if label in _RANK_READS and _tests_distributed_state(project, function):
                    # `get_rank()` behind `dist.is_initialized()`: code that runs with and
                    # without a process group shows neither.
                    continue
                if label is not None:
                    fallback = label.startswith("os.") and (
                        _has_fallback(value)
                        or id(value) in defaulted
                        or _read_where_set(function, value)
                    )
                    found[(function.path, value.span)] = Evidence(
                        function, value, label, fallback=fallback
                    )
                    continue
                configured = configured_trainer(project, function, value)
                if configured is not None:
                    found[(function.path, value.span)] = _from_configuration(
                        function, value, configured
                    )
    for function, call, configured in trainers_made_from_nodes(project):
        if call.span is not None:
            found[(function.path, call.span)] = _from_configuration(function, call, configured)
    return sorted(found.values(), key=_position)


def _from_configuration(
    function: FunctionRef, call: Value, configured: ConfiguredTrainer
) -> Evidence:
    return Evidence(
        function,
        call,
        configured.label,
        configured.files,
        composed_by_hydra=configured.composed_by_hydra,
    )


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
            if DISTRIBUTED_CALLS[name] == "init_process_group" and _one_process(value):
                return None
            if name in catalog.LIGHTNING_DATA_PARALLEL_STRATEGIES and _given_to_one_device(
                project, function, value
            ):
                return None
            if name in catalog.LIGHTNING_MODEL_PARALLEL_STRATEGIES and not _replicated(value):
                return None
            if DISTRIBUTED_CALLS[name] == "Accelerator" and not _accelerates_processes(project):
                return None
            return DISTRIBUTED_CALLS[name]
    if (
        names & LIGHTNING_LAUNCHERS
        and not _one_device(value)
        and not _tensor_parallel_only(project, function, value)
        and any(
            _lightning_data_parallel(options)
            for options in _trainer_options(project, module, value)
        )
    ):
        return f"{min(names).rpartition('.')[2]}(...) on several devices"
    if names & LIGHTNING_LAUNCHERS and not _one_device(value):
        option = _strategy_option_defaulting_to_ddp(project, value)
        if option is not None:
            return f"{min(names).rpartition('.')[2]}(...) with --{option} defaulting to DDP"
    if (
        names & LIGHTNING_TRAINERS
        and _takes_every_visible_gpu(project, value)
        and not _pytest_code(function)
    ):
        return f"{min(names).rpartition('.')[2]}(...) {EVERY_VISIBLE_GPU}"
    if names & _LIGHTNING_FROM_ARGUMENTS and (
        _options_ask_data_parallel(function)
        # Keywords override the namespace: `from_argparse_args(args, **ddp_options)`.
        or any(
            _lightning_data_parallel(options)
            for options in _trainer_options(project, module, value)
        )
    ):
        return "Trainer.from_argparse_args(...) with a DDP strategy"
    return None


#: `Trainer.from_argparse_args(namespace)`: the options come from a namespace or dict.
_LIGHTNING_FROM_ARGUMENTS = frozenset(f"{name}.from_argparse_args" for name in LIGHTNING_LAUNCHERS)


def _options_ask_data_parallel(function: FunctionRef) -> bool:
    """Return True if `function` sets a data-parallel strategy in a dict of Trainer options,
    or its module gives one as a command-line default.

    `trainer_config["distributed_backend"] = "ddp"` before
    `Trainer.from_argparse_args(argparse.Namespace(**trainer_config))`; or
    `parser.set_defaults(accelerator="ddp")` / `parser.add_argument("--strategy",
    default="ddp")` before `Trainer.from_argparse_args(parser.parse_args())`.
    """
    if any(
        store.key in STRATEGY_OPTIONS and names_data_parallel_strategy(store.value)
        for store in function.function.item_stores
    ):
        return True
    return any(
        _defaults_data_parallel(call) for facts in function.module.functions for call in facts.calls
    )


def _strategy_option_defaulting_to_ddp(project: Project, call: Value) -> str | None:
    """Return the command-line option a Trainer's strategy is read from, when the project
    declares it with a DDP default (`Trainer(strategy=hparams.distributed_backend)` and, in
    its config module, `add_argument("--distributed_backend", default="ddp")`): every
    declaration of that option must default to one."""
    for keyword in STRATEGY_OPTIONS:
        strategy = call.keyword(keyword)
        if strategy is None or strategy.kind is not Kind.ATTRIBUTE or not strategy.name:
            continue
        defaults = [
            default
            for function in project.functions_mentioning(strategy.name)
            for declared in function.function.calls
            if (default := _declared_default(declared, strategy.name)) is not None
        ]
        if defaults and all(names_data_parallel_strategy(default) for default in defaults):
            return strategy.name
    return None


def _declared_default(call: Value, option: str) -> Value | None:
    """Return the default of `add_argument("--<option>", default=...)`, if `call` is one."""
    declared = _declared_option(call)
    return declared[1] if declared is not None and declared[0] == option else None


def _declared_option(call: Value) -> tuple[str, Value] | None:
    """Return the option `add_argument("--name", default=...)` declares (as the namespace
    names it) and its default, if `call` is such a call with a default."""
    if _method_called(call) != "add_argument" or not call.args:
        return None
    if call.args[0].kind is not Kind.CONSTANT:
        return None
    default = call.keyword("default")
    if default is None:
        return None
    return call.args[0].name.strip("'\"").lstrip("-").replace("-", "_"), default


def _method_called(call: Value) -> str:
    """Return the method `call` calls on an object (the same in every binding of the name:
    `parser = Trainer.add_argparse_args(parser)`), or ""."""
    options = call.base.alternatives() if call.base is not None else ()
    methods = {option.name for option in options if option.kind is Kind.ATTRIBUTE}
    return methods.pop() if len(methods) == 1 else ""


def _defaults_data_parallel(call: Value) -> bool:
    """Return True for `set_defaults(strategy="ddp")` or `add_argument("--strategy",
    default="ddp")` (also `accelerator`, `distributed_backend`)."""
    if _method_called(call) == "set_defaults":
        # `set_defaults(**defaults)` of a dict written in the function (`defaults` may be
        # bound to others too, as a parameter the dict replaces): its entries.
        spread = [
            entry
            for key, value in call.keywords
            if key is None
            for option in value.alternatives()
            if option.kind is Kind.DICT
            for entry in option.keywords
        ]
        return any(
            key in STRATEGY_OPTIONS and names_data_parallel_strategy(value)
            for key, value in (*call.keywords, *spread)
        )
    declared = _declared_option(call)
    return (
        declared is not None
        and declared[0] in STRATEGY_OPTIONS
        and names_data_parallel_strategy(declared[1])
    )


def _replicas_given(sampler: Value) -> bool:
    """Return True for a DistributedSampler told its number of replicas.

    Without `num_replicas` it asks the process group, which only a distributed run has;
    with it, it also serves single-process runs (`num_replicas=1, rank=0`), so it shows
    nothing by itself.
    """
    return sampler.keyword("num_replicas") is not None or len(sampler.args) > 1


def _one_process(call: Value) -> bool:
    """Return True for `init_process_group(..., world_size=1)`: a group of one process (a
    script that needs a process group to call collective code), no job of several ranks."""
    size = call.keyword("world_size")
    if size is None and len(call.args) > _WORLD_SIZE_POSITION:
        size = call.args[_WORLD_SIZE_POSITION]
    return size is not None and size.kind is Kind.INT and size.number == 1


#: `init_process_group(backend, init_method, timeout, world_size, rank, ...)`.
_WORLD_SIZE_POSITION = 3


#: Tests whether this process runs in a distributed job: code that makes one before it reads
#: the rank also runs without a launcher (`return 0` when no process group is initialized).
DISTRIBUTED_STATE_TESTS = frozenset(
    {
        f"torch.distributed.{module}{name}"
        for module in ("", "distributed_c10d.")
        for name in ("is_initialized", "is_available")
    }
)


def _tests_distributed_state(project: Project, function: FunctionRef) -> bool:
    """Return True if `function` tests whether a process group is initialized, itself or
    through a project helper that returns the test (`is_dist_avail_and_initialized()`): it
    reads the rank only in a distributed job, and runs without one too."""
    module = function.module
    for call in function.function.calls:
        if call.base is None:
            continue
        if project.qualnames(call.base, module) & DISTRIBUTED_STATE_TESTS:
            return True
        helper = project.function_of(call.base, module)
        if helper is not None and any(
            project.qualnames(inner.base, helper.module) & DISTRIBUTED_STATE_TESTS
            for inner in helper.function.calls
            if inner.base is not None
        ):
            return True
    return False


def _has_fallback(read: Value) -> bool:
    """Return True for `os.environ.get(key, default)` or `os.getenv(key, default)`."""
    return read.kind is Kind.CALL and (len(read.args) > 1 or read.keyword("default") is not None)


def _read_where_set(function: FunctionRef, read: Value) -> bool:
    """Return True for a read of a launcher variable only where the environment has it
    (`if "RANK" in os.environ: rank = int(os.environ["RANK"])`): the code also runs without
    a launcher, as a read with a default does."""
    key = _rank_variable(read.args[0]) if read.args else None
    if key is None or read.span is None:
        return False
    tested = ("__contains__", repr(key))
    return any(
        branch.subject == ENVIRONMENT
        and branch.order == tested
        and (holds := branch.governs(read.span)) is not None
        and holds != branch.negated
        for branch in function.function.branches
    )


def _defaulted_by_or(values: list[Value]) -> set[int]:
    """Return the ids of the reads given a default by `or`: a constant
    (`int(os.environ.get("NODE_RANK") or 0)`) or what the code works out without a
    launcher (`os.environ.get("NODE_RANK") or global_rank // local_world_size`)."""
    return {
        id(option)
        for value in values
        if value.kind is Kind.ALTERNATIVES
        and value.keyword("if") is None
        and len(value.args) > 1
        and (value.name == "or" or value.args[-1].kind in (Kind.INT, Kind.CONSTANT))
        for option in value.args[:-1]
    }


def _rank_variable(key: Value) -> str | None:
    if key.kind is Kind.CONSTANT:
        name = key.name.strip("'\"")
        if name in LAUNCHER_ENVIRONMENT:
            return name
    return None


def _trainer_options(project: Project, module: ModuleFacts, call: Value) -> Iterator[Value]:
    """Yield the options a Trainer or Fabric call is given: its own keywords, the strategies
    a project function it is given the result of returns, and for each `**options` dict the
    analysis can see, the keywords of each dict it may be (one per branch that binds it),
    as calls of their own."""
    yield call
    for key, value in call.keywords:
        if key in STRATEGY_OPTIONS:
            # `strategy=infer_strategy(args)`: each strategy the project function returns.
            chosen = project.function_of(value.base, module) if value.base else None
            for returned in chosen.function.returns if chosen else ():
                yield Value(Kind.CALL, keywords=((key, returned),))
    for key, splat in call.keywords:
        if key is not None:
            continue
        known = known_dict(project, module, splat)
        if known is None:
            continue
        for option in known.branches or (known.value,):
            entries = known.entries if option is known.value else option.keywords
            yield Value(Kind.CALL, keywords=entries)


def _given_to_one_device(project: Project, function: FunctionRef, strategy: Value) -> bool:
    """Return True if the strategy object `strategy` is handed to a Trainer (or Fabric) call
    of `function` that runs on one device (`strategy=DDPStrategy(), devices=[0]`)."""
    return any(
        project.is_one_of(call.base, function.module, LIGHTNING_LAUNCHERS)
        and _one_device(call)
        and any(
            option.span == strategy.span
            for key in STRATEGY_OPTIONS
            for option in (call.keyword(key) or Value(Kind.UNKNOWN)).alternatives()
        )
        for call in function.function.calls
        if call.base is not None
    )


def _one_device(call: Value) -> bool:
    """Return True for a Trainer or Fabric call given one device on one node (`devices=1`,
    `devices=[0]`, `gpus=1`): whatever its strategy, it starts one process."""
    nodes = call.keyword("num_nodes")
    if nodes is not None and not (nodes.kind is Kind.INT and nodes.number == 1):
        return False
    devices = call.keyword("devices") or call.keyword("gpus")
    if devices is None:
        return False
    if devices.kind is Kind.INT:
        return devices.number == 1
    return devices.kind is Kind.SEQUENCE and len(devices.args) == 1


def _tensor_parallel_only(project: Project, function: FunctionRef, call: Value) -> bool:
    """Return True for a Fabric or Trainer given a `ModelParallelStrategy` that is not
    replicated: its processes share one copy of the data and must draw alike."""
    strategy = call.keyword("strategy")
    options = bound_values(project, strategy, function) if strategy is not None else ()
    return bool(options) and all(
        option.kind is Kind.CALL
        and option.base is not None
        and project.is_one_of(
            option.base, function.module, catalog.LIGHTNING_MODEL_PARALLEL_STRATEGIES
        )
        and not _replicated(option)
        for option in options
    )


#: What code written for several Accelerate processes spells (an Accelerator runs in a
#: single process unless `accelerate launch` starts several).
_ACCELERATE_PROCESS_WORDS = (
    "num_processes",
    "process_index",
    "local_process_index",
    "wait_for_everyone",
    "gather_for_metrics",
    "split_between_processes",
    "main_process_first",
)


@per_project
def _accelerates_processes(project: Project) -> bool:
    """Return True if the project shows it runs Accelerate on several processes: its code
    asks how many there are, which one it is, or waits for or gathers from the others, or
    an Accelerate config file gives `num_processes` above 1. A script that only makes an
    `Accelerator()` (for mixed precision, say) runs one process."""
    words = frozenset(_ACCELERATE_PROCESS_WORDS)
    # The text index may yield more modules than spell a word: ask each module itself.
    if any(module.spells(words) for module in project.modules_mentioning(*words)):
        return True
    return any(
        isinstance(count, int) and count > 1
        for _, count in config_entries(project, ("num_processes",))
    )


def _replicated(strategy: Value) -> bool:
    """Return True for a `ModelParallelStrategy(...)` given a data-parallel size other than
    1 (its default, one replica per node, leaves a one-node run tensor-parallel only)."""
    size = strategy.keyword("data_parallel_size")
    if size is None and len(strategy.args) > 1:
        size = strategy.args[1]
    if size is None or (size.kind is Kind.CONSTANT and size.name.strip("'\"") == "auto"):
        return False
    return not (size.kind is Kind.INT and size.number == 1)


def _lightning_data_parallel(call: Value) -> bool:
    """Return True if a Trainer or Fabric call certainly asks for several processes."""
    if _one_device(call):
        return False
    for option in STRATEGY_OPTIONS:
        strategy = call.keyword(option)
        if strategy is not None and names_data_parallel_strategy(strategy):
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


#: Accelerators that may be GPUs.
_GPU_ACCELERATORS = frozenset({"auto", "gpu", "cuda"})


def _takes_every_visible_gpu(project: Project, call: Value) -> bool:
    """Return True for a Trainer that leaves Lightning to count the GPUs: `devices="auto"`,
    or no `devices` (nor the older `gpus`) on Lightning 2, whose default is "auto", with an
    accelerator that may be a GPU. On a machine with several GPUs it starts a DDP process
    per GPU, each running the script from the top."""
    if call.args or any(key is None for key, _ in call.keywords):
        # Positional options or `**options`: what they set is not known here.
        return False
    # An accelerator read from a setting may be a GPU; a strategy other than "auto" may
    # keep one process ("dp", "single_device").
    accelerator = call.keyword("accelerator")
    named = string_literal(accelerator) if accelerator is not None else None
    strategy = call.keyword("strategy")
    if (named is not None and named not in _GPU_ACCELERATORS) or (
        strategy is not None and string_literal(strategy) != "auto"
    ):
        return False
    devices = call.keyword("devices")
    if devices is not None:
        return string_literal(devices) == "auto"
    return call.keyword("gpus") is None and lightning_release(project) >= (2,)


def _pytest_code(function: FunctionRef) -> bool:
    """Return True for code of a test module as pytest names them (`test_*.py`,
    `*_test.py`): a test suite is not a training job, whatever GPUs the machine running it
    has. A script's own `def test(...)` is no test: the module's name decides."""
    name = function.path.name
    return name.startswith("test_") or name.endswith("_test.py")


@per_project
def lightning_release(project: Project) -> tuple[int, ...]:
    """Return the Lightning release the project is assumed to run (see package_versions).

    Lightning 2 needs torch 1.11 or newer: a project on an older torch that does not pin
    Lightning installs a 1.x release, whatever the newest is."""
    found = detect_library(
        project.root, ("pytorch-lightning", "lightning"), project.library_versions
    )
    if found.source.startswith("newest release") and project.target.is_before((1, 11)):
        return (1,)
    return found.version


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
