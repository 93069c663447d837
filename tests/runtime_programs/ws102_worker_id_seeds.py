"""A worker_init_fn that reseeds NumPy, `random` and torch from the worker id (cases 5, 5b, 6).

Each item is one draw from each of the three global RNGs.
"""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class ThreeDraws(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return np.random.random(), random.random(), torch.rand(()).item()


def worker_init_fn(worker_id):
    np.random.seed(np.random.get_state()[1][0] + worker_id)
    random.seed(worker_id)
    torch.manual_seed(1000 + worker_id)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        ThreeDraws(),
        batch_size=2,
        num_workers=num_workers,
        worker_init_fn=worker_init_fn,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
