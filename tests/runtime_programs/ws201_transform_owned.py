"""A transform the dataset holds creates its own RandomState; only the transform draws."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class GaussianNoise:
    def __init__(self, sigma, seed):
        self.sigma = sigma
        self.random_state = np.random.RandomState(seed)

    def __call__(self, x):
        return x + self.random_state.normal(0.0, self.sigma)


class Signals(Dataset):
    def __init__(self):
        self.noise = GaussianNoise(1.0, seed=17)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.noise(0.0)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Signals(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
