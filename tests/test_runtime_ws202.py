"""WS202's fix, run with a real DataLoader and worker processes (torch 2.13, fork and spawn).

Each program under tests/runtime_programs/ws202_*.py draws per item from NumPy's legacy
global RNG. After the fix it draws from a Generator per object, and must: draw distinct
numbers in every worker and epoch (also with persistent workers, under spawn, and on a torch
that does not seed NumPy in workers, as before 1.9); repeat them under the same
`torch.manual_seed`, with or without workers; keep two datasets independent; and leave the
main process's torch stream alone when workers do the drawing.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.utils.data._utils.worker as torch_worker
from runtime_support import (
    Programs,
    collect,
    duplicated_across_workers,
    repeated_across_epochs,
    values,
)

from codemods import Settings

pytestmark = pytest.mark.runtime

SETTINGS = Settings(select=("WS202",), unsafe_fixes=True, jobs=1, cache=False)

#: Program -> pieces of the fixed source that show which fix shape it got.
PROGRAMS = {
    "ws202_global_draws": (
        "rng = _numpy_rng(self)",
        "rng.random() < 0.5",
        "rng.integers(0, 1000, dtype=int)",
        "rng.normal(0.0, 1.0)",
    ),
    "ws202_helper": (
        "def add_noise(value, sigma=1.0, *, rng):",
        "def augment(value, rng):",
        "return augment(1.0, rng=rng)",
    ),
    "ws202_transform": ("rng = _numpy_rng(self)", "rng.uniform(self.low, self.high)"),
    "ws202_iterable": ("rng = _numpy_rng(self)", "yield rng.random()"),
    "ws202_existing_generator": (
        '_reseed_rngs_in_worker(self, "rng")',
        "self.rng.normal() + self.rng.random()",
    ),
}
#: The programs whose Generator comes from torch's RNG (not from a seed the dataset owns).
TORCH_SEEDED = [program for program in PROGRAMS if program != "ws202_existing_generator"]
FORK: dict[str, Any] = {"multiprocessing_context": "fork"}


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Programs:
    return Programs(tmp_path_factory, SETTINGS)


@pytest.mark.parametrize("program", PROGRAMS)
def test_fix_has_the_expected_shape(programs: Programs, program: str) -> None:
    fixed = programs.pair(program).fixed_source
    assert "np.random.rand(" not in fixed
    for piece in PROGRAMS[program]:
        assert piece in fixed


@pytest.mark.parametrize("program", PROGRAMS)
def test_fixed_program_works_with_persistent_workers(programs: Programs, program: str) -> None:
    draws = programs.draws(
        program, "after", num_workers=2, epochs=3, persistent_workers=True, **FORK
    )
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0


@pytest.mark.parametrize("program", TORCH_SEEDED)
def test_without_workers_manual_seed_now_reproduces_the_draws(
    programs: Programs, program: str
) -> None:
    # The promise for num_workers=0: torch.manual_seed reproduces the draws, a new seed
    # changes them, and epochs still differ. The original drew from NumPy's global state,
    # which torch.manual_seed does not seed: it was not reproducible this way.
    first = programs.draws(program, "after", num_workers=0, epochs=2)
    again = collect(programs.pair(program).after, num_workers=0, epochs=2, seed=0)
    other = programs.draws(program, "after", num_workers=0, epochs=2, seed=1)
    assert values(first) == values(again)
    assert values(first) != values(other)
    assert repeated_across_epochs(first) == 0
    before = programs.draws(program, "before", num_workers=0, epochs=2)
    before_again = collect(programs.pair(program).before, num_workers=0, epochs=2, seed=0)
    assert values(before) != values(before_again)


def test_dataset_with_its_own_seeded_generator_stays_reproducible_without_workers(
    programs: Programs,
) -> None:
    # The reused generator keeps the dataset's own seed, which torch.manual_seed does not change.
    pair = programs.pair("ws202_existing_generator")
    first = collect(pair.after, num_workers=0, epochs=2, seed=0)
    again = collect(pair.after, num_workers=0, epochs=2, seed=3)
    assert values(first) == values(again)
    assert repeated_across_epochs(first) == 0


def test_generator_is_made_when_first_used_so_seeding_after_building_works(
    programs: Programs,
) -> None:
    module = programs.pair("ws202_global_draws").after
    streams = []
    for _ in range(2):
        loader = module.make_loader(0)  # built before torch is seeded
        torch.manual_seed(0)
        streams.append([float(value) for batch in loader for value in batch])
    assert streams[0] == streams[1]


@pytest.mark.parametrize("workers", [0, 2])
def test_two_instances_in_a_concat_dataset_draw_independently(
    programs: Programs, workers: int
) -> None:
    options = {"concat": True, **(FORK if workers else {})}
    draws = programs.draws("ws202_global_draws", "after", num_workers=workers, **options)
    drawn = [draw.value for draw in draws]
    assert len(set(drawn)) == len(drawn)


def test_main_process_torch_stream_is_untouched_when_workers_draw(programs: Programs) -> None:
    pair = programs.pair("ws202_global_draws")
    after_epochs = []
    for module in (pair.before, pair.after):
        collect(module, num_workers=2, epochs=2, seed=0, **FORK)
        after_epochs.append(torch.rand(4).tolist())
    assert after_epochs[0] == after_epochs[1]


@pytest.mark.parametrize("program", ["ws202_global_draws", "ws202_helper"])
def test_fixed_program_is_distinct_on_a_torch_that_does_not_seed_numpy(
    programs: Programs, program: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # torch < 1.9 did not seed NumPy in workers; forked workers inherit this setting.
    monkeypatch.setattr(torch_worker, "HAS_NUMPY", False)
    before = collect(programs.pair(program).before, num_workers=2, epochs=3, **FORK)
    after = collect(programs.pair(program).after, num_workers=2, epochs=3, **FORK)
    assert duplicated_across_workers(before) == len(before)
    assert duplicated_across_workers(after) == 0
    assert repeated_across_epochs(after) == 0


def test_fixed_program_works_under_spawn(programs: Programs) -> None:
    program = "ws202_global_draws"
    draws = collect(
        programs.pair(program).after, num_workers=2, epochs=2, multiprocessing_context="spawn"
    )
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0
    forked = programs.draws(program, "after", num_workers=2, epochs=3, **FORK)
    assert values(draws) == values(forked)[: len(draws)]
