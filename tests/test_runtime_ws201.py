"""WS201's fixes, run with a real DataLoader and worker processes (torch 2.13, fork and spawn).

Each program under tests/runtime_programs/ws201_*.py draws per item from an RNG object
created before the workers start. Before the fix every worker replays one stream; after it,
draws are distinct across workers and epochs, reproducible under `torch.manual_seed`,
unchanged with `num_workers=0`, and the fix keeps working with persistent workers, wrappers,
aliases, and (where torch allows it) under spawn.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runtime_support import (
    Programs,
    collect,
    duplicated_across_workers,
    repeated_across_epochs,
    values,
)

from codemods import Settings

pytestmark = pytest.mark.runtime

SETTINGS = Settings(select=("WS201",), unsafe_fixes=True, jobs=1, cache=False)

#: Program -> a piece of the fixed source that shows which fix shape it got.
PROGRAMS = {
    # every constructor, with the in-place reseed at the top of __getitem__
    "ws201_default_rng": '_reseed_rngs_in_worker(self, "rng")',
    "ws201_random_state": '_reseed_rngs_in_worker(self, "random_state")',
    "ws201_generator_pcg64": '_reseed_rngs_in_worker(self, "rng")',
    "ws201_python_random": '_reseed_rngs_in_worker(self, "random")',
    "ws201_torch_generator": '_reseed_rngs_in_worker(self, "generator")',
    # every other place and shape
    "ws201_transform_alias": '_reseed_rngs_in_worker(self, "rng")',
    "ws201_transform_owned": '_reseed_rngs_in_worker(self, "noise.random_state")',
    "ws201_lockstep": '_reseed_rngs_in_worker(self, "image_rng", "mask_rng")',
    "ws201_module_level": '_reseed_rngs_in_worker(sys.modules[__name__], "RNG")',
    "ws201_class_attribute": '_reseed_rngs_in_worker(self, "rng")',
    "ws201_iterable": '_reseed_rngs_in_worker(self, "rng")',
    "ws201_slots": '_reseed_rngs_in_worker(self, "rng")',
    "ws201_third_party": "worker_init_fn=_reseed_worker_rngs",
    "ws201_third_party_chained": "functools.partial(_chain_worker_init, seed_worker)",
}
FORK = {"multiprocessing_context": "fork"}


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Programs:
    return Programs(tmp_path_factory, SETTINGS)


@pytest.mark.parametrize("program", PROGRAMS)
def test_fix_has_the_expected_shape(programs: Programs, program: str) -> None:
    assert PROGRAMS[program] in programs.pair(program).fixed_source


@pytest.mark.parametrize("program", PROGRAMS)
def test_unfixed_program_replays_one_stream_in_every_worker_and_epoch(
    programs: Programs, program: str
) -> None:
    draws = programs.draws(program, "before", num_workers=2, epochs=2, **FORK)
    assert duplicated_across_workers(draws) == len(draws)
    assert repeated_across_epochs(draws) == len(draws) // 2


@pytest.mark.parametrize("program", PROGRAMS)
def test_fixed_program_works_with_persistent_workers(programs: Programs, program: str) -> None:
    draws = programs.draws(
        program, "after", num_workers=2, epochs=3, persistent_workers=True, **FORK
    )
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0


def test_concat_of_two_differently_seeded_datasets_stays_independent(programs: Programs) -> None:
    before = programs.draws("ws201_default_rng", "before", num_workers=2, concat=True, **FORK)
    after = programs.draws("ws201_default_rng", "after", num_workers=2, concat=True, **FORK)
    assert duplicated_across_workers(before) > 0
    drawn = [draw.value for draw in after]
    assert len(set(drawn)) == len(drawn)


def test_lockstep_generators_stay_in_lockstep(programs: Programs) -> None:
    pair = programs.pair("ws201_lockstep")
    for module in (pair.before, pair.after):
        for workers in (0, 2):
            loader = module.make_loader(workers, **(FORK if workers else {}))
            for image, mask in loader:
                assert image.tolist() == mask.tolist()


def test_transform_holding_the_rng_sees_the_new_stream(programs: Programs) -> None:
    # Only the transform draws, from its own reference to the dataset's generator.
    draws = programs.draws("ws201_transform_alias", "after", num_workers=2, epochs=3, **FORK)
    assert duplicated_across_workers(draws) == 0


def test_chained_worker_init_fn_still_runs(programs: Programs) -> None:
    draws = programs.draws("ws201_third_party_chained", "after", num_workers=2, epochs=3, **FORK)
    assert all(draw.value >= 1000.0 for draw in draws)


@pytest.mark.parametrize("program", ["ws201_default_rng", "ws201_third_party_chained"])
def test_fixed_program_works_under_spawn(programs: Programs, program: str, tmp_path: Path) -> None:
    draws = collect(
        programs.pair(program).after, num_workers=2, epochs=2, multiprocessing_context="spawn"
    )
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0
    forked = programs.draws(program, "after", num_workers=2, epochs=3, **FORK)
    assert values(draws) == values(forked)[: len(draws)]
