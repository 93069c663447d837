from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from file_trees import write_tree

from codemods.analysis.torch_version import (
    declared_target,
    detect_target,
    installed_target,
    parse_version,
    target_from_option,
)
from codemods.types import TorchTarget


def fake_installed(monkeypatch: pytest.MonkeyPatch, version: str | None) -> None:
    def fake_version(name: str) -> str:
        assert name == "torch"
        if version is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return version

    monkeypatch.setattr(importlib.metadata, "version", fake_version)


# --- parse_version and target_from_option ---


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("1.8", (1, 8), id="major and minor"),
        pytest.param("1.8.1", (1, 8, 1), id="major minor and micro"),
        pytest.param("1.8.1+cu111", (1, 8, 1), id="local version is dropped"),
        pytest.param("2.0.0rc1", (2, 0, 0), id="release candidate is dropped"),
        pytest.param("2.1.0.dev20230801", (2, 1, 0), id="dev release is dropped"),
        pytest.param(" 1.10 ", (1, 10), id="surrounding spaces are ignored"),
        pytest.param("2", (2,), id="a single number is a version"),
    ],
)
def test_parse_version(text: str, expected: tuple[int, ...]) -> None:
    assert parse_version(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty string"),
        pytest.param("abc", id="words"),
        pytest.param("1..8", id="empty release part"),
        pytest.param("1.8.*", id="wildcard"),
        pytest.param(">=1.8", id="specifier instead of version"),
        pytest.param("1.8 garbage", id="trailing garbage"),
    ],
)
def test_parse_version_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError, match="invalid version"):
        parse_version(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("1.8", TorchTarget((1, 8), source="src"), id="minor version"),
        pytest.param("1.8.1", TorchTarget((1, 8, 1), source="src"), id="micro version"),
        pytest.param("latest", TorchTarget(None, source="src"), id="latest"),
        pytest.param("Latest", TorchTarget(None, source="src"), id="latest in any case"),
    ],
)
def test_target_from_option(text: str, expected: TorchTarget) -> None:
    assert target_from_option(text, "src") == expected


def test_target_from_option_names_the_source_in_errors() -> None:
    with pytest.raises(ValueError, match=r"--torch-version: invalid torch version 'one\.eight'"):
        target_from_option("one.eight", "--torch-version")


# --- declared_target: requirement specifiers, through requirements.txt ---


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("torch==1.8.1\n", ((1, 8, 1), False), id="pinned requirement"),
        pytest.param("torch>=1.7\n", ((1, 7), False), id="minimum requirement"),
        pytest.param("torch>1.7\n", ((1, 7), False), id="exclusive minimum uses its version"),
        pytest.param("torch~=1.8.0\n", ((1, 8, 0), False), id="compatible release"),
        pytest.param("torch===1.8.0\n", ((1, 8, 0), False), id="arbitrary equality"),
        pytest.param("torch==1.8.*\n", ((1, 8), False), id="wildcard pin"),
        pytest.param("torch>=1.7,<1.9\n", ((1, 7), False), id="range takes its lower bound"),
        pytest.param("torch>=1.6, >=1.7\n", ((1, 7), False), id="highest lower bound of a line"),
        pytest.param("torch<1.9\n", ((1, 9), True), id="exclusive upper bound means below"),
        pytest.param("torch<=1.8.1\n", ((1, 8, 1), False), id="inclusive upper bound is kept"),
        pytest.param("torch<2,<=1.8.1\n", ((1, 8, 1), False), id="tightest upper bound"),
        pytest.param("torch<1.9,<=1.9\n", ((1, 9), True), id="exclusive bound is tighter"),
        pytest.param("torch=>1.5.0\n", ((1, 5, 0), False), id="misspelt minimum"),
        pytest.param("torch=<1.8.1\n", ((1, 8, 1), False), id="misspelt inclusive upper bound"),
        pytest.param("torch!=1.8.0\n", None, id="exclusion alone does not constrain"),
        pytest.param("torch!=1.8.0,>=1.7\n", ((1, 7), False), id="exclusion is ignored"),
        pytest.param("torch\n", None, id="bare torch does not constrain"),
        pytest.param("Torch==1.8\n", ((1, 8), False), id="name is case insensitive"),
        pytest.param("torch[cuda]==1.8\n", ((1, 8), False), id="extras are allowed"),
        pytest.param("torch (>=1.8)\n", ((1, 8), False), id="parenthesised specifier"),
        pytest.param(
            'torch==1.8; python_version < "3.10"\n', ((1, 8), False), id="marker is ignored"
        ),
        pytest.param(
            'torch==2.0; python_version >= "3.10"\ntorch==1.8; python_version < "3.10"\n',
            ((1, 8), False),
            id="every marker alternative counts",
        ),
        pytest.param(
            "torch==1.8.1+cu111 -f https://download.pytorch.org/whl/torch_stable.html\n",
            ((1, 8, 1), False),
            id="local version and find-links option",
        ),
        pytest.param(
            "torch==1.8.1 \\\n    --hash=sha256:abc\n",
            ((1, 8, 1), False),
            id="line continuation and hash",
        ),
        pytest.param(
            "torch>=1.7,\\\n  <1.9\n", ((1, 7), False), id="continuation inside a specifier"
        ),
        pytest.param(
            "# torch==1.0\ntorch==1.8  # pinned for CUDA 11\n",
            ((1, 8), False),
            id="comments are ignored",
        ),
        pytest.param(
            "torch @ https://example.com/torch-nightly.whl\n", None, id="url without a version"
        ),
        pytest.param(
            "https://download.pytorch.org/whl/cu100/torch-1.2.0-cp36-cp36m-manylinux1_x86_64.whl\n",
            ((1, 2, 0), False),
            id="wheel url pins the version in its file name",
        ),
        pytest.param(
            "torch @ https://download.pytorch.org/whl/cu111/torch-1.8.1%2Bcu111-cp38-cp38-"
            "linux_x86_64.whl\n",
            ((1, 8, 1), False),
            id="direct reference to a wheel with a quoted local version",
        ),
        pytest.param(
            "./wheels/torchvision-0.4.0-cp36-cp36m-manylinux1_x86_64.whl\n",
            None,
            id="another package's wheel",
        ),
        pytest.param(
            "torchvision==0.9\ntorchaudio==0.8\npytorch-lightning==1.0\ntorch-geometric==1.7\n",
            None,
            id="torchvision and other torch packages are not torch",
        ),
        pytest.param(
            "pytorch==1.2.0\n", ((1, 2, 0), False), id="pytorch, conda's name, in a pip file"
        ),
        pytest.param(
            "-e .\n--index-url https://example.com\ntorch==1.8\n",
            ((1, 8), False),
            id="option lines are skipped",
        ),
        pytest.param("", None, id="empty file"),
    ],
)
def test_requirement_specifiers(
    tmp_path: Path, text: str, expected: tuple[tuple[int, ...], bool] | None
) -> None:
    write_tree(tmp_path, {"requirements.txt": text})
    target = declared_target(tmp_path)
    if expected is None:
        assert target is None
    else:
        assert target == TorchTarget(expected[0], below=expected[1], source="requirements.txt")


# --- declared_target: every file format ---

PYPROJECT_CASES = [
    pytest.param(
        {"pyproject.toml": '[project]\ndependencies = ["numpy", "torch>=1.8"]\n'},
        TorchTarget((1, 8), source="pyproject.toml"),
        id="project dependencies",
    ),
    pytest.param(
        {
            "pyproject.toml": '[project]\ndependencies = ["torch>=1.8"]\n'
            '[project.optional-dependencies]\ngpu = ["torch[cuda]==1.7.1"]\n'
        },
        TorchTarget((1, 7, 1), source="pyproject.toml"),
        id="optional dependencies count",
    ),
    pytest.param(
        {
            "pyproject.toml": "[dependency-groups]\n"
            'test = ["pytest", {include-group = "base"}, "torch>=1.6"]\nbase = ["numpy"]\n'
        },
        TorchTarget((1, 6), source="pyproject.toml"),
        id="dependency groups",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.8"\ntorch = "^1.8"\n'},
        TorchTarget((1, 8), source="pyproject.toml"),
        id="poetry caret",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.dependencies]\ntorch = "~1.8"\n'},
        TorchTarget((1, 8), source="pyproject.toml"),
        id="poetry tilde",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.dependencies]\ntorch = ">= 1.7, < 2"\n'},
        TorchTarget((1, 7), source="pyproject.toml"),
        id="poetry range with spaces",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.dependencies]\ntorch = "1.8.*"\n'},
        TorchTarget((1, 8), source="pyproject.toml"),
        id="poetry wildcard",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.dependencies]\ntorch = "1.8.1"\n'},
        TorchTarget((1, 8, 1), source="pyproject.toml"),
        id="poetry exact version",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.dependencies]\ntorch = "^2.0 || >=1.7,<1.9"\n'},
        TorchTarget((1, 7), source="pyproject.toml"),
        id="poetry alternatives take the lowest",
    ),
    pytest.param(
        {
            "pyproject.toml": "[tool.poetry.dependencies]\n"
            'torch = {version = "^1.9", optional = true}\n'
        },
        TorchTarget((1, 9), source="pyproject.toml"),
        id="poetry table with version",
    ),
    pytest.param(
        {
            "pyproject.toml": "[tool.poetry.dependencies]\ntorch = [\n"
            '  {version = "^2.0", python = ">=3.10"},\n'
            '  {version = "^1.8", python = "<3.10"},\n]\n'
        },
        TorchTarget((1, 8), source="pyproject.toml"),
        id="poetry multiple constraints",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.group.dev.dependencies]\ntorch = "^1.10"\n'},
        TorchTarget((1, 10), source="pyproject.toml"),
        id="poetry dependency group",
    ),
    pytest.param(
        {"pyproject.toml": '[tool.poetry.dependencies]\ntorch = "*"\n'},
        None,
        id="poetry star does not constrain",
    ),
    pytest.param(
        {
            "pyproject.toml": "[tool.poetry.dependencies]\n"
            'torch = {git = "https://github.com/pytorch/pytorch.git"}\n'
        },
        None,
        id="poetry git dependency does not constrain",
    ),
    pytest.param(
        {"pyproject.toml": '[project]\ndependencies = ["torchvision>=0.9", "torch"]\n'},
        None,
        id="pyproject without a torch version",
    ),
]

SETUP_CASES = [
    pytest.param(
        {"setup.py": 'from setuptools import setup\nsetup(install_requires=["torch>=1.8"])\n'},
        TorchTarget((1, 8), source="setup.py"),
        id="setup.py install_requires",
    ),
    pytest.param(
        {
            "setup.py": 'REQUIRED = [\n    "numpy",\n    "torch==1.7.1",\n]\n'
            "setup(name='x', install_requires=REQUIRED)\n"
        },
        TorchTarget((1, 7, 1), source="setup.py"),
        id="setup.py requirements assigned to a variable",
    ),
    pytest.param(
        {
            "setup.py": 'BASE = ["numpy"]\nsetup(install_requires=BASE + ["torch>=1.6"],\n'
            '      extras_require={"gpu": ["torch[cuda]>=1.5"]})\n'
        },
        TorchTarget((1, 5), source="setup.py"),
        id="setup.py extras and concatenation",
    ),
    pytest.param(
        {
            "setup.py": "def get_install_requires():\n"
            '    requires = ["numpy", "torch>=1.1.0"]\n'
            "    if platform.system() != 'Windows':\n"
            '        requires.append("pycocotools")\n'
            "    return requires\n"
            "setup(install_requires=get_install_requires())\n"
        },
        TorchTarget((1, 1, 0), source="setup.py"),
        id="setup.py requirements returned by a function",
    ),
    pytest.param(
        {
            "setup.py": 'def describe():\n    return "torch==1.0"\n'
            'setup(description=describe(), install_requires=["numpy"])\n'
        },
        None,
        id="setup.py function results outside requirements do not count",
    ),
    pytest.param(
        {"setup.py": 'setup(tests_require=("torch<1.9",))\n'},
        TorchTarget((1, 9), below=True, source="setup.py"),
        id="setup.py tests_require",
    ),
    pytest.param(
        {"setup.py": 'DESCRIPTION = "torch==1.0"\nsetup(description=DESCRIPTION)\n'},
        None,
        id="setup.py strings outside requirements do not count",
    ),
    pytest.param(
        {
            "setup.cfg": "[metadata]\nname = x\n\n[options]\ninstall_requires =\n"
            "    numpy\n    # torch==1.0\n    torch>=1.8; python_version >= '3.7'\n"
        },
        TorchTarget((1, 8), source="setup.cfg"),
        id="setup.cfg install_requires",
    ),
    pytest.param(
        {
            "setup.cfg": "[options]\ninstall_requires = torch>=1.8\n"
            "[options.extras_require]\ngpu =\n    torch==1.7\n"
        },
        TorchTarget((1, 7), source="setup.cfg"),
        id="setup.cfg extras_require",
    ),
]

REQUIREMENTS_CASES = [
    pytest.param(
        {"requirements/base.txt": "torch==1.8\n"},
        TorchTarget((1, 8), source="requirements/base.txt"),
        id="requirements folder",
    ),
    pytest.param(
        {"requirement.txt": "torch==1.2.0\n", "requirement_voxel.txt": "torch==1.4.0\n"},
        None,
        id="files not named requirements are not read",
    ),
    pytest.param(
        {"requirements-dev.txt": "torch>=1.7\n"},
        TorchTarget((1, 7), source="requirements-dev.txt"),
        id="requirements with a suffix",
    ),
    pytest.param(
        {"requirements.txt": "-r deps/torch.txt\n", "deps/torch.txt": "torch>=1.7\n"},
        TorchTarget((1, 7), source="deps/torch.txt"),
        id="include is attributed to the included file",
    ),
    pytest.param(
        {
            "requirements.txt": "--requirement=deps/torch.txt\n",
            "deps/torch.txt": "torch>=1.7\n",
        },
        TorchTarget((1, 7), source="deps/torch.txt"),
        id="long include option",
    ),
    pytest.param(
        {"requirements/dev.txt": "-r common.in\n", "requirements/common.in": "torch==1.6\n"},
        TorchTarget((1, 6), source="requirements/common.in"),
        id="include is relative to the including file",
    ),
    pytest.param(
        {
            "requirements.txt": "-r requirements/a.txt\ntorch>=1.9\n",
            "requirements/a.txt": "-r ../requirements.txt\n-r a.txt\ntorch>=1.8\n",
        },
        TorchTarget((1, 8), source="requirements/a.txt"),
        id="include cycles end",
    ),
    pytest.param(
        {"requirements.txt": "-r missing.txt\ntorch==1.8\n"},
        TorchTarget((1, 8), source="requirements.txt"),
        id="missing include is ignored",
    ),
    pytest.param(
        {"docs/requirements.txt": "torch==1.0\n"},
        None,
        id="requirements elsewhere are not read",
    ),
    pytest.param(
        {"requirements.txt": "  - numpy=1.18.1=py37h4f9e942_0\n  - pytorch=1.4.0=py3.7_0\n"},
        TorchTarget((1, 4, 0), source="requirements.txt"),
        id="conda package list pasted as a yaml list",
    ),
    pytest.param(
        {"requirements.txt": "- pip:\n  - torch==1.7.1\n"},
        TorchTarget((1, 7, 1), source="requirements.txt"),
        id="yaml list item with a pip requirement",
    ),
]

PIPFILE_CASES = [
    pytest.param(
        {"Pipfile": '[packages]\nnumpy = "*"\ntorch = "==1.8.0"\n'},
        TorchTarget((1, 8, 0), source="Pipfile"),
        id="Pipfile string",
    ),
    pytest.param(
        {"Pipfile": '[dev-packages]\ntorch = {version = ">=1.7", index = "pytorch"}\n'},
        TorchTarget((1, 7), source="Pipfile"),
        id="Pipfile table in dev packages",
    ),
    pytest.param({"Pipfile": '[packages]\ntorch = "*"\n'}, None, id="Pipfile star"),
]

ENVIRONMENT_CASES = [
    pytest.param(
        {"environment.yml": "dependencies:\n  - python=3.8\n  - pytorch=1.8.1\n"},
        TorchTarget((1, 8, 1), source="environment.yml"),
        id="conda single equals",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n  - pytorch==1.8\n"},
        TorchTarget((1, 8), source="environment.yml"),
        id="conda double equals",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n  - pytorch>=1.7,<1.9\n"},
        TorchTarget((1, 7), source="environment.yml"),
        id="conda range",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n  - pytorch 1.8.*\n"},
        TorchTarget((1, 8), source="environment.yml"),
        id="conda version after a space",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n  - pytorch >= 1.7, < 1.9\n"},
        TorchTarget((1, 7), source="environment.yml"),
        id="conda range with spaces",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n  - torch=1.8\n"},
        TorchTarget((1, 8), source="environment.yml"),
        id="conda torch name",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n  - pytorch=1.8.1=py3.8_cuda11.1_cudnn8.0.5_0\n"},
        TorchTarget((1, 8, 1), source="environment.yml"),
        id="conda build string",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n  - pytorch::pytorch=1.9  # from the channel\n"},
        TorchTarget((1, 9), source="environment.yml"),
        id="conda channel prefix and comment",
    ),
    pytest.param(
        {"environment.yml": "dependencies:\n- 'pytorch<1.9'\n"},
        TorchTarget((1, 9), below=True, source="environment.yml"),
        id="conda quoted upper bound without indentation",
    ),
    pytest.param(
        {
            "environment.yml": "name: x\nchannels:\n  - pytorch\n  - conda-forge\n"
            "dependencies:\n  - pytorch\n  - pytorch-cuda=11.8\n  - torchvision=0.9\n"
        },
        None,
        id="conda channel and other packages do not count",
    ),
    pytest.param(
        {
            "environment.yml": "dependencies:\n  - python=3.8\n  - pip\n  - pip:\n"
            "      - torch==1.8.1+cu111\n      - -f https://example.com\n"
        },
        TorchTarget((1, 8, 1), source="environment.yml"),
        id="conda nested pip list",
    ),
    pytest.param(
        {
            "environment.yml": "dependencies:\n  - pip:\n    - pytorch-lightning==1.0\n"
            "    - torchvision==0.9\n  - pytorch=1.8\n"
        },
        TorchTarget((1, 8), source="environment.yml"),
        id="conda pip list ends with its indentation",
    ),
    pytest.param(
        {
            "environment.yml": "dependencies:\n  - pip:\n    - -r deps/torch.txt\n",
            "deps/torch.txt": "torch>=1.7\n",
        },
        TorchTarget((1, 7), source="deps/torch.txt"),
        id="conda pip list include",
    ),
    pytest.param(
        {"environment-gpu.yaml": "dependencies:\n  - pytorch=1.10\n"},
        TorchTarget((1, 10), source="environment-gpu.yaml"),
        id="conda yaml suffix and name",
    ),
]


@pytest.mark.parametrize(
    ("files", "expected"),
    PYPROJECT_CASES + SETUP_CASES + REQUIREMENTS_CASES + PIPFILE_CASES + ENVIRONMENT_CASES,
)
def test_declared_target(
    tmp_path: Path, files: dict[str, str | bytes], expected: TorchTarget | None
) -> None:
    write_tree(tmp_path, files)
    assert declared_target(tmp_path) == expected


# --- declared_target: several files ---


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({}, None, id="no declarations"),
        pytest.param(
            {
                "requirements.txt": "torch>=1.8\n",
                "setup.py": "setup(install_requires=['torch>=1.7'])",
            },
            TorchTarget((1, 7), source="setup.py"),
            id="the lowest version wins",
        ),
        pytest.param(
            {
                "requirements.txt": "torch==1.8.0\n",
                "pyproject.toml": '[project]\ndependencies = ["torch>=1.8"]\n',
            },
            TorchTarget((1, 8), source="pyproject.toml"),
            id="a tie goes to the first file in order",
        ),
        pytest.param(
            {"requirements.txt": "torch\n", "environment.yml": "dependencies:\n  - pytorch=1.8\n"},
            TorchTarget((1, 8), source="environment.yml"),
            id="an unconstrained file does not hide a constrained one",
        ),
        pytest.param(
            {
                "requirements.txt": "torch>=1.7\n",
                "environment.yml": "dependencies:\n  - pytorch<1.9\n",
            },
            TorchTarget((1, 7), source="requirements.txt"),
            id="a lower bound below the upper bound wins",
        ),
        pytest.param(
            {
                "requirements.txt": "torch>=2.0\n",
                "environment.yml": "dependencies:\n  - pytorch<1.9\n",
            },
            TorchTarget((1, 9), below=True, source="environment.yml"),
            id="an upper bound below the lower bound wins",
        ),
        pytest.param(
            {"requirements.txt": "torch>=1.9\ntorch<1.9\n"},
            TorchTarget((1, 9), below=True, source="requirements.txt"),
            id="below a version is lower than the version itself",
        ),
        pytest.param(
            {"pyproject.toml": "[project\n", "requirements.txt": "torch==1.8\n"},
            TorchTarget((1, 8), source="requirements.txt"),
            id="invalid pyproject toml is ignored",
        ),
        pytest.param(
            {
                "setup.py": "setup(install_requires=['torch==1.0'\n",
                "setup.cfg": "[options]\ninstall_requires = torch>=1.8\n",
            },
            TorchTarget((1, 8), source="setup.cfg"),
            id="setup.py with a syntax error is ignored",
        ),
        pytest.param(
            {
                "setup.cfg": "install_requires = torch==1.0\n",
                "Pipfile": "[packages\ntorch = '==1.0'\n",
                "requirements.txt": "torch>=1.8\n",
            },
            TorchTarget((1, 8), source="requirements.txt"),
            id="setup.cfg without sections and invalid Pipfile are ignored",
        ),
        pytest.param(
            {"requirements.txt": b"torch==1.0 \xff\n", "requirements/b.txt": "torch>=1.8\n"},
            TorchTarget((1, 8), source="requirements/b.txt"),
            id="a file that is not utf-8 is ignored",
        ),
    ],
)
def test_declared_target_across_files(
    tmp_path: Path, files: dict[str, str | bytes], expected: TorchTarget | None
) -> None:
    write_tree(tmp_path, files)
    assert declared_target(tmp_path) == expected


def test_declared_target_describes_an_upper_bound(tmp_path: Path) -> None:
    write_tree(tmp_path, {"setup.py": "setup(install_requires=['torch<1.9'])\n"})
    target = declared_target(tmp_path)
    assert target is not None
    assert target.describe() == "torch<1.9 (setup.py)"
    assert target.is_before((1, 9))


# --- installed_target and detect_target ---


@pytest.mark.parametrize(
    ("installed", "expected"),
    [
        pytest.param("1.8.1+cu111", TorchTarget((1, 8, 1), source="installed"), id="local build"),
        pytest.param(None, None, id="not installed"),
        pytest.param("unknown", None, id="unparsable version"),
    ],
)
def test_installed_target(
    monkeypatch: pytest.MonkeyPatch, installed: str | None, expected: TorchTarget | None
) -> None:
    fake_installed(monkeypatch, installed)
    assert installed_target() == expected


@pytest.mark.parametrize(
    ("option", "config", "requirements", "installed", "expected"),
    [
        pytest.param(
            "1.7",
            "1.8",
            "torch==1.9\n",
            "2.0",
            TorchTarget((1, 7), source="--torch-version"),
            id="option beats everything",
        ),
        pytest.param(
            "latest",
            "1.8",
            "torch==1.9\n",
            "2.0",
            TorchTarget(None, source="--torch-version"),
            id="option latest beats everything",
        ),
        pytest.param(
            None,
            "1.8",
            "torch==1.9\n",
            "2.0",
            TorchTarget((1, 8), source="pyproject.toml"),
            id="config beats declarations",
        ),
        pytest.param(
            None,
            None,
            "torch==1.9\n",
            "2.0",
            TorchTarget((1, 9), source="requirements.txt"),
            id="declarations beat installed torch",
        ),
        pytest.param(
            None,
            None,
            "torch\n",
            "2.0.1",
            TorchTarget((2, 0, 1), source="installed"),
            id="installed torch when declarations do not constrain",
        ),
        pytest.param(
            None,
            None,
            None,
            None,
            TorchTarget(None, source="latest"),
            id="latest when nothing is known",
        ),
    ],
)
def test_detect_target_precedence(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    option: str | None,
    config: str | None,
    requirements: str | None,
    installed: str | None,
    expected: TorchTarget,
) -> None:
    if requirements is not None:
        write_tree(tmp_path, {"requirements.txt": requirements})
    fake_installed(monkeypatch, installed)
    assert detect_target(tmp_path, option=option, config=config) == expected


def test_detect_target_names_the_config_source(tmp_path: Path) -> None:
    target = detect_target(tmp_path, config="1.8.1", config_source="workerseed.toml")
    assert target == TorchTarget((1, 8, 1), source="workerseed.toml")


@pytest.mark.parametrize(
    ("option", "config", "message"),
    [
        pytest.param("eight", None, "--torch-version", id="invalid option"),
        pytest.param(None, "eight", "pyproject.toml", id="invalid config value"),
    ],
)
def test_detect_target_rejects_invalid_values(
    tmp_path: Path, option: str | None, config: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        detect_target(tmp_path, option=option, config=config)
