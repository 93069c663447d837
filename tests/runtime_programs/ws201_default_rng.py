"""A Dataset drawing per item from a `np.random.default_rng` created in `__init__`."""

import numpy as np
from torch.utils.data import ConcatDataset, DataLoader, Dataset


class Jitter(Dataset):
    def __init__(self, seed=1234):
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.rng.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False, concat=False):
    dataset = ConcatDataset([Jitter(1), Jitter(2)]) if concat else Jitter()
    return DataLoader(
        dataset,
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
