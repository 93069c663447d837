"""A Dataset drawing per item from `torch.Generator().manual_seed(seed)`."""

import torch
from torch.utils.data import DataLoader, Dataset


class Dropout(Dataset):
    def __init__(self, seed=3):
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return torch.rand((), generator=self.generator, dtype=torch.float64)


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Dropout(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
