"""Unit tests for codemods.analysis.imported_modules: which project modules
`importlib.import_module` may return, and which classes `getattr` then looks up in them."""

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


def _module_of(name: str) -> str:
    """A module of package `shapes` defining a class named like it, and one other class."""
    return textwrap.dedent(
        f"""\
        from torch.utils.data import Dataset


        class {name}(Dataset):
            def __getitem__(self, index):
                return index


        class {name.capitalize()}Helper(Dataset):
            def __getitem__(self, index):
                return index
        """
    )


def _project(factory: str) -> Project:
    files = {
        "shapes/__init__.py": "",
        "shapes/square.py": _module_of("square"),
        "shapes/circle.py": _module_of("circle"),
        "shapes/nested/deeper.py": _module_of("deeper"),
        "train.py": (
            "import importlib\n\nfrom torch.utils.data import DataLoader\n\n\n"
            f"def make(name, cfg):\n    {factory}\n"
            "    return DataLoader(data, num_workers=2)\n"
        ),
    }
    modules = []
    for path, body in files.items():
        source = SourceFile(ROOT / path, body.encode(), body, "utf-8", False, 0o644)
        parsed = summarise_source(source, ROOT)
        assert isinstance(parsed, Parsed)
        modules.append(parsed.facts)
    return Project(ROOT, modules, TorchTarget(None))


@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        # The same value picks the module and the class: each module's own-named class.
        (
            'data = getattr(importlib.import_module("." + name, package="shapes"), name)()',
            {"square", "circle"},
        ),
        (
            'data = getattr(importlib.import_module("shapes." + name), name)()',
            {"square", "circle"},
        ),
        # Another value names the class: any class of any module directly in the package.
        (
            'data = getattr(importlib.import_module("shapes." + name), cfg.cls)()',
            {"square", "SquareHelper", "circle", "CircleHelper"},
        ),
        # A relative literal with a literal package names one module.
        (
            'data = getattr(importlib.import_module(".square", package="shapes"), cfg.cls)()',
            {"square", "SquareHelper"},
        ),
        (
            'data = getattr(importlib.import_module("shapes.nested.deeper"), name)()',
            {"deeper", "DeeperHelper"},
        ),
    ],
)
def test_a_module_imported_by_name_gives_its_classes(factory: str, expected: set[str]) -> None:
    project = _project(factory)
    (loader,) = loader_calls(project)
    found = datasets_of_loader(project, loader)
    assert {ref.name for ref in found.classes} == expected
    assert found.sources
    assert all(source.kind == "module" for source in found.sources)


@pytest.mark.parametrize(
    "factory",
    [
        # A package known only at run time, or a prefix that is no package of the project.
        'data = getattr(importlib.import_module("." + name, package=cfg.pkg), name)()',
        'data = getattr(importlib.import_module("torchvision.datasets." + name), name)()',
        # A relative name without a package cannot be imported.
        'data = getattr(importlib.import_module("." + name), name)()',
        # The whole name is known only at run time.
        "data = getattr(importlib.import_module(cfg.module), name)()",
    ],
)
def test_a_module_that_cannot_be_told_gives_nothing(factory: str) -> None:
    project = _project(factory)
    (loader,) = loader_calls(project)
    found = datasets_of_loader(project, loader)
    assert not found.classes
    assert not found.complete
