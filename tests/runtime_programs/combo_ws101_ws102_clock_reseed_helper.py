"""A Dataset whose helper method reseeds NumPy from the clock, called first in `__getitem__`.

As in combo_ws101_ws102_clock_per_item, only WS102 is reported at first on torch < 1.9.
Its fix deletes the reseed, and with it the helper that did nothing else and the call of
it; the next fix round adds WS101's worker_init_fn.
"""

import time

import numpy as np
from torch.utils.data import DataLoader, Dataset


class ClockSeeded(Dataset):
    def __len__(self):
        return 16

    def _reseed(self):
        seed = int(time.time())
        np.random.seed(seed)

    def __getitem__(self, index):
        self._reseed()
        return np.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        ClockSeeded(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
