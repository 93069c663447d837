"""Unit tests for codemods.analysis.project: name resolution across the files of a project."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from codemods.analysis.project import Project
from codemods.analysis.refs import ExternalRef, FunctionRef
from codemods.summaries import Parsed, summarise_source
from codemods.types import SourceFile, TorchTarget

ROOT = Path("/project")


def _project(files: dict[str, str]) -> Project:
    modules = []
    for name, body in files.items():
        text = textwrap.dedent(body)
        path = ROOT / name
        source = SourceFile(path, text.encode(), text, "utf-8", False, 0o644)
        parsed = summarise_source(source, ROOT)
        assert isinstance(parsed, Parsed)
        modules.append(parsed.facts)
    return Project(ROOT, modules, TorchTarget(None))


def test_star_imports_of_missing_modules_resolve_quickly() -> None:
    """`from .missing import *` once made each lookup grow `pkg.missing.missing...`, branching
    at every star import: minutes for one name in a real package."""
    stars = "".join(f"from .missing{n} import *\n" for n in range(6))
    project = _project({"pkg/__init__.py": stars, "pkg/metric.py": "x = 1\n"})
    start = time.perf_counter()
    assert project.resolve("pkg.missing0.ImportError", project.module_named("pkg")) == ()
    assert time.perf_counter() - start < 1


def test_packages_that_star_import_each_other_resolve_each_name_once() -> None:
    files = {f"pkg/m{n}.py": f"from .m{n + 1} import *\n" for n in range(40)}
    files["pkg/__init__.py"] = "".join(f"from .m{n} import *\n" for n in range(40))
    files["pkg/m40.py"] = "def target():\n    pass\n"
    project = _project(files)
    found = project.resolve("pkg.target", project.module_named("pkg"))
    assert [ref.qualname for ref in found if isinstance(ref, FunctionRef)] == ["target"]


def test_a_variable_assigned_its_own_attribute_is_not_followed() -> None:
    text = "import argparse\nargs = argparse.Namespace()\nargs = args.sub\n"
    project = _project({"conf.py": text})
    start = time.perf_counter()
    found = project.resolve("conf.args.sub.deeper", project.module_named("conf"))
    assert time.perf_counter() - start < 1
    assert not any(isinstance(ref, ExternalRef) and ".args.args" in ref.qualname for ref in found)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"a.py": "def init(w):\n    pass\n", "b.py": "from a import init\nFN = init\n"},
            True,
            id="stored in a module variable",
        ),
        pytest.param(
            {
                "a.py": "def init(w):\n    pass\n",
                "b.py": "from a import init as start\n",
                "c.py": "from b import start\nhandlers = [start]\n",
            },
            True,
            id="through an alias in another module",
        ),
        pytest.param(
            {"a.py": "def init(w):\n    pass\n", "b.py": "from a import init\ninit(0)\n"},
            False,
            id="only called",
        ),
        pytest.param(
            {"a.py": "def init(w):\n    pass\n", "b.py": "def init(w):\n    pass\nx = init\n"},
            False,
            id="a namesake in another module",
        ),
    ],
)
def test_is_referenced(files: dict[str, str], expected: bool) -> None:
    project = _project(files)
    module = project.module_named("a")
    assert module is not None
    function = module.function("init")
    assert function is not None
    assert project.is_referenced(FunctionRef.of(module, function)) is expected


def test_a_global_statement_at_module_level_is_summarised() -> None:
    """`global x` outside any function is legal; resolving `x` once looped forever."""
    project = _project({"main.py": "global counter\ncounter = 0\nvalues = [counter for _ in []]\n"})
    module = project.module_named("main")
    assert module is not None
    assert module.binding("counter")


def test_a_script_imports_a_namespace_package_beside_it() -> None:
    """`code/train.py` runs with `code/` on sys.path: `loading/` (no __init__.py) is a
    namespace package to it, so `loading.volumes` is `code/loading/volumes.py`."""
    project = _project({"code/loading/volumes.py": "class Volumes:\n    pass\n"})
    module = project.module_named("loading.volumes")
    assert module is not None
    assert module.path == ROOT / "code/loading/volumes.py"


def test_a_notebook_named_like_a_library_never_stands_for_it() -> None:
    project = _project(
        {
            "notebooks/torch.ipynb": "import torch\nsummed = torch.zeros(3).sum()\n",
            "data.py": "from torch.utils.data import DataLoader\n",
        }
    )
    data = project.module_named("data")
    loader = ExternalRef("torch.utils.data.DataLoader")
    assert project.resolve("torch.utils.data.DataLoader", data) == (loader,)
    # The notebook's own code still finds itself by the name it is summarised under.
    notebook = project.module_named("notebooks.torch")
    assert notebook is not None
    assert notebook.path.suffix == ".ipynb"


def test_a_subpackage_is_importable_by_its_inner_dotted_name_only() -> None:
    """A script run from inside a package imports `training.data` of
    `src/speech/training/data.py`; the bare name `utils` of a subpackage deep inside
    stays the top-level `utils.py`."""
    project = _project(
        {
            "src/speech/__init__.py": "",
            "src/speech/training/__init__.py": "",
            "src/speech/training/data.py": "class Clips:\n    pass\n",
            "src/speech/vendor/__init__.py": "",
            "src/speech/vendor/utils/__init__.py": "def helper():\n    pass\n",
            "utils.py": "def random_click():\n    pass\n",
        }
    )
    inner = project.module_named("training.data")
    assert inner is not None
    assert inner.path == ROOT / "src/speech/training/data.py"
    utils = project.module_named("utils")
    assert utils is not None
    assert utils.path == ROOT / "utils.py"
