"""WS103's fix, run with a real DataLoader under spawn: a lambda worker_init_fn cannot be pickled.

The lambdas also reseed NumPy from the worker id, so the fixed program shows the combination
of both rules: WS103 moves the lambda to module level, then WS102 fixes its seed.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from runtime_support import (
    collect,
    duplicated_across_workers,
    fix_and_import,
    repeated_across_epochs,
)

from codemods import Settings

pytestmark = pytest.mark.runtime

SPAWN: dict[str, Any] = {"multiprocessing_context": "spawn"}


@pytest.mark.filterwarnings("ignore:Got pickle error:UserWarning")
@pytest.mark.parametrize(
    ("program", "unsafe"),
    [
        pytest.param("ws103_lambda", False, id="lambda"),
        pytest.param("ws103_closure", True, id="lambda reading a local variable"),
    ],
)
def test_lambda_fails_under_spawn_and_runs_after_the_fix(
    program: str, unsafe: bool, tmp_path: Path
) -> None:
    pair = fix_and_import(program, tmp_path, Settings(jobs=1, unsafe_fixes=unsafe))
    assert "=lambda" not in pair.fixed_source
    with pytest.raises((pickle.PicklingError, AttributeError), match="pickle"):
        collect(pair.before, num_workers=2, epochs=1, **SPAWN)
    draws = collect(pair.after, num_workers=2, epochs=2, **SPAWN)
    assert len(draws) == 16
    assert duplicated_across_workers(draws) == 0
    assert repeated_across_epochs(draws) == 0


def test_lambda_with_captures_is_not_fixed_without_unsafe_fixes(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="did not change"):
        fix_and_import("ws103_closure", tmp_path, Settings(jobs=1, select=("WS103",)))
