"""Dataset discovery: which project Dataset classes a DataLoader (or any value) may get,
through variables, callers, factories, wrappers, containers and registries, and which objects
a class stores in its attributes. What a worker runs for each item is in `per_item`.
"""

from __future__ import annotations

from dataclasses import replace

from . import (
    attribute_classes,
    catalog,
    dataset_bindings,
    dataset_sums,
    dataset_wrappers,
    held_datasets,
)
from .branch_feasibility import closed_to_call, open_to_call, ruled_out_by_call
from .callable_tables import made_by_picked_entry
from .candidates import (
    MAX_RESOLUTION_DEPTH,
    CandidateSource,
    DatasetsOf,
    Resolver,
    merge,
)
from .class_methods import made_by_classmethod
from .class_names import named_class_datasets
from .config_targets import configured_datasets, read_under_key
from .datapipes import called_alternatives, functional_result
from .dataset_arguments import method_of_variable, spelled
from .dataset_registries import (
    ReturnedClasses,
    classes_returned,
    made_by_type,
    registry_lookup,
)
from .facts import Kind, Value, string_literal
from .forwarded_calls import forwarded_to_builder, through_splats
from .imported_modules import imported_attribute_classes
from .loaders import LoaderCall, loader_calls
from .local_dicts import stored_items
from .memo import per_project
from .module_lookups import (
    copied,
    looked_up_here,
    looked_up_instances,
    returns_receiver,
)
from .parameter_sources import from_callers
from .pinned_arguments import pinned_at
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef, VariableRef
from .registry_keys import registry_named_by_call
from .self_calls import self_class, subclasses
from .stored_attributes import stored_before
from .transform_containers import is_container
from .type_tests import narrowed
from .undefined_names import names_undefined_import


def is_dataset(project: Project, ref: ClassRef) -> bool:
    """Return True if `ref` derives from a torch Dataset (directly or through project classes)."""
    return project.derives_from(ref, catalog.TORCH_DATASET_BASES)


@per_project
def dataset_classes(project: Project) -> tuple[ClassRef, ...]:
    """Return the project's Dataset classes: torch subclasses and classes given to DataLoaders."""
    found = list(project.subclasses_of(catalog.TORCH_DATASET_BASES))
    for loader in loader_calls(project):
        found.extend(datasets_of_loader(project, loader).classes)
    return tuple(dict.fromkeys(found))


@per_project
def datasets_of_loader(project: Project, loader: LoaderCall) -> DatasetsOf:
    """Return the project dataset classes a DataLoader call may load from."""
    value = loader.argument("dataset").value
    if value is None:
        return DatasetsOf((), False)
    found = classes_of(project, value, loader.function)
    span = loader.call.span
    if span:
        found = narrowed(project, found, value, span, loader.function)
        found = pinned_at(found, span, loader.function)
    if not any(source.kind == "module" for source in found.sources):
        return found
    # A class looked up by name in a module may be any class the module defines: only
    # those a DataLoader can load (or a dataset applies per item) are candidates here.
    applied = {ref for ref, _ in found.applied}
    kept = tuple(
        ref
        for ref in found.classes
        if ref in applied
        or is_dataset(project, ref)
        or project.chosen_bases(ref)
        or any(project.find_method(ref, method) for method in catalog.PER_ITEM_METHODS)
    )
    return replace(
        found, classes=kept, made=tuple((ref, site) for ref, site in found.made if ref in kept)
    )


@per_project
def classes_of(project: Project, value: Value, where: FunctionRef, depth: int = 0) -> DatasetsOf:
    """Return the project classes whose instances `value` (seen in `where`) may be."""
    if depth > MAX_RESOLUTION_DEPTH:
        return DatasetsOf((), False)
    return merge(
        [_classes_of_option(project, option, where, depth) for option in value.alternatives()]
    )


def _classes_of_option(
    project: Project, value: Value, where: FunctionRef, depth: int
) -> DatasetsOf:
    deeper = depth + 1
    original = copied(project, value, where)
    if original is not None:
        return classes_of(project, original, where, deeper)  # a copy is of the same classes
    if value.base is not None and called_alternatives(value):
        # `dataset = dataset.batch(4)` after another `dataset = ...`: the method of any of them.
        return merge(
            [
                _classes_of_option(project, replace(value, base=option), where, depth)
                for option in value.base.alternatives()
            ]
        )
    instantiated = attribute_classes.instantiated(project, value, where)
    if instantiated is not None:
        # `self.dataset(x, y)` after `self.dataset = Tiles`: a `Tiles` made here.
        returned = ReturnedClasses(instantiated.classes, instantiated.complete)
        return _instances_of(project, returned, value, where)
    if (
        value.kind is Kind.CALL
        and value.base is not None
        and value.base.kind is Kind.ATTRIBUTE
        and value.base.base is not None
    ):
        imported = imported_attribute_classes(project, value.base, where)
        if imported is not None:
            # `load_file(cfg.DATA.FILE).ProviderDataset(...)`: the class of that name in
            # each module the import may be.
            classes, modules = imported
            return _instances_of(
                project, ReturnedClasses(classes, True, looked_up_in=modules), value, where
            )
        return method_returns(project, value.base, where, deeper, value, inline_depth=depth)
    configured = (
        configured_datasets(project, value, where) or named_class_datasets(project, value, where)
        if value.kind is Kind.CALL
        else None
    )
    if configured is not None:
        return configured
    if value.kind is Kind.CALL and value.base is not None and value.base.kind is Kind.CALL:
        looked_up = looked_up_here(project, value, where)
        if looked_up is not None:
            return looked_up  # `getattr(module_data, cfg["type"])(...)`
        registry = registry_lookup(project, value, where)
        if registry is not None:
            return registry  # `REGISTRY.get(name)(...)`
        # `Composed = make_class(a, b)` or `Picked = pick_class(name)`, then `Composed(...)`:
        # the classes the factory returns.
        return _instances_of(project, classes_returned(project, value.base, where), value, where)
    if value.kind is Kind.CALL and value.base is not None:
        total = dataset_sums.summed(project, value, where, deeper)
        if total is not None:
            return total  # `sum(datasets)`: what their `__radd__` / `__add__` make
        registry = registry_lookup(project, value, where)
        if registry is not None:
            return registry
        made = made_by_type(project, value.base, where.module)
        if made is not None:
            return DatasetsOf(made, True)
        looked_up = (
            looked_up_here(project, value, where) if value.base.kind is Kind.SUBSCRIPT else None
        )
        if looked_up is not None:
            return looked_up  # `datasets.__dict__[cfg.type](**params)`
        picked = made_by_picked_entry(project, value, where, depth)
        if picked is not None:
            return picked  # `makers[name]()`
        if value.base.kind is Kind.UNKNOWN and value.base.name:
            # `dataset_class(data, ids)` of `dataset_class, collate, runner = factory(cfg)`.
            unpacked = dataset_bindings.unpacked_class_objects(project, value.base.name, where)
            if unpacked is not None:
                returned, sources = unpacked
                instances = _instances_of(project, returned, value, where)
                return replace(instances, sources=(*instances.sources, *sources))
        targets = project.targets(value.base, where.module)
        method = None if targets else method_of_variable(project, value.base, where)
        if method is not None:
            return method_returns(project, method, where, deeper, value)
        if not targets:
            # A name its project module does not define is no class of ours: the import
            # fails before any loader is built.
            return DatasetsOf((), names_undefined_import(project, value.base, where.module))
        results: list[DatasetsOf] = []
        for target in targets:
            if isinstance(target, ClassRef):
                results.append(
                    DatasetsOf(
                        (target,),
                        True,
                        project.chosen_bases(target),
                        made=((target, (value, where)),),
                    )
                )
            elif (
                isinstance(target, ExternalRef)
                and target.qualname in catalog.TORCH_DATASET_WRAPPERS
            ):
                results.append(dataset_wrappers.wrapped(project, value, where, deeper))
            elif isinstance(target, ExternalRef) and catalog.applies_transforms(target.qualname):
                results.append(
                    dataset_wrappers.applied(project, value, where, target.qualname, deeper)
                )
            elif isinstance(target, ExternalRef) and is_container(target.qualname):
                # Nested literals are finite: only following names costs depth.
                results.append(
                    dataset_wrappers.container(project, value, where, target.qualname, depth)
                )
            elif isinstance(target, ExternalRef):
                results.append(DatasetsOf((), target.qualname not in catalog.OBJECT_LOADERS))
            elif isinstance(target, VariableRef) and any(
                made_by_type(project, v, target.module) is not None for v in target.values
            ):
                for assigned in target.values:
                    made = made_by_type(project, assigned, target.module)
                    results.append(DatasetsOf(made or (), made is not None))
            elif (
                isinstance(target, VariableRef)
                and target.module.path == where.path
                and all(assigned.kind is Kind.SUBSCRIPT for assigned in target.values)
            ):
                # A script's `StereoDataset = __datasets__[args.dataset]`, then
                # `StereoDataset(path, False)`: as if the entry were called in place.
                for assigned in target.values:
                    results.append(
                        _classes_of_option(project, replace(value, base=assigned), where, deeper)
                    )
            elif isinstance(target, VariableRef) and (
                module_class := _imported_classes(project, target)
            ):
                # A script's `Provider = load_file(path).Provider`, then `Provider(...)`.
                results.append(_instances_of(project, module_class, value, where))
            elif isinstance(target, VariableRef) and any(
                assigned.kind is Kind.CALL for assigned in target.values
            ):
                # A module-level `Picked = pick_class(name)`, then `Picked(...)`.
                module_code = target.module.function("<module>")
                context = FunctionRef.of(target.module, module_code) if module_code else where
                for assigned in target.values:
                    returned = classes_returned(project, assigned, context)
                    results.append(_instances_of(project, returned, value, where))
            elif isinstance(target, FunctionRef):
                # Only what the branches open to this call's arguments return:
                # `get_transforms(False, size)` never builds its `if train:` pipeline.
                returns = [
                    option
                    for ret in target.function.returns
                    for option in ret.alternatives()
                    if option.span is None
                    or not ruled_out_by_call(value, where, target, option.span)
                ]
                # A returned tuple is no instance of a project class (it may be unpacked).
                results.extend(
                    DatasetsOf((), True)
                    if ret.kind is Kind.SEQUENCE
                    else made_by_classmethod(project, value, where, target, ret)
                    or looked_up_instances(project, ret, target, value, where)
                    or _made_for_call(project, ret, target, value, where, deeper)
                    for ret in returns
                )
                if not returns and not target.function.only_raises:
                    results.append(DatasetsOf((), False))
            else:
                results.append(DatasetsOf((), False))
        return merge(results)
    if value.kind is Kind.ATTRIBUTE and value.base is not None and value.base.kind is Kind.SELF:
        stored = held_datasets.held_after_store(project, where, value.name, value.span, deeper)
        if stored is not None:
            return stored  # `self.train_set = Clips()` just before `DataLoader(self.train_set)`
        # `self.train_set`, stored by a method of the same class (`setup`, `__init__`).
        own = self_class(project, where)
        held = (
            held_datasets.self_held(project, own, where, value.name, deeper)
            if own is not None
            else None
        )
        if held is None or not held.classes:
            return DatasetsOf((), False)  # nothing in the class stores it: set from outside
        return held
    if value.kind is Kind.RECURSIVE:
        return DatasetsOf((), True)  # what it holds comes with the name's other values
    if value.kind in (Kind.CONSTANT, Kind.INT, Kind.SEQUENCE):
        # A literal (or a list display) is no instance of a project class: a
        # `self.parser = None` or `train_dataset = []` placeholder, replaced later, leaves
        # the other values the only candidates.
        return DatasetsOf((), True)
    if value.kind is Kind.SUBSCRIPT and value.base is not None:
        # `datasets[0]`: an element of a list (a dict registry's pick is a class, not here).
        key = string_literal(value.args[0]) if value.args else None
        elements = elements_of(project, value.base, where, deeper, key=key)
        if elements.classes or elements.contained:
            return read_under_key(project, elements, value.args[0]) if value.args else elements
    if value.kind is Kind.NAME:
        results = _from_variables(project, value, where, deeper, classes_of)
        return merge(results) if results else DatasetsOf((), False)
    if value.kind is Kind.PARAM:
        return from_callers(project, value.name, where, deeper, classes_of, read=value.span)
    if value.kind is Kind.UNKNOWN and value.name:
        local = dataset_bindings.classes_of_local(project, value.name, where, deeper)
        return local if local is not None else DatasetsOf((), False)
    if value.kind is Kind.ATTRIBUTE and value.base is not None:
        # `self.datasets.train = Shapes(...)`, then `DataLoader(self.datasets.train)`.
        stored_value = stored_before(project, where, value, value)
        if stored_value is not None:
            return classes_of(project, stored_value, where, deeper)
    total = dataset_sums.added(project, value, where, deeper)
    return total if total is not None else DatasetsOf((), False)


def _imported_classes(project: Project, variable: VariableRef) -> ReturnedClasses | None:
    """Return the classes a module-level variable bound to a class of a module imported at
    run time may be (`Provider = load_file(path).Provider`), if it is bound so."""
    module_code = variable.module.function("<module>")
    if module_code is None:
        return None
    context = FunctionRef.of(variable.module, module_code)
    for assigned in variable.values:
        found = imported_attribute_classes(project, assigned, context)
        if found is not None:
            return ReturnedClasses(found[0], True, looked_up_in=found[1])
    return None


def _made_for_call(
    project: Project, ret: Value, target: FunctionRef, call: Value, where: FunctionRef, depth: int
) -> DatasetsOf:
    """Return what `target` makes by returning `ret` when `call` (in `where`) calls it: what
    the branches and registry keys open to this call's arguments give, and what a builder
    it forwards them to makes."""
    found = registry_named_by_call(
        project, classes_of(project, ret, target, depth), ret, target, (call, where)
    )
    return seen_by_call(project, found, target, call, where)


def seen_by_call(
    project: Project, found: DatasetsOf, target: FunctionRef, call: Value, where: FunctionRef
) -> DatasetsOf:
    """Return `found`, what plain function `target` returns, as `call` (in `where`) gets
    it: without what the branches the call closes make, with the literals it passes read
    into the constructions `target` writes (`Clips(mode=mode)` made for `get_data("test")`)."""
    found = closed_to_call(open_to_call(found, call, where, target), call, where, target)
    found = through_splats(found, target, call, where, 0)
    return forwarded_to_builder(project, found, target, call, where)


def _instances_of(
    project: Project, returned: ReturnedClasses, call: Value, where: FunctionRef
) -> DatasetsOf:
    """Return what `call` (in `where`) makes by calling one of the `returned` classes."""
    return merge(
        [
            DatasetsOf((), returned.complete),
            *(
                DatasetsOf(
                    (ref,),
                    True,
                    (*project.chosen_bases(ref), *returned.picked_from),
                    made=((ref, (call, where)),),
                    sources=tuple(
                        CandidateSource("module", module) for module in returned.looked_up_in
                    ),
                )
                for ref in returned.classes
            ),
        ]
    )


def method_returns(
    project: Project,
    method: Value,
    where: FunctionRef,
    depth: int,
    call: Value | None = None,
    inline_depth: int | None = None,
    resolve: Resolver = classes_of,
) -> DatasetsOf:
    """Return what `receiver.method(...)` returns, for receivers of project classes.

    `self.build()`, `self.factory.build()`, `Factory(cfg).build()`: the objects a factory
    method makes. A receiver written out as a call (`Source(...).map(f).batch(4)`, or a
    name rebound as `ds = ds.map(f)`, summarised inline) is resolved at `inline_depth`:
    a finite expression costs no depth, and a long datapipe chain stays within reach.
    `resolve` reads each returned value: `elements_of` for the elements of a returned dict
    or list (`Transforms(opts).get_transforms()["train"]`).
    """
    receiver = method.base
    assert receiver is not None
    own = self_class(project, where)
    if receiver.kind is Kind.SELF:
        receivers = DatasetsOf((own,), True) if own is not None else DatasetsOf((), False)
        if own is not None and _left_to_subclasses(project, own, method.name):
            # `self.get_dataset(...)` of a base whose own raises: a subclass's runs.
            receivers = DatasetsOf((own, *subclasses(project, own)), True)
    elif (
        receiver.kind is Kind.ATTRIBUTE
        and receiver.base is not None
        and receiver.base.kind is Kind.SELF
        and own is not None
    ):
        receivers = held_datasets.held(project, own, receiver.name, depth=depth)
    elif inline_depth is not None and receiver.kind in (Kind.CALL, Kind.ALTERNATIVES):
        receivers = _inline_classes(project, receiver, where, inline_depth)
    else:
        receivers = classes_of(project, receiver, where, depth)
    if call is not None and resolve is classes_of:
        # `pipe.map(fn)`, `pipe.batch(4)`: a datapipe over the receiver, which stays in it.
        pipe = functional_result(project, receivers.classes, call, where, depth, classes_of)
        if pipe is not None:
            return merge([receivers, pipe])
    results = [DatasetsOf((), receivers.complete)]
    methods: set[FunctionRef] = set()
    looked_up = any(source.kind == "module" for source in receivers.sources)
    for ref in receivers.classes:
        found = project.find_method(ref, method.name)
        if found is not None and found[1].function.only_raises:
            continue  # on an instance of `ref` the call raises: it makes nothing
        if found is None and looked_up:
            continue  # a class of a module looked up by name that cannot be the receiver
        returns = found[1].function.returns if found is not None else ()
        if found is None or not returns:
            results.append(DatasetsOf((), False))
            continue
        methods.add(found[1])
        for value in returns:
            if resolve is classes_of and returns_receiver(project, value, found[1]):
                # `def copy(self): return deepcopy(self)`: the receiver, as it was made.
                made = tuple(site for site in receivers.made if site[0] == ref)
                results.append(replace(receivers, classes=(ref,), made=made))
                continue
            if call is not None and resolve is classes_of:
                # `config.init_obj("dataset", module_data)`: a class of the module passed.
                looked = looked_up_instances(project, value, found[1], call, where, True)
                if looked is not None:
                    results.append(looked)
                    continue
            returned = resolve(project, value, found[1], depth)
            if call is not None:
                returned = through_splats(returned, found[1], call, where, 1)
            results.append(returned)
    merged = merge(results)
    if len(methods) < 2 or not (merged.classes or merged.contained):
        return merged
    # Which class's method runs is decided at run time: the classes are candidates.
    label = f"{spelled(receiver)}.{method.name}" if spelled(receiver) else method.name
    return replace(merged, registries=(*merged.registries, label))


def _left_to_subclasses(project: Project, ref: ClassRef, name: str) -> bool:
    """Return True if method `name` of class `ref` is missing or only raises: the instance
    a base-class method runs on belongs to a subclass that defines it."""
    found = project.find_method(ref, name)
    return found is None or found[1].function.only_raises


@per_project
def _inline_classes(project: Project, value: Value, where: FunctionRef, depth: int) -> DatasetsOf:
    """`classes_of`, once per expression: the bindings of a rebound name share their parts,
    and a chain of them would otherwise be walked once per path through it."""
    return classes_of(project, value, where, depth)


def elements_of(
    project: Project, value: Value, where: FunctionRef, depth: int = 0, *, key: str | None = None
) -> DatasetsOf:
    """Return the project classes of the elements of the list or tuple `value` may be.

    `classes` are the elements' own classes; `contained` what containers among them hold.
    `key`: only the entries a dict display writes under that literal key (or under a key
    it does not spell out), for `value[key]`.
    """
    if depth > MAX_RESOLUTION_DEPTH:
        return DatasetsOf((), False)
    deeper = depth + 1
    results: list[DatasetsOf] = []
    for option in value.alternatives():
        if option.kind is Kind.SEQUENCE:
            results.extend(
                elements_of(project, element.base, where, deeper)
                if element.kind is Kind.STARRED and element.base is not None  # `[*others]`
                else classes_of(project, element, where, depth)
                for element in option.args
            )
        elif option.kind is Kind.DICT and (
            items := [item for name, item in option.keywords if name in (None, key) or not key]
            + stored_items(where.function, option)
        ):
            # `datasets["train"]` of a dict: any of its values, written out or stored later.
            results.extend(classes_of(project, item, where, depth) for item in items)
        elif (
            option.kind is Kind.ATTRIBUTE
            and option.base is not None
            and option.base.kind is Kind.SELF
        ):
            own = self_class(project, where)
            held = (
                held_datasets.held(project, own, option.name, elements_of, depth=deeper)
                if own
                else None
            )
            results.append(held if held is not None and held.classes else DatasetsOf((), False))
        elif option.kind is Kind.PARAM:
            results.append(
                from_callers(project, option.name, where, deeper, elements_of, read=option.span)
            )
        elif option.kind is Kind.CALL:
            results.append(
                dataset_bindings.returned_elements(project, option, where, deeper, key=key)
            )
        elif option.kind is Kind.NAME:
            results.extend(
                _from_variables(project, option, where, deeper, elements_of)
                or [DatasetsOf((), False)]
            )
        elif option.kind is Kind.RECURSIVE:
            results.append(DatasetsOf((), True))
        elif option.kind is Kind.UNKNOWN and option.name:
            results.append(dataset_bindings.unpacked_elements(project, option.name, where, deeper))
        elif option.kind is Kind.BINOP and option.name in ("+", "*"):
            # `first + second` holds the elements of both; `[step] * n` those of the list.
            lists = [arg for arg in option.args if arg.kind is Kind.SEQUENCE]
            operands = lists if option.name == "*" and lists else option.args
            results.extend(elements_of(project, operand, where, deeper) for operand in operands)
        else:
            results.append(DatasetsOf((), False))
    return merge(results)


def _from_variables(
    project: Project, value: Value, where: FunctionRef, depth: int, resolve: Resolver
) -> list[DatasetsOf]:
    results: list[DatasetsOf] = []
    for target in project.targets(value, where.module):
        if isinstance(target, VariableRef):
            module_code = target.module.function("<module>")
            context = FunctionRef.of(target.module, module_code) if module_code else where
            for assigned in target.values:
                if assigned.kind is Kind.UNKNOWN and module_code is not None:
                    # A script's `train_set, val_set = make_datasets(...)` or `for ds in ...:`.
                    local = dataset_bindings.classes_of_local(project, target.name, context, depth)
                    if local is not None:
                        results.append(local)
                        continue
                stored = dataset_bindings.stored_under_global(target, assigned)
                if stored is None:
                    assigned = dataset_bindings.own_reads_resolved(target, assigned)
                    results.append(resolve(project, assigned, context, depth))
                    continue
                function, values = stored
                results.extend(resolve(project, v, function, depth) for v in values)
                if not values:
                    results.append(DatasetsOf((), False))
        else:
            results.append(DatasetsOf((), False))
    return results
