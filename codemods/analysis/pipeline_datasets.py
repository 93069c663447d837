"""Library datasets that apply an augmentation pipeline per item (MONAI's `CacheDataset(files,
transform)`), as a DataLoader's dataset argument is written."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef, VariableRef
from .rng_object_records import Creation
from .rng_objects import RngIndex

#: MONAI's datasets that apply transforms per item: each one's transform parameters, with
#: their positions (`NPZDictItemDataset(npzfile, keys, transform)`).
_ONE_TRANSFORM = (
    "Dataset",
    "CacheDataset",
    "PersistentDataset",
    "SmartCacheDataset",
    "LMDBDataset",
    "CacheNTransDataset",
    "ZipDataset",
)
_MONAI_DATASETS: dict[str, tuple[tuple[str, int], ...]] = {
    **dict.fromkeys(_ONE_TRANSFORM, (("transform", 1),)),
    "NPZDictItemDataset": (("transform", 2),),
    "GridPatchDataset": (("transform", 2),),
    "PatchDataset": (("transform", 3),),
    "ArrayDataset": (("img_transform", 1), ("seg_transform", 3), ("label_transform", 5)),
    "ImageDataset": (("transform", 3), ("seg_transform", 4), ("label_transform", 5)),
    "MedNISTDataset": (("transform", 2),),
    "DecathlonDataset": (("transform", 3),),
}
_MONAI_MODULES = (
    "monai.data",
    "monai.data.dataset",
    "monai.data.image_dataset",
    "monai.data.grid_dataset",
    "monai.apps",
    "monai.apps.datasets",
)
_THIRD_PARTY_DATASETS = {
    f"{module}.{name}": parameters
    for module in _MONAI_MODULES
    for name, parameters in _MONAI_DATASETS.items()
}


@dataclass(frozen=True)
class ThirdPartyDataset:
    """A library dataset, built at a loader's dataset argument, applying a pipeline per item."""

    #: The dataset class as it is called (`CacheDataset`).
    dataset: str
    pipeline: Creation
    #: The loader's dataset keeps the pipeline as `transform` (not a part of the dataset, or
    #: a pipeline under another name), where a worker_init_fn can reach it.
    held_as_transform: bool


def third_party_datasets(
    index: RngIndex, value: Value, where: FunctionRef
) -> Iterator[ThirdPartyDataset]:
    """Yield the pipelines that a library dataset built as `value` applies per item."""
    project = index.project
    for option, context, whole in _written_values(project, value, where):
        if option.kind is not Kind.CALL or option.base is None:
            continue
        names = sorted(
            project.qualnames(option.base, context.module) & _THIRD_PARTY_DATASETS.keys()
        )
        if not names:
            continue
        for keyword, position in _THIRD_PARTY_DATASETS[names[0]]:
            transform = option.keyword(keyword) or (
                option.args[position] if len(option.args) > position else None
            )
            held = whole and keyword == "transform"
            for made, made_in, _ in _written_values(project, transform, context):
                for creation in index.constructors(made, made_in, None):
                    yield ThirdPartyDataset(names[0].rpartition(".")[2], creation, held)


def _written_values(
    project: Project, value: Value | None, where: FunctionRef, depth: int = 0, whole: bool = True
) -> Iterator[tuple[Value, FunctionRef, bool]]:
    """Yield what `value` may be as written, each with the code it is written in and whether
    it is all of it: a module variable's assigned values (a notebook's or script's
    `train_ds = Dataset(...)`), and for a part of a dataset (`train_ds[:split]`, a subset of
    it), the dataset."""
    if value is None or depth > _MAX_REBINDINGS:
        return
    for option in value.alternatives():
        if option.kind is Kind.SUBSCRIPT and option.base is not None:
            yield from _written_values(project, option.base, where, depth + 1, whole=False)
            continue
        yield option, where, whole
        if option.kind is not Kind.NAME:
            continue
        for target in project.targets(option, where.module):
            module_code = (
                target.module.function("<module>") if isinstance(target, VariableRef) else None
            )
            if isinstance(target, VariableRef) and module_code is not None:
                context = FunctionRef.of(target.module, module_code)
                # Rebound to a part (`ds = ds[:split]`): the loader may get only that part.
                kept = whole and not any(v.kind is Kind.SUBSCRIPT for v in target.values)
                for assigned in target.values:
                    yield from _written_values(project, assigned, context, depth + 1, kept)


#: How many rebindings of a module variable (`ds = ds[:n]`) are followed.
_MAX_REBINDINGS = 3
