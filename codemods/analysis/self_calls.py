"""Calls that run a method: on the instance a class's own code holds (`self.build(dset)` in a
sibling method, `super().build(dset)` in a subclass's override), or on an object known to be
an instance of the class (`engine.get_train_loader(dataset)` with `engine = Engine(...)`).

A helper method that makes a DataLoader from its parameter (`def _loader(self, dset):` called
as `self._loader(self.train_dset)` by `train_dataloader`) gets its dataset from these calls.
They are all its callers only when nothing else may call it: a call on an object of unknown
class, or the method used as a value, leaves its arguments unknown.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from .dataset_arguments import method_of_variable
from .facts import Assignment, FunctionFacts, Kind, Value, spelled
from .memo import on_reentry, per_project
from .project import Project
from .refs import ClassRef, FunctionRef

#: A call and the method it is written in.
SelfCall = tuple[Value, FunctionRef]


def self_class(project: Project, function: FunctionRef) -> ClassRef | None:
    """Return the class `self` is an instance of in `function`: a method's class, also for a
    function nested in a method (`def run_epoch(): ... self.train_set`), whose `self` is
    the method's; for a method read as it runs on a subclass, that subclass."""
    if function.receiver is not None:
        return function.receiver
    facts = function.function
    while facts.class_qualname is None and ".<locals>." in facts.qualname:
        enclosing = function.module.function(facts.qualname.rpartition(".<locals>.")[0])
        if enclosing is None:
            return None
        facts = enclosing
    return project.class_of_function(FunctionRef.of(function.module, facts))


@per_project
@on_reentry(None)
def self_callers(project: Project, method: FunctionRef) -> tuple[SelfCall, ...] | None:
    """Return every call that may run `method` (a plain method: no decorator), each made
    through `self` or `super()` in a method of its class's family; None if it may also be
    called another way, so that what its parameters receive is not all known."""
    owner = project.class_of_function(method)
    function = method.function
    if owner is None or function.decorators or function.name.startswith("__"):
        return None
    name = function.name
    below = subclasses(project, owner)
    family = {*project.mro(owner), *below}
    sites: list[SelfCall] = []
    for caller in project.functions_mentioning(name):
        calls = [
            found
            for call in caller.function.calls
            if (found := _method_call(project, call, caller, name)) is not None
        ]
        if name in caller.function.self_reads and not calls:
            return None  # `self.<name>` used as a value: it may be called anywhere
        cls = project.class_of_function(caller)
        for call in calls:
            callee = call.base
            assert callee is not None
            assert callee.base is not None
            if callee.base.kind is Kind.SELF and cls is not None and cls not in family:
                if project.find_method(cls, name) is None:
                    return None  # a class mixed in beside ours may call ours
                continue  # another class's own method of that name
            if callee.base.kind is Kind.SELF and cls is not None:
                # An instance of a subclass that overrides the method runs its override.
                if cls not in below or project.find_method(cls, name) == (owner, method):
                    sites.append((call, caller))
            elif callee.base.is_call_to("builtins.super") and cls is not None:
                # Only a subclass's `super()` can lead to our method.
                if cls in below and _next_definition(project, cls, name) == method:
                    sites.append((call, caller))
            else:
                runs = _runs_method(project, call, caller, (owner, method))
                if runs is None:
                    return None  # called on another object, whose class is not known
                if runs:
                    sites.append((call, caller))  # `engine.get_loader(...)` of an `Engine`
    return tuple(sites)


def _runs_method(
    project: Project,
    call: Value,
    caller: FunctionRef,
    found: tuple[ClassRef, FunctionRef],
) -> bool | None:
    """Return whether `obj.<name>(...)` may run the method `found` names: True when `obj` is
    known to be an instance of classes of which one has that `<name>` (a factory picked from
    a dict of classes, each with its own), False when it is known to be of classes that do
    not, None when that is not known."""
    # Imported here: what an object is resolves through calls, which this module follows.
    from .datasets import classes_of

    assert call.base is not None
    assert call.base.base is not None
    receivers = classes_of(project, call.base.base, caller)
    if not receivers.complete:
        return None
    name = found[1].function.name
    return any(project.find_method(ref, name) == found for ref in receivers.classes)


@per_project
def subclasses(project: Project, ref: ClassRef) -> tuple[ClassRef, ...]:
    """Return the project classes that derive from project class `ref`, however deep."""
    found: dict[ClassRef, None] = {}
    names = {ref.cls.name}
    searched: set[str] = set()
    while names - searched:
        batch = names - searched
        searched |= batch
        for module in project.modules_mentioning(*batch):
            for cls in module.classes:
                other = ClassRef.of(module, cls)
                if other != ref and other not in found and ref in project.mro(other):
                    found[other] = None
                    names.add(cls.name)
    return tuple(found)


def self_stores(project: Project, ref: ClassRef, name: str) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield what the methods of `ref` and its project bases store in `self.<name>`, each
    with the method that stores it."""
    target = f"self.{name}"
    for owner in project.mro(ref):
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                continue
            for assignment in function.assignments:
                if assignment.target == target:
                    yield assignment.value, FunctionRef.of(owner.module, function)


def _method_call(project: Project, call: Value, caller: FunctionRef, name: str) -> Value | None:
    """Return `call` if it calls a method `name` on some object; a method of an object a
    script binds at module level (`trainer = Trainer(); trainer.run(data)`, summarised as
    one dotted name) is given back as a call on that variable."""
    if calls_method(call, name):
        return call
    method = method_of_variable(project, call.base, caller) if call.base is not None else None
    return replace(call, base=method) if method is not None and method.name == name else None


def calls_method(call: Value, name: str) -> bool:
    """Return True for a call of method `name` on any receiver (`x.<name>(...)`)."""
    callee = call.base
    return (
        callee is not None
        and callee.kind is Kind.ATTRIBUTE
        and callee.name == name
        and callee.base is not None
    )


def _next_definition(project: Project, cls: ClassRef, name: str) -> FunctionRef | None:
    """Return the method `super().<name>` runs in the methods of `cls`."""
    for owner in project.mro(cls)[1:]:
        found = project.find_method(owner, name)
        if found is not None:
            return found[1]
    return None


#: A method read as an attribute: `@property def rng(self): return self._rng`.
_PROPERTY = frozenset({"builtins.property", "functools.cached_property"})


def property_alias(project: Project, ref: ClassRef, name: str) -> str | None:
    """Return `_rng` when `self.<name>` of a `ref` instance is a property that returns
    `self._rng`: reading it runs the method, which hands out that attribute."""
    found = project.find_method(ref, name)
    if found is None:
        return None
    method = found[1].function
    if len(method.returns) != 1 or not any(
        project.is_one_of(decorator, found[1].module, _PROPERTY) for decorator in method.decorators
    ):
        return None
    returned = method.returns[0]
    if returned.kind is not Kind.ATTRIBUTE or returned.base is None:
        return None
    return returned.name if returned.base.kind is Kind.SELF else None


def stored_for_init(
    project: Project, owner: ClassRef, method: FunctionFacts, assignment: Assignment
) -> tuple[FunctionRef, Assignment] | None:
    """Return the store a helper method makes when `__init__` calls it, written as
    `__init__`'s own (`self.mode = <what __init__ passes>`), if nothing else calls it and it
    stores a parameter or a literal: `def set_mode(self, mode): self.mode = mode`."""
    init_name = owner.cls.method("__init__")
    init = owner.module.function(init_name) if init_name else None
    if init is None or method.class_qualname is None:
        return None
    callers = [
        function
        for function in project.functions_mentioning(method.name)
        if function.function is not method
        and any(method.name in spelled(call.base) for call in function.function.calls if call.base)
    ]
    if [caller.function for caller in callers] != [init]:
        return None
    calls = [call for call in init.calls if call.base and method.name in spelled(call.base)]
    callee = calls[0].base if len(calls) == 1 else None
    if callee is None or callee.kind is not Kind.ATTRIBUTE or callee.base is None:
        return None
    if callee.base.kind is not Kind.SELF:
        return None
    call = calls[0]
    values: list[Value] = []
    for option in assignment.value.alternatives():
        if option.kind is not Kind.PARAM:
            values.append(option)
            continue
        given = _passed_to(method, call, option.name)
        if given is None:
            return None
        values.append(given)
    if any(value.kind not in (Kind.PARAM, Kind.INT, Kind.CONSTANT) for value in values):
        return None
    value = values[0] if len(values) == 1 else Value(Kind.ALTERNATIVES, args=tuple(values))
    store = replace(assignment, value=value, span=call.span or assignment.span)
    return FunctionRef.of(owner.module, init), store


def _passed_to(method: FunctionFacts, call: Value, param: str) -> Value | None:
    """Return what `call` (`self.method(...)`) passes as `param`, or its literal default."""
    passed = call.keyword(param)
    if passed is not None:
        return passed
    index = method.params.index(param) - 1 if param in method.params else -1
    if 0 <= index < len(call.args) and not any(a.kind is Kind.STARRED for a in call.args):
        return call.args[index]
    default = method.default_of(param)
    return Value(Kind.CONSTANT, name=default) if default is not None else None
