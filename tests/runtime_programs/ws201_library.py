"""Stands in for a third-party package: a Dataset whose code is not the project's.

The runtime harness writes only the program under test into the project it fixes, so this
module is outside that project, like an installed library.
"""

from torch.utils.data import Dataset

#: Set in a worker by `note_worker_init`, so a test can see that a worker_init_fn ran.
_WORKER_STATE = {"offset": 0.0}


def note_worker_init(worker_id):
    _WORKER_STATE["offset"] = 1000.0


class ExternalNoise(Dataset):
    def __init__(self, size, rng):
        self.size = size
        self.options = {"rng": rng}

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return float(self.options["rng"].random()) + _WORKER_STATE["offset"]
