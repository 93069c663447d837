"""A DataLoader subclass that gives its base `worker_init_fn=None` whatever it is passed."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Jitter(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return torch.tensor(np.random.random(), dtype=torch.float64)


class CountingLoader(DataLoader):
    def __init__(self, dataset, num_workers=0, worker_init_fn=None, **options):
        self.served = 0
        super().__init__(
            dataset,
            batch_size=2,
            num_workers=num_workers,
            worker_init_fn=None,
            **options,
        )


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return CountingLoader(
        Jitter(),
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
