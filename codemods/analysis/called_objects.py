"""What calling an object of a project class runs: its `__call__`, or the methods a library
base class calls on every call (a torch module's `forward`, an albumentations transform's
hooks)."""

from __future__ import annotations

from collections.abc import Iterator

from . import catalog
from .project import Project
from .refs import ClassRef, FunctionRef


def run_when_called(project: Project, ref: ClassRef) -> Iterator[FunctionRef]:
    """Yield the project methods that calling an instance of `ref` runs.

    Its `__call__`; for a subclass of a library class whose `__call__` is the library's
    (an albumentations transform, a torch module), the methods the library calls on every
    call: an albumentations transform's hooks, a module's `forward`.
    """
    found = project.find_method(ref, "__call__")
    if found is not None:
        yield found[1]
        return
    for bases, hooks in catalog.CALL_HOOKS:
        if not project.derives_from(ref, bases):
            continue
        methods = [found[1] for hook in hooks if (found := project.find_method(ref, hook))]
        if methods:
            yield from methods
            return
