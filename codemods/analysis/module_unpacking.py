"""What a module-level name bound by unpacking a project function's result holds.

`DataLoader, PoolDataLoader = _get_dataloader()` (mmcv's `parrots_wrapper`, vendored into
many projects) binds each name to one position of the tuple the function returns.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .facts import Kind, ModuleFacts, Value
from .refs import FunctionRef, VariableRef

if TYPE_CHECKING:
    from .project import Project


def assigned_values(project: Project, variable: VariableRef) -> Iterator[tuple[Value, ModuleFacts]]:
    """Yield each value assigned to `variable`, with the module it is written in; a name
    unpacked from the call of a project function gives the element at its position of each
    tuple the function returns."""
    for assigned in variable.values:
        if assigned.kind is not Kind.UNKNOWN:
            yield assigned, variable.module
            continue
        code = variable.module.function("<module>")
        for name, position, count, value in code.unpacked if code is not None else ():
            if name != variable.name or value.kind is not Kind.CALL or value.base is None:
                continue
            for target in project.targets(value.base, variable.module):
                if isinstance(target, FunctionRef):
                    yield from _returned_at(target, position, count)


def _returned_at(
    function: FunctionRef, position: int, count: int
) -> Iterator[tuple[Value, ModuleFacts]]:
    for returned in function.function.returns:
        for option in returned.alternatives():
            if option.kind is Kind.SEQUENCE and len(option.args) == count:
                for element in option.args[position].alternatives():
                    yield element, function.module
