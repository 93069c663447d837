"""Where per-item code draws from, reseeds or re-creates RNG objects (one function at a time)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from . import catalog
from .branch_feasibility import branch_not_taken
from .candidates import MAX_CALL_DEPTH
from .facts import Kind, ModuleFacts, Value, mentions_param, string_literal
from .held_datasets import held_classes
from .memo import per_project
from .per_item import Reached
from .project import Project
from .refs import ClassRef, FunctionRef
from .rng_object_records import (
    CHAIN_WORKER_INIT,
    RESEED_IN_WORKER,
    RESEED_OBJECT,
    RESEED_WALKER,
    ReseedCall,
    RngObject,
    RngUse,
    UseKind,
)

if TYPE_CHECKING:
    # Only for annotations: `RngIndex.per_item` runs the scans, so a runtime import would loop.
    from .rng_objects import RngIndex

#: A call to one of the helpers workerseed inserts is a reseed, not a draw.
_OWN_HELPERS = frozenset({RESEED_IN_WORKER, RESEED_OBJECT, RESEED_WALKER, CHAIN_WORKER_INIT})


def local_path(module: ModuleFacts, qualname: str) -> str | None:
    """Return the dotted name that denotes `qualname` in `module`'s namespace, if one does."""
    own = f"{module.module}."
    if qualname.startswith(own):
        name = qualname[len(own) :]
        if name.partition(".")[0] in module.module_names:
            return name
    best: str | None = None
    for name, values in module.bindings:
        if len(values) != 1 or values[0].kind is not Kind.NAME:
            continue
        for bound in values[0].qualnames:
            if bound == f"{module.module}.{name}":
                continue
            if qualname == bound or qualname.startswith(bound + "."):
                candidate = name + qualname[len(bound) :]
                if best is None or len(candidate) < len(best):
                    best = candidate
    return best


@per_project
def _local_path(project: Project, module: ModuleFacts, qualname: str) -> str | None:
    """`local_path`, asked for the same names by every dataset whose code reaches `module`."""
    del project
    return local_path(module, qualname)


def scan_context(reached: Reached) -> tuple[object, ...]:
    """Return what a scan of `reached.function` depends on besides the function itself.

    `self` (its class, the calls that made it, whether the dataset holds it at a known
    path) and the arguments the way there knows decide which objects a name denotes and
    which branches never run. The path itself only prefixes the paths found, and the rest
    of the way (its chain, the dataset it started from) plays no part: a registry's
    transforms, reached from dozens of datasets and wrappers, are scanned once.
    """
    holder = reached.holder
    held = None if holder is None else bool(holder)
    return (reached.self_class, held, reached.made_by, reached.arguments)


@dataclass(frozen=True)
class ScannedFunction:
    """What a scan of one function found, as seen from the `reached` it was made for."""

    reached: Reached
    uses: tuple[RngUse, ...]
    reseed_calls: tuple[ReseedCall, ...]
    reassigned: frozenset[tuple[ClassRef, str]]

    def seen_from(self, reached: Reached) -> ScannedFunction:
        """Return the same findings as made on the way `reached` (same `scan_context`)."""
        if reached == self.reached:
            return self
        cut = 0 if self.reached.holder is None else len(self.reached.holder)
        prefix = reached.holder or ()

        def moved(path: tuple[str, ...] | None) -> tuple[str, ...] | None:
            return None if path is None else (*prefix, *path[cut:])

        return ScannedFunction(
            reached,
            tuple(
                replace(use, reached=reached, instance_path=moved(use.instance_path))
                for use in self.uses
            ),
            tuple(
                replace(call, reached=reached, instance_owner=moved(call.instance_owner))
                for call in self.reseed_calls
            ),
            self.reassigned,
        )


class _Scan:
    """The RNG uses in one function that per-item code runs."""

    def __init__(self, index: RngIndex, reached: Reached, function: FunctionRef) -> None:
        self.index = index
        self.project = index.project
        self.reached = reached
        self.function = function

    def uses(self) -> Iterator[RngUse]:
        for call in self.function.function.calls:
            base = call.base
            if base is None or self._own_helper(base):
                continue
            if call.span is not None and branch_not_taken(self.project, self.reached, call.span):
                continue
            if base.kind is Kind.ATTRIBUTE and base.base is not None:
                yield from self._method_uses(call, base.base, base.name)
            elif base.kind is Kind.NAME:
                for qualname in base.qualnames:
                    prefix, _, method = qualname.rpartition(".")
                    if prefix:
                        yield from self._method_uses(
                            call, Value(Kind.NAME, base.span, qualnames=(prefix,)), method
                        )
            callee_names = self.project.qualnames(base, self.function.module)
            if any(name.startswith("builtins.") for name in callee_names):
                continue
            arguments: list[tuple[int | str | None, Value]] = [
                *enumerate(call.args),
                *call.keywords,
            ]
            for position, argument in arguments:
                if argument.kind is Kind.STARRED and argument.base is not None:
                    argument = argument.base
                    position = None
                bound = self._bound_parameter(base, position)
                if bound is not None and not parameter_draws(self.project, *bound):
                    continue  # a project helper that only inspects or ignores the object
                for obj, instance_path, namespace_path in self.objects(argument):
                    yield RngUse(
                        self.reached,
                        call,
                        obj,
                        UseKind.DRAW,
                        instance_path,
                        namespace_path,
                        None,
                        callee_names,
                    )

    def _method_uses(self, call: Value, subject: Value, method: str) -> Iterator[RngUse]:
        if method in catalog.RNG_INSPECT_METHODS:
            return
        kind = UseKind.RESEED if method in catalog.RNG_SEED_METHODS else UseKind.DRAW
        for obj, instance_path, namespace_path in self.objects(subject):
            yield RngUse(self.reached, call, obj, kind, instance_path, namespace_path, method)

    def objects(
        self, value: Value
    ) -> Iterator[tuple[RngObject, tuple[str, ...] | None, str | None]]:
        """Yield the RNG objects `value` denotes, with the path it reaches them by."""
        self_class = self.reached.self_class
        holder = self.reached.holder
        for option in value.alternatives():
            if option.kind is Kind.NAME:
                for qualname in option.qualnames:
                    name = _local_path(self.project, self.function.module, qualname)
                    for obj in self.index._qualname_objects(qualname, self.function.module):
                        yield obj, None, name
                continue
            if option.kind is not Kind.ATTRIBUTE or option.base is None or self_class is None:
                continue
            subject = option.base
            if subject.kind is Kind.SELF or _is_type_of_self(subject):
                path = None if holder is None else (*holder, option.name)
                made_by = self.reached.made_by
                for obj in self.index.attribute_objects(self_class, option.name, 0, made_by):
                    yield obj, path, None
            elif (
                subject.kind is Kind.ATTRIBUTE
                and subject.base is not None
                and subject.base.kind is Kind.SELF
            ):
                path = None if holder is None else (*holder, subject.name, option.name)
                for held in held_classes(self.project, self_class, subject.name):
                    for obj in self.index.attribute_objects(held, option.name):
                        yield obj, path, None

    def _bound_parameter(
        self, callee: Value, position: int | str | None
    ) -> tuple[FunctionRef, str] | None:
        """Return the project function and parameter an argument at `position` binds to.

        None when that is not certain: the callee is not one project function or method
        of `self`, or the argument lands in `*args` / `**kwargs`.
        """
        if position is None:
            return None
        offset = 0
        functions: list[FunctionRef] = []
        if callee.kind is Kind.NAME:
            targets = self.project.targets(callee, self.function.module)
            functions = [
                t
                for t in targets
                if isinstance(t, FunctionRef) and t.function.class_qualname is None
            ]
            if len(functions) != len(targets):
                return None
        elif (
            callee.kind is Kind.ATTRIBUTE
            and callee.base is not None
            and callee.base.kind is Kind.SELF
            and self.reached.self_class is not None
        ):
            found = self.project.find_method(self.reached.self_class, callee.name)
            if found is not None:
                functions, offset = [found[1]], 1
        if len(functions) != 1:
            return None
        function = functions[0]
        facts = function.function
        if isinstance(position, str):
            return (function, position) if position in facts.params else None
        index = position + offset
        return (function, facts.params[index]) if index < facts.positional_count else None

    def _own_helper(self, base: Value) -> bool:
        return any(
            isinstance(target, FunctionRef) and target.function.name in _OWN_HELPERS
            for target in self.project.targets(base, self.function.module)
        )

    def reseed_calls(self) -> Iterator[ReseedCall]:
        for call in self.function.function.calls:
            if call.base is None or not call.args:
                continue
            targets = self.project.targets(call.base, self.function.module)
            if not any(
                isinstance(target, FunctionRef) and is_reseed_helper(self.project, target)
                for target in targets
            ):
                continue
            names = tuple(
                name for arg in call.args[1:] if (name := string_literal(arg)) is not None
            )
            owner = call.args[0]
            attributes = _self_path(owner)
            if attributes is not None:
                holder = self.reached.holder
                instance = None if holder is None else (*holder, *attributes)
                yield ReseedCall(self.reached, instance, False, names)
            else:
                yield ReseedCall(self.reached, None, True, names)

    def reassigned(self) -> Iterator[tuple[ClassRef, str]]:
        self_class = self.reached.self_class
        if self_class is None:
            return
        for assignment in self.function.function.assignments:
            if assignment.target.startswith("self."):
                yield self_class, assignment.target[len("self.") :]
        for store in self.function.function.attribute_stores:
            base = store.base
            if (
                base.kind is Kind.ATTRIBUTE
                and base.base is not None
                and base.base.kind is Kind.SELF
            ):
                for held in held_classes(self.project, self_class, base.name):
                    yield held, store.attribute


@per_project
def parameter_draws(project: Project, function: FunctionRef, param: str, depth: int = 0) -> bool:
    """Return False only if `function` provably neither draws from nor keeps parameter `param`.

    An RNG object handed to a helper (`jitter(self.rng, image)`) is drawn from there when the
    helper calls a method of it, passes it on to code that may, stores it or returns it;
    `type(rng)` or ignoring it draws nothing.
    """
    if depth > MAX_CALL_DEPTH:
        return True
    facts = function.function
    stores = [
        *(a.value for a in facts.assignments),
        *(s.value for s in facts.item_stores),
        *(s.value for s in facts.attribute_stores),
        *facts.returns,
    ]
    if any(_may_hold(project, function.module, value, param) for value in stores):
        return True
    for call in facts.calls:
        callee = call.base
        if callee is None:
            continue
        if callee.kind is Kind.ATTRIBUTE and _is_param(callee.base, param):
            if callee.name not in catalog.RNG_INSPECT_METHODS:
                return True
            continue
        passed = [(i, v) for i, v in enumerate(call.args)] + list(call.keywords)
        for position, value in passed:
            if not mentions_param(value, param):
                continue
            if not _is_param(value, param):
                return True  # wrapped in another expression: cannot tell
            names = project.qualnames(callee, function.module)
            if names and all(name.startswith("builtins.") for name in names):
                continue
            targets = project.targets(callee, function.module)
            if len(targets) != 1 or not isinstance(targets[0], FunctionRef):
                return True
            inner = targets[0].function
            if isinstance(position, int):
                if position >= inner.positional_count or inner.class_qualname is not None:
                    return True
                name = inner.params[position]
            elif position in inner.params:
                name = position
            else:
                return True
            if parameter_draws(project, targets[0], name, depth + 1):
                return True
    return False


def _may_hold(project: Project, module: ModuleFacts, value: Value, param: str) -> bool:
    """Return True if `value` may be the object in `param` or something holding it.

    `type(rng).__name__` and other builtin calls on it yield a new object; anything else
    that mentions it may keep it.
    """
    if value.kind is Kind.CALL and value.base is not None:
        names = project.qualnames(value.base, module)
        if names and all(name.startswith("builtins.") for name in names):
            return False
    if value.kind is Kind.ATTRIBUTE and value.base is not None and not _is_param(value.base, param):
        return _may_hold(project, module, value.base, param)
    return mentions_param(value, param)


def _is_param(value: Value | None, param: str) -> bool:
    return value is not None and value.kind is Kind.PARAM and value.name == param


def is_reseed_helper(project: Project, function: FunctionRef) -> bool:
    """Return True for workerseed's `_reseed_rngs_in_worker`, not a namesake of the user's."""
    facts = function.function
    return (
        facts.name == RESEED_IN_WORKER
        and facts.class_qualname is None
        and not facts.nested
        and any(
            project.is_one_of(call.base, function.module, catalog.GET_WORKER_INFO)
            for call in facts.calls
            if call.base is not None
        )
    )


def _self_path(value: Value) -> tuple[str, ...] | None:
    """Return `()` for `self`, `("a", "b")` for `self.a.b`; None for anything else."""
    if value.kind is Kind.SELF:
        return ()
    if value.kind is Kind.ATTRIBUTE and value.base is not None:
        inner = _self_path(value.base)
        return None if inner is None else (*inner, value.name)
    return None


def _is_type_of_self(value: Value) -> bool:
    """Return True for `type(self)` and `self.__class__`."""
    if value.kind is Kind.ATTRIBUTE:
        return value.name == "__class__" and value.base is not None and value.base.kind is Kind.SELF
    return (
        value.kind is Kind.CALL
        and value.base is not None
        and "builtins.type" in value.base.qualnames
        and len(value.args) == 1
        and value.args[0].kind is Kind.SELF
    )
