"""Time `workerseed check thatfile.py` after one file of a repository changed (warm cache).

    python benchmarks/bench_edit.py /path/to/repository --file pkg/data.py --file tests/x.py
    python benchmarks/bench_edit.py /path/to/repository --file pkg/data.py --repeat 5

The repository is copied to a scratch folder (the original is never written), checked once
to fill the cache, and then, for each repetition, the file is edited and `check thatfile.py`
runs in a fresh process: the pre-commit case. Two edits are timed: a comment line appended
(no line moves), and a comment line put first (every line of the file moves). A file no
question of the analysis reads is answered from the record of the last full run after
either. A file the analysis reads (a Dataset, a training script) is summarised again: an
edit that leaves what the analysis read of it unchanged (the appended comment) is answered
from the record too; one that moves its lines is analysed again with the whole project.
Next to it: ruff `--select NPY002 --no-cache` on the same file, if ruff is installed. This is
a benchmark, not a test: nothing asserts a time. The load average is printed, since the
machine may be shared.
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

HERE = Path(__file__).resolve().parent.parent


def measure(command: list[str], cwd: Path) -> tuple[float, float]:
    """Return (wall seconds, CPU seconds) of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def workerseed(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "cli.main", "check", "--quiet", "--exit-zero", *arguments]


def ruff() -> str | None:
    found = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    return found if Path(found).exists() else None


def row(label: str, runs: list[tuple[float, float]]) -> str:
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    return f"{label:60} {wall:7.2f} s wall {cpu:7.2f} s CPU (median of {len(runs)})"


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)


def _prepend(path: Path, line: str) -> None:
    path.write_text(line + path.read_text(encoding="utf-8"), encoding="utf-8")


def main() -> None:
    # An installed workerseed runs from compiled bytecode: with writing it turned off, every
    # run would also time compiling the tool's own modules (about 0.15 s).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("repository", type=Path)
    parser.add_argument("--file", action="append", required=True, help="relative; repeatable")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    linter = ruff()
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / args.repository.name
        shutil.copytree(args.repository, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        cold = measure(workerseed("."), copy)
        print(row("cold check of the whole repository", [cold]), flush=True)
        # The first warm run after the cold one also confirms, by content, the files the
        # copy wrote just before the cache: shown on its own line.
        warm = [measure(workerseed("."), copy) for _ in range(args.repeat + 1)]
        print(row("warm, nothing changed, first run", warm[:1]), flush=True)
        print(row("warm, nothing changed, then", warm[1:]), flush=True)
        for relative in args.file:
            path = copy / relative
            for edit, label in ((_append, "comment appended"), (_prepend, "lines moved")):
                runs = []
                for repetition in range(args.repeat):
                    edit(path, f"# edited {repetition} {time.time_ns()}\n")
                    runs.append(measure(workerseed(relative), copy))
                print(row(f"{label}, then check {relative}", runs), flush=True)
            if linter is not None:
                command = [linter, "check", "--select", "NPY002", "--no-cache", relative]
                reference = [measure(command, copy) for _ in range(args.repeat)]
                print(row("  ruff --select NPY002 --no-cache, same file", reference), flush=True)
        if linter is None:
            print("(ruff is not installed: no reference)")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
