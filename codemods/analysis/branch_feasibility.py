"""Which branches of per-item code run for the instances a DataLoader loads.

Per-item code often tests a value set from a constructor argument (`if self.train:`,
`if self.split == "train":`). When every construction of the instances in question passes
that argument as a literal, or as a parameter that an enclosing `if mode == "test":` /
`elif` / `else` pins down, the outcome of the test is known and the code in the branch not
taken never runs in a worker.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..types import Span
from .branch_facts import Branch
from .facts import Kind, Value, literal_key
from .project import Project
from .refs import ClassRef, FunctionRef

if TYPE_CHECKING:
    from .candidates import Construction
    from .per_item import Reached


@dataclass(frozen=True)
class Known:
    """What is known of a value at one construction."""

    #: The literals it may be (repr keys); None if not known to be one of a few literals.
    one_of: frozenset[str] | None = None
    #: Literals it is known to differ from (an `elif` / `else` of `if mode == "train":`).
    excluded: frozenset[str] = frozenset()
    #: Its truth, when only that is known (`if flag:`).
    truth: bool | None = None


def branch_not_taken(project: Project, reached: Reached, span: Span) -> bool:
    """Return True if the code at `span` of `reached` never runs on the instances built.

    The instances are those `reached.made_by` makes, or, when those are not known, those
    every construction of the class in the project makes.
    """
    ref = reached.self_class
    if ref is None or reached.holder != ():
        return False
    for branch in reached.function.function.branches:
        if not branch.subject.startswith("self.") or branch.governs(span) is None:
            continue
        values = _attribute_values(project, ref, branch.subject, reached.made_by)
        if values is None:
            continue
        outcomes = {outcome(branch, known) for known in values}
        holds = outcomes.pop() if len(outcomes) == 1 else None
        if holds is not None and branch.excludes(span, holds):
            return True
    return False


def outcome(branch: Branch, known: Known) -> bool | None:
    """Return whether `branch`'s test holds for a value of which `known` is known."""
    result: bool | None = None
    if not branch.literals:
        result = known.truth
        if result is None and known.one_of:
            truths = {bool(_literal(key)) for key in known.one_of}
            result = truths.pop() if len(truths) == 1 else None
    elif known.one_of:
        matches = {
            any(_literal(key) == _literal(other) for other in branch.literals)
            for key in known.one_of
        }
        result = matches.pop() if len(matches) == 1 else None
    elif set(branch.literals) <= known.excluded:
        result = False
    return None if result is None else result != branch.negated


def _literal(key: str) -> object:
    try:
        return ast.literal_eval(key)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return object()  # equal to nothing


def _attribute_values(
    project: Project,
    ref: ClassRef,
    subject: str,
    made_by: tuple[Construction, ...] | None,
) -> list[Known] | None:
    """Return what `self.<attribute>` may be in the instances of `ref` built (None: unknown).

    Only an attribute stored by `__init__` (of `ref` or a candidate base) counts: one set by
    other methods may change between items.
    """
    order = project.mro(ref)
    stores: list[tuple[ClassRef, FunctionRef, Value]] = []
    for owner in order:
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                continue
            for assignment in function.assignments:
                if assignment.target == subject:
                    if function.name != "__init__":
                        return None
                    stores.append((owner, FunctionRef.of(owner.module, function), assignment.value))
    if not stores:
        return None
    sites = made_by
    if sites is None:
        sites = tuple((site.call, site.function) for site in project.callers(ref))
    if not sites:
        return None
    found: list[Known] = []
    for owner, init, value in stores:
        params = [option for option in value.alternatives() if option.kind is Kind.PARAM]
        if params and _overridden(project, order, owner):
            return None  # a subclass `__init__` decides what reaches this one
        for call, where in sites if params else sites[:1]:
            # `split = "all" if split == "train" else split`: each value the name may hold.
            options = [
                _passed(call, where, init.function.params, option.name)
                if option.kind is Kind.PARAM
                else _literal_known(option)
                for option in value.alternatives()
            ]
            known = _union(options)
            if known is None:
                return None
            found.append(known)
    return found


def _literal_known(value: Value) -> Known | None:
    key = literal_key(value)
    return None if key is None else Known(frozenset({key}))


def _union(options: list[Known | None]) -> Known | None:
    """Return what is known of a value that may be any of `options`."""
    if len(options) == 1:
        return options[0]
    keys: set[str] = set()
    for option in options:
        if option is None or option.one_of is None:
            return None
        keys |= option.one_of
    return Known(frozenset(keys))


def _overridden(project: Project, order: Iterable[ClassRef], owner: ClassRef) -> bool:
    """Return True if a subclass of `owner` in `order` defines its own `__init__`."""
    return any(
        other != owner and other.cls.method("__init__") and owner in project.mro(other)
        for other in order
    )


def _passed(call: Value, where: FunctionRef, params: tuple[str, ...], param: str) -> Known | None:
    """Return what construction `call` (in `where`) passes as `param` of `__init__`."""
    if any(arg.kind is Kind.STARRED for arg in call.args) or any(
        key is None for key, _ in call.keywords
    ):
        return None
    passed = call.keyword(param)
    index = params.index(param) - 1 if param in params else -1
    if passed is None and 0 <= index < len(call.args):
        passed = call.args[index]
    if passed is None:
        return None  # the default: not known here
    key = literal_key(passed)
    if key is not None:
        return Known(frozenset({key}))
    if passed.kind is Kind.PARAM and call.span is not None:
        return constrained(where, passed.name, call.span)
    return None


def constrained(where: FunctionRef, param: str, span: Span) -> Known | None:
    """Return what the `if` statements enclosing `span` in `where` say of parameter `param`."""
    one_of: frozenset[str] | None = None
    excluded: set[str] = set()
    truth: bool | None = None
    for branch in where.function.branches:
        governs = branch.governs(span)
        if branch.subject != param or governs is None:
            continue
        holds = governs != branch.negated
        if not branch.literals:
            truth = holds
        elif holds:
            literals = frozenset(branch.literals)
            one_of = literals if one_of is None else one_of & literals
        else:
            excluded.update(branch.literals)
    if one_of is None and not excluded and truth is None:
        return None
    return Known(one_of, frozenset(excluded), truth)
