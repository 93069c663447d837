"""A Dataset drawing per item from a `np.random.RandomState` created by a helper of `__init__`."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Crops(Dataset):
    def __init__(self, seed=7):
        self._setup(seed)

    def _setup(self, seed):
        self.random_state = np.random.RandomState(seed)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.random_state.uniform()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Crops(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
