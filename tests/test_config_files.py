"""What the analysis reads from a project's YAML configuration files."""

from __future__ import annotations

from pathlib import Path

from codemods.analysis.config_files import config_values
from codemods.analysis.project import Project
from codemods.types import TorchTarget


def _values(tmp_path: Path, text: str, keys: tuple[str, ...]) -> list[tuple[str, str]]:
    (tmp_path / "run.yaml").write_text(text)
    project = Project(tmp_path, [], TorchTarget(None))
    return [(path.name, value) for path, value in config_values(project, keys)]


def test_tagged_nodes_read_as_their_plain_data(tmp_path: Path) -> None:
    text = (
        "general:\n"
        "  mode: ddp\n"
        "  size: !!python/tuple [512, 512]\n"
        "  lr: !!python/float 1e-4\n"
        "  head: !Custom {layers: 2}\n"
    )
    assert _values(tmp_path, text, ("general", "mode")) == [("run.yaml", "ddp")]
    assert _values(tmp_path, text, ("general", "lr")) == [("run.yaml", "1e-4")]


def test_tags_that_name_python_objects_construct_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "constructed"
    text = (
        "mode: ddp\n"
        f"hook: !!python/object/apply:pathlib.Path.touch [!!python/object/apply:pathlib.Path"
        f" ['{marker}']]\n"
    )
    assert _values(tmp_path, text, ("mode",)) == [("run.yaml", "ddp")]
    assert not marker.exists()
