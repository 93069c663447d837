"""Run a program before and after `workerseed fix` with a real torch DataLoader.

A runtime program is a module under tests/runtime_programs/ that defines
`make_loader(num_workers, **options)`; its Dataset returns one random float per item. The
harness writes the program twice (each copy its own repository), fixes one copy with the
engine, imports both, and iterates their loaders for several epochs. DataLoader hands out
batches round-robin (in order), so batch `k` of an epoch comes from worker
`k % num_workers`: the values alone tell which worker drew what.
"""

from __future__ import annotations

import importlib
import itertools
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from codemods import Changed, Settings, run_paths
from codemods.files import write_atomic

PROGRAMS = Path(__file__).resolve().parent / "runtime_programs"
_counter = itertools.count()


@dataclass(frozen=True)
class Draw:
    epoch: int
    worker: int
    value: float


@dataclass(frozen=True)
class Pair:
    """A program as written (`before`) and as fixed by the engine (`after`)."""

    before: ModuleType
    after: ModuleType
    fixed_source: str
    original_source: str


def _write_repository(directory: Path, name: str, source: str) -> Path:
    directory.mkdir(parents=True)
    (directory / ".git").mkdir()
    path = directory / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def _import(directory: Path, name: str) -> ModuleType:
    # On sys.path, so that spawned workers can import the module by name too.
    sys.path.insert(0, str(directory))
    return importlib.import_module(name)


def fix_and_import(program: str, tmp_path: Path, settings: Settings) -> Pair:
    """Fix tests/runtime_programs/<program>.py with `settings`; import both versions."""
    source = (PROGRAMS / f"{program}.py").read_text(encoding="utf-8")
    unique = f"{program}_{next(_counter)}_{tmp_path.name}".replace("-", "_")
    _write_repository(tmp_path / "before", f"{unique}_before", source)
    after_path = _write_repository(tmp_path / "after", f"{unique}_after", source)
    results = list(run_paths([after_path.parent], settings, fix=True))
    changed = [result for result in results if isinstance(result, Changed)]
    assert changed, f"the engine did not change {program}: {results}"
    for result in changed:
        write_atomic(result.source, result.new)
    return Pair(
        before=_import(tmp_path / "before", f"{unique}_before"),
        after=_import(tmp_path / "after", f"{unique}_after"),
        fixed_source=after_path.read_text(encoding="utf-8"),
        original_source=source,
    )


def _floats(batch: Any) -> Iterator[float]:
    if isinstance(batch, torch.Tensor):
        yield from (float(value) for value in batch.flatten().tolist())
    elif isinstance(batch, list | tuple):
        for item in batch:
            yield from _floats(item)
    else:
        yield float(batch)


def collect(
    module: ModuleType, *, num_workers: int, epochs: int = 3, seed: int | None = 0, **options: Any
) -> list[Draw]:
    """Iterate `module.make_loader(num_workers, **options)` for `epochs`; return every draw."""
    if seed is not None:
        torch.manual_seed(seed)
    loader = module.make_loader(num_workers, **options)
    draws: list[Draw] = []
    for epoch in range(epochs):
        for index, batch in enumerate(loader):
            worker = index % num_workers if num_workers else 0
            draws.extend(Draw(epoch, worker, value) for value in _floats(batch))
    return draws


def duplicated_across_workers(draws: list[Draw]) -> int:
    """Count draws whose value another worker also drew in the same epoch."""
    workers_by_value: dict[tuple[int, float], set[int]] = {}
    for draw in draws:
        workers_by_value.setdefault((draw.epoch, draw.value), set()).add(draw.worker)
    return sum(len(workers_by_value[(draw.epoch, draw.value)]) > 1 for draw in draws)


def repeated_across_epochs(draws: list[Draw]) -> int:
    """Count draws of later epochs whose value an earlier epoch already drew."""
    seen: set[float] = set()
    repeats = 0
    for epoch in sorted({draw.epoch for draw in draws}):
        current = [draw.value for draw in draws if draw.epoch == epoch]
        repeats += sum(value in seen for value in current)
        seen.update(current)
    return repeats


def values(draws: list[Draw]) -> list[tuple[int, float]]:
    """Return the (epoch, value) stream, for comparing runs."""
    return [(draw.epoch, draw.value) for draw in draws]


class Programs:
    """Fixes each program once (with `settings`) and caches the draws of each run."""

    def __init__(self, factory: Any, settings: Settings) -> None:
        #: A pytest.TempPathFactory.
        self._factory = factory
        self._settings = settings
        self._pairs: dict[str, Pair] = {}
        self._draws: dict[tuple[str, str, tuple[tuple[str, Any], ...]], list[Draw]] = {}

    def pair(self, program: str) -> Pair:
        if program not in self._pairs:
            directory = self._factory.mktemp(program)
            self._pairs[program] = fix_and_import(program, directory, self._settings)
        return self._pairs[program]

    def draws(self, program: str, version: str, **options: Any) -> list[Draw]:
        key = (program, version, tuple(sorted(options.items())))
        if key not in self._draws:
            pair = self.pair(program)
            module = pair.before if version == "before" else pair.after
            self._draws[key] = collect(module, **options)
        return self._draws[key]
