"""RNG objects that exist before DataLoader workers start, and how per-item code uses them.

An RNG *object* (`np.random.default_rng(...)`, `np.random.RandomState(...)`,
`np.random.Generator(...)`, `random.Random(...)`, `torch.Generator(...)`) created in a
Dataset's `__init__`, as a class attribute or at module level is copied into every worker and
never reseeded by torch. This module finds such objects, where they are created, and every
place per-item code draws from, reseeds or re-creates them, following aliases: a local
variable, `self.other = self.rng`, an RNG handed to a transform the dataset holds
(`self.aug = Augment(self.rng)`), a factory function or method that returns a constructor.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from ..types import Span
from . import catalog
from .datasets import (
    MAX_CALL_DEPTH,
    Reached,
    branch_not_taken,
    callees,
    held_classes,
    per_item_code,
    reachable,
)
from .facts import Kind, ModuleFacts, Value
from .project import ClassRef, ExternalRef, FunctionRef, Project, VariableRef

#: The helpers workerseed inserts; a call to one of them is a reseed, not a draw.
RESEED_IN_WORKER = "_reseed_rngs_in_worker"
RESEED_OBJECT = "_reseed_rng_object"
RESEED_WALKER = "_reseed_worker_rngs"
CHAIN_WORKER_INIT = "_chain_worker_init"
_OWN_HELPERS = frozenset({RESEED_IN_WORKER, RESEED_OBJECT, RESEED_WALKER, CHAIN_WORKER_INIT})

#: RNG constructors whose objects have state to duplicate.
CONSTRUCTORS = frozenset(set(catalog.RNG_CONSTRUCTORS) - catalog.STATELESS_RNGS)
_SEEDING_CHAIN = "manual_seed"  # torch.Generator().manual_seed(s) returns the generator


class Place(enum.Enum):
    """Where an RNG object lives."""

    #: `self.<name>` of an instance, created in `__init__` (or code it calls).
    ATTRIBUTE = "attribute"
    #: An assignment in a class body.
    CLASS_ATTRIBUTE = "class attribute"
    #: A module-level variable.
    MODULE = "module level"


@dataclass(frozen=True)
class Creation:
    """The constructor call that makes an RNG object."""

    #: How the constructor is spelled for users, e.g. "np.random.default_rng".
    constructor: str
    #: The type of object it returns, e.g. "numpy.random.Generator".
    rng_type: str
    function: FunctionRef
    span: Span
    #: The project factory that returns the constructor, if any (its qualname).
    factory: str | None = None


@dataclass(frozen=True)
class RngObject:
    """An RNG object that exists before the workers start."""

    place: Place
    #: The class whose instances hold it (ATTRIBUTE) or whose body defines it; None at module level.
    owner: ClassRef | None
    #: The attribute or variable name it is stored under.
    name: str
    #: The store (`self.rng = ...`, `RNG = ...`): the function it is in and its span.
    store: FunctionRef
    store_span: Span
    creation: Creation
    #: Where the creating code runs: the store, or the caller that passed the object in.
    created_in: FunctionRef

    @property
    def key(self) -> tuple[str, Span, str, Span]:
        """Identify the object: one store of one creation."""
        return (
            self.store.path.as_posix(),
            self.store_span,
            self.creation.function.path.as_posix(),
            self.creation.span,
        )

    @property
    def label(self) -> str:
        """Return how code names it: `self.rng`, `Noisy.rng` or `RNG`."""
        if self.place is Place.ATTRIBUTE:
            return f"self.{self.name}"
        if self.place is Place.CLASS_ATTRIBUTE and self.owner is not None:
            return f"{self.owner.name}.{self.name}"
        return self.name

    @property
    def report_at(self) -> tuple[FunctionRef, Span]:
        """Return where a finding about it belongs: the store, or the creation passed in."""
        if self.created_in == self.store:
            return self.store, self.store_span
        return self.creation.function, self.creation.span


class UseKind(enum.Enum):
    DRAW = "draw"
    #: `rng.seed(...)`, `rng.manual_seed(...)`, `rng.set_state(...)` in per-item code.
    RESEED = "reseed"


@dataclass(frozen=True)
class RngUse:
    """Per-item code drawing from (or reseeding) an RNG object."""

    reached: Reached
    call: Value
    obj: RngObject
    kind: UseKind
    #: The attribute path from the dataset instance it was reached through, if known.
    instance_path: tuple[str, ...] | None
    #: The dotted name it was reached through in the module of `reached`, if any.
    namespace_path: str | None
    #: The method called on it (`normal`), or None when it is passed to a function.
    method: str | None
    #: When passed as an argument: the qualified names of the callee.
    passed_to: frozenset[str] = frozenset()

    @property
    def is_order_draw(self) -> bool:
        """Return True for a shuffle/permutation-like draw (what sharding is decided by)."""
        if self.method is not None:
            return self.method in catalog.ORDER_DRAWS
        return any(name.rpartition(".")[2] in catalog.ORDER_DRAWS for name in self.passed_to)


@dataclass(frozen=True)
class ReseedCall:
    """A call to workerseed's `_reseed_rngs_in_worker(owner, *names)` in per-item code."""

    reached: Reached
    #: The owner as an attribute path from the dataset instance; None for a module owner.
    instance_owner: tuple[str, ...] | None
    #: The owner is the calling function's module (`sys.modules[__name__]`).
    module_owner: bool
    #: The names passed; empty means every attribute of the owner.
    names: tuple[str, ...]


@dataclass(frozen=True)
class PerItemRngs:
    """What the per-item code of one dataset does with RNG objects."""

    dataset: ClassRef
    reached: tuple[Reached, ...]
    uses: tuple[RngUse, ...]
    #: (class, attribute) pairs that per-item code assigns (`self.rng = ...`).
    reassigned: frozenset[tuple[ClassRef, str]]
    reseed_calls: tuple[ReseedCall, ...]

    @cached_property
    def functions(self) -> frozenset[FunctionRef]:
        """Return every function per-item code runs."""
        return frozenset(reached.function for reached in self.reached)


class RngIndex:
    """Answers RNG-object questions about one project (results are cached)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._attribute_cache: dict[tuple[ClassRef, str], tuple[RngObject, ...]] = {}
        self._init_cache: dict[ClassRef, tuple[Reached, ...]] = {}
        self._module_cache: dict[tuple[str, str], tuple[RngObject, ...]] = {}

    # --- constructors ---

    def constructors(
        self, value: Value, where: FunctionRef, self_class: ClassRef | None, depth: int = 0
    ) -> tuple[Creation, ...]:
        """Return the RNG constructor calls `value` may be (through factories it calls)."""
        found: list[Creation] = []
        for option in value.alternatives():
            found.extend(self._constructor(option, where, self_class, depth))
        return tuple(dict.fromkeys(found))

    def _constructor(
        self, value: Value, where: FunctionRef, self_class: ClassRef | None, depth: int
    ) -> Iterator[Creation]:
        if value.kind is not Kind.CALL or value.base is None or value.span is None:
            return
        project, base = self.project, value.base
        names = project.qualnames(base, where.module)
        if names and names <= CONSTRUCTORS:
            qualname = min(names)
            rng_type = catalog.RNG_CONSTRUCTORS[qualname]
            yield Creation(_display(qualname), rng_type, where, value.span)
            return
        if base.kind is Kind.ATTRIBUTE and base.name == _SEEDING_CHAIN and base.base is not None:
            for inner in self.constructors(base.base, where, self_class, depth):
                if inner.rng_type == "torch.Generator":
                    yield Creation(
                        f"{inner.constructor}().manual_seed", inner.rng_type, where, value.span
                    )
            return
        if depth >= MAX_CALL_DEPTH:
            return
        for target in project.targets(base, where.module):
            if isinstance(target, ClassRef):
                derived = _rng_base(project, target)
                if derived is not None:
                    yield Creation(target.name, derived, where, value.span)
            elif isinstance(target, FunctionRef):
                yield from self._from_factory(target, project.class_of_function(target), depth)
        if (
            self_class is not None
            and base.kind is Kind.ATTRIBUTE
            and base.base is not None
            and base.base.kind is Kind.SELF
        ):
            found = project.find_method(self_class, base.name)
            if found is not None:
                yield from self._from_factory(found[1], self_class, depth)

    def _from_factory(
        self, factory: FunctionRef, self_class: ClassRef | None, depth: int
    ) -> Iterator[Creation]:
        for returned in factory.function.returns:
            for creation in self.constructors(returned, factory, self_class, depth + 1):
                yield Creation(
                    creation.constructor,
                    creation.rng_type,
                    creation.function,
                    creation.span,
                    creation.factory or factory.qualname,
                )

    # --- objects by where they are stored ---

    def init_code(self, ref: ClassRef) -> tuple[Reached, ...]:
        """Return `__init__` of `ref` and the project code it runs on the same instance."""
        cached = self._init_cache.get(ref)
        if cached is None:
            found = self.project.find_method(ref, "__init__")
            cached = ()
            if found is not None:
                start = Reached(found[1], ref, (found[1].qualname,))
                cached = tuple(
                    reached
                    for reached in reachable(self.project, [start])
                    if reached.self_class == ref and reached.holder == ()
                )
            self._init_cache[ref] = cached
        return cached

    def attribute_objects(self, ref: ClassRef, name: str, depth: int = 0) -> tuple[RngObject, ...]:
        """Return the RNG objects `self.<name>` of a `ref` instance holds from construction on."""
        key = (ref, name)
        cached = self._attribute_cache.get(key)
        if cached is not None:
            return cached
        self._attribute_cache[key] = ()  # guards against alias cycles
        found: list[RngObject] = []
        target = f"self.{name}"
        for reached in self.init_code(ref):
            for assignment in reached.function.function.assignments:
                if assignment.target == target:
                    found.extend(
                        self._stored(
                            assignment.value, reached.function, ref, name, assignment.span, depth
                        )
                    )
        if not found:
            found.extend(self.class_attribute_objects(ref, name))
        result = tuple(dict.fromkeys(found))
        self._attribute_cache[key] = result
        return result

    def _stored(
        self,
        value: Value,
        where: FunctionRef,
        ref: ClassRef,
        name: str,
        span: Span,
        depth: int,
        created_in: FunctionRef | None = None,
    ) -> Iterator[RngObject]:
        """Yield the RNG objects that `self.<name> = value` (in `where`) stores."""
        for creation in self.constructors(value, where, ref):
            yield RngObject(Place.ATTRIBUTE, ref, name, where, span, creation, created_in or where)
        if depth > MAX_CALL_DEPTH:
            return
        for option in value.alternatives():
            if option.kind is Kind.ATTRIBUTE and option.base and option.base.kind is Kind.SELF:
                # `self.alias = self.rng`: the same object.
                yield from self.attribute_objects(ref, option.name, depth + 1)
            elif option.kind is Kind.NAME:
                yield from self.name_objects(option, where.module)
            elif option.kind is Kind.PARAM:
                yield from self._passed_in(option.name, where, ref, name, span, depth + 1)

    def _passed_in(
        self, param: str, where: FunctionRef, ref: ClassRef, name: str, span: Span, depth: int
    ) -> Iterator[RngObject]:
        """Follow `self.<name> = <param of __init__>` to what the callers pass."""
        function = where.function
        if function.name != "__init__" or param not in function.params:
            return
        index = function.params.index(param) - 1
        for site in self.project.callers(ref):
            passed = site.call.keyword(param)
            if passed is None and 0 <= index < len(site.call.args):
                passed = site.call.args[index]
            if passed is None or passed.kind is Kind.STARRED:
                continue
            caller_class = self.project.class_of_function(site.function)
            for creation in self.constructors(passed, site.function, caller_class):
                yield RngObject(Place.ATTRIBUTE, ref, name, where, span, creation, site.function)
            for option in passed.alternatives():
                if (
                    option.kind is Kind.ATTRIBUTE
                    and option.base is not None
                    and option.base.kind is Kind.SELF
                    and caller_class is not None
                ):
                    yield from self.attribute_objects(caller_class, option.name, depth)
                elif option.kind is Kind.NAME:
                    yield from self.name_objects(option, site.function.module)

    def class_attribute_objects(self, ref: ClassRef, name: str) -> tuple[RngObject, ...]:
        """Return the RNG objects a class body (of `ref` or a project base) binds to `name`."""
        for owner in self.project.mro(ref):
            for assignment in owner.cls.attributes:
                if assignment.target != name:
                    continue
                module_code = _module_code(owner.module)
                if module_code is None:
                    return ()
                return tuple(
                    RngObject(
                        Place.CLASS_ATTRIBUTE,
                        owner,
                        name,
                        module_code,
                        assignment.span,
                        creation,
                        module_code,
                    )
                    for creation in self.constructors(assignment.value, module_code, None)
                )
        return ()

    def variable_objects(self, variable: VariableRef) -> tuple[RngObject, ...]:
        """Return the RNG objects a module-level variable holds."""
        key = (variable.module.path.as_posix(), variable.name)
        cached = self._module_cache.get(key)
        if cached is not None:
            return cached
        self._module_cache[key] = ()
        module_code = _module_code(variable.module)
        found: list[RngObject] = []
        if module_code is not None:
            spans = [
                assignment.span
                for assignment in module_code.function.assignments
                if assignment.target == variable.name
            ]
            span = spans[0] if spans else module_code.function.span
            for value in variable.values:
                for creation in self.constructors(value, module_code, None):
                    found.append(
                        RngObject(
                            Place.MODULE,
                            None,
                            variable.name,
                            module_code,
                            span,
                            creation,
                            module_code,
                        )
                    )
                if value.kind is Kind.NAME and value.qualnames != (
                    f"{variable.module.module}.{variable.name}",
                ):
                    found.extend(self.name_objects(value, variable.module))
        result = tuple(dict.fromkeys(found))
        self._module_cache[key] = result
        return result

    def name_objects(self, value: Value, near: ModuleFacts) -> tuple[RngObject, ...]:
        """Return the RNG objects a NAME denotes: a module variable or `Class.attribute`."""
        found: list[RngObject] = []
        for option in value.alternatives():
            if option.kind is not Kind.NAME:
                continue
            for qualname in option.qualnames:
                found.extend(self._qualname_objects(qualname, near))
        return tuple(dict.fromkeys(found))

    def _qualname_objects(self, qualname: str, near: ModuleFacts) -> Iterator[RngObject]:
        for target in self.project.resolve(qualname, near):
            if isinstance(target, VariableRef):
                yield from self.variable_objects(target)
        prefix, _, attribute = qualname.rpartition(".")
        if prefix:
            for target in self.project.resolve(prefix, near):
                if isinstance(target, ClassRef):
                    yield from self.class_attribute_objects(target, attribute)

    # --- per-item code ---

    def per_item(self, dataset: ClassRef) -> PerItemRngs:
        """Return how the per-item code of `dataset` uses RNG objects."""
        reached = per_item_code(self.project, dataset)
        uses: list[RngUse] = []
        reassigned: set[tuple[ClassRef, str]] = set()
        reseeds: list[ReseedCall] = []
        for current in reached:
            for function in self._with_lambdas(current.function):
                scan = _Scan(self, current, function)
                uses.extend(scan.uses())
                reseeds.extend(scan.reseed_calls())
                reassigned.update(scan.reassigned())
        return PerItemRngs(dataset, reached, tuple(uses), frozenset(reassigned), tuple(reseeds))

    def _with_lambdas(self, function: FunctionRef) -> Iterator[FunctionRef]:
        yield function
        prefix = f"{function.qualname}.<lambda"
        for other in function.module.functions_within(function.qualname):
            if other.qualname.startswith(prefix):
                yield FunctionRef.of(function.module, other)

    def shards(self, reached: Reached, per_item: PerItemRngs) -> bool:
        """Return True if iterable per-item code asks `get_worker_info()` for its shard here.

        Only `__iter__`/`__next__` can shard: a map-style dataset's items are chosen by the
        sampler in the main process.
        """
        return shards_here(self.project, reached, per_item.functions)

    # --- paths ---

    def objects_at_path(self, dataset: ClassRef, path: tuple[str, ...]) -> tuple[RngObject, ...]:
        """Return the RNG objects reached as `dataset_instance.<path>`."""
        if not path:
            return ()
        classes = [dataset]
        for attribute in path[:-1]:
            classes = [
                held for ref in classes for held in held_classes(self.project, ref, attribute)
            ]
        found = [obj for ref in classes for obj in self.attribute_objects(ref, path[-1])]
        return tuple(dict.fromkeys(found))

    def objects_at_name(self, module: ModuleFacts, path: str) -> tuple[RngObject, ...]:
        """Return the RNG objects the dotted name `path` denotes in `module`'s namespace."""
        first, _, rest = path.partition(".")
        values = module.binding(first)
        qualnames: list[str] = []
        if values:
            for value in values:
                if value.kind is Kind.NAME:
                    qualnames.extend(value.qualnames)
                else:
                    qualnames.append(f"{module.module}.{first}")
        elif first in module.module_names:
            qualnames.append(f"{module.module}.{first}")
        found: list[RngObject] = []
        for qualname in dict.fromkeys(qualnames):
            full = f"{qualname}.{rest}" if rest else qualname
            found.extend(self._qualname_objects(full, module))
        return tuple(dict.fromkeys(found))


def shards_here(project: Project, reached: Reached, functions: frozenset[FunctionRef]) -> bool:
    """Return True if iterable per-item code asks `get_worker_info()` for its shard here.

    `functions` is every function the per-item code runs; only `__iter__`/`__next__` can
    shard, since a map-style dataset's items are chosen by the sampler in the main process.
    """
    if reached.chain[0].rpartition(".")[2] not in ("__iter__", "__next__"):
        return False
    nearby = [reached.function, *(callee.function for callee in callees(project, reached))]
    return any(
        project.is_one_of(call.base, function.module, catalog.GET_WORKER_INFO)
        for function in nearby
        if function in functions
        for call in function.function.calls
        if call.base is not None
    )


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
                    name = local_path(self.function.module, qualname)
                    for obj in self.index._qualname_objects(qualname, self.function.module):
                        yield obj, None, name
                continue
            if option.kind is not Kind.ATTRIBUTE or option.base is None or self_class is None:
                continue
            subject = option.base
            if subject.kind is Kind.SELF or _is_type_of_self(subject):
                path = None if holder is None else (*holder, option.name)
                for obj in self.index.attribute_objects(self_class, option.name):
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
            names = tuple(name for arg in call.args[1:] if (name := _string(arg)) is not None)
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
            if not _mentions(value, param):
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
    return _mentions(value, param)


def _is_param(value: Value | None, param: str) -> bool:
    return value is not None and value.kind is Kind.PARAM and value.name == param


def _mentions(value: Value, param: str) -> bool:
    # Each shared sub-value is looked at once: summaries share them, and following every
    # path through them is exponential.
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if _is_param(item, param):
            return True
        stack.extend(item.args)
        stack.extend(v for _, v in item.keywords)
        if item.base is not None:
            stack.append(item.base)
    return False


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


#: External bases whose instances have no `__dict__` of their own.
_SLOTTED_BASES = frozenset({"builtins.object", "typing.Generic", "typing.Protocol"})


def instances_have_dict(project: Project, ref: ClassRef) -> bool:
    """Return True unless every class in `ref`'s hierarchy declares `__slots__`."""
    if any(not owner.cls.has_slots for owner in project.mro(ref)):
        return True
    return any(
        not (isinstance(target, ExternalRef) and target.qualname in _SLOTTED_BASES)
        and not isinstance(target, ClassRef)
        for target in project.ancestors(ref)
    )


def reseed_helpers_handle(project: Project, module: ModuleFacts, rng_type: str) -> bool:
    """Return True unless `module` has reseed helpers that are not ours or skip `rng_type`."""
    own = module.function(RESEED_IN_WORKER)
    if own is not None and not is_reseed_helper(project, FunctionRef.of(module, own)):
        return False
    if own is None:
        return True
    # The RNG kinds are tested in `_reseed_rngs_in_worker` itself, or (in code fixed by an
    # earlier release) in the `_reseed_rng_object` it calls.
    helpers = [own, module.function(RESEED_OBJECT)]
    handled: set[str] = set()
    for call in (call for helper in helpers if helper is not None for call in helper.calls):
        if (
            call.base is not None
            and len(call.args) == 2
            and project.is_one_of(call.base, module, frozenset({"builtins.isinstance"}))
        ):
            handled |= project.qualnames(call.args[1], module)
    return rng_type in handled


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


def _string(value: Value) -> str | None:
    if value.kind is not Kind.CONSTANT:
        return None
    try:
        literal = ast.literal_eval(value.name)
    except (ValueError, SyntaxError):
        return None
    return literal if isinstance(literal, str) else None


def _module_code(module: ModuleFacts) -> FunctionRef | None:
    code = module.function("<module>")
    return FunctionRef.of(module, code) if code is not None else None


def _rng_base(project: Project, ref: ClassRef) -> str | None:
    """Return the RNG type a project class derives from (`class MyRandom(random.Random)`)."""
    for qualname in CONSTRUCTORS:
        if project.derives_from(ref, frozenset({qualname})):
            return catalog.RNG_CONSTRUCTORS[qualname]
    return None


_DISPLAY = {
    "numpy.random.mtrand.RandomState": "np.random.RandomState",
    "numpy.random._generator.Generator": "np.random.Generator",
    "torch._C.Generator": "torch.Generator",
}


def _display(qualname: str) -> str:
    """Return a constructor's name as users write it (`np.random.default_rng`)."""
    name = _DISPLAY.get(qualname, qualname)
    return "np." + name[len("numpy.") :] if name.startswith("numpy.") else name


def rng_library(rng_type: str) -> str:
    """Return the library an RNG type belongs to: "numpy", "random" or "torch"."""
    return rng_type.partition(".")[0]
