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
    values,
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


@pytest.mark.usefixtures("old_torch")
def test_fixed_program_draws_distinct_numbers_in_every_worker_and_epoch(program: Pair) -> None:
    assert "worker_init_fn=seed_worker" in program.fixed_source
    draws = _run(program.after, num_workers=2, epochs=3, **FORK)
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0


@pytest.mark.usefixtures("old_torch")
def test_fixed_program_is_reproducible_under_manual_seed(program: Pair) -> None:
    first = values(_run(program.after, num_workers=2, seed=7, **FORK))
    second = values(_run(program.after, num_workers=2, seed=7, **FORK))
    other = values(_run(program.after, num_workers=2, seed=8, **FORK))
    assert first == second
    assert first != other


@pytest.mark.usefixtures("old_torch")
def test_fixed_program_is_unchanged_without_workers(program: Pair) -> None:
    before = values(_run(program.before, num_workers=0))
    after = values(_run(program.after, num_workers=0))
    assert before == after


def test_fixed_program_works_under_spawn(program: Pair) -> None:
    draws = collect(program.after, num_workers=2, epochs=2, multiprocessing_context="spawn")
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0
