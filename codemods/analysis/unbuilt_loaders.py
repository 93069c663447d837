"""DataLoaders a function builds only for arguments no caller passes.

`def get_dataloader(opt, train_set, test_set=None): ... if test_set is not None:
DataLoader(test_set, ...)`, called only as `get_dataloader(opt, train_set, None)`: the test
loader is never built, so nothing it would load can repeat across workers. Nor does a
loader bound to a name nothing reads (`loader = DataLoader(...)` left over beside the one a
script uses): it is built, but never iterated, so it starts no worker. Nor is one that
follows, in its block, the making of a dataset whose `__init__` always raises.
"""

from __future__ import annotations

from collections.abc import Sequence

from .branch_facts import within
from .branch_feasibility import outcome
from .caller_arguments import passed_by_every_caller
from .facts import Kind, Value
from .project import Project
from .refs import ClassRef, FunctionRef, Target


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


def after_a_call_that_raises(project: Project, function: FunctionRef, call: Value) -> bool:
    """Return True if `call` follows, in its block, a statement that makes an instance of a
    project class whose `__init__` never returns: it raises (a placeholder, `raise
    ValueError("This dataset wasn't released")`), so nothing after it runs. Every class the
    callee may be must raise so."""
    span = call.span
    if span is None:
        return False
    facts = function.function
    for made_at, rest in facts.constructions:
        if not within(span, rest):
            continue
        for made in facts.calls:
            if (
                made.span == made_at
                and made.base is not None
                and _never_returns(project, project.targets(made.base, function.module))
            ):
                return True
    return False


def _never_returns(project: Project, targets: Sequence[Target]) -> bool:
    inits: list[FunctionRef] = []
    for target in targets:
        found = project.find_method(target, "__init__") if isinstance(target, ClassRef) else None
        if found is None:
            return False
        inits.append(found[1])
    return bool(inits) and all(init.function.always_raises for init in inits)


def never_iterated(function: FunctionRef, call: Value) -> bool:
    """Return True if `call`, made in function `function`, is bound to local names that
    nothing reads afterwards, or reads only to take their length (`loader = DataLoader(...)`
    where the function goes on to use another loader, `print(len(test_loader))`): nothing
    iterates it, so it starts no worker.

    The names must not be read by a function nested in `function` either.
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
    if any(
        names & set(nested.free_names)
        for nested in function.module.functions_within(facts.qualname)
    ):
        return False
    if names & set(facts.attribute_bases):
        return False  # `loader.__iter__()`: its methods may iterate it
    return all(facts.reads_of(name) == facts.sized_reads_of(name) for name in names)
