"""What the command prints and how it exits: severity marks, unwrapped piped output, raw rule
docs, help text and Ctrl-C."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sample_project import DATA, LOADER, make_repository

import cli.fix_command
import cli.main
import codemods
from cli.main import main
from codemods import ALL_RULES, Changed, Unchanged
from codemods.rule import Rule


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project on torch 1.8 with one buggy loader in train.py; the working directory."""
    root = make_repository(tmp_path / "repo")
    monkeypatch.chdir(root)
    for name in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM"):
        monkeypatch.delenv(name, raising=False)
    return root


def run(*arguments: str, env: dict[str, str] | None = None, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(arguments), env=env, input=input, catch_exceptions=False)


def _with_severity(monkeypatch: pytest.MonkeyPatch, severity: str) -> None:
    """Make every finding the engine returns have `severity`."""
    real = codemods.run_paths

    def run_paths(*args: Any, **kwargs: Any) -> Iterator[Any]:
        result: Any
        for result in real(*args, **kwargs):
            if isinstance(result, Unchanged | Changed):
                fields: dict[str, Any] = {
                    name: tuple(
                        dataclasses.replace(finding, severity=severity)
                        for finding in getattr(result, name)
                    )
                    for name in ("findings", "fixed", "remaining")
                    if hasattr(result, name)
                }
                result = dataclasses.replace(result, **fields)
            yield result

    monkeypatch.setattr(codemods, "run_paths", run_paths)  # the CLI imports it when it runs


# --- severity ---


def test_an_error_is_not_marked(repo: Path) -> None:
    line = run("check", "--no-cache").stdout.splitlines()[0]
    assert line.startswith("train.py:5:10: WS101 [*] DataLoader")


@pytest.mark.parametrize("severity", ["warning", "info"])
def test_a_lesser_severity_is_marked_after_the_code(
    repo: Path, monkeypatch: pytest.MonkeyPatch, severity: str
) -> None:
    _with_severity(monkeypatch, severity)
    line = run("check", "--no-cache").stdout.splitlines()[0]
    assert line.startswith(f"train.py:5:10: WS101 [{severity}] [*] DataLoader")


def test_a_warning_fails_the_run(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_severity(monkeypatch, "warning")
    assert run("check", "--no-cache").exit_code == 1


def test_informational_findings_do_not_fail_check(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _with_severity(monkeypatch, "info")
    result = run("check", "--no-cache")
    assert "WS101 [info]" in result.stdout
    assert result.exit_code == 0


def test_informational_findings_left_by_fix_do_not_fail_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _with_severity(monkeypatch, "info")
    monkeypatch.setattr(cli.fix_command, "_interactive", lambda console: True)
    # The change is skipped at the prompt, so its informational finding remains.
    result = run("fix", "--no-cache", "--format", "json", input="n\n")
    assert [finding["severity"] for finding in json.loads(result.stdout)] == ["info"]
    assert result.exit_code == 0


@pytest.mark.parametrize(("severity", "level"), [("warning", "warning"), ("info", "note")])
def test_sarif_and_github_levels_follow_severity(
    repo: Path, monkeypatch: pytest.MonkeyPatch, severity: str, level: str
) -> None:
    _with_severity(monkeypatch, severity)
    sarif = json.loads(run("check", "--no-cache", "--format", "sarif").stdout)
    assert sarif["runs"][0]["results"][0]["level"] == level
    github = run("check", "--no-cache", "--format", "github").stdout
    assert github.startswith("::warning " if severity == "warning" else "::notice ")


# --- piped output ---


def _long_project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / ".git").mkdir()
    (root / "requirements.txt").write_text("torch==1.8.1\n", encoding="utf-8")
    (root / "data.py").write_text(DATA, encoding="utf-8")
    (root / "train.py").write_text(LOADER, encoding="utf-8")
    return root


@pytest.mark.parametrize("command", ["check", "fix"])
def test_piped_output_is_never_wrapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    name = "a-repository-whose-name-is-much-longer-than-forty-columns-" * 2
    for index in range(2):
        _long_project(tmp_path, f"{name}{index}")
    monkeypatch.chdir(tmp_path)
    arguments = [command, "--no-cache", f"{name}0", f"{name}1"]
    if command == "fix":
        arguments.append("--diff")
    result = CliRunner().invoke(
        main, arguments, env={"COLUMNS": "40"}, terminal_width=40, catch_exceptions=False
    )
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # Each repository's row holds its whole name, on one line.
    assert sum(f"{name}0" in line for line in lines) >= 1
    assert any(line.startswith(f"│ {name}1") for line in lines)
    summary = lines[-1]
    if command == "check":
        assert summary == "4 files checked: 2 findings, 2 fixable (run `workerseed fix`)."
    else:
        assert summary == "2 files would change: would fix 2 findings, 0 remaining."
    rule_rows = [line for line in lines if "WS101" in line and "│" in line]
    assert rule_rows
    assert "unseeded-numpy-in-workers" in rule_rows[0]


def test_piped_warnings_are_not_wrapped(repo: Path) -> None:
    (repo / "broken.py").write_text("from torch.utils.data import Dataset\ndef f(:\n")
    result = CliRunner().invoke(
        main, ["check", "--no-cache"], env={"COLUMNS": "40"}, catch_exceptions=False
    )
    warning = [line for line in result.stderr.splitlines() if "broken.py" in line]
    assert len(warning) == 1
    assert warning[0].startswith("warning: broken.py: skipped")


# --- rules --explain ---


@pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.CODE for rule in ALL_RULES])
def test_explain_as_markdown_is_the_raw_documentation(rule: type[Rule]) -> None:
    code = rule.CODE
    result = run("rules", "--explain", code, "--format", "markdown")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"# {code} {rule.NAME}\n\n")
    assert all(line == line.rstrip() for line in result.stdout.splitlines())
    assert result.stdout.endswith(rule.documentation().splitlines()[-1].rstrip() + "\n")


def test_explain_as_json() -> None:
    result = run("rules", "--explain", "WS201", "--format", "json")
    document = json.loads(result.stdout)
    assert document["code"] == "WS201"
    assert "\n## What it does\n" in document["explanation"]
    assert all(line == line.rstrip() for line in document["explanation"].splitlines())


def test_rules_as_json_lists_every_rule() -> None:
    documents = json.loads(run("rules", "--format", "json").stdout)
    assert [document["code"] for document in documents] == [rule.CODE for rule in ALL_RULES]


def test_explaining_an_unknown_rule_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["rules", "--explain", "WS999", "--format", "json"])
    assert result.exit_code == 2


# --- help ---


def test_top_level_help_shows_each_command_description_whole() -> None:
    result = run("--help")
    commands = result.stdout.split("Commands:")[1]
    assert "..." not in commands
    for name in main.commands:
        assert f"  {name} " in commands


def test_only_fix_help_mentions_diff() -> None:
    assert "--diff" not in run("check", "--help").stdout
    assert "--diff" in run("fix", "--help").stdout


# --- Ctrl-C ---


def test_ctrl_c_during_the_run_exits_130(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Iterator[Any]:
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(codemods, "run_paths", interrupted)
    result = CliRunner().invoke(main, ["check", "--no-cache"])
    assert result.exit_code == 130
    assert "Aborted" not in result.stderr


def test_ctrl_c_at_the_review_prompt_exits_130(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli.fix_command, "_interactive", lambda console: True)

    class CtrlC(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            raise KeyboardInterrupt

    result = CliRunner().invoke(main, ["fix", "--no-cache"], input=io.BufferedReader(CtrlC()))
    assert result.exit_code == 130


def test_end_of_input_at_the_prompt_is_still_an_abort(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli.fix_command, "_interactive", lambda console: True)
    result = CliRunner().invoke(main, ["fix", "--no-cache"], input="")
    assert result.exit_code == 1


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_sigint_to_the_process_exits_130(repo: Path) -> None:
    # A command that blocks until interrupted: the review prompt, fed by a pipe kept open.
    code = (
        "import sys, cli.fix_command, cli.main; "
        "cli.fix_command._interactive = lambda console: True; "
        "sys.argv = ['workerseed', 'fix', '--no-cache']; cli.main.main()"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(cli.main.__file__).parents[1])},
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    seen = b""
    while b"Apply this change" not in seen and time.monotonic() < deadline:
        seen += process.stdout.read1(4096)  # type: ignore[attr-defined]
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=60)
    assert process.returncode == 130
