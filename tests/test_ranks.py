"""Distributed facts (codemods/analysis/ranks.py) on small inline snippets."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from codemods.analysis.data_parallel import distributed_evidence, intends_shared_seeds
from codemods.analysis.extract import extract
from codemods.analysis.project import Project
from codemods.analysis.ranks import RankDependence, torch_seedings
from codemods.types import TorchTarget

HEADER = """\
import argparse, os, time
import torch
import torch.distributed as dist
import pytorch_lightning as pl
from accelerate import Accelerator
from accelerate.utils import set_seed
"""


def _project(body: str) -> Project:
    text = HEADER + textwrap.dedent(body)
    path = Path("/project/m.py")
    facts = extract(ast.parse(text), text, path, "m")
    return Project(Path("/project"), [facts], TorchTarget(None))


@pytest.mark.parametrize(
    ("body", "label"),
    [
        pytest.param("def f():\n    dist.init_process_group('gloo')\n", "init_process_group"),
        pytest.param("def f():\n    return int(os.environ['RANK'])\n", "os.environ['RANK']"),
        pytest.param(
            "def f():\n    return int(os.environ.get('LOCAL_RANK', 0))\n",
            "os.environ.get('LOCAL_RANK')",
            id="environ-get",
        ),
        pytest.param(
            "def f():\n    return os.getenv('SLURM_PROCID')\n", "os.getenv('SLURM_PROCID')"
        ),
        pytest.param("def f():\n    return dist.get_rank()\n", "get_rank"),
        pytest.param(
            "def f():\n    return Accelerator()\n\n\n"
            "def g(state):\n    return state.num_processes\n",
            "Accelerator",
            id="accelerator-on-several-processes",
        ),
        pytest.param(
            "def f():\n    return pl.Trainer(devices=8)\n", "Trainer(...) on several devices"
        ),
        pytest.param(
            "def f():\n    return pl.Trainer(strategy='ddp_find_unused_parameters_true')\n",
            "Trainer(...) on several devices",
            id="trainer-strategy",
        ),
        pytest.param(
            "def f():\n    return pl.Trainer(distributed_backend='ddp')\n",
            "Trainer(...) on several devices",
            id="trainer-distributed-backend",
        ),
        pytest.param(
            "def f(data):\n    return torch.utils.data.DistributedSampler(data)\n",
            "DistributedSampler",
            id="sampler-asks-the-process-group",
        ),
    ],
)
def test_distributed_evidence(body: str, label: str) -> None:
    assert [item.label for item in distributed_evidence(_project(body))] == [label]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("def f():\n    return pl.Trainer(devices=1)\n", id="one-device"),
        pytest.param("def f():\n    return pl.Trainer(devices=cfg.devices)\n", id="config"),
        pytest.param("def f():\n    return os.environ['HOME']\n", id="other-variable"),
        pytest.param("def f(rank):\n    return rank\n", id="a-parameter-is-no-evidence"),
        pytest.param("def f():\n    return Accelerator()\n", id="accelerator-in-one-process"),
        pytest.param(
            "def f(data):\n"
            "    return torch.utils.data.DistributedSampler(data, num_replicas=1, rank=0)\n",
            id="sampler-told-its-replicas",
        ),
    ],
)
def test_no_distributed_evidence(body: str) -> None:
    assert distributed_evidence(_project(body)) == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("def f(args):\n    torch.manual_seed(args.seed)\n", "same", id="config"),
        pytest.param("def f():\n    torch.manual_seed(42)\n", "same", id="constant"),
        pytest.param(
            "def f(args):\n    torch.manual_seed(args.seed + dist.get_rank())\n",
            "per_rank",
            id="plus-rank",
        ),
        pytest.param(
            "def f(local_rank, args):\n    torch.manual_seed(args.seed + local_rank)\n\n"
            "mp.spawn(f, nprocs=2)\n",
            "per_rank",
            id="plus-local-rank",
        ),
        pytest.param(
            "def f(args):\n    torch.manual_seed(args.seed + int(os.environ['RANK']))\n",
            "per_rank",
            id="plus-rank-variable",
        ),
        pytest.param("def f():\n    torch.manual_seed(int(time.time()))\n", "per_rank", id="clock"),
        pytest.param("def f(seed):\n    pl.seed_everything(seed)\n", "same", id="lightning"),
        pytest.param("def f(seed):\n    set_seed(seed)\n", "same", id="accelerate"),
        pytest.param(
            "def f(seed):\n    set_seed(seed, device_specific=True)\n",
            "per_rank",
            id="accelerate-device-specific",
        ),
        pytest.param(
            "parser = argparse.ArgumentParser()\n\n"
            "def f():\n    args = parser.parse_args()\n    torch.manual_seed(args.seed)\n",
            "same",
            id="argparse",
        ),
    ],
)
def test_torch_seeding_rank_dependence(body: str, expected: str) -> None:
    (seeding,) = torch_seedings(_project(body))
    assert seeding.rank is RankDependence(expected)


def test_a_helper_mixing_in_a_rank_nothing_passes_seeds_no_run() -> None:
    body = "def random_seed(seed=42, rank=0):\n    torch.manual_seed(seed + rank)\n"
    assert torch_seedings(_project(body)) == []


def test_seed_everything_with_workers_seeds_workers_per_rank() -> None:
    (seeding,) = torch_seedings(_project("def f():\n    pl.seed_everything(7, workers=True)\n"))
    assert seeding.seeds_workers_per_rank


def test_a_seeding_helper_counts_at_its_call() -> None:
    body = """
    def seed_all(seed):
        torch.manual_seed(seed)

    def main(cfg):
        seed_all(cfg.seed)
    """
    (seeding,) = torch_seedings(_project(body))
    assert (seeding.function.qualname, seeding.label) == ("main", "seed_all")
    assert seeding.rank is RankDependence.SAME


def test_model_parallel_tracker_means_shared_seeds() -> None:
    body = """
    from megatron.core import tensor_parallel

    def f(seed):
        tensor_parallel.model_parallel_cuda_manual_seed(seed)
    """
    assert intends_shared_seeds(_project(body)) is not None
    assert intends_shared_seeds(_project("def f():\n    torch.manual_seed(1)\n")) is None


def test_a_seeding_helper_names_its_own_torch_seeding_call() -> None:
    body = """
    def seed_all(seed):
        torch.manual_seed(seed)

    def main(cfg):
        seed_all(cfg.seed)
    """
    (seeding,) = torch_seedings(_project(body))
    inner = seeding.seeding_call
    assert (inner.function.qualname, inner.label) == ("seed_all", "torch.manual_seed")


@pytest.mark.parametrize(
    ("body", "setting"),
    [
        pytest.param(
            "def f(path):\n    cfg = load(path)\n    torch.manual_seed(cfg.manual_seed)\n",
            "manual_seed",
            id="attribute",
        ),
        pytest.param(
            "def f(path):\n    cfg = load(path)\n    torch.manual_seed(cfg['train']['seed'])\n",
            "seed",
            id="keys",
        ),
        pytest.param(
            "def f(path):\n    cfg = load(path)\n"
            "    for epoch in range(cfg.epochs):\n"
            "        torch.manual_seed(cfg.seed + 7 * epoch)\n",
            "seed",
            id="plus-epoch-counter",
        ),
    ],
)
def test_a_setting_of_an_unseen_configuration_is_assumed_alike(body: str, setting: str) -> None:
    (seeding,) = torch_seedings(_project(body))
    assert seeding.rank is RankDependence.SAME
    assert seeding.assumed_setting == setting


def test_a_setting_stored_per_rank_is_not_assumed_alike() -> None:
    body = """
    def f(path):
        cfg = load(path)
        cfg.seed = cfg.seed + dist.get_rank()
        torch.manual_seed(cfg.seed)
    """
    (seeding,) = torch_seedings(_project(body))
    assert seeding.rank is not RankDependence.SAME


_FALLBACK = """
import random
import numpy as np

def f(path):
    opt = load(path)
    opt = as_namespace(opt)
    seed = opt["train"]["manual_seed"]
    if seed is None:
        seed = {fallback}
    torch.manual_seed({seed})
"""


@pytest.mark.parametrize(
    "fallback",
    [
        pytest.param("random.randint(1, 10000)", id="random"),
        pytest.param("int(np.random.randint(2**31))", id="numpy"),
        pytest.param("int(time.time())", id="clock"),
    ],
)
def test_a_configured_seed_with_a_per_process_fallback_is_alike_where_it_is_set(
    fallback: str,
) -> None:
    (seeding,) = torch_seedings(_project(_FALLBACK.format(fallback=fallback, seed="seed")))
    assert seeding.rank is RankDependence.SAME
    assert seeding.assumed_setting == "manual_seed"
    assert seeding.fallback is not None
    assert seeding.fallback.span is not None
    assert seeding.fallback.span.line == 16


@pytest.mark.parametrize(
    ("fallback", "seed"),
    [
        pytest.param("random.randint(1, 10000)", "seed + opt['rank']", id="plus-rank-setting"),
        pytest.param("random.randint(1, 10000)", "seed + dist.get_rank()", id="plus-get-rank"),
        pytest.param("random.randint(1, 10000) + dist.get_rank()", "seed", id="rank-fallback"),
        pytest.param("torch.randint(1, 10000, ()).item()", "seed", id="torch-draw-fallback"),
    ],
)
def test_a_configured_seed_is_not_assumed_alike_when_the_rank_or_torch_decides(
    fallback: str, seed: str
) -> None:
    (seeding,) = torch_seedings(_project(_FALLBACK.format(fallback=fallback, seed=seed)))
    assert seeding.fallback is None
    assert seeding.rank is not RankDependence.SAME or seeding.assumed_setting is None


@pytest.mark.parametrize(
    ("annotation", "seeds"),
    [
        pytest.param("L.Fabric", True, id="annotated"),
        pytest.param('"L.Fabric"', True, id="annotated-as-a-string"),
        pytest.param('"L.Fabric ("', False, id="a-string-that-is-no-python"),
        pytest.param("object", False, id="another-class"),
    ],
)
def test_fabric_seed_everything_on_an_annotated_parameter(annotation: str, seeds: bool) -> None:
    body = f"import lightning as L\n\ndef main(fabric: {annotation}, seed):\n"
    body += "    fabric.seed_everything(seed)\n"
    seedings = torch_seedings(_project(body))
    assert [seeding.label for seeding in seedings] == (["seed_everything"] if seeds else [])
