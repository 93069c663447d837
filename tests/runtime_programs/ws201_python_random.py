"""A Dataset drawing per item from a `random.Random` (no NumPy anywhere)."""

import random

from torch.utils.data import DataLoader, Dataset


class Masking(Dataset):
    def __init__(self, seed=42):
        self.random = random.Random(seed)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Masking(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
