"""Qualified names of the torch, NumPy and stdlib APIs the rules reason about."""

from __future__ import annotations

#: torch's DataLoader under the names it is importable by, also as mmcv 1.x re-exports it
#: (outside the Parrots framework its `PoolDataLoader` is torch's DataLoader too).
TORCH_DATALOADERS = frozenset(
    {
        "torch.utils.data.DataLoader",
        "torch.utils.data.dataloader.DataLoader",
        # The Parrots framework's loader, which mmcv's wrapper picks there.
        "torch.utils.data.PoolDataLoader",
        # TorchIO's loader: torch's, with a collate_fn for its subjects.
        "torchio.SubjectsLoader",
        "torchio.data.SubjectsLoader",
        "torchio.data.loader.SubjectsLoader",
        *(
            f"{module}.{name}"
            for module in ("mmcv.utils", "mmcv.utils.parrots_wrapper")
            for name in ("DataLoader", "PoolDataLoader")
        ),
    }
)

#: Functions returning torch's loader classes as a pair: mmcv's `_get_dataloader()` gives
#: `(DataLoader, PoolDataLoader)`, both torch's DataLoader outside the Parrots framework
#: (`_, DataLoader = _get_dataloader()` in OpenMMLab dataset builders).
TORCH_DATALOADER_PAIRS = frozenset(
    {"mmcv.utils.parrots_wrapper._get_dataloader", "mmcv.utils._get_dataloader"}
)

#: torch's Dataset base classes; a project class deriving from one is a Dataset.
TORCH_DATASET_BASES = frozenset(
    {
        "torch.utils.data.Dataset",
        "torch.utils.data.dataset.Dataset",
        "torch.utils.data.IterableDataset",
        "torch.utils.data.dataset.IterableDataset",
        "torch.utils.data.TensorDataset",
        "torch.utils.data.dataset.TensorDataset",
        "torch.utils.data.StackDataset",
        "torch.utils.data.ConcatDataset",
        "torch.utils.data.dataset.ConcatDataset",
        "torch.utils.data.ChainDataset",
        "torch.utils.data.Subset",
        "torch.utils.data.dataset.Subset",
        "torchvision.datasets.VisionDataset",
        "torchvision.datasets.vision.VisionDataset",
        "torchvision.datasets.DatasetFolder",
        "torchvision.datasets.ImageFolder",
        "torchvision.datasets.folder.DatasetFolder",
        "torchvision.datasets.folder.ImageFolder",
    }
)

#: torch's iterable-style Dataset base: its workers may deliberately share a seed to split shards.
TORCH_ITERABLE_DATASET_BASES = frozenset(
    {"torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"}
)

#: Calls that return whatever object was saved: an instance of any project class.
OBJECT_LOADERS = frozenset(
    {"torch.load", "pickle.load", "pickle.loads", "joblib.load", "dill.load", "dill.loads"}
)

#: torch wrappers whose first argument (or list of arguments) is the wrapped dataset.
TORCH_DATASET_WRAPPERS = frozenset(
    {
        "torch.utils.data.Subset",
        "torch.utils.data.dataset.Subset",
        "torch.utils.data.ConcatDataset",
        "torch.utils.data.dataset.ConcatDataset",
        "torch.utils.data.ChainDataset",
    }
)

#: `random_split(dataset, lengths)`: a list of Subsets of `dataset`, usually unpacked.
RANDOM_SPLIT = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})

#: The keywords a torchvision dataset (every class of `torchvision.datasets`, the
#: `VisionDataset` family) keeps and applies in its own `__getitem__`, once per item.
APPLIED_TRANSFORM_KEYWORDS = ("transform", "target_transform", "transforms")

#: Where the common torchvision datasets take those arguments by position (after `root`
#: at 0); other classes are followed through keywords only.
_FOLDER = {"transform": 1, "target_transform": 2}
_SPLIT_FIRST = {"transform": 2, "target_transform": 3}
APPLIED_TRANSFORM_POSITIONS: dict[str, dict[str, int]] = {
    "ImageFolder": _FOLDER,
    "DatasetFolder": {"transform": 3, "target_transform": 4},
    "VisionDataset": {"transforms": 1, "transform": 2, "target_transform": 3},
    "CIFAR10": _SPLIT_FIRST,
    "CIFAR100": _SPLIT_FIRST,
    "MNIST": _SPLIT_FIRST,
    "FashionMNIST": _SPLIT_FIRST,
    "KMNIST": _SPLIT_FIRST,
    "SVHN": _SPLIT_FIRST,
}


def applies_transforms(qualname: str) -> bool:
    """Return True for a torchvision dataset class, which applies `transform=` per item."""
    module, _, name = qualname.rpartition(".")
    return (module + ".").startswith("torchvision.datasets.") and name[:1].isupper()


#: Third-party transforms that hold a list of callables and call them (all, or some chosen at
#: random) on every item they are applied to; the list is their first argument.
TRANSFORM_CONTAINERS = frozenset(
    f"torchvision.transforms.{module}{name}"
    for module in ("", "transforms.", "v2.", "v2._container.")
    for name in ("Compose", "RandomApply", "RandomChoice", "RandomOrder")
) | frozenset(
    f"albumentations.{module}{name}"
    for module in ("", "core.composition.")
    for name in ("Compose", "OneOf", "SomeOf", "Sequential", "OneOrOther")
)

#: Containers like those, given their steps one by one (`nn.Sequential(a, b)`): each
#: `forward` call runs every step in turn.
SPREAD_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.modules.container.Sequential"})

#: Third-party transform base classes whose `__call__` runs hooks a project subclass
#: overrides, once per item the transform is applied to.
LIBRARY_TRANSFORM_BASES = frozenset(
    f"albumentations.{module}{name}"
    for module in ("", "core.transforms_interface.")
    for name in ("BasicTransform", "ImageOnlyTransform", "DualTransform")
)
LIBRARY_TRANSFORM_HOOKS = (
    "get_params",
    "get_params_dependent_on_data",
    "get_params_dependent_on_targets",
    "update_params",
    "apply",
    "apply_to_mask",
    "apply_to_masks",
    "apply_to_bbox",
    "apply_to_bboxes",
    "apply_to_keypoint",
    "apply_to_keypoints",
)
#: torchvision's v2 transforms: modules whose `forward` calls hooks a subclass overrides.
TORCHVISION_V2_TRANSFORMS = frozenset(
    f"torchvision.transforms.v2.{module}Transform" for module in ("", "_transform.")
)
TORCH_MODULES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
#: Library base classes whose `__call__` runs methods a project subclass defines, on every
#: call: for the first of these a class derives from that defines any, those methods.
CALL_HOOKS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (LIBRARY_TRANSFORM_BASES, LIBRARY_TRANSFORM_HOOKS),
    (TORCH_MODULES | TORCHVISION_V2_TRANSFORMS, ("forward",)),
    # The hooks of torchvision 0.21 and later, then those of earlier releases.
    (TORCHVISION_V2_TRANSFORMS, ("make_params", "transform", "_get_params", "_transform")),
)

GET_WORKER_INFO = frozenset(
    {"torch.utils.data.get_worker_info", "torch.utils.data._utils.worker.get_worker_info"}
)

#: The methods a DataLoader worker calls per item (or per stream, for iterable datasets).
PER_ITEM_METHODS = ("__getitem__", "__getitems__", "__iter__", "__next__")
#: The methods a worker calls first for every item (or stream): where a per-worker reseed goes.
ENTRY_METHODS = ("__getitem__", "__getitems__", "__iter__")

#: Legacy NumPy global-RNG functions that draw random numbers.
NUMPY_LEGACY_DRAWS = frozenset(
    {
        "beta",
        "binomial",
        "bytes",
        "chisquare",
        "choice",
        "dirichlet",
        "exponential",
        "f",
        "gamma",
        "geometric",
        "gumbel",
        "hypergeometric",
        "laplace",
        "logistic",
        "lognormal",
        "logseries",
        "multinomial",
        "multivariate_normal",
        "negative_binomial",
        "noncentral_chisquare",
        "noncentral_f",
        "normal",
        "pareto",
        "permutation",
        "poisson",
        "power",
        "rand",
        "randint",
        "randn",
        "random",
        "random_integers",
        "random_sample",
        "ranf",
        "rayleigh",
        "sample",
        "shuffle",
        "standard_cauchy",
        "standard_exponential",
        "standard_gamma",
        "standard_normal",
        "standard_t",
        "triangular",
        "uniform",
        "vonmises",
        "wald",
        "weibull",
        "zipf",
    }
)
#: Legacy NumPy functions that touch the global RNG state without drawing.
NUMPY_LEGACY_STATE = frozenset({"seed", "get_state", "set_state"})

NUMPY_RANDOM_MODULES = ("numpy.random", "numpy.random.mtrand")


def numpy_legacy_function(qualname: str) -> str | None:
    """Return the function name if `qualname` is a legacy `numpy.random` global function."""
    for module in NUMPY_RANDOM_MODULES:
        prefix = module + "."
        if qualname.startswith(prefix):
            name = qualname[len(prefix) :]
            if name in NUMPY_LEGACY_DRAWS or name in NUMPY_LEGACY_STATE:
                return name
    return None


#: Global-RNG functions that, called without arguments, return one number drawn from
#: [0, 1): `random.random() < p` never holds when `p` is 0 or below.
UNIT_DRAWS = frozenset(
    {
        "random.random",
        *(
            f"{module}.{name}"
            for module in NUMPY_RANDOM_MODULES
            for name in ("rand", "random", "random_sample", "ranf", "sample", "uniform")
        ),
    }
)
#: Global-RNG functions that draw one number from [low, high), given as their first two
#: arguments: called with 0 and 1 (`random.uniform(0, 1)`), they draw from [0, 1) too.
RANGE_DRAWS = frozenset(
    {"random.uniform", *(f"{module}.uniform" for module in NUMPY_RANDOM_MODULES)}
)
#: Global-RNG functions that draw a one-element tensor from [0, 1) when called with 1.
TENSOR_UNIT_DRAWS = frozenset({"torch.rand"})


#: Constructors of RNG objects, which DataLoader never reseeds in workers.
RNG_CONSTRUCTORS = {
    "numpy.random.default_rng": "numpy.random.Generator",
    "numpy.random.Generator": "numpy.random.Generator",
    "numpy.random.RandomState": "numpy.random.RandomState",
    "numpy.random.mtrand.RandomState": "numpy.random.RandomState",
    "numpy.random._generator.Generator": "numpy.random.Generator",
    "random.Random": "random.Random",
    "random.SystemRandom": "random.SystemRandom",
    "torch.Generator": "torch.Generator",
    "torch._C.Generator": "torch.Generator",
}

#: Python `random` module functions that draw from its global RNG.
PYTHON_RANDOM_DRAWS = frozenset(
    {
        "random.betavariate",
        "random.binomialvariate",
        "random.choice",
        "random.choices",
        "random.expovariate",
        "random.gammavariate",
        "random.gauss",
        "random.getrandbits",
        "random.lognormvariate",
        "random.normalvariate",
        "random.paretovariate",
        "random.randbytes",
        "random.randint",
        "random.random",
        "random.randrange",
        "random.sample",
        "random.shuffle",
        "random.triangular",
        "random.uniform",
        "random.vonmisesvariate",
        "random.weibullvariate",
    }
)

#: torch functions that draw from torch's default generator.
TORCH_DRAWS = frozenset(
    {
        "torch.rand",
        "torch.rand_like",
        "torch.randn",
        "torch.randn_like",
        "torch.randint",
        "torch.randint_like",
        "torch.randperm",
        "torch.normal",
        "torch.bernoulli",
        "torch.multinomial",
        "torch.poisson",
    }
)

#: Functions that reseed a global RNG: qualified name -> the RNG they seed.
GLOBAL_SEEDERS = {
    "numpy.random.seed": "numpy",
    "numpy.random.mtrand.seed": "numpy",
    "random.seed": "random",
    "torch.manual_seed": "torch",
    "torch.random.manual_seed": "torch",
    "torch.cuda.manual_seed": "torch.cuda",
    "torch.cuda.manual_seed_all": "torch.cuda",
}

#: Methods that reseed an RNG object in place.
RNG_SEED_METHODS = frozenset({"seed", "manual_seed", "set_state", "setstate"})

#: Sources of a seed value that never change between epochs, or between runs.
TORCH_INITIAL_SEED = frozenset({"torch.initial_seed", "torch.random.initial_seed"})
TIME_SOURCES = frozenset(
    {
        "time.time",
        "time.time_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.process_time",
        "os.getpid",
        "os.urandom",
        "uuid.uuid4",
        "uuid.uuid1",
        "secrets.randbits",
        "secrets.token_bytes",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
    }
)

#: The clock: unlike OS entropy, workers started within one tick read the same value.
CLOCK_SOURCES = frozenset(
    {
        "time.time",
        "time.time_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.process_time",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
    }
)

#: NumPy's legacy `get_state`: `get_state()[1][0]` is the "seed" a well-known snippet reuses.
NUMPY_GET_STATE = frozenset(f"{module}.get_state" for module in NUMPY_RANDOM_MODULES)

#: Constructors whose first argument (or `seed=`) seeds the RNG they create.
SEEDED_CONSTRUCTORS = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.mtrand.RandomState",
        "numpy.random.SeedSequence",
        "numpy.random.MT19937",
        "numpy.random.PCG64",
        "numpy.random.PCG64DXSM",
        "numpy.random.Philox",
        "numpy.random.SFC64",
        "random.Random",
    }
)

#: Seeding functions whose seed must lie in [0, 2**32): larger values raise ValueError.
NUMPY_32_BIT_SEEDS = frozenset(
    {
        "numpy.random.seed",
        "numpy.random.mtrand.seed",
        "numpy.random.RandomState",
        "numpy.random.mtrand.RandomState",
    }
)

#: Global seeders of third-party libraries that DataLoader workers never reseed.
THIRD_PARTY_SEEDERS = {"imgaug.seed": "imgaug", "imgaug.random.seed": "imgaug"}

#: Functions that return this process's rank in a distributed run.
DISTRIBUTED_RANKS = frozenset(
    {
        "torch.distributed.get_rank",
        "torch.distributed.distributed_c10d.get_rank",
        "torch.distributed.get_node_local_rank",
        "horovod.torch.rank",
        "horovod.torch.local_rank",
        "torch_xla.core.xla_model.get_ordinal",
        "torch_xla.core.xla_model.get_local_ordinal",
        "torch_xla.runtime.global_ordinal",
        "torch_xla.runtime.local_ordinal",
        # Megatron's data-parallel rank: the rank a worker seed mixes in when the ranks of a
        # model-parallel group must draw alike.
        "megatron.core.parallel_state.get_data_parallel_rank",
        "megatron.core.mpu.get_data_parallel_rank",
        "megatron.mpu.get_data_parallel_rank",
    }
)

#: The function that imports a module by a name computed at run time.
IMPORT_MODULE = frozenset({"importlib.import_module"})
#: Looking an attribute up by a name known only at run time.
GETATTR = frozenset({"builtins.getattr"})
#: mmcv's `obj_from_dict(info, parent)`: an instance of the class `parent` (a module) binds
#: under the name `info["type"]`, made from the rest of `info`.
OBJ_FROM_DICT = frozenset(
    {"mmcv.runner.obj_from_dict", "mmcv.runner.utils.obj_from_dict", "mmcv.obj_from_dict"}
)

#: Lightning's data-parallel strategy objects (and the plugins that preceded them, Lightning
#: 1.2-1.5): a script that makes one runs on several processes.
LIGHTNING_DATA_PARALLEL_STRATEGIES = frozenset(
    f"{package}.{module}{name}"
    for package in (
        "pytorch_lightning.strategies",
        "lightning.pytorch.strategies",
        "lightning.fabric.strategies",
        "lightning_fabric.strategies",
    )
    for name, homes in (
        ("DDPStrategy", ("", "ddp.")),
        ("DDPSpawnStrategy", ("", "ddp_spawn.")),
        ("FSDPStrategy", ("", "fsdp.")),
        ("DeepSpeedStrategy", ("", "deepspeed.")),
    )
    for module in homes
) | frozenset(
    f"pytorch_lightning.plugins.{module}{name}"
    for name, homes in (
        ("DDPPlugin", ("", "training_type.", "training_type.ddp.")),
        ("DDPSpawnPlugin", ("", "training_type.", "training_type.ddp_spawn.")),
    )
    for module in homes
)

#: Lightning's strategy for tensor parallelism, data-parallel over `data_parallel_size`
#: replicas (by default one per node).
LIGHTNING_MODEL_PARALLEL_STRATEGIES = frozenset(
    f"{package}.{module}ModelParallelStrategy"
    for package in (
        "pytorch_lightning.strategies",
        "lightning.pytorch.strategies",
        "lightning.fabric.strategies",
        "lightning_fabric.strategies",
    )
    for module in ("", "model_parallel.")
)

#: Environment variables that launchers (torchrun, SLURM, MPI) set to the process's rank.
RANK_ENVIRONMENT = frozenset(
    {
        "RANK",
        "LOCAL_RANK",
        "NODE_RANK",
        "GROUP_RANK",
        "SLURM_PROCID",
        "SLURM_LOCALID",
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "PMI_RANK",
    }
)

#: Ways to read an environment variable by name.
ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv", "os.environ.__getitem__"})
ENVIRONMENT = frozenset({"os.environ"})

#: RNG classes with no state of their own to duplicate (they read os.urandom).
STATELESS_RNGS = frozenset({"random.SystemRandom"})

#: RNG-object methods that only inspect it: calling them is neither a draw nor a reseed.
RNG_INSPECT_METHODS = frozenset(
    {"get_state", "getstate", "initial_seed", "device", "tomaxint", "__repr__", "__getstate__"}
)

#: Draws that decide an order or a selection: what an IterableDataset shards by.
ORDER_DRAWS = frozenset(
    {"shuffle", "permutation", "permuted", "choice", "choices", "sample", "randperm"}
)
#: The functions of NumPy's legacy global RNG among them (`np.random.sample` is not one: it
#: draws floats, like `random_sample`).
NUMPY_LEGACY_ORDER_DRAWS = frozenset({"shuffle", "permutation", "choice"})

#: `functools.partial`, which binds arguments to a worker_init_fn.
PARTIAL = frozenset({"functools.partial"})


#: Method names that objects of libraries have too (torch's `nn.Module` and optimizers,
#: Lightning's Trainer and DataModule, containers, files and processes): calling one on an
#: object of unknown class says nothing about which project class it is.
# fmt: off
LIBRARY_METHOD_NAMES = frozenset({
    "add_module", "apply", "buffers", "children", "compile", "cpu", "cuda", "double", "eval",
    "float", "forward", "half", "load_state_dict", "modules", "named_buffers",
    "named_children", "named_modules", "named_parameters", "parameters", "register_buffer",
    "register_forward_hook", "register_module", "register_parameter", "requires_grad_",
    "share_memory", "state_dict", "to", "train", "type", "zero_grad",
    "step", "add_param_group", "fit", "validate", "test", "predict", "tune", "setup",
    "prepare_data", "teardown", "train_dataloader", "val_dataloader", "test_dataloader",
    "predict_dataloader",
    "get", "set", "pop", "update", "items", "keys", "values", "append", "extend", "copy",
    "clear", "read", "write", "close", "open", "load", "save", "run", "start", "stop", "join",
    "reset", "build", "call", "format", "main",
})
# fmt: on
