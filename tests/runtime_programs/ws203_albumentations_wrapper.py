"""An unseeded albumentations pipeline built by the training code and held by a wrapper."""

import albumentations as A
import numpy as np
from torch.utils.data import DataLoader, Dataset


class ImageOnly:
    def __init__(self, pipeline):
        self.pipeline = pipeline

    def __call__(self, image):
        return self.pipeline(image=image)["image"]


class Tiles(Dataset):
    def __init__(self, transform=None):
        self.image = np.full((4, 4, 3), 0.5, dtype=np.float32)
        self.transform = transform

    def __len__(self):
        return 16

    def __getitem__(self, index):
        image = self.image
        if self.transform is not None:
            image = self.transform(image)
        return float(image.mean())


def make_loader(num_workers, multiprocessing_context=None, persistent_workers=False):
    pipeline = A.Compose([A.RandomBrightnessContrast(brightness_limit=0.4, p=1.0)])
    return DataLoader(
        Tiles(transform=ImageOnly(pipeline)),
        batch_size=2,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing_context,
        persistent_workers=persistent_workers,
    )
