"""A Dataset with `np.random.Generator(np.random.PCG64(seed))` made by a factory method."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Speed(Dataset):
    def __init__(self, seed=99):
        self.rng = self._make_rng(seed)

    @staticmethod
    def _make_rng(seed):
        return np.random.Generator(np.random.PCG64(seed))

    def __len__(self):
        return 16

    def __getitem__(self, index):
        """Return a random playback speed."""
        return self.rng.uniform(0.9, 1.1)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Speed(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
