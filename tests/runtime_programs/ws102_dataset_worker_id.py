"""A Dataset that reseeds NumPy from `get_worker_info().id` in `__getitem__`.

Every item a worker loads then repeats the same draw, in every epoch.
"""

import numpy as np
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Reseeding(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        info = get_worker_info()
        if info is not None:
            np.random.seed(info.id)
        return np.random.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Reseeding(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
