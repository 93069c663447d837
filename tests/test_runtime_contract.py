"""DESIGN section 3, guarantees 1-4, for every runtime program of every rule: one test each.

Each program under tests/runtime_programs/ is fixed once per rule (as `fix` would) and run
with a real DataLoader and forked worker processes. The rule files (test_runtime_ws1xx.py,
test_runtime_ws2xx.py) keep what is particular to a rule: the bug before the fix, the fix's
shape, persistent workers, spawn, ranks, lockstep and held transforms.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch.utils.data._utils.worker as torch_worker
from runtime_support import (
    Draw,
    Programs,
    collect,
    duplicated_across_workers,
    repeated_across_epochs,
    values,
)

from codemods import Settings

pytestmark = pytest.mark.runtime

FORK: dict[str, Any] = {"multiprocessing_context": "fork"}


@dataclass(frozen=True)
class Contract:
    """How one rule's fixed programs are made and run."""

    settings: Settings
    programs: tuple[str, ...]
    #: torch made to behave like torch < 1.9, which did not seed NumPy in workers (WS101).
    old_torch: bool = False
    #: Guarantee 4 applies: the original has no bug without workers. WS202's original drew
    #: from NumPy's global state, which `torch.manual_seed` does not reach, so its draws
    #: without workers change on purpose (see test_runtime_ws202.py).
    same_without_workers: bool = True


CONTRACTS = {
    "WS101": Contract(
        Settings(torch_version="1.8", jobs=1),
        ("ws101_global_numpy", "ws101_collate_draws"),
        old_torch=True,
    ),
    "WS102": Contract(
        Settings(torch_version="2.13", jobs=1),
        ("ws102_worker_id_seeds", "ws102_rank_partial", "ws102_dataset_worker_id"),
    ),
    "WS201": Contract(
        Settings(select=("WS201",), unsafe_fixes=True, jobs=1, cache=False),
        (
            "ws201_default_rng",
            "ws201_random_state",
            "ws201_generator_pcg64",
            "ws201_python_random",
            "ws201_torch_generator",
            "ws201_transform_alias",
            "ws201_transform_owned",
            "ws201_lockstep",
            "ws201_module_level",
            "ws201_class_attribute",
            "ws201_iterable",
            "ws201_slots",
            "ws201_third_party",
            "ws201_third_party_chained",
        ),
    ),
    "WS202": Contract(
        Settings(select=("WS202",), unsafe_fixes=True, jobs=1, cache=False),
        (
            "ws202_global_draws",
            "ws202_helper",
            "ws202_transform",
            "ws202_iterable",
            "ws202_existing_generator",
        ),
        same_without_workers=False,
    ),
}
CASES = [
    pytest.param(code, program, id=f"{code} {program}")
    for code, contract in CONTRACTS.items()
    for program in contract.programs
]


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Programs]:
    return {
        code: Programs(tmp_path_factory, contract.settings) for code, contract in CONTRACTS.items()
    }


def _run(
    programs: dict[str, Programs], code: str, program: str, version: str, **options: Any
) -> list[Draw]:
    pair = programs[code].pair(program)
    with pytest.MonkeyPatch.context() as patch:
        if CONTRACTS[code].old_torch:
            patch.setattr(torch_worker, "HAS_NUMPY", False)
        # The main process's NumPy and `random` states: what workers inherit on old torch,
        # and what a dataset without workers draws from.
        np.random.seed(1234)
        random.seed(1234)
        return collect(pair.before if version == "before" else pair.after, **options)


@pytest.mark.parametrize(("code", "program"), CASES)
def test_each_worker_gets_its_own_stream(
    programs: dict[str, Programs], code: str, program: str
) -> None:
    draws = _run(programs, code, program, "after", num_workers=2, epochs=3, **FORK)
    assert draws
    assert duplicated_across_workers(draws) == 0


@pytest.mark.parametrize(("code", "program"), CASES)
def test_each_epoch_gets_a_new_stream(
    programs: dict[str, Programs], code: str, program: str
) -> None:
    draws = _run(programs, code, program, "after", num_workers=2, epochs=3, **FORK)
    assert repeated_across_epochs(draws) == 0


@pytest.mark.parametrize(("code", "program"), CASES)
def test_the_same_manual_seed_gives_the_same_draws(
    programs: dict[str, Programs], code: str, program: str
) -> None:
    first = _run(programs, code, program, "after", num_workers=2, seed=7, **FORK)
    again = _run(programs, code, program, "after", num_workers=2, seed=7, **FORK)
    other = _run(programs, code, program, "after", num_workers=2, seed=8, **FORK)
    assert values(first) == values(again)
    assert values(first) != values(other)


@pytest.mark.parametrize(
    ("code", "program"),
    [case for case in CASES if CONTRACTS[str(case.values[0])].same_without_workers],
)
def test_without_workers_nothing_changes(
    programs: dict[str, Programs], code: str, program: str
) -> None:
    before = _run(programs, code, program, "before", num_workers=0, epochs=2)
    after = _run(programs, code, program, "after", num_workers=0, epochs=2)
    assert values(before) == values(after)
