"""MONAI's own Dataset applying a random transform, loaded by torch's DataLoader."""

import numpy as np
from monai.data import Dataset
from monai.transforms import Compose, RandGaussianNoise
from torch.utils.data import DataLoader


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    volumes = [np.zeros((1, 2, 2), dtype=np.float32) for _ in range(16)]
    noisy = Dataset(data=volumes, transform=Compose([RandGaussianNoise(prob=1.0, std=0.5)]))
    return DataLoader(
        noisy,
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
