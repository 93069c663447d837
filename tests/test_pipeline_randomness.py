"""Which augmentation pipelines draw random numbers (WS203 reports only those).

Each case is one module-level `PIPELINE = ...` of a one-file project and whether building it
makes anything random per call.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods.analysis.pipeline_randomness import builds_random_pipeline
from codemods.analysis.project import Project
from codemods.analysis.refs import FunctionRef
from codemods.summaries import Parsed, summarise_source
from codemods.types import SourceFile, TorchTarget

HEADER = """\
import albumentations as A
import imgaug.augmenters as iaa
"""


def _draws(expression: str) -> bool:
    text = HEADER + textwrap.dedent(f"PIPELINE = {expression}\n")
    path = Path("/project/pipelines.py")
    source = SourceFile(path, text.encode(), text, "utf-8", False, 0o644)
    parsed = summarise_source(source, path.parent)
    assert isinstance(parsed, Parsed)
    module = parsed.facts
    project = Project(path.parent, [module], TorchTarget(None))
    code = module.function("<module>")
    assert code is not None
    (assignment,) = [found for found in code.assignments if found.target == "PIPELINE"]
    return builds_random_pipeline(project, assignment.value, FunctionRef.of(module, code))


@pytest.mark.parametrize(
    "expression",
    [
        "iaa.Sequential([iaa.PadToAspectRatio(1.0).to_deterministic()])",
        "iaa.Sequential([iaa.Fliplr(0.5).to_deterministic(), iaa.Add((-5, 5)).to_deterministic()])",
        "iaa.Sequential([iaa.CenterPadToSquare(), iaa.Resize(128), iaa.Identity()])",
        "iaa.Sequential([iaa.Resize({'height': 64, 'width': 'keep-aspect-ratio'})])",
        "iaa.Sequential([iaa.PadToAspectRatio(1.0, position='center-center')])",
        "iaa.Sequential(iaa.CenterCropToFixedSize(32, 32), random_order=False)",
        "A.Compose([A.CenterCrop(32, 32, p=1), A.Normalize(p=1.0)])",
    ],
)
def test_pipelines_that_draw_nothing(expression: str) -> None:
    assert not _draws(expression)


@pytest.mark.parametrize(
    "expression",
    [
        "iaa.Sequential([iaa.Fliplr(0.5)])",
        "iaa.Sequential([iaa.Resize((0.5, 1.5))])",
        "iaa.Sequential([iaa.Resize([64, 128])])",
        "iaa.Sequential([iaa.PadToAspectRatio(1.0)])",
        "iaa.Sequential([iaa.PadToAspectRatio(1.0, position='uniform')])",
        "iaa.Sequential([iaa.Resize(64), iaa.CenterCropToSquare()], random_order=True)",
        "iaa.Sequential([iaa.CenterPadToSquare(pad_mode=['constant', 'edge'])])",
        "iaa.SomeOf(1, [iaa.Resize(64), iaa.Identity()])",
        "A.Compose([A.CenterCrop(32, 32, p=0.5)])",
    ],
)
def test_pipelines_that_draw(expression: str) -> None:
    assert _draws(expression)
