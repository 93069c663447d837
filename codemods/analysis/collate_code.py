"""Code a DataLoader's workers run besides its dataset's: the `collate_fn`, which each worker
calls on the items of a batch, and the project code it calls."""

from __future__ import annotations

from .datasets import classes_of
from .held_functions import functions_of
from .loaders import LoaderCall
from .memo import per_project
from .method_lookup import method_candidates
from .per_item import Reached, reachable
from .project import Project
from .randomness import NUMPY_GLOBAL_DRAWS, GlobalCall, calls_to


@per_project
def collate_code(project: Project, loader: LoaderCall) -> tuple[Reached, ...]:
    """Return the project functions the workers of `loader` run to batch its items."""
    value = loader.argument("collate_fn").value
    if value is None:
        return ()
    entries = [
        Reached(function, None, (function.qualname,), holder=None)
        for function in functions_of(project, value, loader.function)
    ]
    made = classes_of(project, value, loader.function)
    for ref in made.classes:
        for method in method_candidates(project, ref, "__call__"):
            entries.append(Reached(method, ref, (method.qualname,), made_by=made.made_by(ref)))
    return reachable(project, entries)


def collate_draw(project: Project, loader: LoaderCall) -> GlobalCall | None:
    """Return a draw from NumPy's global RNG the loader's collate_fn makes, if any."""
    return next(calls_to(project, collate_code(project, loader), NUMPY_GLOBAL_DRAWS), None)
