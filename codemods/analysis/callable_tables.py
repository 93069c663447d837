"""Objects made by calling an entry of a table of makers: `makers[name]()`, where `makers` is
a dict (or list) literal of lambdas, project functions or project classes.

Which entry runs is decided at run time (unless the key is a literal the table plainly
holds): what every entry may make is a candidate, and the result says so by naming the
function the table is picked in.
"""

from __future__ import annotations

from dataclasses import replace

from . import datasets
from .candidates import DatasetsOf, merge
from .facts import Value, literal_key
from .literal_tables import subscript_entries
from .project import Project
from .refs import ClassRef, FunctionRef


def made_by_picked_entry(
    project: Project, call: Value, where: FunctionRef, depth: int
) -> DatasetsOf | None:
    """Resolve `call`, a call of an entry picked from a literal table, to what the entries
    make; None if `call` calls no such entry."""
    callee = call.base
    entries = subscript_entries(callee, literal_key) if callee is not None else None
    if entries is None:
        return None
    results = [DatasetsOf((), True)]
    for entry in entries:
        results.append(_made_by(project, entry, call, where, depth))
    found = merge(results)
    if len(entries) < 2 or not found.classes:
        return found
    # Any entry may be the one called: what they make are candidates, picked in `where`.
    return replace(found, registries=(*found.registries, where.function.name))


def _made_by(
    project: Project, entry: Value, call: Value, where: FunctionRef, depth: int
) -> DatasetsOf:
    """Return what calling table entry `entry` (written in `where`) makes."""
    function = project.function_of(entry, where.module)
    if function is not None:
        returns = function.function.returns
        if not returns:
            return DatasetsOf((), function.function.only_raises)
        context = _context(function)
        return merge([datasets.classes_of(project, ret, context, depth + 1) for ret in returns])
    classes = list(project.targets(entry, where.module))
    if classes and all(isinstance(target, ClassRef) for target in classes):
        return merge(
            [
                DatasetsOf(
                    (target,), True, project.chosen_bases(target), made=((target, (call, where)),)
                )
                for target in classes
                if isinstance(target, ClassRef)
            ]
        )
    return DatasetsOf((), False)


def _context(function: FunctionRef) -> FunctionRef:
    """Return the function whose names a table entry's returned values are read in.

    A lambda without parameters (`lambda: Images(self.root, transform=self.pipeline())`) is
    an expression of the function it is written in, evaluated later: its `self` and free
    names are that function's, so they resolve there.
    """
    facts = function.function
    if not facts.is_lambda or facts.params:
        return function
    enclosing = function.module.function(facts.qualname.rpartition(".<lambda")[0])
    return FunctionRef.of(function.module, enclosing) if enclosing is not None else function
