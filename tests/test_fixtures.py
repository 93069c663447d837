"""Every case under fixtures/<rule>/<case>/ is a before/after pair checked end to end.

`before/` is a small repository. `findings.txt` lists what `check` reports; `after/` is
the tree `fix` must produce (no `after/` means nothing may change). Each case is also run a
second time on its own output, which must change nothing (the fix is stable).
Run `pytest --update-fixtures` to rewrite expectations, then review `git diff fixtures/`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_cases import (
    Case,
    apply_fixes,
    copy_repository,
    discover_cases,
    findings_text,
    tree,
    undeclared_fix_safeties,
)

CASES = discover_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_findings_match(case: Case, tmp_path: Path, update_fixtures: bool) -> None:
    repo = copy_repository(case.before, tmp_path / "repo")
    actual = findings_text(repo, case)
    if update_fixtures:
        case.findings_file.write_text(actual, encoding="utf-8")
    expected = case.findings_file.read_text(encoding="utf-8") if case.findings_file.exists() else ""
    assert actual == expected


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_fix_produces_after_tree(case: Case, tmp_path: Path, update_fixtures: bool) -> None:
    repo = copy_repository(case.before, tmp_path / "repo")
    apply_fixes(repo, case)
    actual = tree(repo)
    if update_fixtures:
        if actual == tree(case.before):
            shutil.rmtree(case.after, ignore_errors=True)
        else:
            shutil.rmtree(case.after, ignore_errors=True)
            shutil.copytree(repo, case.after, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    expected = tree(case.after) if case.after.exists() else tree(case.before)
    assert actual == expected


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_fixes_are_as_safe_as_their_rule_declares(case: Case, tmp_path: Path) -> None:
    repo = copy_repository(case.before, tmp_path / "repo")
    assert undeclared_fix_safeties(repo, case) == []


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_fix_is_stable(case: Case, tmp_path: Path) -> None:
    source = case.after if case.after.exists() else case.before
    repo = copy_repository(source, tmp_path / "repo")
    assert apply_fixes(repo, case) == []
    fixable = [line for line in findings_text(repo, case).splitlines() if " [*] " in line]
    assert fixable == []


def test_every_case_has_expectations() -> None:
    for case in CASES:
        assert case.findings_file.exists() or not case.after.exists(), case.id
