"""What a class stores in `self.<attribute>`: the objects (or list elements) its methods and
class attributes put there, as seen from the constructions that make an instance."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..types import Span
from . import datasets
from .candidates import (
    MAX_RESOLUTION_DEPTH,
    CandidateSource,
    Construction,
    DatasetsOf,
    Resolver,
    merge,
)
from .catalog import applies_transforms
from .closed_bindings import stored_per_construction
from .facts import Assignment, FunctionFacts, Kind, Value, self_attribute
from .memo import per_project
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef
from .self_calls import subclasses
from .stored import stored_through


def held_classes(project: Project, ref: ClassRef, attribute: str) -> tuple[ClassRef, ...]:
    """Return the project classes of the objects stored in `self.<attribute>` of class `ref`."""
    return held(project, ref, attribute).classes


@per_project
def held_elements(
    project: Project,
    ref: ClassRef,
    attribute: str,
    made_by: tuple[Construction, ...] | None = None,
) -> DatasetsOf:
    """Return the project classes of the elements of a list stored in `self.<attribute>`.

    `made_by`: the constructor calls known to make the instance (else every caller counts).
    Kept: per-item code asks it again for each call on an element (`self.sets[i].size()`).
    """
    return held(project, ref, attribute, datasets.elements_of, made_by)


@per_project
def held_parts(
    project: Project,
    ref: ClassRef,
    attribute: str,
    made_by: tuple[Construction, ...] | None = None,
) -> DatasetsOf:
    """Return the project classes in the tuples of a list stored in `self.<attribute>`:
    `self.pipeline = [(1.0, Noise())]`, read as `for prob, p in self.pipeline:`."""
    return held(project, ref, attribute, _parts_of_elements, made_by)


def _parts_of_elements(
    project: Project, value: Value, where: FunctionRef, depth: int
) -> DatasetsOf:
    return merge(
        [
            merge([datasets.elements_of(project, item, where, depth + 1) for item in option.args])
            if option.kind is Kind.SEQUENCE
            else DatasetsOf((), False)
            for option in value.alternatives()
        ]
    )


def held(
    project: Project,
    ref: ClassRef,
    attribute: str,
    resolve: Resolver | None = None,
    sites: tuple[Construction, ...] | None = None,
    depth: int = 0,
) -> DatasetsOf:
    if depth > MAX_RESOLUTION_DEPTH:
        return DatasetsOf((), False)
    if resolve is None and sites is None:
        return _held_anywhere(project, ref, attribute, depth)
    return _held(project, ref, attribute, resolve or datasets.classes_of, sites, depth)


@per_project
def _held_anywhere(project: Project, ref: ClassRef, attribute: str, depth: int) -> DatasetsOf:
    """`held` of every instance: kept, because objects that hold each other (a wrapper of
    wrappers) ask it again at each depth, and unkept the questions multiply."""
    return _held(project, ref, attribute, datasets.classes_of, None, depth)


def _held(
    project: Project,
    ref: ClassRef,
    attribute: str,
    resolve: Resolver,
    sites: tuple[Construction, ...] | None,
    depth: int,
) -> DatasetsOf:
    init = project.find_method(ref, "__init__")
    init_code = init[1] if init is not None else None
    found: list[DatasetsOf] = []
    target = f"self.{attribute}"
    for owner in project.mro(ref):
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                continue
            where = FunctionRef.of(owner.module, function)
            stores = [*function.assignments, *_stored_by_library_base(project, owner, function)]
            for assignment in stores:
                if assignment.target == target and sites is not None and init_code is not None:
                    # What the constructions' arguments leave `__init__` to store.
                    found.extend(
                        # `self.subsets = [self.first]`: what the same constructions store in
                        # `self.first`, not what every instance may hold there.
                        held(project, ref, part.name, how, kept, depth + 1)
                        if self_attribute(part) not in (None, attribute)
                        else stored_through(project, part, where, init_code, kept, how)
                        for value, kept in stored_per_construction(
                            project, ref, sites, where, assignment
                        )
                        for part, how in _parts(value, resolve, attribute)
                    )
                elif assignment.target == target:
                    running = where.run_on(ref) if owner != ref else where
                    found.append(resolve(project, assignment.value, running, depth))
        for assignment in owner.cls.attributes:
            if assignment.target == attribute and assignment.value.kind is Kind.CALL:
                module_code = owner.module.function("<module>")
                if module_code is not None:
                    where = FunctionRef.of(owner.module, module_code)
                    found.append(resolve(project, assignment.value, where, depth))
    return merge(found)


def _parts(value: Value, resolve: Resolver, attribute: str) -> Iterator[tuple[Value, Resolver]]:
    """Split the elements of a stored list or dict display (`{"joint": joint_transform}`)
    from the value, each with how to resolve it, so that the parameters each names are
    taken from the constructions; anything else is resolved whole. A list grown by
    appending (`self.parts = self.parts + [part]`) adds its new elements: what it held
    before is what the other stores put there."""
    if resolve is not datasets.elements_of:
        yield value, resolve
        return
    for option in value.alternatives():
        if option.kind is Kind.BINOP and option.name == "+":
            grown = [arg for arg in option.args if self_attribute(arg) != attribute]
            if len(grown) < len(option.args):
                for arg in grown:
                    yield from _parts(arg, resolve, attribute)
                continue
        if option.kind is Kind.SEQUENCE:
            for item in option.args:
                if item.kind is Kind.STARRED and item.base is not None:
                    yield item.base, datasets.elements_of
                else:
                    yield item, datasets.classes_of
        elif option.kind is Kind.DICT and option.keywords:
            yield from ((item, datasets.classes_of) for _, item in option.keywords)
        else:
            yield option, resolve


def held_after_store(
    project: Project, where: FunctionRef, attribute: str, read: Span | None, depth: int
) -> DatasetsOf | None:
    """Return what `self.<attribute>` holds at `read` in method `where` when `where` itself
    stores it first (`self.train_set = Clips()`, then `DataLoader(self.train_set)`); None
    when it holds what the object was given before (see `self_held`)."""
    stores = _stores_seen(where, attribute, read) if read is not None else ()
    return _held_from(project, where, stores, depth) if stores else None


@per_project
def _held_from(
    project: Project, where: FunctionRef, stores: tuple[Span, ...], depth: int
) -> DatasetsOf:
    """What the stores of `where` at `stores` may hold. Kept, as `_held_anywhere` is:
    attributes built from each other ask it again at each depth."""
    values = [store.value for store in where.function.assignments if store.span in stores]
    return merge([datasets.classes_of(project, value, where, depth) for value in values])


def _stores_seen(where: FunctionRef, attribute: str, read: Span) -> tuple[Span, ...]:
    """Return the stores of `self.<attribute>` in `where` that `read` may see: the last one
    outside any `if` or loop before it, and the conditional ones after that. Empty if no
    store outside any `if` or loop precedes the read."""
    facts = where.function
    stores = sorted(
        assignment.span
        for assignment in facts.assignments
        if assignment.target == f"self.{attribute}"
        and (assignment.span.end_line, assignment.span.end_column) <= (read.line, read.column)
    )
    steady = [index for index, span in enumerate(stores) if span not in facts.conditional_stores]
    return tuple(stores[steady[-1] :]) if steady else ()


def self_held(
    project: Project, own: ClassRef, where: FunctionRef, attribute: str, depth: int
) -> DatasetsOf:
    """Return what `self.<attribute>` may hold when method `where` of class `own` reads it.

    `self` may be an instance of a subclass that inherits `where` (a LightningModule whose
    `prepare_data` a subclass overrides to store another dataset): what such a subclass
    stores is a candidate too.
    """
    stored = held(project, own, attribute, depth=depth)
    name = where.function.name
    inheriting = [
        sub
        for sub in subclasses(project, own)
        if (found := project.find_method(sub, name)) is not None and found[1] == where
    ]
    if not inheriting:
        return stored
    merged = merge([stored, *(held(project, sub, attribute, depth=depth) for sub in inheriting)])
    if set(merged.classes) <= set(stored.classes):
        return stored
    source = CandidateSource("stored", own.name, attribute)
    return replace(merged, sources=(*merged.sources, source))


#: What a torchvision dataset's `__init__` stores under the same name as its keyword.
#: What a torchvision dataset's `__getitem__` calls per item, as its `__init__` stores them.
APPLIED_BY_TORCHVISION = ("transform", "target_transform", "transforms")

#: The positions of those parameters in the `__init__` of torchvision datasets that take
#: them positionally after `root` (`CIFAR10(root, train, transform, target_transform)`).
_POSITIONS = {
    **{
        name: {2: "transform", 3: "target_transform"}
        for name in ("CIFAR10", "CIFAR100", "MNIST", "FashionMNIST", "KMNIST", "QMNIST")
    },
    **{name: {1: "transform", 2: "target_transform"} for name in ("ImageFolder",)},
}


def keeps_library_getitem(project: Project, ref: ClassRef) -> bool:
    """Return True for a project class deriving from a torchvision dataset without a
    `__getitem__` of its own: the library's runs, applying what `__init__` stored."""
    return _torchvision_base(project, ref) is not None and not any(
        owner.cls.method("__getitem__") for owner in project.mro(ref)
    )


def _torchvision_base(project: Project, ref: ClassRef) -> str | None:
    """Return the qualified name of the torchvision dataset `ref` derives from, if any."""
    for owner in project.mro(ref):
        for base in project.class_bases(owner):
            if isinstance(base, ExternalRef) and applies_transforms(base.qualname):
                return base.qualname
    return None


def _stored_by_library_base(
    project: Project, owner: ClassRef, function: FunctionFacts
) -> Iterator[Assignment]:
    """Yield, as stores of `self`, the keywords that `__init__` of a project class deriving
    from a torchvision dataset hands to that base: `super().__init__(root,
    transform=transform)` leaves the argument in `self.transform`."""
    library = next(
        (
            base.qualname
            for base in project.class_bases(owner)
            if isinstance(base, ExternalRef) and applies_transforms(base.qualname)
        ),
        None,
    )
    if function.name != "__init__" or library is None:
        return
    positions = _POSITIONS.get(library.rpartition(".")[2], {})
    for call in function.calls:
        callee = call.base
        if (
            callee is not None
            and callee.kind is Kind.ATTRIBUTE
            and callee.name == "__init__"
            and callee.base is not None
            and callee.base.is_call_to("builtins.super")
        ):
            given = {
                name: call.args[index]
                for index, name in positions.items()
                if index < len(call.args)
                and not any(arg.kind is Kind.STARRED for arg in call.args[: index + 1])
            }
            for name in APPLIED_BY_TORCHVISION:
                value = call.keyword(name) or given.get(name)
                if value is not None and call.span is not None:
                    yield Assignment(f"self.{name}", value, call.span)
