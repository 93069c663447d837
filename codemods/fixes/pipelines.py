"""The helper WS203 inserts: reseed an augmentation pipeline once per DataLoader worker."""

from __future__ import annotations

from ..analysis.augmentations import RESEED_PIPELINE
from ..analysis.facts import ModuleFacts
from ..types import AddHelper, AddImport
from .imports import module_reference, symbol_reference


def reseed_pipeline_helper(module: ModuleFacts) -> tuple[AddHelper, tuple[AddImport, ...]]:
    """Return the module-level helper for `module`, and the imports it needs there."""
    torch = module_reference(module, "torch", "torch")
    get_worker_info = symbol_reference(module, "torch.utils.data", "get_worker_info", via=torch)
    code = f'''
def {RESEED_PIPELINE}(owner, path=""):
    """Reseed the pipeline `owner.<path>` once per DataLoader worker, as workers start with
    copies of its random state: from the worker seed (new per worker and epoch, reproducible
    under torch.manual_seed) and its own seed=. A no-op in the main process."""
    info = {get_worker_info.expression}()
    pipeline = owner
    for attribute in filter(None, path.split(".")):
        pipeline = getattr(pipeline, attribute, None)
    if info is None or pipeline is None:
        return
    if getattr(pipeline, "_reseeded_for_worker_seed", None) == info.seed:
        return
    pipeline._reseeded_for_worker_seed = info.seed
    if hasattr(pipeline, "set_random_seed"):  # albumentations
        pipeline.set_random_seed((info.seed + (getattr(pipeline, "seed", None) or 0)) % 2**32)
    elif hasattr(pipeline, "seed_"):  # imgaug
        pipeline.seed_(info.seed % 2**32)
    elif hasattr(pipeline, "reseed"):  # imgaug before 0.4
        pipeline.reseed(info.seed % 2**32)
    elif hasattr(pipeline, "set_random_state"):  # MONAI
        pipeline.set_random_state(seed=info.seed % 2**32)
'''
    return AddHelper(RESEED_PIPELINE, code), get_worker_info.imports


def reseed_dataset_transform_function(
    name: str, module: ModuleFacts
) -> tuple[str, tuple[AddImport, ...]]:
    """Return a `worker_init_fn` reseeding the `transform` of a third-party dataset (MONAI's)."""
    torch = module_reference(module, "torch", "torch")
    get_worker_info = symbol_reference(module, "torch.utils.data", "get_worker_info", via=torch)
    code = f'''
def {name}(worker_id):
    """worker_init_fn: give this worker's copy of the dataset's transform its own stream."""
    {RESEED_PIPELINE}({get_worker_info.expression}().dataset, "transform")
'''
    return code, get_worker_info.imports
