"""What the ranks `mp.spawn` starts inherit of the script that starts them, run for real.

WS104 reads a torch seeding at the top of the spawning script as reaching every rank (each
rank imports the script again, as `__mp_main__`, and runs its top-level code), and one under
`if __name__ == "__main__":` as reaching none. The fixtures
`seeded_at_top_of_spawning_script` and `seeded_under_main_guard_of_spawning_script_unchanged`
rest on this; here both layouts run as real two-rank jobs whose DataLoader workers report
their torch seeds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.runtime

_WORKER = """\
import json

from torch.utils.data import DataLoader, get_worker_info


def seeds(_):
    return get_worker_info().seed


def fit(rank, out):
    loader = DataLoader(range(2), batch_size=1, num_workers=2, collate_fn=seeds)
    with open(f"{out}/rank{rank}.json", "w") as handle:
        json.dump(list(loader), handle)
"""

_TOP_LEVEL = """\
import sys

import torch
import torch.multiprocessing as mp

from ranks import fit

torch.manual_seed(7)

if __name__ == "__main__":
    mp.spawn(fit, args=(sys.argv[1],), nprocs=2)
"""

_GUARDED = """\
import sys

import torch
import torch.multiprocessing as mp

from ranks import fit

if __name__ == "__main__":
    torch.manual_seed(7)
    mp.spawn(fit, args=(sys.argv[1],), nprocs=2)
"""


def _worker_seeds(tmp_path: Path, script: str) -> dict[int, list[int]]:
    """Run `script` as the spawning script; return each rank's worker seeds."""
    (tmp_path / "ranks.py").write_text(_WORKER)
    (tmp_path / "launch.py").write_text(script)
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([sys.executable, "launch.py", str(out)], cwd=tmp_path, check=True, timeout=240)
    return {rank: json.loads((out / f"rank{rank}.json").read_text()) for rank in (0, 1)}


def test_top_level_seeding_runs_again_in_every_spawned_rank(tmp_path: Path) -> None:
    seeds = _worker_seeds(tmp_path, _TOP_LEVEL)
    assert seeds[0] == seeds[1]  # worker k has the same seed on both ranks
    assert len(set(seeds[0])) == 2  # the two workers of a rank differ


def test_seeding_under_the_main_guard_reaches_no_spawned_rank(tmp_path: Path) -> None:
    seeds = _worker_seeds(tmp_path, _GUARDED)
    assert not set(seeds[0]) & set(seeds[1])
