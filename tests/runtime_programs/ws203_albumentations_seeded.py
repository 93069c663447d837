"""A Dataset applying an albumentations 2.0.8 pipeline built with `seed=` in `__init__`."""

import albumentations as A
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Brightened(Dataset):
    def __init__(self):
        self.image = np.full((4, 4, 3), 0.5, dtype=np.float32)
        self.augment = A.Compose(
            [A.RandomBrightnessContrast(brightness_limit=0.4, contrast_limit=0.0, p=1.0)],
            seed=137,
        )

    def __len__(self):
        return 16

    def __getitem__(self, index):
        return float(self.augment(image=self.image)["image"].mean())


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    return DataLoader(
        Brightened(),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
