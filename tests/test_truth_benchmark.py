"""The real-code benchmark's matching of findings to labelled bugs (benchmarks/truth.py)."""

from __future__ import annotations

import json
import textwrap
import tomllib
from pathlib import Path

from benchmarks.truth import Bug, Found, load_label, match, parse_findings, summarize

LABEL = """\
repo = "someone/project"
commit = "0123456789abcdef0123456789abcdef01234567"

[[loader]]
path = "train.py"
line = 30

[[loader]]
path = "eval.py"
line = 12

[[bug]]
code = "WS201"
path = "data/sets.py"
line = 14
modes = ["declared", "1.8"]
why = "RNG object made in __init__, drawn from in __getitem__"

[[bug]]
code = "WS101"
path = "train.py"
line = 30
modes = ["1.8"]
why = "np.random in __getitem__, no worker_init_fn"

[[bug]]
code = "WS203"
path = "data/sets.py"
line = 20
modes = ["declared", "1.8"]
"""


def _finding(code: str, path: str, line: int, severity: str = "error") -> dict[str, object]:
    return {
        "code": code,
        "path": path,
        "severity": severity,
        "message": f"{code} here",
        "range": {"start": {"line": line, "column": 1}, "end": {"line": line, "column": 9}},
    }


def test_matching_counts_hits_misses_and_false_alarms(tmp_path: Path) -> None:
    path = tmp_path / "someone__project.toml"
    path.write_text(textwrap.dedent(LABEL), encoding="utf-8")
    label = load_label(path)
    findings = parse_findings(
        json.dumps(
            [
                _finding("WS201", "data/sets.py", 16),  # two lines off: still a match
                _finding("WS201", "data/sets.py", 17),  # the bug is already matched: alarm
                _finding("WS101", "eval.py", 12),  # no label there: alarm
                _finding("WS102", "train.py", 40, severity="info"),  # info: never an alarm
                _finding("WS101", "train.py", 33),  # three lines off: no match, alarm
            ]
        )
    )

    declared = match(label.repo, label.bugs, findings, "declared")
    assert [bug.code for bug in declared.matched] == ["WS201"]
    assert [bug.code for bug in declared.missed] == ["WS203"]
    # The WS101 label holds only in mode "1.8", so in "declared" its finding is an alarm too.
    assert declared.false_alarms == [
        Found("WS201", "data/sets.py", 17, "error", "WS201 here"),
        Found("WS101", "eval.py", 12, "error", "WS101 here"),
        Found("WS101", "train.py", 33, "error", "WS101 here"),
    ]

    old = match(label.repo, label.bugs, findings, "1.8")
    assert sorted(bug.code for bug in old.missed) == ["WS101", "WS203"]

    summary = summarize([declared], label.loader_sites)
    assert summary["rules"]["WS201"] == {"matched": 1, "missed": 0, "labelled": 1}
    assert summary["rules"]["WS203"] == {"matched": 0, "missed": 1, "labelled": 1}
    assert summary["false_alarms_per_100_sites"] == 150.0


def test_a_ws104_bug_is_matched_by_every_loader_finding_naming_its_seeding_call() -> None:
    label_text = textwrap.dedent(
        """\
        repo = "someone/ddp"
        commit = "0123456789abcdef0123456789abcdef01234567"

        [[bug]]
        code = "WS104"
        path = "utils/misc.py"
        line = 8
        modes = ["declared"]
        """
    )
    found = [
        Found(
            "WS104", "train.py", 40, "error", "seeds torch alike (`manual_seed`, utils/misc.py:8)"
        ),
        Found(
            "WS104", "train.py", 52, "error", "seeds torch alike (`manual_seed`, utils/misc.py:8)"
        ),
        Found("WS104", "eval.py", 9, "error", "seeds torch alike (`manual_seed`, eval.py:3)"),
    ]
    bugs = tomllib.loads(label_text)["bug"]
    outcome = match(
        "someone/ddp",
        [Bug(b["code"], b["path"], b["line"], tuple(b["modes"])) for b in bugs],
        found,
        "declared",
    )
    assert len(outcome.matched) == 1
    assert outcome.missed == []
    assert [(f.path, f.line) for f in outcome.false_alarms] == [("eval.py", 9)]


def test_a_ws104_finding_naming_several_seeding_calls_matches_each() -> None:
    bugs = [Bug("WS104", path, 5, ("declared",)) for path in ("pretrain.py", "finetune.py")]
    message = "seeds torch alike (`manual_seed`, finetune.py:5; `manual_seed`, pretrain.py:5)"
    found = [Found("WS104", "data.py", 30, "warning", message)]
    outcome = match("someone/shared-loader", bugs, found, "declared")
    assert len(outcome.matched) == 2
    assert outcome.missed == []
    assert outcome.false_alarms == []


def test_a_ws104_finding_matches_the_seeding_calls_it_relates_beyond_its_message() -> None:
    """The message names the first few seeding calls; the related places name them all."""
    bugs = [Bug("WS104", f"train_{k}.py", 5, ("declared",)) for k in range(6)]
    message = "seeds torch alike (`manual_seed`, train_0.py:5; and 5 more)"
    related = tuple((f"train_{k}.py", 5) for k in range(6))
    found = [Found("WS104", "data.py", 30, "warning", message, None, related)]
    outcome = match("someone/many-scripts", bugs, found, "declared")
    assert len(outcome.matched) == 6
    assert outcome.missed == []


def test_one_finding_with_related_lines_covers_the_bugs_labelled_at_them() -> None:
    bugs = [Bug("WS102", "seed.py", line, ("declared",)) for line in (7, 8, 9)]
    found = [
        Found(
            "WS102",
            "seed.py",
            7,
            "error",
            "reseeds NumPy, `random` and torch",
            None,
            (("seed.py", 8), ("seed.py", 9)),
        )
    ]
    outcome = match("someone/seed", bugs, found, "declared")
    assert len(outcome.matched) == 3
    assert outcome.false_alarms == []


SUBCLASS = """\
from torch.utils.data import DataLoader


class NamedLoader(DataLoader):
    def __init__(self, name, dataset, num_workers=0, worker_init_fn=None):
        super().__init__(dataset, num_workers=num_workers, worker_init_fn=worker_init_fn)
        self.name = name


class EpochLoader(NamedLoader):
    pass
"""

SETTINGS = """\
from loader import EpochLoader, NamedLoader

train = NamedLoader("train", [], num_workers=8)
val = EpochLoader("val", [], num_workers=8)
other = make_loader([], num_workers=8)
"""


def test_a_subclass_labelled_at_its_base_call_is_matched_by_its_constructions(
    tmp_path: Path,
) -> None:
    (tmp_path / "loader.py").write_text(SUBCLASS, encoding="utf-8")
    (tmp_path / "settings.py").write_text(SETTINGS, encoding="utf-8")
    bug = Bug("WS101", "loader.py", 6, ("1.8",))
    findings = [Found("WS101", "settings.py", line, "error", "m") for line in (3, 4, 5)]
    outcome = match("someone/project", [bug], findings, "1.8", tmp_path)
    assert outcome.matched == [bug]
    # The constructions of the class and of its subclass are the bug; another call is not.
    assert [found.line for found in outcome.matching] == [3, 4]
    assert [found.line for found in outcome.false_alarms] == [5]
    # Without the checkout the constructions cannot be told: they are false alarms.
    assert len(match("someone/project", [bug], findings, "1.8").false_alarms) == 3


def test_a_construction_belongs_to_the_nearest_label_of_a_subclass_so_named(
    tmp_path: Path,
) -> None:
    # A vendored copy of the project holds its own subclass of the same name.
    for folder in ("lib", "external/copy"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "loader.py").write_text(SUBCLASS, encoding="utf-8")
        (tmp_path / folder / "settings.py").write_text(SETTINGS, encoding="utf-8")
    bugs = [Bug("WS101", f"{folder}/loader.py", 6, ("1.8",)) for folder in ("external/copy", "lib")]
    findings = [
        Found("WS101", f"{folder}/settings.py", 3, "error", "m")
        for folder in ("external/copy", "lib")
    ]
    outcome = match("someone/project", bugs, findings, "1.8", tmp_path)
    assert outcome.matched == bugs
    assert outcome.false_alarms == []


def test_a_finding_at_an_argument_of_the_labelled_call_matches_it(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "loader = DataLoader(\n"
        "    dataset,\n"
        "    batch_size=4,\n"
        "    shuffle=True,\n"
        "    num_workers=4,\n"
        "    pin_memory=True,\n"
        "    worker_init_fn=lambda worker_id: seed(worker_id),\n"
        ")\n"
        "other = DataLoader(dataset)\n",
        encoding="utf-8",
    )
    bug = Bug("WS103", "train.py", 1, ("declared",))
    at_argument = Found("WS103", "train.py", 7, "error", "a lambda")
    below_the_call = Found("WS103", "train.py", 9, "error", "another call")
    outcome = match("someone/project", [bug], [at_argument, below_the_call], "declared", tmp_path)
    assert outcome.matched == [bug]
    assert outcome.matching == [at_argument]
    assert outcome.false_alarms == [below_the_call]
