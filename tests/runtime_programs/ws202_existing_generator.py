"""A Dataset that owns a seeded Generator, and still draws from NumPy's global RNG as well."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Mixed(Dataset):
    def __init__(self, seed=5):
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.rng.normal() + np.random.rand()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Mixed(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
