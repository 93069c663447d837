"""WS102's fix, run with a real DataLoader: worker seeds that repeat every epoch, before and after.

Each program reseeds from the worker id (or draws from a Dataset that does); the fixed version
must draw new numbers every epoch, distinct across workers, reproducibly under
`torch.manual_seed`, and unchanged with `num_workers=0` (where no worker_init_fn runs).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch.utils.data._utils.worker as torch_worker
from runtime_support import (
    Draw,
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
PROGRAMS = [
    "ws102_worker_id_seeds",
    "ws102_rank_partial",
    "ws102_dataset_worker_id",
    "ws102_dataset_seeded_once",
    "ws102_worker_init_object",
]


def _run(module: object, **options: object) -> list[Draw]:
    # The main process's NumPy and `random` states (only drawn from without workers).
    np.random.seed(1234)
    random.seed(1234)
    return collect(module, **options)  # type: ignore[arg-type]


@pytest.fixture(params=PROGRAMS)
def program(request: pytest.FixtureRequest, tmp_path: Path) -> Pair:
    return fix_and_import(request.param, tmp_path, Settings(torch_version="2.13", jobs=1))


def test_unfixed_program_repeats_every_epoch(program: Pair) -> None:
    draws = _run(program.before, num_workers=2, **FORK)
    assert repeated_across_epochs(draws) == len(draws) * 2 // 3
    # ... and it does not even depend on the torch seed.
    assert values(_run(program.before, num_workers=2, seed=1, **FORK)) == values(draws)


def test_fixed_program_never_draws_a_number_twice(program: Pair) -> None:
    # Stronger than DESIGN section 3 (see test_runtime_contract.py): no value repeats at all,
    # within a worker either.
    draws = _run(program.after, num_workers=2, **FORK)
    assert len(set(values(draws))) == len(draws)


def test_fixed_rank_term_keeps_ranks_apart(tmp_path: Path) -> None:
    pair = fix_and_import("ws102_rank_partial", tmp_path, Settings(torch_version="2.13", jobs=1))
    assert "(torch.initial_seed() + num_workers * rank) % 2**32" in pair.fixed_source
    # Two ranks seeded alike (as DDP scripts do): their workers must not draw alike.
    rank0 = {value for _, value in values(_run(pair.after, num_workers=2, rank=0, **FORK))}
    rank1 = {value for _, value in values(_run(pair.after, num_workers=2, rank=1, **FORK))}
    assert not rank0 & rank1


def test_fixed_get_state_trick_on_old_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = fix_and_import("ws102_worker_id_seeds", tmp_path, Settings(torch_version="1.8", jobs=1))
    # torch < 1.9 did not seed NumPy in workers: they inherit the main process's state.
    monkeypatch.setattr(torch_worker, "HAS_NUMPY", False)
    before = _run(pair.before, num_workers=2, **FORK)
    assert repeated_across_epochs(before) == len(before) * 2 // 3
    after = _run(pair.after, num_workers=2, **FORK)
    assert duplicated_across_workers(after) == 0
    assert repeated_across_epochs(after) == 0


def test_fixed_program_works_under_spawn(tmp_path: Path) -> None:
    pair = fix_and_import("ws102_worker_id_seeds", tmp_path, Settings(jobs=1))
    draws = collect(pair.after, num_workers=2, epochs=2, multiprocessing_context="spawn")
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0
