"""Only a transform draws, from the very RNG object the dataset created and handed to it."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class AddNoise:
    def __init__(self, rng):
        self.rng = rng

    def __call__(self, x):
        return x + self.rng.normal()


class Images(Dataset):
    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.transform = AddNoise(self.rng)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.transform(0.0)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Images(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
