"""Where code draws from, or reseeds, a global random number generator."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from . import catalog
from .datasets import Reached, per_item_code, reachable
from .facts import Value
from .project import ClassRef, FunctionRef, Project


@dataclass(frozen=True)
class GlobalCall:
    """A call to a global-RNG function in code a worker runs."""

    reached: Reached
    call: Value
    #: The qualified name called, e.g. "numpy.random.rand".
    qualname: str

    @property
    def function(self) -> FunctionRef:
        """Return the function that makes the call."""
        return self.reached.function


def calls_to(
    project: Project, functions: Iterable[Reached], wanted: frozenset[str]
) -> Iterator[GlobalCall]:
    """Yield the calls in `functions` whose callee certainly is one of `wanted`."""
    for reached in functions:
        module = reached.function.module
        for call in reached.function.function.calls:
            if call.base is None:
                continue
            names = project.qualnames(call.base, module) & wanted
            if names:
                yield GlobalCall(reached, call, min(names))


NUMPY_GLOBAL_DRAWS = frozenset(
    f"{module}.{name}"
    for module in catalog.NUMPY_RANDOM_MODULES
    for name in catalog.NUMPY_LEGACY_DRAWS
)
NUMPY_GLOBAL_SEED = frozenset(
    f"{module}.seed" for module in catalog.NUMPY_RANDOM_MODULES
) | frozenset(f"{module}.set_state" for module in catalog.NUMPY_RANDOM_MODULES)


def numpy_global_draws(project: Project, dataset: ClassRef) -> list[GlobalCall]:
    """Return the legacy `np.random.*` draws in the per-item code of `dataset`."""
    return list(calls_to(project, per_item_code(project, dataset), NUMPY_GLOBAL_DRAWS))


def seeds_numpy(project: Project, function: FunctionRef) -> bool:
    """Return True if `function` (or project code it calls) seeds NumPy's global RNG."""
    start = Reached(function, project.class_of_function(function), (function.qualname,))
    return any(calls_to(project, reachable(project, [start]), NUMPY_GLOBAL_SEED))
