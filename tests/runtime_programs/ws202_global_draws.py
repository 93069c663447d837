"""A Dataset that draws per item from NumPy's legacy global RNG, through several import forms."""

import numpy as np
import numpy.random as npr
from numpy.random import randint
from torch.utils.data import ConcatDataset, DataLoader, Dataset


class Jitter(Dataset):
    def __init__(self, offset=0.0):
        self.offset = offset

    def __len__(self):
        return 16

    def __getitem__(self, index):
        if np.random.rand() < 0.5:
            sign = -1.0
        else:
            sign = 1.0
        steps = randint(0, 1000)
        return self.offset + sign * (npr.normal(0.0, 1.0) + steps / 1000.0)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False, concat=False):
    dataset = ConcatDataset([Jitter(), Jitter()]) if concat else Jitter()
    return DataLoader(
        dataset,
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
