"""What a DataLoader call passes as `worker_init_fn`, resolved to project code."""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import catalog
from .caller_arguments import passed_by_every_caller, written_by_every_caller
from .config_sections import object_classes
from .facts import Kind, ModuleFacts, Value
from .known_values import Known, literal_known
from .loaders import ArgumentLookup, LoaderCall, Presence
from .project import Project
from .refs import ClassRef, FunctionRef
from .worker_conditions import unspanned

PARTIAL = catalog.PARTIAL


@dataclass(frozen=True)
class WorkerInit:
    """What a DataLoader call passes as `worker_init_fn`."""

    lookup: ArgumentLookup
    #: The project function (def, nested def or lambda) it runs, if that is known.
    function: FunctionRef | None = None
    #: Passed as `functools.partial(function, ...)`.
    via_partial: bool = False
    #: The project function whose call makes the value passed (`worker_init_fn=make(cfg)`).
    factory: FunctionRef | None = None
    #: `factory` returns None on every path: no worker_init_fn runs.
    factory_returns_none: bool = False
    #: The library seeding call passed in place of a function (`worker_init_fn=np.random.seed(1)`):
    #: it runs once, in the main process, and passes its result, None.
    seeding_call: str | None = None
    #: A None chosen only when no seed is given (`partial(seed_fn, seed=seed) if seed is not
    #: None else None`): the run asked for no seeding.
    without_seed: bool = False

    @property
    def is_absent(self) -> bool:
        """Return True if no worker_init_fn runs: none is passed, a literal None is, or the
        call of a project factory that always returns None."""
        if self.lookup.presence is Presence.ABSENT or self.factory_returns_none:
            return True
        if self.seeding_call is not None:
            return True
        value = self.lookup.value
        return value is not None and value.is_none

    @property
    def why_none_runs(self) -> str:
        """Return why no worker_init_fn runs although one is passed, as a message clause."""
        if self.factory is not None:
            return f"`{self.factory.function.name}` returns None, so "
        if self.seeding_call is not None:
            return (
                f"`worker_init_fn={self.seeding_call}` runs once in the main process and "
                "passes None, so "
            )
        return ""


def worker_init(loader: LoaderCall) -> WorkerInit:
    """Return the `worker_init_fn` of a DataLoader call, resolved to project code if possible."""
    return _worker_init_of(loader, loader.argument("worker_init_fn"))


def worker_init_choices(loader: LoaderCall) -> tuple[WorkerInit, ...]:
    """Return each `worker_init_fn` a DataLoader call may pass, one per choice made at run time.

    `worker_init_fn=init` with `init = seed_fn` in one branch and `init = None` in the other
    (or `seed_fn if flag else None`) is a choice: each option is resolved on its own, and a
    `None` option is absent, so that "sometimes no worker_init_fn" is told apart from "an
    unknown one". Any other value gives the one answer of `worker_init()`.
    """
    lookup = loader.argument("worker_init_fn")
    options = lookup.value.alternatives() if lookup.value is not None else ()
    if len(options) < 2:
        return (_worker_init_of(loader, lookup),)
    unseeded = none_without_seed(lookup.value) if lookup.value is not None else None
    return tuple(
        replace(_worker_init_of(loader, replace(lookup, value=option)), without_seed=True)
        if option is unseeded
        else _worker_init_of(loader, replace(lookup, value=option))
        for option in options
    )


def none_without_seed(choice: Value) -> Value | None:
    """Return the None of `choice = f(seed=s) if s is not None else None` (or of `None if s is
    None else f(s)`): the option taken when the seed the other option is given is None."""
    test = choice.keyword("if") if choice.kind is Kind.ALTERNATIVES else None
    if test is None or test.kind is not Kind.COMPARE or len(choice.args) != 2:
        return None
    subject, other = test.args
    if subject.is_none:
        subject, other = other, subject
    if not other.is_none or test.name not in ("is", "is not"):
        return None
    given, none = choice.args if test.name == "is not" else reversed(choice.args)
    passed = (*given.args, *(value for _, value in given.keywords))
    if none.is_none and given.kind is Kind.CALL and unspanned(subject) in map(unspanned, passed):
        return none
    return None


def seed_left_none(project: Project, loader: LoaderCall) -> str | None:
    """Return the parameter `seed` when `worker_init_fn=partial(seed_fn, seed=seed) if seed
    is not None else None` gets its None from a call of the loader's function that leaves
    `seed` None (OpenMMLab's validation loaders); None otherwise."""
    choice = loader.argument("worker_init_fn").value
    test = choice.keyword("if") if choice is not None else None
    if choice is None or test is None or none_without_seed(choice) is None:
        return None
    seed = next((value for value in test.args if not value.is_none), None)
    if seed is None or seed.kind is not Kind.PARAM:
        return None
    passed = written_by_every_caller(project, loader.function, seed.name) or []
    left = any(
        value.is_none
        if isinstance(value, Value)
        else bool(value and "None" in (value.one_of or ()))
        for value, _ in passed
    )
    return seed.name if left else None


def _worker_init_of(loader: LoaderCall, lookup: ArgumentLookup) -> WorkerInit:
    value = lookup.value
    if value is None:
        return WorkerInit(lookup)
    project, where = loader.project, loader.module
    options = value.alternatives()
    if len(options) != 1:
        return WorkerInit(lookup)
    option = options[0]
    if option.kind is Kind.CALL and option.base is not None:
        if option.args and project.is_one_of(option.base, where, PARTIAL):
            return WorkerInit(lookup, project.function_of(option.args[0], where), via_partial=True)
        names = project.qualnames(option.base, where) & _SEEDERS_RETURNING_NONE.keys()
        if names:
            return WorkerInit(lookup, seeding_call=_SEEDERS_RETURNING_NONE[min(names)])
        return _made_by_factory(lookup, project, option.base, where)
    if option.kind is Kind.ATTRIBUTE and lookup.presence is Presence.PASSED:
        # `worker_init_fn=dataset.pick_shard`: the method of the class the object is.
        methods = bound_methods(project, option, loader.function) or held_callables(
            project, option, loader.function
        )
        return WorkerInit(lookup, methods[0] if len(methods) == 1 else None)
    return WorkerInit(lookup, project.function_of(option, where))


#: Seeding functions whose call returns None, by qualname, as the message spells them.
_SEEDERS_RETURNING_NONE = {
    "numpy.random.seed": "np.random.seed(...)",
    "random.seed": "random.seed(...)",
}


def worker_arguments(project: Project, loader: LoaderCall, init: WorkerInit) -> dict[str, Known]:
    """Return what is known of the arguments `init`'s function gets in each worker besides
    the worker id: each keyword a `partial` binds (a literal, or a parameter of the loader's
    function that every call passes alike) and, for the rest, each literal default."""
    function, value = init.function, init.lookup.value
    if function is None or value is None or function.function.class_qualname is not None:
        return {}
    facts = function.function
    bound = value.alternatives()[0] if init.via_partial else None
    if bound is not None and (len(bound.args) > 1 or any(key is None for key, _ in bound.keywords)):
        return {}  # arguments bound by position or spread: which parameter gets which varies
    known: dict[str, Known] = {}
    for param in facts.params[1 : facts.positional_count] + facts.params[facts.positional_count :]:
        passed = bound.keyword(param) if bound is not None else None
        if passed is None:
            default = facts.default_of(param)
            found = None if default is None else Known(frozenset({default}))
        elif passed.kind is Kind.PARAM:
            found = passed_by_every_caller(project, loader.function, passed.name)
        else:
            found = literal_known(passed)
        if found is not None:
            known[param] = found
    return known


def bound_methods(project: Project, value: Value, where: FunctionRef) -> tuple[FunctionRef, ...]:
    """Return the project methods `obj.method` (written in `where`) may run, one for each
    class the object may be that has the method."""
    if value.base is None:
        return ()
    owners = object_classes(project, value.base, where)
    found = (project.find_method(owner, value.name) for owner in owners)
    return tuple(dict.fromkeys(method[1] for method in found if method is not None))


def held_callables(project: Project, value: Value, where: FunctionRef) -> tuple[FunctionRef, ...]:
    """Return the `__call__` methods of the project objects `value` (written in `where`) may
    be: `worker_init_fn=self.worker_init`, where `__init__` stores a `WorkerInitObj(seed)`."""
    found = (
        project.find_method(owner, "__call__") for owner in object_classes(project, value, where)
    )
    return tuple(dict.fromkeys(method[1] for method in found if method is not None))


def _made_by_factory(
    lookup: ArgumentLookup, project: Project, callee: Value, where: ModuleFacts
) -> WorkerInit:
    """Resolve `worker_init_fn=factory(...)` through what the project function returns, and
    `worker_init_fn=WorkerInitObj(seed)` to the `__call__` of the project class.

    A factory that returns None on every path passes no worker_init_fn; one that returns a
    single project function (or a `partial` of it) passes that function. Anything else, or a
    callee that is not one project function, stays unknown.
    """
    called = call_method(project, callee, where)
    if called is not None:
        return WorkerInit(lookup, called)
    factories = [t for t in project.targets(callee, where) if isinstance(t, FunctionRef)]
    if len(factories) != 1 or factories[0].function.is_method:
        return WorkerInit(lookup)
    factory = factories[0]
    returned = [option for ret in factory.function.returns for option in ret.alternatives()]
    # A function with no `return <value>` may raise or yield instead: not known to give None.
    if returned and all(option.is_none for option in returned):
        return WorkerInit(lookup, factory=factory, factory_returns_none=True)
    found: set[tuple[FunctionRef | None, bool]] = set()
    for option in returned:
        via_partial = (
            option.kind is Kind.CALL
            and option.base is not None
            and bool(option.args)
            and project.is_one_of(option.base, factory.module, PARTIAL)
        )
        named = option.args[0] if via_partial else option
        found.add((project.function_of(named, factory.module), via_partial))
    if len(found) != 1:
        return WorkerInit(lookup, factory=factory)
    ((function, via_partial),) = found
    return WorkerInit(lookup, function, via_partial=via_partial, factory=factory)


def call_method(project: Project, callee: Value, where: ModuleFacts) -> FunctionRef | None:
    """Return the `__call__` run by calling an instance that `callee(...)` makes, when
    `callee` is one project class (NVIDIA's `WorkerInitObj(seed)`, picklable where a closure
    is not)."""
    targets = project.targets(callee, where)
    classes = [target for target in targets if isinstance(target, ClassRef)]
    if len(classes) != 1 or len(targets) != 1:
        return None
    found = project.find_method(classes[0], "__call__")
    return None if found is None else found[1]
