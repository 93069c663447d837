"""Run rules over a project and keep the findings no `# noqa` or per-file ignore suppresses."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import Path

from .analysis.project import Project
from .registry import codes_matching
from .rule import Rule
from .settings import Settings
from .types import Finding


def _suppressed(finding: Finding, project: Project) -> bool:
    module = project.module_at(finding.path)
    if module is None:
        return False
    lines = {finding.span.line, finding.span.end_line}
    for line, codes in module.noqa:
        if line in lines and (not codes or finding.code in codes):
            return True
    return False


def _ignored_by_config(finding: Finding, root: Path, settings: Settings) -> bool:
    if not settings.per_file_ignores:
        return False
    try:
        relative = finding.path.relative_to(root).as_posix()
    except ValueError:
        relative = finding.path.as_posix()
    for pattern, selectors in settings.per_file_ignores:
        matches = fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(finding.path.name, pattern)
        if matches and finding.code in codes_matching(selectors, "per-file-ignores"):
            return True
    return False


def check_project(
    project: Project, rules: Iterable[type[Rule]], settings: Settings
) -> list[Finding]:
    """Run `rules` over `project`; return the findings not suppressed, in a stable order."""
    findings: list[Finding] = []
    project.library_versions = settings.library_versions
    for rule_class in rules:
        rule = rule_class(project)
        rule.check()
        findings.extend(rule.findings)
    kept = [
        finding
        for finding in dict.fromkeys(findings)
        if not _suppressed(finding, project)
        and not _ignored_by_config(finding, project.root, settings)
    ]
    return sorted(kept, key=lambda finding: finding.sort_key)
