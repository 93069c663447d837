"""`scan --html` and `check --html`: one self-contained HTML file whose numbers are the JSON
report's. No browser engine can be installed here, so the page is parsed: the HTML with
`html.parser`, each inline SVG with `xml.etree`, and every number a chart shows is compared
with the `--report` document of the same run."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from sample_project import SCRIPT

from cli.main import main
from codemods.html_report import Bar, bar_chart

SVG = "{http://www.w3.org/2000/svg}"

NUMPY_GLOBAL = SCRIPT

RNG_OBJECT = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Shared(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return self.rng.normal() + np.random.rand()


loader = DataLoader(Shared(), num_workers=2)
"""


def _repositories(root: Path) -> Path:
    """Three repositories: pinned to torch 1.8 with two bugs, a shared RNG object, clean."""
    layout = {
        "old": ("torch==1.8.1", {"train.py": RNG_OBJECT, "other.py": NUMPY_GLOBAL}),
        "shared": ("torch>=2.0", {"train.py": RNG_OBJECT}),
        "clean": ("torch>=2.0", {"train.py": "import torch\n"}),
    }
    for name, (requirement, sources) in layout.items():
        repository = root / name
        repository.mkdir(parents=True)
        (repository / "pyproject.toml").write_text(
            f'[project]\nname = "{name}"\ndependencies = ["{requirement}"]\n'
        )
        for filename, text in sources.items():
            (repository / filename).write_text(text)
    return root


class _Page(HTMLParser):
    """The parts of the report the tests read: chart bars, summary cells, finding rows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bars: dict[str, list[tuple[str, int]]] = {}
        self.summary: dict[str, str] = {}
        self.findings: list[dict[str, str]] = []
        self.anchors: set[str] = set()
        self.links: list[str] = []
        self.external: list[str] = []
        self._figure: str | None = None
        self._summary: str | None = None
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        self._stack.append(tag)
        if "id" in attributes:
            self.anchors.add(attributes["id"])
        if tag == "figure":
            self._figure = attributes["id"]
            self.bars[self._figure] = []
        if tag == "g" and "data-value" in attributes and self._figure is not None:
            self.bars[self._figure].append(
                (attributes["data-label"], int(attributes["data-value"]))
            )
        if tag == "div" and "data-summary" in attributes:
            self._summary = attributes["data-summary"]
        if tag == "tr" and "data-code" in attributes:
            self.findings.append({"code": attributes["data-code"]})
        if tag == "a":
            self.links.append(attributes["href"])
        for name in ("src", "href"):
            value = attributes.get(name, "")
            if tag in ("link", "script", "img") and value:
                self.external.append(value)

    def handle_endtag(self, tag: str) -> None:
        if self._stack:
            self._stack.pop()
        if tag == "figure":
            self._figure = None

    def handle_data(self, data: str) -> None:
        if self._summary is not None and self._stack and self._stack[-1] == "b":
            self.summary[self._summary] = data
            self._summary = None


def _parse(path: Path) -> _Page:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    page = _Page()
    page.feed(text)
    page.close()
    # Every chart is well-formed SVG, and shows each bar's number as text.
    svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.DOTALL)
    assert len(svgs) == sum(1 for bars in page.bars.values() if bars)
    for svg in svgs:
        tree = ET.fromstring(svg)
        assert tree.tag == f"{SVG}svg"
        for group in tree.iter(f"{SVG}g"):
            shown = [t.text for t in group.iter(f"{SVG}text") if t.get("class") == "value"]
            assert shown == [group.get("data-value")]
    # Self-contained: no stylesheet, script or image is loaded from anywhere.
    assert page.external == []
    assert "<style>" in text
    return page


def _invoke(*arguments: str) -> None:
    result = CliRunner().invoke(main, list(arguments), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output


def test_scan_html_shows_the_json_numbers(tmp_path: Path) -> None:
    repositories = _repositories(tmp_path / "repos")
    html_path, json_path = tmp_path / "scan.html", tmp_path / "scan.json"
    _invoke("scan", str(repositories), "--html", str(html_path), "--report", str(json_path))
    document: dict[str, Any] = json.loads(json_path.read_text())
    page = _parse(html_path)

    affected = [value for _, value in page.bars["affected"]]
    assert affected == [row["affected"] for row in document["assumptions"]]
    assert affected[0] >= 1  # the numbers compared are not all zero

    declared = [
        assumption
        for repository in document["repositories"]
        for assumption in repository["assumptions"]
        if assumption["assumption"] == "declared"
    ]
    per_rule: Counter[str] = Counter()
    for assumption in declared:
        per_rule.update(assumption["findings"])
    assert {label.split()[0]: value for label, value in page.bars["rules"]} == dict(per_rule)

    per_repository = {
        Path(repository["root"]).name: sum(assumption["findings"].values())
        for repository in document["repositories"]
        for assumption in repository["assumptions"]
        if assumption["assumption"] == "declared" and assumption["findings"]
    }
    worst = {Path(label).name: value for label, value in page.bars["worst"]}
    assert worst == per_repository
    assert [value for _, value in page.bars["worst"]] == sorted(worst.values(), reverse=True)

    assert len(page.findings) == sum(per_rule.values())
    assert Counter(row["code"] for row in page.findings) == per_rule
    assert page.summary["repositories"] == str(len(document["repositories"]))
    # Each finding links to its file and line, and to its rule's documentation in the page.
    assert any(re.search(r"train\.py#L\d+$", link) for link in page.links)
    for code in per_rule:
        assert f"#rule-{code}" in page.links
        assert f"rule-{code}" in page.anchors


def test_check_html_shows_the_json_numbers(tmp_path: Path) -> None:
    repositories = _repositories(tmp_path / "repos")
    html_path, json_path = tmp_path / "check.html", tmp_path / "check.json"
    _invoke(
        "check",
        "--no-cache",
        "--quiet",
        *(str(path) for path in sorted(repositories.iterdir())),
        "--html",
        str(html_path),
        "--report",
        str(json_path),
    )
    document: dict[str, Any] = json.loads(json_path.read_text())
    page = _parse(html_path)

    rules = {label.split()[0]: value for label, value in page.bars["rules"]}
    assert rules == {rule["code"]: rule["findings"] for rule in document["rules"]}
    assert sum(rules.values()) == document["totals"]["findings"] > 0

    worst = {Path(label).name: value for label, value in page.bars["worst"]}
    assert worst == {
        Path(project["root"]).name: project["findings"]
        for project in document["projects"]
        if project["findings"]
    }
    by_target: Counter[str] = Counter()
    for project in document["projects"]:
        by_target[project["torch_version"]["description"]] += bool(project["findings"])
    assert dict(page.bars["affected"]) == dict(by_target)

    assert len(page.findings) == document["totals"]["findings"]
    assert page.summary["findings"] == str(document["totals"]["findings"])
    assert page.summary["files"] == str(document["totals"]["files"])


def test_labels_are_escaped_and_a_chart_can_be_empty() -> None:
    chart = bar_chart("<script>", [Bar("a<b>&c", 3, "#x")], chart_id="c")
    assert "<script>" not in chart
    tree = ET.fromstring(re.findall(r"<svg\b.*?</svg>", chart, flags=re.DOTALL)[0])
    assert tree.find(f"{SVG}g") is not None
    assert "Nothing to show" in bar_chart("Empty", [], chart_id="e")
