"""torch datapipes: what a functional-form call (`pipe.map(fn)`, `pipe.batch(4)`,
`pipe.interleave(...)`) makes from its receiver.

`IterDataPipe` and `MapDataPipe` answer an attribute they do not define with a datapipe
class registered under that name, by torch (`batch`, `map`, `shuffle`, ...) or by the
project (`@functional_datapipe("name")`); the call constructs that class with the receiver
as its first argument. The new datapipe iterates the receiver in whatever process iterates
it: a DataLoader given the result runs the receiver's per-item code in its workers, as it
would run a `Subset`'s dataset.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from .candidates import DatasetsOf, Resolver, merge
from .facts import Kind, ModuleFacts, Value
from .memo import per_project
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef

#: The datapipe base classes under the names they are importable by.
_ITER_BASES = frozenset(
    {
        "torch.utils.data.IterDataPipe",
        "torch.utils.data.datapipes.datapipe.IterDataPipe",
        "torch.utils.data.datapipes.iter.IterDataPipe",
        "torchdata.datapipes.iter.IterDataPipe",
    }
)
_MAP_BASES = frozenset(
    {
        "torch.utils.data.MapDataPipe",
        "torch.utils.data.datapipes.datapipe.MapDataPipe",
        "torch.utils.data.datapipes.map.MapDataPipe",
        "torchdata.datapipes.map.MapDataPipe",
    }
)

#: Every class these packages export is a datapipe of their kind (`Mapper`, `Shuffler`,
#: `ShardingFilterIterDataPipe`, ...): a project class may derive from any of them.
_ITER_PACKAGES = ("torch.utils.data.datapipes.iter.", "torchdata.datapipes.iter.")
_MAP_PACKAGES = ("torch.utils.data.datapipes.map.", "torchdata.datapipes.map.")

#: The decorator that registers a project datapipe class under a functional name.
_REGISTRATION = frozenset(
    {
        "torch.utils.data.functional_datapipe",
        "torch.utils.data.datapipes.functional_datapipe",
        "torch.utils.data.datapipes._decorator.functional_datapipe",
        "torchdata.datapipes.functional_datapipe",
    }
)

#: torch's own functional forms (torch 2.x, `IterDataPipe.functions` /
#: `MapDataPipe.functions`) that return one datapipe over the receiver; the value is True
#: where every further positional argument is a datapipe it iterates too (`a.zip(b, c)`).
#: `fork` and `demux` return several datapipes and are left unresolved.
_TORCH_ITER_FORMS: Mapping[str, bool] = {
    "batch": False,
    "collate": False,
    "concat": True,
    "filter": False,
    "groupby": False,
    "in_batch_shuffle": False,
    "list_files": False,
    "map": False,
    "mux": True,
    "open_files": False,
    "read_from_stream": False,
    "routed_decode": False,
    "sharding_filter": False,
    "sharding_round_robin_dispatch": False,
    "shuffle": False,
    "unbatch": False,
    "zip": True,
}
_TORCH_MAP_FORMS: Mapping[str, bool] = {
    "batch": False,
    "concat": True,
    "map": False,
    "shuffle": False,
    "zip": True,
}


@dataclass(frozen=True)
class _Registered:
    """The project datapipe classes registered under functional names, per datapipe kind."""

    iterable: Mapping[str, tuple[ClassRef, ...]]
    mapping: Mapping[str, tuple[ClassRef, ...]]


def datapipe_kind(project: Project, ref: ClassRef) -> str | None:
    """Return "iter" or "map" for a project datapipe class, None for any other class."""
    for target in project.ancestors(ref):
        if not isinstance(target, ExternalRef):
            continue
        qualname = target.qualname
        if qualname in _ITER_BASES or qualname.startswith(_ITER_PACKAGES):
            return "iter"
        if qualname in _MAP_BASES or qualname.startswith(_MAP_PACKAGES):
            return "map"
    return None


def functional_result(
    project: Project,
    receivers: tuple[ClassRef, ...],
    call: Value,
    where: FunctionRef,
    depth: int,
    resolve: Resolver,
) -> DatasetsOf | None:
    """Return what functional-form call `call` (`receiver.name(...)`, seen in `where`) makes
    when its receiver is an instance of one of `receivers`; None unless every receiver class
    is a datapipe that answers the name with a registered datapipe (not its own method).

    The result holds the receivers (the new datapipe iterates them), the project class
    registered under the name, and the datapipes a combining form (`zip`, `concat`) also
    iterates.
    """
    method = call.base
    if method is None or method.kind is not Kind.ATTRIBUTE or not receivers:
        return None
    name = method.name
    registered = _registered(project)
    made: list[ClassRef] = []
    combines = False
    for ref in receivers:
        kind = datapipe_kind(project, ref)
        if kind is None or project.find_method(ref, name) is not None:
            return None
        own = (registered.iterable if kind == "iter" else registered.mapping).get(name)
        forms = _TORCH_ITER_FORMS if kind == "iter" else _TORCH_MAP_FORMS
        if own:
            made.extend(own)
        elif name in forms:
            combines = combines or forms[name]
        else:
            return None
    # The registered class is constructed here, but with the receiver as a first argument
    # this call does not spell: no construction is recorded, so what its `__init__` stores
    # is resolved from its other callers, or not at all.
    results = [DatasetsOf(tuple(dict.fromkeys((*receivers, *made))), True)]
    if combines:
        results.extend(_also_iterated(project, call, where, depth, resolve))
    return merge(results)


def called_alternatives(value: Value) -> bool:
    """Return True for a call of one of several callees some of which are attributes:
    `dataset.batch(4)` where `dataset` was bound more than once."""
    if value.kind is not Kind.CALL or value.base is None:
        return False
    if value.base.kind is not Kind.ALTERNATIVES:
        return False
    return any(option.kind is Kind.ATTRIBUTE for option in value.base.alternatives())


def _also_iterated(
    project: Project, call: Value, where: FunctionRef, depth: int, resolve: Resolver
) -> list[DatasetsOf]:
    """Return what the further datapipes of `a.zip(b, c)` or `a.concat(b)` may be."""
    found: list[DatasetsOf] = []
    for argument in call.args:
        if argument.kind is Kind.STARRED:
            found.append(DatasetsOf((), False))
        else:
            found.append(resolve(project, argument, where, depth))
    return found


@per_project
def _registered(project: Project) -> _Registered:
    iterable: dict[str, list[ClassRef]] = {}
    mapping: dict[str, list[ClassRef]] = {}
    for module in project.modules_mentioning("functional_datapipe"):
        for cls in module.classes:
            for decorator in cls.decorators:
                name = _registered_name(project, decorator, module)
                if name is None:
                    continue
                ref = ClassRef.of(module, cls)
                # torch registers on IterDataPipe a subclass of it, else on MapDataPipe.
                table = iterable if datapipe_kind(project, ref) == "iter" else mapping
                table.setdefault(name, []).append(ref)
    return _Registered(
        {name: tuple(refs) for name, refs in iterable.items()},
        {name: tuple(refs) for name, refs in mapping.items()},
    )


def _registered_name(project: Project, decorator: Value, module: ModuleFacts) -> str | None:
    """Return the name `@functional_datapipe("name")` registers, if `decorator` is that."""
    if decorator.kind is not Kind.CALL or decorator.base is None or not decorator.args:
        return None
    if not project.is_one_of(decorator.base, module, _REGISTRATION):
        return None
    literal = decorator.args[0]
    if literal.kind is not Kind.CONSTANT:
        return None
    try:
        name = ast.literal_eval(literal.name)
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) else None
