"""As ws201_third_party, with a worker_init_fn of its own that must keep running."""

import random

import numpy as np
import torch
from runtime_programs.ws201_library import ExternalNoise, note_worker_init
from torch.utils.data import DataLoader


def seed_worker(worker_id):
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    note_worker_init(worker_id)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        ExternalNoise(16, rng=random.Random(3)),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
        worker_init_fn=seed_worker,
    )
