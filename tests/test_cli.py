"""The `workerseed` command through click's CliRunner: exit codes, formats, options, review."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sample_project import CLEAN, DATA, LOADER, make_repository

import cli.fix_command
import cli.render
from cli.main import main
from codemods import ALL_RULES


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project on torch 1.8 with one buggy loader in train.py; the working directory."""
    root = make_repository(tmp_path / "repo")
    monkeypatch.chdir(root)
    for name in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM"):
        monkeypatch.delenv(name, raising=False)
    return root


def run(*arguments: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(arguments), input=input, env=env, catch_exceptions=False)


def _pyproject(repo: Path, body: str) -> None:
    (repo / "pyproject.toml").write_text(body, encoding="utf-8")


# --- exit codes and text output ---


def test_findings_exit_1_with_one_line_each_and_a_summary(repo: Path) -> None:
    result = run("check", "--no-cache")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("train.py:5:10: WS101 [*] DataLoader workers start with")
    assert "(data.py:10)" in lines[0]
    assert lines[-2] == "Assumed torch 1.8.1 (requirements.txt)."
    assert lines[-1] == "2 files checked: 1 finding, 1 fixable (run `workerseed fix`)."


def test_clean_project_exits_0(repo: Path) -> None:
    (repo / "train.py").write_text(CLEAN, encoding="utf-8")
    result = run("check", "--no-cache")
    assert result.exit_code == 0
    assert result.stdout == "2 files checked: 0 findings.\n"


_ENTROPY_SEEDED = """\
import os

import numpy as np
from torch.utils.data import DataLoader

from data import NoisyDataset


def entropy_seeded(worker_id):
    np.random.seed(int.from_bytes(os.urandom(4), "little"))


def loader():
    return DataLoader(NoisyDataset(), num_workers=2, worker_init_fn=entropy_seeded)
"""


def test_info_notes_exit_0(repo: Path) -> None:
    # Distinct but irreproducible worker seeds duplicate nothing: a note, not a failure.
    (repo / "train.py").write_text(_ENTROPY_SEEDED, encoding="utf-8")
    result = run("check", "--no-cache", "--torch-version", "2.0")
    assert result.exit_code == 0, result.stdout
    assert "WS102" in result.stdout
    github = run("check", "--no-cache", "--torch-version", "2.0", "--format", "github")
    assert github.exit_code == 0
    assert github.stdout.startswith("::notice ")


def test_exit_zero(repo: Path) -> None:
    assert run("check", "--no-cache", "--exit-zero").exit_code == 0


def test_missing_path_is_a_usage_error(repo: Path) -> None:
    result = run("check", "nowhere.py")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_quiet_prints_findings_only(repo: Path) -> None:
    (repo / "broken.py").write_text("from torch.utils.data import Dataset\ndef f(:\n")
    result = run("check", "--no-cache", "--quiet")
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 1
    assert result.stderr == ""


def test_verbose_prints_settings_and_skipped_files(repo: Path) -> None:
    (repo / "gen.py").write_text("# @generated\nfrom torch.utils.data import Dataset\n")
    result = run("check", "--no-cache", "--verbose")
    assert result.exit_code == 1
    defaults = ", ".join(rule.CODE for rule in ALL_RULES if rule.DEFAULT)
    expected = f"{repo}: rules {defaults}; torch 1.8.1 (requirements.txt); configuration none"
    assert expected in result.stderr
    assert "gen.py: skipped, generated (marked as generated)" in result.stderr


def test_quiet_and_verbose_conflict(repo: Path) -> None:
    result = run("check", "-q", "-v")
    assert result.exit_code == 2
    assert "--quiet and --verbose cannot be used together" in result.stderr


def test_unparsable_file_is_a_warning_not_a_failure(repo: Path) -> None:
    (repo / "broken.py").write_text("from torch.utils.data import Dataset\ndef f(:\n")
    result = run("check", "--no-cache")
    assert result.exit_code == 1
    assert "warning: broken.py: skipped, syntax error (line 2: invalid syntax)" in result.stderr
    assert "1 file skipped" in result.stdout


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("[bold]x.py", id="rich markup in the name"),
        pytest.param("données_ü.py", id="non-ASCII name"),
        pytest.param("[red]données.py", id="both"),
    ],
)
def test_paths_are_printed_verbatim(repo: Path, name: str) -> None:
    (repo / name).write_text(LOADER, encoding="utf-8")
    result = run("check", "--no-cache", name)
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{name}:5:10: WS101 [*] ")
    github = run("check", "--no-cache", "--format", "github", name)
    assert f"file={name}," in github.stdout


# --- rule selection ---


def test_ignore_silences_a_rule(repo: Path) -> None:
    result = run("check", "--no-cache", "--ignore", "WS101")
    assert result.exit_code == 0
    assert "0 findings" in result.stdout


def test_select_by_prefix_and_name(repo: Path) -> None:
    assert run("check", "--no-cache", "--select", "WS1").exit_code == 1
    assert run("check", "--no-cache", "--select", "unseeded-numpy-in-workers").exit_code == 1


def test_unknown_selector_is_exit_2(repo: Path) -> None:
    result = run("check", "--no-cache", "--select", "WS9")
    assert result.exit_code == 2
    assert "--select: unknown rule or prefix 'WS9'" in result.stderr


def test_torch_version_option_wins(repo: Path) -> None:
    result = run("check", "--no-cache", "--torch-version", "1.9")
    assert result.exit_code == 0


def test_bad_torch_version_option_is_exit_2(repo: Path) -> None:
    result = run("check", "--no-cache", "--torch-version", "one")
    assert result.exit_code == 2
    assert "invalid torch version 'one'" in result.stderr


# --- configuration ---


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            "[tool.workerseed]\nselekt = ['WS1']\n",
            "pyproject.toml: unknown key 'selekt' in [tool.workerseed] (known: ",
            id="unknown key",
        ),
        pytest.param(
            "[tool.workerseed]\nselect = 5\n",
            "pyproject.toml: [tool.workerseed] select: expected a list of strings, got 5",
            id="wrong type",
        ),
        pytest.param(
            "[tool.workerseed]\nignore = ['WS999']\n",
            "pyproject.toml: [tool.workerseed] ignore: unknown rule or prefix 'WS999'",
            id="unknown rule",
        ),
        pytest.param(
            "[tool.workerseed]\ntorch-version = 'soon'\n",
            "pyproject.toml: [tool.workerseed] torch-version: invalid torch version 'soon'",
            id="bad torch version",
        ),
        pytest.param(
            "[tool.workerseed]\nunsafe-fixes = 'yes'\n",
            "pyproject.toml: [tool.workerseed] unsafe-fixes: expected true or false, got 'yes'",
            id="bad boolean",
        ),
        pytest.param(
            "[tool.workerseed]\nper-file-ignores = ['tests/*']\n",
            "pyproject.toml: [tool.workerseed] per-file-ignores: expected a table of glob",
            id="per-file-ignores not a table",
        ),
        pytest.param(
            "[tool.workerseed.per-file-ignores]\n'tests/*' = ['WS77']\n",
            'pyproject.toml: [tool.workerseed] per-file-ignores."tests/*": unknown rule',
            id="per-file-ignores unknown rule",
        ),
        pytest.param(
            "[tool.workerseed]\nexclude = ['']\n",
            "pyproject.toml: [tool.workerseed] exclude: empty string",
            id="empty pattern",
        ),
        pytest.param(
            "[tool.workerseed\n",
            "pyproject.toml: cannot read configuration",
            id="not TOML",
        ),
    ],
)
def test_configuration_errors_name_file_and_key(repo: Path, body: str, message: str) -> None:
    _pyproject(repo, body)
    for command in ("check", "fix"):
        result = run(command, "--no-cache")
        assert result.exit_code == 2, result.output
        assert message in result.stderr
        assert result.stdout == ""


def test_configuration_is_applied(repo: Path) -> None:
    _pyproject(repo, "[tool.workerseed]\ntorch-version = '1.9'\n")
    assert run("check", "--no-cache").exit_code == 0
    _pyproject(repo, "[tool.workerseed]\nextend-exclude = ['train.py']\n")
    assert run("check", "--no-cache").exit_code == 0
    _pyproject(repo, "[tool.workerseed.per-file-ignores]\n'train*.py' = ['WS1']\n")
    assert run("check", "--no-cache").exit_code == 0
    _pyproject(repo, "[tool.workerseed]\nignore = ['WS101']\n")
    assert run("check", "--no-cache").exit_code == 0
    # As in ruff, --select on the command line starts a new selection: configured ignores
    # no longer apply; --ignore adds to them.
    assert run("check", "--no-cache", "--select", "WS101").exit_code == 1
    assert run("check", "--no-cache", "--extend-select", "WS101").exit_code == 0


def test_exclude_and_switches_from_the_configuration(repo: Path) -> None:
    _pyproject(repo, "[tool.workerseed]\nexclude = ['train.py']\n")
    assert run("check", "--no-cache").exit_code == 0
    # A file named on the command line is checked even when excluded, as in ruff.
    assert run("check", "--no-cache", "train.py").exit_code == 1
    _pyproject(repo, "[tool.workerseed]\nunsafe-fixes = true\nrespect-gitignore = false\n")
    text = run("check", "--show-settings").stdout
    assert "unsafe-fixes = true" in text
    assert "respect-gitignore = false" in text


def test_config_option_reads_another_file(repo: Path) -> None:
    _pyproject(repo, "[tool.workerseed]\nignore = ['WS101']\n")
    other = repo / "ci" / "workerseed.toml"
    other.parent.mkdir()
    other.write_text("torch-version = '1.8'\n", encoding="utf-8")
    result = run("check", "--no-cache", "--config", "ci/workerseed.toml")
    assert result.exit_code == 1
    assert "torch 1.8 (workerseed.toml)" in result.stdout
    other.write_text("torch_version = '1.8'\n", encoding="utf-8")
    result = run("check", "--no-cache", "--config", "ci/workerseed.toml")
    assert result.exit_code == 2
    assert "ci/workerseed.toml: unknown key 'torch_version'" in result.stderr


def test_show_settings_prints_the_resolved_settings_and_exits_0(repo: Path) -> None:
    _pyproject(
        repo,
        "[tool.workerseed]\nextend-exclude = ['legacy']\n"
        "[tool.workerseed.per-file-ignores]\n'tests/*' = ['WS101']\n",
    )
    result = run(
        "check", "--show-settings", "--ignore", "WS101", "--library-version", "monai==1.5.2"
    )
    assert result.exit_code == 0
    text = result.stdout
    assert 'library-versions = {monai = "1.5.2"}  # from --library-version' in text
    assert f"# project root: {repo}" in text
    assert f"# configuration: {repo / 'pyproject.toml'}" in text
    assert 'rules = ["WS102", "WS103", "WS104", "WS201", "WS203"]  # the rules that run' in text
    assert 'ignore = ["WS101"]' in text
    assert 'extend-exclude = ["legacy"]' in text
    assert 'torch-version = "1.8.1"  # from requirements.txt' in text
    assert '"tests/*" = ["WS101"]' in text
    assert run("fix", "--show-settings").exit_code == 0


def test_show_settings_reports_configuration_errors(repo: Path) -> None:
    _pyproject(repo, "[tool.workerseed]\nnope = 1\n")
    result = run("check", "--show-settings")
    assert result.exit_code == 2
    assert "unknown key 'nope'" in result.stderr


# --- formats ---


def test_json_lists_every_finding_with_its_fix(repo: Path) -> None:
    (repo / "eval.py").write_text(LOADER, encoding="utf-8")
    result = run("check", "--no-cache", "--format", "json")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)
    assert [finding["path"] for finding in findings] == ["eval.py", "train.py"]
    finding = findings[1]
    assert set(finding) == {
        "code",
        "name",
        "message",
        "severity",
        "path",
        "cell",
        "range",
        "related",
        "torch_version",
        "fix",
    }
    assert finding["related"] == []
    assert finding["code"] == "WS101"
    assert finding["name"] == "unseeded-numpy-in-workers"
    assert finding["severity"] == "error"
    assert finding["cell"] is None
    assert finding["range"] == {
        "start": {"line": 5, "column": 10},
        "end": {"line": 5, "column": 51},
    }
    assert finding["torch_version"] == {
        "version": "1.8.1",
        "below": False,
        "source": "requirements.txt",
        "description": "torch 1.8.1 (requirements.txt)",
    }
    fix = finding["fix"]
    assert fix["applicability"] == "safe"
    assert fix["applies"] is True
    assert (
        "+loader = DataLoader(NoisyDataset(), num_workers=4, worker_init_fn=seed_worker)"
        in (fix["diff"])
    )
    assert fix["diff"].startswith("--- a/train.py\n+++ b/train.py\n")
    # Applying the edits to the file gives what `fix` writes.
    lines = (repo / "train.py").read_text(encoding="utf-8").splitlines(keepends=True)
    for edit in reversed(fix["edits"]):
        start, end = edit["range"]["start"]["line"], edit["range"]["end"]["line"]
        lines[start - 1 : end - 1] = [edit["content"]]
    assert run("fix", "--no-cache", "--yes").exit_code == 0
    assert "".join(lines) == (repo / "train.py").read_text(encoding="utf-8")


def test_json_is_stable_across_runs(repo: Path) -> None:
    (repo / "eval.py").write_text(LOADER, encoding="utf-8")
    first = run("check", "--format", "json").stdout
    assert run("check", "--format", "json").stdout == first
    assert run("check", "--no-cache", "--format", "json", "train.py", "eval.py").stdout == first


def test_json_of_a_clean_project_is_an_empty_list(repo: Path) -> None:
    (repo / "train.py").write_text(CLEAN, encoding="utf-8")
    result = run("check", "--no-cache", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []


def test_github_annotations(repo: Path) -> None:
    result = run("check", "--no-cache", "--format", "github")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith(
        "::error file=train.py,line=5,col=10,endLine=5,endColumn=51,title=WS101::"
        "DataLoader workers start with identical NumPy RNG state on torch 1.8.1"
    )


def test_github_annotation_escaping() -> None:
    from cli.formats import github_annotation
    from codemods import Finding, Span, TorchTarget

    finding = Finding(
        "WS101",
        "unseeded-numpy-in-workers",
        "100% of workers:\nsame, stream\r",
        Path("a,b:c%.py"),
        Span(1, 0, 2, 3),
        TorchTarget(None),
    )
    assert github_annotation(finding) == (
        "::error file=a%2Cb%3Ac%25.py,line=1,col=1,endLine=2,endColumn=4,title=WS101::"
        "100%25 of workers:%0Asame, stream%0D"
    )


def test_sarif_is_written(repo: Path) -> None:
    result = run("check", "--no-cache", "--format", "sarif")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    (finding,) = log["runs"][0]["results"]
    assert finding["ruleId"] == "WS101"


def test_statistics(repo: Path) -> None:
    (repo / "eval.py").write_text(LOADER, encoding="utf-8")
    result = run("check", "--no-cache", "--statistics")
    assert result.exit_code == 1
    assert result.stdout == "2  WS101 [*] unseeded-numpy-in-workers\n"
    result = run("check", "--no-cache", "--statistics", "--format", "json")
    assert json.loads(result.stdout) == [
        {"code": "WS101", "name": "unseeded-numpy-in-workers", "count": 2, "fixable": 2}
    ]
    result = run("check", "--statistics", "--format", "sarif")
    assert result.exit_code == 2


# --- colour ---


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_no_colour_without_a_terminal(repo: Path) -> None:
    assert not ANSI.search(run("check", "--no-cache").stdout)


def test_force_color_colours_output(repo: Path) -> None:
    result = run("check", "--no-cache", env={"FORCE_COLOR": "1"})
    assert ANSI.search(result.stdout)
    # Machine-readable formats never carry colour.
    json_result = run("check", "--no-cache", "--format", "json", env={"FORCE_COLOR": "1"})
    assert not ANSI.search(json_result.stdout)
    json.loads(json_result.stdout)


def test_no_color_wins_over_force_color(repo: Path) -> None:
    result = run("check", "--no-cache", env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    # NO_COLOR removes colours; rich may still use bold, which is not a colour.
    codes = {code for match in ANSI.findall(result.stdout) for code in match[2:-1].split(";")}
    assert not codes & {str(n) for n in [*range(30, 38), *range(90, 98), 38]}


# --- fix ---


def test_fix_diff_shows_the_change_writes_nothing_and_exits_1(repo: Path) -> None:
    before = (repo / "train.py").read_bytes()
    result = run("fix", "--no-cache", "--diff")
    assert result.exit_code == 1
    assert "--- a/train.py" in result.stdout
    assert "+loader = DataLoader(NoisyDataset(), num_workers=4, worker_init_fn=seed_worker)" in (
        result.stdout
    )
    assert "1 file would change: would fix 1 finding, 0 remaining." in result.stdout
    assert (repo / "train.py").read_bytes() == before


def test_fix_diff_piped_is_a_patch_git_can_apply(repo: Path) -> None:
    long_name = "NoisyDataset" + "_with_a_long_name" * 8
    for name in ("data.py", "train.py"):
        path = repo / name
        path.write_text(path.read_text(encoding="utf-8").replace("NoisyDataset", long_name))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    result = run("fix", "--no-cache", "--diff")
    patch = result.stdout[result.stdout.index("--- a/train.py") :]
    patch = patch[: patch.rindex("\n1 file would change")] + "\n"
    assert f"+loader = DataLoader({long_name}(), num_workers=4" in patch  # not wrapped
    applied = subprocess.run(
        ["git", "apply", "--check", "-"], input=patch, text=True, cwd=repo, capture_output=True
    )
    assert applied.returncode == 0, applied.stderr


def test_fix_diff_of_a_clean_project_exits_0(repo: Path) -> None:
    (repo / "train.py").write_text(CLEAN, encoding="utf-8")
    assert run("fix", "--no-cache", "--diff").exit_code == 0


def test_fix_yes_writes_and_exits_0(repo: Path) -> None:
    result = run("fix", "--no-cache", "--yes")
    assert result.exit_code == 0
    assert "1 file changed: fixed 1 finding, 0 remaining." in result.stdout
    assert "worker_init_fn=seed_worker" in (repo / "train.py").read_text(encoding="utf-8")
    assert (repo / "data.py").read_text(encoding="utf-8") == DATA
    assert run("check", "--no-cache").exit_code == 0


def test_fix_with_json_keeps_stdout_machine_readable(repo: Path) -> None:
    result = run("fix", "--no-cache", "--yes", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []
    assert "--- a/train.py" in result.stderr


@pytest.fixture
def three_loaders(repo: Path) -> list[Path]:
    paths = [repo / name for name in ("a.py", "b.py", "c.py")]
    for path in paths:
        path.write_text(LOADER, encoding="utf-8")
    (repo / "train.py").unlink()
    return paths


def _fixed(paths: list[Path]) -> list[bool]:
    return ["worker_init_fn=seed_worker" in path.read_text(encoding="utf-8") for path in paths]


@pytest.mark.parametrize(
    ("answers", "expected", "exit_code"),
    [
        pytest.param("y\ny\ny\n", [True, True, True], 0, id="accept each"),
        pytest.param("n\ny\nn\n", [False, True, False], 1, id="skip some"),
        pytest.param("n\na\n", [False, True, True], 1, id="accept all after a skip"),
        pytest.param("y\nq\n", [True, False, False], 1, id="quit"),
        pytest.param("\n\n\n", [True, True, True], 0, id="enter accepts"),
        pytest.param("maybe\nn\nn\nn\n", [False, False, False], 1, id="asks again"),
    ],
)
def test_interactive_review(
    three_loaders: list[Path],
    monkeypatch: pytest.MonkeyPatch,
    answers: str,
    expected: list[bool],
    exit_code: int,
) -> None:
    monkeypatch.setattr(cli.fix_command, "_interactive", lambda console: True)
    result = run("fix", "--no-cache", input=answers)
    assert result.exit_code == exit_code, result.output
    assert _fixed(three_loaders) == expected
    assert "Apply this change to a.py? [y]es, [n]o, [a]ll, [q]uit [y]:" in result.stdout
    if "a" in answers.split():
        assert result.stdout.count("Apply this change") == 2


def test_without_a_terminal_fix_applies_without_asking(three_loaders: list[Path]) -> None:
    result = run("fix", "--no-cache")
    assert result.exit_code == 0
    assert "Apply this change" not in result.stdout
    assert _fixed(three_loaders) == [True, True, True]


# --- rules ---


def test_rules_table(repo: Path) -> None:
    result = run("rules")
    assert result.exit_code == 0
    header = result.stdout.splitlines()[1]
    for column in ("Code", "Name", "Default", "Fixable", "Fix safety"):
        assert column in header
    row = r"WS101 .* unseeded-numpy-in-workers .* on .* sometimes .* safe"
    assert re.search(row, result.stdout)


def test_explain_renders_the_rule_documentation(repo: Path) -> None:
    result = run("rules", "--explain", "ws101")
    assert result.exit_code == 0
    for section in ("What it does", "Why it matters", "Example", "Fix safety", "Known limitations"):
        assert section in result.stdout


def test_explain_unknown_rule_is_exit_2(repo: Path) -> None:
    result = run("rules", "--explain", "WS999")
    assert result.exit_code == 2
    assert "no rule 'WS999'" in result.stderr


def test_every_command_has_help() -> None:
    for command in ("check", "fix", "rules", "scan"):
        result = run(command, "--help")
        assert result.exit_code == 0
        assert len(result.stdout) > 200


# --- notebooks ---


def test_notebook_findings_in_text_and_json(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Explore"),
        nbformat.v4.new_code_cell("!pip install torch\nfrom torch.utils.data import DataLoader"),
        nbformat.v4.new_code_cell(
            "from data import NoisyDataset\nloader = DataLoader(NoisyDataset(), num_workers=2)"
        ),
    ]
    nbformat.write(notebook, str(repo / "explore.ipynb"))
    result = run("check", "--no-cache", "explore.ipynb")
    assert result.exit_code == 1
    assert result.stdout.startswith("explore.ipynb:cell 3:2:10: WS101 [*] ")
    (finding,) = json.loads(run("check", "--no-cache", "--format", "json", "explore.ipynb").stdout)
    assert (finding["cell"], finding["range"]["start"]) == (3, {"line": 2, "column": 10})
    # Piped, the diff is a patch of the file; on a terminal, it shows the changed cells.
    patch = run("fix", "--no-cache", "--diff", "explore.ipynb").stdout
    assert "--- a/explore.ipynb\n" in patch
    assert '+    "def seed_worker(worker_id: int) -> None:\\n",' in patch
    monkeypatch.setattr(cli.render, "is_terminal", lambda console: True)
    diff = run("fix", "--no-cache", "--diff", "explore.ipynb").stdout
    assert "--- a/explore.ipynb:cell 3" in diff
    assert "+def seed_worker(worker_id: int) -> None:" in diff
    # New imports join the cell that holds the imports, sorted.
    assert "@@ -1,2 +1,6 @@\n !pip install torch\n+import random\n+\n+import numpy as np\n" in diff


def test_notebooks_are_checked_without_nbformat(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    cell: dict[str, object] = {
        "cell_type": "code",
        "metadata": {},
        "outputs": [],
        "execution_count": None,
    }
    imports = ["from torch.utils.data import DataLoader\n", "from data import NoisyDataset"]
    cells = [
        {**cell, "source": imports},
        {**cell, "source": "loader = DataLoader(NoisyDataset(), num_workers=2)"},
    ]
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (repo / "explore.ipynb").write_text(json.dumps(document), encoding="utf-8")
    monkeypatch.setitem(sys.modules, "nbformat", None)  # a plain install: no nbformat
    result = run("check", "--no-cache", "explore.ipynb")
    assert result.exit_code == 1
    assert result.stdout.startswith("explore.ipynb:cell 2:1:10: WS101 [*] ")
    assert result.stderr == ""
