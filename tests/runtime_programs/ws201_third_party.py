"""A dataset class from outside the project, handed an RNG object: the walker's case."""

import numpy as np
from runtime_programs.ws201_library import ExternalNoise
from torch.utils.data import DataLoader


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        ExternalNoise(16, rng=np.random.default_rng(3)),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
