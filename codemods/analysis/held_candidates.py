"""Objects a Dataset holds, as the constructions that reach one DataLoader make them.

A Dataset's `__init__` often prepares an object it holds by calling a method of it with one
of its own arguments: `self.transforms.build(train=train)`, where `build` stores
`self.pipeline = self.train_pipeline()` under `if train:` and an evaluation pipeline under
`else:`. For the instances one DataLoader loads, made by `Slides(..., train=False)`, only
the evaluation pipeline is ever stored: what the other branch stores never reaches those
workers.

A held object whose class is looked up by a name known only at run time
(`getattr(module, cfg["type"])(...)`) may be any class its module defines: its draws make
a DataLoader's workers alike for certain only if every candidate draws.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from .branch_facts import Branch
from .branch_feasibility import constructed_with, outcome
from .datasets import dataset_classes
from .facts import Kind, Value
from .known_values import Known, passed_argument
from .memo import per_project
from .method_lookup import method_candidates
from .per_item import Reached, reachable
from .project import Project
from .refs import ClassRef, FunctionRef

if TYPE_CHECKING:
    from .candidates import Construction
    from .randomness import GlobalCall
    from .rng_object_records import RngObject


def stored_when_built(
    project: Project,
    init_code: Sequence[Reached],
    dataset: ClassRef,
    made_by: tuple[Construction, ...] | None,
    obj: RngObject,
) -> bool:
    """Return False if `obj`, stored by a method the Dataset's `__init__` runs on an object
    it holds, is stored only in a branch that the constructions `made_by` rule out.

    `init_code` is what building a `dataset` instance runs on the instance itself. True
    whenever that is not certain: the constructions are unknown, the store is not in such a
    method, or an argument deciding the branch is not known.
    """
    store = obj.store
    if made_by is None or obj.owner is None or store.function.name == "__init__":
        return True
    branches = [
        branch
        for branch in store.function.branches
        if branch.subject in store.function.params and branch.governs(obj.store_span) is not None
    ]
    if not branches:
        return True
    calls = list(_holder_calls(project, init_code, obj.owner, store))
    if not calls:
        return True
    for call, caller in calls:
        for index in range(len(made_by)):
            if not any(
                _ruled_out(project, dataset, made_by, index, call, caller, store, branch, obj)
                for branch in branches
            ):
                return True
    return False


def _ruled_out(
    project: Project,
    dataset: ClassRef,
    made_by: tuple[Construction, ...],
    index: int,
    call: Value,
    caller: FunctionRef,
    store: FunctionRef,
    branch: Branch,
    obj: RngObject,
) -> bool:
    known = _known_argument(project, dataset, made_by, index, call, caller, store, branch.subject)
    holds = None if known is None else outcome(branch, known)
    return holds is not None and branch.excludes(obj.store_span, holds)


def _known_argument(
    project: Project,
    dataset: ClassRef,
    made_by: tuple[Construction, ...],
    index: int,
    call: Value,
    caller: FunctionRef,
    method: FunctionRef,
    param: str,
) -> Known | None:
    """Return what `call` (a method call on a held object, in `caller`) passes as `param` of
    `method` when the Dataset is built by construction `index` of `made_by`."""
    passed = passed_argument(call, method.function, param)
    if passed is None or isinstance(passed, Known):
        return passed
    if passed.kind is Kind.PARAM and caller.function.name == "__init__":
        return constructed_with(project, dataset, made_by, index, caller, passed.name)
    return None


def _holder_calls(
    project: Project, init_code: Sequence[Reached], owner: ClassRef, method: FunctionRef
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the calls `self.<attribute>.<name>(...)` in building code that run `method` on
    an object of class `owner` the Dataset holds."""
    name = method.function.name
    for reached in init_code:
        for call in reached.function.function.calls:
            callee = call.base
            if (
                callee is None
                or callee.kind is not Kind.ATTRIBUTE
                or callee.name != name
                or callee.base is None
                or callee.base.kind is not Kind.ATTRIBUTE
                or callee.base.base is None
                or callee.base.base.kind is not Kind.SELF
            ):
                continue
            found = project.find_method(owner, name)
            if found is not None and found[1] == method:
                yield call, reached.function


def drawn_by_every_candidate(code: Sequence[Reached], draws: list[GlobalCall]) -> list[GlobalCall]:
    """Return `draws`, without those through a held object looked up by name at run time
    when some candidate class of that object draws nothing.

    `code` is the per-item code the draws were found in: each candidate class appears there
    as the class of an entry into the held object (`self.transforms(x)` running its
    `__call__`).
    """
    candidates: dict[tuple[str, ...], set[ClassRef]] = {}
    for reached in code:
        if reached.looked_up_in and reached.holder and reached.self_class is not None:
            candidates.setdefault(reached.holder, set()).add(reached.self_class)
    # Objects held deeper inherit the lookup (`self.transforms.pipeline`): the candidates are
    # those at the shortest path, where the class is looked up.
    candidates = {
        holder: classes
        for holder, classes in candidates.items()
        if not any(holder[: len(other)] == other for other in candidates if other != holder)
    }
    if not candidates:
        return draws
    drawing: dict[tuple[str, ...], set[ClassRef]] = {}
    for draw in draws:
        holder = draw.reached.holder
        if holder in candidates and draw.reached.self_class is not None:
            drawing.setdefault(holder, set()).add(draw.reached.self_class)
    return [
        draw
        for draw in draws
        if draw.reached.holder not in candidates
        or drawing.get(draw.reached.holder, set()) >= candidates[draw.reached.holder]
    ]


def run_by_holders(project: Project, ref: ClassRef) -> tuple[Reached, ...]:
    """Return the methods of `ref` that building a Dataset runs on a `ref` instance it holds.

    `self.transforms.build(train)` in a Dataset's `__init__` makes the held object store
    what `build` stores (`self.pipeline = self.train_pipeline()`) before any worker starts,
    like its own `__init__` would.
    """
    return _run_by_holders(project).get(ref, ())


@per_project
def _run_by_holders(project: Project) -> dict[ClassRef, tuple[Reached, ...]]:
    found: dict[ClassRef, list[Reached]] = {}
    for dataset in dataset_classes(project):
        starts = [
            Reached(init, dataset, (init.qualname,))
            for init in method_candidates(project, dataset, "__init__")
        ]
        for reached in reachable(project, starts):
            if reached.self_class is not None and reached.holder:
                found.setdefault(reached.self_class, []).append(reached)
    return {ref: tuple(reached) for ref, reached in found.items()}
