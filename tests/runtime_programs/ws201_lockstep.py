"""Two generators seeded alike on purpose: image and mask flips must agree."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __init__(self, seed=5):
        self.image_rng = np.random.default_rng(seed)
        self.mask_rng = np.random.default_rng(seed)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.image_rng.random(), self.mask_rng.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Pairs(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
