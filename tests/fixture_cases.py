"""Discover and run the before/after cases under fixtures/ (used by the tests)."""

from __future__ import annotations

import ast
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemods import ALL_RULES, Changed, Finding, Safety, Settings, Skipped, Unchanged, run_paths
from codemods.files import python_text, write_atomic

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

#: case.toml keys and the Settings fields they set.
_CASE_SETTINGS = {"select", "ignore", "extend_select", "torch_version", "unsafe_fixes"}


@dataclass(frozen=True)
class Case:
    """One fixture case: a mini repository before the fix, and what is expected of it."""

    directory: Path
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.directory.parent.name}/{self.directory.name}"

    @property
    def before(self) -> Path:
        return self.directory / "before"

    @property
    def after(self) -> Path:
        return self.directory / "after"

    @property
    def findings_file(self) -> Path:
        return self.directory / "findings.txt"

    def settings(self) -> Settings:
        values = {key: value for key, value in self.options.items() if key in _CASE_SETTINGS}
        for key in ("select", "ignore", "extend_select"):
            if key in values:
                values[key] = tuple(values[key])
        if "torch_version" in values:
            values["torch_version_source"] = "case.toml"
        return Settings(jobs=1, cache=False, **values)

    def requested(self, repo: Path) -> list[Path]:
        return [repo / path for path in self.options.get("paths", [])] or [repo]


def discover_cases() -> list[Case]:
    cases = []
    for before in sorted(FIXTURES.glob("*/*/before")):
        directory = before.parent
        options: dict[str, Any] = {}
        if (directory / "case.toml").exists():
            options = tomllib.loads((directory / "case.toml").read_text(encoding="utf-8"))
        cases.append(Case(directory, options))
    return cases


def copy_repository(source: Path, destination: Path) -> Path:
    """Copy a case's tree and mark it as a repository root (an empty .git directory)."""
    shutil.copytree(source, destination)
    (destination / ".git").mkdir(exist_ok=True)
    return destination


def tree(root: Path) -> dict[str, bytes]:
    """Return every file below `root` by relative path (ignoring the .git marker)."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and ".git" not in path.relative_to(root).parts
        and "__pycache__" not in path.parts
    }


def findings_text(repo: Path, case: Case) -> str:
    """Return the findings `check` reports for the case, one line each."""
    lines = []
    for result in run_paths(case.requested(repo), case.settings()):
        if isinstance(result, Skipped):
            lines.append(
                f"{result.path.relative_to(repo).as_posix()}: skipped ({result.reason.value})"
            )
        if isinstance(result, Unchanged | Changed) and result.note:
            lines.append(f"{result.path.relative_to(repo).as_posix()}: note ({result.note})")
        for finding in getattr(result, "findings", ()):
            path = finding.path.relative_to(repo).as_posix()
            location = f"{path}:{finding.span.line}:{finding.span.column + 1}"
            marker = " [*]" if applicable(finding, case) else ""
            severity = "" if finding.severity == "error" else f" ({finding.severity})"
            lines.append(f"{location} {finding.code}{severity}{marker} {finding.message}")
    return "".join(line + "\n" for line in lines)


def undeclared_fix_safeties(repo: Path, case: Case) -> list[str]:
    """Return the case's fixes whose safety their rule's `FIX_SAFETY` does not declare."""
    declared = {rule.CODE: rule.FIX_SAFETY for rule in ALL_RULES}
    problems = []
    for result in run_paths(case.requested(repo), case.settings()):
        for finding in getattr(result, "findings", ()):
            fix = finding.fix
            if fix is not None and not declared[finding.code].allows(fix.safety):
                problems.append(
                    f"{finding.code} declares {declared[finding.code].value} fixes but emits a "
                    f"{fix.safety.value} one: {fix.title}"
                )
    return problems


def applicable(finding: Finding, case: Case) -> bool:
    """Return True if `fix` would apply the finding's fix with the case's settings."""
    fix = finding.fix
    return fix is not None and (fix.safety is Safety.SAFE or bool(case.settings().unsafe_fixes))


def apply_fixes(repo: Path, case: Case) -> list[Changed]:
    """Run `fix --yes` on the case's repository; return what changed."""
    changed = [
        result
        for result in run_paths(case.requested(repo), case.settings(), fix=True)
        if isinstance(result, Changed)
    ]
    for result in changed:
        ast.parse(python_text(result.new))  # a `%%writefile` first line stays
        write_atomic(result.source, result.new)
    return changed
