"""Library functions that seed torch's global RNG, and Lightning's per-rank worker seeding."""

from __future__ import annotations

#: Third-party functions that seed torch's global RNG (among others).
LIGHTNING_SEED_EVERYTHING = frozenset(
    {
        "pytorch_lightning.seed_everything",
        "pytorch_lightning.trainer.seed_everything",  # Lightning 1.x, beside the Trainer
        "pytorch_lightning.utilities.seed.seed_everything",
        "lightning.seed_everything",
        "lightning.pytorch.seed_everything",
        "lightning.pytorch.utilities.seed.seed_everything",
        "lightning.fabric.seed_everything",
        "lightning.fabric.utilities.seed.seed_everything",
        "lightning_fabric.seed_everything",
        "lightning_fabric.utilities.seed.seed_everything",
    }
)
#: Libraries' seeders that add the rank to the seed when an option asks (by keyword, or at
#: a position): accelerate's `set_seed(seed, device_specific=True)`, mmcv's and MMEngine's
#: `set_random_seed(seed, deterministic, use_rank_shift)`. Alike on every rank otherwise.
RANK_OPTION_SEEDERS: dict[str, tuple[str, int]] = {
    "accelerate.utils.set_seed": ("device_specific", 1),
    "accelerate.utils.random.set_seed": ("device_specific", 1),
    "mmcv.runner.set_random_seed": ("use_rank_shift", 2),
    "mmcv.runner.utils.set_random_seed": ("use_rank_shift", 2),
    "mmengine.runner.set_random_seed": ("diff_rank_seed", 2),
    "mmengine.runner.utils.set_random_seed": ("diff_rank_seed", 2),
}
#: Other libraries' functions that seed torch's global RNG (among others) from their seed
#: argument alone: the same on every rank that passes the same seed.
TORCH_SEEDERS = frozenset(
    {
        "transformers.set_seed",
        "transformers.trainer_utils.set_seed",
        "pytorch_toolbelt.utils.random.set_manual_seed",
        "catalyst.utils.set_global_seed",
        "catalyst.utils.misc.set_global_seed",
        "catalyst.utils.seed.set_global_seed",
        "ignite.utils.manual_seed",
        "torch_geometric.seed_everything",
        "torch_geometric.seed.seed_everything",
        "mmdet.apis.set_random_seed",
        "mmdet.apis.train.set_random_seed",
        "mmseg.apis.set_random_seed",
        "mmseg.apis.train.set_random_seed",
        "mmcls.apis.set_random_seed",
        "mmcls.apis.train.set_random_seed",
        "mmdet3d.apis.set_random_seed",
        "mmdet3d.apis.train.set_random_seed",
        # Without a seed it draws one per process; `default_setup` adds the rank itself.
        "detectron2.utils.env.seed_all_rng",
        # lhotse's (and icefall's recipes'), also used as a worker_init_fn's reseed.
        "lhotse.fix_random_seed",
        "lhotse.utils.fix_random_seed",
    }
)
#: Library functions that seed `random`, NumPy's global RNG and torch's from one seed: in a
#: worker_init_fn or per-item code they reseed all three, as a project's `set_seed` would.
SEED_ALL: dict[str, tuple[str, ...]] = dict.fromkeys(
    (*LIGHTNING_SEED_EVERYTHING, *RANK_OPTION_SEEDERS, *TORCH_SEEDERS), ("numpy", "random", "torch")
)
#: Lightning's worker_init_fn, which mixes the global rank into every worker's seed.
LIGHTNING_WORKER_INIT = frozenset(
    {
        "pytorch_lightning.utilities.seed.pl_worker_init_function",
        "lightning.pytorch.utilities.seed.pl_worker_init_function",
        "lightning.fabric.utilities.seed.pl_worker_init_function",
        "lightning_fabric.utilities.seed.pl_worker_init_function",
    }
)
