"""Per-item code: what a DataLoader worker runs for every item.

Per-item code is `__getitem__`, `__getitems__`, `__iter__` (and `__next__`) of a Dataset,
plus the project functions and methods they call, a few levels deep: methods of `self`
(through project base classes), module functions, objects the dataset holds (`self.transform`
whose class defines `__call__`), and classes instantiated per item. A project callable that
a third-party dataset applies per item (`ImageFolder(root, transform=Mask())`) stands for
that dataset: its per-item code starts at `__call__`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from . import catalog, held_datasets
from .branch_arguments import KnownArguments, known_arguments
from .branch_feasibility import branch_not_taken
from .called_objects import run_when_called
from .candidates import MAX_PER_ITEM_DEPTH, Construction
from .facts import Kind, Value
from .function_registries import registered_functions
from .held_calls import (
    Callee,
    extend_holder,
    held_called,
    held_elements_called,
    looked_up_in,
    loop_variable_called,
)
from .held_datasets import held_elements
from .held_functions import picked_functions
from .memo import per_project
from .method_lookup import method_candidates
from .passed_callables import called_arguments
from .pinned_arguments import seen_from_holder
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef, VariableRef
from .transform_containers import container_steps, is_container


@dataclass(frozen=True)
class Reached:
    """A function that per-item code runs, and how it got there."""

    function: FunctionRef
    #: The class `self` is an instance of inside `function` (None for plain functions).
    self_class: ClassRef | None
    #: Qualnames from the per-item entry method to `function`.
    chain: tuple[str, ...]
    #: Which object `self` is inside `function`, as attribute names from the dataset
    #: instance: () for the dataset itself, ("transform",) for `self.transform` of it; None
    #: when it is an object created in per-item code or reached otherwise.
    holder: tuple[str, ...] | None = ()
    #: The constructor calls that made `self` (and the code they are in), when all are
    #: known: what its `__init__` stored depends on them. None: any caller may have.
    made_by: tuple[Construction, ...] | None = None
    #: The registries of functions (`OPS` of `OPS[name](x)`) the way here picks from at run
    #: time: `function` is one candidate of each, not certainly run.
    registries: tuple[str, ...] = ()
    #: The project modules the way here looks a class up in by a name known only at run
    #: time (`getattr(importlib.import_module(...), name)`): `self_class` is one candidate.
    looked_up_in: tuple[str, ...] = ()
    #: What the call that led here passes to the parameters `function` tests in an `if`,
    #: where that is known (`self.augment(x, self.flip)` of instances built with flip=False).
    arguments: KnownArguments = ()
    #: The project modules the way here picks a function from by a name known only at run
    #: time (`globals()[cfg.transform](...)`): `function`, or the factory that made it, is
    #: one candidate, not certainly run.
    picked_in: tuple[str, ...] = ()


@per_project
def per_item_code(
    project: Project, ref: ClassRef, made_by: tuple[Construction, ...] | None = None
) -> tuple[Reached, ...]:
    """Return the functions a worker runs per item of dataset `ref`, entry methods first.

    `made_by`: the constructor calls that make the instances in question (e.g. the ones that
    reach one DataLoader); what `__init__` stores then comes from their arguments only.
    """
    entries = [
        Reached(function, ref, (function.qualname,), made_by=made_by)
        for function in _entries(project, ref, catalog.PER_ITEM_METHODS)
    ]
    if not entries and held_datasets.keeps_library_getitem(project, ref):
        # The torchvision base's `__getitem__` calls what `self.transform` (and the like)
        # holds: `HalfCifar.__getitem__` runs `Shift.__call__`. Only a transform made where
        # a `ref` is made: one a helper's parameter brings may come from another caller's run.
        entry = f"{ref.qualname}.__getitem__"
        entries = [
            Reached(
                function,
                self_class,
                (entry, function.qualname),
                holder,
                built,
                (),
                looked,
                picked_in=picked,
            )
            for name in held_datasets.APPLIED_BY_TORCHVISION
            for function, self_class, holder, built, looked, picked in held_called(
                project, ref, name, made_by, ()
            )
            if built and any(_builds(project, site, ref) for _, site in built)
        ]
    return reachable(project, entries)


def entry_methods(project: Project, ref: ClassRef) -> tuple[FunctionRef, ...]:
    """Return the project methods a worker calls first for every item (or stream) of `ref`:
    where a once-per-worker reseed goes."""
    return tuple(dict.fromkeys(_entries(project, ref, catalog.ENTRY_METHODS)))


def _entries(project: Project, ref: ClassRef, methods: Sequence[str]) -> list[FunctionRef]:
    found = [function for method in methods for function in method_candidates(project, ref, method)]
    if (
        found
        or project.derives_from(ref, catalog.TORCH_DATASET_BASES)
        or any(project.find_method(ref, method) for method in catalog.PER_ITEM_METHODS)
    ):
        return found
    # A project callable that a third-party dataset applies per item (a torchvision
    # dataset's `transform=`): calling it is what the worker runs for each item.
    return list(run_when_called(project, ref))


def reachable(
    project: Project,
    entries: list[Reached],
    follows: Callable[[Reached], Callable[[Value], bool] | None] | None = None,
) -> tuple[Reached, ...]:
    """Return `entries` and everything they call in the project, breadth first
    (`follows`: for a function reached, which of its calls to follow; None: every one)."""
    seen: dict[
        tuple[FunctionRef, ClassRef | None, tuple[str, ...] | None, KnownArguments], Reached
    ] = {}
    queue = deque(entries)
    while queue:
        current = queue.popleft()
        # A helper called with different known flags runs different branches: each way counts.
        key = (current.function, current.self_class, current.holder, current.arguments)
        if key in seen:
            continue
        seen[key] = current
        if len(current.chain) > MAX_PER_ITEM_DEPTH:
            continue
        # What a function calls does not depend on the way to it, and many datasets reach
        # the same helpers: found once per caller with its chain cut to itself, and with
        # the path of a held object standing for every such path (wrappers holding
        # wrappers reach one transform by thousands of paths).
        way = replace(current, chain=current.chain[-1:], holder=_relative(current.holder))
        only = follows(current) if follows is not None else None
        found = _callees_of(project, way) if only is None else tuple(callees(project, way, only))
        queue.extend(
            Reached(
                one.function,
                one.self_class,
                (*current.chain, *one.chain[1:]),
                _rebased(one.holder, current.holder),
                one.made_by,
                one.registries,
                one.looked_up_in,
                one.arguments,
                one.picked_in,
            )
            for one in found
        )
    return tuple(seen.values())


#: The path of an object the dataset holds, whichever it is: what a function calls depends
#: only on whether `self` is the dataset, a held object or neither; the callees' own paths
#: extend the caller's.
_HELD = ("<held>",)


def _relative(holder: tuple[str, ...] | None) -> tuple[str, ...] | None:
    return _HELD if holder else holder


def _rebased(
    holder: tuple[str, ...] | None, caller_holder: tuple[str, ...] | None
) -> tuple[str, ...] | None:
    if holder is not None and caller_holder and holder[: len(_HELD)] == _HELD:
        return (*caller_holder, *holder[len(_HELD) :])
    return holder


@per_project
def _callees_of(project: Project, caller: Reached) -> tuple[Reached, ...]:
    return tuple(callees(project, caller))


def callees(
    project: Project, caller: Reached, only: Callable[[Value], bool] | None = None
) -> Iterator[Reached]:
    """Yield the project functions `caller` calls directly (`only`: through the calls it
    accepts)."""
    for call, callee in _callees(project, caller, only):
        arguments = known_arguments(project, caller, call, callee.function)
        yield replace(callee, arguments=arguments) if arguments else callee


def _callees(
    project: Project, caller: Reached, only: Callable[[Value], bool] | None
) -> Iterator[tuple[Value, Reached]]:
    """Yield the project functions `caller` calls directly, each with the call."""
    for call in (*caller.function.function.calls, *_indexing_calls(caller)):
        if only is not None and not only(call):
            continue
        if call.span is not None and branch_not_taken(project, caller, call.span):
            continue  # in a branch the instances loaded never take
        base_method = _base_method_on_self(project, call, caller)
        if base_method is not None:
            chain = (*caller.chain, base_method.qualname)
            yield (
                call,
                Reached(
                    base_method,
                    caller.self_class,
                    chain,
                    caller.holder,
                    caller.made_by,
                    caller.registries,
                    caller.looked_up_in,
                    picked_in=caller.picked_in,
                ),
            )
            continue
        for reached in call_targets(project, caller, call):
            yield call, reached


def _indexing_calls(caller: Reached) -> Iterator[Value]:
    """Yield `self.held.__getitem__(key)` for each `self.held[key]` read by `caller`: a
    Dataset wrapping another (held from a constructor argument or built in `__init__`) runs
    the inner one's `__getitem__` when it indexes it."""
    if caller.self_class is None:
        return
    for item in caller.function.function.self_subscripts:
        if item.base is not None:
            method = Value(Kind.ATTRIBUTE, item.span, name="__getitem__", base=item.base)
            yield Value(Kind.CALL, item.span, base=method, args=item.args)


def call_targets(project: Project, caller: Reached, call: Value) -> Iterator[Reached]:
    """Yield the project functions one call of `caller` runs."""
    callee = call.base
    if callee is None:
        return
    mapped = _mapped_function(project, call, caller)
    if mapped is not None:
        yield from _mapped_calls(project, caller, mapped, call.args[1])
        return
    registries = caller.registries
    registry = _function_registry(callee)
    if registry is not None and registry.qualnames:
        registries = (*registries, registry.qualnames[0].rpartition(".")[2])
    for function, self_class, holder, made_by, looked_up, picked in _resolve_callee(
        project, callee, caller
    ):
        chain = (*caller.chain, function.qualname)
        modules = tuple(dict.fromkeys((*caller.looked_up_in, *looked_up)))
        picked_in = tuple(dict.fromkeys((*caller.picked_in, *picked)))
        yield Reached(
            function,
            self_class,
            chain,
            holder,
            made_by,
            registries,
            modules,
            picked_in=picked_in,
        )
        # `self.load(name, self.transform)`, where `load` calls `transform(image)`, and
        # `make_features(x, self.search)`, where it calls `search.templates(x)`.
        for passed in called_arguments(function, call):
            for ran in _resolve_callee(project, passed, caller):
                yield Reached(
                    ran[0], ran[1], (*chain, ran[0].qualname), ran[2], ran[3], picked_in=ran[5]
                )


def _resolve_callee(project: Project, callee: Value, caller: Reached) -> Iterator[Callee]:
    module = caller.function.module
    self_class = caller.self_class
    same = caller.holder
    made_by = caller.made_by
    if callee.kind is Kind.FUNCTION:
        nested = module.function(callee.name)
        if nested is not None:
            yield FunctionRef.of(module, nested), self_class, same, made_by, (), ()
        return
    if callee.kind in (Kind.NAME, Kind.ALTERNATIVES):
        for target in project.targets(callee, module):
            if isinstance(target, FunctionRef):
                yield target, project.class_of_function(target), None, None, (), ()
            elif isinstance(target, ClassRef):
                found = project.find_method(target, "__init__")
                if found is not None:
                    yield found[1], target, None, None, (), ()
        return
    if callee.kind is Kind.CALL:
        # `intensity(x)` with `intensity = make_intensity(cfg)`: the closure it returned.
        for closure, picked in picked_functions(project, callee, caller.function):
            yield closure, project.class_of_function(closure), None, None, (), picked
        # `RandomScale(0.5)(x)`, or `aug = Compose([...])` then `aug(x)`: an object made
        # here, per item, and called.
        yield from _made_here(project, callee, caller, "__call__")
        return
    registry = _function_registry(callee)
    if registry is not None:
        # `OPS[name](x)` / `OPS[name].f(x)`: any function the registry holds may run.
        for target in project.targets(registry, module):
            if isinstance(target, VariableRef):
                field = callee.name if callee.kind is Kind.ATTRIBUTE else None
                for registered in registered_functions(project, target, field):
                    yield registered, None, None, None, (), ()
        return
    made = callee.base if callee.kind is Kind.ATTRIBUTE else None
    if made is not None and made.kind is Kind.CALL and not made.is_call_to("builtins.super"):
        # `Crop(size).apply(x)`, or `crop = Crop(size)` then `crop.apply(x)`.
        yield from _made_here(project, made, caller, callee.name)
        return
    if self_class is None:
        return
    if callee.kind is Kind.UNKNOWN and callee.name:
        # `for t in self.transforms: x = t(x)`, `[t(x) for t in self.transforms]`: each
        # callable the held list holds.
        yield from loop_variable_called(project, caller, callee.name, None)
        return
    if (
        callee.kind is Kind.ATTRIBUTE
        and callee.base is not None
        and callee.base.kind is Kind.UNKNOWN
    ):
        # `for prob, p in self.pipeline: x = p.perturb(x)`: that method of each held object.
        yield from loop_variable_called(project, caller, callee.base.name, callee.name)
        return
    if callee.kind is Kind.SUBSCRIPT and callee.base is not None:
        # `self.transform["joint"](x)`: any callable the held dict or list holds.
        yield from held_elements_called(project, caller, callee.base)
        return
    if callee.kind is Kind.SELF:
        found = project.find_method(self_class, "__call__")
        if found is not None:
            yield found[1], self_class, same, made_by, (), ()
        return
    if callee.kind is not Kind.ATTRIBUTE or callee.base is None:
        return
    holder = callee.base
    if holder.kind is Kind.SELF:
        found = project.find_method(self_class, callee.name)
        if found is not None:
            yield found[1], self_class, same, made_by, (), ()
            return
        yield from held_called(project, self_class, callee.name, made_by, same)
        return
    if holder.kind is Kind.ATTRIBUTE and holder.base is not None and holder.base.kind is Kind.SELF:
        held = held_datasets.held(project, self_class, holder.name, sites=made_by)
        looked_up = looked_up_in(held)
        for ref in held.classes:
            found = project.find_method(ref, callee.name)
            if found is not None:
                built = seen_from_holder(project, self_class, held.made_by(ref), made_by)
                yield found[1], ref, extend_holder(same, holder.name), built, looked_up, ()
        return
    container = holder.base if holder.kind is Kind.SUBSCRIPT else None
    if container is not None and container.kind is Kind.ATTRIBUTE and container.base is not None:
        if container.base.kind is Kind.SELF:
            # `self.datasets[i][index]`, `self.datasets[i].load(x)`: an element of a held list.
            held = held_elements(project, self_class, container.name, made_by)
            looked_up = looked_up_in(held)
            for ref in held.classes:
                found = project.find_method(ref, callee.name)
                if found is not None:
                    extended = extend_holder(same, container.name)
                    built = seen_from_holder(project, self_class, held.made_by(ref), made_by)
                    yield found[1], ref, extended, built, looked_up, ()
        return
    if holder.is_call_to("builtins.super"):
        defining = project.class_of_function(caller.function)
        order = project.mro(self_class)
        if defining in order:
            for owner in order[order.index(defining) + 1 :]:
                method = owner.cls.method(callee.name)
                function = owner.module.function(method) if method else None
                if function is not None:
                    yield FunctionRef.of(owner.module, function), self_class, same, made_by, (), ()
                    return
        return


def _builds(project: Project, function: FunctionRef, ref: ClassRef) -> bool:
    """Return True if `function` constructs a `ref` itself."""
    return any(
        call.base is not None and ref in project.targets(call.base, function.module)
        for call in function.function.calls
    )


def _made_here(project: Project, call: Value, caller: Reached, method: str) -> Iterator[Callee]:
    """Yield method `method` (`__call__`: what calling the object runs) of the project class
    whose instance `call` makes in `caller`'s own code, with that construction."""
    if call.base is None:
        return
    for target in project.targets(call.base, caller.function.module):
        if (
            isinstance(target, ExternalRef)
            and is_container(target.qualname)
            and method == "__call__"
        ):
            # `Compose([Shift(), Crop()])(x)`: each step of the list, made here too.
            steps = container_steps(target.qualname, call)
            for option in steps.alternatives() if steps is not None else ():
                for step in option.args if option.kind is Kind.SEQUENCE else ():
                    if step.kind is Kind.CALL:
                        yield from _made_here(project, step, caller, method)
            continue
        if not isinstance(target, ClassRef):
            continue
        made = ((call, caller.function),)
        if method == "__call__":
            for hook in run_when_called(project, target):
                yield hook, target, None, made, (), ()
        else:
            found = project.find_method(target, method)
            if found is not None:
                yield found[1], target, None, made, (), ()


def _mapped_function(project: Project, call: Value, caller: Reached) -> FunctionRef | None:
    """Return the project function of `map(function, iterable)`, if the call is one."""
    if call.base is None or len(call.args) != 2 or call.keywords:
        return None
    module = caller.function.module
    if not project.is_one_of(call.base, module, _MAP):
        return None
    return project.function_of(call.args[0], module)


def _mapped_calls(
    project: Project, caller: Reached, function: FunctionRef, iterable: Value
) -> Iterator[Reached]:
    """Yield what `map(function, iterable)` runs once consumed: `function` itself and, when
    it calls the element it is given (`lambda t: t(x)`), what calling each element runs."""
    chain = (*caller.chain, function.qualname)
    nested = function.function.nested
    self_class = caller.self_class if nested else project.class_of_function(function)
    holder = caller.holder if nested else None
    made_by = caller.made_by if nested else None
    yield Reached(
        function,
        self_class,
        chain,
        holder,
        made_by,
        caller.registries,
        caller.looked_up_in,
        picked_in=caller.picked_in,
    )
    params = function.function.params
    if not params or not any(
        inner.base is not None and inner.base.kind is Kind.PARAM and inner.base.name == params[0]
        for inner in function.function.calls
    ):
        return
    for element, element_class, element_holder, element_made, looked_up, _ in held_elements_called(
        project, caller, iterable
    ):
        element_chain = (*chain, element.qualname)
        modules = tuple(dict.fromkeys((*caller.looked_up_in, *looked_up)))
        yield Reached(
            element,
            element_class,
            element_chain,
            element_holder,
            element_made,
            caller.registries,
            modules,
            picked_in=caller.picked_in,
        )


_MAP = frozenset({"builtins.map"})


def _function_registry(callee: Value) -> Value | None:
    """Return `OPS` of a callee `OPS[key]` or `OPS[key].field`, if it is spelled so."""
    if callee.kind is Kind.ATTRIBUTE and callee.base is not None:
        callee = callee.base
    if callee.kind is Kind.SUBSCRIPT and callee.base is not None and callee.base.kind is Kind.NAME:
        return callee.base
    return None


def _base_method_on_self(project: Project, call: Value, caller: Reached) -> FunctionRef | None:
    """Return the base-class method `Base.method(self, ...)` runs on the caller's own instance.

    `BaseSet.__init__(self, ...)` (instead of `super().__init__(...)`) and a mixin's
    `Mixin.__init__(self)` run on the same object: what they store is the instance's state.
    """
    self_class = caller.self_class
    if (
        self_class is None
        or call.base is None
        or call.base.kind is not Kind.NAME
        or not call.args
        or call.args[0].kind is not Kind.SELF
    ):
        return None
    order = project.mro(self_class)
    for target in project.targets(call.base, caller.function.module):
        if isinstance(target, FunctionRef) and project.class_of_function(target) in order:
            return target
    return None
