"""A collate_fn that draws from NumPy's global RNG while batching (CutMix-style boxes)."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Indices(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return index


def mix_boxes(items):
    return torch.tensor([np.random.random() for _ in items], dtype=torch.float64)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Indices(),
        batch_size=2,
        num_workers=num_workers,
        collate_fn=mix_boxes,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
