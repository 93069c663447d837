"""DataLoaders a function builds only for arguments no caller passes.

`def get_dataloader(opt, train_set, test_set=None): ... if test_set is not None:
DataLoader(test_set, ...)`, called only as `get_dataloader(opt, train_set, None)`: the test
loader is never built, so nothing it would load can repeat across workers. Nor does a
loader bound to a name nothing reads (`loader = DataLoader(...)` left over beside the one a
script uses): it is built, but never iterated, so it starts no worker.
"""

from __future__ import annotations

from .branch_feasibility import outcome
from .caller_arguments import passed_by_every_caller
from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef


def never_built(project: Project, function: FunctionRef, call: Value) -> bool:
    """Return True if `call`, made in `function`, lies in the arm of an `if` on one of
    its parameters that no call of `function` takes: each caller passes a literal (or leaves
    the parameter to its literal default) that rules the arm out.

    Only a plain function every caller of which the project shows counts (see
    `passed_by_every_caller`).
    """
    facts = function.function
    span = call.span
    if span is None:
        return False
    for branch in facts.branches:
        if branch.subject not in facts.params or branch.governs(span) is None:
            continue
        known = passed_by_every_caller(project, function, branch.subject)
        held = None if known is None else outcome(branch, known)
        if held is not None and branch.excludes(span, held):
            return True
    return False


def never_iterated(function: FunctionRef, call: Value) -> bool:
    """Return True if `call`, made in function `function`, is bound to local names that
    nothing reads afterwards (`loader = DataLoader(...)` where the function goes on to use
    another loader): nothing iterates it, so it starts no worker.

    A function with nested functions is left alone: they may read the name.
    """
    facts = function.function
    if facts.qualname == "<module>" or call.span is None:
        return False
    names = {
        assignment.target
        for assignment in facts.assignments
        if assignment.value.kind is Kind.CALL and assignment.value.span == call.span
    }
    if not names or any("." in name or "[" in name for name in names):
        return False
    if function.module.functions_within(facts.qualname):
        return False
    return all(facts.reads_of(name) == 0 for name in names)
