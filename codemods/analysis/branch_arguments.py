"""What per-item code passes to the helpers it calls, when that decides a branch of theirs.

`__getitem__` often hands a flag stored from a constructor argument to a helper that tests
it: `self.augment(image, self.flip)` with `def augment(self, image, flip): if flip: ...`, or
spells the flag out (`self.augment(image, False)`). When the argument is a literal, a literal
default, or a `self.<attribute>` whose value is known for the instances built, the helper's
test has a known outcome and the branch it rules out never runs in a worker.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .branch_feasibility import _attribute_values, branch_not_taken
from .facts import FunctionFacts, Kind, ModuleFacts, Value, literal_key
from .known_values import Known, element_known, passed_argument
from .refs import ClassRef, FunctionRef

if TYPE_CHECKING:
    from .per_item import Reached
    from .project import Project

#: What is known of each parameter a branch tests: one `Known` per construction of the
#: instances in question (or one for a literal written at the call).
KnownArguments = tuple[tuple[str, tuple[Known, ...]], ...]


def known_arguments(
    project: Project, caller: Reached, call: Value, callee: FunctionRef
) -> KnownArguments:
    """Return what `call` (in the code of `caller`) passes to the parameters of `callee` that
    a branch of `callee` tests, where that is known."""
    function = callee.function
    tested = {
        subject
        for subject in (*(branch.subject for branch in function.branches), *_handed_on(function))
        if subject in function.params
        and not any(assignment.target == subject for assignment in function.assignments)
    }
    if not tested:
        return ()
    bound = _bound_by_call(project, call, callee, caller.function.module)
    if bound is None:
        return ()
    found: list[tuple[str, tuple[Known, ...]]] = []
    for param in sorted(tested):
        passed: Value | Known | None
        if function.params.index(param) >= function.positional_count and (
            call.keyword(param) is None
        ):
            # Keyword-only (or `*args`): no positional argument fills it.
            splat = any(key is None for key, _ in call.keywords)
            default = None if splat else function.default_of(param)
            passed = None if default is None else Known(frozenset({default}))
        else:
            passed = passed_argument(call, function, param, bound)
        knowns = _known(project, caller, passed) if passed is not None else None
        if knowns is not None:
            found.append((param, knowns))
    return tuple(found)


def _handed_on(function: FunctionFacts) -> Iterator[str]:
    """Yield the parameters `function` passes on, as they are, to the functions it calls
    (`def prepare(x, amount=0): return jitter(x, amount)`): a test there may read them."""
    for call in function.calls:
        for argument in (*call.args, *(value for _, value in call.keywords)):
            if argument.kind is Kind.PARAM:
                yield argument.name
            elif (held := _element_of_param(argument)) is not None:
                yield held.name


def _element_of_param(value: Value) -> Value | None:
    """Return the parameter `value` reads an element of at a literal int (`odds[0]`)."""
    if value.kind is not Kind.SUBSCRIPT or value.base is None or len(value.args) != 1:
        return None
    if value.base.kind is not Kind.PARAM or value.args[0].kind is not Kind.INT:
        return None
    return value.base


def _bound_by_call(
    project: Project, call: Value, callee: FunctionRef, near: ModuleFacts
) -> int | None:
    """Return how many leading parameters of `callee` the call fills itself (1 for the `self`
    of `self.method(...)`), or None when that is not plain to see (the call runs `callee`
    otherwise than by calling it by name: `map(f, xs)`, an object's `__call__`)."""
    function = callee.function
    base = call.base
    if base is None:
        return None
    is_static = any("builtins.staticmethod" in d.qualnames for d in function.decorators)
    if function.name == "__call__" and function.is_method and not is_static:
        # `self.tokenizer(coords, shuffle=False)`: calling the object passes it as `self`.
        return 1 if base.kind in (Kind.NAME, Kind.ATTRIBUTE) else None
    if base.kind is Kind.NAME and callee not in project.targets(base, near):
        return None
    if base.kind is Kind.ATTRIBUTE and base.name != function.name:
        return None
    if not function.is_method or function.nested:
        return 0 if base.kind is Kind.NAME and not function.nested else None
    if is_static:
        return None
    if base.kind is Kind.ATTRIBUTE and base.base is not None:
        holder = base.base
        if holder.kind is Kind.SELF or holder.is_call_to("builtins.super"):
            return 1
        if not any(isinstance(target, ClassRef) for target in project.targets(holder, near)):
            # `self.featurizer.process(x, training=False)`: a method of an instance the
            # caller holds, bound to it (`Class.method(obj, ...)` passes `self` itself).
            return 1
    if base.kind is Kind.NAME and call.args and call.args[0].kind is Kind.SELF:
        return 0  # `Base.method(self, ...)`: `self` is passed as the first argument
    return None


def _known(project: Project, caller: Reached, passed: Value | Known) -> tuple[Known, ...] | None:
    """Return what is known of an argument `caller` passes: a literal, an attribute of its
    own instance stored from the constructor arguments, or a parameter it was given."""
    if isinstance(passed, Known):
        return (passed,)
    if passed.kind is Kind.PARAM:
        return dict(caller.arguments).get(passed.name)
    if passed.kind is Kind.ALTERNATIVES and not passed.name:
        # A local bound in each arm of an `if` (`scale, flip = 1.0, False` in the `else`):
        # the bindings in an arm the instances never take do not reach the call.
        options = [
            option
            for option in passed.args
            if option.span is None or not branch_not_taken(project, caller, option.span)
        ]
        keys = [literal_key(option) for option in options]
        if options and len(options) < len(passed.args) and None not in keys:
            return (Known(frozenset(key for key in keys if key is not None)),)
        return None
    if (held := _element_of_param(passed)) is not None:
        sequences = dict(caller.arguments).get(held.name)
        if sequences is None:
            return None
        elements = [element_known(known, passed.args[0]) for known in sequences]
        return None if None in elements else tuple(e for e in elements if e is not None)
    if (
        passed.kind is Kind.ATTRIBUTE
        and passed.base is not None
        and passed.base.kind is Kind.SELF
        and caller.self_class is not None
        and caller.holder == ()
    ):
        values = _attribute_values(
            project, caller.self_class, f"self.{passed.name}", caller.made_by
        )
        return None if values is None else tuple(values)
    return None
