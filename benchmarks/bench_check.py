"""Time `workerseed check` on a large tree and print files per second.

    python benchmarks/bench_check.py                 # a generated tree of 5,000 files
    python benchmarks/bench_check.py --files 20000   # a larger generated tree
    python benchmarks/bench_check.py --path ~/src    # a real tree (e.g. fetched repositories)

This is a benchmark, not a test: nothing asserts a time. Each run is a fresh process per
repetition (`python -m cli.main check`), so imports and process-pool start-up count, as they
do for users.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_MODEL = '''"""Model code that never touches data loading."""

import torch
from torch import nn


class Block{n}(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(torch.relu(self.linear(x))) + x


def build_{n}(depth: int = 4, width: int = 64) -> nn.Module:
    return nn.Sequential(*[Block{n}(width) for _ in range(depth)])
'''

_DATASET = '''"""A dataset with per-item augmentation."""

import numpy as np
from torch.utils.data import Dataset


def jitter_{n}(x, scale=0.1):
    return x + np.random.normal(0.0, scale)


class Set{n}(Dataset):
    def __init__(self, items, seed=0):
        self.items = items
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        flip = self.rng.random() < 0.5
        return jitter_{n}(self.items[index]) * (-1 if flip else 1)
'''

_TRAIN = '''"""Training entry point."""

import torch
from torch.utils.data import DataLoader

from pkg{p}.data_{n} import Set{n}


def worker_init(worker_id):
    import numpy as np
    np.random.seed(worker_id)


def main(args):
    # An installed workerseed runs from compiled bytecode: with writing it turned off, every
    # run would also time compiling the tool's own modules (about 0.15 s).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    loader = DataLoader(Set{n}(list(range(100))), batch_size=8, num_workers=args.workers,
                        worker_init_fn=worker_init)
    for batch in loader:
        torch.mean(batch)
'''


def generate(root: Path, count: int) -> None:
    """Write `count` files: mostly model code, some datasets and training scripts."""
    generator = random.Random(0)
    packages = max(1, count // 200)
    for p in range(packages):
        (root / f"pkg{p}").mkdir(parents=True)
        (root / f"pkg{p}" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "bench"\ndependencies = ["torch>=2.0"]\n'
    )
    for n in range(count - packages):
        p = n % packages
        kind = generator.random()
        if kind < 0.03:
            text, name = _DATASET.format(n=n), f"data_{n}.py"
            (root / f"pkg{p}" / f"train_{n}.py").write_text(_TRAIN.format(n=n, p=p))
        else:
            text, name = _MODEL.format(n=n), f"model_{n}.py"
        (root / f"pkg{p}" / name).write_text(text)


def count_files(root: Path) -> int:
    return sum(1 for path in root.rglob("*.py") if ".git" not in path.parts)


def time_check(root: Path, extra: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "cli.main", "check", str(root), "--quiet", "--exit-zero", *extra],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=Path(__file__).resolve().parent.parent,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--path", type=Path, help="a tree to check instead of a generated one")
    parser.add_argument("--files", type=int, default=5000, help="files in the generated tree")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, help="passed to --jobs")
    args = parser.parse_args()
    extra = ["--no-cache"] + (["--jobs", str(args.jobs)] if args.jobs else [])
    with tempfile.TemporaryDirectory() as scratch:
        root = args.path
        if root is None:
            root = Path(scratch) / "tree"
            generate(root, args.files)
        files = count_files(root)
        times = [time_check(root, extra) for _ in range(args.repeat)]
    best, median = min(times), statistics.median(times)
    print(f"{files} files: best {best:.2f} s ({files / best:,.0f} files/s), median {median:.2f} s")


if __name__ == "__main__":
    main()
