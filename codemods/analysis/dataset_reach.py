"""What the DataLoaders that may load a Dataset class have in common: whether every one of
them is single-process, and whether each gets the class by a name looked up at run time."""

from __future__ import annotations

from collections.abc import Sequence

from .candidates import DatasetsOf
from .datasets import is_dataset
from .loaders import LoaderCall
from .project import Project
from .refs import ClassRef


def single_process_only(
    project: Project, dataset: ClassRef, loaders: Sequence[tuple[LoaderCall, DatasetsOf]]
) -> bool:
    """Return True if every DataLoader that may load `dataset` is provably single-process.

    `loaders` are the project's DataLoader calls with the datasets each may load. A dataset
    a loader with an unresolved dataset argument may start workers for may be loaded with
    workers; so may one no loader is seen to load, unless some loader's dataset is unresolved
    and every such loader is single-process (it is one of them that loads it).
    """
    explicit = [
        loader
        for loader, datasets in loaders
        if any(dataset in project.mro(ref) for ref in datasets.classes)
    ]
    unresolved = [loader for loader, datasets in loaders if not datasets.complete]
    if not explicit and not unresolved:
        return False
    return not any(loader.may_start_workers() for loader in (*explicit, *unresolved))


def looked_up_in(
    project: Project, dataset: ClassRef, loaders: Sequence[tuple[LoaderCall, DatasetsOf]]
) -> tuple[str, ...]:
    """Return the modules a non-torch dataset is looked up in by name at run time, when every
    DataLoader seen loading it gets it so: a finding about it rests on that candidate set."""
    if is_dataset(project, dataset):
        return ()  # any torch Dataset of the project may be loaded: no candidate set needed
    modules: list[str] = []
    for _, found in loaders:
        if dataset not in found.classes:
            continue
        sources = [source.function for source in found.sources if source.kind == "module"]
        if not sources:
            return ()
        modules.extend(sources)
    return tuple(dict.fromkeys(modules))
