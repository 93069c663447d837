"""Throughput of `check` on a local Dask cluster with one and with two workers.

    python benchmarks/bench_dask.py /path/to/folder-of-repositories [--workers 1,2] [--skip a,b]

Every sub-directory is one repository; each goes to a Dask worker as one task (`--scheduler`
mode of the engine), with no cache (nothing is written into the repositories). Prints the
repositories and files per second for each cluster size, and the load average, since the
machine may be shared. A benchmark, not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--skip", default="", help="comma-separated directory names to leave out")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from distributed import LocalCluster

    from codemods import Settings, run_paths

    skipped = set(filter(None, args.skip.split(",")))
    repositories = sorted(
        path for path in args.folder.iterdir() if path.is_dir() and path.name not in skipped
    )
    files = sum(1 for repository in repositories for _ in repository.rglob("*.py"))
    print(f"{len(repositories)} repositories, {files:,} files; {os.cpu_count()} cores")
    for workers in (int(count) for count in args.workers.split(",")):
        with LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            settings = Settings(cache=False, scheduler=cluster.scheduler_address)
            load = os.getloadavg()[0]
            start = time.perf_counter()
            results = sum(1 for _ in run_paths(repositories, settings))
            seconds = time.perf_counter() - start
        print(
            f"{workers} worker(s): {seconds:7.1f} s, {len(repositories) / seconds:6.2f} "
            f"repositories/s, {files / seconds:6.0f} files/s ({results} results; "
            f"load {load:.2f} before, {os.getloadavg()[0]:.2f} after)",
            flush=True,
        )


if __name__ == "__main__":
    main()
