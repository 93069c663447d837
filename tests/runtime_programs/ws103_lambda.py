"""A lambda worker_init_fn defined inside the function that builds the loader (case 10)."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noise(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Noise(),
        batch_size=2,
        num_workers=num_workers,
        worker_init_fn=lambda worker_id: np.random.seed(worker_id),
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
