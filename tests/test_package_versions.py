"""Library version detection (WS203's albumentations / imgaug / MONAI versions), per source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main
from codemods.analysis.package_versions import LibraryVersion, detect_library, parse_override

ALBUMENTATIONS = ("albumentations", "albumentationsx")


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _detect(root: Path, *overrides: tuple[str, str, str]) -> str:
    return detect_library(root, ALBUMENTATIONS, overrides).describe()


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "requirements.txt",
            "albumentations==1.4.24\n",
            "albumentations 1.4.24 (requirements.txt)",
        ),
        (
            "requirements.txt",
            "albumentations>=1.3.0\n",
            "albumentations 1.3.0 (requirements.txt)",
        ),
        # The lowest release admitted, as for torch; a bound alone stands for the newest.
        (
            "requirements.txt",
            "albumentations>=1.1.0,<2\n",
            "albumentations 1.1.0 (requirements.txt)",
        ),
        (
            "requirements.txt",
            "albumentations\n",
            "albumentations 2.0.8 (newest release admitted by requirements.txt)",
        ),
        (
            "requirements.txt",
            "albumentations~=1.4.22\n",
            "albumentations 1.4.22 (requirements.txt)",
        ),
        ("requirements.txt", "albumentations<1.4.21\n", "albumentations<1.4.21 (requirements.txt)"),
        (
            "requirements-train.txt",
            "albumentationsx==2.2.6\n",
            "albumentationsx 2.2.6 (requirements-train.txt)",
        ),
        (
            "pyproject.toml",
            '[tool.poetry.dependencies]\nalbumentations = "^1.3.0"\n',
            "albumentations 1.3.0 (pyproject.toml)",
        ),
        (
            "pyproject.toml",
            '[project]\nname = "x"\ndependencies = ["albumentations==2.0.8"]\n',
            "albumentations 2.0.8 (pyproject.toml)",
        ),
        (
            "setup.py",
            'from setuptools import setup\nsetup(install_requires=["albumentations==1.3.1"])\n',
            "albumentations 1.3.1 (setup.py)",
        ),
        (
            "setup.cfg",
            "[options]\ninstall_requires =\n    albumentations==1.4.18\n",
            "albumentations 1.4.18 (setup.cfg)",
        ),
        (
            "environment.yml",
            "dependencies:\n  - albumentations=1.3.1\n",
            "albumentations 1.3.1 (environment.yml)",
        ),
        (
            "environment.yml",
            "dependencies:\n  - pip\n  - pip:\n    - albumentations==2.0.8\n",
            "albumentations 2.0.8 (environment.yml)",
        ),
        ("Pipfile", '[packages]\nalbumentations = "==1.4.21"\n', "albumentations 1.4.21 (Pipfile)"),
        (
            "poetry.lock",
            '[[package]]\nname = "albumentations"\nversion = "1.4.3"\n',
            "albumentations 1.4.3 (poetry.lock)",
        ),
        (
            "Pipfile.lock",
            '{"default": {"albumentations": {"version": "==2.0.5"}}}',
            "albumentations 2.0.5 (Pipfile.lock)",
        ),
    ],
)
def test_each_declaration_format(tmp_path: Path, name: str, text: str, expected: str) -> None:
    _write(tmp_path, name, text)
    assert _detect(tmp_path) == expected


def test_a_notebook_pip_install(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "source": ["!pip install -U albumentations==1.4.24 timm\n"]}
    _write(tmp_path, "notebooks/train.ipynb", json.dumps({"cells": [cell]}))
    assert _detect(tmp_path) == "albumentations 1.4.24 (notebooks/train.ipynb)"
    _write(tmp_path, "requirements.txt", "albumentations==1.3.1\n")
    assert _detect(tmp_path) == "albumentations 1.3.1 (requirements.txt)"


def test_a_declaration_wins_over_the_lock_file(tmp_path: Path) -> None:
    _write(tmp_path, "uv.lock", '[[package]]\nname = "albumentations"\nversion = "1.4.24"\n')
    assert _detect(tmp_path) == "albumentations 1.4.24 (uv.lock)"
    _write(tmp_path, "pyproject.toml", '[project]\ndependencies = ["albumentations>=1.3.1"]\n')
    assert _detect(tmp_path) == "albumentations 1.3.1 (pyproject.toml)"


def test_an_override_wins_and_names_its_source(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "albumentations==1.3.1\n")
    override = ("albumentations", "2.0.8", "--library-version")
    assert _detect(tmp_path, override) == "albumentations 2.0.8 (--library-version)"


def test_without_declarations_the_installed_or_newest_release(tmp_path: Path) -> None:
    found = detect_library(tmp_path, ("imgaug",))
    assert found in (
        LibraryVersion("imgaug", (0, 4, 0), source="newest release"),
        LibraryVersion("imgaug", found.version, source="installed"),
    )


def test_bands() -> None:
    assert LibraryVersion("albumentations", (2, 0, 8)).within((1, 4, 21), (2, 0, 9))
    assert not LibraryVersion("albumentations", (1, 4, 20)).within((1, 4, 21), (2, 0, 9))
    assert LibraryVersion("albumentations", (1, 5), below=True).within((1, 4, 21), (2, 0, 9))
    assert not LibraryVersion("albumentations", (1, 4, 21), below=True).within((1, 4, 21), None)


@pytest.mark.parametrize("text", ["albumentations", "albumentations==", "==2.0.8", "a==x.y"])
def test_malformed_override(text: str) -> None:
    with pytest.raises(ValueError, match="library-version"):
        parse_override(text, "--library-version")


SOURCE = """\
import albumentations as A
from torch.utils.data import DataLoader, Dataset


class Tiles(Dataset):
    def __init__(self):
        self.augment = A.Compose([A.HorizontalFlip()])

    def __getitem__(self, index):
        return self.augment(image=index)


loader = DataLoader(Tiles(), num_workers=2)
"""


def _check(root: Path, *options: str) -> str:
    result = CliRunner().invoke(main, ["check", "--no-cache", *options, str(root)])
    return result.output


def test_option_and_configuration(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "data.py", SOURCE)
    _write(tmp_path, "requirements.txt", "albumentations==1.3.1\n")
    assert "WS203" not in _check(tmp_path)
    assert "albumentations 2.0.8 (--library-version)" in _check(
        tmp_path, "--library-version", "albumentations==2.0.8"
    )
    _write(
        tmp_path,
        "pyproject.toml",
        "[tool.workerseed]\n"
        'library-versions = {albumentationsx = "2.2.0", albumentations = "1.4.22"}\n',
    )
    assert "albumentations 1.4.22 (pyproject.toml)" in _check(tmp_path)
    assert "albumentations 2.0.8 (--library-version)" in _check(
        tmp_path, "--library-version", "albumentations==2.0.8"
    )


def test_invalid_option_and_configuration(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "data.py", SOURCE)
    result = CliRunner().invoke(
        main, ["check", "--library-version", "albumentations", str(tmp_path)]
    )
    assert result.exit_code == 2
    _write(
        tmp_path, "pyproject.toml", "[tool.workerseed]\nlibrary-versions = {albumentations = 2}\n"
    )
    result = CliRunner().invoke(main, ["check", "--no-cache", str(tmp_path)])
    assert result.exit_code == 2
    assert "library-versions" in result.output


IMGAUG_SOURCE = """\
from imgaug import augmenters as iaa
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __init__(self):
        self.augmenter = iaa.Fliplr(0.5)

    def __getitem__(self, index):
        return self.augmenter.augment_image(index)


loader = DataLoader(Frames(), num_workers=2)
"""


def test_a_finding_resting_on_the_newest_release_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "data.py", IMGAUG_SOURCE)
    if detect_library(tmp_path, ("imgaug",)).source != "newest release":
        pytest.skip("imgaug is installed here")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", str(tmp_path)])
    findings = [item for item in json.loads(result.output) if item["code"] == "WS203"]
    assert [item["severity"] for item in findings] == ["warning"]
    _write(tmp_path, "requirements.txt", "imgaug==0.4.0\n")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", str(tmp_path)])
    findings = [item for item in json.loads(result.output) if item["code"] == "WS203"]
    assert [item["severity"] for item in findings] == ["error"]
