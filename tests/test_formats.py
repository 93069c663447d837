"""SARIF output against the official SARIF 2.1.0 schema, and what GitHub code scanning reads."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from cli.main import main
from codemods import ALL_RULES

#: The OASIS schema (errata 01), from the SARIF specification's repository.
SCHEMA = Path(__file__).parent / "sarif-schema-2.1.0.json"

DATA = """\
import numpy as np
from torch.utils.data import Dataset


class NoisyDataset(Dataset):
    def __getitem__(self, index):
        return np.random.rand()
"""

LOADER = """\
from torch.utils.data import DataLoader

from data import NoisyDataset

loader = DataLoader(NoisyDataset(), num_workers=4)
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "requirements.txt").write_text("torch==1.8.1\n", encoding="utf-8")
    (root / "data.py").write_text(DATA, encoding="utf-8")
    (root / "train.py").write_text(LOADER, encoding="utf-8")
    (root / "[bold] données.py").write_text(LOADER, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _sarif(*arguments: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        main, ["check", "--no-cache", "--format", "sarif", *arguments], catch_exceptions=False
    )
    assert result.exit_code in (0, 1), result.output
    log: dict[str, Any] = json.loads(result.stdout)
    return log


def _validate(log: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda error: list(error.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def _notebook(repo: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%matplotlib inline\nfrom torch.utils.data import DataLoader"),
        nbformat.v4.new_code_cell(
            "from data import NoisyDataset\nloader = DataLoader(NoisyDataset(), num_workers=2)"
        ),
    ]
    nbformat.write(notebook, str(repo / "explore.ipynb"))


def test_schema_file_is_the_official_one() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]


def test_sarif_with_findings_and_fixes_validates(repo: Path) -> None:
    _notebook(repo)
    log = _sarif()
    _validate(log)
    assert len(log["runs"][0]["results"]) == 3
    assert all("fixes" in result for result in log["runs"][0]["results"])


def test_sarif_of_a_clean_project_validates(repo: Path) -> None:
    (repo / "train.py").write_text(LOADER.replace(", num_workers=4", ""), encoding="utf-8")
    log = _sarif("train.py")
    _validate(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["tool"]["driver"]["rules"]


def test_rules_metadata_comes_from_the_rule_docs(repo: Path) -> None:
    rules = _sarif()["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.CODE for rule in ALL_RULES]
    for descriptor, rule in zip(rules, ALL_RULES, strict=True):
        assert descriptor["name"] == rule.NAME
        assert descriptor["shortDescription"]["text"] == rule.summary()
        assert descriptor["fullDescription"]["text"].startswith("Checks for")
        assert descriptor["help"]["markdown"] == rule.documentation()
        assert descriptor["defaultConfiguration"]["enabled"] is rule.DEFAULT


def test_results_have_what_github_needs(repo: Path) -> None:
    """ruleId and ruleIndex, a message, one physical location with a 1-based region."""
    run = _sarif()["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    by_uri = {}
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        by_uri[physical["artifactLocation"]["uri"]] = physical["region"]
    expected = {"startLine": 5, "startColumn": 10, "endLine": 5, "endColumn": 51}
    assert by_uri == {"%5Bbold%5D%20donn%C3%A9es.py": expected, "train.py": expected}
    assert urllib.parse.unquote("%5Bbold%5D%20donn%C3%A9es.py") == "[bold] données.py"


def test_notebook_result_points_into_the_notebook_file(repo: Path) -> None:
    _notebook(repo)
    (result,) = _sarif("explore.ipynb")["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    line = (
        (repo / "explore.ipynb").read_text(encoding="utf-8").splitlines()[region["startLine"] - 1]
    )
    start = region["startColumn"] - 1
    assert line[start : region["endColumn"] - 1] == "DataLoader(NoisyDataset(), num_workers=2)"
    assert result["properties"]["cell"] == 2
    assert result["message"]["text"].startswith("cell 2, line 2, column 10: ")


def test_fix_replacements_give_the_fixed_file(repo: Path) -> None:
    (sarif_result,) = _sarif("train.py", "data.py")["runs"][0]["results"]
    (fix,) = sarif_result["fixes"]
    (change,) = fix["artifactChanges"]
    lines = (repo / "train.py").read_text(encoding="utf-8").splitlines(keepends=True)
    for replacement in reversed(change["replacements"]):
        region = replacement["deletedRegion"]
        assert region["startColumn"] == region["endColumn"] == 1
        lines[region["startLine"] - 1 : region["endLine"] - 1] = [
            replacement["insertedContent"]["text"]
        ]
    fixed = "".join(lines)
    assert "worker_init_fn=seed_worker" in fixed
    outcome = CliRunner().invoke(main, ["fix", "--no-cache", "--yes", "train.py"])
    assert outcome.exit_code == 0
    assert (repo / "train.py").read_text(encoding="utf-8") == fixed


def test_sarif_is_stable_across_runs(repo: Path) -> None:
    assert _sarif() == _sarif()
