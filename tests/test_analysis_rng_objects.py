"""Unit tests for codemods.analysis.rng_objects: which RNG objects per-item code draws from."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods.analysis.datasets import dataset_classes
from codemods.analysis.project import Project
from codemods.analysis.rng_object_records import UseKind
from codemods.analysis.rng_objects import RngIndex
from codemods.summaries import Parsed, summarise_source
from codemods.types import SourceFile, TorchTarget

HEADER = """\
import random
import numpy as np
import torch
from numpy.random import default_rng
from torch.utils.data import Dataset, IterableDataset, get_worker_info
"""


def _draws(body: str) -> set[tuple[str, str, str]]:
    """Return (dataset, object label, constructor) for each RNG object drawn per item."""
    text = HEADER + textwrap.dedent(body)
    path = Path("/project/data.py")
    source = SourceFile(path, text.encode(), text, "utf-8", False, 0o644)
    parsed = summarise_source(source, path.parent)
    assert isinstance(parsed, Parsed)
    project = Project(path.parent, [parsed.facts], TorchTarget(None))
    index = RngIndex(project)
    found = set()
    for dataset in dataset_classes(project):
        per_item = index.per_item(dataset)
        for use in per_item.uses:
            if use.kind is UseKind.DRAW and use.obj.created_in not in per_item.functions:
                found.add((dataset.name, use.obj.label, use.obj.creation.constructor))
    return found


CASES = [
    pytest.param(
        """
        class D(Dataset):
            def __init__(self):
                self.rng = np.random.default_rng(0)
            def __getitem__(self, i):
                return self.rng.random()
        """,
        {("D", "self.rng", "np.random.default_rng")},
        id="attribute created in __init__",
    ),
    pytest.param(
        """
        class D(Dataset):
            def __init__(self):
                self.rng = default_rng()
            def __getitem__(self, i):
                rng = self.rng
                return rng.integers(3)
        """,
        {("D", "self.rng", "np.random.default_rng")},
        id="follows from-import and a local alias",
    ),
    pytest.param(
        """
        class D(Dataset):
            def __init__(self, seed):
                self.gen = torch.Generator().manual_seed(seed)
            def __getitem__(self, i):
                return torch.rand(2, generator=self.gen)
        """,
        {("D", "self.gen", "torch.Generator().manual_seed")},
        id="chained manual_seed, passed as generator=",
    ),
    pytest.param(
        """
        class D(Dataset):
            def __init__(self):
                self.rng = np.random.Generator(np.random.PCG64(1))
            def __getitem__(self, i):
                return self.rng.random()
        """,
        {("D", "self.rng", "np.random.Generator")},
        id="Generator of a bit generator",
    ),
    pytest.param(
        """
        class D(Dataset):
            def __init__(self):
                self.rng = self._make()
            def _make(self):
                return random.Random(4)
            def __getitem__(self, i):
                return self.rng.random()
        """,
        {("D", "self.rng", "random.Random")},
        id="factory method returning a constructor",
    ),
    pytest.param(
        """
        class Flip:
            def __init__(self, rng):
                self.rng = rng
            def __call__(self, x):
                return self.rng.random()
        class D(Dataset):
            def __init__(self):
                self.rng = np.random.RandomState(0)
                self.flip = Flip(self.rng)
            def __getitem__(self, i):
                return self.flip(i)
        """,
        {("D", "self.rng", "np.random.RandomState")},
        id="a transform holding the dataset's RNG",
    ),
    pytest.param(
        """
        RNG = np.random.default_rng(0)
        class D(Dataset):
            shared = random.Random(1)
            def __getitem__(self, i):
                return RNG.random() + self.shared.random()
        """,
        {("D", "RNG", "np.random.default_rng"), ("D", "D.shared", "random.Random")},
        id="module level and class attribute",
    ),
    pytest.param(
        """
        class D(Dataset):
            def __init__(self):
                self.rng = np.random.default_rng(0)
                self.order = self.rng.permutation(10)
            def __getitem__(self, i):
                return self.order[i]
        """,
        set(),
        id="used only in __init__",
    ),
    pytest.param(
        """
        class D(Dataset):
            def __getitem__(self, i):
                rng = np.random.default_rng(i)
                return rng.random() + np.random.rand()
        """,
        set(),
        id="created per item, and the global RNG",
    ),
    pytest.param(
        """
        class D(Dataset):
            def __init__(self):
                self.rng = random.SystemRandom()
            def __getitem__(self, i):
                return self.rng.random()
        """,
        set(),
        id="SystemRandom has no state to copy",
    ),
    pytest.param(
        """
        class Noise:
            def __init__(self):
                self.rng = np.random.default_rng(0)
            def __call__(self, x):
                return self.rng.random()
        class D(Dataset):
            def __getitem__(self, i):
                return Noise()(i)
        """,
        set(),
        id="a transform created per item",
    ),
    pytest.param(
        """
        class Options:
            rng = np.random.RandomState(7)
        class D(Dataset):
            def __init__(self, rng):
                self.rng = rng
            def __getitem__(self, i):
                return self.rng.random()
        class Builder:
            def __init__(self, opts):
                self.opts = opts
            def build(self):
                return D(self.opts.rng)
        Builder(Options()).build()
        """,
        {("D", "Options.rng", "np.random.RandomState")},
        id="an attribute of an object the caller holds, passed in",
    ),
    pytest.param(
        """
        class Sections(dict):
            __getattr__ = dict.__getitem__
        class Config:
            data = Sections(rng=np.random.default_rng(3), size=8)
        class D(Dataset):
            def __init__(self, rng):
                self.rng = rng
            def __getitem__(self, i):
                return self.rng.random()
        def make(cfg):
            return D(cfg.data.rng)
        make(Config())
        """,
        {("D", "self.rng", "np.random.default_rng")},
        id="an entry of a configuration section, passed in",
    ),
    pytest.param(
        """
        class Config:
            data = {"rng": np.random.default_rng(3), "other": None}
        class D(Dataset):
            def __init__(self, cfg):
                self.rng = cfg.data["other"]
                self.seeded = cfg.data["rng"]
            def __getitem__(self, i):
                return self.rng.random()
        D(Config())
        """,
        set(),
        id="another entry of a configuration section, stored and not drawn from",
    ),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_drawn_objects(body: str, expected: set[tuple[str, str, str]]) -> None:
    assert _draws(body) == expected
