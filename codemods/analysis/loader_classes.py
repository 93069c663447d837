"""Which classes a call makes a torch DataLoader of: torch's own, a project subclass, or the
class a parameter or a library function hands over."""

from __future__ import annotations

from . import catalog
from .facts import Kind, Value
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef, VariableRef


def loader_subclasses(
    project: Project, callee: Value, near: FunctionRef
) -> tuple[ClassRef, ...] | None:
    """Return the project subclasses `callee` denotes; None if it is not certainly a torch loader.

    Every alternative must be torch's DataLoader or a project class deriving from it:
    a third-party class that merely shares the name is never treated as torch's.
    """
    options = callee.alternatives()
    if not options:
        return None
    subclasses: list[ClassRef] = []
    for option in options:
        if option.kind is Kind.UNKNOWN and _unpacked_loader_class(near, option.name):
            continue
        if option.kind is not Kind.NAME:
            return None
        targets = project.targets(option, near.module)
        if not targets:
            return None
        for target in targets:
            if isinstance(target, ExternalRef):
                if target.qualname not in catalog.TORCH_DATALOADERS:
                    return None
            elif isinstance(target, ClassRef):
                if not project.derives_from(target, catalog.TORCH_DATALOADERS):
                    return None
                subclasses.append(target)
            elif isinstance(target, VariableRef):
                if not project.is_one_of(option, near.module, catalog.TORCH_DATALOADERS):
                    return None
            else:
                return None
    return tuple(dict.fromkeys(subclasses))


def _unpacked_loader_class(near: FunctionRef, name: str) -> bool:
    """Return True if `near` binds `name` by unpacking a library call that returns torch's
    loader classes (`_, DataLoader = _get_dataloader()`)."""
    return any(
        unpacked == name
        and value.base is not None
        and bool(value.base.qualnames)
        and set(value.base.qualnames) <= catalog.TORCH_DATALOADER_PAIRS
        for unpacked, _, _, value in near.function.unpacked
    )


def parameter_loader(
    project: Project, function: FunctionRef, param: str
) -> tuple[ClassRef, ...] | None:
    """Return the project subclasses a call of parameter `param` makes, if it certainly makes
    a torch DataLoader: `def loader(dataset, klass=DataLoader): return klass(dataset)`.

    The parameter defaults to a loader class, and every call of the function in the project
    gives it none or another loader class. A method, a nested function or one handed on as a
    value may be called with any class: None.
    """
    facts = function.function
    default = facts.named_default(param)
    if default is None or facts.class_qualname is not None or facts.nested:
        return None
    found = loader_subclasses(project, default, function)
    if found is None or project.is_referenced(function):
        return None
    subclasses = list(found)
    index = facts.params.index(param)
    for site in project.callers(function):
        passed = site.call.keyword(param)
        if passed is None and index < facts.positional_count:
            if any(arg.kind is Kind.STARRED for arg in site.call.args[: index + 1]):
                return None
            if len(site.call.args) > index:
                passed = site.call.args[index]
        if passed is None:
            if any(key is None for key, _ in site.call.keywords):
                return None  # a `**splat` may pass it
            continue
        given = loader_subclasses(project, passed, site.function)
        if given is None:
            return None
        subclasses.extend(given)
    return tuple(dict.fromkeys(subclasses))
