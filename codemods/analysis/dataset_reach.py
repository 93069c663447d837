"""What the DataLoaders that may load a Dataset class have in common: whether every one of
them is single-process, and whether each gets the class by a name looked up at run time."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .candidates import DatasetsOf
from .config_targets import named_classes
from .datasets import dataset_classes, is_dataset
from .loaders import LoaderCall
from .module_lookups import constructions_of
from .project import Project
from .refs import ClassRef


def loaders_of(
    project: Project, dataset: ClassRef, loaders: Sequence[tuple[LoaderCall, DatasetsOf]]
) -> list[LoaderCall]:
    """Return the DataLoaders of `loaders` seen to load `dataset` (or a subclass of it)."""
    return [
        loader
        for loader, datasets in loaders
        if any(dataset in project.mro(ref) for ref in datasets.classes)
    ]


def loaders_that_may_load(
    project: Project, dataset: ClassRef, loaders: Sequence[tuple[LoaderCall, DatasetsOf]]
) -> list[LoaderCall]:
    """Return the DataLoaders that may load `dataset`: those seen to load it; when none is,
    those whose dataset is not known; when every one is known, all of them: a dataset held
    inside the one a loader loads (the sources a `ZipDataset` draws from) runs in its
    workers."""
    return (
        loaders_of(project, dataset, loaders)
        or _unresolved(loaders)
        or [loader for loader, _ in loaders]
    )


def _unresolved(loaders: Sequence[tuple[LoaderCall, DatasetsOf]]) -> list[LoaderCall]:
    """Return the DataLoaders whose dataset is not known."""
    return [loader for loader, datasets in loaders if not datasets.complete]


def single_process_only(
    project: Project, dataset: ClassRef, loaders: Sequence[tuple[LoaderCall, DatasetsOf]]
) -> bool:
    """Return True if every DataLoader that may load `dataset` is provably single-process.

    `loaders` are the project's DataLoader calls with the datasets each may load. A dataset
    a loader with an unresolved dataset argument may start workers for may be loaded with
    workers; so may one no loader is seen to load, unless some loader's dataset is unresolved
    and every such loader is single-process (it is one of them that loads it).
    """
    explicit = loaders_of(project, dataset, loaders)
    unresolved = _unresolved(loaders)
    if unresolved and _every_instance_placed(project, dataset, loaders):
        unresolved = []  # none of its instances can reach those loaders
    if not explicit and not unresolved:
        return False
    return not any(loader.may_start_workers() for loader in (*explicit, *unresolved))


def _every_instance_placed(
    project: Project, dataset: ClassRef, loaders: Sequence[tuple[LoaderCall, DatasetsOf]]
) -> bool:
    """Return True if every construction of `dataset` is one a loader is seen to load:
    `DataLoader(model.training, num_workers=n)`, whose dataset is not resolved, gets none of
    its instances. Not for a class made in other ways too: a registered or configured one,
    or one another class derives from (its constructions make instances of `dataset`)."""
    sites = constructions_of(project, dataset)
    if not sites or dataset.cls.decorators or _named_by_configs(project, dataset):
        return False
    if any(ref != dataset and dataset in project.mro(ref) for ref in dataset_classes(project)):
        return False
    placed = {
        (where.path, call.span)
        for _, datasets in loaders
        for ref, (call, where) in datasets.made
        if ref == dataset
    }
    return all((function.path, call.span) in placed for call, function in sites)


def _named_by_configs(project: Project, ref: ClassRef) -> bool:
    return any(ref in named_classes(project, key) for key in _CONFIG_KEYS)


#: The keys under which configuration files name the classes they make.
_CONFIG_KEYS = ("target", "_target_", "type", "class_path")


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


def with_bases(project: Project, classes: Iterable[ClassRef]) -> set[ClassRef]:
    """Return `classes` and the project classes they derive from."""
    found = set(classes)
    found.update(
        base
        for ref in tuple(found)
        for base in project.ancestors(ref)
        if isinstance(base, ClassRef)
    )
    return found
