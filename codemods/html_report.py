"""A report people look at: one self-contained HTML file (`scan --html`, `check --html`).

Everything is inline: CSS in a `<style>` element, charts as inline SVG, each rule's
documentation in the page itself (the findings link to it). Nothing is fetched from the
network, so the file opens anywhere, offline, attached to a CI run or an e-mail.

The charts are horizontal bar charts drawn here as SVG by hand: a chart is a few dozen
elements, and a plotting library (matplotlib, pygal) would be a dependency larger than the
tool for them, with output many times larger. Each bar carries its number as text and in
`data-value`, so the numbers can be checked by parsing the file.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .registry import ALL_RULES
from .report import RunReport
from .scan import DECLARED, ScanReport
from .types import Finding

__all__ = ["Bar", "bar_chart", "check_page", "scan_page"]

#: How many repositories the "worst repositories" chart shows.
WORST = 10
#: Shows a path as the reader knows it (e.g. relative to the working directory).
Display = Callable[[Path], str]

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem;
       padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
.summary { display: flex; gap: 2rem; flex-wrap: wrap; margin: 1rem 0; }
.summary div { background: #f6f8fa; border-radius: 6px; padding: .6rem 1rem; }
.summary b { display: block; font-size: 1.5rem; }
figure { margin: 1rem 0; } figcaption { font-weight: 600; margin-bottom: .3rem; }
svg text { font: 13px system-ui, sans-serif; fill: #1f2328; }
svg .bar rect { fill: #cf222e; } svg .bar.zero rect { fill: #d0d7de; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #d0d7de;
         vertical-align: top; }
th { background: #f6f8fa; } td.message { max-width: 40rem; }
code, pre { font: 13px ui-monospace, monospace; }
pre { background: #f6f8fa; padding: .8rem; overflow-x: auto; white-space: pre-wrap; }
.empty { color: #656d76; }
"""


@dataclass(frozen=True)
class Bar:
    """One bar of a chart: a label, its number, and where the label links (if anywhere)."""

    label: str
    value: int
    href: str | None = None


def bar_chart(title: str, bars: Sequence[Bar], *, chart_id: str) -> str:
    """Return a horizontal bar chart as an inline `<figure>` with an SVG."""
    if not bars:
        return (
            f'<figure id="{chart_id}"><figcaption>{html.escape(title)}</figcaption>'
            '<p class="empty">Nothing to show.</p></figure>'
        )
    label_width, bar_width, row, gap = 300, 420, 24, 6
    height = len(bars) * (row + gap) + gap
    width = label_width + bar_width + 70
    largest = max(bar.value for bar in bars) or 1
    parts = [
        f'<figure id="{chart_id}"><figcaption>{html.escape(title)}</figcaption>',
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{html.escape(title)}</title>",
    ]
    for index, bar in enumerate(bars):
        top = gap + index * (row + gap)
        length = round(bar_width * bar.value / largest)
        middle = top + row / 2 + 4
        label = html.escape(_shorten(bar.label, 42))
        if bar.href is not None:
            label = f'<a href="{html.escape(bar.href)}">{label}</a>'
        zero = " zero" if bar.value == 0 else ""
        parts.append(
            f'<g class="bar{zero}" data-label="{html.escape(bar.label)}" '
            f'data-value="{bar.value}">'
            f"<title>{html.escape(bar.label)}: {bar.value}</title>"
            f'<text x="{label_width - 8}" y="{middle}" text-anchor="end">{label}</text>'
            f'<rect x="{label_width}" y="{top}" width="{max(length, 1)}" height="{row}" '
            'rx="3"/>'
            f'<text class="value" x="{label_width + max(length, 1) + 6}" y="{middle}">'
            f"{bar.value}</text></g>"
        )
    parts.append("</svg></figure>")
    return "".join(parts)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def _rule_anchor(code: str) -> str:
    return f"rule-{code}"


def _file_link(finding: Finding, display: Display) -> str:
    """Return a link to the finding's file, at its line (`#L12`, as code hosts number lines)."""
    span = finding.span
    place = f"{display(finding.path)}:{span.line}:{span.column + 1}"
    if finding.cell is not None:
        place = f"{display(finding.path)}:cell {finding.cell}:{span.line}:{span.column + 1}"
    href = f"{finding.path.resolve().as_uri()}#L{span.line}"
    return f'<a href="{html.escape(href)}">{html.escape(place)}</a>'


def _findings_table(rows: Sequence[tuple[str | None, Finding]], display: Display) -> str:
    if not rows:
        return '<p class="empty">No findings.</p>'
    with_repository = any(repository is not None for repository, _ in rows)
    head = "<th>Repository</th>" if with_repository else ""
    parts = [
        f'<table id="findings"><thead><tr>{head}<th>Where</th><th>Rule</th>'
        "<th>Message</th><th>Fix</th></tr></thead><tbody>"
    ]
    for repository, finding in rows:
        fix = finding.fix
        fix_text = "none" if fix is None else f"{fix.safety.value}: {fix.title}"
        cell = f"<td>{html.escape(repository or '')}</td>" if with_repository else ""
        parts.append(
            f'<tr class="finding" data-code="{finding.code}">{cell}'
            f"<td>{_file_link(finding, display)}</td>"
            f'<td><a href="#{_rule_anchor(finding.code)}">{finding.code}</a> '
            f"<code>{html.escape(finding.name)}</code></td>"
            f'<td class="message">{html.escape(finding.message)}</td>'
            f"<td>{html.escape(fix_text)}</td></tr>"
        )
    parts.append("</tbody></table>")
    return "".join(parts)


def _rule_docs(codes: Sequence[str]) -> str:
    parts = ["<h2>Rules</h2>"]
    for rule in ALL_RULES:
        if rule.CODE in codes:
            parts.append(
                f'<section id="{_rule_anchor(rule.CODE)}"><h3>{rule.CODE} '
                f"<code>{html.escape(rule.NAME)}</code></h3>"
                f"<pre>{html.escape(rule.documentation())}</pre></section>"
            )
    return "".join(parts)


def _summary(items: Sequence[tuple[str, str]]) -> str:
    cells = "".join(
        f'<div data-summary="{html.escape(name)}"><b>{html.escape(value)}</b>'
        f"{html.escape(name)}</div>"
        for name, value in items
    )
    return f'<div class="summary">{cells}</div>'


def _page(title: str, body: Sequence[str]) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>" + "".join(body) + "</body></html>\n"
    )


def _rule_bars(counts: Counter[str]) -> list[Bar]:
    names = {rule.CODE: rule.NAME for rule in ALL_RULES}
    return [
        Bar(f"{code} {names.get(code, '')}".strip(), counts[code], f"#{_rule_anchor(code)}")
        for code in sorted(counts)
    ]


def scan_page(report: ScanReport, display: Display = str) -> str:
    """Return the HTML report of a scan: the statistic per assumed torch version, the
    findings (under each repository's declared torch version) per rule and per repository,
    and every one of those findings."""
    analysed = [repository for repository in report.repositories if repository.error is None]
    affected = [
        Bar(f"{row.assumption} ({row.affected} of {row.in_scope} in scope)", row.affected)
        for row in report.totals
    ]
    rows: list[tuple[str | None, Finding]] = []
    per_rule: Counter[str] = Counter()
    per_repository: list[Bar] = []
    for repository in analysed:
        verdict = repository.verdict(DECLARED.label)
        if verdict is None:
            continue
        name = display(repository.root)
        total = sum(count for _, count in verdict.findings)
        per_rule.update(dict(verdict.findings))
        if total:
            per_repository.append(Bar(name, total))
        rows.extend((name, finding) for finding in verdict.found)
    worst = sorted(per_repository, key=lambda bar: (-bar.value, bar.label))[:WORST]
    in_scope = sum(repository.in_scope for repository in analysed)
    body = [
        _summary(
            [
                ("repositories", str(len(report.repositories))),
                ("analysed", str(len(analysed))),
                ("in scope", str(in_scope)),
                ("failed", str(len(report.failed))),
            ]
        ),
        bar_chart("Affected repositories per assumed torch version", affected, chart_id="affected"),
        bar_chart(
            "Findings per rule (each repository's declared torch version)",
            _rule_bars(per_rule),
            chart_id="rules",
        ),
        bar_chart(
            f"Worst repositories (findings, declared torch version; top {WORST})",
            worst,
            chart_id="worst",
        ),
        "<h2>Findings (each repository's declared torch version)</h2>",
        _findings_table(rows, display),
        _rule_docs(sorted(per_rule)),
    ]
    return _page("workerseed scan", body)


def check_page(report: RunReport, findings: Sequence[Finding], display: Display = str) -> str:
    """Return the HTML report of a `check` run: projects with findings per assumed torch
    version, findings per rule and per project, and every finding."""
    by_target: Counter[str] = Counter()
    for project in report.projects:
        by_target[project.target.describe()] += 0
        if project.counts.findings:
            by_target[project.target.describe()] += 1
    per_project = [
        Bar(display(project.root), project.counts.findings)
        for project in report.projects
        if project.counts.findings
    ]
    worst = sorted(per_project, key=lambda bar: (-bar.value, bar.label))[:WORST]
    per_rule = Counter({rule.code: rule.findings for rule in report.rules})
    totals = report.totals
    body = [
        _summary(
            [
                ("projects", str(len(report.projects))),
                ("files", str(totals.files)),
                ("findings", str(totals.findings)),
                ("fixable", str(totals.fixable)),
                ("skipped", str(totals.skipped)),
                ("failed", str(totals.failed)),
            ]
        ),
        bar_chart(
            "Affected repositories per assumed torch version",
            [Bar(target, count) for target, count in sorted(by_target.items())],
            chart_id="affected",
        ),
        bar_chart("Findings per rule", _rule_bars(per_rule), chart_id="rules"),
        bar_chart(f"Worst repositories (findings; top {WORST})", worst, chart_id="worst"),
        "<h2>Findings</h2>",
        _findings_table([(None, finding) for finding in findings], display),
        _rule_docs(sorted(per_rule)),
    ]
    return _page("workerseed check", body)
