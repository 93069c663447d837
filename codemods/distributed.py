"""Where the repositories of a run are analysed: worker processes here, or a Dask cluster.

A repository is the unit of work: its analysis reads the repository's files and returns
its per-file results. Locally, repositories go to a process pool. With a scheduler
address, they go to the workers of a Dask cluster (the optional `workerseed[dask]` extra),
which must have workerseed installed and see the repositories at the same paths (a shared
filesystem, as is usual for Dask on a cluster).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import Executor

from .settings import ConfigError

INSTALL_HINT = "install the Dask extra: pip install 'workerseed[dask]'"


@contextlib.contextmanager
def executor(scheduler: str | None, workers: int) -> Iterator[Executor]:
    """Yield an executor for analysing repositories: a Dask cluster's, or local processes."""
    if scheduler is None:
        # Imported here: multiprocessing costs start-up time a run from the cache never needs.
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers) as pool:
            yield pool
        return
    try:
        from distributed import Client
    except ImportError as error:
        raise ConfigError(f"--scheduler {scheduler}: {INSTALL_HINT}") from error
    try:
        client = Client(scheduler, timeout="30s", set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as error:
        raise ConfigError(f"--scheduler {scheduler}: cannot connect: {error}") from error
    with client:
        yield client.get_executor()  # type: ignore[no-untyped-call]
