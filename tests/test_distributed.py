"""Repositories analysed on a Dask cluster give exactly the results of a local run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import distributed
import pytest
from fixture_cases import copy_repository, discover_cases

from codemods import Changed, ConfigError, FileResult, Settings, run_paths

CASES = discover_cases()


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    cluster = distributed.LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster:
        yield cluster.scheduler_address


@pytest.fixture
def repositories(tmp_path: Path) -> list[Path]:
    """Thirty fixture repositories side by side, each its own project root."""
    chosen = [case for case in CASES if case.after.exists()][:30]
    return [
        copy_repository(case.before, tmp_path / f"{index:02}-{case.directory.name}")
        for index, case in enumerate(chosen)
    ]


def _summary(results: list[FileResult]) -> list[tuple[str, str, tuple[str, ...], str]]:
    return [
        (
            result.path.as_posix(),
            type(result).__name__,
            tuple(f"{f.span.line}:{f.span.column} {f.code} {f.message}" for f in result.findings)
            if hasattr(result, "findings")
            else (),
            result.new if isinstance(result, Changed) else "",
        )
        for result in results
    ]


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix"])
def test_cluster_results_equal_local_results(
    repositories: list[Path], scheduler: str, fix: bool
) -> None:
    settings = Settings(cache=False, torch_version="1.8", select=("ALL",))
    local = list(run_paths(repositories, replace(settings, jobs=1), fix=fix))
    clustered = list(run_paths(repositories, replace(settings, scheduler=scheduler), fix=fix))
    assert _summary(clustered) == _summary(local)
    assert any(isinstance(result, Changed) for result in local) is fix


def test_a_scheduler_without_the_extra_is_a_configuration_error(
    repositories: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ConfigError, match=r"workerseed\[dask\]"):
        list(run_paths(repositories[:1], Settings(scheduler="tcp://127.0.0.1:1")))
