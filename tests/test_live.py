"""`LiveProject` (the state `workerseed server` keeps): after any sequence of edits, its
findings are those `check` reports on the same text saved to disk."""

from __future__ import annotations

from pathlib import Path

from codemods import Changed, Finding, Settings, Unchanged, run_paths
from codemods.analysis.facts import ModuleFacts
from codemods.analysis.sources import SourceSet
from codemods.live import LiveProject, live_root
from codemods.summaries import summarise_bytes

PROJECT = '[project]\nname = "demo"\ndependencies = ["torch>=2.0"]\n'

DATASET = """\
import numpy as np
from torch.utils.data import Dataset


class Noisy(Dataset):
    def __init__(self, size):
        self.size = size
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.rng.normal() + np.random.rand()
"""

TRAIN = """\
from torch.utils.data import DataLoader

from data import Noisy

loader = DataLoader(Noisy(4), num_workers={workers})
"""


def _tree(root: Path) -> None:
    (root / "pyproject.toml").write_text(PROJECT)
    (root / "data.py").write_text(DATASET)
    (root / "train.py").write_text(TRAIN.format(workers=0))
    (root / "model.py").write_text("import torch\n\nLAYER = torch.nn.Linear(2, 2)\n")


def _checked(root: Path) -> dict[Path, tuple[Finding, ...]]:
    """Return what `check` reports on the files as they are on disk."""
    results = run_paths([root], Settings(cache=False))
    return {
        result.path: result.findings
        for result in results
        if isinstance(result, Unchanged) and result.findings
    }


def test_edits_give_the_findings_check_gives_on_the_saved_text(tmp_path: Path) -> None:
    _tree(tmp_path)
    root = tmp_path.resolve()
    live = LiveProject(root, Settings(cache=False))
    assert live.check() == _checked(root) == {}
    edits = [
        ("train.py", TRAIN.format(workers=2)),
        ("data.py", DATASET.replace("np.random.rand()", "0")),
        ("train.py", TRAIN.format(workers=0)),
        (
            "model.py",
            "from data import Noisy\nfrom torch.utils.data import DataLoader\n"
            "EXTRA = DataLoader(Noisy(1), num_workers=3)\n",
        ),
        ("data.py", DATASET),
    ]
    for name, text in edits:
        path = root / name
        assert live.update(path, text)
        path.write_text(text)
        assert live.check() == _checked(root), name
    assert live.check()  # the last state has findings: the comparison was not trivial


def test_text_that_does_not_parse_keeps_the_last_version(tmp_path: Path) -> None:
    _tree(tmp_path)
    root = tmp_path.resolve()
    live = LiveProject(root, Settings(cache=False))
    assert live.update(root / "train.py", TRAIN.format(workers=2))
    before = live.check()
    assert before
    assert not live.update(root / "train.py", "loader = DataLoader(\n")
    assert live.check() == before
    # Back to the file on disk (the editor closed it without saving).
    assert live.update(root / "train.py", None)
    assert live.check() == {}


def test_a_new_file_joins_the_project(tmp_path: Path) -> None:
    _tree(tmp_path)
    root = tmp_path.resolve()
    live = LiveProject(root, Settings(cache=False))
    new = root / "second.py"
    assert not live.contains(new)
    assert live.update(new, TRAIN.format(workers=2))
    assert live.contains(new)
    assert {path.name for path in live.check()} == {"data.py"}


def test_fixes_apply_to_unsaved_text(tmp_path: Path) -> None:
    _tree(tmp_path)
    root = tmp_path.resolve()
    live = LiveProject(root, Settings(cache=False))
    live.update(root / "train.py", TRAIN.format(workers=2))
    findings = live.check()[root / "data.py"]
    fixable = [finding for finding in findings if finding.fix is not None]
    assert fixable
    previews = live.preview(fixable[0])
    assert previews is not None
    assert previews[0].old == DATASET
    whole = live.fix_all(root / "data.py")
    assert whole is not None
    # Offering the change left the project as it was.
    assert live.check()[root / "data.py"] == findings
    live.update(root / "data.py", whole.new)
    assert root / "data.py" not in live.check()


def test_a_loose_script_is_its_own_project(tmp_path: Path) -> None:
    script = tmp_path / "loose" / "script.py"
    script.parent.mkdir()
    script.write_text("x = 1\n")
    root, is_project = live_root(script)
    assert root == script.parent.resolve()
    assert not is_project


def test_a_replaced_file_answers_text_questions_like_a_fresh_index(tmp_path: Path) -> None:
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    raw = {first: b"import numpy\n", second: b"x = Dataset\n"}
    sources = SourceSet(tmp_path, dict(raw), lambda path: None)
    assert set(sources._mentioning(frozenset({"Dataset"}))) == {second}
    new = b"class D(Dataset):\n    pass\n"
    summary = summarise_bytes(first, new, 0o644, tmp_path)
    assert isinstance(summary, ModuleFacts)
    sources.replace(summary, new)
    assert set(sources._mentioning(frozenset({"Dataset"}))) == {first, second}
    assert set(sources._mentioning(frozenset({"numpy"}))) == set()
    fresh = SourceSet(tmp_path, {first: new, second: raw[second]}, lambda path: None)
    for names in ({"Dataset"}, {"numpy"}, {"D", "x"}, {"pass"}):
        key = frozenset(names)
        assert set(sources._mentioning(key)) == set(fresh._mentioning(key)), names


def test_replaced_summaries_can_be_freed(tmp_path: Path) -> None:
    """Summaries are frozen out of the cyclic collector when made: those edits replace
    must still be freed, or a long editing session grows without bound."""
    import gc

    _tree(tmp_path)
    root = tmp_path.resolve()
    live = LiveProject(root, Settings(cache=False))
    live.check()
    LiveProject.release_replaced()
    before = gc.get_freeze_count()
    for number in range(20):
        live.update(root / "data.py", DATASET + f"\nEDIT = {number}\n")
        live.check()
    assert gc.get_freeze_count() > before
    LiveProject.release_replaced()
    assert gc.get_freeze_count() <= before + 200


def test_fix_all_offers_exactly_what_fix_writes(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("torch==1.8.1\n", encoding="utf-8")
    (tmp_path / "augment.py").write_text(
        "import numpy as np\nfrom torch.utils.data import Dataset\n\n\n"
        "class Noisy(Dataset):\n    def __getitem__(self, index):\n"
        "        return np.random.rand()\n",
        encoding="utf-8",
    )
    path = tmp_path / "train.py"
    path.write_text(
        "from torch.utils.data import DataLoader\n\nfrom augment import Noisy\n\n"
        "loader = DataLoader(Noisy(), num_workers=2)\n",
        encoding="utf-8",
    )
    settings = Settings(cache=False)
    preview = LiveProject(tmp_path, settings).fix_all(path)
    (written,) = [r for r in run_paths([path], settings, fix=True) if isinstance(r, Changed)]
    assert preview is not None
    assert preview.new == written.new
