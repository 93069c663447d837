"""A Dataset that seeds NumPy from `get_worker_info().id` at a worker's first item only,
behind a flag the seeding sets.

Each epoch's workers start from the same seeds, so every epoch repeats the previous one.
"""

import numpy as np
from torch.utils.data import DataLoader, Dataset, get_worker_info


class SeededOnce(Dataset):
    def __init__(self):
        self.seeded = False

    def __len__(self):
        return 16

    def __getitem__(self, index):
        if not self.seeded:
            info = get_worker_info()
            if info is not None:
                np.random.seed(info.id)
                self.seeded = True
        return np.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        SeededOnce(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
