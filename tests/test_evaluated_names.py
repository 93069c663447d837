"""Unit tests for codemods.analysis.evaluated_names: which classes `eval` of a configured
name may give, read only from the string literal in the call and the project's imports."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods.analysis.datasets import datasets_of_loader
from codemods.analysis.loaders import loader_calls
from codemods.analysis.project import Project
from codemods.summaries import Parsed, summarise_source
from codemods.types import SourceFile, TorchTarget

ROOT = Path("/project")

_SETS = """\
from torch.utils.data import Dataset


class Waves(Dataset):
    def __getitem__(self, index):
        return index


class Tones(Dataset):
    def __getitem__(self, index):
        return index
"""


def _project(files: dict[str, str]) -> Project:
    modules = []
    for name, body in files.items():
        text = textwrap.dedent(body)
        source = SourceFile(ROOT / name, text.encode(), text, "utf-8", False, 0o644)
        parsed = summarise_source(source, ROOT)
        assert isinstance(parsed, Parsed)
        modules.append(parsed.facts)
    return Project(ROOT, modules, TorchTarget(None))


def _loaded(files: dict[str, str]) -> tuple[set[str], bool]:
    project = _project(files)
    (loader,) = loader_calls(project)
    found = datasets_of_loader(project, loader)
    return {ref.name for ref in found.classes}, found.complete


def _script(text: str, imports: str = "import audio") -> str:
    return f"from torch.utils.data import DataLoader\n{imports}\n\n\ndef make(cfg):\n    {text}\n"


@pytest.mark.parametrize(
    ("package", "imports", "expression", "expected"),
    [
        # Names bound by `from .sub import Class as sub` shadow the submodule of that name.
        (
            "from .sets import Waves as sets\nfrom .sets import Tones as tones\n",
            "import audio",
            'eval("audio." + cfg.kind)',
            {"Waves", "Tones"},
        ),
        # Re-exported through a star import.
        ("from .sets import *\n", "import audio", 'eval("audio." + cfg.kind)', {"Waves", "Tones"}),
        # A package imported under another name, and a submodule spelled in the literal.
        ("", "import audio as sound", 'eval("sound.sets." + cfg.kind)', {"Waves", "Tones"}),
    ],
)
def test_a_literal_prefix_names_a_project_package(
    package: str, imports: str, expression: str, expected: set[str]
) -> None:
    files = {
        "audio/__init__.py": package,
        "audio/sets.py": _SETS,
        "train.py": _script(
            f"return DataLoader({expression}(cfg.root), num_workers=2)",
            imports + "\nimport audio.sets",
        ),
    }
    assert _loaded(files) == (expected, True)


@pytest.mark.parametrize(
    "text",
    [
        # A name of a third-party package.
        'return DataLoader(eval("torchvision.datasets." + cfg.kind)(cfg.root), num_workers=2)',
        # A local variable: what it holds is not followed.
        "audio = cfg.module\n"
        '    return DataLoader(eval("audio." + cfg.kind)(cfg.root), num_workers=2)',
        # Evaluated in namespaces of its own.
        "return DataLoader(eval(cfg.kind, cfg.names)(cfg.root), num_workers=2)",
        # A prefix that is not followed by a dot names no module.
        'return DataLoader(eval("audio" + cfg.kind)(cfg.root), num_workers=2)',
    ],
)
def test_an_eval_not_tied_to_a_project_module_stays_unknown(text: str) -> None:
    files = {
        "audio/__init__.py": "from .sets import Waves, Tones\n",
        "audio/sets.py": _SETS,
        "train.py": _script(text, "import audio\nimport torchvision"),
    }
    assert _loaded(files) == (set(), False)


def test_a_bare_name_is_looked_up_among_the_classes_the_module_binds() -> None:
    files = {
        "audio/__init__.py": "",
        "audio/sets.py": _SETS,
        "train.py": _script(
            "return DataLoader(eval(cfg.kind)(cfg.root), num_workers=2)",
            "from audio.sets import Waves\nfrom audio.sets import Tones",
        ),
    }
    assert _loaded(files) == ({"Waves", "Tones"}, True)


def test_a_bare_name_in_a_module_binding_no_project_class_stays_unknown() -> None:
    files = {
        "audio/__init__.py": "",
        "audio/sets.py": _SETS,
        "train.py": _script("return DataLoader(eval(cfg.kind)(cfg.root), num_workers=2)", ""),
    }
    assert _loaded(files) == (set(), False)
