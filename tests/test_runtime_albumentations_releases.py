"""Which albumentations transforms draw from NumPy's global RNG, measured on real releases.

WS101 counts an albumentations pipeline (1.4.20 or older) as a NumPy draw only when it applies
a transform that its release draws from NumPy's global RNG (`NUMPY_GLOBAL_TRANSFORMS`). Two
releases are downloaded and exercised here: 1.1.0, whose Perspective, GaussianBlur and
Downscale do, and 1.3.1, where no transform does. On a DataLoader that starts its workers as
torch < 1.9 did (NumPy's state copied, `random` seeded per worker), only the former repeat in
every worker.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from codemods.analysis.numpy_global_transforms import numpy_global_transforms
from codemods.analysis.package_versions import LibraryVersion

PROGRAM = Path(__file__).resolve().parent / "runtime_programs" / "albumentations_numpy_draws.py"
RELEASES = ("1.1.0", "1.3.1")
MEASURED = [
    "Perspective",
    "GaussianBlur",
    "GlassBlur",
    "MultiplicativeNoise",
    "RandomToneCurve",
    "Downscale",
    "HorizontalFlip",
    "ShiftScaleRotate",
    "RandomBrightnessContrast",
    "GaussNoise",
    "CoarseDropout",
    "Blur",
]
#: Stand-ins for what the domain-adaptation transforms import (not measured here).
STUBS = {
    "qudida/__init__.py": "DomainAdapter = object\n",
    "sklearn/__init__.py": "",
    "sklearn/decomposition.py": "PCA = object\n",
    "sklearn/preprocessing.py": "MinMaxScaler = StandardScaler = object\n",
}


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Download each release's wheel and return, per release, the `PYTHONPATH` to run it."""
    root = tmp_path_factory.mktemp("albumentations")
    stubs = root / "stubs"
    for name, text in STUBS.items():
        (stubs / name).parent.mkdir(parents=True, exist_ok=True)
        (stubs / name).write_text(text, encoding="utf-8")
    paths = {}
    for release in RELEASES:
        wheels = root / f"wheel-{release}"
        download = ["download", "--quiet", "--no-deps", "--only-binary", ":all:", "-d"]
        wanted = f"albumentations=={release}"
        subprocess.run([sys.executable, "-m", "pip", *download, str(wheels), wanted], check=True)
        unpacked = root / release
        with zipfile.ZipFile(next(wheels.glob("*.whl"))) as wheel:
            wheel.extractall(unpacked)
        paths[release] = f"{unpacked}:{stubs}"
    return paths


def _run(path: str, mode: str, names: list[str]) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, str(PROGRAM), mode, *names],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": path},
    )
    found: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize("release", RELEASES)
def test_the_catalog_names_the_transforms_that_draw_from_numpy(
    releases: dict[str, str], release: str
) -> None:
    measured = _run(releases[release], "draws", MEASURED)
    version = LibraryVersion("albumentations", tuple(int(part) for part in release.split(".")))
    catalog = numpy_global_transforms(version)
    assert {name for name, draws in measured.items() if draws} == catalog & set(MEASURED)


def test_only_a_numpy_drawing_transform_repeats_in_every_worker_before_torch_1_9(
    releases: dict[str, str],
) -> None:
    old = _run(releases["1.1.0"], "workers", ["Perspective", "ShiftScaleRotate"])
    new = _run(releases["1.3.1"], "workers", ["Perspective", "ShiftScaleRotate"])
    assert old == {"Perspective": 4, "ShiftScaleRotate": 0}
    assert new == {"Perspective": 0, "ShiftScaleRotate": 0}
