"""Loaders that start no workers where the job is distributed
(codemods/analysis/distributed_workers.py), on small inline snippets."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from codemods.analysis.data_parallel import distributed_evidence
from codemods.analysis.distributed_workers import zeroed_when_distributed
from codemods.analysis.extract import extract
from codemods.analysis.loaders import loader_calls
from codemods.analysis.project import Project
from codemods.analysis.runs import entry_modules
from codemods.types import Span, TorchTarget

HEADER = """\
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
"""


def _zeroed_line(body: str) -> int | None:
    """Return the line where the one loader of `body` has its workers set to 0 for the
    distributed runs (None if it may start workers there)."""
    text = HEADER + textwrap.dedent(body)
    path = Path("/project/m.py")
    facts = extract(ast.parse(text), text, path, "m")
    project = Project(Path("/project"), [facts], TorchTarget(None))
    (loader,) = loader_calls(project)
    entries = entry_modules(project, loader.function)
    zeroed = zeroed_when_distributed(project, loader, entries, distributed_evidence(project))
    return None if zeroed is None else zeroed.span.line


BESIDE_SAMPLER = """
def make(dataset, is_ddp, workers):
    if is_ddp:
        sampler = DistributedSampler(dataset)
        num_workers = 0
    else:
        sampler = None
        num_workers = workers
    return DataLoader(dataset, sampler=sampler, num_workers=num_workers)
"""

ON_JOINING = """
def build(opt, dataset):
    return DataLoader(dataset, num_workers=int(opt.workers))

def train(opt, dataset):
    if opt.distributed:
        dist.init_process_group("nccl")
        opt.workers = 0
    loader = build(opt, dataset)
"""


@pytest.mark.parametrize(
    ("body", "line"),
    [
        pytest.param(BESIDE_SAMPLER, 7, id="zero-in-the-arm-making-the-distributed-sampler"),
        pytest.param(
            BESIDE_SAMPLER.replace("if is_ddp:", "if not is_ddp:"),
            7,
            id="negated-test-same-arm",
        ),
        pytest.param(
            BESIDE_SAMPLER.replace("num_workers = 0", "num_workers = 2"),
            None,
            id="workers-in-the-sampler-arm",
        ),
        pytest.param(
            BESIDE_SAMPLER.replace(
                "    return DataLoader", "    num_workers = workers\n    return DataLoader"
            ),
            None,
            id="rebound-after-the-if",
        ),
        pytest.param(
            BESIDE_SAMPLER.replace(
                "        num_workers = 0", "        if workers:\n            num_workers = 0"
            ),
            None,
            id="zero-only-under-a-nested-if",
        ),
        pytest.param(ON_JOINING, 10, id="stored-after-joining-the-group"),
        pytest.param(
            ON_JOINING.replace("opt.workers = 0", "opt.eval_workers = 0"),
            None,
            id="another-setting-stored",
        ),
        pytest.param(
            ON_JOINING.replace(
                "    loader = build(opt, dataset)",
                "    build(opt, dataset)\n    build(cfg, dataset)",
            ),
            None,
            id="also-built-from-another-object",
        ),
        pytest.param(
            ON_JOINING + "    dist.init_process_group('gloo')\n",
            None,
            id="another-group-made-without-the-store",
        ),
    ],
)
def test_workers_zeroed_where_the_job_is_distributed(body: str, line: int | None) -> None:
    assert _zeroed_line(body) == line


def test_every_if_records_its_arms() -> None:
    text = "def f(x):\n    if x == 1:\n        a = 1\n    elif x == 2:\n        a = 2\n"
    facts = extract(ast.parse(text), text, Path("/p/m.py"), "m")
    function = facts.function("f")
    assert function is not None
    assert function.choices == (
        (Span(3, 8, 3, 13), Span(4, 4, 5, 13)),
        (Span(5, 8, 5, 13), None),
    )
