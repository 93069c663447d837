"""Whether a pipeline `albumentations.load` reads from a project file draws random numbers.

Each case is one serialised pipeline (as albumentations writes it, old and new formats) in a
one-file project that loads it by a literal path.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from fixture_cases import copy_repository, discover_cases

from codemods import Settings, run_paths
from codemods.analysis.pipeline_files import Drawing, loaded_pipeline_draws
from codemods.analysis.project import Project
from codemods.analysis.refs import FunctionRef
from codemods.summaries import Parsed, summarise_source
from codemods.types import SourceFile, TorchTarget


def _drawing(tmp_path: Path, transforms: list[dict[str, object]], call: str) -> Drawing:
    pipeline = {"__class_fullname__": "Compose", "p": 1.0, "transforms": transforms}
    (tmp_path / "pipeline.json").write_text(
        json.dumps({"__version__": "2.0.8", "transform": pipeline})
    )
    text = f"import albumentations as A\nPIPELINE = {call}\n"
    path = tmp_path / "train.py"
    source = SourceFile(path, text.encode(), text, "utf-8", False, 0o644)
    parsed = summarise_source(source, tmp_path)
    assert isinstance(parsed, Parsed)
    module = parsed.facts
    project = Project(tmp_path, [module], TorchTarget(None))
    code = module.function("<module>")
    assert code is not None
    (assignment,) = [found for found in code.assignments if found.target == "PIPELINE"]
    return loaded_pipeline_draws(project, assignment.value, FunctionRef.of(module, code))


CASES = discover_cases()
RESIZE = {"__class_fullname__": "albumentations.augmentations.transforms.Resize", "p": 1}


@pytest.mark.parametrize(
    ("transforms", "expected"),
    [
        ([RESIZE, {"__class_fullname__": "Normalize", "p": 1.0}], Drawing.FIXED),
        # Old files also say `always_apply`; either makes a transform certain.
        ([{"__class_fullname__": "Resize", "always_apply": True, "p": 0.5}], Drawing.FIXED),
        ([RESIZE, {"__class_fullname__": "HorizontalFlip", "p": 0.5}], Drawing.DRAWS),
        ([{"__class_fullname__": "Normalize", "p": 0.5}], Drawing.DRAWS),
        ([{"__class_fullname__": "Normalize"}], Drawing.DRAWS),  # no `p`: a default may draw
        ([{"__class_fullname__": "OneOf", "p": 1, "transforms": [RESIZE]}], Drawing.DRAWS),
        ([{"__class_fullname__": "Compose", "p": 0.5, "transforms": [RESIZE]}], Drawing.DRAWS),
    ],
)
def test_serialised_transforms(
    tmp_path: Path, transforms: list[dict[str, object]], expected: Drawing
) -> None:
    assert _drawing(tmp_path, transforms, 'A.load("pipeline.json")') is expected


@pytest.mark.parametrize(
    "call",
    [
        'A.load("missing.json")',
        'A.load("pipeline.json", data_format="yaml")',
        "A.load(PATH)",  # an unbound name: unknown
        "A.from_dict({})",
    ],
)
def test_unknown(tmp_path: Path, call: str) -> None:
    assert _drawing(tmp_path, [RESIZE], call) is Drawing.UNKNOWN


def test_a_changed_pipeline_file_is_not_answered_from_the_cache(tmp_path: Path) -> None:
    case = next(
        case for case in CASES if case.id.endswith("/albumentations_loaded_from_json_random")
    )
    repo = copy_repository(case.before, tmp_path / "repo")
    settings = replace(case.settings(), cache=True)
    assert _codes(repo, settings) == ["WS203"]
    fixed = {"__class_fullname__": "Compose", "p": 1.0, "transforms": [RESIZE]}
    (repo / "pipelines" / "train.json").write_text(json.dumps({"transform": fixed}))
    assert _codes(repo, settings) == []


def _codes(repo: Path, settings: Settings) -> list[str]:
    return [
        finding.code
        for result in run_paths([repo], settings)
        for finding in getattr(result, "findings", ())
    ]
