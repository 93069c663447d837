"""The code fixes insert, written once so every rule inserts the same helpers."""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.facts import FunctionFacts, ModuleFacts
from ..types import AddImport
from .imports import Reference, module_reference


@dataclass(frozen=True)
class SeedingNames:
    """How a module refers to torch, numpy.random and random, and the imports that needs."""

    torch: str
    numpy_random: str
    random: str
    imports: tuple[AddImport, ...]


def seeding_names(module: ModuleFacts, function: FunctionFacts | None = None) -> SeedingNames:
    """Return the names to use for torch, numpy.random and random in `module` (in `function`)."""
    avoid = _local_names(function)
    references: list[Reference] = [
        module_reference(module, "torch", "torch", avoid=avoid),
        numpy_random_reference(module, avoid=avoid),
        module_reference(module, "random", "random", avoid=avoid),
    ]
    torch, numpy_random, random = (reference.expression for reference in references)
    imports = tuple(item for reference in references for item in reference.imports)
    return SeedingNames(torch, numpy_random, random, imports)


def numpy_random_reference(module: ModuleFacts, *, avoid: frozenset[str]) -> Reference:
    """Return how to spell `numpy.random`: an existing alias such as `npr`, or via numpy."""
    existing = module_reference(module, "numpy.random", "npr", avoid=avoid)
    if not existing.imports:
        return existing
    numpy = module_reference(module, "numpy", "np", avoid=avoid)
    return Reference(f"{numpy.expression}.random", numpy.imports)


def _local_names(function: FunctionFacts | None) -> frozenset[str]:
    if function is None or function.qualname == "<module>":
        return frozenset()
    return frozenset(function.params) | frozenset(
        assignment.target for assignment in function.assignments if "." not in assignment.target
    )


def worker_seed_expression(names: SeedingNames) -> str:
    """Return the expression for a per-worker, per-epoch seed that NumPy's legacy RNG accepts."""
    return f"{names.torch}.initial_seed() % 2**32"


def seed_worker_function(name: str, names: SeedingNames) -> str:
    """Return a module-level `worker_init_fn` that seeds NumPy and `random` per worker."""
    return f'''
def {name}(worker_id: int) -> None:
    """Seed NumPy and `random` in each DataLoader worker from torch's per-worker seed."""
    worker_seed = {worker_seed_expression(names)}
    {names.numpy_random}.seed(worker_seed)
    {names.random}.seed(worker_seed)
'''


def seeding_statements(names: SeedingNames) -> str:
    """Return statements that seed NumPy and `random` from torch's per-worker seed."""
    seed = worker_seed_expression(names)
    return f"{names.numpy_random}.seed({seed})\n{names.random}.seed({seed})\n"
