"""Local names a dataset reaches a DataLoader through without an assignment of its own: a
loop variable (`for dataset, sampler in zip(datasets, samplers)`) and a name unpacked from
what a call returns (`train_set, val_set = build_datasets(cfg)`).

What they may hold is a candidate set: every element of what the iterable may be, every
tuple of the right length a project function may return.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from . import catalog, datasets
from .branch_feasibility import left_open
from .candidates import MAX_RESOLUTION_DEPTH, CandidateSource, DatasetsOf, Resolver, merge
from .datapipes import called_alternatives
from .dataset_registries import ReturnedClasses, classes_denoted
from .facts import Kind, Value
from .forwarded_arguments import forwarded, passed_argument
from .function_registries import registered_functions
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef
from .self_calls import self_class, subclasses


def classes_of_local(
    project: Project, name: str, where: FunctionRef, depth: int
) -> DatasetsOf | None:
    """Return the classes local `name` of `where` may hold as a loop variable or an
    unpacked name; None if it is neither."""
    function = where.function
    results: list[DatasetsOf] = []
    for loop_name, iterable in function.loops:
        if loop_name != name:
            continue
        found = datasets.elements_of(project, iterable, where, depth)
        if iterable.kind is Kind.PARAM:
            source = CandidateSource("elements", function.name, iterable.name)
            found = replace(found, sources=(*found.sources, source))
        results.append(found)
    results.extend(
        unpacked_classes(project, value, position, count, where, depth)
        for unpacked, position, count, value in function.unpacked
        if unpacked == name
    )
    return merge(results) if results else None


def unpacked_classes(
    project: Project,
    value: Value,
    position: int,
    count: int,
    where: FunctionRef,
    depth: int,
    resolve: Resolver | None = None,
) -> DatasetsOf:
    """Return the classes at `position` of the `count`-tuple `value` evaluates to (with
    `resolve`, what it gives for what is there: `datasets.elements_of` for a list)."""
    resolved = resolve or datasets.classes_of
    results: list[DatasetsOf] = []
    for option in value.alternatives():
        if option.kind is Kind.SEQUENCE and len(option.args) == count:
            results.append(resolved(project, option.args[position], where, depth))
            continue
        if option.kind is Kind.SEQUENCE and len(option.args) == 1 and count > 1:
            # `a, b = [make(s) for s in splits]`: the comprehension's element, at every place
            # (a one-element display would not unpack into several names).
            results.append(resolved(project, option.args[0], where, depth))
            continue
        if option.kind is not Kind.CALL or option.base is None:
            results.append(DatasetsOf((), False))
            continue
        split = _split_dataset(project, option, where)
        if split is not None:
            # `train, val = random_split(dataset, sizes)`: subsets of the one dataset.
            found = datasets.classes_of(project, split, where, depth)
            results.append(found if resolve is None else DatasetsOf((), False))
            continue
        functions = _called_functions(project, option.base, where)
        if not functions:
            results.append(DatasetsOf((), False))
            continue
        for function in functions:
            assert isinstance(function, FunctionRef)
            # Only a returned tuple of `count` elements can be unpacked here; a return of
            # another length would raise at this assignment.
            # Only what the branches open to this call's arguments return: a
            # `if sanity_check: return items, ...` the call leaves at False returns nothing.
            returns = _open_returns(function, option, where)
            tuples = [
                returned
                for returned in returns
                if returned.kind is Kind.SEQUENCE and len(returned.args) == count
            ]
            # `return data.crop_dataset(size)`: the tuple that call returns in turn.
            handed_on = [returned for returned in returns if returned.kind is Kind.CALL]
            others = any(returned.kind not in (Kind.SEQUENCE, Kind.CALL) for returned in returns)
            source = CandidateSource("returns", function.function.name)
            known = bool(tuples or handed_on) and not others
            results.append(DatasetsOf((), known, sources=(source,)))
            plain = project.class_of_function(function) is None
            for returned in tuples:
                element = resolved(project, returned.args[position], function, depth + 1)
                # `_, test_set = get_data("test")`: the dataset made for this call.
                results.append(
                    datasets.seen_by_call(project, element, function, option, where)
                    if plain
                    else element
                )
            results.extend(
                unpacked_classes(project, returned, position, count, function, depth + 1, resolve)
                for returned in handed_on
                if depth < MAX_RESOLUTION_DEPTH
            )
    return merge(results)


def unpacked_elements(project: Project, name: str, where: FunctionRef, depth: int) -> DatasetsOf:
    """Return the classes of the elements of the list local `name` of `where` unpacked from
    a tuple (`train_ppl, val_ppl = get_pipelines()`); unknown if it is bound no such way."""
    found = [
        unpacked_classes(project, value, position, count, where, depth, datasets.elements_of)
        for unpacked, position, count, value in where.function.unpacked
        if unpacked == name
    ]
    return merge(found) if found else DatasetsOf((), False)


def unpacked_class_objects(
    project: Project, name: str, where: FunctionRef
) -> tuple[ReturnedClasses, tuple[CandidateSource, ...]] | None:
    """Return the project classes (class objects) local `name` of `where` may be when it is
    unpacked from what project functions return (`dataset_class, collate, runner =
    pipeline_factory(config)`), with the factories the classes are candidates of; None if
    `name` is bound no such way."""
    bindings = [
        (position, count, value)
        for unpacked, position, count, value in where.function.unpacked
        if unpacked == name
    ]
    if not bindings:
        return None
    found: list[ClassRef] = []
    complete = True
    sources: list[CandidateSource] = []
    for position, count, value in bindings:
        for option in value.alternatives():
            functions = (
                _called_functions(project, option.base, where)
                if option.kind is Kind.CALL and option.base is not None
                else []
            )
            complete = complete and bool(functions)
            for function in functions:
                sources.append(CandidateSource("class returns", function.function.name))
                for returned in _open_returns(function, option, where):
                    if returned.kind is not Kind.SEQUENCE:
                        complete = False
                    elif len(returned.args) == count:
                        denoted = classes_denoted(project, returned.args[position], function)
                        found.extend(denoted.classes)
                        complete = complete and denoted.complete
    returned_classes = ReturnedClasses(tuple(dict.fromkeys(found)), complete)
    return returned_classes, tuple(dict.fromkeys(sources))


def _open_returns(function: FunctionRef, call: Value, where: FunctionRef) -> list[Value]:
    """Return what `function` may return through the branches open to `call`'s arguments."""
    return left_open(function.function.returns, call, where, function)


def _called_functions(project: Project, callee: Value, where: FunctionRef) -> list[FunctionRef]:
    """Return the project functions a call of `callee` runs: the function it names, or each
    function of a module-level table it picks from (`GETTERS[args.dataset](args)`); empty
    when some of them are not project functions."""
    if callee.kind is Kind.SUBSCRIPT and callee.base is not None:
        tables = [
            target
            for target in project.targets(callee.base, where.module)
            if isinstance(target, VariableRef)
        ]
        picked = [
            function for table in tables for function in registered_functions(project, table, None)
        ]
        return list(dict.fromkeys(picked)) if len(tables) == 1 else []
    if callee.kind is Kind.PARAM:
        return _passed_functions(project, callee.name, where)
    if callee.kind is Kind.ATTRIBUTE and callee.base is not None:
        if callee.base.kind is Kind.SELF:
            return _self_methods(project, callee.name, where)
        return _receiver_methods(project, callee, where)
    targets = list(project.targets(callee, where.module))
    if not all(isinstance(target, FunctionRef) for target in targets):
        return []
    return [target for target in targets if isinstance(target, FunctionRef)]


def _self_methods(project: Project, name: str, where: FunctionRef) -> list[FunctionRef]:
    """Return the methods `self.<name>(...)` may run: that of the class of `where`, or of a
    subclass overriding it (`build_datasets` of a base that raises, of each pipeline); empty
    when some class has none."""
    own = self_class(project, where)
    if own is None:
        return []
    found: list[FunctionRef] = []
    for cls in (own, *subclasses(project, own)):
        method = project.find_method(cls, name)
        if method is None:
            return []
        if not method[1].function.only_raises:
            found.append(method[1])
    return list(dict.fromkeys(found))


def _receiver_methods(project: Project, callee: Value, where: FunctionRef) -> list[FunctionRef]:
    """Return the methods `obj.<name>(...)` runs when every class `obj` may be is known
    (`data.get_train_dataset(df)` with `data = DataModule(...)`); empty otherwise."""
    assert callee.base is not None
    receivers = datasets.classes_of(project, callee.base, where)
    found = [project.find_method(cls, callee.name) for cls in receivers.classes]
    if not receivers.complete or not found or None in found:
        return []
    return list(dict.fromkeys(method[1] for method in found if method is not None))


def _passed_functions(project: Project, param: str, where: FunctionRef) -> list[FunctionRef]:
    """Return the project functions every call of `where` passes as `param`
    (`finetune(args, datasets_provider)` calling `datasets_provider(args)`), other than
    None; empty when a call may be hidden or passes something else."""
    if forwarded(project, where) is None or param not in where.function.params:
        return []
    found: list[FunctionRef] = []
    for site in project.callers(where):
        passed = passed_argument(where, site.call, param)
        if passed is not None and passed.kind is Kind.CONSTANT and passed.name == "None":
            continue  # nothing to call: the call is guarded (or raises)
        targets = project.targets(passed, site.function.module) if passed is not None else ()
        if not targets or not all(isinstance(target, FunctionRef) for target in targets):
            return []
        found.extend(target for target in targets if isinstance(target, FunctionRef))
    return list(dict.fromkeys(found))


def returned_elements(
    project: Project, call: Value, where: FunctionRef, depth: int, *, key: str | None = None
) -> DatasetsOf:
    """Return the classes of the elements of what project function call `call` returns
    (`for dataset in build_datasets(cfg):`), or of a mapping's `values()`; `key`: of the
    entries under it (see `datasets.elements_of`)."""
    entries = functools.partial(datasets.elements_of, key=key)
    if called_alternatives(call):
        # `d.values()` where `d` was bound more than once: the values of each.
        assert call.base is not None
        return merge(
            [
                returned_elements(project, replace(call, base=option), where, depth, key=key)
                for option in call.base.alternatives()
            ]
        )
    mapping = _viewed_mapping(call)
    if mapping is not None:
        # `d.values()`, and `d.items()` looped as `for key, value in ...`: what `d` holds.
        return datasets.elements_of(project, mapping, where, depth)
    split = _split_dataset(project, call, where)
    if split is not None:
        return datasets.classes_of(project, split, where, depth)
    method = call.base
    if (
        key is not None
        and method is not None
        and method.kind is Kind.ATTRIBUTE
        and method.base is not None
    ):
        # `Transforms(opts).get_transforms()["train"]`: what the method of each receiver
        # returns under the key. Only under a literal key: the lists a method builds in
        # branches its arguments choose (`if use_random_crops: datasets.append(...)`) are
        # not narrowed to the call here, so all of them would count. A receiver none of
        # whose methods is seen to return a project object (a class object's classmethod,
        # a library object) says nothing either way.
        found = datasets.method_returns(project, method, where, depth + 1, call, resolve=entries)
        return found if found.classes or found.contained else DatasetsOf((), False)
    targets = project.targets(call.base, where.module) if call.base is not None else ()
    if not targets or not all(isinstance(target, FunctionRef) for target in targets):
        return DatasetsOf((), False)
    results = [DatasetsOf((), True)]
    for function in targets:
        assert isinstance(function, FunctionRef)
        returns = function.function.returns
        if not returns:
            results.append(DatasetsOf((), False))
        results.extend(entries(project, value, function, depth) for value in returns)
    return merge(results)


def _viewed_mapping(call: Value) -> Value | None:
    """Return `d` of a call `d.values()`."""
    method = call.base
    if method is None or method.kind is not Kind.ATTRIBUTE or method.name != "values":
        return None
    return None if call.args or call.keywords else method.base


def _split_dataset(project: Project, call: Value, where: FunctionRef) -> Value | None:
    """Return the dataset `random_split(dataset, lengths)` splits: every part it returns is a
    Subset of it, so each part loads that dataset's items."""
    if call.base is None or not project.is_one_of(call.base, where.module, catalog.RANDOM_SPLIT):
        return None
    return call.args[0] if call.args else call.keyword("dataset")


def stored_under_global(
    variable: VariableRef, assigned: Value
) -> tuple[FunctionRef, list[Value]] | None:
    """Return the function that stores `assigned` into module variable `variable` under
    `global` (`global param; param = parameter`), with the values it assigns there."""
    if assigned.kind is not Kind.UNKNOWN or len(assigned.qualnames) != 1:
        return None
    function = variable.module.function(assigned.qualnames[0])
    if function is None:
        return None
    values = [store.value for store in function.assignments if store.target == variable.name]
    return FunctionRef.of(variable.module, function), values


def own_reads_resolved(variable: VariableRef, assigned: Value) -> Value:
    """Return `assigned`, a value of module variable `variable`, with its reads of the
    variable itself replaced by the variable's other values: `valid = ConcatDataset([valid,
    extra])` wraps what `valid` held before, and following the name back to every value,
    this one included, goes round in a circle that loses how its datasets were made."""
    own = f"{variable.module.module}.{variable.name}"
    recursive = Value(Kind.RECURSIVE, name=variable.name)
    earlier = Value(
        Kind.ALTERNATIVES,
        args=tuple(
            _own_reads(value, own, recursive) for value in variable.values if value is not assigned
        ),
    )
    return _own_reads(assigned, own, earlier)


def _own_reads(value: Value, own: str, replacement: Value) -> Value:
    """Return `value` with its reads of module variable `own` replaced by `replacement`."""
    if value.kind is Kind.NAME and value.qualnames == (own,):
        return replace(replacement, span=value.span)
    base = None if value.base is None else _own_reads(value.base, own, replacement)
    args = tuple(_own_reads(arg, own, replacement) for arg in value.args)
    keywords = tuple((key, _own_reads(arg, own, replacement)) for key, arg in value.keywords)
    if (
        base is value.base
        and all(new is old for new, old in zip(args, value.args, strict=True))
        and all(new is old for (_, new), (_, old) in zip(keywords, value.keywords, strict=True))
    ):
        return value
    return replace(value, base=base, args=args, keywords=keywords)
