"""Whether code reads the distributed rank: a rank parameter, `get_rank()`, the launchers'
`RANK` variable, or a seed that mixes one in, also in the project code it calls."""

from __future__ import annotations

from . import catalog
from .data_parallel import _evidence_label, _values_in
from .facts import Kind
from .project import Project
from .refs import FunctionRef
from .seed_classification import SeedScope, Source, is_rank_name, seed_sources
from .seeds import seedings


def reads_rank(project: Project, function: FunctionRef, depth: int = 0) -> bool:
    """Return True if `function` (or project code it calls) reads the rank: a rank
    parameter, `get_rank()`, the `RANK` variable."""
    if any(is_rank_name(param) for param in function.function.params):
        return True
    for value in _values_in(function):
        if value.kind is Kind.CALL and value.base is not None:
            names = project.qualnames(value.base, function.module)
            if names and names <= catalog.DISTRIBUTED_RANKS:
                return True
        label = _evidence_label(project, function, value)
        if label is not None and label.startswith("os."):
            return True
    for seeding in seedings(project, function):
        if seeding.seed is None:
            continue
        scope = SeedScope(function, worker_param=first_parameter(function))
        if Source.RANK in seed_sources(project, seeding.seed, scope):
            return True
    if depth >= 2:
        return False
    # `def worker_init(worker_id): seed_worker_per_rank(worker_id)` and the like.
    for call in function.function.calls:
        if call.base is None or call.base.kind is not Kind.NAME:
            continue
        targets = project.targets(call.base, function.module)
        if (
            len(targets) == 1
            and isinstance(targets[0], FunctionRef)
            and reads_rank(project, targets[0], depth + 1)
        ):
            return True
    return False


def first_parameter(function: FunctionRef) -> str | None:
    """Return the name of the first parameter of `function` (a worker_init_fn's worker id)."""
    params = function.function.params
    return params[0] if params else None
