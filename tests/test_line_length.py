"""A fix keeps the lines it grows within the project's line length, as its formatter would."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemods import Changed, Settings, run_paths
from codemods.files import write_atomic
from codemods.fixes.code_style import DEFAULT_LINE_LENGTH, configured_line_length

RUFF = [sys.executable, "-m", "ruff"]


def _ruff_available() -> bool:
    return subprocess.run([*RUFF, "--version"], capture_output=True, check=False).returncode == 0


needs_ruff = pytest.mark.skipif(not _ruff_available(), reason="needs ruff (the test extra)")


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("ruff.toml", "line-length = 100\n", 100),
        (".ruff.toml", "line-length = 79\n", 79),
        ("pyproject.toml", "[tool.ruff]\nline-length = 120\n", 120),
        ("pyproject.toml", "[tool.black]\nline-length = 99\n", 99),
        ("pyproject.toml", "[tool.ruff.lint]\nselect = ['E']\n", DEFAULT_LINE_LENGTH),
        ("pyproject.toml", "[tool.ruff]\nline-length = 'wide'\n", DEFAULT_LINE_LENGTH),
        ("pyproject.toml", "[tool.ruff\n", DEFAULT_LINE_LENGTH),
        ("setup.cfg", "[flake8]\nmax-line-length = 110\n", 110),
        ("tox.ini", "[flake8]\nmax-line-length = 127\n", 127),
        (".flake8", "[flake8]\nmax-line-length = 90\n", 90),
        ("setup.cfg", "[flake8]\nmax-line-length = many\n", DEFAULT_LINE_LENGTH),
        ("setup.cfg", "[metadata]\nname = x\n", DEFAULT_LINE_LENGTH),
    ],
)
def test_configured_line_length(tmp_path: Path, name: str, text: str, expected: int) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert configured_line_length(tmp_path) == expected


def test_ruff_setting_comes_before_black_and_flake8(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.black]\nline-length = 99\n[tool.ruff]\nline-length = 110\n", encoding="utf-8"
    )
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 79\n", encoding="utf-8")
    assert configured_line_length(tmp_path) == 110


# Already formatted by ruff at 88 columns; each DataLoader gets `worker_init_fn=seed_worker`.
FORMATTED = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Jitter(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return index + np.random.normal()


probe = DataLoader(Jitter(), batch_size=4, num_workers=2)
validation_loader = DataLoader(Jitter(), batch_size=4, shuffle=False, num_workers=2)
train = DataLoader(Jitter(), batch_size=32, shuffle=True, num_workers=8, drop_last=True)


class Experiment:
    def loaders(self, workers):
        if workers:
            self.train = DataLoader(Jitter(), batch_size=8, num_workers=workers)
        loader: DataLoader = DataLoader(Jitter(), batch_size=4, num_workers=2)
        self.probe = loader
        return DataLoader(Jitter(), batch_size=4, num_workers=2, pin_memory=True)


def loaders(dataset, workers):
    DataLoader(Jitter(), batch_size=4, shuffle=True, num_workers=workers, drop_last=True)


def epochs(workers):
    for batch in DataLoader(Jitter(), batch_size=4, num_workers=workers):
        print(batch)
    for epoch in range(3):
        for batch in DataLoader(Jitter(), batch_size=16, shuffle=True, num_workers=workers):
            print(epoch, batch)
"""


@needs_ruff
@pytest.mark.parametrize("line_length", [88, 79, 100])
def test_split_calls_are_what_ruff_format_writes(tmp_path: Path, line_length: int) -> None:
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [project]
            name = "sample"
            version = "0"
            dependencies = ["numpy", "torch==1.8.1"]

            [tool.ruff]
            line-length = {line_length}
            """
        ),
        encoding="utf-8",
    )
    module = tmp_path / "loaders.py"
    module.write_text(FORMATTED, encoding="utf-8")
    subprocess.run(
        [*RUFF, "format", "--quiet", "--no-cache", str(module)], cwd=tmp_path, check=True
    )
    assert _fixed_as_ruff_formats(tmp_path, module).count("worker_init_fn=seed_worker") == 9


def _fixed_as_ruff_formats(root: Path, module: Path) -> str:
    """Fix the project at `root` (only `module` changes), check that ruff's formatter would
    leave the result as it is, and return it."""
    changed = [
        result for result in run_paths([root], Settings(), fix=True) if isinstance(result, Changed)
    ]
    assert [result.source.path for result in changed] == [module]
    write_atomic(changed[0].source, changed[0].new)
    check = subprocess.run(
        [*RUFF, "format", "--check", "--diff", "--no-cache", str(module)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout
    return changed[0].new


HELD_OPTIONS = """\
import numpy as np
import pytorch_lightning as pl
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, index):
        return np.random.permutation(100)[:2]


class PairData(pl.LightningDataModule):
    def __init__(self, batch_size, workers):
        super().__init__()
        self.options = {"batch_size": batch_size, "num_workers": workers}

    def train_dataloader(self):
        return DataLoader(Pairs(), shuffle=True, **self.options)


def main(model, seed):
    pl.seed_everything(seed)
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp")
    trainer.fit(model, datamodule=PairData(32, 8))
"""


@needs_ruff
@pytest.mark.parametrize("line_length", [88, 100])
def test_split_dicts_are_what_ruff_format_writes(tmp_path: Path, line_length: int) -> None:
    """A dict display gaining `"worker_init_fn"` is split as ruff's formatter splits it.

    (At 79 columns the helper the fix adds is itself wider than the line: not tested here.)
    """
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.ruff]\nline-length = {line_length}\n", encoding="utf-8"
    )
    module = tmp_path / "data.py"
    module.write_text(HELD_OPTIONS, encoding="utf-8")
    fixed = _fixed_as_ruff_formats(tmp_path, module)
    assert '"worker_init_fn": seed_worker_per_rank' in fixed
