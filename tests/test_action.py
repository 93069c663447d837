"""The GitHub Action (action.yml), offline: its shape, and its check step run as the script
it is, with the inputs as the runner passes them; the SARIF it writes is valid against the
official schema."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

REPOSITORY = Path(__file__).resolve().parent.parent
ACTION = REPOSITORY / "action.yml"
SCHEMA = Path(__file__).parent / "sarif-schema-2.1.0.json"

SHARED_RNG = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.rng.normal() + np.random.rand()


loader = DataLoader(Noisy(), num_workers=2)
"""


def _action() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return document


def _step(name: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = _action()["runs"]["steps"]
    return next(step for step in steps if step.get("id") == name or step["name"] == name)


def test_the_action_is_composite_with_its_inputs() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert {"paths", "select", "torch-version"} <= set(action["inputs"])
    upload = _step("Upload to code scanning")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "${{ steps.check.outputs.sarif-file }}"
    check = _step("check")
    # The script never splices an input into its text (script injection).
    assert "${{" not in check["run"]
    assert check["env"]["WORKERSEED_SELECT"] == "${{ inputs.select }}"


def _run_check(
    workspace: Path, tmp_path: Path, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run the check step's script as the runner would: bash, inputs in its environment."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    output = tmp_path / "github_output"
    output.write_text("")
    environment = {
        **os.environ,
        # The installed `workerseed` script sits beside this interpreter.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GITHUB_OUTPUT": str(output),
        "WORKERSEED_PATHS": inputs.get("paths", "."),
        "WORKERSEED_SELECT": inputs.get("select", ""),
        "WORKERSEED_TORCH_VERSION": inputs.get("torch_version", ""),
        "WORKERSEED_SARIF": str(tmp_path / "workerseed.sarif"),
    }
    result = subprocess.run(
        [bash, "-e", "-c", _step("check")["run"]],
        cwd=workspace,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return result, outputs


def _validate(log: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda error: list(error.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "repository"
    (workspace / "src").mkdir(parents=True)
    (workspace / "pyproject.toml").write_text(
        '[project]\nname = "demo"\ndependencies = ["torch>=2.0"]\n'
    )
    (workspace / "src" / "train.py").write_text(SHARED_RNG)
    (workspace / "README.md").write_text("not python\n")
    return workspace


def test_the_check_step_writes_valid_sarif_with_repository_relative_paths(
    tmp_path: Path,
) -> None:
    workspace = _workspace(tmp_path)
    result, outputs = _run_check(workspace, tmp_path, paths="src pyproject.toml")
    assert result.returncode == 0, result.stderr
    assert outputs["exit-status"] == "1"
    log = json.loads(Path(outputs["sarif-file"]).read_text(encoding="utf-8"))
    _validate(log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["WS201"]
    location = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location["uri"] == "src/train.py"


def test_select_and_torch_version_reach_the_command(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    result, outputs = _run_check(workspace, tmp_path, select="WS1", torch_version="1.8")
    assert result.returncode == 0, result.stderr
    log = json.loads(Path(outputs["sarif-file"]).read_text(encoding="utf-8"))
    _validate(log)
    results = log["runs"][0]["results"]
    # Only WS1xx rules ran, and under torch 1.8 nothing seeds NumPy's global RNG.
    assert [r["ruleId"] for r in results] == ["WS101"]
    assert "torch 1.8" in results[0]["properties"]["torchVersion"]


def test_a_usage_error_fails_the_step(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    result, outputs = _run_check(workspace, tmp_path, select="XX9")
    assert result.returncode == 2
    assert outputs["exit-status"] == "2"
