"""What a dataset-making call passes on: the transforms a torchvision dataset applies, the
method a dotted name calls on a module variable, and how messages spell both."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from . import catalog
from .facts import Kind, Value
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef

if TYPE_CHECKING:
    from .candidates import DatasetsOf


def applied_arguments(call: Value, dataset: str) -> Iterator[Value]:
    """Yield the `transform=`-like arguments of a call of torchvision dataset class `dataset`.

    Keywords always; positions only for the classes whose signature is known.
    """
    positions = catalog.APPLIED_TRANSFORM_POSITIONS.get(dataset, {})
    for keyword in catalog.APPLIED_TRANSFORM_KEYWORDS:
        passed = call.keyword(keyword)
        index = positions.get(keyword)
        if passed is None and index is not None and index < len(call.args):
            if any(arg.kind is Kind.STARRED for arg in call.args[:index]):
                continue  # which parameter the argument fills is unknown
            passed = call.args[index]
        if passed is not None and passed.kind is not Kind.STARRED:
            yield passed


def applied_note(found: Iterable[DatasetsOf], ref: ClassRef, *, bracketed: bool = True) -> str:
    """Return what a message adds after the per-item entry of `ref` when third-party
    datasets among `found` apply it per item (a torchvision dataset's `transform=`)."""
    names = dict.fromkeys(name for datasets in found for name in datasets.applied_by(ref))
    if not names:
        return ""
    note = "applied per item by torchvision's " + ", ".join(f"`{name}`" for name in names)
    return f" ({note})" if bracketed else note


def method_of_variable(project: Project, callee: Value, where: FunctionRef) -> Value | None:
    """Return `config.build` of `config.build()` on a module variable, as an attribute.

    A method of a module-level variable is summarised as one dotted name
    (`train.config.build`); it denotes the method of whatever the variable holds.
    """
    if callee.kind is not Kind.NAME:
        return None
    for qualname in callee.qualnames:
        prefix, _, name = qualname.rpartition(".")
        targets = project.resolve(prefix, where.module) if prefix else ()
        if targets and all(isinstance(target, VariableRef) for target in targets):
            return Value(Kind.ATTRIBUTE, name=name, base=Value(Kind.NAME, qualnames=(prefix,)))
    return None


def spelled(value: Value) -> str:
    """Return how a receiver is written (`config`, `self.factory`), if simply."""
    if value.kind is Kind.NAME and value.qualnames:
        return value.qualnames[0].rpartition(".")[2]
    if value.kind is Kind.PARAM:
        return value.name
    if value.kind is Kind.SELF:
        return "self"
    if value.kind is Kind.ATTRIBUTE and value.base is not None and spelled(value.base):
        return f"{spelled(value.base)}.{value.name}"
    return ""
