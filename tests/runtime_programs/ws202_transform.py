"""A transform the dataset holds draws from NumPy's global RNG when it is called."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class RandomScale:
    def __init__(self, low, high):
        self.low = low
        self.high = high

    def __call__(self, value):
        return value * np.random.uniform(self.low, self.high) + np.random.standard_normal()


class Images(Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.transform(1.0)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Images(RandomScale(0.5, 2.0)),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
