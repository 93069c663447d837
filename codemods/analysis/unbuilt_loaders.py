"""DataLoaders a function builds only for arguments no caller passes.

`def get_dataloader(opt, train_set, test_set=None): ... if test_set is not None:
DataLoader(test_set, ...)`, called only as `get_dataloader(opt, train_set, None)`: the test
loader is never built, so nothing it would load can repeat across workers.
"""

from __future__ import annotations

from .branch_feasibility import Known, outcome, passed_argument
from .facts import Value
from .project import Project
from .refs import FunctionRef


def never_built(project: Project, function: FunctionRef, call: Value) -> bool:
    """Return True if `call`, made in `function`, lies in the arm of an `if` on one of
    its parameters that no call of `function` takes: each caller passes a literal (or leaves
    the parameter to its literal default) that rules the arm out.

    Only a plain function every caller of which the project shows counts: a method, or a
    function handed on as a value, may be called in ways not seen.
    """
    facts = function.function
    span = call.span
    if span is None:
        return False
    tested = [
        branch
        for branch in facts.branches
        if branch.subject in facts.params and branch.governs(span) is not None
    ]
    if not tested or facts.is_method or facts.nested:
        return False
    sites = project.callers(function)
    if not sites or project.is_referenced(function):
        return False
    for branch in tested:
        holds: set[bool | None] = set()
        for site in sites:
            passed = passed_argument(site.call, facts, branch.subject, bound=0)
            holds.add(outcome(branch, passed) if isinstance(passed, Known) else None)
        if len(holds) == 1 and (held := holds.pop()) is not None and branch.excludes(span, held):
            return True
    return False
