"""A Dataset that draws from NumPy's global RNG per item (the classic worker-seeding bug)."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class JitterDataset(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return np.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        JitterDataset(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
