"""`workerseed scan`: the study's statistic over a directory of hand-made repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cli.main import main
from codemods.scan import (
    BEFORE_NUMPY_SEEDING,
    DECLARED,
    LATEST,
    RepositoryScan,
    ScanReport,
    find_repositories,
    scan,
    scan_repository,
)
from codemods.settings import Settings

NUMPY_DATASET = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()


loader = DataLoader(Noisy(), num_workers={workers})
"""

RNG_OBJECT_DATASET = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.rng.normal()


loader = DataLoader(Noisy(), num_workers=2)
"""

TORCH_GENERATOR_DATASET = """\
import torch
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self):
        self.generator = torch.Generator().manual_seed(0)

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.rand(1, generator=self.generator)


loader = DataLoader(Noisy(), num_workers=2)
"""

WORKER_ID_SEED = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()


def seed_worker(worker_id):
    np.random.seed(worker_id)


loader = DataLoader(Noisy(), num_workers=2, worker_init_fn=seed_worker)
"""

NO_NUMPY_DATASET = """\
import random

from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return random.random()


loader = DataLoader(Noisy(), num_workers=2)
"""

#: name -> (files, in scope, affected under torch 1.8 / declared / latest, epoch repeats)
REPOSITORIES: dict[str, tuple[dict[str, str], bool, tuple[bool, bool, bool], bool]] = {
    # Fixed by torch 1.9: affected only before it (it declares nothing: latest).
    "global_numpy": (
        {"train.py": NUMPY_DATASET.format(workers=2)},
        True,
        (True, False, False),
        False,
    ),
    # The same code on a repository pinned to torch 1.7.
    "pinned_old_torch": (
        {"train.py": NUMPY_DATASET.format(workers=2), "requirements.txt": "torch==1.7.1\n"},
        True,
        (True, True, False),
        False,
    ),
    # An RNG object is copied into every worker on every torch version.
    "rng_object": ({"train.py": RNG_OBJECT_DATASET}, True, (True, True, True), False),
    # One process: no worker can duplicate anything.
    "single_process": (
        {"train.py": NUMPY_DATASET.format(workers=0)},
        False,
        (False, False, False),
        False,
    ),
    # Python's `random` is seeded per worker by torch; not NumPy: out of scope.
    "python_random": ({"train.py": NO_NUMPY_DATASET}, False, (False, False, False), False),
    # A shared torch.Generator duplicates draws, but without NumPy it is out of scope.
    "torch_generator": ({"train.py": TORCH_GENERATOR_DATASET}, False, (True, True, True), False),
    # Reseeded from worker_id: not duplicated across workers, repeated every epoch.
    "worker_id_seed": ({"train.py": WORKER_ID_SEED}, True, (False, False, False), True),
    # No Dataset at all.
    "no_datasets": ({"util.py": "def f():\n    return 1\n"}, False, (False, False, False), False),
}


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    (root / ".git").mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of the repositories above, plus a directory that is not a repository."""
    root = tmp_path_factory.mktemp("corpus")
    for name, (files, *_) in REPOSITORIES.items():
        _write(root / name, files)
    (root / "notes").mkdir()
    (root / "notes" / "README.md").write_text("not a repository\n", encoding="utf-8")
    (root / ".cache").mkdir()
    return root


@pytest.fixture(scope="module")
def report(corpus: Path) -> ScanReport:
    return scan([corpus], Settings(jobs=1))


def _by_name(report: ScanReport) -> dict[str, RepositoryScan]:
    return {repository.root.name: repository for repository in report.repositories}


def test_each_project_below_a_directory_is_one_repository(corpus: Path) -> None:
    names = [path.name for path in find_repositories([corpus])]
    assert names == sorted(REPOSITORIES)


def test_a_repository_given_itself_counts_once(corpus: Path) -> None:
    repository = corpus / "rng_object"
    assert find_repositories([repository, repository / ".", corpus / "rng_object"]) == [
        repository.resolve()
    ]


def test_a_checkout_without_markers_counts_next_to_projects(tmp_path: Path) -> None:
    _write(tmp_path / "marked", {"a.py": "x = 1\n"})
    (tmp_path / "unmarked").mkdir()
    (tmp_path / "unmarked" / "b.py").write_text("y = 2\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    assert [path.name for path in find_repositories([tmp_path])] == ["marked", "unmarked"]


def test_a_directory_inside_a_project_means_that_project(tmp_path: Path) -> None:
    _write(tmp_path / "repo", {"a.py": "x = 1\n"})
    (tmp_path / "repo" / "pkg").mkdir()
    assert find_repositories([tmp_path / "repo" / "pkg"]) == [(tmp_path / "repo").resolve()]


@pytest.mark.parametrize("name", sorted(REPOSITORIES))
def test_facts_and_verdicts_per_repository(report: ScanReport, name: str) -> None:
    _, in_scope, affected, epoch_repeats = REPOSITORIES[name]
    repository = _by_name(report)[name]
    assert repository.error is None
    assert repository.in_scope is in_scope
    verdicts = [repository.verdict(a.label) for a in (BEFORE_NUMPY_SEEDING, DECLARED, LATEST)]
    assert tuple(verdict is not None and verdict.affected for verdict in verdicts) == affected
    assert all(verdict is not None for verdict in verdicts)
    assert {verdict.epoch_repeats for verdict in verdicts if verdict} == {epoch_repeats}


def test_declared_version_is_the_repositorys_own(report: ScanReport) -> None:
    repositories = _by_name(report)
    pinned = repositories["pinned_old_torch"].verdict(DECLARED.label)
    assert pinned is not None
    assert pinned.target.describe() == "torch 1.7.1 (requirements.txt)"
    unpinned = repositories["global_numpy"].verdict(DECLARED.label)
    assert unpinned is not None
    # Never the torch installed where the scan runs.
    assert unpinned.target.version is None


def test_facts_of_a_repository(report: ScanReport) -> None:
    repositories = _by_name(report)
    single = repositories["single_process"]
    assert (single.datasets, single.numpy_datasets, single.multi_process) == (1, 1, False)
    python_random = repositories["python_random"]
    assert (python_random.numpy_datasets, python_random.multi_process) == (0, True)
    assert repositories["no_datasets"].datasets == 0
    assert repositories["rng_object"].files == 1


def test_statistic_per_assumption(report: ScanReport) -> None:
    rows = {row.assumption: row for row in report.totals}
    assert list(rows) == ["torch 1.8", "declared", "latest"]
    assert {row.scanned for row in rows.values()} == {len(REPOSITORIES)}
    assert {row.in_scope for row in rows.values()} == {4}
    assert [rows[label].affected for label in rows] == [3, 2, 1]
    assert rows["torch 1.8"].affected_share == 0.75
    assert [rows[label].affected_out_of_scope for label in rows] == [1, 1, 1]
    assert [rows[label].epoch_repeats for label in rows] == [1, 1, 1]


def test_parallel_scan_gives_the_same_report(corpus: Path, report: ScanReport) -> None:
    assert scan([corpus], Settings(jobs=2)) == report


def test_a_broken_repository_is_reported_not_raised(tmp_path: Path) -> None:
    root = _write(tmp_path / "bad_config", {"train.py": RNG_OBJECT_DATASET})
    (root / "pyproject.toml").write_text("[tool.workerseed]\nselect = 3\n", encoding="utf-8")
    result = scan_repository(root)
    assert result.error is not None
    assert result.verdicts == ()


def test_a_scan_writes_no_cache_into_repositories(corpus: Path, report: ScanReport) -> None:
    del report
    assert not list(corpus.glob("*/.workerseed_cache"))


# --- the command ---


def run(*arguments: str) -> Result:
    return CliRunner().invoke(main, list(arguments), catch_exceptions=False)


def test_scan_prints_the_table_and_exits_0(corpus: Path) -> None:
    result = run("scan", "--jobs", "1", str(corpus))
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.startswith("│")]
    cells = [[cell.strip() for cell in line.strip("│").split("│")] for line in lines]
    assert cells == [
        ["torch 1.8", "8", "4", "3", "75%", "1"],
        ["declared", "8", "4", "2", "50%", "1"],
        ["latest", "8", "4", "1", "25%", "1"],
    ]
    assert "In scope: a custom Dataset" in result.stdout
    assert "latest: 1 repository out of scope also affected" in result.stdout
    assert result.stderr == ""


def test_scan_draws_no_progress_without_a_terminal_even_with_force_color(corpus: Path) -> None:
    result = CliRunner().invoke(main, ["scan", "-j", "1", str(corpus)], env={"FORCE_COLOR": "1"})
    assert result.exit_code == 0
    assert result.stderr == ""


def test_scan_json_and_report_hold_the_same_document(corpus: Path, tmp_path: Path) -> None:
    report_file = tmp_path / "scan.json"
    result = run("scan", "-j", "1", "--format", "json", "--report", str(report_file), str(corpus))
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert json.loads(report_file.read_text(encoding="utf-8")) == document
    assert document["version"] == 1
    assert [row["affected"] for row in document["assumptions"]] == [3, 2, 1]
    assert document["assumptions"][0]["affected_share"] == 0.75
    repositories = {Path(entry["root"]).name: entry for entry in document["repositories"]}
    pinned = repositories["pinned_old_torch"]
    assert pinned["in_scope"] is True
    assert [entry["affected"] for entry in pinned["assumptions"]] == [True, True, False]
    assert pinned["assumptions"][1]["torch_version"]["version"] == "1.7.1"
    assert pinned["assumptions"][0]["findings"] == {"WS101": 1}


def test_scan_verbose_lists_every_repository(corpus: Path) -> None:
    result = CliRunner().invoke(
        main, ["scan", "-j", "1", "-v", str(corpus)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0
    for name in REPOSITORIES:
        assert name in result.stdout
    assert "1.7.1" in result.stdout


def test_scan_of_a_file_is_a_usage_error(corpus: Path) -> None:
    result = run("scan", str(corpus / "rng_object" / "train.py"))
    assert result.exit_code == 2


def test_scan_report_in_a_missing_directory_is_a_usage_error(corpus: Path) -> None:
    result = run("scan", "--report", str(corpus / "missing" / "scan.json"), str(corpus))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_scan_warns_about_repositories_it_could_not_analyse(tmp_path: Path) -> None:
    root = _write(tmp_path / "bad_config", {"train.py": RNG_OBJECT_DATASET})
    (root / "pyproject.toml").write_text("[tool.workerseed]\nselect = 3\n", encoding="utf-8")
    result = run("scan", str(root))
    assert result.exit_code == 0
    assert "bad_config: not analysed: ConfigError" in result.stderr


_ENTROPY_SEEDED = """\
import os

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Points(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()


def entropy_seeded(worker_id):
    np.random.seed(int.from_bytes(os.urandom(4), "little"))


def loader():
    return DataLoader(Points(), num_workers=2, worker_init_fn=entropy_seeded)
"""


def test_os_entropy_worker_seed_is_not_counted_as_an_epoch_repeat(tmp_path: Path) -> None:
    # Distinct, merely irreproducible streams: an info note, which scan does not count.
    result = scan_repository(_write(tmp_path / "entropy", {"train.py": _ENTROPY_SEEDED}))
    assert result.verdicts
    assert not any(verdict.epoch_repeats for verdict in result.verdicts)


_UNRESOLVED_LOADER = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()


def make_loader(dataset):
    return DataLoader(dataset, num_workers=2)
"""


def test_a_dataset_no_loader_is_seen_to_load_is_not_counted_as_affected(tmp_path: Path) -> None:
    # The loader's dataset is a parameter: WS101 warns at the dataset, which scan does not count.
    result = scan_repository(_write(tmp_path / "unresolved", {"train.py": _UNRESOLVED_LOADER}))
    assert result.verdicts
    assert not any(verdict.affected for verdict in result.verdicts)
