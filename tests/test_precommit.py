"""The hooks in .pre-commit-hooks.yaml, run by pre-commit itself on a temporary repository.

pre-commit passes only the staged files, so these tests commit a Dataset in one file and
then stage only the file with the DataLoader: the finding depends on the file that did not
change. The main tests use the manifest's own hook definitions as `repo: local` hooks with
`language: system` (no network needed); one test installs the hooks the way users do, with
`pre-commit try-repo`, and is skipped when pre-commit cannot build the environment offline.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from sample_project import DATA

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / ".pre-commit-hooks.yaml"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TRAIN_CLEAN = """\
from torch.utils.data import DataLoader

from data import NoisyDataset

loader = DataLoader(NoisyDataset(), batch_size=2)
"""

TRAIN_BUGGY = TRAIN_CLEAN.replace("batch_size=2)", "batch_size=2, num_workers=4)")


def _environment(home: Path) -> dict[str, str]:
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "PRE_"))
    }
    environment.update(
        PRE_COMMIT_HOME=str(home),
        PYTHONPATH=str(ROOT),
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.com",
        NO_COLOR="1",
        # A hook that must not pick up the developer's global git configuration.
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return environment


def _run(
    command: list[str], cwd: Path, environment: dict[str, str], timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _git(repo: Path, environment: dict[str, str], *arguments: str) -> None:
    result = _run(["git", *arguments], repo, environment)
    assert result.returncode == 0, result.stderr


def _pre_commit() -> list[str]:
    return [sys.executable, "-m", "pre_commit"]


def _local_hooks() -> list[dict[str, Any]]:
    """Return the manifest's hooks, run from this checkout instead of an installed package."""
    hooks = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    local = []
    for hook in hooks:
        entry = hook["entry"].split()
        assert entry[0] == "workerseed"
        local.append(
            {
                **hook,
                "language": "system",
                "entry": " ".join([sys.executable, "-m", "cli", *entry[1:]]),
            }
        )
    return local


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git repository whose committed data.py defines a Dataset drawing from NumPy."""
    environment = _environment(tmp_path / "pre-commit-home")
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, environment, "init", "-q")
    (repo / "requirements.txt").write_text("torch==1.8.1\nnumpy\n", encoding="utf-8")
    (repo / "data.py").write_text(DATA, encoding="utf-8")
    (repo / "train.py").write_text(TRAIN_CLEAN, encoding="utf-8")
    config = {"repos": [{"repo": "local", "hooks": _local_hooks()}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(repo, environment, "add", ".")
    _git(repo, environment, "commit", "-q", "-m", "initial")
    return repo, environment


def test_manifest_passes_pre_commits_own_validator() -> None:
    result = _run([*_pre_commit(), "validate-manifest", str(MANIFEST)], ROOT, dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr


def test_manifest_declares_both_hooks_for_one_run_per_repository() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))}
    assert set(hooks) == {"workerseed-check", "workerseed-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["require_serial"] is True
        assert set(hook["types_or"]) == {"python", "jupyter"}
    assert hooks["workerseed-fix"]["entry"] == "workerseed fix --yes"


def test_check_hook_finds_dataset_in_a_file_that_did_not_change(
    project: tuple[Path, dict[str, str]],
) -> None:
    repo, environment = project
    (repo / "train.py").write_text(TRAIN_BUGGY, encoding="utf-8")
    _git(repo, environment, "add", "train.py")

    result = _run([*_pre_commit(), "run", "workerseed-check"], repo, environment)

    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "train.py:5:10: WS101" in output
    # Reported where the DataLoader is, not in the file that was not passed.
    assert not any(line.startswith("data.py:") for line in output.splitlines())
    assert "`NoisyDataset.__getitem__` draws from `np.random.rand` (data.py:10)" in output


def test_check_hook_passes_on_a_clean_change(project: tuple[Path, dict[str, str]]) -> None:
    repo, environment = project
    (repo / "train.py").write_text(TRAIN_CLEAN + "\nprint(len(loader))\n", encoding="utf-8")
    _git(repo, environment, "add", "train.py")

    result = _run([*_pre_commit(), "run", "workerseed-check"], repo, environment)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


def test_fix_hook_rewrites_the_staged_file(project: tuple[Path, dict[str, str]]) -> None:
    repo, environment = project
    (repo / "train.py").write_text(TRAIN_BUGGY, encoding="utf-8")
    _git(repo, environment, "add", "train.py")

    fixed = _run([*_pre_commit(), "run", "workerseed-fix"], repo, environment)

    # pre-commit fails a hook that modified files, so the user can review and stage them.
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "files were modified by this hook" in fixed.stdout
    train = (repo / "train.py").read_text(encoding="utf-8")
    assert "worker_init_fn=seed_worker" in train
    assert "def seed_worker(worker_id: int) -> None:" in train
    assert (repo / "data.py").read_text(encoding="utf-8") == DATA

    _git(repo, environment, "add", "train.py")
    again = _run([*_pre_commit(), "run", "--all-files"], repo, environment)
    assert again.returncode == 0, again.stdout + again.stderr


def test_check_hook_reads_notebooks(project: tuple[Path, dict[str, str]]) -> None:
    nbformat = pytest.importorskip("nbformat")
    repo, environment = project
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%matplotlib inline\nfrom torch.utils.data import DataLoader"),
        nbformat.v4.new_code_cell(
            "from data import NoisyDataset\nloader = DataLoader(NoisyDataset(), num_workers=2)"
        ),
    ]
    nbformat.write(notebook, str(repo / "explore.ipynb"))
    _git(repo, environment, "add", "explore.ipynb")

    result = _run([*_pre_commit(), "run", "workerseed-check"], repo, environment)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "explore.ipynb:cell 2:2:10: WS101" in result.stdout


def test_hooks_install_from_the_repository_like_users_install_them(
    project: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """`pre-commit try-repo` builds the hook's own environment (needs the package index)."""
    repo, environment = project
    clone = tmp_path / "workerseed"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip("this checkout is not a git work tree")
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file() and not name.startswith("fixtures/"):
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    _git(clone, environment, "init", "-q")
    _git(clone, environment, "add", ".")
    _git(clone, environment, "commit", "-q", "-m", "snapshot")
    (repo / "train.py").write_text(TRAIN_BUGGY, encoding="utf-8")
    _git(repo, environment, "add", "train.py")
    environment = {**environment, "PYTHONPATH": ""}

    result = _run(
        [*_pre_commit(), "try-repo", str(clone), "workerseed-check"],
        repo,
        environment,
        timeout=600,
    )

    output = result.stdout + result.stderr
    if "An unexpected error has occurred" in output or "CalledProcessError" in output:
        log = Path(environment["PRE_COMMIT_HOME"]) / "pre-commit.log"
        details = log.read_text(encoding="utf-8") if log.exists() else output
        if "pip" in details and ("Could not" in details or "No matching" in details):
            pytest.skip("pre-commit could not install the hook environment (no package index)")
        pytest.fail(details)
    assert result.returncode == 1, output
    assert "train.py:5:10: WS101" in output
