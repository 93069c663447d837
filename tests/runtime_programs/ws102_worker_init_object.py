"""A callable object as worker_init_fn (NVIDIA's `WorkerInitObj`), reseeding NumPy and
`random` from a configured seed plus the worker id.

Each item is one draw from each of the two global RNGs.
"""

import random

import numpy as np
from torch.utils.data import DataLoader, Dataset


class TwoDraws(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return np.random.random(), random.random()


class WorkerInitObj:
    def __init__(self, seed):
        self.seed = seed

    def __call__(self, worker_id):
        np.random.seed(seed=self.seed + worker_id)
        random.seed(self.seed + worker_id)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        TwoDraws(),
        batch_size=2,
        num_workers=num_workers,
        worker_init_fn=WorkerInitObj(42),
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
