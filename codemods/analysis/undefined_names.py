"""Names imported from project modules that do not define them.

A script kept after the class it imports was deleted or renamed (`from data import Retired`,
where data.py has no `Retired`) stops at that import with an ImportError: whatever it would
have passed to a DataLoader is no class of the project, and its loaders never run. Only a
module whose names are all visible counts: one that star-imports, writes `globals()`,
defines a module `__getattr__` or edits module objects may bind the name at run time.
"""

from __future__ import annotations

from .facts import Kind, ModuleFacts, Value
from .project import Project

#: Identifiers through which a module may bind names that its code does not spell out.
DYNAMIC_BINDING = frozenset({"globals", "vars", "setattr", "exec", "__getattr__", "__dict__"})


def names_undefined_import(project: Project, value: Value, near: ModuleFacts) -> bool:
    """Return True if NAME `value` (seen in `near`) is, whatever it may be, a name imported
    from a project module that certainly does not define it."""
    return (
        value.kind is Kind.NAME
        and bool(value.qualnames)
        and all(_undefined(project, qualname, near) for qualname in value.qualnames)
    )


def _undefined(project: Project, qualname: str, near: ModuleFacts) -> bool:
    parts = qualname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = project.module_named(".".join(parts[:cut]), near)
        if module is None:
            continue
        name = parts[cut]
        return (
            module.path != near.path
            and name not in module.module_names
            and not module.star_imports
            # `from package import submodule` imports the submodule.
            and project.module_named(".".join(parts[: cut + 1]), near) is None
            # Asked of the module's own text: whether other files are searched by text is a
            # speed setting that must not change the answer.
            and not module.spells(DYNAMIC_BINDING)
        )
    return False
