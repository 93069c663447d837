"""Per-project and per-rule counts of a `check` or `fix` run: the summary table and `--report`.

Results do not carry their project: each is assigned to the deepest project root that
contains its path. A finding is counted once per project even when several results mention
it (a fix that edits two files lists its finding in both).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from .projects import ProjectSettings
from .types import Changed, Failed, FileResult, Finding, Safety, Skipped, TorchTarget


def applies(finding: Finding, unsafe_fixes: bool) -> bool:
    """Return True if `fix` applies this finding's fix with these options."""
    fix = finding.fix
    return fix is not None and (fix.safety is Safety.SAFE or unsafe_fixes)


@dataclass(frozen=True)
class Counts:
    """What happened to the files and findings of one project, or of a whole run."""

    #: Files analysed (changed or not); skipped and failed files are counted apart.
    files: int = 0
    #: Findings before any fix.
    findings: int = 0
    #: Findings whose fix applies with the options given.
    fixable: int = 0
    #: Findings fixed by the changes written (by `fix`; `fix --diff`: that would be written).
    fixed: int = 0
    #: Findings left afterwards (`check`: every finding).
    remaining: int = 0
    skipped: int = 0
    failed: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            *(getattr(self, item.name) + getattr(other, item.name) for item in fields(Counts))
        )


@dataclass(frozen=True)
class ProjectReport:
    """The counts of one project root."""

    root: Path
    #: The torch version its findings assumed.
    target: TorchTarget
    counts: Counts
    #: Findings per rule code, in code order.
    by_rule: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class RuleReport:
    """The counts of one rule over every project."""

    code: str
    name: str
    findings: int
    fixable: int
    fixed: int


@dataclass(frozen=True)
class RunReport:
    """A run's counts per project, per rule, and in total."""

    projects: tuple[ProjectReport, ...]
    rules: tuple[RuleReport, ...]
    totals: Counts


def project_of(path: Path, roots: Collection[Path]) -> Path | None:
    """Return the deepest of `roots` that contains `path` (or is it)."""
    known = {os.fspath(root): root for root in roots}
    # On strings: a run's results are many thousands of paths.
    text = os.fspath(path)
    while True:
        found = known.get(text)
        if found is not None:
            return found
        parent = os.path.dirname(text)
        if parent == text:
            return None
        text = parent


@dataclass
class _Tally:
    """Findings and file outcomes of one project while results are counted.

    Findings are dict keys (an ordered set): one finding may appear in several results.
    """

    files: int = 0
    skipped: int = 0
    failed: int = 0
    findings: dict[Finding, None] = field(default_factory=dict)
    fixed: dict[Finding, None] = field(default_factory=dict)
    remaining: dict[Finding, None] = field(default_factory=dict)

    def add(self, result: FileResult, applied: Collection[Path] | None) -> None:
        if isinstance(result, Skipped):
            self.skipped += 1
            return
        if isinstance(result, Failed):
            self.failed += 1
            return
        self.files += 1
        self.findings.update(dict.fromkeys(result.findings))
        if isinstance(result, Changed) and applied is not None and result.path in applied:
            self.findings.update(dict.fromkeys(result.fixed))
            self.fixed.update(dict.fromkeys(result.fixed))
            self.remaining.update(dict.fromkeys(result.remaining))
        else:
            self.remaining.update(dict.fromkeys(result.findings))


def summarise(
    results: Iterable[FileResult],
    projects: Sequence[ProjectSettings],
    *,
    unsafe_fixes: bool,
    applied: Collection[Path] | None = None,
) -> RunReport:
    """Count `results` per project and per rule.

    `applied` names the files whose changes were written (by `fix`); None for `check`, where
    nothing is fixed. Results outside every project count in the totals only.
    """
    roots = [project.root for project in projects]
    tallies = {root: _Tally() for root in roots}
    outside = _Tally()
    #: The project of each directory met: a run's results are thousands of files in far
    #: fewer directories.
    by_directory: dict[str, Path | None] = {}
    known = {os.fspath(root): root for root in roots}
    for result in results:
        text = os.fspath(result.path)
        root = known.get(text)
        if root is None:
            directory = os.path.dirname(text)
            if directory not in by_directory:
                by_directory[directory] = project_of(Path(directory), roots)
            root = by_directory[directory]
        (tallies[root] if root is not None else outside).add(result, applied)
    reports = [
        ProjectReport(project.root, project.target, *_counts(tallies[project.root], unsafe_fixes))
        for project in projects
    ]
    totals = sum((report.counts for report in reports), _counts(outside, unsafe_fixes)[0])
    return RunReport(tuple(reports), _rules([*tallies.values(), outside], unsafe_fixes), totals)


def _counts(tally: _Tally, unsafe_fixes: bool) -> tuple[Counts, tuple[tuple[str, int], ...]]:
    counts = Counts(
        files=tally.files,
        findings=len(tally.findings),
        fixable=sum(applies(finding, unsafe_fixes) for finding in tally.findings),
        fixed=len(tally.fixed),
        remaining=len(tally.remaining),
        skipped=tally.skipped,
        failed=tally.failed,
    )
    by_rule = Counter(finding.code for finding in tally.findings)
    return counts, tuple(sorted(by_rule.items()))


def _rules(tallies: Sequence[_Tally], unsafe_fixes: bool) -> tuple[RuleReport, ...]:
    names: dict[str, str] = {}
    findings: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    fixed: Counter[str] = Counter()
    for tally in tallies:
        for finding in tally.findings:
            names[finding.code] = finding.name
            findings[finding.code] += 1
            fixable[finding.code] += applies(finding, unsafe_fixes)
        for finding in tally.fixed:
            fixed[finding.code] += 1
    return tuple(
        RuleReport(code, names[code], findings[code], fixable[code], fixed[code])
        for code in sorted(names)
    )
