"""A Dataset holding a NumPy Generator, which a worker_init_fn re-creates from the worker id.

WS201 (an RNG object shared by workers) and WS102 (a worker seed that repeats every epoch)
meet in the worker_init_fn.
"""

import numpy as np
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Jitter(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(1234)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.rng.random()


def seed_worker(worker_id):
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(worker_id)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Jitter(),
        batch_size=2,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
