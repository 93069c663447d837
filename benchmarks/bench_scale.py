"""How `workerseed check` grows with project size, and a project made of N repositories
against the N repositories checked separately.

    python benchmarks/bench_scale.py                        # generated trees of 1k..8k files
    python benchmarks/bench_scale.py --sizes 1000,2000 --repeat 3
    python benchmarks/bench_scale.py --union /path/to/corpus  # one sub-directory per repository

Each run is a fresh process (`python -m cli.main check --no-cache`). For every size it prints
the median wall time, the cores used (CPU time / wall time) and the peak resident memory of
the largest process. `--union` copies the repositories of a corpus under one folder with no
project marker (one project, as in a monorepo) and compares it with checking each on its own.
This is a benchmark, not a test: nothing asserts a time. The load average is printed, since
the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_check import generate

HERE = Path(__file__).resolve().parent.parent

#: Everything a project marker can be: removed from the copies that make one project.
_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def measure(paths: list[Path], extra: list[str]) -> tuple[float, float, int]:
    """Return (wall seconds, CPU seconds, peak RSS in MB) of one `check` process."""
    command = [sys.executable, "-m", "cli.main", "check", "--quiet", "--exit-zero", *extra]
    start = time.perf_counter()
    process = subprocess.Popen(
        [*command, *map(str, paths)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=HERE,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    # ru_maxrss of a reaped child covers the children it reaped (the worker processes).
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def median_run(paths: list[Path], extra: list[str], repeat: int) -> tuple[float, float, int]:
    runs = [measure(paths, extra) for _ in range(repeat)]
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    return wall, cpu, max(run[2] for run in runs)


def count_files(paths: list[Path]) -> int:
    return sum(1 for path in paths for _ in path.rglob("*.py"))


def row(label: str, files: int, wall: float, cpu: float, rss: int) -> str:
    return f"{label:28} {files:7,} files {wall:7.2f} s {cpu / wall:5.2f} cores {rss:6,} MB"


def scaling(sizes: list[int], repeat: int, scratch: Path) -> None:
    print("project size (generated trees, cold, --no-cache)")
    for size in sizes:
        root = scratch / f"tree{size}"
        generate(root, size)
        wall, cpu, rss = median_run([root], ["--no-cache"], repeat)
        print(row(f"one project of {size:,}", count_files([root]), wall, cpu, rss), flush=True)
        shutil.rmtree(root)


def union(corpus: Path, repeat: int, scratch: Path) -> None:
    repositories = sorted(path for path in corpus.iterdir() if path.is_dir())
    together = scratch / "union"
    for repository in repositories:
        shutil.copytree(repository, together / repository.name, symlinks=True)
        for marker in _MARKERS:
            found = together / repository.name / marker
            if found.is_dir() and not found.is_symlink():
                shutil.rmtree(found)
            elif found.exists() or found.is_symlink():
                found.unlink()
    files = count_files(repositories)
    wall, cpu, rss = median_run(repositories, ["--no-cache"], repeat)
    print(row(f"{len(repositories)} separate projects", files, wall, cpu, rss), flush=True)
    one_wall, one_cpu, one_rss = median_run([together], ["--no-cache"], repeat)
    print(row("the same as one project", files, one_wall, one_cpu, one_rss))
    print(f"one project / separate: {one_wall / wall:.2f}x time")


def main() -> None:
    # An installed workerseed runs from compiled bytecode: with writing it turned off, every
    # run would also time compiling the tool's own modules (about 0.15 s).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,2000,4000,8000")
    parser.add_argument("--union", type=Path, help="a corpus: one sub-directory per repository")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores; medians of {args.repeat}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        if args.sizes:
            scaling([int(size) for size in args.sizes.split(",")], args.repeat, Path(scratch))
        if args.union is not None:
            union(args.union, args.repeat, Path(scratch))
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
