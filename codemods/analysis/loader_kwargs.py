"""Dicts a DataLoader call's `**kwargs` expand to, when they are known statically.

`DataLoader(ds, **loader_args)` with `loader_args = dict(num_workers=4)` (or a literal, one per
branch of an `if`, grown by `loader_args["k"] = v` or `.update(...)`) passes those entries; so
does `**self.loader_args` when the class stores one dict there and never changes it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .facts import Assignment, FunctionFacts, Kind, ModuleFacts, Value, literal_key
from .local_dicts import assignments_of
from .project import Project
from .refs import FunctionRef, VariableRef
from .self_calls import subclasses
from .worker_conditions import persists


@dataclass(frozen=True)
class KnownDict:
    """A `**splat` whose value is a dict literal or `dict(...)` call visible statically."""

    value: Value
    entries: tuple[tuple[str | None, Value], ...]
    #: The file that holds the dict literal.
    path: Path
    #: For a name bound to one dict in each branch (`args = dict(...)` in an `if` and another
    #: in the `else`): each branch's dict. `value` then has no span: no single literal is
    #: where an entry could be added for every branch.
    branches: tuple[Value, ...] = ()
    #: Keys that only some branches set: whether they are passed is unknown.
    partial_keys: frozenset[str] = frozenset()
    #: The entries each branch passes, in the order of `branches`.
    branch_entries: tuple[tuple[tuple[str | None, Value], ...], ...] = ()


def with_item_stores(known: KnownDict, function: FunctionFacts) -> KnownDict:
    """Return `known` as assigned in `function`, with the `name[key] = value` stores it makes.

    A local dict reaches the call through its name: its summary carries the span of that
    name. The assignment's own value carries the span of the dict literal, which is where
    an entry can be added.
    """
    origins = assignments_of(function, known.branches or (known.value,))
    if not origins:
        return known
    names = {assignment.target for assignment in origins}
    stores = [(store.key, store.value) for store in function.item_stores if store.target in names]
    stores.extend(_updates(function, origins))
    value = origins[0].value if not known.branches else known.value
    # A key some branches lack is passed once a later store sets it.
    partial = known.partial_keys - {key for key, _ in stores if key is not None}
    return replace(
        known,
        value=value,
        entries=known.entries + tuple(stores),
        partial_keys=partial,
        branch_entries=tuple(entries + tuple(stores) for entries in known.branch_entries),
    )


def _updates(function: FunctionFacts, origins: list[Assignment]) -> list[tuple[str | None, Value]]:
    """Return the entries `name.update(k=v)` / `name.update({"k": v})` calls in `function`
    add to the dict bound by `origins` (None as key: a dict not spelled out)."""
    # The callee's holder is the dict itself, read where the name is written.
    values = {replace(assignment.value, span=None) for assignment in origins}
    entries: list[tuple[str | None, Value]] = []
    for call in function.calls:
        if call.base is None or not any(
            option.kind is Kind.ATTRIBUTE
            and option.name == "update"
            and option.base is not None
            and replace(option.base, span=None) in values
            for option in call.base.alternatives()
        ):
            continue
        for arg in call.args:
            entries.extend(arg.keywords if arg.kind is Kind.DICT else [(None, arg)])
        entries.extend(call.keywords)
    return entries


def _known_branches(
    project: Project, module: ModuleFacts, options: tuple[Value, ...]
) -> KnownDict | None:
    """Return the dict a name bound to one known dict per branch expands, if every one is known.

    A key every branch sets is passed (with each branch's value); one only some branches set
    may or may not be.
    """
    found = [known_dict(project, module, option) for option in options]
    known = [result for result in found if result is not None]
    if len(known) != len(found) or len({result.path for result in known}) != 1:
        return None
    keys = [{key for key, _ in result.entries} for result in known]
    every = set.intersection(*keys)
    entries: list[tuple[str | None, Value]] = []
    for key in dict.fromkeys(key for result in known for key, _ in result.entries):
        if key is None or key not in every:
            continue
        values = tuple(dict.fromkeys(v for result in known for k, v in result.entries if k == key))
        entries.append(
            (key, values[0] if len(values) == 1 else Value(Kind.ALTERNATIVES, args=values))
        )
    if any(None in branch for branch in keys):
        entries.append((None, Value(Kind.UNKNOWN)))
    partial = frozenset(key for branch in keys for key in branch if key is not None) - every
    whole = Value(Kind.ALTERNATIVES, args=tuple(result.value for result in known))
    return KnownDict(
        whole,
        tuple(entries),
        known[0].path,
        tuple(result.value for result in known),
        frozenset(partial),
        tuple(result.entries for result in known),
    )


def known_dict(project: Project, module: ModuleFacts, value: Value) -> KnownDict | None:
    """Return the statically known dict a `**value` splat (seen in `module`) expands, if any."""
    options = value.alternatives()
    if len(options) != 1:
        return _known_branches(project, module, options) if options else None
    option = options[0]
    if option.kind is Kind.NAME:
        targets = project.targets(option, module)
        if len(targets) == 1 and isinstance(targets[0], VariableRef):
            variable = targets[0]
            if len(variable.values) == 1:
                found = known_dict(project, variable.module, variable.values[0])
                code = variable.module.function("<module>")
                if found is not None and code is not None:
                    found = with_item_stores(found, code)
                return found
        return None
    if option.kind is Kind.DICT:
        return KnownDict(option, option.keywords, module.path)
    if option.kind is Kind.SUBSCRIPT and option.base is not None and len(option.args) == 1:
        return _entry_dict(project, module, option.base, literal_key(option.args[0]))
    if (
        option.kind is Kind.CALL
        and option.base is not None
        and project.is_one_of(option.base, module, frozenset({"builtins.dict"}))
        and not option.args
    ):
        return KnownDict(option, option.keywords, module.path)
    if option.kind is Kind.CALL and option.base is not None:
        return _returned_dict(project, module, option.base)
    return None


def _entry_dict(
    project: Project, module: ModuleFacts, table: Value, key: str | None
) -> KnownDict | None:
    """Return the known dict `table[key]` is, when `table` is a known dict (a configuration
    module's `dataset_cfgs = {"dataset_test": {"global_state": "Test", ...}}`) and `key` a
    literal naming one of its entries."""
    known = known_dict(project, module, table)
    if key is None or known is None or known.branches:
        return None
    if any(name is None for name, _ in known.entries):
        return None  # a `**others` may hold the key
    entries = [entry for name, entry in known.entries if repr(name) == key]
    holder = project.module_at(known.path)
    if len(entries) != 1 or holder is None:
        return None
    return known_dict(project, holder, entries[0])


def _returned_dict(project: Project, module: ModuleFacts, callee: Value) -> KnownDict | None:
    """Return the dict a project function returns, when it returns one it builds itself:
    `kwargs = {}; kwargs["sampler"] = ...; return kwargs`, its entries those it stores.

    Its literal is another function's: no entry is added there for this call, so the dict
    has no span.
    """
    targets = project.targets(callee, module)
    if len(targets) != 1 or not isinstance(targets[0], FunctionRef):
        return None
    function = targets[0]
    returns = function.function.returns
    # A literal or `dict(...)` only: a helper returning another helper's dict (maybe its
    # own caller's) is not followed.
    if len(returns) != 1 or not (
        returns[0].kind is Kind.DICT or returns[0].is_call_to("builtins.dict")
    ):
        return None
    found = known_dict(project, function.module, returns[0])
    if found is None or found.branches:
        return None
    found = with_item_stores(found, function.function)
    return replace(found, value=replace(found.value, span=None))


def each_branch_persists(known: KnownDict) -> bool:
    """Return True if each branch's dict of `known` either starts no workers or keeps them
    (`persistent_workers=True` in the training branch, `num_workers=0` in the evaluation one)."""
    if not known.branch_entries:
        return False
    for entries in known.branch_entries:
        if any(key is None for key, _ in entries):
            return False
        passed = dict(entries)  # the last store of a key is the one the call sees
        workers = passed.get("num_workers")
        if workers is None or (workers.kind is Kind.INT and workers.number == 0):
            continue
        persistent = passed.get("persistent_workers")
        if persistent is None or not persists(persistent, workers):
            return False
    return True


def splat_dict(project: Project, function: FunctionRef, value: Value) -> KnownDict | None:
    """Return the known dict a `**value` splat written in `function` expands, if any."""
    found = known_dict(project, function.module, value)
    if found is not None and found.path == function.path:
        return with_item_stores(found, function.function)
    return found if found is not None else held_dict(project, function, value)


def held_dict(project: Project, function: FunctionRef, value: Value) -> KnownDict | None:
    """Return the dict `**self.<name>` (read in method `function`) expands: the one dict
    literal its class stores there, when no method stores another or changes it in place
    (`self.loader_args.update(...)`, `self.loader_args["k"] = v`)."""
    if value.kind is not Kind.ATTRIBUTE or value.base is None or value.base.kind is not Kind.SELF:
        return None
    own = project.class_of_function(function)
    if own is None:
        return None
    target = f"self.{value.name}"
    stored: list[tuple[Value, ModuleFacts]] = []
    # A subclass's method may store another dict there, or change this one.
    for owner in dict.fromkeys((*project.mro(own), *subclasses(project, own))):
        for _, qualname in owner.cls.methods:
            method = owner.module.function(qualname)
            if method is None:
                continue
            if any(_changes(call, value.name) for call in method.calls) or any(
                store.target == target for store in method.item_stores
            ):
                return None
            stored.extend((a.value, owner.module) for a in method.assignments if a.target == target)
    if len(stored) != 1:
        return None
    found = known_dict(project, stored[0][1], stored[0][0])
    return found if found is not None and found.value.kind is Kind.DICT else None


def _changes(call: Value, name: str) -> bool:
    """Return True for a method call on `self.<name>` (`.update(...)`, `.pop(...)`)."""
    method = call.base
    held = method.base if method is not None and method.kind is Kind.ATTRIBUTE else None
    return (
        held is not None
        and held.kind is Kind.ATTRIBUTE
        and held.name == name
        and held.base is not None
        and held.base.kind is Kind.SELF
    )


def entry_at_call(
    project: Project, function: FunctionRef, call: Value, key: str
) -> tuple[Value | None, ...] | None:
    """Return what the one `**name` splat of `call` (in `function`) may pass under `key`,
    when `name` is a local dict the function builds and then sets entries of by key
    (`config = dict(ratio=opt.ratio)`, `config["ratio"] = 0`, `Data(**config)`): the value
    of the last store that runs before the call on every path, and of any store after it
    that may run before the call; else the literal's entry and every store before the call.
    None in the result: the key may be absent. None: not such a dict, or changed otherwise.
    """
    splats = [value for name, value in call.keywords if name is None]
    if len(splats) != 1 or call.span is None:
        return None
    known = known_dict(project, function.module, splats[0])
    if known is None or known.branches or known.path != function.path:
        return None
    origins = assignments_of(function.function, (known.value,))
    if len(origins) != 1 or _updates(function.function, origins):
        return None  # bound more than once, or changed by `.update(...)`
    literal = replace(origins[0].value, span=None)
    if any(
        replace(argument, span=None) == literal
        for other in function.function.calls
        for argument in (*other.args, *(value for name, value in other.keywords if name))
    ):
        return None  # handed to a call, which may change it
    target = origins[0].target
    stores = [store for store in function.function.item_stores if store.target == target]
    if any(store.key is None for store in stores) or any(k is None for k, _ in known.entries):
        return None  # a key not spelled out may be this one
    line = call.span.line
    before = sorted(
        (store for store in stores if store.key == key and store.span.line < line),
        key=lambda store: (store.span.line, store.span.column),
    )
    always = [store for store in before if store.block_end is None or line <= store.block_end]
    if always:
        last = always[-1]
        return tuple(store.value for store in before if store.span.line >= last.span.line)
    entry = dict(known.entries).get(key)
    return (entry, *(store.value for store in before))


def module_dict_entry(
    project: Project, function: FunctionRef, call: Value, key: str
) -> tuple[Value | None, ...] | None:
    """Return what the one `**splat` of `call` (in `function`) passes under `key` when it
    expands a dict literal bound at module level, maybe looked up by literal keys
    (`Data(**cfgs.dataset_cfgs["dataset_test_args"])`): its entry (None: the key is
    absent). None if the splat is no such dict, or a local of `function` (`entry_at_call`
    reads those)."""
    splats = [value for name, value in call.keywords if name is None]
    if len(splats) != 1 or not _module_variable_lookup(project, function.module, splats[0]):
        return None
    facts = function.function
    if facts.item_stores or any(
        callee.kind is Kind.ATTRIBUTE and callee.name in _CHANGING_METHODS
        for other in facts.calls
        if (callee := other.base) is not None
    ):
        return None  # the function may change the dict before the call
    known = known_dict(project, function.module, splats[0])
    if known is None or known.branches or any(name is None for name, _ in known.entries):
        return None
    return (dict(known.entries).get(key),)


#: Methods that change a dict in place.
_CHANGING_METHODS = frozenset({"update", "setdefault", "pop", "popitem", "clear"})


def _module_variable_lookup(project: Project, module: ModuleFacts, value: Value) -> bool:
    """Return True for a module-level variable, maybe looked up by literal keys
    (`cfgs.dataset_cfgs["dataset_test_args"]`), not a local of the function."""
    while value.kind is Kind.SUBSCRIPT and value.base is not None and len(value.args) == 1:
        if literal_key(value.args[0]) is None:
            return False
        value = value.base
    if value.kind is not Kind.NAME:
        return False
    targets = project.targets(value, module)
    return len(targets) == 1 and isinstance(targets[0], VariableRef)
