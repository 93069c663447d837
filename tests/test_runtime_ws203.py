"""WS203's fix, run with albumentations 2.0.8 and MONAI 1.6.1 and a real DataLoader (torch 2.13).

albumentations 2.0.8 (the newest release of that distribution) gives each transform its
own generators at construction; every worker gets a copy. Before the fix workers repeat each
other and every epoch repeats the first; after it, draws are distinct across workers and
epochs, reproducible under `torch.manual_seed`, and unchanged with `num_workers=0`.
MONAI 1.6.1 (its `Rand*` transforms hold `self.R`) runs the same tests when installed.
imgaug 0.4.0 needs NumPy < 1.24, which cannot be installed next to NumPy 2: its fix shape is
covered by the fixtures only.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import runpy
from pathlib import Path

import numpy as np
import pytest
import torch
from runtime_support import (
    Programs,
    collect,
    duplicated_across_workers,
    repeated_across_epochs,
    values,
)
from torch.utils.data import DataLoader, Dataset

from codemods import Settings

pytest.importorskip("albumentations")
pytestmark = pytest.mark.runtime

SETTINGS = Settings(
    select=("WS203",),
    jobs=1,
    cache=False,
    library_versions=(("albumentations", "2.0.8", "test"),),
)
PROGRAMS = {
    "ws203_albumentations_seeded": '_reseed_pipeline_in_worker(self, "augment")',
    "ws203_albumentations_wrapper": '_reseed_pipeline_in_worker(self, "transform.pipeline")',
}
if importlib.util.find_spec("monai") is not None:
    PROGRAMS["ws203_monai"] = '_reseed_pipeline_in_worker(self, "augment")'
    PROGRAMS["ws203_monai_dataset"] = "worker_init_fn=_reseed_dataset_transform"
#: Built with seed=: the same in every run, so the main process can be compared.
SEEDED = "ws203_albumentations_seeded"
FORK = {"multiprocessing_context": "fork"}


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Programs:
    return Programs(tmp_path_factory, SETTINGS)


@pytest.mark.parametrize("program", PROGRAMS)
def test_fix_has_the_expected_shape(programs: Programs, program: str) -> None:
    assert PROGRAMS[program] in programs.pair(program).fixed_source


@pytest.mark.parametrize("program", PROGRAMS)
def test_unfixed_pipeline_repeats_in_every_worker_and_epoch(
    programs: Programs, program: str
) -> None:
    draws = programs.draws(program, "before", num_workers=2, epochs=2, **FORK)
    assert duplicated_across_workers(draws) == len(draws)
    assert repeated_across_epochs(draws) == len(draws) // 2


@pytest.mark.parametrize("program", PROGRAMS)
def test_fixed_pipeline_is_distinct_in_every_worker_and_epoch(
    programs: Programs, program: str
) -> None:
    draws = programs.draws(program, "after", num_workers=2, epochs=3, **FORK)
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0
    # Reseeded once per worker, not once per item: a worker's items differ too.
    drawn = [draw.value for draw in draws]
    assert len(set(drawn)) == len(drawn)


@pytest.mark.parametrize("program", PROGRAMS)
def test_fixed_pipeline_is_reproducible_under_manual_seed(programs: Programs, program: str) -> None:
    first = programs.draws(program, "after", num_workers=2, epochs=3, **FORK)
    again = collect(programs.pair(program).after, num_workers=2, epochs=3, seed=0, **FORK)
    other = programs.draws(program, "after", num_workers=2, epochs=3, seed=1, **FORK)
    assert values(first) == values(again)
    assert values(first) != values(other)


def test_fixed_pipeline_is_unchanged_without_workers(programs: Programs) -> None:
    before = programs.draws(SEEDED, "before", num_workers=0, epochs=2)
    after = programs.draws(SEEDED, "after", num_workers=0, epochs=2)
    assert values(before) == values(after)


def test_fixed_pipeline_works_with_persistent_workers(programs: Programs) -> None:
    draws = programs.draws(
        SEEDED, "after", num_workers=2, epochs=3, persistent_workers=True, **FORK
    )
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0


def test_fixed_pipeline_works_under_spawn(programs: Programs) -> None:
    draws = collect(
        programs.pair(SEEDED).after, num_workers=2, epochs=2, multiprocessing_context="spawn"
    )
    assert duplicated_across_workers(draws) == 0
    forked = programs.draws(SEEDED, "after", num_workers=2, epochs=3, **FORK)
    assert values(draws) == values(forked)[: len(draws)]


def test_crop_sized_by_height_builds_no_pipeline_on_albumentations_2() -> None:
    """YOLOv5's wrapper builds `RandomResizedCrop(height=, width=)`: on albumentations 2.0 that
    raises, so its pipeline never exists and the fixture that says so reports nothing."""
    assert importlib.metadata.version("albumentations").startswith("2.0.")
    fixture = (
        Path(__file__).parent.parent
        / "fixtures/augmentation_pipeline_shared_by_workers"
        / "yolov5_crop_sized_by_height_on_albumentations_2_unchanged/before/augmentations.py"
    )
    wrapper = runpy.run_path(str(fixture))["Albumentations"]()
    assert wrapper.transform is None


def test_classification_crop_sized_by_height_builds_nothing_random_on_albumentations_2() -> None:
    """The YOLOv8-style helper raises in its training arm on albumentations 2.0 and returns
    None; its evaluation arm builds a pipeline that gives an image the same output each time.
    So no random pipeline exists, as the fixture that reports nothing says."""
    assert importlib.metadata.version("albumentations").startswith("2.0.")
    fixture = (
        Path(__file__).parent.parent
        / "fixtures/augmentation_pipeline_shared_by_workers"
        / "classify_crop_sized_by_height_on_albumentations_2_unchanged/before/pipelines.py"
    )
    build = runpy.run_path(str(fixture))["classification_pipeline"]
    assert build(augment=True) is None
    evaluation = build(augment=False)
    image = np.random.default_rng(0).integers(0, 255, (300, 260, 3), dtype=np.uint8)
    outputs = [evaluation(image=image)["image"] for _ in range(5)]
    assert all(np.array_equal(outputs[0], output) for output in outputs)


class _ImgaugBefore04:
    """Stands in for an augmenter of imgaug 0.2 / 0.3, which has `reseed(random_state)` and
    no `seed_` (that came with 0.4); its draws come from its own RandomState."""

    def __init__(self) -> None:
        self.random_state = np.random.RandomState(0)

    def reseed(self, random_state: int | None = None, deterministic_too: bool = False) -> None:
        self.random_state = np.random.RandomState(random_state)


class _AugmentedItems(Dataset[int]):
    def __init__(self, reseed: object) -> None:
        self.augment = _ImgaugBefore04()
        self.reseed = reseed

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> int:
        self.reseed(self, "augment")  # type: ignore[operator]
        return int(self.augment.random_state.randint(1 << 30))


def test_helper_reseeds_imgaug_before_0_4_through_reseed(tmp_path: Path) -> None:
    import ast

    from codemods.analysis.extract import extract
    from codemods.fixes.pipelines import reseed_pipeline_helper

    text = "import torch\n"
    module = extract(ast.parse(text), text, tmp_path / "m.py", "m")
    helper, imports = reseed_pipeline_helper(module)
    assert [(i.module, i.obj) for i in imports] == [("torch.utils.data", "get_worker_info")]
    namespace: dict[str, object] = {}
    code = "from torch.utils.data import get_worker_info\n" + helper.code
    exec(compile(code, "helper", "exec"), namespace)
    items = _AugmentedItems(namespace[helper.name])
    loader: DataLoader[int] = DataLoader(
        items, batch_size=4, num_workers=2, multiprocessing_context="fork"
    )
    epochs = [[int(v) for batch in loader for v in batch] for _ in range(2)]
    # Unfixed, every worker and epoch would draw the RandomState(0) stream.
    first_draws = {epoch[0] for epoch in epochs} | {epoch[4] for epoch in epochs}
    assert len(first_draws) == 4


class _NoisePerItem(Dataset[float]):
    """Builds a MONAI `Rand*` transform for every item, as the finding describes."""

    def __init__(self, own_state: bool) -> None:
        self.own_state = own_state

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> float:
        # The test imports it first, in the main process, as a training script would.
        from monai.transforms.intensity.array import RandGaussianNoise

        noise = RandGaussianNoise(prob=1.0)
        if self.own_state:
            noise.set_random_state(seed=(torch.initial_seed() + index) % 2**32)
        return float(np.asarray(noise(np.zeros((1, 4), dtype=np.float32))).sum())


@pytest.mark.skipif(importlib.util.find_spec("monai") is None, reason="MONAI is not installed")
@pytest.mark.parametrize("own_state", [False, True])
def test_monai_transform_built_per_item_repeats_under_fork(own_state: bool) -> None:
    importlib.import_module("monai.transforms.intensity.array")  # before the workers fork
    loader: DataLoader[float] = DataLoader(
        _NoisePerItem(own_state), batch_size=4, num_workers=2, multiprocessing_context="fork"
    )
    epochs = [[float(v) for batch in loader for v in batch] for _ in range(2)]
    # Worker 0 gives items 0-3, worker 1 items 4-7: without a state of its own, each draws
    # the parent's `Randomizable.R` stream, in both workers and in both epochs.
    repeated = epochs[0][:4] == epochs[0][4:] and epochs[0] == epochs[1]
    assert repeated is not own_state
