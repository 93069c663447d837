"""Time `workerseed check` against `ruff check --select NPY002` on a corpus of repositories.

    python benchmarks/bench_corpus.py /path/to/corpus          # one sub-directory per repository

The corpus is the repositories listed in benchmarks/corpus.txt, cloned side by side. Both
tools see the same files; ruff is only a dependency of this benchmark. workerseed runs cold
(`--no-cache`) and warm (its cache filled by a previous run). Each timing is the best of
`--repeat` runs of a fresh process.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def best_of(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=HERE
        )
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--torch-version", help="passed to workerseed (e.g. 1.8 makes WS101 speak)")
    args = parser.parse_args()
    repositories = sorted(path for path in args.corpus.iterdir() if path.is_dir())
    files = sum(1 for repository in repositories for _ in repository.rglob("*.py"))
    size = sum(
        path.stat().st_size for repository in repositories for path in repository.rglob("*.py")
    )
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    workerseed = [
        sys.executable,
        "-m",
        "cli.main",
        "check",
        "--exit-zero",
        "--quiet",
        *map(str, repositories),
    ]
    if args.torch_version:
        workerseed += ["--torch-version", args.torch_version]
    timings = {
        "ruff --select NPY002 --no-cache": best_of(
            [
                ruff,
                "check",
                "--select",
                "NPY002",
                "--no-cache",
                "--exit-zero",
                "--quiet",
                str(args.corpus),
            ],
            args.repeat,
        ),
        "workerseed check --no-cache": best_of([*workerseed, "--no-cache"], args.repeat),
    }
    subprocess.run(workerseed, check=False, stdout=subprocess.DEVNULL, cwd=HERE)  # fill the cache
    timings["workerseed check (warm cache)"] = best_of(workerseed, args.repeat)
    print(f"{len(repositories)} repositories, {files} files, {size / 1e6:.1f} MB")
    reference = timings["ruff --select NPY002 --no-cache"]
    for name, seconds in timings.items():
        rate, ratio = files / seconds, seconds / reference
        print(f"{name:34} {seconds:6.2f} s  {rate:8,.0f} files/s  ratio {ratio:5.2f}")


if __name__ == "__main__":
    main()
