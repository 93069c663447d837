"""Machine-readable output: JSON, SARIF 2.1.0 and GitHub Actions workflow commands.

Every writer takes findings already sorted by the engine's stable key and returns text; none
of them computes anything beyond turning findings into the format's shapes. Columns are
1-based in every format (the engine counts them from 0, in characters).
"""

from __future__ import annotations

import difflib
import json
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codemods import ALL_RULES, Finding, Safety, Span, TorchTarget, __version__
from codemods.lines import source_lines
from codemods.notebooks import file_span
from codemods.previews import FilePreview, TextEdit
from codemods.report import Counts, RunReport
from codemods.scan import RepositoryScan, ScanReport

from .render import display_path, is_applicable

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_VERSION = "2.1.0"
#: SARIF `uriBaseId` for paths relative to the working directory.
SRCROOT = "%SRCROOT%"
#: Version of the `--report` and `scan --format json` documents; bumped when a field changes
#: meaning or disappears (new fields do not bump it).
REPORT_VERSION = 1

Previews = Mapping[Finding, tuple[FilePreview, ...]]


#: SARIF levels and GitHub workflow commands of the severities (info: a note, never an error).
_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
_GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def _position(line: int, column: int) -> dict[str, int]:
    return {"line": line, "column": column + 1}


def _range(span: Span) -> dict[str, dict[str, int]]:
    return {
        "start": _position(span.line, span.column),
        "end": _position(span.end_line, span.end_column),
    }


def file_diff(preview: FilePreview) -> str:
    """Return the unified diff of one file's preview, with paths as the user sees them."""
    name = display_path(preview.path)
    lines = difflib.unified_diff(
        source_lines(preview.old),
        source_lines(preview.new),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


# --- JSON ---


def _edit_dict(path: Path, edit: TextEdit) -> dict[str, Any]:
    return {"path": display_path(path), "range": _range(edit.span), "content": edit.content}


def target_dict(target: TorchTarget) -> dict[str, Any]:
    """Return an assumed torch version as plain data."""
    return {
        "version": ".".join(map(str, target.version)) if target.version else None,
        "below": target.below,
        "source": target.source,
        "description": target.describe(),
    }


def finding_dict(finding: Finding, previews: Previews, *, unsafe_fixes: bool) -> dict[str, Any]:
    """Return a finding as plain data (the JSON format's element)."""
    fix = finding.fix
    data: dict[str, Any] = {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "severity": finding.severity,
        "path": display_path(finding.path),
        "cell": finding.cell,
        "range": _range(finding.span),
        "related": [
            {"path": display_path(place.path), **_range(place.span)} for place in finding.related
        ],
        "torch_version": target_dict(finding.target),
        "fix": None,
    }
    if fix is not None:
        preview = previews.get(finding)
        data["fix"] = {
            "title": fix.title,
            "applicability": fix.safety.value,
            "applies": is_applicable(finding, unsafe_fixes),
            "edits": None
            if preview is None
            else [_edit_dict(file.path, edit) for file in preview for edit in file.edits],
            "diff": None if preview is None else "".join(file_diff(file) for file in preview),
        }
    return data


def findings_json(findings: Sequence[Finding], previews: Previews, *, unsafe_fixes: bool) -> str:
    """Return the findings as a JSON array, one object per finding."""
    return json.dumps(
        [finding_dict(finding, previews, unsafe_fixes=unsafe_fixes) for finding in findings],
        indent=2,
        ensure_ascii=False,
    )


def statistics_json(rows: Sequence[tuple[str, str, int, int]]) -> str:
    """Return per-rule counts (code, name, count, fixable) as a JSON array."""
    return json.dumps(
        [
            {"code": code, "name": name, "count": count, "fixable": fixable}
            for code, name, count, fixable in rows
        ],
        indent=2,
    )


# --- reports of bulk runs ---


def _tool() -> dict[str, str]:
    return {"name": "workerseed", "version": __version__}


def _counts_dict(counts: Counts) -> dict[str, int]:
    return {
        "files": counts.files,
        "findings": counts.findings,
        "fixable": counts.fixable,
        "fixed": counts.fixed,
        "remaining": counts.remaining,
        "skipped": counts.skipped,
        "failed": counts.failed,
    }


def run_report_json(report: RunReport, *, command: str) -> str:
    """Return a run's counts per project, per rule and in total (the `--report` file).

    `command` is "check", "fix" or "fix --diff" (where `fixed` counts what would be fixed).
    """
    document = {
        "version": REPORT_VERSION,
        "tool": _tool(),
        "command": command,
        "projects": [
            {
                "root": display_path(project.root),
                "torch_version": target_dict(project.target),
                **_counts_dict(project.counts),
                "rules": dict(project.by_rule),
            }
            for project in report.projects
        ],
        "rules": [
            {
                "code": rule.code,
                "name": rule.name,
                "findings": rule.findings,
                "fixable": rule.fixable,
                "fixed": rule.fixed,
            }
            for rule in report.rules
        ],
        "totals": {"projects": len(report.projects), **_counts_dict(report.totals)},
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _repository_dict(repository: RepositoryScan) -> dict[str, Any]:
    return {
        "root": display_path(repository.root),
        "error": repository.error,
        "files": repository.files,
        "datasets": repository.datasets,
        "numpy_datasets": repository.numpy_datasets,
        "multi_process": repository.multi_process,
        "in_scope": repository.in_scope,
        "assumptions": [
            {
                "assumption": verdict.assumption,
                "torch_version": target_dict(verdict.target),
                "affected": verdict.affected,
                "epoch_repeats": verdict.epoch_repeats,
                "findings": dict(verdict.findings),
            }
            for verdict in repository.verdicts
        ],
    }


def scan_json(report: ScanReport) -> str:
    """Return a scan's statistic per assumption and the facts of every repository."""
    document = {
        "version": REPORT_VERSION,
        "tool": _tool(),
        "assumptions": [
            {
                "assumption": row.assumption,
                "repositories": row.scanned,
                "in_scope": row.in_scope,
                "affected": row.affected,
                "affected_share": row.affected_share,
                "affected_out_of_scope": row.affected_out_of_scope,
                "epoch_repeats": row.epoch_repeats,
            }
            for row in report.totals
        ],
        "failed": len(report.failed),
        "repositories": [_repository_dict(repository) for repository in report.repositories],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# --- SARIF ---


def _uri(path: Path) -> str:
    return urllib.parse.quote(display_path(path))


def _region(span: Span) -> dict[str, int]:
    return {
        "startLine": span.line,
        "startColumn": span.column + 1,
        "endLine": span.end_line,
        "endColumn": span.end_column + 1,
    }


def _file_location(finding: Finding) -> Span | None:
    """Return the finding's place in its file: in a notebook, the lines of its JSON."""
    if finding.cell is None:
        return finding.span
    return file_span(finding)


def _sarif_rules() -> list[dict[str, Any]]:
    rules = []
    for rule in ALL_RULES:
        sections = rule.sections()
        rules.append(
            {
                "id": rule.CODE,
                "name": rule.NAME,
                "shortDescription": {"text": rule.summary()},
                "fullDescription": {"text": " ".join(sections.get("What it does", "").split())},
                "help": {"text": rule.documentation(), "markdown": rule.documentation()},
                "defaultConfiguration": {"enabled": rule.DEFAULT, "level": "error"},
                "properties": {
                    "tags": ["pytorch", "dataloader", "randomness"],
                    "precision": "high",
                    "fixable": rule.FIX.value,
                    "fixSafety": rule.fix_safety(),
                },
            }
        )
    return rules


def _sarif_fix(finding: Finding, previews: Previews) -> list[dict[str, Any]]:
    preview = previews.get(finding)
    if finding.fix is None or preview is None:
        return []
    title = finding.fix.title
    if finding.fix.safety is Safety.UNSAFE:
        title += " (unsafe: applied by `workerseed fix --unsafe-fixes`)"
    return [
        {
            "description": {"text": title},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": _uri(file.path), "uriBaseId": SRCROOT},
                    "replacements": [
                        {
                            "deletedRegion": _region(edit.span),
                            "insertedContent": {"text": edit.content},
                        }
                        for edit in file.edits
                    ],
                }
                for file in preview
            ],
        }
    ]


def _sarif_result(finding: Finding, index: dict[str, int], previews: Previews) -> dict[str, Any]:
    message = finding.message
    if finding.cell is not None:
        message = (
            f"cell {finding.cell}, line {finding.span.line}, column {finding.span.column + 1}: "
            + message
        )
    location: dict[str, Any] = {
        "artifactLocation": {"uri": _uri(finding.path), "uriBaseId": SRCROOT}
    }
    span = _file_location(finding)
    # GitHub needs a region to show an alert in the file; a notebook's falls back to line 1.
    location["region"] = _region(span) if span is not None else {"startLine": 1}
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index[finding.code],
        "level": _SARIF_LEVELS.get(finding.severity, "error"),
        "message": {"text": message},
        "locations": [{"physicalLocation": location}],
        "properties": {"torchVersion": finding.target.describe()},
    }
    # A place in the notebook itself counts lines of a cell, which SARIF cannot say.
    related = [
        place for place in finding.related if finding.cell is None or place.path != finding.path
    ]
    if related:
        result["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(place.path), "uriBaseId": SRCROOT},
                    "region": _region(place.span),
                },
                "message": {"text": "same cause"},
            }
            for number, place in enumerate(related, start=1)
        ]
    if finding.cell is not None:
        result["properties"]["cell"] = finding.cell
    fixes = _sarif_fix(finding, previews)
    if fixes:
        result["fixes"] = fixes
    return result


def sarif(findings: Sequence[Finding], previews: Previews, *, cwd: Path | None = None) -> str:
    """Return a SARIF 2.1.0 log of the findings, with every rule's metadata."""
    index = {rule.CODE: position for position, rule in enumerate(ALL_RULES)}
    root = (cwd or Path.cwd()).resolve().as_uri().rstrip("/") + "/"
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "workerseed",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": _sarif_rules(),
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": root}},
                "columnKind": "unicodeCodePoints",
                "results": [_sarif_result(finding, index, previews) for finding in findings],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


# --- GitHub Actions ---


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(finding: Finding) -> str:
    """Return a `::error file=...,line=...::message` workflow command for one finding."""
    properties = [("file", display_path(finding.path))]
    span = _file_location(finding)
    if span is not None:
        properties += [
            ("line", str(span.line)),
            ("col", str(span.column + 1)),
            ("endLine", str(span.end_line)),
            ("endColumn", str(span.end_column + 1)),
        ]
    properties.append(("title", finding.code))
    message = finding.message
    if finding.cell is not None:
        message = f"cell {finding.cell}:{finding.span.line}:{finding.span.column + 1}: {message}"
    command = _GITHUB_COMMANDS.get(finding.severity, "error")
    joined = ",".join(f"{key}={_escape_property(value)}" for key, value in properties)
    return f"::{command} {joined}::{_escape_data(message)}"


def github(findings: Sequence[Finding]) -> str:
    """Return one workflow annotation per finding (empty when there are none)."""
    return "".join(github_annotation(finding) + "\n" for finding in findings)
