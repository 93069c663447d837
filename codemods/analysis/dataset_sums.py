"""Datasets added together: `a + b` and `sum(parts)` of project datasets run the project's
`__add__` / `__radd__` (and `k * a` its `__mul__` / `__rmul__`), and make what those return;
a torch Dataset without an `__add__` of its own adds up to torch's `ConcatDataset([a, b])`,
which serves the items of both.

`sum(parts)` starts from `0`: `0 + parts[0]` runs `parts[0].__radd__(0)` (an int cannot add
a dataset), then `total + parts[i]` runs `total.__add__(parts[i])`.
"""

from __future__ import annotations

from dataclasses import replace

from . import catalog, datasets
from .candidates import MAX_RESOLUTION_DEPTH, DatasetsOf, merge
from .facts import Kind, Value
from .module_lookups import returns_receiver
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef

_SUM = frozenset({"builtins.sum"})
#: How many additions past the first a sum is followed: each may make a new class.
_ADDITIONS = 3


def summed(project: Project, call: Value, where: FunctionRef, depth: int) -> DatasetsOf | None:
    """Return what `sum(parts)` makes, or None if `call` is no call of `sum`."""
    if call.base is None or not project.is_one_of(call.base, where.module, _SUM):
        return None
    if len(call.args) != 1 or call.keywords:
        return DatasetsOf((), False)  # a `start` of its own: not followed
    parts = datasets.elements_of(project, call.args[0], where, depth)
    if not parts.classes:
        return DatasetsOf((), False)
    total = merge([_incomplete(parts), _results(project, parts, "__radd__", parts, depth)])
    frontier = total
    for _ in range(_ADDITIONS):
        added = _results(project, frontier, "__add__", parts, depth)
        new = tuple(ref for ref in added.classes if ref not in total.classes)
        total = merge([total, added])
        if not new:
            break
        frontier = _only(added, new)
    return total


#: The methods an operator runs: on its left operand, else (reflected) on its right one.
_OPERATOR_METHODS = {"+": ("__add__", "__radd__"), "*": ("__mul__", "__rmul__")}


def added(project: Project, value: Value, where: FunctionRef, depth: int) -> DatasetsOf | None:
    """Return what `a + b` (or `100 * a`, a dataset repeated as RAFT's `__rmul__` does it)
    makes when an operand is a project object, else None."""
    methods = _OPERATOR_METHODS.get(value.name) if value.kind is Kind.BINOP else None
    if methods is None or len(value.args) != 2:
        return None
    method, reflected = methods
    left = datasets.classes_of(project, value.args[0], where, depth)
    right = datasets.classes_of(project, value.args[1], where, depth)
    if left.classes:
        return merge([_incomplete(left), _results(project, left, method, right, depth)])
    if right.classes:
        # `a.__add__(b)` of a non-project `a` gives way to `b.__radd__(a)`.
        return merge([_incomplete(left), _results(project, right, reflected, left, depth)])
    return None


def _results(
    project: Project, receivers: DatasetsOf, name: str, other: DatasetsOf, depth: int
) -> DatasetsOf:
    """Return what method `name` of each receiver class returns, `other` its operand."""
    results = [_incomplete(receivers)]
    for ref in receivers.classes:
        found = project.find_method(ref, name)
        if found is None:
            if name == "__add__" and datasets.is_dataset(project, ref):
                results.extend([_only(receivers, (ref,)), other])  # torch's ConcatDataset
            else:
                results.append(DatasetsOf((), False))  # a TypeError, or code not seen
            continue
        method = found[1]
        if method.function.only_raises:
            continue
        if not method.function.returns:
            results.append(DatasetsOf((), False))
        for returned in (
            option for ret in method.function.returns for option in ret.alternatives()
        ):
            if returns_receiver(project, returned, method):
                results.append(_only(receivers, (ref,)))  # `return self`
            elif _self_method(returned) and depth < MAX_RESOLUTION_DEPTH:
                # `return self.__add__(other)`: that method of the same receiver.
                results.append(
                    _results(
                        project, _only(receivers, (ref,)), _self_method(returned), other, depth + 1
                    )
                )
            elif not _fails_on(project, ref, returned, depth):
                results.append(datasets.classes_of(project, returned, method, depth + 1))
    return merge(results)


def _self_method(value: Value) -> str:
    """Return `name` of a call `self.name(...)`, else ""."""
    callee = value.base if value.kind is Kind.CALL else None
    if callee is not None and callee.kind is Kind.ATTRIBUTE and callee.base is not None:
        return callee.name if callee.base.kind is Kind.SELF else ""
    return ""


def _fails_on(project: Project, ref: ClassRef, returned: Value, depth: int) -> bool:
    """Return True if evaluating `returned` on an instance of `ref` raises AttributeError: it
    reads `self.<name>` that nothing can have set on that instance.

    `return Clips(..., rate=self.rate)` in a base class shared by datasets of which only
    `Clips` stores `rate`: another receiver never gets past that line. Only a class all of
    whose bases are the project's (or `object`, torch's Dataset) and whose code stores
    attributes only as `self.<name> = ...` is judged; a `.name = ...` on any other object
    in the project leaves it open.
    """
    names = set(_self_reads(returned))
    if not names:
        return False
    order = project.mro(ref)
    for owner in order:
        if not _plain_class(project, owner):
            return False
        names -= {assignment.target for assignment in owner.cls.attributes}
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                return False
            names -= {
                assignment.target.removeprefix("self.")
                for assignment in function.assignments
                if assignment.target.startswith("self.")
            }
    return any(not _stored_elsewhere(project, ref, name, depth) for name in names)


def _self_reads(value: Value) -> set[str]:
    found: set[str] = set()
    stack = [value]
    while stack:
        current = stack.pop()
        if current.kind is Kind.ATTRIBUTE and current.base and current.base.kind is Kind.SELF:
            found.add(current.name)
        if current.base is not None:
            stack.append(current.base)
        stack.extend(current.args)
        stack.extend(argument for _, argument in current.keywords)
    return found


_PLAIN_BASES = frozenset({"builtins.object"}) | catalog.TORCH_DATASET_BASES
#: Methods and names through which an instance may get attributes not spelled `self.x = v`.
_DYNAMIC = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__dict__", "setattr"})


def _plain_class(project: Project, owner: ClassRef) -> bool:
    """Return True if `owner` sets attributes only by name: no dynamic attribute methods,
    no `setattr` or `__dict__`, and no base outside the project but `object` / Dataset."""
    for name, qualname in owner.cls.methods:
        function = owner.module.function(qualname)
        if name in _DYNAMIC or function is None:
            return False
        if _DYNAMIC & set(function.self_reads) or any(
            call.base is not None and project.is_one_of(call.base, owner.module, _SETATTR)
            for call in function.calls
        ):
            return False
    for base in owner.cls.bases:
        targets = project.base_options(owner, base)
        if not targets:
            return False
        for target in targets:
            if isinstance(target, ClassRef):
                continue
            if not isinstance(target, ExternalRef) or target.qualname not in _PLAIN_BASES:
                return False
    return True


_SETATTR = frozenset({"builtins.setattr"})


def _stored_elsewhere(project: Project, ref: ClassRef, name: str, depth: int) -> bool:
    """Return True if some project code may store `.<name>` on an instance of `ref` from
    outside (`dataset.rate = 8`). A store on an object known to be of other classes does not
    count, nor one on an attribute of a third-party object (a config's `cfg.data.rate = 8`,
    where `cfg = CfgNode()`)."""
    for function in project.functions_mentioning(name):
        for store in function.function.attribute_stores:
            if store.attribute != name:
                continue
            root = store.base
            while root.kind in (Kind.ATTRIBUTE, Kind.SUBSCRIPT) and root.base is not None:
                root = root.base
            if root.kind is Kind.SELF:
                return True
            holder = datasets.classes_of(project, root, function, depth + 1)
            if holder.complete and not holder.classes:
                continue  # a third-party object, or an attribute of one
            if root is not store.base or not holder.complete:
                return True
            if any(ref in project.mro(other) for other in holder.classes):
                return True
    return False


def _only(found: DatasetsOf, classes: tuple[ClassRef, ...]) -> DatasetsOf:
    """Return `found` narrowed to `classes`, with the constructions that made them."""
    made = tuple(site for site in found.made if site[0] in classes)
    return replace(found, classes=classes, made=made, complete=True)


def _incomplete(found: DatasetsOf) -> DatasetsOf:
    """Return an empty answer that keeps whether `found` was complete."""
    return DatasetsOf((), found.complete)
