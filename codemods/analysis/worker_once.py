"""`if` arms a DataLoader worker takes before any other code of its items runs.

A per-item reseed often sits behind such tests: `if worker_info is not None:` (true in
every worker) and `if not self.seeded: ...; self.seeded = True` (true at the first item a
worker loads, and never again because the arm itself flips the flag).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..types import Span
from .base_inits import calls_no_init
from .branch_facts import Branch, within
from .branch_feasibility import outcome
from .branch_records import WORKER_DATASET, WORKER_INFO
from .candidates import DatasetsOf
from .facts import Kind, Value, literal_key
from .known_values import Known
from .project import Project
from .refs import ClassRef, FunctionRef
from .type_tests import literal_test_outcome

if TYPE_CHECKING:
    from .per_item import Reached


def taken_first_in_each_worker(project: Project, reached: Reached, arm: Span) -> bool:
    """Return True if every worker runs `arm` of an `if` in `reached` the first time it gets
    there, and skips it afterwards only because the arm already ran in that worker."""
    function = reached.function
    for branch in function.function.branches:
        if branch.body != arm:
            continue
        if branch.subject == WORKER_INFO:
            return worker_info_arm(branch, arm)
        if branch.subject.startswith("self.") and branch.negated and branch.truth_test:
            return _flag_set_once(project, function, reached.self_class, branch)
    return False


def worker_info_arm(branch: Branch, arm: Span) -> bool:
    """Return True if `arm` of an `if` on `get_worker_info()` runs in every worker: the body
    of `if info is not None:` (or `if info:`), the `else` of `if info is None:`."""
    if branch.subject != WORKER_INFO or branch.order is not None:
        return False
    not_none = branch.literals == ("None",) if branch.negated else not branch.literals
    if arm == branch.body:
        return not_none
    return arm == branch.orelse and branch.literals == ("None",) and not branch.negated


#: Whether every dataset a loader gets stores an attribute on its instances (see
#: `stored_by_every_dataset`).
StoredBy = Callable[[str], bool]


def in_every_worker(
    project: Project,
    function: FunctionRef,
    span: Span,
    stored: StoredBy | None = None,
    arguments: Mapping[str, Known] | None = None,
) -> bool:
    """Return True if the code at `span` of a worker_init_fn sits only in `if` arms that every
    worker takes (`if get_worker_info() is not None:`; with `stored`, also
    `if hasattr(get_worker_info().dataset, "conf"):` when every dataset stores `conf`; with
    `arguments`, what is known of the function's parameters, an arm their values take:
    `if worker_seeding == "all":` of timm's `partial(worker_init, worker_seeding="all")`)."""
    facts = function.function
    if span not in facts.if_only_calls:
        return False
    known = arguments or {}
    arms = [
        (branch, arm)
        for branch in facts.branches
        for arm in (branch.body, branch.orelse)
        if arm is not None and within(span, arm)
    ]
    # `if isinstance(seeding, Callable):` decided by the known arguments; other two-argument
    # tests (`hasattr`) are read as branches, if at all.
    tests = [
        (arm == test.body, taken)
        for test in facts.type_tests
        for arm in (test.body, test.orelse)
        if arm is not None and within(span, arm)
        for taken in [literal_test_outcome(project, test, function, known)]
        if taken is not None
    ]
    return (
        bool(arms or tests)
        and all(
            worker_info_arm(branch, arm)
            or _stored_attribute_arm(branch, arm, stored)
            or _taken_for_arguments(branch, arm, known)
            for branch, arm in arms
        )
        and all(body is taken for body, taken in tests)
    )


def _taken_for_arguments(branch: Branch, arm: Span, arguments: Mapping[str, Known]) -> bool:
    """Return True if the known values of the parameter `branch` tests all take `arm`."""
    known = arguments.get(branch.subject)
    return known is not None and outcome(branch, known) is (arm == branch.body)


def _stored_attribute_arm(branch: Branch, arm: Span, stored: StoredBy | None) -> bool:
    """Return True if `arm` of `if hasattr(get_worker_info().dataset, name):` runs in every
    worker: its body, when every dataset stores `name`."""
    prefix = WORKER_DATASET + "."
    if stored is None or not branch.subject.startswith(prefix):
        return False
    taken = branch.orelse if branch.negated else branch.body
    return arm == taken and stored(branch.subject.removeprefix(prefix))


def stored_by_every_dataset(project: Project, datasets: DatasetsOf) -> StoredBy:
    """Return whether every class `datasets` may be (all known) stores an attribute in the
    `__init__` that makes its instances, outside any `if` or loop."""

    def stored(attribute: str) -> bool:
        return (
            datasets.complete
            and bool(datasets.classes)
            and all(_stores_on_instances(project, ref, attribute) for ref in datasets.classes)
        )

    return stored


def _stores_on_instances(project: Project, ref: ClassRef, attribute: str) -> bool:
    """Return True if an `__init__` that runs for every instance of `ref` stores `self.<attribute>`
    outside any `if` or loop: its own, or one of a base that the one before calls."""
    target = f"self.{attribute}"
    for owner in project.mro(ref):
        qualname = owner.cls.method("__init__")
        function = owner.module.function(qualname) if qualname is not None else None
        if function is None:
            continue
        init = FunctionRef.of(owner.module, function)
        if any(
            assignment.target == target and assignment.span not in function.conditional_stores
            for assignment in function.assignments
        ):
            return True
        if calls_no_init(init):
            return False
    return False


def runs_once_per_worker(
    project: Project, function: FunctionRef, self_class: ClassRef | None, span: Span
) -> bool:
    """Return True if the code at `span` of per-item `function` sits behind a flag that its
    own `if` sets (`if not self.seeded: ...; self.seeded = True`): it runs at a worker's
    first item only, as a worker_init_fn would."""
    return any(
        within(span, branch.body)
        and branch.subject.startswith("self.")
        and branch.negated
        and branch.truth_test
        and _flag_set_once(project, function, self_class, branch)
        for branch in function.function.branches
    )


def _flag_set_once(
    project: Project, guarded: FunctionRef, ref: ClassRef | None, branch: Branch
) -> bool:
    """Return True if `if not self.<flag>:` in `guarded` guards a body that sets the flag to
    a true literal, and nothing else stores the flag but a false literal in `__init__`."""
    if ref is None:
        return False
    sets_in_arm = False
    for owner in project.mro(ref):
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                continue
            for assignment in function.assignments:
                if assignment.target != branch.subject:
                    continue
                truth = _literal_truth(assignment.value)
                in_arm = function is guarded.function and within(assignment.span, branch.body)
                if in_arm and truth is True:
                    sets_in_arm = True
                elif function.name != "__init__" or truth is not False:
                    return False
    return sets_in_arm


def _literal_truth(value: Value) -> bool | None:
    if value.kind not in (Kind.CONSTANT, Kind.INT):
        return None
    key = literal_key(value)
    return None if key is None else key not in ("False", "None", "0", "''", '""')
