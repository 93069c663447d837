"""After an edit, a run is answered from the record of the last full analysis only when the
edited files cannot change a finding: the analysis never read them and they answer the same
text questions. Every other edit is analysed again, and no answer differs from a run
without any cache."""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest
from fixture_cases import copy_repository, discover_cases

from codemods import FileResult, Settings, run_paths
from codemods.analysis.facts import ModuleFacts
from codemods.caches import FileStamps

CASE = next(case for case in discover_cases() if case.id.endswith("/basic"))

_MODEL = '''"""Model code with no data loading."""

import torch


def double(x):
    return torch.relu(x) * 2
'''

_LOADER = '''"""Now it loads data too, with a Dataset that draws from NumPy's global RNG."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Jitter(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return index + np.random.rand()


def loader():
    return DataLoader(Jitter(), num_workers=2)
'''


def _results(repo: Path, settings: Settings, paths: list[Path] | None = None) -> list[str]:
    return sorted(
        f"{type(result).__name__} {result.path.relative_to(repo)} "
        + " ".join(
            f"{finding.code}@{finding.path.relative_to(repo)}:{finding.span.line}"
            for finding in getattr(result, "findings", ())
        )
        for result in run_paths(paths or [repo], settings)
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The basic case plus a model file no rule reads, with a filled cache."""
    # Trust a stamp as soon as its times are in the past (no racy-clean wait).
    monkeypatch.setattr(FileStamps, "RACY_NS", 0)
    repo = copy_repository(CASE.before, tmp_path / "repo")
    (repo / "model.py").write_text(_MODEL, encoding="utf-8")
    assert _results(repo, _settings())
    time.sleep(0.05)  # past the timestamp tick: a later write gets a later ctime
    return repo


def _settings() -> Settings:
    return replace(CASE.settings(), cache=True, jobs=1)


def _no_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    def analyse(*args: object, **kwargs: object) -> list[FileResult]:
        raise AssertionError("analysed again")

    monkeypatch.setattr("codemods.engine._analyse", analyse)


def test_an_edit_no_question_reads_is_answered_from_the_record(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = repo / "model.py"
    model.write_text(_MODEL.replace("* 2", "* 3"), encoding="utf-8")
    expected = _results(repo, replace(_settings(), cache=False))
    expected_file = _results(repo, replace(_settings(), cache=False), [model])
    _no_analysis(monkeypatch)
    assert _results(repo, _settings()) == expected
    assert _results(repo, _settings(), [model]) == expected_file


def test_an_edit_that_answers_a_new_question_is_analysed_again(repo: Path) -> None:
    model = repo / "model.py"
    model.write_text(_LOADER, encoding="utf-8")
    found = _results(repo, _settings())
    assert found == _results(repo, replace(_settings(), cache=False))
    assert any("WS101@model.py" in line for line in found)


def test_an_edit_of_a_file_the_analysis_read_is_analysed_again(repo: Path) -> None:
    train = repo / "train.py"
    train.write_text(
        train.read_text(encoding="utf-8").replace("np.random.normal(0.0, 0.1)", "0.0"),
        encoding="utf-8",
    )
    found = _results(repo, _settings())
    assert found == _results(repo, replace(_settings(), cache=False))
    assert not any("WS101" in line for line in found)


def test_a_syntax_error_in_an_edited_file_named_is_reported(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = repo / "model.py"
    model.write_text(_MODEL + "\ndef broken(:\n", encoding="utf-8")
    expected = _results(repo, replace(_settings(), cache=False), [model])
    assert expected[0].startswith("Skipped")
    _no_analysis(monkeypatch)
    assert _results(repo, _settings(), [model]) == expected


def _analyses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the full analyses from now on."""
    import codemods.engine

    counted: list[int] = []
    analyse = codemods.engine._analyse

    def counting(*args: object, **kwargs: object) -> object:
        counted.append(1)
        return analyse(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("codemods.engine._analyse", counting)
    return counted


def test_a_comment_added_to_a_file_the_analysis_read_is_answered_from_the_record(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = repo / "train.py"
    train.write_text(train.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    expected = _results(repo, replace(_settings(), cache=False))
    expected_file = _results(repo, replace(_settings(), cache=False), [train])
    assert any("WS101@train.py" in line for line in expected)
    _no_analysis(monkeypatch)
    assert _results(repo, _settings()) == expected
    assert _results(repo, _settings(), [train]) == expected_file


def test_a_noqa_comment_added_to_a_file_the_analysis_read_is_analysed_again(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The summary stays equal (a comment), but the answer to "which lines suppress what"
    # changes: the finding must go.
    train = repo / "train.py"
    text = train.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "DataLoader(NoisyDataset" in line)
    train.write_text(text.replace(line, line + "  # noqa: WS101"), encoding="utf-8")
    analyses = _analyses(monkeypatch)
    found = _results(repo, _settings())
    assert analyses
    assert found == _results(repo, replace(_settings(), cache=False))
    assert not any("WS101" in line for line in found)


def test_a_changed_value_on_the_same_lines_is_analysed_again(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = repo / "train.py"
    train.write_text(
        train.read_text(encoding="utf-8").replace("num_workers=4", "num_workers=0"),
        encoding="utf-8",
    )
    analyses = _analyses(monkeypatch)
    found = _results(repo, _settings())
    assert analyses
    assert found == _results(repo, replace(_settings(), cache=False))
    assert not any("WS101" in line for line in found)


def test_a_new_function_no_question_reached_before_is_analysed_again(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Appended at the end: every earlier line and summary stays as it was, but the module
    # now defines a function a question may ask for by name.
    train = repo / "train.py"
    train.write_text(
        train.read_text(encoding="utf-8") + "\n\ndef added():\n    return 1\n", encoding="utf-8"
    )
    analyses = _analyses(monkeypatch)
    found = _results(repo, _settings())
    assert analyses
    assert found == _results(repo, replace(_settings(), cache=False))


def test_without_the_cached_summary_the_analysis_read_an_edit_is_analysed_again(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codemods.caches import ANALYSIS_VERSION, CACHE_DIRECTORY

    shutil.rmtree(repo / CACHE_DIRECTORY / ANALYSIS_VERSION)
    train = repo / "train.py"
    train.write_text(train.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    analyses = _analyses(monkeypatch)
    found = _results(repo, _settings())
    assert analyses
    assert found == _results(repo, replace(_settings(), cache=False))


_TWO_FUNCTIONS = """import numpy as np


def first():
    return np.random.rand()


def second():
    return 2
"""


def test_a_cached_summary_the_run_summarised_further_is_stored_again(tmp_path: Path) -> None:
    from codemods.caches import FactsCache
    from codemods.summaries import ReopenedModule, summarise_bytes

    module = tmp_path / "module.py"
    module.write_text(_TWO_FUNCTIONS, encoding="utf-8")
    raw, directory = module.read_bytes(), tmp_path / ".cache"
    made = summarise_bytes(module, raw, 0o644, tmp_path, keep_tree=True)
    assert isinstance(made, ModuleFacts)
    assert made.table.summarised_groups() == frozenset()
    first = FactsCache(directory)
    first.put(made)
    first.save()

    second = FactsCache(directory)
    read = second.get(module, made.digest, tmp_path)
    assert read is not None
    assert read.table.summarised_groups() == frozenset()
    read.table.attach(lambda: ReopenedModule(module, raw, 0o644, tmp_path))
    assert read.function("second") is not None
    second.save()

    stored = FactsCache(directory).get(module, made.digest, tmp_path)
    assert stored is not None
    assert stored.table.summarised_groups() == {"second"}
