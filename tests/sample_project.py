"""The smallest buggy project: a Dataset drawing from NumPy's global RNG, and its loader."""

from __future__ import annotations

from pathlib import Path

DATA = """\
import numpy as np
from torch.utils.data import Dataset


class NoisyDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()
"""

#: A loader that starts workers: WS101 on torch < 1.9.
LOADER = """\
from torch.utils.data import DataLoader

from data import NoisyDataset

loader = DataLoader(NoisyDataset(), num_workers=4)
"""

#: The same loader without workers: nothing to report.
CLEAN = LOADER.replace(", num_workers=4", "")


def make_repository(root: Path) -> Path:
    """Write the sample project (torch 1.8, one buggy loader in train.py) into `root`."""
    root.mkdir()
    (root / ".git").mkdir()
    (root / "requirements.txt").write_text("torch==1.8.1\n", encoding="utf-8")
    (root / "data.py").write_text(DATA, encoding="utf-8")
    (root / "train.py").write_text(LOADER, encoding="utf-8")
    return root


#: A Dataset and its loader in one script: WS101 on torch < 1.9, at the loader (line 13).
SCRIPT = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()


loader = DataLoader(Noisy(), num_workers=2)
"""
