"""Modules a project imports from folders it puts on `sys.path` itself.

Research code often runs `sys.path.insert(0, osp.join(root, "data"))` (or a helper that
does) and then `from crops import Crops` in a script of another folder. By the usual rule
a bare name is importable only beside or below the folder of its file; such an import
then names no module of the project. When the project extends `sys.path` at run time and
exactly one of its files has that name, the import is that file. Not for the name of a
standard-library module (`import random` with a package's own `mpu/random.py`), nor of a
library the rules are about (`import torch` with a package's own `utils/torch.py`): every
project these rules apply to has those installed, and the import means the library.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .facts import ModuleFacts
from .memo import per_project
from .sources import INSTALLED_LIBRARIES, NOTEBOOK_SUFFIX

if TYPE_CHECKING:
    from .project import Project

#: The calls that put a folder on `sys.path`.
_EXTENDING = frozenset({"sys.path.insert", "sys.path.append"})


def module_on_extended_path(project: Project, name: str) -> ModuleFacts | None:
    """Return the one project module named `name`, if the project extends `sys.path`."""
    if "." in name or name in sys.stdlib_module_names or name in INSTALLED_LIBRARIES:
        return None  # dotted names are kept for every file already
    paths = project.sources.named(name)
    if len(paths) != 1 or paths[0].suffix == NOTEBOOK_SUFFIX or not _extends_sys_path(project):
        return None
    return project.sources.facts(paths[0])


@per_project
def _extends_sys_path(project: Project) -> bool:
    """Return True if some code of the project calls `sys.path.insert` or `.append`."""
    for module in project.sources.matching(rb"sys\.path\.(?:insert|append)\b", b"sys.path"):
        for function in module.functions:
            for call in function.calls:
                if call.base is not None and project.qualnames(call.base, module) & _EXTENDING:
                    return True
    return False
