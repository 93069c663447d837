"""A Dataset applying a MONAI random transform built in `__init__`, with torch's DataLoader."""

import numpy as np
from monai import transforms as mt
from torch.utils.data import DataLoader, Dataset


class Volumes(Dataset):
    def __init__(self):
        self.volume = np.zeros((1, 2, 2), dtype=np.float32)
        self.augment = mt.Compose([mt.RandGaussianNoise(prob=1.0, std=0.5)])

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return float(np.asarray(self.augment(self.volume)).mean())


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Volumes(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
