"""Datasets seen through what wraps them: torch's `Subset` / `ConcatDataset` / `ChainDataset`,
a torchvision dataset that applies project transforms per item, and transform containers
(`Compose([...])`) that hold project callables."""

from __future__ import annotations

from . import datasets
from .candidates import DatasetsOf, merge
from .dataset_arguments import applied_arguments
from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef
from .transform_containers import container_steps


def wrapped(project: Project, call: Value, where: FunctionRef, depth: int) -> DatasetsOf:
    """Look through Subset(ds, ...) and ConcatDataset([a, b]) to the datasets inside."""
    inner = call.args[0] if call.args else call.keyword("dataset") or call.keyword("datasets")
    if inner is None:
        return DatasetsOf((), False)
    if inner.kind is Kind.SEQUENCE:
        return merge(
            [datasets.classes_of(project, element, where, depth) for element in inner.args]
        )
    if call.keyword("dataset") is None and not project.is_one_of(
        call.base or inner, where.module, _SUBSET
    ):
        # ConcatDataset(datasets) / ChainDataset(datasets): a list of datasets, however made.
        return datasets.elements_of(project, inner, where, depth)
    return datasets.classes_of(project, inner, where, depth)


_SUBSET = frozenset({"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})


def applied(
    project: Project, call: Value, where: FunctionRef, qualname: str, depth: int
) -> DatasetsOf:
    """Return the project callables a torchvision dataset call applies in its `__getitem__`.

    `ImageFolder(root, transform=Compose([Mask(), ...]))`: each item runs `Mask.__call__`
    in the worker, as if a project Dataset held and called it. The callables stand for the
    dataset's per-item code; `applied` names the dataset that calls them.
    """
    name = qualname.rpartition(".")[2]
    found = merge(
        [
            datasets.classes_of(project, passed, where, depth)
            for passed in applied_arguments(call, name)
        ]
    )
    callables = tuple(dict.fromkeys((*found.classes, *found.contained)))
    return DatasetsOf(
        callables,
        found.complete or not callables,  # without project callables, nothing of ours runs
        made=found.made,
        applied=tuple((ref, name) for ref in callables),
    )


def container(
    project: Project, call: Value, where: FunctionRef, qualname: str, depth: int
) -> DatasetsOf:
    """Return the project callables a transform container call (`Compose([...])`) holds."""
    held = container_steps(qualname, call)
    if held is None:
        return DatasetsOf((), False)
    found = datasets.elements_of(project, held, where, depth)
    return DatasetsOf(
        (), found.complete, contained=(*found.classes, *found.contained), made=found.made
    )
