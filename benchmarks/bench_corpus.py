"""Time `workerseed check` against `ruff check --select NPY002` on a corpus of repositories.

    python benchmarks/bench_corpus.py /path/to/corpus          # one sub-directory per repository
    python benchmarks/bench_corpus.py /path/to/corpus --verify # and compare with no shortcuts

The corpus is the repositories listed in benchmarks/corpus.txt, cloned side by side. Both
tools see the same files; ruff is only a dependency of this benchmark. workerseed runs cold
(`--no-cache`) and warm (its cache filled by a previous run). Each timing is the best of
`--repeat` runs of a fresh process; the median is shown. The floor is what no
exact analysis can avoid: start-up (`--version`), plus `ast.parse` of exactly the files a cold
`check` parses, spread over every core. `--verify` also checks that every repository's findings
(all rules) are the same with every shortcut turned off: no speed trick may change a finding.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def best_of(command: list[str], repeat: int) -> float:
    """Return the median wall time of `repeat` runs of `command` (the machine may be shared)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=HERE
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


_PARSE_ALL = """
import ast, os, sys, warnings
from concurrent.futures import ProcessPoolExecutor

def parse(path):
    with open(path, "rb") as handle, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ast.parse(handle.read())

if __name__ == "__main__":
    paths = open(sys.argv[1]).read().split("\\0")
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(parse, paths, chunksize=max(1, len(paths) // (8 * os.cpu_count()))))
"""


def parsed_files(repositories: list[Path], torch_version: str | None) -> list[Path]:
    """Return the files a cold `check` parses (every parse goes through `summaries._parse`)."""
    sys.path.insert(0, str(HERE))
    from codemods import Settings, run_paths, summaries

    parsed: set[Path] = set()
    original = summaries._parse

    def recording(text: str, path: Path) -> tuple[ast.Module, bool]:
        parsed.add(path)
        return original(text, path)

    summaries._parse = recording
    try:
        settings = Settings(cache=False, jobs=1, torch_version=torch_version)
        for _ in run_paths(repositories, settings):
            pass
    finally:
        summaries._parse = original
    return sorted(parsed)


def floor(repositories: list[Path], torch_version: str | None, repeat: int) -> tuple[float, int]:
    """Return the floor of a cold run: start-up, plus `ast.parse` of exactly the files the
    analysis parses spread over every core (as a fresh process), and how many those are."""
    paths = parsed_files(repositories, torch_version)
    with tempfile.TemporaryDirectory() as scratch:
        listing = Path(scratch) / "paths"
        listing.write_text("\0".join(map(str, paths)))
        script = Path(scratch) / "parse_all.py"
        script.write_text(_PARSE_ALL)
        parse = best_of([sys.executable, str(script), str(listing)], repeat)
    start_up = best_of([sys.executable, "-m", "cli.main", "--version"], repeat)
    return start_up + parse, len(paths)


def main() -> None:
    # An installed workerseed runs from compiled bytecode: with writing it turned off, every
    # run would also time compiling the tool's own modules (about 0.15 s).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--torch-version", help="passed to workerseed (e.g. 1.8 makes WS101 speak)")
    parser.add_argument(
        "--verify", action="store_true", help="compare findings with every shortcut off"
    )
    args = parser.parse_args()
    load = f"{os.getloadavg()[0]:.2f}"
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
    lowest, parsed = floor(repositories, args.torch_version, args.repeat)
    timings["floor: start-up + parallel ast.parse"] = lowest
    print(f"{len(repositories)} repositories, {files} files, {size / 1e6:.1f} MB")
    print(f"a cold check parses {parsed} files; {os.cpu_count()} cores, load {load}")
    reference = timings["ruff --select NPY002 --no-cache"]
    for name, seconds in timings.items():
        rate, ratio = files / seconds, seconds / reference
        print(f"{name:38} {seconds:6.2f} s  {rate:8,.0f} files/s  ratio {ratio:5.2f}")
    cold = timings["workerseed check --no-cache"]
    print(f"cold check / floor: {cold / lowest:.2f}; load now {os.getloadavg()[0]:.2f}")
    if args.verify:
        for repository in repositories:
            print(f"{repository.name}: {verify(repository, args.torch_version)}", flush=True)


def verify(repository: Path, torch_version: str | None) -> str:
    """Return how the findings with and without shortcuts compare, for every rule."""
    sys.path.insert(0, str(HERE))
    from codemods import Settings, run_paths

    def findings(settings: Settings) -> list[str]:
        return sorted(
            f"{finding.path}:{finding.span} {finding.code} {finding.message}"
            for result in run_paths([repository], settings)
            for finding in getattr(result, "findings", ())
        )

    settings = Settings(cache=False, jobs=1, select=("ALL",), torch_version=torch_version)
    fast = findings(settings)
    reference = findings(replace(settings, prefilter=False))
    if fast == reference:
        return f"same {len(fast)} findings with and without shortcuts"
    return f"DIFFERENT: {len(fast)} findings, {len(reference)} without shortcuts"


if __name__ == "__main__":
    main()
