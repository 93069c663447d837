"""A Dataset drawing per item from NumPy's global RNG and from a Generator made in `__init__`.

On torch < 1.9 WS101 (NumPy unseeded in workers) and WS201 (an RNG object shared by workers)
both fix this loader.
"""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class TwoSources(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(1234)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return np.random.random(), self.rng.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        TwoSources(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
