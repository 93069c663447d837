"""Snippet-level tests of the analysis: what `extract`, `loaders` and `datasets` answer about
a few lines of code (in the manner of LibCST's scope-provider tests).

Each case is one module, `data.py` of a one-file project, and the answer the analysis must
give about it. The end-to-end fixtures test the rules; these name the fact that goes wrong.
"""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest

from codemods.analysis.datasets import dataset_classes, datasets_of_loader
from codemods.analysis.facts import Kind, ModuleFacts
from codemods.analysis.lightning_loaders import reaches_trainer
from codemods.analysis.loaders import Presence, loader_calls
from codemods.analysis.per_item import per_item_code
from codemods.analysis.project import Project
from codemods.summaries import Parsed, summarise_source
from codemods.types import SourceFile, TorchTarget

HEADER = """\
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data import DataLoader as Loader
"""


def _module(body: str) -> ModuleFacts:
    text = HEADER + textwrap.dedent(body)
    path = Path("/project/data.py")
    source = SourceFile(path, text.encode(), text, "utf-8", False, 0o644)
    parsed = summarise_source(source, path.parent)
    assert isinstance(parsed, Parsed)
    return parsed.facts


def _project(body: str) -> Project:
    module = _module(body)
    return Project(module.path.parent, [module], TorchTarget(None))


# --- extract: the summary of one module ---


def test_a_method_knows_its_class_and_parameters() -> None:
    module = _module(
        """
        class D(Dataset):
            def __getitem__(self, index, *, scale=1.0):
                return index
        """
    )
    method = module.function("D.__getitem__")
    assert method is not None
    assert method.class_qualname == "D"
    assert method.params == ("self", "index", "scale")
    assert method.positional_count == 2


def test_a_def_inside_a_function_is_nested_and_a_lambda_is_marked() -> None:
    module = _module(
        """
        def build():
            def inner(worker_id):
                return worker_id
            return lambda worker_id: inner(worker_id)
        """
    )
    inner = module.function("build.<locals>.inner")
    assert inner is not None
    assert inner.nested
    assert any(function.is_lambda for function in module.functions_within("build"))


def test_a_class_defined_in_a_function_is_found_and_kept_when_pickled() -> None:
    module = _module(
        """
        def make(base):
            class Made(base):
                def __getitem__(self, index):
                    return index
            return Made
        """
    )
    made = module.class_("make.<locals>.Made")
    assert made is not None
    assert made.method("__getitem__") == "make.<locals>.Made.__getitem__"
    again = pickle.loads(pickle.dumps(module))
    assert again.class_("make.<locals>.Made") == made


def test_a_module_name_rebound_under_global_points_at_the_storing_function() -> None:
    module = _module(
        """
        settings = None

        class Runner:
            def start(self, chosen):
                global settings
                settings = chosen

        def peek():
            global settings
            return settings
        """
    )
    (placeholder, stored) = module.binding("settings")
    assert placeholder.is_none
    # Only the method that assigns the name counts; `peek` merely reads it.
    assert (stored.kind, stored.qualnames) == (Kind.UNKNOWN, ("Runner.start",))


def test_a_body_that_only_raises_is_marked() -> None:
    module = _module(
        """
        class Options:
            def build(self):
                \"\"\"Each experiment builds its own.\"\"\"
                raise NotImplementedError

            def check(self):
                if self:
                    raise ValueError
        """
    )
    build, check = module.function("Options.build"), module.function("Options.check")
    assert build is not None
    assert check is not None
    assert build.only_raises
    assert not check.only_raises


@pytest.mark.parametrize(
    ("body", "literals", "negated"),
    [
        ('if self.split == "train":\n    x = 1', ("'train'",), False),
        ('if self.split != "val":\n    x = 1', ("'val'",), True),
        ('if self.split in ("val", 3):\n    x = 1', ("'val'", "3"), False),
        ('if not self.split not in ("val",):\n    x = 1', ("'val'",), False),
        ("if self.flag and f():\n    x = 1", (), False),
    ],
)
def test_branches_on_attributes_record_the_literals_compared(
    body: str, literals: tuple[str, ...], negated: bool
) -> None:
    text = "class D:\n    def f(self):\n" + textwrap.indent(body, " " * 8) + "\n"
    function = _module(text).function("D.f")
    assert function is not None
    (branch,) = function.branches
    assert branch.subject in ("self.split", "self.flag")
    assert (branch.literals, branch.negated) == (literals, negated)


@pytest.mark.parametrize(
    ("test", "order", "draws"),
    [
        ("self.p > 0", (">", "0"), False),
        ("0.0 < self.p", (">", "0.0"), False),
        ("self.p <= 1", ("<=", "1"), False),
        ("np.random.rand() < self.p", (">", "<draw in [0, 1)>"), True),
        ("self.p >= np.random.uniform(0, 1)", (">=", "<draw in [0, 1)>"), True),
        ("torch.rand(1) > self.p", ("<", "<draw in [0, 1)>"), True),
        # Not a draw from [0, 1), or not a number: nothing is recorded.
        ("np.random.rand(3) < self.p", None, False),
        ("np.random.uniform(-1, 1) < self.p", None, False),
        ("np.random.normal() < self.p", None, False),
        ("self.p > self.q", None, False),
        ('self.p > "a"', None, False),
    ],
)
def test_ordering_tests_record_what_the_subject_is_compared_with(
    test: str, order: tuple[str, str] | None, draws: bool
) -> None:
    text = f"class D:\n    def f(self):\n        if {test}:\n            x = 1\n"
    function = _module(text).function("D.f")
    assert function is not None
    found = [branch for branch in function.branches if branch.subject == "self.p"]
    if order is None:
        assert not found
        return
    (branch,) = found
    assert branch.order == order
    assert not branch.truth_test
    assert (branch.draw is not None) == draws


@pytest.mark.parametrize(
    ("body", "targets"),
    [
        pytest.param(
            """
            class D(Dataset):
                def __init__(self, seed):
                    self.rng = np.random.default_rng(seed)
            """,
            {"self.rng"},
            id="an attribute of self is recorded as self.<name>",
        ),
        pytest.param(
            """
            class D(Dataset):
                def __init__(me, seed):
                    me.rng = np.random.default_rng(seed)
            """,
            {"self.rng"},
            id="self is the first parameter whatever its name",
        ),
        pytest.param(
            """
            class D(Dataset):
                def __init__(self, seed):
                    rng = np.random.default_rng(seed)
                    self.other.rng = rng
            """,
            {"rng"},
            id="a plain name is recorded and an attribute of an attribute is not",
        ),
    ],
)
def test_assignments_in_init(body: str, targets: set[str]) -> None:
    init = _module(body).function("D.__init__")
    assert init is not None
    assert {assignment.target for assignment in init.assignments} == targets


def test_a_noqa_comment_names_its_line_and_codes() -> None:
    module = _module("loader = DataLoader([], num_workers=2)  # noqa: WS101\n")
    assert (5, frozenset({"WS101"})) in {(line, frozenset(codes)) for line, codes in module.noqa}


# --- loaders: DataLoader calls and their arguments ---


@pytest.mark.parametrize(
    ("body", "starts_workers"),
    [
        pytest.param("DataLoader([], num_workers=4)\n", True, id="a literal 4 starts workers"),
        pytest.param("DataLoader([], num_workers=0)\n", False, id="a literal 0 starts none"),
        pytest.param("DataLoader([])\n", False, id="no num_workers means the default 0"),
        pytest.param(
            "def make(n):\n    return DataLoader([], num_workers=n)\n",
            True,
            id="a parameter may start workers",
        ),
        pytest.param("Loader([], num_workers=2)\n", True, id="an alias of DataLoader is found"),
    ],
)
def test_which_loaders_may_start_workers(body: str, starts_workers: bool) -> None:
    (loader,) = loader_calls(_project(body))
    assert loader.may_start_workers() is starts_workers


@pytest.mark.parametrize(
    ("body", "presence"),
    [
        pytest.param(
            "DataLoader([], worker_init_fn=print)\n", Presence.PASSED, id="passed by keyword"
        ),
        pytest.param("DataLoader([])\n", Presence.ABSENT, id="not passed"),
        pytest.param(
            "options = {'worker_init_fn': print}\nDataLoader([], **options)\n",
            Presence.IN_DICT,
            id="passed in a dict literal the call unpacks",
        ),
        pytest.param(
            "def make(**options):\n    return DataLoader([], **options)\n",
            Presence.MAYBE,
            id="maybe passed in unknown keyword arguments",
        ),
    ],
)
def test_how_worker_init_fn_reaches_the_call(body: str, presence: Presence) -> None:
    (loader,) = loader_calls(_project(body))
    assert loader.argument("worker_init_fn").presence is presence


@pytest.mark.parametrize(
    ("body", "fixed_order"),
    [
        pytest.param("DataLoader([], shuffle=False)\n", True, id="shuffle=False is fixed order"),
        pytest.param("DataLoader([], shuffle=True)\n", False, id="shuffle=True is not"),
        pytest.param(
            "DataLoader([], shuffle=False, sampler=s)\n", False, id="a sampler may reorder"
        ),
        pytest.param(
            "DataLoader([], shuffle=False, sampler=None)\n", True, id="sampler=None does not"
        ),
    ],
)
def test_which_loaders_serve_items_in_a_fixed_order(body: str, fixed_order: bool) -> None:
    (loader,) = loader_calls(_project(body))
    assert loader.in_fixed_order() is fixed_order


# --- datasets: which classes are datasets, and what runs per item ---


@pytest.mark.parametrize(
    ("body", "names"),
    [
        pytest.param("class D(Dataset):\n    pass\n", {"D"}, id="a torch Dataset subclass"),
        pytest.param(
            "class Base(Dataset):\n    pass\nclass D(Base):\n    pass\n",
            {"Base", "D"},
            id="a subclass of a project Dataset",
        ),
        pytest.param(
            "class Items:\n    def __getitem__(self, i):\n        return i\n"
            "DataLoader(Items(), num_workers=2)\n",
            {"Items"},
            id="a plain class given to a DataLoader",
        ),
        pytest.param("class Items:\n    pass\n", set(), id="a plain class nobody loads"),
    ],
)
def test_which_classes_are_datasets(body: str, names: set[str]) -> None:
    assert {ref.name for ref in dataset_classes(_project(body))} == names


def test_a_loader_built_from_a_factory_loads_the_class_it_returns() -> None:
    project = _project(
        """
        class D(Dataset):
            pass

        def make_dataset():
            return D()

        loader = DataLoader(make_dataset(), num_workers=2)
        """
    )
    (loader,) = loader_calls(project)
    assert [ref.name for ref in datasets_of_loader(project, loader).classes] == ["D"]


def test_per_item_code_follows_calls_into_project_functions_and_held_transforms() -> None:
    project = _project(
        """
        def jitter(x):
            return x + np.random.rand()

        class Flip:
            def __call__(self, x):
                return x[::-1]

        class D(Dataset):
            def __init__(self):
                self.transform = Flip()

            def __getitem__(self, index):
                return self.transform(jitter(index))

            def unused(self):
                return 0
        """
    )
    (dataset,) = [ref for ref in dataset_classes(project) if ref.name == "D"]
    reached = {item.function.function.qualname for item in per_item_code(project, dataset)}
    assert {"D.__getitem__", "jitter", "Flip.__call__"} <= reached
    assert "D.unused" not in reached


def test_a_deep_copy_holds_what_it_copies() -> None:
    project = _project(
        """
        import copy

        class D(Dataset):
            def __getitem__(self, index):
                return index

        template = D()
        loader = DataLoader(copy.deepcopy(template), num_workers=2)
        """
    )
    (loader,) = loader_calls(project)
    assert [ref.name for ref in datasets_of_loader(project, loader).classes] == ["D"]


def test_a_class_looked_up_by_name_in_a_module_handed_to_a_helper_is_a_candidate() -> None:
    project = _project(
        """
        import abc

        import data as catalogue

        class Base(Dataset, abc.ABC):
            @abc.abstractmethod
            def __getitem__(self, index):
                ...

        class Plain(Base):
            def __getitem__(self, index):
                return index

        class Mirrored(Base):
            def __getitem__(self, index):
                return -index

        def build(module, name, *args):
            return getattr(module, name)(*args)

        def main(name):
            return DataLoader(build(catalogue, name, 3), num_workers=2)
        """
    )
    (loader,) = loader_calls(project)
    found = datasets_of_loader(project, loader)
    # `Base` cannot be made: its `__getitem__` is abstract.
    assert {ref.name for ref in found.classes} == {"Plain", "Mirrored"}
    assert [(source.kind, source.function) for source in found.sources] == [("module", "data")]


@pytest.mark.parametrize(
    "lookup",
    [
        pytest.param("globals()[name]", id="globals subscript"),
        pytest.param("globals().get(name)", id="globals get"),
        pytest.param("getattr(sys.modules[__name__], name)", id="own entry of sys.modules"),
    ],
)
def test_a_class_looked_up_in_the_module_namespace_is_any_dataset_class_it_binds(
    lookup: str,
) -> None:
    project = _project(
        f"""
        import sys

        class Plain(Dataset):
            def __getitem__(self, index):
                return index

        class Mirrored(Dataset):
            def __getitem__(self, index):
                return -index

        class Settings:
            pass

        def main(name):
            return DataLoader({lookup}(3), num_workers=2)
        """
    )
    (loader,) = loader_calls(project)
    found = datasets_of_loader(project, loader)
    # `Settings` is bound there too, but is no dataset.
    assert {ref.name for ref in found.classes} == {"Plain", "Mirrored"}
    assert [(source.kind, source.function) for source in found.sources] == [("module", "data")]


def test_a_lookup_by_a_literal_prefix_finds_only_the_names_it_starts() -> None:
    project = _project(
        """
        class TrainCrops(Dataset):
            def __getitem__(self, index):
                return index

        class TrainFlips(Dataset):
            def __getitem__(self, index):
                return -index

        class EvalCrops(Dataset):
            def __getitem__(self, index):
                return index

        def main(split):
            return DataLoader(globals()["Train" + split](), num_workers=2)
        """
    )
    (loader,) = loader_calls(project)
    found = datasets_of_loader(project, loader)
    assert {ref.name for ref in found.classes} == {"TrainCrops", "TrainFlips"}


def test_attributes_built_from_each_other_are_resolved_once_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Eight attributes, each a `Compose` of all eight: asked afresh at every depth, what
    # one holds would be resolved 8**6 times before the depth limit stops the recursion.
    names = [f"self.part{index}" for index in range(8)]
    parts = "".join(f"        {name} = Compose([{', '.join(names)}])\n" for name in names)
    project = _project(
        "from torchvision.transforms import Compose\n\n\n"
        "class D(Dataset):\n"
        "    def __init__(self):\n"
        + parts
        + textwrap.dedent(
            """
                def __getitem__(self, index):
                    return self.part0(index)

            loader = DataLoader(D(), num_workers=2)
            """
        )
    )
    from codemods.analysis import datasets

    calls = 0
    resolve = datasets.classes_of

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return resolve(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(datasets, "classes_of", counted)
    (loader,) = loader_calls(project)
    per_item_code(project, datasets_of_loader(project, loader).classes[0])
    assert calls < 2_000


_MAKER_BY_NAME = """
import importlib

class Noisy(Dataset):
    def __getitem__(self, index):
        return np.random.rand()

class Quiet(Dataset):
    def __getitem__(self, index):
        return index

def find(path):
    module_name, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), name)

def make(*args, kind=None, **kwargs):
    return find(kind)(*args, **kwargs)

QUIET = dict(kind="data.Quiet")
"""


@pytest.mark.parametrize(
    ("call", "expected", "kinds"),
    [
        # The literal the call gives names the one class it makes.
        ('make(kind="data.Noisy")', {"Noisy"}, []),
        # Through a dict: any Dataset the project names as `kind`.
        ("make(**options)", {"Noisy", "Quiet"}, ["names"]),
        # Not given at all: the default names nothing, and no class is made.
        ("make(size=3)", set(), []),
    ],
)
def test_a_class_named_by_a_dotted_path_string(
    call: str, expected: set[str], kinds: list[str]
) -> None:
    project = _project(
        _MAKER_BY_NAME
        + f"""
def main(options):
    other = dict(kind="data.Noisy", size=2)
    return DataLoader({call}, num_workers=2)
"""
    )
    (loader,) = loader_calls(project)
    found = datasets_of_loader(project, loader)
    assert {ref.name for ref in found.classes} == expected
    assert [source.kind for source in found.sources] == kinds


def test_indexing_a_held_dataset_runs_its_getitem() -> None:
    project = _project(
        """
        class Inner(Dataset):
            def __getitem__(self, index):
                return np.random.rand()

        class Outer(Dataset):
            def __init__(self, inner):
                self.inner = inner
                self.offsets = [0, 1, 2]

            def __getitem__(self, index):
                return self.inner[index + self.offsets[index]]

        loader = DataLoader(Outer(Inner()), num_workers=2)
        """
    )
    (outer,) = [ref for ref in dataset_classes(project) if ref.name == "Outer"]
    reached = [item.function.function.qualname for item in per_item_code(project, outer)]
    assert reached == ["Outer.__getitem__", "Inner.__getitem__"]


def test_a_sum_of_datasets_is_what_their_add_methods_return() -> None:
    project = _project(
        """
        class Part(Dataset):
            def __add__(self, other):
                return Whole()

            def __radd__(self, other):
                return self if other == 0 else self.__add__(other)

        class Whole(Part):
            def __getitem__(self, index):
                return index

        parts = [Part(), Part()]
        summed = DataLoader(sum(parts), num_workers=2)
        added = DataLoader(Part() + Part(), num_workers=2)
        """
    )
    summed, added = loader_calls(project)
    assert sorted(ref.name for ref in datasets_of_loader(project, summed).classes) == [
        "Part",
        "Whole",
    ]
    assert [ref.name for ref in datasets_of_loader(project, added).classes] == ["Whole"]


@pytest.mark.parametrize(
    ("trainer_code", "reaches"),
    [
        ("pl.Trainer().fit(None, loader)", True),
        ("pl.Trainer().validate(None, dataloaders=[loader])", True),
        ("print(loader); pl.Trainer().fit(None, datamodule=Frames())", False),
        ("[batch for batch in loader]", False),
    ],
)
def test_a_loader_reaches_a_lightning_trainer(trainer_code: str, reaches: bool) -> None:
    project = _project(
        f"""
        import pytorch_lightning as pl

        class Frames(pl.LightningDataModule):
            def train_dataloader(self):
                return DataLoader(Dataset(), num_workers=2)

        def main():
            loader = DataLoader(Dataset(), num_workers=2)
            {trainer_code}
        """
    )
    hook_loader, loader = loader_calls(project)
    assert reaches_trainer(project, loader) is reaches
    assert reaches_trainer(project, hook_loader) is ("datamodule" in trainer_code)
