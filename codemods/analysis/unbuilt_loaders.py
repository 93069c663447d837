"""DataLoaders a function builds only for arguments no caller passes.

`def get_dataloader(opt, train_set, test_set=None): ... if test_set is not None:
DataLoader(test_set, ...)`, called only as `get_dataloader(opt, train_set, None)`: the test
loader is never built, so nothing it would load can repeat across workers.
"""

from __future__ import annotations

from .branch_feasibility import outcome
from .caller_arguments import passed_by_every_caller
from .facts import Value
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
