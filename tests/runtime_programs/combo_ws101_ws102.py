"""A Dataset that reseeds NumPy once per worker from the worker id, then draws from NumPy.

On torch < 1.9 WS101 (NumPy unseeded in workers) and WS102 (an epoch-invariant reseed) meet
here: a worker_init_fn would run before the reseed and be overridden by it.
"""

import numpy as np
from torch.utils.data import DataLoader, Dataset, get_worker_info


class OncePerWorker(Dataset):
    def __init__(self):
        self.seeded = False

    def __len__(self):
        return 16

    def __getitem__(self, index):
        info = get_worker_info()
        if info is not None and not self.seeded:
            np.random.seed(info.id)
            self.seeded = True
        return np.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        OncePerWorker(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
