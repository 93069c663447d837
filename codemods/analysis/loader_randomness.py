"""Whether a loader's items are random: a global-RNG draw in per-item code, or shuffling."""

from __future__ import annotations

from dataclasses import dataclass

from . import catalog
from .dataset_arguments import applied_note
from .datasets import datasets_of_loader, is_dataset
from .facts import Kind, Value
from .held_datasets import held_classes
from .library_datasets import draws_nothing
from .loaders import LoaderCall, Presence
from .per_item import Reached, per_item_code
from .project import Project
from .randomness import NUMPY_GLOBAL_DRAWS, GlobalCall, calls_to
from .ranks import _is_false
from .refs import ClassRef

#: Global-RNG draws in per-item code that come out the same on every rank.
PER_ITEM_DRAWS = NUMPY_GLOBAL_DRAWS | catalog.PYTHON_RANDOM_DRAWS | catalog.TORCH_DRAWS
#: The per-item draws from each global RNG torch seeds in a worker, by the RNG's name.
DRAWS_BY_RNG = {
    "torch": catalog.TORCH_DRAWS,
    "random": catalog.PYTHON_RANDOM_DRAWS,
    "numpy": NUMPY_GLOBAL_DRAWS,
}
_SHUFFLING_SAMPLERS = frozenset(
    {
        "torch.utils.data.DistributedSampler",
        "torch.utils.data.distributed.DistributedSampler",
        "torch.utils.data.RandomSampler",
        "torch.utils.data.sampler.RandomSampler",
    }
)


@dataclass(frozen=True)
class LoaderRandomness:
    """What shows that a loader's items are random: a draw in per-item code, or shuffling."""

    #: A global-RNG draw in the per-item code of one of its datasets.
    draw: GlobalCall | None
    #: The loader shuffles (a training loader), so its dataset likely augments at random.
    shuffles: bool
    #: Some per-item code cannot be seen: the dataset is unknown (a torchvision dataset, a
    #: parameter) or calls an object it holds that is not project code (`self.transform`).
    opaque: bool
    #: Every dataset class it may get is known, and none is an IterableDataset.
    map_style_only: bool
    #: What a message adds after the drawing entry when a third-party dataset applies it.
    applied: str = ""

    @property
    def random(self) -> bool:
        """Return True if the loader's items may be random."""
        return self.draw is not None or (self.shuffles and self.opaque)


def loader_randomness(
    project: Project, loader: LoaderCall, draws: frozenset[str] = PER_ITEM_DRAWS
) -> LoaderRandomness:
    """Return what shows that `loader` hands out random items (`draws`: the global-RNG
    functions that count as a draw)."""
    datasets = datasets_of_loader(project, loader)
    draw, applied = None, ""
    # A third-party dataset applying project transforms runs code of its own as well.
    opaque = not datasets.complete or not datasets.classes or bool(datasets.applied)
    dataset = loader.argument("dataset").value
    if not datasets.classes and dataset is not None:
        # `MNIST(root, transform=Compose([ToTensor(), Normalize(...)]))`: nothing unseen.
        opaque = not draws_nothing(project, dataset, loader.function)
    for ref in datasets.classes:
        code = per_item_code(project, ref, datasets.made_by(ref))
        opaque = (
            opaque
            or _inherits_per_item_code(project, ref)
            or any(_calls_unseen_code(project, reached) for reached in code)
        )
        found = next(calls_to(project, code, draws), None)
        if found is not None:
            draw, applied = found, applied_note([datasets], ref)
            break
    map_style = datasets.complete and all(
        is_dataset(project, ref)
        and not project.derives_from(ref, catalog.TORCH_ITERABLE_DATASET_BASES)
        for ref in datasets.classes
    )
    return LoaderRandomness(
        draw, _shuffles(project, loader), opaque, map_style and bool(datasets.classes), applied
    )


_PER_ITEM_METHODS = ("__getitem__", "__getitems__", "__iter__")


def _inherits_per_item_code(project: Project, ref: ClassRef) -> bool:
    """Return True if the dataset's per-item methods all come from outside the project.

    `class Images(torchvision.datasets.ImageFolder)` that only overrides `__init__`: its
    `__getitem__` (and the transform it applies) is torchvision's, not visible here.
    """
    return all(project.find_method(ref, name) is None for name in _PER_ITEM_METHODS)


def _calls_unseen_code(project: Project, reached: Reached) -> bool:
    """Return True if `reached` calls an object it holds whose code is not in the project."""
    owner = reached.self_class
    for call in reached.function.function.calls:
        callee = call.base
        if callee is None:
            continue
        if callee.kind is Kind.CALL and callee.base is not None:
            # `RandomCrop(32)(image)`; not `getattr(module, name)(text)`.
            names = project.qualnames(callee.base, reached.function.module)
            if not names or not all(name.startswith("builtins.") for name in names):
                return True
            continue
        if owner is None or callee.kind is not Kind.ATTRIBUTE or callee.base is None:
            continue
        holder = callee.base
        if holder.kind is Kind.SELF:
            if project.find_method(owner, callee.name) is None and not held_classes(
                project, owner, callee.name
            ):
                return True
        elif (
            holder.kind is Kind.ATTRIBUTE
            and holder.base is not None
            and holder.base.kind is Kind.SELF
        ):
            held = held_classes(project, owner, holder.name)
            # `self.dataset.transform(image)`: a project object holding a callable that is
            # not one of its methods (a torchvision dataset's `transform`).
            if not any(project.find_method(ref, callee.name) is not None for ref in held):
                return True
    return False


def _shuffles(project: Project, loader: LoaderCall) -> bool:
    shuffle = loader.argument("shuffle")
    if shuffle.presence is Presence.MAYBE:
        return True
    if shuffle.value is not None and not _is_false(shuffle.value):
        return True
    sampler = loader.argument("sampler").value or loader.argument("batch_sampler").value
    if sampler is None:
        return False
    for option in sampler.alternatives():
        # `BatchSampler(DistributedSampler(...), ...)`: the inner sampler decides.
        for candidate in (option, *option.args[:1]):
            if _is_shuffling_sampler(project, loader, candidate):
                return True
    return False


def _is_shuffling_sampler(project: Project, loader: LoaderCall, value: Value) -> bool:
    if value.kind is not Kind.CALL or value.base is None:
        return False
    if not project.is_one_of(value.base, loader.module, _SHUFFLING_SAMPLERS):
        return False
    flag = value.keyword("shuffle")
    return flag is None or not _is_false(flag)
