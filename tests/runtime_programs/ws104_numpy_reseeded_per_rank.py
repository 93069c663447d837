"""A worker_init_fn that tells ranks apart for NumPy only; the items draw from torch and
`random`, which keep torch's worker seeds: alike on every rank seeded alike."""

import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class TwoDraws(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return random.random(), torch.rand(()).item()


def seed_numpy_per_rank(worker_id):
    rank = int(os.environ["RANK"])
    np.random.seed((torch.initial_seed() + rank * 1000) % 2**32)


def make_loader(num_workers, rank=0, world_size=1, multiprocessing_context=None):
    dataset = TwoDraws()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    return DataLoader(
        dataset,
        batch_size=2,
        sampler=sampler,
        num_workers=num_workers,
        worker_init_fn=seed_numpy_per_rank,
        multiprocessing_context=multiprocessing_context,
    )


def train(rank, world_size, address, seed, num_workers, epochs, multiprocessing_context=None):
    """Run one rank; return (epoch, batch index, value) for every number its workers drew."""
    dist.init_process_group("gloo", init_method=address, rank=rank, world_size=world_size)
    try:
        torch.manual_seed(seed)
        loader = make_loader(num_workers, rank, world_size, multiprocessing_context)
        draws = []
        for epoch in range(epochs):
            loader.sampler.set_epoch(epoch)
            for index, batch in enumerate(loader):
                for column in batch:
                    draws.extend((epoch, index, float(value)) for value in column.tolist())
        return draws
    finally:
        dist.destroy_process_group()
