"""WS101's fix, run with a real DataLoader on torch 2.13 made to behave like torch < 1.9.

torch >= 1.9 seeds NumPy in each worker. Clearing `HAS_NUMPY` in torch's worker module
(inherited by forked workers) restores the old behaviour, and seeding NumPy in the parent
makes the inherited state deterministic, as it was on old torch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch.utils.data._utils.worker as torch_worker
from runtime_support import (
    Pair,
    collect,
    duplicated_across_workers,
    fix_and_import,
    repeated_across_epochs,
)

from codemods import Settings

pytestmark = pytest.mark.runtime

FORK = {"multiprocessing_context": "fork"}


@pytest.fixture
def old_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch_worker, "HAS_NUMPY", False)


@pytest.fixture
def program(tmp_path: Path) -> Pair:
    return fix_and_import("ws101_global_numpy", tmp_path, Settings(torch_version="1.8", jobs=1))


def _run(module: object, **options: object) -> list:  # type: ignore[type-arg]
    np.random.seed(1234)  # the parent state every worker inherits on torch < 1.9
    return collect(module, **options)  # type: ignore[arg-type]


@pytest.mark.usefixtures("old_torch")
def test_unfixed_program_repeats_across_workers_and_epochs(program: Pair) -> None:
    draws = _run(program.before, num_workers=2, epochs=3, **FORK)
    assert duplicated_across_workers(draws) == len(draws)
    assert repeated_across_epochs(draws) == len(draws) * 2 // 3


def test_fix_passes_a_seeding_worker_init_fn(program: Pair) -> None:
    assert "worker_init_fn=seed_worker" in program.fixed_source


def test_fixed_program_works_under_spawn(program: Pair) -> None:
    draws = collect(program.after, num_workers=2, epochs=2, multiprocessing_context="spawn")
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0


@pytest.mark.usefixtures("old_torch")
@pytest.mark.parametrize(
    ("name", "fixed"),
    [
        pytest.param("ws101_collate_draws", "worker_init_fn=seed_worker", id="collate_fn draws"),
        # The subclass ignores what it is passed: the fix goes where it calls its base.
        pytest.param(
            "ws101_loader_subclass",
            "worker_init_fn=seed_worker,\n            **options",
            id="subclass fixing worker_init_fn in its base call",
        ),
    ],
)
def test_draws_repeat_until_fixed(tmp_path: Path, name: str, fixed: str) -> None:
    program = fix_and_import(name, tmp_path, Settings(torch_version="1.8", jobs=1))
    before = _run(program.before, num_workers=2, epochs=3, **FORK)
    assert duplicated_across_workers(before) == len(before)
    assert fixed in program.fixed_source
    after = _run(program.after, num_workers=2, epochs=3, **FORK)
    assert duplicated_across_workers(after) == 0
    assert repeated_across_epochs(after) == 0
