"""A Dataset subclass declaring `__slots__`; its instances still get a `__dict__` from Dataset."""

import random

from torch.utils.data import DataLoader, Dataset


class Slim(Dataset):
    __slots__ = ("rng",)

    def __init__(self, seed=21):
        self.rng = random.Random(seed)

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return self.rng.random()


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Slim(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
