"""An IterableDataset that shards by worker and draws from NumPy's global RNG per item."""

import numpy as np
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Stream(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        indices = range(16) if info is None else range(info.id, 16, info.num_workers)
        for _ in indices:
            yield np.random.random_sample()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Stream(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
