"""DataLoader call sites: which calls create a torch DataLoader, and what they pass it."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property

from . import catalog
from .facts import FunctionFacts, Kind, ModuleFacts, Value, spelled
from .fixed_settings import fixed_setting
from .forwarded_arguments import (
    forwards_no_keyword,
    forwards_nothing_positional,
    literal_of_every_call,
)
from .loader_classes import loader_subclasses, parameter_loader
from .loader_kwargs import KnownDict, each_branch_persists, splat_dict
from .memo import per_project
from .project import Project
from .refs import ClassRef, FunctionRef
from .settings_splats import left_at_default, settings_cannot_pass
from .stored_attributes import stored_before
from .unbuilt_loaders import after_a_call_that_raises, never_built, never_iterated
from .version_tests import excluded_by_target
from .worker_conditions import made_only_without_workers, persists

#: torch.utils.data.DataLoader's parameters that may be passed by position, in order.
DATALOADER_POSITIONAL = (
    "dataset",
    "batch_size",
    "shuffle",
    "sampler",
    "batch_sampler",
    "num_workers",
    "collate_fn",
    "pin_memory",
    "drop_last",
    "timeout",
    "worker_init_fn",
    "multiprocessing_context",
    "generator",
)


class Presence(enum.Enum):
    """How an argument reaches a call."""

    #: Not passed: the parameter's default applies.
    ABSENT = "absent"
    #: Spelled out, by keyword or by position: `ArgumentLookup.value` holds it.
    PASSED = "passed"
    #: Passed inside a `**dict` whose keys are known: `value` holds it, `container` the dict.
    IN_DICT = "in_dict"
    #: A `**splat` or `*args` whose contents are unknown may pass it.
    MAYBE = "maybe"


@dataclass(frozen=True)
class ArgumentLookup:
    presence: Presence
    value: Value | None = None
    #: For IN_DICT, the dict literal or `dict(...)` call that holds the entry.
    container: Value | None = None


@dataclass(frozen=True)
class LoaderCall:
    """A call that creates a torch DataLoader (or a project subclass of it)."""

    project: Project
    function: FunctionRef
    call: Value
    #: The project subclasses involved (empty when the call is torch's DataLoader itself).
    subclasses: tuple[ClassRef, ...]

    @property
    def module(self) -> ModuleFacts:
        """Return the module the call is in."""
        return self.function.module

    @cached_property
    def positional_names(self) -> tuple[str, ...] | None:
        """Return the parameter names by position, or None if a subclass makes them unknown."""
        names: tuple[str, ...] | None = DATALOADER_POSITIONAL
        for subclass in self.subclasses:
            found = self.project.find_method(subclass, "__init__")
            if found is None:
                continue
            init = found[1].function
            own = init.params[1 : init.positional_count]
            if not own and _forwards_positionals(init):
                continue  # `__init__(self, *args, **kwargs)` passing `*args` on: torch's order
            names = own if names is DATALOADER_POSITIONAL or names == own else None
        return names

    @cached_property
    def accepts_any_keyword(self) -> bool:
        """Return True if every subclass `__init__` forwards unknown keywords (or there is none)."""
        for subclass in self.subclasses:
            found = self.project.find_method(subclass, "__init__")
            if found is not None and not found[1].function.has_var_keyword:
                return False
        return True

    def accepts_keyword(self, name: str) -> bool:
        """Return True if passing keyword `name` cannot be a TypeError."""
        if self.accepts_any_keyword:
            return True
        for subclass in self.subclasses:
            found = self.project.find_method(subclass, "__init__")
            if found is not None and name not in found[1].function.params:
                return False
        return True

    @cached_property
    def splats(self) -> tuple[KnownDict | None, ...]:
        """Return each `**splat` of the call: its known dict, or None if unknown."""
        result = []
        for key, value in self.call.keywords:
            if key is None:
                result.append(splat_dict(self.project, self.function, value))
        return tuple(result)

    def argument(self, name: str) -> ArgumentLookup:
        """Return how parameter `name` is passed: by keyword, position, dict splat, or not."""
        direct = self.call.keyword(name)
        if direct is not None:
            return ArgumentLookup(Presence.PASSED, direct)
        positional = self.positional_names
        if positional is None:
            return ArgumentLookup(Presence.MAYBE)
        if name in positional:
            index = positional.index(name)
            position = 0
            for arg in self.call.args:
                if arg.kind is Kind.STARRED:
                    # The function's own `*args`, which no call of it fills, spreads nothing.
                    if forwards_nothing_positional(self.project, self.function, arg):
                        continue
                    return ArgumentLookup(Presence.MAYBE)
                if position == index:
                    return ArgumentLookup(Presence.PASSED, arg)
                position += 1
        maybe = False
        spread = [value for key, value in self.call.keywords if key is None]
        for splat, value in zip(self.splats, spread, strict=True):
            if splat is None and forwards_no_keyword(self.project, self.function, value, name):
                continue  # the function's own `**kwargs`, into which no call passes `name`
            if splat is None and settings_cannot_pass(self.project, self.function, value, name):
                continue  # configuration data, which holds no function
            if splat is None or name in splat.partial_keys:
                maybe = True
                continue
            # The last store of a key is the one the call sees (`args["k"] = v` after the dict).
            for key, value in reversed(splat.entries):
                if key == name:
                    return ArgumentLookup(Presence.IN_DICT, value, splat.value)
                if key is None:
                    maybe = True
        if maybe:
            return ArgumentLookup(Presence.MAYBE)
        if self.subclasses and self._subclass_passes(name):
            return ArgumentLookup(Presence.MAYBE)
        return ArgumentLookup(Presence.ABSENT)

    def _subclass_passes(self, name: str) -> bool:
        """Return True if a subclass `__init__` passes `name` to its base `__init__` itself.

        Its own parameter of that name left at `None` passes nothing: the call, which does
        not give it, leaves the base's default.
        """
        index = DATALOADER_POSITIONAL.index(name) if name in DATALOADER_POSITIONAL else None
        for subclass in self.subclasses:
            found = self.project.find_method(subclass, "__init__")
            if found is None:
                continue
            init = found[1].function
            for call in init.calls:
                offset = _base_init_offset(call.base)
                if offset is None:
                    continue
                passed = call.keyword(name)
                if passed is None and index is not None and len(call.args) > index + offset:
                    passed = call.args[index + offset]
                own = passed is not None and passed.kind is Kind.PARAM and passed.name == name
                if passed is None or (own and init.default_of(name) == "None"):
                    continue
                return True
        return False

    def may_start_workers(self) -> bool:
        """Return False only if `num_workers` is provably 0 (absent, a literal 0, or a setting
        the code fixes at 0: `CFG.num_workers` with `class CFG: num_workers = 0`)."""
        lookup = self.argument("num_workers")
        if lookup.presence is Presence.ABSENT:
            return bool(self.subclasses) and self._subclass_passes("num_workers")
        if lookup.presence is Presence.MAYBE or lookup.value is None:
            return True
        value = (
            fixed_setting(self.project, lookup.value, self.function)
            or stored_before(self.project, self.function, self.call, lookup.value)
            or lookup.value
        )
        if value.kind is Kind.INT and value.number == 0:
            return False
        if (
            value.kind is Kind.PARAM
            and literal_of_every_call(self.project, self.function, value.name) == "0"
        ):
            return False  # `def make(data, num_workers=0)` that every call leaves at 0
        return not made_only_without_workers(self.function.function, self.call, lookup.value)

    def persistent_workers(self) -> bool:
        """Return True if the workers persist whenever they start: `persistent_workers=True`
        passed literally, or a test that holds exactly when they start (`num_workers > 0`),
        also in each branch's dict of `**loader_args` that may start workers."""
        value = self.argument("persistent_workers").value
        if value is not None and value.kind is Kind.PARAM:
            # `persistent_workers=persistent_workers`, which every call leaves at `True`.
            every = literal_of_every_call(self.project, self.function, value.name)
            return (every or left_at_default(self.project, self.function, value.name)) == "True"
        if value is None:
            splat = self.splats[0] if len(self.splats) == 1 else None
            direct = self.call.keyword("num_workers") is not None
            return splat is not None and not direct and each_branch_persists(splat)
        return persists(value, self.argument("num_workers").value)

    def in_fixed_order(self) -> bool:
        """Return True if the call passes `shuffle=False` literally and no sampler."""
        shuffle = self.argument("shuffle").value
        if (
            self.argument("shuffle").presence is not Presence.PASSED
            or shuffle is None
            or shuffle.kind is not Kind.CONSTANT
            or shuffle.name != "False"
        ):
            return False
        for name in ("sampler", "batch_sampler"):
            lookup = self.argument(name)
            if lookup.presence is Presence.MAYBE or (
                lookup.presence is not Presence.ABSENT
                and not (lookup.value is not None and lookup.value.is_none)
            ):
                return False
        return True


def _forwards_positionals(init: FunctionFacts) -> bool:
    """Return True if `init` passes its `*args`, and nothing before them, to a base `__init__`."""
    if len(init.params) <= init.positional_count:
        return False
    # `params` lists `*args` right after the positional parameters, when there is one.
    star = init.params[init.positional_count]
    for call in init.calls:
        offset = _base_init_offset(call.base)
        if offset is None:
            continue
        rest = call.args[offset:]
        if (
            len(rest) == 1
            and rest[0].kind is Kind.STARRED
            and rest[0].base is not None
            and rest[0].base.kind is Kind.PARAM
            and rest[0].base.name == star
        ):
            return True
    return False


def _base_init_offset(callee: Value | None) -> int | None:
    """Return how many leading arguments precede `dataset` in a base `__init__` call.

    `super().__init__(...)` passes no `self`; `DataLoader.__init__(self, ...)` does. None if
    the call is not a base `__init__` call.
    """
    if callee is None:
        return None
    if callee.kind is Kind.ATTRIBUTE and callee.name == "__init__":
        return 0 if callee.base is not None and callee.base.kind is Kind.CALL else 1
    if callee.kind is Kind.NAME and any(name.endswith(".__init__") for name in callee.qualnames):
        return 1
    return None


def loader_names(project: Project) -> frozenset[str]:
    """Return the identifiers that may name a torch DataLoader class anywhere in the project.

    "DataLoader" itself, project subclasses, and module-level aliases and re-exports
    (`Loader = DataLoader`, `from .loaders import FastLoader as FL`): a call of a loader
    must spell one of them, so only files mentioning one need to be read.
    """
    return project.family(catalog.TORCH_DATALOADERS).names


def loader_calls(project: Project) -> Iterator[LoaderCall]:
    """Yield every call in the project that creates a torch DataLoader."""
    return iter(_loader_calls(project))


@per_project
def _loader_calls(project: Project) -> tuple[LoaderCall, ...]:
    names = loader_names(project)
    found: list[LoaderCall] = []
    building: dict[ClassRef, tuple[LoaderCall, ...]] = {}
    for ref in project.family(catalog.TORCH_DATALOADERS).classes:
        sites = _dataset_building_inits(project, ref)
        if sites:
            building[ref] = sites
            found.extend(sites)
    for function in project.functions_mentioning(*names):
        for call in function.function.calls:
            if call.span is not None and excluded_by_target(
                function.function.branches, call.span, project.target
            ):
                continue  # `if torch.__version__ >= "1.8.0":`, not taken on the target
            if call.base is not None and call.base.kind is Kind.PARAM:
                subclasses = parameter_loader(project, function, call.base.name)
                if subclasses is not None and not never_built(project, function, call):
                    found.append(LoaderCall(project, function, call, subclasses))
                continue
            # Only a callee that spells a loader's name can be one: resolve no other.
            if call.base is None or not (spelled(call.base) | {call.base.name}) & names:
                continue
            subclasses = loader_subclasses(project, call.base, function)
            if subclasses is None:
                continue
            # A subclass that builds its own dataset gives torch its arguments in its
            # `__init__`: that base `__init__` call is the loader, not each instantiation.
            if subclasses and all(_builds_own_dataset(project, r, building) for r in subclasses):
                continue
            if never_built(project, function, call):
                continue  # `if test_set is not None:`, and every caller passes None
            if after_a_call_that_raises(project, function, call):
                continue  # `dataset = Unreleased(...)` before it, whose `__init__` raises
            if never_iterated(function, call):
                continue  # `loader = DataLoader(...)`, and nothing reads `loader`
            found.append(LoaderCall(project, function, call, subclasses))
    return tuple(found)


def _builds_own_dataset(
    project: Project,
    ref: ClassRef,
    building: dict[ClassRef, tuple[LoaderCall, ...]],
    depth: int = 0,
) -> bool:
    """Return True if the `__init__` an instance of `ref` runs gives torch a dataset it built.

    Either that `__init__` makes every DataLoader base call with a dataset of its own, or it
    hands its arguments to project bases whose `__init__` does.
    """
    found = project.find_method(ref, "__init__")
    if found is None or depth > _MAX_SUBCLASS_DEPTH:
        return False
    owner = found[0]
    calls = list(_base_loader_inits(project, owner))
    if not calls:
        return False
    sites = building.get(owner, ())
    return all(
        call in sites
        or (
            call.subclasses
            and all(
                _builds_own_dataset(project, base, building, depth + 1) for base in call.subclasses
            )
        )
        for call in calls
    )


#: How many project DataLoader subclasses deep a chain of base `__init__` calls is followed.
_MAX_SUBCLASS_DEPTH = 4


def _dataset_building_inits(project: Project, ref: ClassRef) -> tuple[LoaderCall, ...]:
    """Return the base `__init__` calls in `ref.__init__` that are DataLoader calls themselves.

    `super().__init__(Shapes(root), num_workers=n)` in a project subclass creates the loader
    with arguments given right there: the dataset is built (or chosen) in `__init__`, not
    handed on from its parameters; or the worker_init_fn is fixed there. A call forwarding
    only `__init__`'s parameters (`super().__init__(dataset, **kwargs)`) leaves the
    instantiations as the loader calls."""
    return tuple(
        loader
        for loader in _base_loader_inits(project, ref)
        if _given_here(loader, "dataset") or _given_here(loader, "worker_init_fn")
    )


def _given_here(loader: LoaderCall, name: str) -> bool:
    """Return True if a base `__init__` call passes `name` from no parameter of its `__init__`
    (`worker_init_fn=None` whatever the instantiation passes): the subclass decides it."""
    lookup = loader.argument(name)
    if lookup.presence not in (Presence.PASSED, Presence.IN_DICT) or lookup.value is None:
        return False
    params = loader.function.function.params
    return not any(
        option.kind is Kind.STARRED or (option.kind is Kind.PARAM and option.name in params)
        for option in lookup.value.alternatives()
    )


def _base_loader_inits(project: Project, ref: ClassRef) -> Iterator[LoaderCall]:
    """Yield the calls in `ref`'s own `__init__` that run a DataLoader base's `__init__`.

    Each is given as a call of that base (without the explicit `self` of
    `DataLoader.__init__(self, ...)`), whose project subclasses are those between `ref` and
    torch's DataLoader.
    """
    qualname = ref.cls.method("__init__")
    function = ref.module.function(qualname) if qualname else None
    if function is None:
        return
    init = FunctionRef.of(ref.module, function)
    bases = tuple(
        base
        for base in project.mro(ref)[1:]
        if project.derives_from(base, catalog.TORCH_DATALOADERS)
    )
    for call in function.calls:
        callee = call.base
        offset = _base_init_offset(callee)
        if offset is None or callee is None:
            continue
        if offset == 0:
            if callee.base is not None and callee.base.is_call_to("builtins.super"):
                yield LoaderCall(project, init, call, bases[:1])
            continue
        if not call.args or call.args[0].kind is not Kind.SELF:
            continue
        subclasses = loader_subclasses(project, _class_of_init(callee), init)
        if subclasses is not None:
            yield LoaderCall(project, init, replace(call, args=call.args[1:]), subclasses)


def _class_of_init(callee: Value) -> Value:
    """Return the class whose `__init__` the callee `Base.__init__` (or `mod.Base.__init__`) is."""
    if callee.kind is Kind.ATTRIBUTE and callee.base is not None:
        return callee.base
    prefixes = tuple(qualname.rpartition(".")[0] for qualname in callee.qualnames)
    return Value(Kind.NAME, callee.span, prefixes, callee.name)
