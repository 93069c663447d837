"""The seed-source classifier (codemods/analysis/seeds.py) on small inline snippets."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from codemods.analysis.assignment_origins import assignment_origin
from codemods.analysis.extract import extract
from codemods.analysis.project import Project
from codemods.analysis.refs import FunctionRef
from codemods.analysis.seed_classification import (
    SeedScope,
    Source,
    Verdict,
    seed_sources,
    verdict,
)
from codemods.analysis.seeds import may_exceed_32_bits, seedings
from codemods.types import TorchTarget

HEADER = """\
import os, random, time, uuid
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import get_worker_info
SEED = 42
"""


def _project(body: str) -> tuple[Project, FunctionRef]:
    text = HEADER + textwrap.dedent(body)
    path = Path("/project/m.py")
    facts = extract(ast.parse(text), text, path, "m")
    project = Project(Path("/project"), [facts], TorchTarget(None))
    function = facts.function("wif")
    assert function is not None
    return project, FunctionRef.of(facts, function)


def _sources(body: str) -> frozenset[Source]:
    project, function = _project(body)
    (seeding,) = seedings(project, function)
    assert seeding.seed is not None
    scope = SeedScope(function, worker_param=function.function.params[0])
    return seed_sources(project, seeding.seed, scope)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "def wif(w):\n    np.random.seed(w)\n", {Source.WORKER_ID}, id="worker id alone"
        ),
        pytest.param(
            "def wif(w):\n    random.seed(SEED + w)\n",
            {Source.WORKER_ID, Source.CONSTANT},
            id="module constant plus worker id",
        ),
        pytest.param(
            "def wif(w):\n    s = w * 3\n    t = s + 1\n    torch.manual_seed(t)\n",
            {Source.WORKER_ID, Source.CONSTANT},
            id="follows local variables",
        ),
        pytest.param(
            "def wif(w):\n    np.random.seed(np.random.get_state()[1][0] + w)\n",
            {Source.WORKER_ID, Source.CONSTANT, Source.NUMPY_STATE},
            id="get_state trick",
        ),
        pytest.param(
            "def wif(w):\n    np.random.seed(torch.initial_seed() % 2**32)\n",
            {Source.WORKER_SEED, Source.CONSTANT},
            id="torch initial seed",
        ),
        pytest.param(
            "def wif(w):\n    info = get_worker_info()\n    np.random.seed(info.seed % 2**32)\n",
            {Source.WORKER_SEED, Source.CONSTANT},
            id="worker info seed through a variable",
        ),
        pytest.param(
            "def wif(w):\n    np.random.seed(int(time.time()) + w)\n",
            {Source.CLOCK, Source.WORKER_ID},
            id="clock",
        ),
        pytest.param(
            "args = parse()\ndef wif(w):\n    np.random.seed(args.seed + w)\n",
            {Source.RUN_VALUE, Source.WORKER_ID},
            id="attribute of a module-level object",
        ),
        pytest.param(
            "cfg = make()\ndef wif(w):\n    np.random.seed(cfg.data.local_rank + w)\n",
            {Source.RUN_VALUE, Source.RANK, Source.WORKER_ID},
            id="rank attribute of a module-level object",
        ),
        pytest.param(
            "def wif(w, seed):\n    np.random.seed(seed + w + dist.get_rank())\n",
            {Source.WORKER_ID, Source.PARAMETER, Source.RANK},
            id="partial-bound parameter and rank call",
        ),
        pytest.param(
            "def wif(w):\n    np.random.seed(int(os.environ['LOCAL_RANK']) + w)\n",
            {Source.WORKER_ID, Source.RANK},
            id="rank from the environment",
        ),
        pytest.param(
            "def wif(w):\n    np.random.seed(helper(w))\n\ndef helper(x):\n    return x + 7\n",
            {Source.WORKER_ID, Source.CONSTANT},
            id="follows a project function's return value with its argument",
        ),
        pytest.param(
            "def wif(w):\n    np.random.seed(unknown_call() + w)\n",
            {Source.UNKNOWN, Source.WORKER_ID},
            id="unknown call",
        ),
    ],
)
def test_seed_sources(body: str, expected: set[Source]) -> None:
    assert _sources(body) == expected


@pytest.mark.parametrize(
    ("sources", "version", "expected"),
    [
        pytest.param({Source.WORKER_ID}, None, Verdict.EPOCH_INVARIANT, id="worker id"),
        pytest.param(
            {Source.NUMPY_DRAW, Source.WORKER_ID},
            (1, 8),
            Verdict.EPOCH_INVARIANT,
            id="numpy draw on old torch",
        ),
        pytest.param(
            {Source.NUMPY_DRAW, Source.WORKER_ID},
            (2, 1),
            Verdict.PER_EPOCH,
            id="numpy draw on new torch",
        ),
        pytest.param(
            {Source.NUMPY_STATE, Source.WORKER_ID},
            (2, 1),
            Verdict.EPOCH_INVARIANT,
            id="get_state on new torch",
        ),
        pytest.param({Source.ENTROPY}, None, Verdict.NOT_REPRODUCIBLE, id="entropy"),
        pytest.param({Source.CLOCK}, None, Verdict.CLOCK, id="clock alone"),
        pytest.param({Source.CLOCK, Source.WORKER_ID}, None, Verdict.CLOCK, id="clock and id"),
        pytest.param(
            {Source.CLOCK, Source.WORKER_ID, Source.RANK},
            None,
            Verdict.NOT_REPRODUCIBLE,
            id="clock, id and rank",
        ),
        pytest.param(
            {Source.WORKER_SEED, Source.RANK}, None, Verdict.PER_EPOCH, id="worker seed and rank"
        ),
        pytest.param({Source.UNKNOWN, Source.WORKER_ID}, None, Verdict.UNKNOWN, id="unknown"),
    ],
)
def test_verdict(sources: set[Source], version: tuple[int, int] | None, expected: Verdict) -> None:
    assert verdict(frozenset(sources), TorchTarget(version)) is expected


def test_seedings_find_global_constructor_method_and_project_seeders() -> None:
    project, function = _project(
        """
        def wif(w):
            np.random.seed(w)
            rng = np.random.default_rng(w)
            rng.bit_generator  # not a seeding call
            g = torch.Generator()
            g.manual_seed(w)
            set_seed(w)

        def set_seed(s):
            random.seed(s % 2**32)
            torch.manual_seed(s)
        """
    )
    found = [(seeding.kind.value, seeding.library) for seeding in seedings(project, function)]
    assert found == [
        ("global", "numpy"),
        ("constructor", "numpy.random.default_rng"),
        ("method", ".manual_seed()"),
        ("project_function", "set_seed"),
    ]
    assert seedings(project, function)[-1].seeds == ("random", "torch")


def test_seed_keywords_are_the_seed_of_each_seeder() -> None:
    project, function = _project(
        """
        def wif(w):
            np.random.seed(seed=w)
            random.seed(a=w)
            torch.manual_seed(seed=w)
            np.random.RandomState(seed=w)
        """
    )
    scope = SeedScope(function, worker_param="w")
    found = seedings(project, function)
    assert [seeding.library for seeding in found] == [
        "numpy",
        "random",
        "torch",
        "numpy.random.RandomState",
    ]
    for seeding in found:
        assert seeding.seed is not None
        assert seed_sources(project, seeding.seed, scope) == {Source.WORKER_ID}


def test_worker_seed_beyond_32_bits_is_told_apart_from_a_reduced_one() -> None:
    project, function = _project(
        """
        def wif(w):
            s = torch.initial_seed()
            np.random.seed(s)
            np.random.seed(torch.initial_seed() % 2**32)
        """
    )
    unreduced, reduced = seedings(project, function)
    assert unreduced.seed is not None
    assert reduced.seed is not None
    assert may_exceed_32_bits(assignment_origin(function, unreduced.seed))
    assert not may_exceed_32_bits(reduced.seed)


def test_assignment_origin_stops_at_a_variable_used_for_more_than_seeding() -> None:
    project, function = _project(
        """
        def wif(w):
            shard = w + 1
            np.random.seed(shard)
            print(shard)
        """
    )
    (seeding,) = seedings(project, function)
    assert seeding.seed is not None
    assert assignment_origin(function, seeding.seed, [seeding.seed]) == seeding.seed
    assert assignment_origin(function, seeding.seed) != seeding.seed
