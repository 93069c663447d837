"""Where a project declares torch besides its root files: local packages its requirements
install by path, conda package lists, and requirement files below the root."""

from __future__ import annotations

from pathlib import Path

import pytest
from file_trees import write_tree

from codemods.analysis.declaration_places import local_package
from codemods.analysis.torch_version import declared_target
from codemods.types import TorchTarget


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "requirements.txt": "numpy\n./kernels_lib/.\n",
                "kernels_lib/setup.py": "needs = ['torch>=1.4']\nsetup(install_requires=needs)\n",
            },
            TorchTarget((1, 4), source="kernels_lib/setup.py"),
            id="a package installed by its path declares for the requirements file",
        ),
        pytest.param(
            {
                "requirements.txt": "-e ./ops[cuda]\n",
                "ops/pyproject.toml": '[project]\ndependencies = ["torch==1.7.1"]\n',
            },
            TorchTarget((1, 7, 1), source="ops/pyproject.toml"),
            id="an editable install with extras",
        ),
        pytest.param(
            {
                "requirements.txt": "--editable=file:ops#egg=ops\n",
                "ops/setup.cfg": "[options]\ninstall_requires = torch>=1.6\n",
            },
            TorchTarget((1, 6), source="ops/setup.cfg"),
            id="a file: path with an egg fragment",
        ),
        pytest.param(
            {
                "requirements.txt": "torch>=1.8\n-e ./ops\n",
                "ops/setup.py": "setup(install_requires=['torch>=1.2'])\n",
            },
            TorchTarget((1, 2), source="ops/setup.py"),
            id="what the installed package admits is part of what the file installs",
        ),
        pytest.param(
            {"requirements.txt": "-e .\n", "setup.py": "setup(install_requires=['torch>=1.8'])\n"},
            TorchTarget((1, 8), source="setup.py"),
            id="the root package is read once, as a root file",
        ),
        pytest.param(
            {"requirements.txt": "-e ../\ngit+https://example.org/x.git#egg=x\n"},
            None,
            id="paths outside the project and urls are not followed",
        ),
        pytest.param(
            {"requirements.txt": "./missing\n"},
            None,
            id="a path that is no directory is ignored",
        ),
        pytest.param(
            {
                "requirements.txt": "# platform: linux-64\npytorch=1.4.0=py3.7_cuda10.1_0\n"
                "torchvision=0.5.0=py37_cu101\n"
            },
            TorchTarget((1, 4, 0), source="requirements.txt"),
            id="a conda package list read with conda names",
        ),
        pytest.param(
            {"requirements.txt": "--extra-index-url=https://example.org/simple\ntorch==1.8\n"},
            TorchTarget((1, 8), source="requirements.txt"),
            id="an option with a value is no conda pin",
        ),
        pytest.param(
            {"env.yml": "name: x\ndependencies:\n  - pytorch=1.4.0\n"},
            TorchTarget((1, 4, 0), source="env.yml"),
            id="a conda environment named env.yml",
        ),
    ],
)
def test_declared_through_installed_packages(
    tmp_path: Path, files: dict[str, str], expected: TorchTarget | None
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    write_tree(root, files)
    assert declared_target(root) == expected


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "installation/requirements.txt": "torch==1.4.0\n",
                "docker/requirements.txt": "torch==1.4.0\nnumpy\n",
            },
            TorchTarget((1, 4, 0), source="docker/requirements.txt"),
            id="pins beside install scripts count when the root declares nothing",
        ),
        pytest.param(
            {"conda/environment-gpu.yml": "dependencies:\n  - pytorch=1.6\n"},
            TorchTarget((1, 6), source="conda/environment-gpu.yml"),
            id="a nested conda environment",
        ),
        pytest.param(
            {"setup/requirements/train.txt": "torch>=1.5\n"},
            TorchTarget((1, 5), source="setup/requirements/train.txt"),
            id="a nested requirements folder",
        ),
        pytest.param(
            {
                "requirements.txt": "torch>=1.8\n",
                "examples/demo/requirements.txt": "torch==1.2\n",
            },
            TorchTarget((1, 8), source="requirements.txt"),
            id="a root file wins over a lower nested pin",
        ),
        pytest.param(
            {"requirements.txt": "torch\n", "docker/requirements.txt": "torch==1.4\n"},
            None,
            id="an unconstrained root declaration still declares torch",
        ),
        pytest.param(
            {
                "install/requirements.txt": "numpy\n",
                "install/gpu/requirements.txt": "torch==1.7\n",
                "examples/a/b/requirements.txt": "torch==1.2\n",
            },
            TorchTarget((1, 7), source="install/gpu/requirements.txt"),
            id="the shallowest declaring files win",
        ),
        pytest.param(
            {"ops_lib/setup.py": "setup(install_requires=['torch>=1.4'])\n"},
            TorchTarget((1, 4), source="ops_lib/setup.py"),
            id="a package of the project installed by hand declares it",
        ),
        pytest.param(
            {
                "ops/pyproject.toml": '[project]\ndependencies = ["torch>=1.6"]\n',
                "ops/setup.cfg": "[options]\ninstall_requires = torch>=1.7\n",
                "examples/a/setup.py": "setup(install_requires=['torch>=1.2'])\n",
            },
            TorchTarget((1, 6), source="ops/pyproject.toml"),
            id="the shallowest packaging files win",
        ),
        pytest.param(
            {"third_party/lib/requirements.txt": "torch==1.0\n"},
            None,
            id="vendored code is not read",
        ),
        pytest.param(
            {"third_party/lib/setup.py": "setup(install_requires=['torch==1.0'])\n"},
            None,
            id="vendored packaging files are not read",
        ),
        pytest.param(
            {"lib/.git": "gitdir: ../.git/modules/lib\n", "lib/requirements.txt": "torch==1.0\n"},
            None,
            id="a git submodule is not read",
        ),
        pytest.param(
            {"docs/requirements.txt": "torch==1.0\n"},
            None,
            id="documentation requirements are not read",
        ),
        pytest.param(
            {".ci/requirements.txt": "torch==1.0\n", "a/b/c/d/requirements.txt": "torch==1.0\n"},
            None,
            id="hidden and deep folders are not read",
        ),
    ],
)
def test_declared_below_the_root(
    tmp_path: Path, files: dict[str, str], expected: TorchTarget | None
) -> None:
    write_tree(tmp_path, files)
    assert declared_target(tmp_path) == expected


@pytest.mark.parametrize(
    "line",
    ["torch>=1.4", "torch @ https://example.org/torch.whl", "-e .", "https://x.org/a/b.whl"],
)
def test_local_package_ignores_other_lines(tmp_path: Path, line: str) -> None:
    (tmp_path / "a").mkdir()
    assert local_package(line, tmp_path, tmp_path) is None
