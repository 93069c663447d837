"""Runs over many repositories: per-project counts, summary tables, `--report`, progress."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from fixture_cases import copy_repository, discover_cases
from rich.console import Console
from sample_project import CLEAN, DATA, LOADER

import cli.output
import codemods.files
from cli.main import main
from codemods import Changed, Settings, project_settings, run_paths
from codemods.files import WriteError, write_text_atomic
from codemods.report import project_of, summarise

# Mentions Dataset, so the analysis reads it (files no question needs are never parsed).
PYTHON_2 = 'from torch.utils.data import Dataset\nprint "hello"\n'


def _repository(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "requirements.txt").write_text("torch==1.8.1\n", encoding="utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def repos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Three repositories on torch 1.8: one buggy, one clean, one with a file that won't parse."""
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    return [
        _repository(tmp_path / "buggy", {"data.py": DATA, "train.py": LOADER}),
        _repository(tmp_path / "clean", {"data.py": DATA, "train.py": CLEAN}),
        _repository(tmp_path / "legacy", {"data.py": DATA, "train.py": LOADER, "old.py": PYTHON_2}),
    ]


def run(*arguments: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(arguments), env=env, catch_exceptions=False)


def _rows(text: str, title: str) -> dict[str, list[str]]:
    """Return the rows of the table titled `title` by first cell (COLUMNS must be wide)."""
    rows: dict[str, list[str]] = {}
    inside = False
    for line in text.splitlines():
        if line.strip() == title:
            inside = True
        elif inside and line.startswith("│"):
            cells = [cell.strip() for cell in line.strip("│").split("│")]
            rows[cells[0]] = cells[1:]
        elif inside and line.startswith("└"):
            break
    return rows


# --- the counts, from the engine's results ---


def test_counts_per_project_and_rule(repos: list[Path]) -> None:
    settings = Settings(jobs=1, cache=False)
    projects = list(project_settings(repos, settings))
    report = summarise(run_paths(repos, settings), projects, unsafe_fixes=False)
    counts = {project.root.name: project.counts for project in report.projects}
    assert (counts["buggy"].files, counts["buggy"].findings, counts["buggy"].fixable) == (2, 1, 1)
    assert (counts["clean"].files, counts["clean"].findings) == (2, 0)
    legacy = counts["legacy"]
    assert (legacy.files, legacy.findings, legacy.skipped, legacy.failed) == (2, 1, 1, 0)
    buggy = report.projects[0]
    assert (buggy.root.name, buggy.by_rule) == ("buggy", (("WS101", 1),))
    assert buggy.target.version == (1, 8, 1)
    assert [(rule.code, rule.findings, rule.fixable, rule.fixed) for rule in report.rules] == [
        ("WS101", 2, 2, 0)
    ]
    assert (report.totals.files, report.totals.findings, report.totals.remaining) == (6, 2, 2)


def test_fixed_counts_only_the_changes_written(repos: list[Path]) -> None:
    settings = Settings(jobs=1, cache=False)
    projects = list(project_settings(repos, settings))
    results = list(run_paths(repos, settings, fix=True))
    written = {r.path for r in results if isinstance(r, Changed) and r.path.parent.name == "buggy"}
    report = summarise(results, projects, unsafe_fixes=False, applied=written)
    counts = {project.root.name: project.counts for project in report.projects}
    assert (counts["buggy"].findings, counts["buggy"].fixed, counts["buggy"].remaining) == (1, 1, 0)
    # A change that was shown but not written leaves its finding.
    assert (counts["legacy"].fixed, counts["legacy"].remaining) == (0, 1)
    assert report.rules[0].fixed == 1


def test_a_result_belongs_to_the_deepest_root_containing_it(tmp_path: Path) -> None:
    outer, inner = tmp_path, tmp_path / "vendor" / "lib"
    assert project_of(inner / "a.py", [outer, inner]) == inner
    assert project_of(outer / "b.py", [outer, inner]) == outer
    assert project_of(inner, [outer, inner]) == inner
    assert project_of(Path("/elsewhere/c.py"), [outer, inner]) is None


def test_sequential_runs_report_progress_over_projects(repos: list[Path]) -> None:
    stages: list[tuple[str, int, int]] = []
    settings = Settings(jobs=1, cache=False)
    list(run_paths(repos, settings, progress=lambda *stage: stages.append(stage)))
    assert [stage for stage in stages if stage[0] == "projects"] == [
        ("projects", 1, 3),
        ("projects", 2, 3),
        ("projects", 3, 3),
    ]


# --- the summary tables ---


def test_check_over_many_projects_ends_with_the_summary_tables(repos: list[Path]) -> None:
    result = run("check", "--no-cache", *map(str, repos), env={"COLUMNS": "200"})
    assert result.exit_code == 1
    projects = _rows(result.stdout, "Projects")
    assert projects == {
        "buggy": ["1.8.1", "2", "1", "1", "0", "0"],
        "clean": ["1.8.1", "2", "0", "0", "0", "0"],
        "legacy": ["1.8.1", "2", "1", "1", "1", "0"],
        "Total": ["", "6", "2", "2", "1", "0"],
    }
    assert _rows(result.stdout, "Rules") == {"WS101": ["unseeded-numpy-in-workers", "2", "2"]}
    assert result.stdout.splitlines()[-1] == (
        "6 files checked: 2 findings, 2 fixable (run `workerseed fix`); 1 file skipped."
    )


def test_fix_tables_count_fixed_and_remaining(repos: list[Path]) -> None:
    result = run("fix", "--no-cache", "--yes", *map(str, repos), env={"COLUMNS": "200"})
    assert result.exit_code == 0
    projects = _rows(result.stdout, "Projects")
    assert projects["buggy"] == ["1.8.1", "2", "1", "1", "0", "0", "0"]
    assert projects["Total"] == ["", "6", "2", "2", "0", "1", "0"]
    assert _rows(result.stdout, "Rules") == {"WS101": ["unseeded-numpy-in-workers", "2", "2"]}
    assert "Fixed" in result.stdout


def test_fix_diff_tables_say_would_fix(repos: list[Path]) -> None:
    result = run("fix", "--no-cache", "--diff", *map(str, repos), env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert "Would fix" in result.stdout
    assert _rows(result.stdout, "Projects")["Total"] == ["", "6", "2", "2", "0", "1", "0"]


def test_one_project_gets_no_table(repos: list[Path]) -> None:
    result = run("check", "--no-cache", str(repos[0]))
    assert "Projects" not in result.stdout
    assert "Rules" not in result.stdout


def test_quiet_prints_no_table(repos: list[Path]) -> None:
    result = run("check", "--no-cache", "--quiet", *map(str, repos))
    assert "Projects" not in result.stdout


def test_machine_formats_keep_stdout_clean(repos: list[Path]) -> None:
    result = run("check", "--no-cache", "--format", "json", *map(str, repos))
    assert len(json.loads(result.stdout)) == 2


def test_project_paths_are_not_read_as_markup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    names = ["[bold]a", "b[0]"]
    roots = [_repository(tmp_path / name, {"data.py": DATA, "train.py": LOADER}) for name in names]
    result = run("check", "--no-cache", *map(str, roots), env={"COLUMNS": "200"})
    assert set(_rows(result.stdout, "Projects")) == {*names, "Total"}


# --- --report ---


def test_report_of_a_check(repos: list[Path], tmp_path: Path) -> None:
    report_file = tmp_path / "report.json"
    result = run("check", "--no-cache", "--report", str(report_file), *map(str, repos))
    assert result.exit_code == 1
    document = json.loads(report_file.read_text(encoding="utf-8"))
    assert document["version"] == 1
    assert document["command"] == "check"
    assert [project["root"] for project in document["projects"]] == ["buggy", "clean", "legacy"]
    buggy = document["projects"][0]
    assert buggy["torch_version"] == {
        "version": "1.8.1",
        "below": False,
        "source": "requirements.txt",
        "description": "torch 1.8.1 (requirements.txt)",
    }
    assert {key: buggy[key] for key in ("files", "findings", "fixable", "fixed", "rules")} == {
        "files": 2,
        "findings": 1,
        "fixable": 1,
        "fixed": 0,
        "rules": {"WS101": 1},
    }
    assert document["projects"][2]["skipped"] == 1
    assert document["rules"] == [
        {
            "code": "WS101",
            "name": "unseeded-numpy-in-workers",
            "findings": 2,
            "fixable": 2,
            "fixed": 0,
        }
    ]
    assert document["totals"] == {
        "projects": 3,
        "files": 6,
        "findings": 2,
        "fixable": 2,
        "fixed": 0,
        "remaining": 2,
        "skipped": 1,
        "failed": 0,
    }


def test_report_of_a_fix_of_one_project_replaces_the_old_one(
    repos: list[Path], tmp_path: Path
) -> None:
    report_file = tmp_path / "report.json"
    report_file.write_text("old", encoding="utf-8")
    result = run(
        "fix", "--no-cache", "--yes", "--quiet", "--report", str(report_file), str(repos[0])
    )
    assert result.exit_code == 0
    document = json.loads(report_file.read_text(encoding="utf-8"))
    assert document["command"] == "fix"
    assert document["totals"]["fixed"] == 1
    assert document["totals"]["remaining"] == 0
    assert [path.name for path in tmp_path.iterdir() if "workerseed" in path.name] == []


def test_report_in_a_missing_directory_is_a_usage_error(repos: list[Path], tmp_path: Path) -> None:
    result = run("check", "--no-cache", "--report", str(tmp_path / "no" / "r.json"), str(repos[0]))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_report_that_cannot_be_written_is_exit_2(
    repos: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: Path, text: str) -> None:
        raise WriteError(f"cannot write {path}: disk full")

    monkeypatch.setattr(codemods.files, "write_text_atomic", refuse)  # as the CLI calls it
    result = run("check", "--no-cache", "--report", str(tmp_path / "r.json"), str(repos[0]))
    assert result.exit_code == 2
    assert "cannot write" in result.stderr
    assert "disk full" in result.stderr


def test_a_change_that_cannot_be_written_counts_as_failed(
    repos: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(source: object, text: str) -> None:
        raise WriteError("read-only file system")

    monkeypatch.setattr(codemods.files, "write_atomic", refuse)  # as the CLI calls it
    report_file = tmp_path / "r.json"
    result = run("fix", "--no-cache", "--yes", "--report", str(report_file), *map(str, repos[:2]))
    assert result.exit_code == 2
    buggy = json.loads(report_file.read_text(encoding="utf-8"))["projects"][0]
    assert (buggy["fixed"], buggy["failed"], buggy["files"]) == (0, 1, 1)


def test_write_text_atomic_creates_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_text_atomic(target, "first\n")
    assert target.read_text(encoding="utf-8") == "first\n"
    assert target.stat().st_mode & 0o777 == 0o644
    target.chmod(0o600)
    write_text_atomic(target, "second\n")
    assert target.read_text(encoding="utf-8") == "second\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [path.name for path in tmp_path.iterdir()] == ["report.json"]


def test_write_text_atomic_into_a_missing_directory_raises(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="cannot write"):
        write_text_atomic(tmp_path / "missing" / "report.json", "x")


# --- progress ---


def test_no_progress_without_a_terminal_even_with_force_color(repos: list[Path]) -> None:
    result = run("check", "--no-cache", *map(str, repos[:2]), env={"FORCE_COLOR": "1"})
    assert result.stderr == ""


def test_progress_bar_over_projects_on_a_terminal(
    repos: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli.output, "shows_progress", lambda console, quiet: True)
    result = run("check", "--no-cache", "--jobs", "1", *map(str, repos), env={"FORCE_COLOR": "1"})
    assert re.search(r"Projects.*3/3", result.stderr)


def test_progress_needs_a_terminal_stream_and_no_quiet() -> None:
    forced = Console(file=io.StringIO(), force_terminal=True)
    assert forced.is_terminal
    assert not cli.output.shows_progress(forced, False)
    assert not cli.output.shows_progress(forced, True)


# --- fix --yes across 50 repositories ---

TRIVIAL: dict[str, dict[str, str]] = {
    "empty": {},
    "plain_module": {"util.py": "def double(x):\n    return 2 * x\n"},
    "python_2_file": {"data.py": DATA, "train.py": LOADER, "old.py": PYTHON_2},
    "package": {
        "pkg/__init__.py": "",
        "pkg/data.py": DATA,
        "train.py": LOADER.replace("from data import", "from pkg.data import"),
    },
    "clean": {"data.py": DATA, "train.py": CLEAN},
}


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes())
    except SyntaxError:
        return False
    return True


def test_fix_yes_across_50_repositories_leaves_each_parsing_and_clean(tmp_path: Path) -> None:
    cases = discover_cases()
    step = len(cases) // 45
    roots = [
        copy_repository(case.before, tmp_path / f"{index:02d}-{case.directory.name}")
        for index, case in enumerate(cases[::step][:45])
    ]
    roots += [_repository(tmp_path / name, files) for name, files in TRIVIAL.items()]
    assert len(roots) == 50
    parsing = {path for root in roots for path in root.rglob("*.py") if _parses(path)}

    fix_report = tmp_path / "fix.json"
    fixed = run(
        "fix",
        "--yes",
        "--no-cache",
        "--torch-version",
        "1.8",
        "--report",
        str(fix_report),
        *map(str, roots),
    )
    assert fixed.exit_code in (0, 1), fixed.output
    assert "Projects" in fixed.stdout
    assert all(_parses(path) for path in parsing)
    totals = json.loads(fix_report.read_text(encoding="utf-8"))["totals"]
    assert totals["fixed"] > 0
    assert totals["failed"] == 0

    report_file = tmp_path / "report.json"
    again = run(
        "check",
        "--no-cache",
        "--torch-version",
        "1.8",
        "--format",
        "json",
        "--report",
        str(report_file),
        *map(str, roots),
    )
    assert again.exit_code in (0, 1), again.output
    fixable = [
        finding for finding in json.loads(again.stdout) if (finding["fix"] or {}).get("applies")
    ]
    assert fixable == []
    document = json.loads(report_file.read_text(encoding="utf-8"))
    assert document["totals"]["projects"] == 50
    assert document["totals"]["fixable"] == 0
    assert document["totals"]["failed"] == 0
