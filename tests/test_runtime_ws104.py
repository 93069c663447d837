"""WS104's fix, run as a real two-rank job: gloo on 127.0.0.1, DistributedSampler, 2 workers.

Each rank is a forked process that joins the process group, seeds torch with the same value
(as the program does) and iterates its loader for three epochs. Batch `k` of an epoch comes
from worker `k % 2`, so the values alone tell which worker of which rank drew what.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from runtime_support import (
    Draw,
    Pair,
    duplicated_across_workers,
    fix_and_import,
    repeated_across_epochs,
    values,
)

from codemods import Settings

pytestmark = pytest.mark.runtime

WORKERS = 2
EPOCHS = 3


def _free_address() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


def _rank(
    module: ModuleType,
    rank: int,
    address: str,
    seed: int,
    options: tuple[int, str | None],
    results: Any,
) -> None:
    epochs, context = options
    # As torchrun does; workers started with spawn read the rank from here.
    os.environ["RANK"] = str(rank)
    try:
        results.put((rank, module.train(rank, 2, address, seed, WORKERS, epochs, context)))
    except BaseException as error:  # reported to the test, which fails on it
        results.put((rank, repr(error)))


def run_job(
    module: ModuleType, seed: int = 0, epochs: int = EPOCHS, workers_context: str | None = None
) -> dict[int, list[Draw]]:
    """Run the program as two ranks; return each rank's draws."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    address = _free_address()
    processes = [
        context.Process(
            target=_rank,
            args=(module, rank, address, seed, (epochs, workers_context), results),
        )
        for rank in range(2)
    ]
    for process in processes:
        process.start()
    collected = dict(results.get(timeout=60) for _ in processes)
    for process in processes:
        process.join(timeout=30)
    draws: dict[int, list[Draw]] = {}
    for rank, found in collected.items():
        assert isinstance(found, list), f"rank {rank} failed: {found}"
        draws[rank] = [Draw(epoch, index % WORKERS, value) for epoch, index, value in found]
    return draws


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Pair:
    directory: Path = tmp_path_factory.mktemp("ws104")
    return fix_and_import("ws104_ranks_seeded_alike", directory, Settings(jobs=1))


@pytest.fixture(scope="module")
def fixed_runs(program: Pair) -> list[dict[int, list[Draw]]]:
    return [run_job(program.after, seed=0), run_job(program.after, seed=0)]


def test_unfixed_ranks_draw_identical_streams(program: Pair) -> None:
    draws = run_job(program.before, seed=0)
    assert len(draws[0]) == len(draws[1]) == 3 * 2 * 4 * EPOCHS
    assert values(draws[0]) == values(draws[1])


def test_fixed_ranks_draw_no_common_number(
    program: Pair, fixed_runs: list[dict[int, list[Draw]]]
) -> None:
    assert "worker_init_fn=seed_worker_per_rank" in program.fixed_source
    draws = fixed_runs[0]
    assert {draw.value for draw in draws[0]}.isdisjoint(draw.value for draw in draws[1])


def test_fixed_ranks_still_differ_across_workers_and_epochs(
    fixed_runs: list[dict[int, list[Draw]]],
) -> None:
    for rank_draws in fixed_runs[0].values():
        assert duplicated_across_workers(rank_draws) == 0
        assert repeated_across_epochs(rank_draws) == 0


def test_fixed_job_is_reproducible_under_the_same_seed(
    program: Pair, fixed_runs: list[dict[int, list[Draw]]]
) -> None:
    first, second = fixed_runs
    assert values(first[0]) == values(second[0])
    assert values(first[1]) == values(second[1])
    other = run_job(program.after, seed=1)
    assert values(other[0]) != values(first[0])


def test_fixed_ranks_differ_with_spawned_workers(program: Pair) -> None:
    """Spawned workers have no process group: the rank comes from the RANK variable."""
    # One epoch: each spawned worker imports torch afresh, which takes seconds.
    draws = run_job(program.after, seed=0, epochs=1, workers_context="spawn")
    assert {draw.value for draw in draws[0]}.isdisjoint(draw.value for draw in draws[1])
    for rank_draws in draws.values():
        assert duplicated_across_workers(rank_draws) == 0


# --- a worker_init_fn of the project that tells ranks apart for NumPy only ---


@pytest.fixture(scope="module")
def numpy_only_program(tmp_path_factory: pytest.TempPathFactory) -> Pair:
    directory: Path = tmp_path_factory.mktemp("ws104_numpy_only")
    settings = Settings(jobs=1, select=("WS104",))
    return fix_and_import("ws104_numpy_reseeded_per_rank", directory, settings)


def test_numpy_only_reseed_leaves_ranks_drawing_alike(numpy_only_program: Pair) -> None:
    draws = run_job(numpy_only_program.before, seed=0)
    assert len(draws[0]) == len(draws[1]) == 2 * 2 * 4 * EPOCHS
    assert values(draws[0]) == values(draws[1])


def test_fixed_worker_init_tells_ranks_apart_for_every_rng(numpy_only_program: Pair) -> None:
    source = numpy_only_program.fixed_source
    assert "def seed_numpy_per_rank(worker_id):\n    seed_worker_per_rank(worker_id)\n" in source
    first, second = run_job(numpy_only_program.after, seed=0), run_job(numpy_only_program.after)
    assert {draw.value for draw in first[0]}.isdisjoint(draw.value for draw in first[1])
    for rank_draws in first.values():
        assert duplicated_across_workers(rank_draws) == 0
        assert repeated_across_epochs(rank_draws) == 0
    assert values(first[0]) == values(second[0])
