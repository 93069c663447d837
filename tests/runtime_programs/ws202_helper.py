"""Per-item code draws from NumPy's global RNG in module-level helpers of its own module."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


def add_noise(value, sigma=1.0):
    return value + np.random.normal(0.0, sigma)


def augment(value):
    return add_noise(value * np.random.uniform(0.5, 1.5))


class Signals(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return augment(1.0)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Signals(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
