"""An OpenMMLab-style worker_init_fn: `num_workers * rank + worker_id + seed`, via partial."""

import random
from functools import partial

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class TwoDraws(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return np.random.random(), random.random()


def worker_init_fn(worker_id, num_workers, rank, seed):
    worker_seed = num_workers * rank + worker_id + seed
    np.random.seed(worker_seed)
    random.seed(worker_seed)
    torch.manual_seed(worker_seed)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False, rank=0):
    init_fn = partial(worker_init_fn, num_workers=num_workers, rank=rank, seed=42)
    return DataLoader(
        TwoDraws(),
        batch_size=2,
        num_workers=num_workers,
        worker_init_fn=init_fn,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
