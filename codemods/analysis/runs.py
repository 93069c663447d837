"""Runs: which code takes part in one training run (one script, one entry point).

A seeding, a DataLoader and the evidence of a distributed job matter together only when they
belong to the same run: the script that seeds also builds the loader, or calls the function
that does. Methods take part through `self.<method>()` calls of the classes an instance may
be made of: the class, its ancestors and subclasses, and the classes composed with it at
run time (`type(name, (cls, *mixins), {})`). Lightning's loader hooks (`train_dataloader()`)
take part in the runs of the functions that make their data module.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from weakref import WeakKeyDictionary

from . import catalog
from .base_inits import base_init_callers
from .config_targets import config_makers
from .datasets import classes_of
from .facts import Kind, ModuleFacts, Value, self_attribute, string_literal
from .imported_modules import imported_modules, module_attribute_lookup
from .lightning_cli import cli_makers
from .memo import per_project
from .module_lookups import looked_up_constructions
from .project import Project
from .refs import CallSite, ClassRef, FunctionRef, Target, VariableRef
from .self_calls import calls_method, self_stores

#: How many levels of callers `entry_modules` follows.
_CALLER_DEPTH = 3


@per_project
def entry_modules(
    project: Project, function: FunctionRef, *, through_objects: bool = True
) -> frozenset[Path]:
    """Return the files of `function` and of the project code that calls it, a few levels up.

    A seeding and a loader take part in one training run when they share one: the script
    that seeds also builds the loader, or calls the function that does.

    `through_objects=False` leaves out callers that reach `function` only by calling a method
    on an object they make (`make_model(opt).setup()`): a class shared by the project's
    scripts may wrap itself in DistributedDataParallel when its configuration asks, which
    says that some script runs distributed, not that each script making one does.
    """
    return frozenset(caller.path for caller in callers_up(project, function, through_objects))


@per_project
def callers_up(
    project: Project, function: FunctionRef, through_objects: bool = True
) -> tuple[FunctionRef, ...]:
    """Return `function` and the project code that calls it, `_CALLER_DEPTH` levels up.

    A caller that returns what its call gives (`def get_dataset(name, cfg): return
    load_data(**cfg)`) is a layer of the same factory, not a level of its own: its callers
    are on the level it is on.
    """
    seen = {function: None}
    frontier = [function]
    for _ in range(_CALLER_DEPTH):
        following: list[FunctionRef] = []
        for current in frontier:  # grows with the forwarders found on this level
            if current.function.qualname == "<module>":
                continue
            for caller in _callers(project, current, through_objects):
                if caller not in seen:
                    seen[caller] = None
                    forwards = _returns_call_of(project, caller, current)
                    (frontier if forwards else following).append(caller)
        frontier = following
    return tuple(seen)


def _returns_call_of(project: Project, caller: FunctionRef, function: FunctionRef) -> bool:
    """Return True if `caller` returns the result of a call of `function`."""
    return any(
        option.kind is Kind.CALL
        and option.base is not None
        and function in project.targets(option.base, caller.module)
        for returned in caller.function.returns
        for option in returned.alternatives()
    )


@per_project
def _callers(
    project: Project, function: FunctionRef, through_objects: bool
) -> tuple[FunctionRef, ...]:
    """Return the code that calls `function`, one level up: kept per project, as every
    function reached from many others is asked about once for each."""
    return tuple(dict.fromkeys(_each_caller(project, function, through_objects)))


def _each_caller(
    project: Project, function: FunctionRef, through_objects: bool
) -> Iterator[FunctionRef]:
    sites = project.callers(function)
    for site in sites:
        yield site.function
    if not sites:
        # Only a function nothing calls by name is looked for in tables: finding the tables
        # that hold a function reads every module that mentions its name (`main`, `train`).
        yield from _table_callers(project, function)
        yield from _callers_of_returned(project, function)
        yield from _registry_callers(project, function)
        yield from _callers_through_import_module(project).get(function, ())
    # `mp.spawn(train, ...)`: each rank runs `train` in a fresh interpreter that imports the
    # spawning script again, so `train` takes part in that script's run.
    yield from (site.function for site in spawn_sites(project).get(function, ()))
    if function.function.class_qualname is not None:
        yield from _self_callers(project, function)
        if through_objects:
            yield from _instance_callers(project, function)
            yield from _constructing_callers(project, function)
            yield from _callers_on_unknown_objects(project, function)
        yield from _lightning_hook_callers(project, function)


@per_project
def _callers_through_import_module(project: Project) -> dict[FunctionRef, tuple[FunctionRef, ...]]:
    """Return, for each top-level function (or class, by its `__init__`) looked up by name on
    a module imported at run time, the code that calls it:
    `getattr(importlib.import_module("pkg.settings." + name), "run")(settings)` or
    `importlib.import_module(...).run(settings)` calls `run` of every module the name may
    pick (see `imported_modules`)."""
    found: dict[FunctionRef, dict[FunctionRef, None]] = {}
    for caller in project.functions_mentioning("import_module"):
        for call in caller.function.calls:
            for option in call.base.alternatives() if call.base is not None else ():
                lookup = _module_function_lookup(project, option, caller.module)
                if lookup is None:
                    continue
                imported_by, name = lookup
                imported = imported_modules(project, imported_by, caller)
                for _, module in imported.modules if imported is not None else ():
                    target = module.function(name)
                    if target is None or target.class_qualname is not None:
                        # `module.Dataloader(para)`: a class made so runs its `__init__`.
                        target = module.function(f"{name}.__init__")
                    if target is not None:
                        found.setdefault(FunctionRef.of(module, target), {})[caller] = None
    return {function: tuple(callers) for function, callers in found.items()}


def _module_function_lookup(
    project: Project, value: Value, module: ModuleFacts
) -> tuple[Value, str] | None:
    """Return the `import_module(...)` call and the literal name of `getattr(<it>, "run")` or
    `<it>.run`."""
    imported = module_attribute_lookup(project, value, module)
    if imported is not None:
        name = string_literal(value.args[1])
        return (imported, name) if name and name.isidentifier() else None
    if value.kind is not Kind.ATTRIBUTE or value.base is None:
        return None
    for option in value.base.alternatives():
        if (
            option.kind is Kind.CALL
            and option.base is not None
            and project.is_one_of(option.base, module, catalog.IMPORT_MODULE)
        ):
            return option, value.name
    return None


#: Launchers that run a function in new processes started with the `spawn` method.
SPAWNING_LAUNCHERS = frozenset(
    {"torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"}
)


@per_project
def spawn_sites(project: Project) -> dict[FunctionRef, tuple[CallSite, ...]]:
    """Return, for each project function a spawning launcher starts, the launches as the
    calls each rank makes: `mp.spawn(train, args=(cfg, True))` calls `train(i, cfg, True)`
    with the process index `i` first."""
    found: dict[FunctionRef, dict[CallSite, None]] = {}
    for caller in project.functions_mentioning("spawn", "start_processes"):
        for call in caller.function.calls:
            if call.base is None or not (
                project.qualnames(call.base, caller.module) & SPAWNING_LAUNCHERS
            ):
                continue
            started = call.keyword("fn") or (call.args[0] if call.args else None)
            if started is None:
                continue
            given = call.keyword("args") or (call.args[1] if len(call.args) > 1 else None)
            # Arguments that cannot be seen are left unknown: a `*args` of unknown length.
            passed = given.args if given is not None and given.kind is Kind.SEQUENCE else None
            rest = passed if passed is not None else (Value(Kind.STARRED, call.span),)
            launch = Value(
                Kind.CALL, call.span, base=started, args=(Value(Kind.UNKNOWN, call.span), *rest)
            )
            for target in project.targets(started, caller.module):
                if isinstance(target, FunctionRef):
                    found.setdefault(target, {})[CallSite(caller, launch)] = None
    return {function: tuple(sites) for function, sites in found.items()}


def _table_callers(project: Project, function: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the functions that call an entry picked from a module-level table that holds
    `function`: `LOADERS[kind]["train"](args)`, with `LOADERS = {"a": {"train": make_a}}`
    (or entries stored one by one, `LOADERS["a"] = {...}`). Which entry runs is chosen at
    run time: each is a candidate, in the caller's run."""
    for table in _tables_holding(project, function):
        for caller in project.functions_mentioning(table.name):
            if any(_calls_entry_of(project, caller, call, table) for call in caller.function.calls):
                yield caller


#: The methods of a registry object whose call, as a decorator, registers the function.
_REGISTERING = ("register", "register_module")


def _registry_callers(project: Project, function: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the functions that call an entry looked up in a registry holding `function`:
    `@LOADERS.register("am@kaldi")` on it, then `LOADERS[fmt](**conf)` (or
    `LOADERS.get(fmt)(...)`) elsewhere. Which entry runs is chosen at run time: each is a
    candidate, in the caller's run."""
    registries = {
        qualname.rpartition(".")[0]
        for decorator in function.function.decorators
        if decorator.kind is Kind.CALL and decorator.base is not None
        for qualname in _names(project, decorator.base, function.module)
        if qualname.rpartition(".")[2] in _REGISTERING
    }
    for registry in sorted(registries):
        for caller in project.functions_mentioning(registry.rpartition(".")[2]):
            calls = caller.function.calls
            if any(_looks_up(project, caller, call, registry) for call in calls):
                yield caller


def _looks_up(project: Project, caller: FunctionRef, call: Value, registry: str) -> bool:
    """Return True if `call` calls what `registry[key]` or `registry.get(key)` gives."""
    for callee in call.base.alternatives() if call.base is not None else ():
        holder = None
        if callee.kind is Kind.SUBSCRIPT:
            holder = callee.base
        elif callee.kind is Kind.CALL and callee.base is not None:
            getter = callee.base
            holder = getter.base if getter.kind is Kind.ATTRIBUTE and getter.name == "get" else None
        if holder is not None and registry in _names(project, holder, caller.module):
            return True
    return False


def _names(project: Project, value: Value, near: ModuleFacts) -> frozenset[str]:
    """Return the qualified names a dotted name denotes, also those of project objects
    (`ApsRegisters.loader`, a class attribute of the project) that hold no function."""
    return frozenset(value.qualnames) | project.qualnames(value, near)


def _callers_of_returned(project: Project, function: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the functions that call what a project function returns when it may return
    `function`: `get_dataset_fn(kind)(args)`, with `def get_dataset_fn(kind): ... return
    make_toy`. A function only handed on is not called: the call of the result is."""
    if function.function.qualname == "<module>" or function.function.is_method:
        return
    for factory in project.functions_mentioning(function.function.name):
        returned = (
            target
            for value in factory.function.returns
            for option in value.alternatives()
            if option.kind is Kind.NAME
            for target in project.targets(option, factory.module)
        )
        if function not in returned:
            continue
        for site in project.callers(factory):
            if any(call.base == site.call for call in site.function.function.calls):
                yield site.function


@per_project
def _tables_holding(project: Project, function: FunctionRef) -> tuple[VariableRef, ...]:
    """Return the module-level dicts, lists and tuples that hold `function`, maybe nested."""
    if function.function.qualname == "<module>":
        return ()
    found: list[VariableRef] = []
    for module in project.modules_mentioning(*project.names_denoting(function)):
        for name, held in _module_tables(project, module):
            if function in held:
                found.append(VariableRef(module, name, (), module.path))
    return tuple(dict.fromkeys(found))


@per_project
def _module_tables(
    project: Project, module: ModuleFacts
) -> tuple[tuple[str, frozenset[Target]], ...]:
    """Return the module-level dicts, lists and tuples of `module` (bound, or stored into one
    by one), each with what the names it holds, maybe nested, denote.

    Kept per module: every function whose callers are looked for in tables asks about the
    tables of each module that mentions it."""
    body = module.function("<module>")
    stores = [(store.target, store.value) for store in body.item_stores] if body else []
    stored = [(name, value) for name, values in module.bindings for value in values]
    return tuple(
        (name, frozenset(_held(project, value, module)))
        for name, value in [*stored, *stores]
        if value.kind in (Kind.DICT, Kind.SEQUENCE)
    )


#: How many tables deep `_held` looks for a function (`{"msvd": {"train": make}}`).
_TABLE_DEPTH = 3


def _held(project: Project, value: Value, module: ModuleFacts, depth: int = 0) -> Iterator[Target]:
    """Yield what the names held by table `value` (a dict, list or tuple) denote."""
    if value.kind is Kind.DICT:
        entries = [entry for key, entry in value.keywords if key is not None]
    elif value.kind is Kind.SEQUENCE:
        entries = list(value.args)
    else:
        if value.kind is Kind.NAME:
            yield from project.targets(value, module)
        return
    if depth < _TABLE_DEPTH:
        for entry in entries:
            yield from _held(project, entry, module, depth + 1)


def _calls_entry_of(project: Project, caller: FunctionRef, call: Value, table: VariableRef) -> bool:
    """Return True if `call` calls an entry picked from `table` by subscripts."""
    callee = call.base
    if callee is None or callee.kind is not Kind.SUBSCRIPT:
        return False
    while callee is not None and callee.kind is Kind.SUBSCRIPT:
        callee = callee.base
    return callee is not None and table in project.targets(callee, caller.module)


#: Lightning's classes whose loader hooks the Trainer calls on the instance it is given.
LIGHTNING_HOOK_OWNERS = frozenset(
    {
        "pytorch_lightning.LightningDataModule",
        "pytorch_lightning.core.LightningDataModule",
        "pytorch_lightning.core.datamodule.LightningDataModule",
        "lightning.LightningDataModule",
        "lightning.pytorch.LightningDataModule",
        "lightning.pytorch.core.LightningDataModule",
        "lightning.pytorch.core.datamodule.LightningDataModule",
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.lightning.LightningModule",
        "pytorch_lightning.core.module.LightningModule",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
        "lightning.pytorch.core.module.LightningModule",
    }
)
LIGHTNING_LOADER_HOOKS = frozenset(
    {"train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"}
)


def _lightning_hook_callers(project: Project, method: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the functions that make an instance whose loader hook `method` is.

    The Trainer calls `train_dataloader()` of the data module (or module) it is given: the
    function that makes the instance, and hands it to `trainer.fit(...)`, runs the hook. So
    does one that hands the class to a project function making an instance of what it is
    given (`run_cli(Experiment)`, with `model = model_class(**options)` in `run_cli`), and
    one Hydra or a project function makes it in from a config node naming it
    (`instantiate(cfg.data)`, `instantiate_from_config(config.data)`), and one making a
    LightningCLI that makes it.
    """
    owner = project.class_of_function(method)
    if owner is None or not project.derives_from(owner, LIGHTNING_HOOK_OWNERS):
        return
    for cls in project.subclasses_of(LIGHTNING_HOOK_OWNERS):
        if owner in project.mro(cls) and method in loader_hooks(project, cls):
            for site in project.callers(cls):
                yield site.function
            yield from config_makers(project).get(cls, ())
            yield from cli_makers(project).get(cls, ())
            yield from _handing_to_makers(project, cls)


@per_project
def loader_hooks(project: Project, cls: ClassRef) -> frozenset[FunctionRef]:
    """Return the methods the Trainer runs as loader hooks of a `cls` instance: its
    `train_dataloader()` and the like, or the methods its code binds to those names
    (`self.train_dataloader = self._train_dataloader`, or `partial(self._val_loader, ...)`)."""
    found: set[FunctionRef] = set()
    for name in LIGHTNING_LOADER_HOOKS:
        method = project.find_method(cls, name)
        if method is not None:
            found.add(method[1])
    for name in LIGHTNING_LOADER_HOOKS:
        for stored, storing in self_stores(project, cls, name):
            for value in stored.alternatives():
                if (
                    value.kind is Kind.CALL
                    and value.base is not None
                    and value.args
                    and project.is_one_of(value.base, storing.module, catalog.PARTIAL)
                ):
                    value = value.args[0]
                attribute = self_attribute(value)
                bound = project.find_method(cls, attribute) if attribute else None
                if bound is not None:
                    found.add(bound[1])
    return frozenset(found)


def _handing_to_makers(project: Project, cls: ClassRef) -> Iterator[FunctionRef]:
    """Yield the functions that pass class `cls` to a project function that calls the
    parameter receiving it, making an instance."""
    for caller in project.functions_mentioning(*project.names_denoting(cls)):
        for call in caller.function.calls:
            if call.base is None:
                continue
            maker = project.function_of(call.base, caller.module)
            if maker is None:
                continue
            params = maker.function.params[1 if maker.function.class_qualname else 0 :]
            passed = [*zip(params, call.args, strict=False), *call.keywords]
            if any(
                cls in project.targets(argument, caller.module) and _calls_param(maker, param)
                for param, argument in passed
            ):
                yield caller


def _calls_param(function: FunctionRef, param: str | None) -> bool:
    """Return True if `function` calls its parameter `param`."""
    return any(
        call.base is not None and call.base.kind is Kind.PARAM and call.base.name == param
        for call in function.function.calls
    )


def _self_callers(project: Project, method: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the methods that call `self.<method>()` on an instance that may run `method`."""
    owner = project.class_of_function(method)
    if owner is None:
        return
    shared: dict[ClassRef, bool] = {}
    for caller, cls in _calling_self(project, method.function.name):
        if cls not in shared:
            shared[cls] = share_instances(project, cls, owner)
        if shared[cls] and caller != method:
            yield caller


def _constructing_callers(project: Project, method: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the functions that run `__init__` method `method` on a new object: those that
    make an instance of its class (`Trainer(cfg)`, or by a name looked up at run time), and
    the `__init__`s of subclasses that hand on to it (`super().__init__(cfg)`), whose own
    makers are found a level up."""
    if method.function.name != "__init__":
        return
    owner = project.class_of_function(method)
    if owner is None:
        return
    for site in project.callers(owner):
        yield site.function
    for _, function in looked_up_constructions(project, owner):
        yield function
    for _, init in base_init_callers(project, method):
        yield init


def _instance_callers(project: Project, method: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the functions that make an object and call `method` on it: `Trainer(args).fit()`,
    or `trainer = getattr(trainers, name)(args)` then `trainer.fit()`, where `fit` of one of
    the classes the object may be is `method`."""
    owner = project.class_of_function(method)
    if owner is None:
        return
    for caller, runs in _calling_on_instances(project, method.function.name):
        if (owner, method) in runs:
            yield caller


@per_project
def _calling_on_instances(
    project: Project, name: str
) -> tuple[tuple[FunctionRef, frozenset[tuple[ClassRef, FunctionRef]]], ...]:
    """Return the functions that call `<object made here>.<name>()`, or call it on an object
    they hold (`self.data_loader.get_trainloader()`, after `self.data_loader =
    DataLoader(configer)`), each with the methods the call may run (where each class the
    object may be gets `name` from). Every method so named asks: the objects are resolved
    once per name."""
    found: list[tuple[FunctionRef, frozenset[tuple[ClassRef, FunctionRef]]]] = []
    for caller in project.functions_mentioning(name):
        for call in caller.function.calls:
            callee = call.base
            if (
                callee is None
                or callee.kind is not Kind.ATTRIBUTE
                or callee.name != name
                or callee.base is None
                or not (callee.base.kind is Kind.CALL or self_attribute(callee.base))
            ):
                continue
            classes = classes_of(project, callee.base, caller).classes
            runs = {project.find_method(cls, name) for cls in classes}
            found.append((caller, frozenset(run for run in runs if run is not None)))
    return tuple(found)


def _callers_on_unknown_objects(project: Project, method: FunctionRef) -> Iterator[FunctionRef]:
    """Yield the functions that call `<object>.<name>()` on an object of no class the
    analysis knows, when the only project classes defining `name` are `method`'s class
    and its kin (one base defines it, the others derive from that base): an experiment a
    trainer loads from a file named on the command line (`self.exp.get_data_loader()`)."""
    name = method.function.name
    owner = project.class_of_function(method)
    if owner is None or name.startswith("_") or name in catalog.LIBRARY_METHOD_NAMES:
        return
    if not any(
        all(root in project.mro(definer) for definer in _defining(project, name))
        for root in project.mro(owner)
        if root in _defining(project, name)
    ):
        return
    yield from _calling_on_unknown_objects(project, name)


@per_project
def _defining(project: Project, name: str) -> frozenset[ClassRef]:
    """Return the project classes that define a method `name`."""
    return frozenset(
        owner
        for function in project.functions_mentioning(name)
        if function.function.name == name
        for owner in [project.class_of_function(function)]
        if owner is not None
    )


@per_project
def _calling_on_unknown_objects(project: Project, name: str) -> tuple[FunctionRef, ...]:
    """Return the functions that call `<object>.<name>()` where no class of the object is
    known (a parameter, or an object a library made)."""
    found: list[FunctionRef] = []
    for caller in project.functions_mentioning(name):
        for call in caller.function.calls:
            receiver = call.base.base if calls_method(call, name) and call.base else None
            if (
                receiver is not None
                and receiver.kind is not Kind.SELF
                and not classes_of(project, receiver, caller).classes
            ):
                found.append(caller)
                break
    return tuple(found)


@per_project
def _calling_self(project: Project, name: str) -> tuple[tuple[FunctionRef, ClassRef], ...]:
    """Return the methods that call `self.<name>()`, each with its class: found once for
    every method so named."""
    return tuple(
        (caller, cls)
        for caller in project.functions_mentioning(name)
        if caller.function.class_qualname is not None
        and any(
            call.base is not None
            and call.base.kind is Kind.ATTRIBUTE
            and call.base.name == name
            and call.base.base is not None
            and call.base.base.kind is Kind.SELF
            for call in caller.function.calls
        )
        for cls in [project.class_of_function(caller)]
        if cls is not None
    )


def share_instances(project: Project, first: ClassRef, second: ClassRef) -> bool:
    """Return True if one object may be an instance of both classes.

    One derives from the other, or both take part in a class composed at run time.
    """
    first_line, second_line = project.mro(first), project.mro(second)
    if second in first_line or first in second_line:
        return True
    return any(
        any(cls in composed for cls in first_line) and any(cls in composed for cls in second_line)
        for composed in composed_classes(project)
    )


def overridden_in(project: Project, function: FunctionRef, cls: ClassRef) -> bool:
    """Return True if `cls`, composed with the class of method `function`, redefines it.

    `DistributedMixin.loader_setup` replaces `BaseTrainer.loader_setup` in the trainers
    composed with the mixin: the base's loader is not built in their runs.
    """
    owner = project.class_of_function(function)
    if owner is None or owner in project.mro(cls) or cls in project.mro(owner):
        return False
    name = function.function.name
    return any(
        method_name == name
        for ancestor in project.mro(cls)
        for method_name, _ in ancestor.cls.methods
    )


_COMPOSED: WeakKeyDictionary[Project, tuple[frozenset[ClassRef], ...]] = WeakKeyDictionary()


def composed_classes(project: Project) -> tuple[frozenset[ClassRef], ...]:
    """Return the sets of project classes composed into one class at run time.

    A function that calls `type(name, bases, namespace)` (or a metaclass, `cls.__class__`)
    composes the classes it refers to: `bases.append(DistributedMixin)`,
    `(cls, *bases)`.
    """
    cached = _COMPOSED.get(project)
    if cached is not None:
        return cached
    found: list[frozenset[ClassRef]] = []
    for function in project.functions_mentioning("type", "__class__"):
        if not any(_creates_class(call) for call in function.function.calls):
            continue
        classes = frozenset(
            target
            for name in function.function.references
            for target in project.resolve(name, function.module)
            if isinstance(target, ClassRef)
        )
        if len(classes) > 1:
            found.append(classes)
    _COMPOSED[project] = result = tuple(found)
    return result


def _creates_class(call: Value) -> bool:
    """Return True for `type(name, bases, namespace)` or `cls.__class__(name, bases, {...})`."""
    callee = call.base
    if (
        callee is None
        or len(call.args) != 3
        or call.args[1].kind is not Kind.SEQUENCE
        or call.args[2].kind is not Kind.DICT
    ):
        return False
    return "builtins.type" in callee.qualnames or any(
        option.kind is Kind.ATTRIBUTE and option.name == "__class__"
        for option in callee.alternatives()
    )
