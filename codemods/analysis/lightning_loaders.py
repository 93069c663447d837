"""Loaders Lightning seeds per worker: `seed_everything(..., workers=True)` only sets an
environment variable (`PL_SEED_WORKERS`); the Trainer reads it and gives each DataLoader it
is handed, that has no `worker_init_fn`, its `pl_worker_init_function` (per worker, per
rank, NumPy included). A loader the run iterates itself gets nothing.

So a loader counts as seeded by Lightning only when both are seen: a `workers=True` seeding
in its run, and the loader reaching a Trainer method (`fit`, `validate`, `test`, `predict`,
`tune`) in that run: as an argument, or returned by a loader hook (`train_dataloader()`) of
a LightningDataModule / LightningModule that a Trainer method is given. Fabric reads the
variable when `fabric.setup_dataloaders(...)` is called: the seeding must come before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from ..types import Span
from .branch_feasibility import bound_values
from .config_targets import instantiated_classes
from .configured_trainers import LIGHTNING_TRAINERS, TRAINER_METHODS, instantiates_trainer
from .datasets import classes_of
from .fabric import is_fabric
from .facts import Kind, Value
from .lightning_cli import cli_makers
from .loaders import LoaderCall
from .memo import per_project
from .project import Project
from .ranks import TorchSeeding, torch_seedings
from .refs import ClassRef, FunctionRef
from .runs import LIGHTNING_HOOK_OWNERS, callers_up, entry_modules, loader_hooks
from .seeding_reach import seeding_carries_to
from .self_calls import self_class

#: `Trainer.from_argparse_args(...)` makes a Trainer as well.
_TRAINER_MAKERS = LIGHTNING_TRAINERS | frozenset(
    f"{name}.from_argparse_args" for name in LIGHTNING_TRAINERS
)
#: How many calls a loader is followed back through (`make_loaders()` returning it).
_RETURN_DEPTH = 2


def seeded_by_lightning(project: Project, loader: LoaderCall) -> TorchSeeding | None:
    """Return the `seed_everything(..., workers=True)` that gives `loader` Lightning's
    per-worker seeding, or None when no Trainer is seen to take the loader in its run."""
    seedings = _worker_seedings(project)
    if not seedings:
        return None
    entries = entry_modules(project, loader.function)
    related = [
        seeding
        for seeding in seedings
        if entry_modules(project, seeding.function) & entries
        and seeding_carries_to(project, seeding.function, loader.function, seeding.call.span)
    ]
    handed = _trainer_callers(project, loader)
    for seeding in related:
        runs = entry_modules(project, seeding.function)
        # The seeding sets an environment variable of its own process: the Trainer (or
        # Fabric) that reads it must take part in the same run.
        if _sets_up_after(project, seeding, runs) or any(
            entry_modules(project, function) & runs for function in handed
        ):
            return seeding
    return None


def _sets_up_after(project: Project, seeding: TorchSeeding, runs: frozenset[Path]) -> bool:
    """Return True if the seeding's run (`runs`) hands loaders to `fabric.setup_dataloaders`
    after it (or where the order is not seen): those loaders get Lightning's worker seeding.
    Which loaders a Fabric sets up is not followed, so any of them may be."""
    return any(
        entry_modules(project, function) & runs and _runs_after(project, seeding, function, call)
        for function, call in _fabric_setups(project)
    )


@per_project
def _fabric_setups(project: Project) -> tuple[tuple[FunctionRef, Value], ...]:
    """Return every `fabric.setup_dataloaders(...)` call on a Fabric, with its function."""
    return tuple(
        (function, call)
        for function in project.functions_mentioning("setup_dataloaders")
        for call in function.function.calls
        if call.base is not None
        and call.base.kind is Kind.ATTRIBUTE
        and call.base.name == "setup_dataloaders"
        and call.base.base is not None
        and is_fabric(project, call.base.base, function)
    )


def _runs_after(
    project: Project, seeding: TorchSeeding, function: FunctionRef, call: Value
) -> bool:
    """Return False if `call` (in `function`) certainly runs before the seeding: earlier in
    the seeding's own function, or in code that function calls only before seeding."""
    seeded_at = seeding.call.span
    if seeded_at is None or call.span is None:
        return True
    if function == seeding.function:
        return _starts_after(call.span, seeded_at)
    upstream = set(callers_up(project, function))
    sites = [
        site.call.span
        for caller in upstream
        for site in project.callers(caller)
        if site.function == seeding.function and site.call.span is not None
    ]
    return not sites or any(_starts_after(span, seeded_at) for span in sites)


def _starts_after(span: Span, other: Span) -> bool:
    return (span.line, span.column) > (other.line, other.column)


@per_project
def _worker_seedings(project: Project) -> tuple[TorchSeeding, ...]:
    return tuple(seeding for seeding in torch_seedings(project) if seeding.seeds_workers_per_rank)


def reaches_trainer(project: Project, loader: LoaderCall) -> bool:
    """Return True if `loader` is seen handed to a Lightning Trainer method."""
    return bool(_trainer_callers(project, loader))


@per_project
def _trainer_callers(project: Project, loader: LoaderCall) -> tuple[FunctionRef, ...]:
    """Return the functions seen handing `loader` to a Lightning Trainer method."""
    hooks = _loader_hooks(project, loader)
    found = {
        function: None
        for function, argument in trainer_arguments(project)
        for option in _options(argument)
        if _is_loader(project, option, function, loader, 0)
        # `trainer.fit(model, datamodule=Frames())`: the Trainer calls its loader hooks.
        or (hooks and _runs_hook(project, option, function, hooks))
    }
    # `LightningCLI(Model, Frames)`: the Trainer it makes calls the hooks of what it makes.
    for ref, functions in cli_makers(project).items():
        if hooks & loader_hooks(project, ref):
            found.update(dict.fromkeys(functions))
    return tuple(found)


@per_project
def trainer_arguments(project: Project) -> tuple[tuple[FunctionRef, Value], ...]:
    """Return every argument given to a Lightning Trainer method, with the calling function."""
    found: list[tuple[FunctionRef, Value]] = []
    for function in project.functions_mentioning(*TRAINER_METHODS):
        for call in function.function.calls:
            method = _method_of(call.base) if call.base is not None else None
            if (
                method is None
                or method[0] not in TRAINER_METHODS
                or not _is_trainer(project, method[1], function)
            ):
                continue
            found.extend((function, argument) for argument in call.args)
            found.extend((function, argument) for _, argument in call.keywords)
    return tuple(found)


def _method_of(callee: Value) -> tuple[str, Value] | None:
    """Return the method name and receiver of `trainer.fit`; at module level, where the
    summary names it `script.trainer.fit`, the receiver is the variable `script.trainer`."""
    if callee.kind is Kind.ATTRIBUTE and callee.base is not None:
        return callee.name, callee.base
    if callee.kind is Kind.NAME and len(callee.qualnames) == 1:
        receiver, _, method = callee.qualnames[0].rpartition(".")
        return method, Value(Kind.NAME, qualnames=(receiver,))
    return None


def _is_trainer(project: Project, receiver: Value, where: FunctionRef) -> bool:
    """Return True if `receiver` is certainly a Lightning Trainer (or a project subclass);
    a module-level `trainer = Trainer(...)` (a script's `__main__` block) is followed."""
    options = bound_values(project, receiver, where)
    return bool(options) and all(_makes_trainer(project, option, where) for option in options)


def _makes_trainer(project: Project, value: Value, where: FunctionRef, depth: int = 0) -> bool:
    if value.kind is not Kind.CALL or value.base is None:
        return False
    names = project.qualnames(value.base, where.module)
    if names and names <= _TRAINER_MAKERS:
        return True
    if _made_by_trainer_subclass(project, value.base, where) or instantiates_trainer(
        project, where, value
    ):
        return True
    # `trainer = get_trainer(args)`: a project function that returns a Trainer it makes.
    makers = [t for t in project.targets(value.base, where.module) if isinstance(t, FunctionRef)]
    return (
        depth < _RETURN_DEPTH
        and len(makers) == 1
        and bool(makers[0].function.returns)
        and all(
            _makes_trainer(project, option, makers[0], depth + 1)
            for returned in makers[0].function.returns
            for option in returned.alternatives()
        )
    )


def _made_by_trainer_subclass(project: Project, maker: Value, where: FunctionRef) -> bool:
    targets = project.targets(maker, where.module)
    return bool(targets) and all(
        isinstance(target, ClassRef) and project.derives_from(target, LIGHTNING_TRAINERS)
        for target in targets
    )


def _options(argument: Value) -> Iterator[Value]:
    """Yield what an argument may be, looking into lists and dicts of loaders."""
    for option in argument.alternatives():
        if option.kind is Kind.SEQUENCE:
            for element in option.args:
                yield from _options(element)
        elif option.kind is Kind.DICT:
            for _, element in option.keywords:
                yield from _options(element)
        else:
            yield option


def _is_loader(
    project: Project, value: Value, where: FunctionRef, loader: LoaderCall, depth: int
) -> bool:
    """Return True if `value` (in `where`) is the loader `loader` makes: the call itself (a
    variable resolves to it), the result of a project function returning it, or a `self`
    attribute the loader's class stores it in."""
    if value.kind is Kind.CALL and _same_call(value, where, loader):
        return True
    if depth >= _RETURN_DEPTH:
        return False
    if value.kind is Kind.CALL and value.base is not None:
        return any(
            _is_loader(project, returned, function, loader, depth + 1)
            for function in _called_functions(project, value.base, where)
            for ret in function.function.returns
            for returned in ret.alternatives()
        )
    if value.kind is Kind.ATTRIBUTE and value.base is not None and value.base.kind is Kind.SELF:
        owner = self_class(project, where)
        stored_in = self_class(project, loader.function)
        if owner is None or stored_in is None or stored_in not in project.mro(owner):
            return False
        target = f"self.{value.name}"
        return any(
            assignment.target == target
            and any(
                _same_call(option, loader.function, loader)
                for option in assignment.value.alternatives()
            )
            for assignment in loader.function.function.assignments
        )
    return False


def _same_call(value: Value, where: FunctionRef, loader: LoaderCall) -> bool:
    """Return True if `value` is the loader's own call (a variable's use takes its span)."""
    return (
        value.kind is Kind.CALL
        and where.path == loader.function.path
        and replace(value, span=loader.call.span) == loader.call
    )


def _called_functions(project: Project, callee: Value, where: FunctionRef) -> list[FunctionRef]:
    """Return the project functions a call of `callee` runs: a function, or a method of
    `self` (`self._loader(self.train_set)`)."""
    if callee.kind is Kind.ATTRIBUTE and callee.base is not None and callee.base.kind is Kind.SELF:
        owner = self_class(project, where)
        found = project.find_method(owner, callee.name) if owner is not None else None
        return [found[1]] if found is not None else []
    return [
        target
        for target in project.targets(callee, where.module)
        if isinstance(target, FunctionRef)
    ]


def _loader_hooks(project: Project, loader: LoaderCall) -> frozenset[FunctionRef]:
    """Return the Lightning loader hooks (`train_dataloader()` of a LightningDataModule or
    LightningModule) that return `loader`, made there or by a function they call."""
    found: set[FunctionRef] = set()
    for owner in project.subclasses_of(LIGHTNING_HOOK_OWNERS):
        for hook in loader_hooks(project, owner) - found:
            if any(
                _is_loader(project, returned, hook, loader, 0)
                for ret in hook.function.returns
                for returned in ret.alternatives()
            ):
                found.add(hook)
    return frozenset(found)


def _runs_hook(
    project: Project, value: Value, where: FunctionRef, hooks: frozenset[FunctionRef]
) -> bool:
    """Return True if `value` is an instance whose loader hook is one of `hooks`."""
    classes = [*classes_of(project, value, where).classes]
    # `datamodule = hydra.utils.instantiate(cfg.data)`: the classes its config nodes name.
    for option in bound_values(project, value, where):
        classes += instantiated_classes(project, where, option)
    return any(hooks & loader_hooks(project, ref) for ref in classes)
