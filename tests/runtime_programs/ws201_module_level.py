"""A module-level RandomState drawn by a module function that `__getitem__` calls."""

import numpy as np
from torch.utils.data import DataLoader, Dataset

RNG = np.random.RandomState(2024)


def random_gain():
    return RNG.uniform(0.5, 1.5)


class Gains(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return random_gain()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Gains(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
