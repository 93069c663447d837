"""What a class's `__init__` stores, for the instances some constructor calls make."""

from __future__ import annotations

import dataclasses

from . import branch_feasibility
from .base_inits import base_init_calls, calls_no_init
from .candidates import MAX_CALL_DEPTH, Construction, DatasetsOf, Resolver, merge
from .facts import Kind, Value
from .forwarded_arguments import hides_arguments, spreads_own_keywords, visible_args
from .project import Project
from .refs import FunctionRef
from .spread_arguments import gathered_arguments, positional_argument


def stored_through(
    project: Project,
    value: Value,
    where: FunctionRef,
    init: FunctionRef,
    sites: tuple[Construction, ...],
    resolve: Resolver,
    depth: int = 0,
) -> DatasetsOf:
    """Resolve what `where` stores when `init` runs for the constructor calls in `sites`.

    `where` is `init` itself, or a base class's `__init__` that `init` runs on the same
    instance (`super().__init__(phase, transform)`): then the arguments that call hands on
    are taken from `sites` in turn.
    """
    if where == init:
        return _stored_by(project, value, init, sites, resolve)

    def through_init(project: Project, passed: Value, at: FunctionRef, depth: int) -> DatasetsOf:
        if at == init:
            return _stored_by(project, passed, init, sites, resolve)
        return resolve(project, passed, at, depth)

    storing = project.class_of_function(where)
    forwarded = [
        (call, base)
        for call, base in base_init_calls(project, init)
        if (owner := project.class_of_function(base)) and storing in project.mro(owner)
    ]
    if not forwarded and where.function.name == "__init__" and calls_no_init(init):
        return DatasetsOf((), True)  # `init` runs no base's `__init__`: `where` stores nothing
    if not forwarded or depth > MAX_CALL_DEPTH:
        return resolve(project, value, where, 0)
    return merge(
        [
            stored_through(project, value, where, base, ((call, init),), through_init, depth + 1)
            for call, base in forwarded
        ]
    )


def _stored_by(
    project: Project,
    value: Value,
    init: FunctionRef,
    sites: tuple[Construction, ...],
    resolve: Resolver,
) -> DatasetsOf:
    """Resolve what `__init__` stores, taking its parameters from the calls in `sites` only."""
    params = init.function.params
    results: list[DatasetsOf] = []
    for option in value.alternatives():
        position = _var_positional_position(option, init)
        if position is not None:
            # `self.views = args[0]` in `def __init__(self, *args)`: a positional argument.
            for call, where in sites:
                passed = positional_argument(project, call, where, position)
                found = resolve(project, passed, where, 1) if passed is not None else None
                results.append(found or DatasetsOf((), False))
            continue
        # A keyword that lands in `**kwargs` (handed on by `super().__init__(**kwargs)`).
        in_kwargs = init.function.has_var_keyword and option.name not in params
        if option.kind is not Kind.PARAM or (option.name not in params and not in_kwargs):
            unpacked = [_unpacked_elements(project, option, init, call) for call, _ in sites]
            if unpacked and None not in unpacked:
                # `paths, transform = get_paths(split)`, then `self.transform = transform`.
                elements = dict.fromkeys(pair for found in unpacked for pair in found or ())
                results.extend(resolve(project, value, maker, 1) for value, maker in elements)
                continue
            # `self.transform = pick(split)`: the call as each construction's literal
            # arguments make it (`Depth("val")` runs `pick("val")`).
            calls = dict.fromkeys(_bound_call(option, init, call) for call, _ in sites)
            results.extend(resolve(project, call, init, 0) for call in calls or (option,))
            continue
        index = params.index(option.name) - 1 if not in_kwargs else len(params)
        gathered = init.function.has_var_positional and index + 1 == init.function.positional_count
        for call, where in sites:
            args = visible_args(project, call, where)
            passed = call.keyword(option.name)
            if gathered:
                # `def __init__(self, *transforms)`: the tuple of what is passed from there on.
                passed = gathered_arguments(call, index)
            elif passed is None and index < len(args):
                passed = args[index]
            if passed is not None and passed.kind is not Kind.STARRED:
                results.append(resolve(project, passed, where, 1))
                continue
            if passed is not None or hides_arguments(project, call, where):
                results.append(DatasetsOf((), False))
                # `args["transform"] = transform` before `factory(**args)`.
                entries = splat_entries(call, where, option.name)
                results.extend(resolve(project, entry, where, 1) for entry in entries)
            if spreads_own_keywords(call, where):
                # `super().__init__(**kwargs)`: the keyword as `where` itself was given it.
                handed_on = Value(Kind.PARAM, call.span, name=option.name)
                results.append(resolve(project, handed_on, where, 1))
            elif (
                passed is None and (default := init.function.named_default(option.name)) is not None
            ):
                # Not passed: the default, a name (`transform=train_aug`) seen where `init` is.
                results.append(resolve(project, default, init, 1))
    return merge(results)


def splat_entries(call: Value, where: FunctionRef, key: str) -> list[Value]:
    """Return the values `call`'s `**dict` arguments are seen to hold under `key`: entries of
    a dict literal, and `name[key] = value` stores into a local dict of `where`."""
    found: list[Value] = []
    function = where.function
    for name, splat in call.keywords:
        if name is not None:
            continue
        options = splat.alternatives()
        found.extend(v for o in options if o.kind is Kind.DICT for k, v in o.keywords if k == key)
        # A local dict reaches the call inlined: match it to its assignment by value.
        locals_ = {
            assignment.target
            for assignment in function.assignments
            if assignment.value.span is not None
            and any(
                option.span is not None
                and dataclasses.replace(option, span=assignment.value.span) == assignment.value
                for option in options
            )
        }
        found.extend(
            store.value
            for store in function.item_stores
            if store.target in locals_ and store.key == key
        )
    return found


def _var_positional_position(value: Value, init: FunctionRef) -> int | None:
    """Return the position among a call's arguments that `args[k]` reads, for `args` the
    `*args` parameter of `init` (a method: `self` takes no argument) and `k` a literal."""
    facts = init.function
    if (
        value.kind is not Kind.SUBSCRIPT
        or not facts.has_var_positional
        or value.base is None
        or value.base.kind is not Kind.PARAM
        or value.base.name != facts.params[facts.positional_count]
        or len(value.args) != 1
        or value.args[0].kind is not Kind.INT
        or value.args[0].number is None
        or value.args[0].number < 0
    ):
        return None
    return facts.positional_count - 1 + value.args[0].number


def _bound_call(value: Value, init: FunctionRef, construction: Value) -> Value:
    """Return call `value`, written in `init`, with each argument that is a parameter of
    `init` replaced by the literal `construction` passes for it; `value` itself when it is
    no call, or passes no such parameter."""
    if value.kind is not Kind.CALL:
        return value
    facts = init.function

    def bound(argument: Value) -> Value:
        if argument.kind is not Kind.PARAM or argument.name not in facts.params[1:]:
            return argument
        passed = construction.keyword(argument.name)
        index = facts.params.index(argument.name) - 1
        if passed is None and index < facts.positional_count - 1:
            before = construction.args[: index + 1]
            if len(before) > index and not any(arg.kind is Kind.STARRED for arg in before):
                passed = construction.args[index]
        if passed is not None and passed.kind in (Kind.CONSTANT, Kind.INT):
            return passed
        return argument

    args = tuple(bound(arg) for arg in value.args)
    keywords = tuple((name, bound(arg)) for name, arg in value.keywords)
    if args == value.args and keywords == value.keywords:
        return value
    return dataclasses.replace(value, args=args, keywords=keywords)


def _unpacked_elements(
    project: Project, value: Value, init: FunctionRef, construction: Value
) -> list[tuple[Value, FunctionRef]] | None:
    """Return what local `value` of `init` is when it is unpacked from a call of project
    functions (`paths, transform = get_paths(split)`): the element at its place of each
    tuple they may return, for the call as `construction` makes it (see `_bound_call`),
    with the function returning it. None when `value` is bound no such way, or a call or
    a return is not seen through."""
    if value.kind is not Kind.UNKNOWN or not value.name:
        return None
    bindings = [entry for entry in init.function.unpacked if entry[0] == value.name]
    if not bindings:
        return None
    found: list[tuple[Value, FunctionRef]] = []
    for _, position, count, bound in bindings:
        for call in bound.alternatives():
            if call.kind is not Kind.CALL or call.base is None:
                return None
            targets = project.targets(call.base, init.module)
            if not targets or not all(isinstance(target, FunctionRef) for target in targets):
                return None
            made = _bound_call(call, init, construction)
            for function in targets:
                assert isinstance(function, FunctionRef)
                for returned in branch_feasibility.left_open(
                    function.function.returns, made, init, function
                ):
                    if returned.kind is not Kind.SEQUENCE or len(returned.args) != count:
                        return None
                    for element in branch_feasibility.left_open(
                        (returned.args[position],), made, init, function
                    ):
                        found.append((element, function))
    return found
