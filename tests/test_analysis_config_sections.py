"""Snippet tests of `config_sections`: what a read of a configuration section's key gives.

Each case is `data.py` of a one-file project whose function `probe` returns the read; the
answer is the int literals the read may give.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods.analysis.config_sections import section_entries
from codemods.analysis.facts import Kind
from codemods.analysis.project import Project
from codemods.analysis.refs import FunctionRef
from codemods.summaries import Parsed, summarise_source
from codemods.types import SourceFile, TorchTarget

HEADER = """\
import easydict


class AttributeDict(dict):
    __getattr__ = dict.__getitem__


class Config:
    image = AttributeDict(size=256, workers=4)
    loader = {"workers": 8, "batch": 32}
    train = AttributeDict(cycle=AttributeDict(epochs=30))
    plain = 5


class Large(Config):
    image = AttributeDict(size=512, workers=6)
"""


def _entries(body: str, qualname: str = "probe") -> set[int | None]:
    text = HEADER + textwrap.dedent(body)
    path = Path("/project/data.py")
    source = SourceFile(path, text.encode(), text, "utf-8", False, 0o644)
    parsed = summarise_source(source, path.parent)
    assert isinstance(parsed, Parsed)
    project = Project(path.parent, [parsed.facts], TorchTarget(None))
    facts = parsed.facts.function(qualname)
    assert facts is not None
    assert facts.returns
    where = FunctionRef.of(parsed.facts, facts)
    return {
        entry.number if entry.kind is Kind.INT else None
        for returned in facts.returns
        for entry, _ in section_entries(project, returned, where)
    }


CASES = [
    pytest.param(
        """
        def probe(cfg):
            return cfg.image.size

        probe(Config())
        """,
        {256},
        id="a key of a section read as an attribute of an instance a caller passes",
    ),
    pytest.param(
        """
        def probe(cfg):
            return cfg.image["workers"]

        probe(Config())
        """,
        {4},
        id="a key of a section read by subscript",
    ),
    pytest.param(
        """
        def probe(cfg):
            return cfg.loader["batch"]

        probe(Config())
        """,
        {32},
        id="a key of a section bound to a dict literal",
    ),
    pytest.param(
        """
        def probe(cfg):
            return cfg.image.workers

        probe(Config())
        probe(Large())
        """,
        {4, 6},
        id="a subclass binding the section again gives its own entries as candidates",
    ),
    pytest.param(
        """
        def probe():
            return Config.train.cycle.epochs
        """,
        {30},
        id="a nested section read from the class itself",
    ),
    pytest.param(
        """
        SETTINGS = easydict.EasyDict(workers=2)

        def probe():
            return SETTINGS.workers
        """,
        {2},
        id="a module-level attribute dict of a library",
    ),
    pytest.param(
        """
        class Options:
            def __init__(self):
                self.loader = dict(workers=3)

        def probe(opts):
            return opts.loader["workers"]

        probe(Options())
        """,
        {3},
        id="a section stored on the instance by __init__",
    ),
    pytest.param(
        """
        def probe(cfg):
            return cfg.image.missing

        probe(Config())
        """,
        set(),
        id="a key no construction spells out gives nothing",
    ),
    pytest.param(
        """
        def probe(cfg):
            return cfg.plain.workers

        probe(Config())
        """,
        set(),
        id="an attribute that is no dict gives nothing",
    ),
    pytest.param(
        """
        class Holder:
            def __init__(self, **entries):
                self.entries = entries

        class Options:
            image = Holder(size=1)

        def probe(opts):
            return opts.image.size

        probe(Options())
        """,
        set(),
        id="a call of a class that is no dict gives nothing",
    ),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_section_entries(body: str, expected: set[int | None]) -> None:
    assert _entries(body) == expected


def test_a_section_of_the_configuration_an_object_holds() -> None:
    body = """
    class Factory:
        def __init__(self, cfg):
            self._cfg = cfg

        def probe(self):
            return self._cfg.image.size

    Factory(Large())
    """
    assert _entries(body, "Factory.probe") == {512}
