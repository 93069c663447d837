"""The project methods a name denotes on a class: its own, or an inherited one, or for a
class whose bases are picked from containers at run time (`class D(BASES[a], MIXINS[b])`),
every candidate base's."""

from __future__ import annotations

from .candidates import MAX_CALL_DEPTH
from .project import Project
from .refs import ClassRef, FunctionRef


def method_candidates(project: Project, ref: ClassRef, name: str) -> tuple[FunctionRef, ...]:
    """Return the project methods `name` of `ref` may be: one, or for a class whose bases are
    picked from containers at run time (`class D(BASES[a], MIXINS[b])`), every candidate's."""
    return tuple(dict.fromkeys(_candidates(project, ref, name, 0)[0]))


def _candidates(
    project: Project, ref: ClassRef, name: str, depth: int
) -> tuple[list[FunctionRef], bool]:
    """Return the methods found, and whether every way along the bases was certain to find
    one (so that later bases cannot be the one the lookup reaches)."""
    qualname = ref.cls.method(name)
    function = ref.module.function(qualname) if qualname else None
    if function is not None:
        return [FunctionRef.of(ref.module, function)], True
    found: list[FunctionRef] = []
    if depth > MAX_CALL_DEPTH * 2:
        return found, False
    for base in ref.cls.bases:
        options = [t for t in project.base_options(ref, base) if isinstance(t, ClassRef)]
        results = [_candidates(project, option, name, depth + 1) for option in options]
        found.extend(function for methods, _ in results for function in methods)
        if options and all(methods and certain for methods, certain in results):
            return found, True
    return found, False
