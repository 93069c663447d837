"""Names that may denote a class or function across a project: aliases (`Loader =
DataLoader`, `from .seeding import seed as init`) found by growing a set of names from the
modules that mention them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .facts import ModuleFacts, Value, spelled
from .memo import per_project
from .refs import ClassRef, ExternalRef

if TYPE_CHECKING:
    from .project import Project


def grow_names(
    project: Project, names: set[str], visit: Callable[[ModuleFacts, set[str]], None]
) -> None:
    """Add to `names` what `visit` finds in the modules that mention one of them, until
    the modules mentioning the names found last add nothing more."""
    searched: set[str] = set()
    while names - searched:
        batch = names - searched
        searched |= batch
        for module in project.modules_mentioning(*batch):
            visit(module, names)


def add_aliases(
    project: Project, module: ModuleFacts, names: set[str], denotes: Callable[[Value], bool]
) -> None:
    """Add the module-level names bound to a value that spells one of `names` and that
    `denotes` accepts (`Loader = DataLoader`, `from .seeding import seed as init`)."""
    spelling = _bindings_spelling(project, module)
    candidates = sorted({index for name in names for index in spelling.get(name, ())})
    for index in candidates:
        name, values = module.bindings[index]
        if name not in names and any(denotes(value) for value in values):
            names.add(name)


@per_project
def _bindings_spelling(project: Project, module: ModuleFacts) -> Mapping[str, tuple[int, ...]]:
    """Return, for each name a module-level binding's values spell, the positions of those
    bindings in `module.bindings`: an `__init__.py` re-exporting hundreds of names is read
    once, not once for every name looked for in it."""
    del project  # the answer is the module's; kept per project like every other
    found: dict[str, list[int]] = {}
    for index, (_, values) in enumerate(module.bindings):
        for spelled_name in {name for value in values for name in spelled(value)}:
            found.setdefault(spelled_name, []).append(index)
    return {name: tuple(indexes) for name, indexes in found.items()}


def denotes(project: Project, value: Value, module: ModuleFacts, qualnames: frozenset[str]) -> bool:
    """Return True if `value` names one of `qualnames` or a project subclass of one."""
    for target in project.targets(value, module):
        if isinstance(target, ExternalRef) and matches(target.qualname, qualnames):
            return True
        if isinstance(target, ClassRef) and project.derives_from(target, qualnames):
            return True
    return bool(project.qualnames(value, module) & qualnames)


def matches(qualname: str, qualnames: frozenset[str]) -> bool:
    if qualname in qualnames:
        return True
    # Every dataset class torchvision ships derives from torch's Dataset.
    return "torch.utils.data.Dataset" in qualnames and qualname.startswith("torchvision.datasets.")
