"""Classes an object keeps in an attribute of `self` and instantiates through it.

`self.dataset = Tiles` in one method (often a subclass's `__init__`), `self.dataset(images,
augment=self.augment)` in another (often a base class's): the call makes a `Tiles`. What
`self.<name>` holds when a method reads it comes from every class whose instances may run
that method (the method's class and the subclasses that inherit it, or reach it through
`super()`): the stores of `self.<name>` in the methods of those classes and their bases, and
the class attribute each of them finds first. Only class names (and `None` placeholders)
are read as class objects; any other store leaves the set incomplete.

Both directions are answered: which classes a `self.<name>(...)` call may instantiate, and
which such calls may instantiate a given class (so that what its `__init__` is given is
known).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .candidates import Construction
from .facts import FunctionFacts, Kind, ModuleFacts, Value
from .memo import per_project
from .project import Project
from .refs import ClassRef, FunctionRef
from .self_calls import calls_method, self_class, self_stores, subclasses


@dataclass(frozen=True)
class HeldClasses:
    """The project classes (class objects) an attribute of `self` may hold."""

    classes: tuple[ClassRef, ...]
    #: False if some store may put something else there (an instance, a parameter).
    complete: bool


def instantiated(project: Project, call: Value, where: FunctionRef) -> HeldClasses | None:
    """Return the classes `call`, a `self.<name>(...)` in `where`, instantiates because
    `self.<name>` holds class objects; None if it is no such call, `<name>` is a method,
    or no store of it names a class."""
    callee = call.base
    if (
        call.kind is not Kind.CALL
        or callee is None
        or callee.kind is not Kind.ATTRIBUTE
        or callee.base is None
        or callee.base.kind is not Kind.SELF
    ):
        return None
    return classes_held(project, where, callee.name)


@per_project
def classes_held(project: Project, where: FunctionRef, attribute: str) -> HeldClasses | None:
    """Return the classes `self.<attribute>` may hold when `where` (a method, or a function
    nested in one) reads it; None if `<attribute>` names a method of a class whose
    instances run `where`, or if no store of it names a class."""
    receivers = self_receivers(project, where)
    if not receivers or any(project.find_method(ref, attribute) for ref in receivers):
        return None
    found: list[ClassRef] = []
    complete = True
    for value, module in _stores(project, receivers, attribute):
        classes, known = _denoted(project, value, module)
        found.extend(classes)
        complete = complete and known
    if not found:
        return None
    return HeldClasses(tuple(dict.fromkeys(found)), complete)


@per_project
def attribute_constructions(project: Project, ref: ClassRef) -> tuple[Construction, ...]:
    """Return the `self.<name>(...)` calls that may make an instance of `ref` because a
    class stores `ref` itself in `self.<name>` (in a method or its class body)."""
    names = project.names_denoting(ref)
    held: dict[tuple[ClassRef, str], None] = {}
    for module in project.modules_mentioning(*names):
        for facts in module.functions_spelling(names):
            stores = [
                assignment.target.removeprefix("self.")
                for assignment in facts.assignments
                if _is_self_attribute(assignment.target)
                and ref in _denoted(project, assignment.value, module)[0]
            ]
            owner = self_class(project, FunctionRef.of(module, facts)) if stores else None
            if owner is not None:
                held.update(dict.fromkeys((owner, name) for name in stores))
        for cls in module.classes:
            for assignment in cls.attributes:
                if ref in _denoted(project, assignment.value, module)[0]:
                    held[(ClassRef.of(module, cls), assignment.target)] = None
    found: dict[Construction, None] = {}
    for owner, name in held:
        for function in _family_methods(project, owner):
            for call in function.function.calls:
                if not _calls_self_attribute(call, name):
                    continue
                instances = classes_held(project, function, name)
                if instances is not None and ref in instances.classes:
                    found[(call, function)] = None
    return tuple(found)


@per_project
def self_receivers(project: Project, where: FunctionRef) -> tuple[ClassRef, ...]:
    """Return the classes whose instances may run `where` (a method, or a function nested
    in one) as `self`: its class and the subclasses that inherit it or reach it through
    `super()`; empty if it is no method."""
    return _receivers(project, where)


def _receivers(project: Project, where: FunctionRef) -> tuple[ClassRef, ...]:
    """Return the classes whose instances may run `where` as `self`."""
    if where.receiver is not None:
        return (where.receiver,)
    own = self_class(project, where)
    method = _enclosing_method(where)
    if own is None or method is None:
        return ()
    return (own, *(sub for sub in subclasses(project, own) if _reaches(project, sub, method)))


def _enclosing_method(where: FunctionRef) -> FunctionRef | None:
    """Return the method `where` is, or is nested in."""
    facts: FunctionFacts | None = where.function
    while facts is not None and facts.class_qualname is None:
        if ".<locals>." not in facts.qualname:
            return None
        facts = where.module.function(facts.qualname.rpartition(".<locals>.")[0])
    return None if facts is None else FunctionRef.of(where.module, facts)


def _reaches(project: Project, sub: ClassRef, method: FunctionRef) -> bool:
    """Return True if an instance of `sub` calling `method`'s name runs `method`: it
    inherits it, or its overrides call `super().<name>(...)` down to it."""
    name = method.function.name
    found = project.find_method(sub, name)
    seen: set[FunctionRef] = set()
    while found is not None and found[1] not in seen:
        owner, current = found
        if current == method:
            return True
        seen.add(current)
        if not any(
            calls_method(call, name)
            and call.base is not None
            and call.base.base is not None
            and call.base.base.is_call_to("builtins.super")
            for call in current.function.calls
        ):
            return False
        mro = project.mro(owner)
        found = next(
            (
                hit
                for base in mro[1:]
                if (hit := project.find_method(base, name)) is not None and hit[0] == base
            ),
            None,
        )
    return False


def _stores(
    project: Project, receivers: tuple[ClassRef, ...], attribute: str
) -> Iterator[tuple[Value, ModuleFacts]]:
    """Yield what the receivers' methods store in `self.<attribute>`, and the class
    attribute each receiver finds first, with the module each is written in."""
    seen: set[tuple[int, int]] = set()
    for ref in receivers:
        for value, method in self_stores(project, ref, attribute):
            # A base's method is shared by the receivers deriving from it: its stores once.
            key = (id(method.function), id(value))
            if key not in seen:
                seen.add(key)
                yield value, method.module
        for owner in project.mro(ref):
            bound = [item for item in owner.cls.attributes if item.target == attribute]
            if bound:
                yield from ((item.value, owner.module) for item in bound)
                break


def _denoted(
    project: Project, value: Value, module: ModuleFacts
) -> tuple[tuple[ClassRef, ...], bool]:
    """Return the project classes `value` names, and False if it may be something else."""
    found: list[ClassRef] = []
    complete = True
    for option in value.alternatives():
        if option.is_none:
            continue  # a placeholder: calling it raises, it makes nothing
        targets = project.targets(option, module) if option.kind is Kind.NAME else ()
        classes = [target for target in targets if isinstance(target, ClassRef)]
        found.extend(classes)
        complete = complete and bool(targets) and len(classes) == len(targets)
    return tuple(found), complete


def _family_methods(project: Project, owner: ClassRef) -> Iterator[FunctionRef]:
    """Yield the methods of `owner`, its project bases and its subclasses."""
    for ref in dict.fromkeys((*project.mro(owner), *subclasses(project, owner))):
        for _, qualname in ref.cls.methods:
            facts = ref.module.function(qualname)
            if facts is not None:
                yield FunctionRef.of(ref.module, facts)


def _is_self_attribute(target: str) -> bool:
    return target.startswith("self.") and "." not in target.removeprefix("self.")


def _calls_self_attribute(call: Value, name: str) -> bool:
    """Return True for a call `self.<name>(...)`."""
    return (
        calls_method(call, name)
        and call.base is not None
        and call.base.base is not None
        and call.base.base.kind is Kind.SELF
    )
