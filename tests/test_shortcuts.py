"""No speed trick may change a finding: lazy summarising and the cache are checked against
the reference run, which summarises every file and uses no cache."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from fixture_cases import Case, copy_repository, discover_cases

from codemods import Settings, run_paths, summaries, workspace
from codemods.analysis.facts import ClassFacts, FunctionFacts, ModuleFacts
from codemods.analysis.project import Project
from codemods.summaries import ReopenedModule
from codemods.types import Failed, Skipped, TorchTarget

CASES = discover_cases()

#: Model code that a question about every `__init__` reads.
_FILLER_WITH_INIT = '''"""A layer: {n}."""

from torch import nn


class Layer{n}(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width + {n}
'''

_FILLER = '''"""Model code with no data loading: {n}."""

import torch
from torch import nn


class Block{n}(nn.Module):
    def forward(self, x):
        return torch.relu(x) + {n}
'''


def _findings(repo: Path, settings: Settings) -> list[str]:
    return sorted(
        f"{finding.path.relative_to(repo)}:{finding.span.line}:{finding.span.column} "
        f"{finding.code} {finding.message} fix={finding.fix is not None}"
        for result in run_paths([repo], settings)
        for finding in getattr(result, "findings", ())
    )


def _assert_same_with_and_without_shortcuts(repo: Path, settings: Settings) -> None:
    reference = _findings(repo, replace(settings, prefilter=False, cache=False))
    assert _findings(repo, replace(settings, prefilter=True, cache=False)) == reference
    cold = _findings(repo, replace(settings, prefilter=True, cache=True))
    warm = _findings(repo, replace(settings, prefilter=True, cache=True))
    assert cold == reference
    assert warm == reference


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_fixture_findings_do_not_depend_on_shortcuts(case: Case, tmp_path: Path) -> None:
    repo = copy_repository(case.before, tmp_path / "repo")
    _assert_same_with_and_without_shortcuts(repo, case.settings())


def test_generated_tree_findings_do_not_depend_on_shortcuts(tmp_path: Path) -> None:
    """All fixture repositories side by side in one tree, with unrelated files among them."""
    repo = tmp_path / "tree"
    repo.mkdir()
    (repo / ".git").mkdir()
    for case in CASES:
        shutil.copytree(case.before, repo / case.directory.parent.name / case.directory.name)
    for n in range(200):
        (repo / f"model_{n}.py").write_text(_FILLER.format(n=n), encoding="utf-8")
    findings = _findings(repo, Settings(torch_version="1.8", jobs=2))
    assert len(findings) > len(CASES) // 2
    _assert_same_with_and_without_shortcuts(repo, Settings(torch_version="1.8", jobs=2))


def test_cache_is_used_and_safe_to_corrupt(tmp_path: Path) -> None:
    case = next(case for case in CASES if case.id.endswith("/basic"))
    repo = copy_repository(case.before, tmp_path / "repo")
    settings = case.settings()
    expected = _findings(repo, replace(settings, cache=False))
    assert _findings(repo, replace(settings, cache=True)) == expected
    entries = [path for path in (repo / ".workerseed_cache").rglob("*") if path.is_file()]
    entries = [path for path in entries if path.name != ".gitignore"]
    assert entries
    for entry in entries:
        entry.write_bytes(b"not a pickle")
    assert _findings(repo, replace(settings, cache=True)) == expected


def _run_entries(repo: Path) -> list[Path]:
    return [path for path in (repo / ".workerseed_cache" / "runs").rglob("*") if path.is_file()]


def test_an_unchanged_tree_reuses_the_last_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = next(case for case in CASES if case.id.endswith("/basic"))
    repo = copy_repository(case.before, tmp_path / "repo")
    settings = replace(case.settings(), cache=True)
    first = _findings(repo, settings)
    assert first
    assert len(_run_entries(repo)) == 1

    def no_analysis(*args: object, **kwargs: object) -> None:
        raise AssertionError("analysed again")

    monkeypatch.setattr("codemods.engine._analyse", no_analysis)
    assert _findings(repo, settings) == first


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda repo, s: (s, repo / "new_module.py"), id="a new file"),
        pytest.param(lambda repo, s: (replace(s, torch_version="2.0"), None), id="the settings"),
    ],
)
def test_a_changed_tree_or_question_is_analysed_again(
    tmp_path: Path, change: Callable[[Path, Settings], tuple[Settings, Path | None]]
) -> None:
    case = next(case for case in CASES if case.id.endswith("/basic"))
    repo = copy_repository(case.before, tmp_path / "repo")
    settings = replace(case.settings(), cache=True)
    assert _findings(repo, settings)
    changed, new_file = change(repo, settings)
    if new_file is not None:
        new_file.write_text("x = 1\n", encoding="utf-8")
    assert _findings(repo, changed) == _findings(repo, replace(changed, cache=False))
    assert len(_run_entries(repo)) == 2


def test_an_edited_file_is_analysed_again(tmp_path: Path) -> None:
    case = next(case for case in CASES if case.id.endswith("/basic"))
    repo = copy_repository(case.before, tmp_path / "repo")
    settings = replace(case.settings(), cache=True)
    assert _findings(repo, settings)
    for path in repo.rglob("*.py"):
        path.write_text("# emptied\n", encoding="utf-8")
    assert _findings(repo, settings) == []


def test_a_damaged_run_entry_is_ignored(tmp_path: Path) -> None:
    case = next(case for case in CASES if case.id.endswith("/basic"))
    repo = copy_repository(case.before, tmp_path / "repo")
    settings = replace(case.settings(), cache=True)
    expected = _findings(repo, settings)
    for entry in _run_entries(repo):
        entry.write_bytes(b"not a pickle")
    assert _findings(repo, settings) == expected


def test_cached_summaries_summarise_their_functions_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary from the cache left some functions for later: they are read again when a
    question of a later run needs them, and the findings are the reference's."""
    repo = tmp_path / "tree"
    repo.mkdir()
    (repo / ".git").mkdir()
    # Cases with findings: which of them a tree of many reports depends on their company, and
    # a tree with none would not need the functions left for later.
    reported = [case for case in CASES if case.findings_file.read_text(encoding="utf-8").strip()]
    for case in reported[:40]:
        shutil.copytree(case.before, repo / case.directory.parent.name / case.directory.name)
    settings = Settings(torch_version="1.8", jobs=1, cache=True, select=("ALL",))
    reference = _findings(repo, replace(settings, prefilter=False, cache=False))
    assert reference
    assert _findings(repo, replace(settings, select=("WS103",))) != reference  # fills the cache
    reopened: list[str] = []
    original = ReopenedModule.summarise

    def summarise(
        self: ReopenedModule, qualname: str
    ) -> tuple[list[FunctionFacts], list[ClassFacts]]:
        reopened.append(qualname)
        return original(self, qualname)

    monkeypatch.setattr(ReopenedModule, "summarise", summarise)
    assert _findings(repo, settings) == reference
    assert reopened


def test_summaries_that_let_their_trees_go_give_the_reference_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project large enough that summaries let their syntax trees go: every function is
    summarised at once, cold, from the cache and in worker processes, and the findings are
    the reference's."""
    repo = tmp_path / "tree"
    repo.mkdir()
    (repo / ".git").mkdir()
    for case in CASES[:60]:
        shutil.copytree(case.before, repo / case.directory.parent.name / case.directory.name)
    settings = Settings(torch_version="1.8", jobs=1, cache=True, select=("ALL",))
    reference = _findings(repo, replace(settings, prefilter=False, cache=False))
    monkeypatch.setattr(workspace, "KEEP_TREES_BELOW", 0)
    assert _findings(repo, replace(settings, cache=False)) == reference
    assert _findings(repo, replace(settings, select=("WS103",))) != reference  # fills the cache
    assert _findings(repo, settings) == reference
    assert _findings(repo, replace(settings, cache=False, jobs=2)) == reference


def _mentioning_init(repo: Path, settings: Settings) -> tuple[list[str], list[str]]:
    """Ask for every function of the files that mention `__init__`; return them and the
    files found not analysable."""
    paths = sorted(repo.rglob("*.py"))
    opened = workspace.open_workspace(repo, paths, settings, (), None)
    project = Project(repo, opened.sources, TorchTarget(None))
    functions = [
        f"{ref.path.relative_to(repo)}:{ref.qualname}:{ref.function.span.line}:"
        f"{len(ref.function.calls)}"
        for ref in project.functions_mentioning("__init__")
    ]
    opened.cache.save()
    problems = sorted(
        f"{path.relative_to(repo)} "
        + (problem.reason.value if isinstance(problem, Skipped) else f"failed: {problem.error}")
        for path, problem in opened.problems.items()
    )
    return functions, problems


def test_files_summarised_ahead_in_worker_processes_give_the_same_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a project large enough that summaries let their trees go, a question about many
    files summarises them ahead in worker processes: the answer, and the files found not
    analysable, are those of summarising each file when the question reaches it, cold and
    with some summaries cached."""
    repo = tmp_path / "tree"
    repo.mkdir()
    for n in range(3 * summaries.PARALLEL_THRESHOLD):
        (repo / f"layer_{n}.py").write_text(_FILLER_WITH_INIT.format(n=n), encoding="utf-8")
    (repo / "broken.py").write_text("class Broken:\n    def __init__(self\n", encoding="utf-8")
    monkeypatch.setattr(workspace, "KEEP_TREES_BELOW", 0)
    settings = Settings(jobs=1, cache=False)
    one_by_one = _mentioning_init(repo, settings)
    assert len(one_by_one[0]) > 3 * summaries.PARALLEL_THRESHOLD
    assert one_by_one[1] == ["broken.py syntax_error"]
    batches: list[int] = []
    many = summaries.summarise_many

    def counted(
        items: Sequence[tuple[Path, bytes, int]], root: Path, jobs: int | None, **options: bool
    ) -> Iterator[ModuleFacts | Skipped | Failed]:
        batches.append(len(items))
        return many(items, root, jobs, **options)

    monkeypatch.setattr(workspace, "summarise_many", counted)
    assert _mentioning_init(repo, replace(settings, jobs=2)) == one_by_one
    assert batches[1:] == [3 * summaries.PARALLEL_THRESHOLD + 1]  # after the prefetch (none)
    # Some summaries cached: those are read from the cache, the others made ahead.
    cached = replace(settings, jobs=2, cache=True)
    assert _mentioning_init(repo, replace(cached, jobs=1)) == one_by_one  # fills the cache
    for n in range(summaries.PARALLEL_THRESHOLD):
        (repo / f"layer_{n}.py").write_text(_FILLER_WITH_INIT.format(n=-n), encoding="utf-8")
    batches.clear()
    again = _mentioning_init(repo, cached)
    assert batches[1:] == [summaries.PARALLEL_THRESHOLD]
    assert again == _mentioning_init(repo, replace(settings, jobs=1))


def test_the_cache_directory_ignores_itself_when_only_runs_are_stored(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "model.py").write_text(_FILLER.format(n=0), encoding="utf-8")
    assert _findings(repo, Settings(jobs=1, cache=True)) == []
    assert (repo / ".workerseed_cache" / ".gitignore").read_text(encoding="utf-8").endswith("*\n")
