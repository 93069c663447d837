"""A `random.Random` class attribute, drawn through `self` and through the class name."""

import random

from torch.utils.data import DataLoader, Dataset


class Colors(Dataset):
    rng = random.Random(11)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.rng.random() + Colors.rng.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Colors(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
