"""A Dataset that reseeds NumPy from the clock at the top of `__getitem__`, then draws.

On torch < 1.9 only WS102 is reported at first: the NumPy state a worker inherits is never
drawn from. Deleting the reseed exposes the draw, and the next fix round adds WS101's
worker_init_fn. Items loaded within the same second share the seed, in every worker.
"""

import time

import numpy as np
from torch.utils.data import DataLoader, Dataset


class ClockSeeded(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        np.random.seed(int(time.time()))
        return np.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        ClockSeeded(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
