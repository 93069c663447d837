"""Measure workerseed against hand-labelled real repositories: recall per rule, false alarms.

    python benchmarks/truth.py DIR                # both target modes, summary tables
    python benchmarks/truth.py DIR -v             # also every miss and false alarm
    python benchmarks/truth.py DIR --json         # machine-readable
    python benchmarks/truth.py DIR --repo a/b     # only some labelled repositories
    python benchmarks/truth.py --list             # "owner/name commit" of every label

Each `benchmarks/labels/<owner>__<name>.toml` (schema: benchmarks/README.md) names a repository,
the commit that was labelled, every torch DataLoader call site and every bug the rules should
report. The checkout of `owner/name` is expected at `DIR/owner+name`, at the labelled commit:

    python benchmarks/truth.py --list | while read repo commit; do
        dest="DIR/$(echo "$repo" | tr / +)"
        git clone --quiet "https://github.com/$repo" "$dest" && git -C "$dest" checkout -q "$commit"
    done

The installed tool runs once per repository and mode (`workerseed check --no-cache --exit-zero
--format json .` inside the checkout): "declared" uses the torch version the repository declares,
"1.8" adds `--torch-version 1.8`. A finding matches a labelled bug of that mode when code and path
are equal and its line is within two lines of the label. A project DataLoader subclass is
labelled once, at the base `__init__` call in its `__init__`, instead of at each construction
(the labelling brief's convention): a finding at a construction of that class, or of a class
deriving from it, is that bug. Findings of severity "info" are neither matches nor alarms;
every other finding that matches no label is a false alarm, counted per 100 labelled
DataLoader sites. This is a benchmark, not a test: nothing asserts a score.
"""

from __future__ import annotations

import argparse
import ast
import functools
import itertools
import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

MODES: dict[str, tuple[str, ...]] = {"declared": (), "1.8": ("--torch-version", "1.8")}
#: How far (in lines) a finding may be from the labelled line and still match it.
LINE_TOLERANCE = 2
LABELS = Path(__file__).resolve().parent / "labels"


@dataclass(frozen=True)
class Bug:
    code: str
    path: str
    line: int
    modes: tuple[str, ...]
    why: str = ""
    #: In a notebook: the 1-based cell number; `line` then counts from the cell's first line.
    cell: int | None = None


@dataclass(frozen=True)
class Label:
    repo: str
    commit: str
    loader_sites: int
    bugs: tuple[Bug, ...]

    @property
    def folder(self) -> str:
        return self.repo.replace("/", "+")

    def checkout(self, root: Path) -> Path | None:
        """Return the clone of this repository under `root`: `owner+name/name` (named as a
        user's clone is, for code that imports itself by the repository's name), or
        `owner+name` itself; None if neither is there."""
        folder = root / self.folder
        for candidate in (folder / self.repo.rpartition("/")[2], folder):
            if (candidate / ".git").exists():
                return candidate
        return folder if folder.is_dir() else None


@dataclass(frozen=True)
class Found:
    code: str
    path: str
    line: int
    severity: str
    message: str
    cell: int | None = None
    #: The other places (path, line) the finding names as one cause with it (JSON `related`).
    related: tuple[tuple[str, int], ...] = ()


@dataclass
class Outcome:
    """What one mode's run over one repository gave, measured against its labels."""

    repo: str
    matched: list[Bug] = field(default_factory=list)
    missed: list[Bug] = field(default_factory=list)
    false_alarms: list[Found] = field(default_factory=list)
    #: The findings that matched a bug: which kinds of finding the recall rests on.
    matching: list[Found] = field(default_factory=list)


def load_label(path: Path) -> Label:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    bugs = tuple(
        Bug(
            code=bug["code"],
            path=bug["path"],
            line=int(bug["line"]),
            modes=tuple(bug["modes"]),
            why=bug.get("why", ""),
            cell=bug.get("cell"),
        )
        for bug in data.get("bug", [])
    )
    return Label(data["repo"], data["commit"], len(data.get("loader", [])), bugs)


def load_labels(folder: Path) -> list[Label]:
    return [load_label(path) for path in sorted(folder.glob("*.toml"))]


def parse_findings(text: str) -> list[Found]:
    """Return the findings of `workerseed check --format json` output."""
    return [
        Found(
            code=item["code"],
            path=item["path"],
            line=int(item["range"]["start"]["line"]),
            severity=item["severity"],
            message=item["message"],
            cell=item.get("cell"),
            related=tuple(
                (place.get("path", item["path"]), int(place["start"]["line"]))
                for place in item.get("related", ())
            ),
        )
        for item in json.loads(text)
    ]


#: Rules labelled at a place the finding's message names rather than at the finding itself:
#: WS104 is labelled at the torch seeding call, but, as a 1xx rule, reported at each
#: DataLoader that call affects (its message names the seeding call as `path:line`).
NAMED_IN_MESSAGE = frozenset({"WS104"})


#: Rules labelled at the DataLoader call: a finding at one of its arguments (the
#: `worker_init_fn=` line of a call written over many lines) is at that call too.
AT_THE_CALL = frozenset({"WS101", "WS103"})


def _inside_call(checkout: Path, bug: Bug, line: int) -> bool:
    """Return True if `line` lies within a call that starts on `bug`'s line."""
    if bug.cell is not None:
        return False
    return any(
        isinstance(node, ast.Call)
        and node.lineno == bug.line
        and node.lineno <= line <= (node.end_lineno or node.lineno)
        for node in ast.walk(_parsed(checkout / bug.path))
    )


def _names(found: Found, bug: Bug) -> bool:
    """Return True if `found`'s message or related places name `bug`'s place (within the
    line tolerance)."""
    lines = range(bug.line - LINE_TOLERANCE, bug.line + LINE_TOLERANCE + 1)
    return _relates(found, bug) or any(
        re.search(rf"\b{re.escape(bug.path)}:{line}\b", found.message) for line in lines
    )


def _relates(found: Found, bug: Bug) -> bool:
    """Return True if one of `found`'s related places is `bug`'s (within the line tolerance)."""
    return any(
        path == bug.path and abs(line - bug.line) <= LINE_TOLERANCE for path, line in found.related
    )


@functools.cache
def _parsed(path: Path) -> ast.Module:
    try:
        return ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ast.Module(body=[], type_ignores=[])


def _name_of(expression: ast.expr) -> str:
    """Return the last name of `Name` or `a.b.Name`, as a call or a base class spells it."""
    if isinstance(expression, ast.Name):
        return expression.id
    return expression.attr if isinstance(expression, ast.Attribute) else ""


@functools.cache
def labelled_subclass(checkout: Path, path: str, line: int) -> frozenset[str]:
    """Return the class whose `__init__` makes a base `__init__` call at `path:line` (a
    DataLoader subclass labelled once, there), with the checkout's classes deriving from it;
    empty if no such call is there."""
    names: set[str] = set()
    for node in ast.walk(_parsed(checkout / path)):
        if not isinstance(node, ast.ClassDef):
            continue
        for init in node.body:
            if isinstance(init, ast.FunctionDef) and init.name == "__init__":
                calls = [c for c in ast.walk(init) if isinstance(c, ast.Call) and c.lineno == line]
                if any(_name_of(call.func) == "__init__" for call in calls):
                    names.add(node.name)
    if not names:
        return frozenset()
    classes = [
        node
        for file in sorted(checkout.rglob("*.py"))
        for node in ast.walk(_parsed(file))
        if isinstance(node, ast.ClassDef)
    ]
    grown = True
    while grown:
        bases = {cls.name for cls in classes if any(_name_of(b) in names for b in cls.bases)}
        grown = not bases <= names
        names |= bases
    return frozenset(names)


def _constructs(checkout: Path, found: Found, classes: frozenset[str]) -> bool:
    """Return True if `found` is at a call constructing one of `classes`."""
    if found.cell is not None:
        return False
    return any(
        isinstance(node, ast.Call) and node.lineno == found.line and _name_of(node.func) in classes
        for node in ast.walk(_parsed(checkout / found.path))
    )


def _nearest_subclass_label(checkout: Path, found: Found, bug: Bug, bugs: Iterable[Bug]) -> bool:
    """Return True unless another label of a subclass `found` constructs lies nearer to it.

    Classes are told by name: a vendored copy of a project (`external/ltr/data/loader.py`
    beside `lib/train/data/loader.py`) has its own subclass of the same name. A construction
    belongs to the label whose path shares the most leading folders with its own.
    """

    def shared(path: str) -> int:
        pairs = zip(Path(path).parts, Path(found.path).parts, strict=False)
        return sum(1 for _ in itertools.takewhile(lambda pair: pair[0] == pair[1], pairs))

    rivals = [
        other
        for other in bugs
        if other.code == bug.code
        and other.cell is None
        and _constructs(checkout, found, labelled_subclass(checkout, other.path, other.line))
    ]
    return all(shared(other.path) <= shared(bug.path) for other in rivals)


def match(
    repo: str,
    bugs: Iterable[Bug],
    findings: Iterable[Found],
    mode: str,
    checkout: Path | None = None,
) -> Outcome:
    """Pair the mode's labelled bugs with findings; the rest are misses and false alarms.

    Each finding matches at most one bug by its own line, the nearest; a finding that names
    related places (one cause at several lines) also covers the bugs at those lines. A bug of a
    rule in `NAMED_IN_MESSAGE` is matched by every finding of that rule whose message names
    its place, and a finding that names several such places matches each of them.
    """
    outcome = Outcome(repo)
    bugs = list(bugs)
    counted = [found for found in findings if found.severity != "info"]
    unused = list(counted)
    for bug in sorted((bug for bug in bugs if mode in bug.modes), key=lambda b: (b.path, b.line)):
        if bug.code in NAMED_IN_MESSAGE:
            # One finding may name several seeding calls (one per run building its loader).
            naming = [found for found in counted if found.code == bug.code and _names(found, bug)]
            for found in naming:
                if found in unused:
                    unused.remove(found)
            (outcome.matched if naming else outcome.missed).append(bug)
            outcome.matching.extend(naming)
            continue
        near = [
            found
            for found in unused
            if found.code == bug.code
            and found.path == bug.path
            and found.cell == bug.cell
            and (
                abs(found.line - bug.line) <= LINE_TOLERANCE
                or (
                    bug.code in AT_THE_CALL
                    and checkout is not None
                    and _inside_call(checkout, bug, found.line)
                )
            )
        ]
        covering = [
            found
            for found in counted
            if found.code == bug.code and found.cell == bug.cell and _relates(found, bug)
        ]
        classes = (
            labelled_subclass(checkout, bug.path, bug.line)
            if checkout is not None and bug.cell is None
            else frozenset()
        )
        built = [
            found
            for found in unused
            if found.code == bug.code
            and classes
            and _constructs(checkout or Path(), found, classes)
            and _nearest_subclass_label(checkout or Path(), found, bug, bugs)
        ]
        if near or built:
            # One label at a subclass's base call stands for every construction of it too.
            nearest = [min(near, key=lambda found: abs(found.line - bug.line))] if near else []
            for found in (*nearest, *built):
                unused.remove(found)
            outcome.matched.append(bug)
            outcome.matching.extend((*nearest, *built))
        elif covering:
            for found in covering:
                if found in unused:
                    unused.remove(found)
            outcome.matched.append(bug)
            outcome.matching.extend(covering)
        else:
            outcome.missed.append(bug)
    outcome.false_alarms = unused
    return outcome


def run_tool(checkout: Path, mode: str) -> list[Found]:
    """Run the installed workerseed on one checkout in one mode and return its findings."""
    script = Path(sys.executable).with_name("workerseed")
    command = [str(script) if script.exists() else "workerseed"]
    command += ["check", "--no-cache", "--exit-zero", "--format", "json", *MODES[mode], "."]
    result = subprocess.run(command, cwd=checkout, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{checkout.name}: exit {result.returncode}: {result.stderr[-2000:]}")
    return parse_findings(result.stdout)


def known_codes() -> set[str]:
    from codemods import ALL_RULES

    return {rule.CODE for rule in ALL_RULES}


def summarize(outcomes: Sequence[Outcome], loader_sites: int) -> dict[str, Any]:
    """Return recall per rule code and false alarms per 100 loader sites of one mode."""
    rules: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        for bugs, key in ((outcome.matched, "matched"), (outcome.missed, "missed")):
            for bug in bugs:
                counts = rules.setdefault(bug.code, {"matched": 0, "missed": 0})
                counts[key] += 1
    false_alarms = sum(len(outcome.false_alarms) for outcome in outcomes)
    alarms_by_rule: dict[str, int] = {}
    for outcome in outcomes:
        for found in outcome.false_alarms:
            alarms_by_rule[found.code] = alarms_by_rule.get(found.code, 0) + 1
    matched = sum(len(outcome.matched) for outcome in outcomes)
    labelled = matched + sum(len(outcome.missed) for outcome in outcomes)
    return {
        "rules": {
            code: {**counts, "labelled": counts["matched"] + counts["missed"]}
            for code, counts in sorted(rules.items())
        },
        "matched": matched,
        "labelled": labelled,
        "false_alarms": false_alarms,
        "false_alarms_by_rule": dict(sorted(alarms_by_rule.items())),
        "loader_sites": loader_sites,
        "false_alarms_per_100_sites": 100 * false_alarms / loader_sites if loader_sites else 0.0,
    }


def _where(path: str, line: int, cell: int | None) -> str:
    return f"{path}:{line}" if cell is None else f"{path}[cell {cell}]:{line}"


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def render(mode: str, outcomes: Sequence[Outcome], summary: dict[str, Any], verbose: bool) -> str:
    codes = known_codes()
    lines = [f"== mode: {mode}", f"{'rule':<7}{'matched/labelled':>18}{'recall':>8}"]
    for code, counts in summary["rules"].items():
        note = "" if code in codes else "  (no such rule in the tool yet)"
        ratio = f"{counts['matched']}/{counts['labelled']}"
        recall = _percent(counts["matched"], counts["labelled"])
        lines.append(f"{code:<7}{ratio:>18}{recall:>8}{note}")
    total = f"{summary['matched']}/{summary['labelled']}"
    lines.append(f"{'total':<7}{total:>18}{_percent(summary['matched'], summary['labelled']):>8}")
    lines.append(
        f"false alarms: {summary['false_alarms']} over {summary['loader_sites']} DataLoader sites"
        f" = {summary['false_alarms_per_100_sites']:.1f} per 100 sites"
        + "".join(f", {code}: {n}" for code, n in summary["false_alarms_by_rule"].items())
    )
    if verbose:
        for outcome in outcomes:
            for bug in outcome.missed:
                where = _where(bug.path, bug.line, bug.cell)
                lines.append(f"  miss  {outcome.repo} {where} {bug.code}: {bug.why}")
            for found in outcome.false_alarms:
                where = _where(found.path, found.line, found.cell)
                lines.append(
                    f"  false {outcome.repo} {where} {found.code}"
                    f" [{found.severity}]: {found.message}"
                )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("dir", nargs="?", type=Path, help="folder holding owner+name checkouts")
    parser.add_argument("--labels", type=Path, default=LABELS, help="folder of label files")
    parser.add_argument("--repo", action="append", default=[], help="only this owner/name")
    parser.add_argument("--mode", choices=sorted(MODES), action="append", help="only this mode")
    parser.add_argument("--list", action="store_true", help="print 'owner/name commit' lines")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--json-out", type=Path, help="also write the JSON report to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="list misses, false alarms")
    parser.add_argument("--jobs", type=int, default=1, help="checkouts checked at once")
    args = parser.parse_args(argv)

    labels = [
        label for label in load_labels(args.labels) if not args.repo or label.repo in args.repo
    ]
    if args.list:
        print("\n".join(f"{label.repo} {label.commit}" for label in labels))
        return 0
    if args.dir is None:
        parser.error("DIR is required unless --list is given")

    present = []
    checkouts = []
    for label in labels:
        checkout = label.checkout(args.dir)
        if checkout is not None:
            present.append(label)
            checkouts.append(checkout)
        else:
            print(f"note: skipping {label.repo}: no checkout at {label.folder}", file=sys.stderr)
    loader_sites = sum(label.loader_sites for label in present)

    report: dict[str, Any] = {"repositories": [label.repo for label in present], "modes": {}}
    for mode in args.mode or list(MODES):
        # Each check is its own process: threads only wait for them.
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            found = pool.map(run_tool, checkouts, itertools.repeat(mode))
            outcomes = [
                match(label.repo, label.bugs, findings, mode, checkout)
                for label, checkout, findings in zip(present, checkouts, found, strict=True)
            ]
        summary = summarize(outcomes, loader_sites)
        if args.json or args.json_out:
            summary["misses"] = [
                {"repo": outcome.repo, **asdict(bug)}
                for outcome in outcomes
                for bug in outcome.missed
            ]
            summary["matching_findings"] = [
                {"repo": outcome.repo, **asdict(found)}
                for outcome in outcomes
                for found in outcome.matching
            ]
            summary["false_alarm_findings"] = [
                {"repo": outcome.repo, **asdict(found)}
                for outcome in outcomes
                for found in outcome.false_alarms
            ]
            report["modes"][mode] = summary
        if not args.json:
            print(render(mode, outcomes, summary, args.verbose))
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{len(present)} repositories, {loader_sites} DataLoader sites")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
