"""How a DataLoader's workers start: forked from the main process, or as fresh interpreters.

A forked worker inherits the main process's RNG states. A worker started with `spawn`
imports NumPy anew, which seeds NumPy's global RNG from OS entropy: before torch 1.9 (which
seeds it itself) its draws differ in every worker and every epoch, not reproducibly, and
nothing is inherited to repeat. RNG objects a Dataset holds are pickled into the worker all
the same. `forkserver` is not such a start: its workers fork from a server that imported the
main module (and NumPy) once, so they inherit one NumPy state, as forked workers do.

The start method is the loader's `multiprocessing_context`, or the one the run's script sets
for the whole process at module level (`torch.multiprocessing.set_start_method("spawn")`,
also under `if __name__ == "__main__":`). One set in a helper (mmcv's `init_dist()`) is not
counted: scripts call it only for some launches, and start the others with fork.
"""

from __future__ import annotations

from .facts import Kind, Value
from .loaders import LoaderCall, Presence
from .memo import per_project
from .project import Project
from .refs import FunctionRef
from .runs import entry_modules

#: The start method whose workers import NumPy anew instead of inheriting its state.
FRESH_METHODS = frozenset({"spawn"})
_SETTERS = frozenset({"multiprocessing.set_start_method", "torch.multiprocessing.set_start_method"})
_CONTEXTS = frozenset({"multiprocessing.get_context", "torch.multiprocessing.get_context"})


def spawns_workers(project: Project, loader: LoaderCall) -> bool:
    """Return True if the loader's workers start as fresh interpreters (spawn)."""
    if loader.argument("multiprocessing_context").presence is not Presence.ABSENT:
        return context_method(loader) in FRESH_METHODS
    setters = _start_method_setters(project)
    if not setters:
        return False
    runs = entry_modules(project, loader.function)
    chosen = {method for function, method in setters if entry_modules(project, function) & runs}
    return bool(chosen) and chosen <= FRESH_METHODS


def context_method(loader: LoaderCall) -> str | None:
    """Return the start method the loader's `multiprocessing_context` names literally:
    `"spawn"`, or `multiprocessing.get_context("spawn")`."""
    lookup = loader.argument("multiprocessing_context")
    value = lookup.value
    if lookup.presence is not Presence.PASSED or value is None:
        return None
    if value.kind is Kind.CALL and value.base is not None and value.args:
        if not loader.project.is_one_of(value.base, loader.module, _CONTEXTS):
            return None
        value = value.args[0]
    return _literal(value)


@per_project
def _start_method_setters(project: Project) -> tuple[tuple[FunctionRef, str | None], ...]:
    """Return the module-level code that sets the start method of the process, with the
    method."""
    found: list[tuple[FunctionRef, str | None]] = []
    for function in project.functions_mentioning("set_start_method"):
        if function.function.qualname != "<module>":
            continue
        for call in function.function.calls:
            if call.base is not None and project.is_one_of(call.base, function.module, _SETTERS):
                method = call.keyword("method") or (call.args[0] if call.args else None)
                found.append((function, _literal(method)))
    return tuple(found)


def _literal(value: Value | None) -> str | None:
    if value is None or value.kind is not Kind.CONSTANT:
        return None
    return value.name.strip("'\"")
