"""Measure which albumentations transforms draw from NumPy's global RNG (run as a script with
an albumentations release on `sys.path`).

    python albumentations_numpy_draws.py draws Perspective HorizontalFlip ...
    python albumentations_numpy_draws.py workers Perspective

`draws`: each transform (p=1, default arguments; Downscale with a scale range) is applied to a
fixed image with Python's `random` seeded alike and NumPy's global state seeded four ways; it
draws from NumPy's global RNG if its output changes with NumPy's state alone. Prints a JSON
object of name -> bool.

`workers`: a DataLoader with 2 workers applies a pipeline of the transform to a fixed image,
as on torch < 1.9: every worker starts from the parent's NumPy state (restored in a
worker_init_fn), `random` and torch seeded per worker as torch does. Prints how many of the 4
pairs of items (k-th item of worker 0, k-th of worker 1) are equal.
"""

from __future__ import annotations

import json
import random
import sys
import warnings

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

warnings.filterwarnings("ignore")
import albumentations as A  # noqa: E402

IMAGE = (np.random.RandomState(0).rand(64, 64, 3) * 255).astype(np.uint8)
OPTIONS = {"Downscale": {"scale_min": 0.2, "scale_max": 0.8}}
PARENT_STATE = np.random.get_state()


def build(name: str) -> A.BasicTransform:
    return getattr(A, name)(p=1.0, **OPTIONS.get(name, {}))


def output(transform: A.BasicTransform, python_seed: int, numpy_seed: int) -> bytes:
    random.seed(python_seed)
    np.random.seed(numpy_seed)
    return np.asarray(transform(image=IMAGE.copy())["image"]).tobytes()


def draws(names: list[str]) -> dict[str, bool]:
    found = {}
    for name in names:
        transform = build(name)
        found[name] = len({output(transform, 7, seed) for seed in range(4)}) > 1
    return found


class Images(Dataset):
    def __init__(self, pipeline: A.Compose) -> None:
        self.pipeline = pipeline

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> bytes:
        return np.asarray(self.pipeline(image=IMAGE.copy())["image"]).tobytes()


def as_before_torch_1_9(worker_id: int) -> None:
    np.random.set_state(PARENT_STATE)


def equal_pairs(name: str) -> int:
    torch.manual_seed(0)
    loader = DataLoader(
        Images(A.Compose([build(name)])),
        batch_size=None,
        num_workers=2,
        worker_init_fn=as_before_torch_1_9,
    )
    items = list(loader)
    return sum(items[2 * k] == items[2 * k + 1] for k in range(4))


if __name__ == "__main__":
    mode, *names = sys.argv[1:]
    if mode == "draws":
        print(json.dumps(draws(names)))
    else:
        print(json.dumps({name: equal_pairs(name) for name in names}))
