"""Library datasets whose per-item code is known to draw nothing: a torchvision dataset
(`MNIST`, `ImageFolder`, ...) given no transform, or only transforms that draw nothing
(`Compose([ToTensor(), Normalize(...)])`)."""

from __future__ import annotations

from . import catalog
from .branch_feasibility import bound_values
from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef

#: torchvision transforms that draw no random number.
_STEADY_NAMES = (
    "ToTensor",
    "PILToTensor",
    "ToPILImage",
    "ConvertImageDtype",
    "Normalize",
    "Resize",
    "CenterCrop",
    "Pad",
    "Grayscale",
)
STEADY_TORCHVISION_TRANSFORMS = frozenset(
    f"torchvision.transforms.{module}{name}"
    for module in ("", "transforms.", "v2.")
    for name in _STEADY_NAMES
)
_COMPOSE = frozenset(
    name
    for name in catalog.TRANSFORM_CONTAINERS
    if name.startswith("torchvision.") and name.endswith(".Compose")
)


def draws_nothing(project: Project, dataset: Value, where: FunctionRef) -> bool:
    """Return True if every value `dataset` (written in `where`) may be is a torchvision
    dataset made with no transform, or with transforms that draw nothing."""
    options = bound_values(project, dataset, where)
    return bool(options) and all(_steady_dataset(project, option, where) for option in options)


def _steady_dataset(project: Project, call: Value, where: FunctionRef) -> bool:
    if call.kind is not Kind.CALL or call.base is None:
        return False
    names = project.qualnames(call.base, where.module)
    if not names or not all(catalog.applies_transforms(name) for name in names):
        return False
    if any(key is None for key, _ in call.keywords) or any(
        arg.kind is Kind.STARRED for arg in call.args
    ):
        return False
    positions: dict[str, int] = {}
    for name in names:
        positions.update(catalog.APPLIED_TRANSFORM_POSITIONS.get(name.rpartition(".")[2], {}))
    for keyword in catalog.APPLIED_TRANSFORM_KEYWORDS:
        passed = call.keyword(keyword)
        index = positions.get(keyword)
        if passed is None and index is not None and index < len(call.args):
            passed = call.args[index]
        if passed is not None and not _steady_transform(project, passed, where):
            return False
    # Positional arguments past those known may be transforms of a class not listed.
    known = max(positions.values(), default=0)
    return len(call.args) <= max(known + 1, 1)


def _steady_transform(project: Project, value: Value, where: FunctionRef) -> bool:
    options = bound_values(project, value, where)
    if not options:
        return False
    for option in options:
        if option.kind is Kind.CONSTANT and option.name == "None":
            continue
        if option.kind is not Kind.CALL or option.base is None:
            return False
        names = project.qualnames(option.base, where.module)
        if names and names <= STEADY_TORCHVISION_TRANSFORMS:
            continue
        if not names or not names <= _COMPOSE or len(option.args) != 1:
            return False
        steps = option.args[0]
        if steps.kind is not Kind.SEQUENCE or not all(
            _steady_transform(project, step, where) for step in steps.args
        ):
            return False
    return True
