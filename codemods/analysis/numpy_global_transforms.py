"""Which albumentations transforms draw from NumPy's global RNG, by release.

Measured (2026-12-05) on every transform of 0.3.0 to 1.4.20, built with default arguments (and
a scale range for Downscale, whose default one changes nothing) and `p=1`: a transform draws
from NumPy's global RNG when its output changes with `np.random`'s state alone, `random`
seeded alike. All others draw from `random` or from a RandomState seeded from it, which
torch seeds in each worker on every version: they never repeat across workers. So an
albumentations pipeline (1.4.20 or older) is a NumPy-global draw for WS101 only when it
applies one of these; from 1.4.21 on, each transform owns its generators (WS203).
"""

from __future__ import annotations

from collections.abc import Iterator

from .closed_bindings import returned_by
from .facts import Kind, Value
from .package_versions import LibraryVersion
from .pipeline_libraries import ALBUMENTATIONS, pipeline_library
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef

_TO_0_5 = frozenset({"Downscale", "GlassBlur", "MultiplicativeNoise"})
_TO_1_1 = frozenset(
    {
        *_TO_0_5,
        "GaussianBlur",
        "Perspective",
        "IAAPerspective",
        "RandomToneCurve",
        "CropAndPad",
    }
)

#: `[first, after)` releases and the transforms of theirs that draw from NumPy's global RNG.
NUMPY_GLOBAL_TRANSFORMS: tuple[tuple[tuple[int, ...], tuple[int, ...], frozenset[str]], ...] = (
    ((0, 4), (0, 4, 3), frozenset({"Downscale"})),
    ((0, 4, 3), (0, 4, 4), frozenset({"Downscale", "MultiplicativeNoise"})),
    ((0, 4, 4), (0, 5), _TO_0_5),
    ((0, 5), (1, 0), _TO_0_5 | {"GaussianBlur"}),
    ((1, 0), (1, 2), _TO_1_1),
)

#: Library classes that apply the transforms they are given.
_CONTAINERS = frozenset({"Compose", "Sequential", "OneOf", "SomeOf", "OneOrOther", "ReplayCompose"})


def numpy_global_transforms(version: LibraryVersion) -> frozenset[str]:
    """Return the transforms of the albumentations release `version` that draw from NumPy's
    global RNG (none for albumentationsx, or any release outside the table)."""
    if version.distribution != ALBUMENTATIONS.name:
        return frozenset()
    for first, after, names in NUMPY_GLOBAL_TRANSFORMS:
        if version.within(first, after):
            return names
    return frozenset()


#: What albumentations' imgaug wrappers start with (`IAASharpen`, `IAAAffine`; before 1.3).
IMGAUG_WRAPPERS = "IAA"


def applies_any(
    project: Project,
    call: Value,
    where: FunctionRef,
    names: frozenset[str],
    *,
    imgaug_wrappers: bool = False,
    depth: int = 0,
) -> str:
    """Return the first of the albumentations transforms `names` (and of its imgaug wrappers,
    if `imgaug_wrappers`) that the transform or pipeline `call` (in `where`) applies, through
    the containers it nests; "" if none.

    Steps that cannot be seen (a list loaded from a file) are not known to be any of them. A
    project subclass counts as its library base, and a step or list a project function
    returns (`crop(size)`, `[crop] + augmentations(name)`) is what it may return.
    """
    if not (names or imgaug_wrappers) or call.kind is not Kind.CALL or call.base is None:
        return ""
    if depth < _MAX_DEPTH:
        for returned, function in returned_by(project, call, where):
            for step in returned.alternatives():
                found = applies_any(
                    project, step, function, names, imgaug_wrappers=imgaug_wrappers, depth=depth + 1
                )
                if found:
                    return found
    for qualname in sorted(_library_classes(project, call.base, where)):
        last = qualname.rpartition(".")[2]
        if imgaug_wrappers and last.startswith(IMGAUG_WRAPPERS):
            return last
        if last in names and (last != "Downscale" or call.args or _given_scales(call)):
            return last  # Downscale's default range is one value: its draw changes nothing
        if last not in _CONTAINERS:
            continue
        for item, written_in in _steps(project, call, last, where, depth):
            for step in item.alternatives():
                found = applies_any(
                    project,
                    step,
                    written_in,
                    names,
                    imgaug_wrappers=imgaug_wrappers,
                    depth=depth + 1,
                )
                if found:
                    return found
    return ""


def _steps(
    project: Project, call: Value, container: str, where: FunctionRef, depth: int
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the transforms the container `call` (of class `container`) is given, with the
    function each is written in: a list's items, and `OneOrOther(first, second)`'s two."""
    if container == "OneOrOther" and call.keyword("transforms") is None:
        given = [*call.args[:2], *(value for key, value in call.keywords if key in _ONE_OR_OTHER)]
        yield from ((step, where) for step in given)
        return
    steps = call.keyword("transforms") or (call.args[0] if call.args else None)
    yield from _items(project, steps, where, depth)


_ONE_OR_OTHER = ("first", "second")


def _items(
    project: Project, steps: Value | None, where: FunctionRef, depth: int
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the items of the lists `steps` may be, those of a list unpacked into it
    (`[*augmentations, normalize]`) included, with the function each is written in."""
    for option, written_in in _lists(project, steps, where, depth=depth):
        for item in option.args:
            if item.kind is Kind.STARRED and depth < _MAX_DEPTH:
                yield from _items(project, item.base, written_in, depth + 1)
            else:
                yield item, written_in


#: How many project functions and nested containers a pipeline is followed through.
_MAX_DEPTH = 6


def _given_scales(call: Value) -> bool:
    return any(key in ("scale_min", "scale_max", "scale_range") for key, _ in call.keywords)


def _lists(
    project: Project,
    steps: Value | None,
    where: FunctionRef,
    seen: frozenset[str] = frozenset(),
    depth: int = 0,
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the list displays `steps` may be, with the function each is written in: `steps`
    itself, the operands of a `+`, what a project function called returns, or the lists the
    methods of `where`'s class store in `self.<name>`."""
    for option in () if steps is None else steps.alternatives():
        if option.kind is Kind.SEQUENCE:
            yield option, where
        elif option.kind is Kind.BINOP and option.name == "+":
            for operand in option.args:
                yield from _lists(project, operand, where, seen, depth)
        elif option.kind is Kind.CALL and option.base is not None and depth < _MAX_DEPTH:
            for returned, function in returned_by(project, option, where):
                yield from _lists(project, returned, function, seen, depth + 1)
        elif option.kind is Kind.ATTRIBUTE and option.base and option.base.kind is Kind.SELF:
            target = f"self.{option.name}"
            if target not in seen:  # `self.a = self.b` and `self.b = self.a` end here
                yield from _stored_lists(project, where, target, seen | {target})


def _stored_lists(
    project: Project, where: FunctionRef, target: str, seen: frozenset[str]
) -> Iterator[tuple[Value, FunctionRef]]:
    owner = project.class_of_function(where)
    for ref in project.mro(owner) if owner is not None else ():
        for _, qualname in ref.cls.methods:
            method = ref.module.function(qualname)
            if method is None:
                continue
            for stored in method.assignments:
                if stored.target == target:
                    written_in = FunctionRef.of(ref.module, method)
                    yield from _lists(project, stored.value, written_in, seen)


def _library_classes(project: Project, callee: Value, where: FunctionRef) -> set[str]:
    """Return the albumentations classes `callee` is, or that a project class it is derives
    from."""
    found = set(project.qualnames(callee, where.module))
    for target in project.targets(callee, where.module):
        if isinstance(target, ClassRef):
            found.update(
                ancestor.qualname
                for ancestor in project.ancestors(target)
                if isinstance(ancestor, ExternalRef)
            )
    return {name for name in found if pipeline_library(name) is ALBUMENTATIONS}
