"""A worker_init_fn that reseeds NumPy, `random` and torch from `worker_id` is one WS102
finding with one fix for the three lines, and its other places in JSON and SARIF."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from cli.main import main
from codemods import Settings, Unchanged, run_source

SOURCE = textwrap.dedent(
    """\
    import random

    import numpy as np
    import torch
    from torch.utils.data import DataLoader


    def seed_everything(worker_id):
        np.random.seed(worker_id)
        random.seed(worker_id)
        torch.manual_seed(worker_id)


    loader = DataLoader(list(range(8)), num_workers=2, shuffle=True, worker_init_fn=seed_everything)
    """
)
SCHEMA = Path(__file__).parent / "sarif-schema-2.1.0.json"


def test_three_reseeds_from_the_worker_id_are_one_finding_with_one_fix() -> None:
    result = run_source(SOURCE, settings=Settings(select=("WS102",)))
    assert isinstance(result, Unchanged)
    (finding,) = result.findings
    assert finding.span.line == 9
    assert [place.span.line for place in finding.related] == [10, 11]
    assert "reseeds NumPy, `random` and torch from the worker id alone" in finding.message
    assert finding.fix is not None
    fixed = run_source(SOURCE, settings=Settings(select=("WS102",)), fix=True)
    new = getattr(fixed, "new", "")
    assert "np.random.seed(torch.initial_seed() % 2**32)" in new
    assert "random.seed(torch.initial_seed() % 2**32)" in new
    assert "torch.manual_seed" not in new


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text(SOURCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*arguments: str) -> Any:
    result = CliRunner().invoke(
        main,
        ["check", "--no-cache", "--select", "WS102", *arguments, "train.py"],
        catch_exceptions=False,
    )
    return json.loads(result.stdout)


def test_related_places_are_in_json_and_sarif(repo: Path) -> None:
    (finding,) = _check("--format", "json")
    assert [place["start"]["line"] for place in finding["related"]] == [10, 11]
    log = _check("--format", "sarif")
    (result,) = log["runs"][0]["results"]
    regions = [place["physicalLocation"]["region"] for place in result["relatedLocations"]]
    assert [region["startLine"] for region in regions] == [10, 11]
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(log)


HELPER = textwrap.dedent(
    """\
    import numpy as np
    from torch.utils.data import DataLoader, Dataset


    class Replayed(Dataset):
        def restart(self, seed):
            np.random.seed(seed)

        def __len__(self):
            return 8

        def __getitem__(self, index):
            self.restart(0)
            return np.random.rand()


    loader = DataLoader(Replayed(), num_workers=2)
    """
)


def test_a_reseed_through_a_helper_names_where_the_helper_reseeds() -> None:
    result = run_source(HELPER, settings=Settings(select=("WS102",)))
    assert isinstance(result, Unchanged)
    (finding,) = result.findings
    assert finding.span.line == 13
    assert [place.span.line for place in finding.related] == [7]


SEVERAL_SCRIPTS = (
    Path(__file__).parent.parent
    / "fixtures"
    / "rank_invariant_worker_seed"
    / "seed_helper_called_by_several_scripts"
    / "before"
)


def test_related_places_in_other_files_carry_their_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """WS104 at a loader that two scripts build: the seeding helper and both calls of it."""
    shutil.copytree(SEVERAL_SCRIPTS, tmp_path, dirs_exist_ok=True)
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    expected = [("seeding.py", 10), ("tools/finetune.py", 14), ("tools/pretrain.py", 14)]
    arguments = ["check", "--no-cache", "--select", "WS104", "--format"]
    output = CliRunner().invoke(main, [*arguments, "json", "."], catch_exceptions=False).stdout
    (finding,) = json.loads(output)
    assert finding["path"] == "data.py"
    assert [(place["path"], place["start"]["line"]) for place in finding["related"]] == expected
    output = CliRunner().invoke(main, [*arguments, "sarif", "."], catch_exceptions=False).stdout
    (result,) = json.loads(output)["runs"][0]["results"]
    places = [place["physicalLocation"] for place in result["relatedLocations"]]
    assert [
        (place["artifactLocation"]["uri"], place["region"]["startLine"]) for place in places
    ] == expected
