"""Rules that meet at one place, fixed together and run with a real DataLoader.

Each program has findings of two rules at one Dataset or worker_init_fn (the second may
appear only once the first is fixed, in the next fix round). After `fix`, a re-check must
find nothing fixable, and the fixed program must draw distinct numbers
in every worker and epoch, reproducibly under `torch.manual_seed`. torch < 1.9 (no NumPy
seeding in workers) is imitated as in test_runtime_ws101.py.
"""

from __future__ import annotations

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

from codemods import Settings, run_paths

pytestmark = pytest.mark.runtime

FORK = {"multiprocessing_context": "fork"}
#: Program, the torch version it targets, and the rules that meet in it.
COMBINATIONS = [
    # The draws come after the once-per-worker reseed: NumPy's inherited state is never
    # drawn from, so only WS102 is reported, and its fix reseeds from the worker seed there.
    ("combo_ws101_ws102", "1.8", {"WS102"}),
    # WS101 follows once WS102's fix has deleted the per-item reseed (the next fix round).
    ("combo_ws101_ws102_clock_per_item", "1.8", {"WS102"}),
    # The same, with the reseed in a helper method: the helper goes with its call.
    ("combo_ws101_ws102_clock_reseed_helper", "1.8", {"WS102"}),
    ("combo_ws102_ws201", "2.13", {"WS102"}),
    ("combo_ws101_ws201", "1.8", {"WS101", "WS201"}),
]


@pytest.fixture(params=COMBINATIONS, ids=[name for name, _, _ in COMBINATIONS])
def combination(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Pair, str, set[str]]:
    name, version, codes = request.param
    if version == "1.8":
        monkeypatch.setattr(torch_worker, "HAS_NUMPY", False)
    return fix_and_import(name, tmp_path, Settings(torch_version=version, jobs=1)), version, codes


def _run(module: object, **options: object) -> list[Draw]:
    np.random.seed(1234)  # the parent state every worker inherits on torch < 1.9
    return collect(module, num_workers=2, epochs=3, **FORK, **options)  # type: ignore[arg-type]


def _findings(source: Path, version: str) -> list[tuple[str, bool]]:
    results = run_paths([source.parent], Settings(torch_version=version, jobs=1))
    return [
        (finding.code, finding.fix is not None)
        for result in results
        for finding in getattr(result, "findings", ())
    ]


def test_unfixed_program_duplicates_or_repeats(combination: tuple[Pair, str, set[str]]) -> None:
    pair, _, _ = combination
    draws = _run(pair.before)
    assert duplicated_across_workers(draws) + repeated_across_epochs(draws) > 0


def test_findings_of_the_unfixed_program(
    combination: tuple[Pair, str, set[str]], tmp_path: Path
) -> None:
    pair, version, codes = combination
    path = tmp_path / "check" / "program.py"
    path.parent.mkdir()
    (path.parent / ".git").mkdir()
    path.write_text(pair.original_source, encoding="utf-8")
    found = _findings(path, version)
    assert {code for code, _ in found} == codes
    assert all(fixable for _, fixable in found)


def test_fixed_program_draws_distinct_numbers_in_every_worker_and_epoch(
    combination: tuple[Pair, str, set[str]],
) -> None:
    pair, _, _ = combination
    draws = _run(pair.after)
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0


def test_fixed_program_is_reproducible_under_manual_seed(
    combination: tuple[Pair, str, set[str]],
) -> None:
    pair, _, _ = combination
    first = values(_run(pair.after, seed=7))
    assert first == values(_run(pair.after, seed=7))
    assert first != values(_run(pair.after, seed=8))


def test_recheck_of_the_fixed_program_finds_nothing(
    combination: tuple[Pair, str, set[str]], tmp_path: Path
) -> None:
    pair, version, _ = combination
    path = tmp_path / "recheck" / "program.py"
    path.parent.mkdir()
    (path.parent / ".git").mkdir()
    path.write_text(pair.fixed_source, encoding="utf-8")
    assert _findings(path, version) == []


def test_helper_left_doing_nothing_goes_with_its_call(tmp_path: Path) -> None:
    pair = fix_and_import(
        "combo_ws101_ws102_clock_reseed_helper", tmp_path, Settings(torch_version="1.8", jobs=1)
    )
    assert "_reseed" not in pair.fixed_source
    assert "import time" not in pair.fixed_source
