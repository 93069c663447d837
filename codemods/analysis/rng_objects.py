"""RNG objects that exist before DataLoader workers start, and how per-item code uses them.

An RNG *object* (`np.random.default_rng(...)`, `np.random.RandomState(...)`,
`np.random.Generator(...)`, `random.Random(...)`, `torch.Generator(...)`) created in a
Dataset's `__init__`, as a class attribute or at module level is copied into every worker and
never reseeded by torch. This module finds such objects, where they are created, and every
place per-item code draws from, reseeds or re-creates them, following aliases: a local
variable, `self.other = self.rng`, an RNG handed to a transform the dataset holds
(`self.aug = Augment(self.rng)`), a factory function or method that returns a constructor.

What is recorded about an object and its uses lives in `rng_object_records`; the scan of one
function's draws, reseeds and re-creations in `rng_draws`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..types import Span
from . import catalog
from .attribute_classes import self_receivers
from .candidates import MAX_CALL_DEPTH, Construction
from .closed_bindings import returned_by, returned_for_call, stored_when_made
from .config_sections import object_classes, section_entries
from .creation_sites import arguments_for, created_at, forwarded, method_of_made_object
from .facts import Kind, ModuleFacts, Value
from .held_candidates import run_by_holders
from .held_datasets import held_classes
from .method_lookup import method_candidates
from .per_item import Reached, callees, per_item_code, reachable
from .project import Project
from .refs import CallSite, ClassRef, FunctionRef, VariableRef
from .rng_draws import ScannedFunction, _Scan, scan_context
from .rng_object_records import (
    Creation,
    PerItemRngs,
    Place,
    ReseedCall,
    RngObject,
    RngUse,
)
from .self_calls import property_alias

#: RNG constructors whose objects have state to duplicate.
CONSTRUCTORS = frozenset(set(catalog.RNG_CONSTRUCTORS) - catalog.STATELESS_RNGS)
_SEEDING_CHAIN = "manual_seed"  # torch.Generator().manual_seed(s) returns the generator


class RngIndex:
    """Answers RNG-object questions about one project (results are cached)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        # Every index of one kind over one project shares its answers: the rules that ask
        # about RNG objects (or pipelines) ask about the same datasets.
        shared = project.memo.setdefault(type(self), {})
        if not shared:
            shared.update(attribute={}, init={}, module={}, per_item={}, scans={})
        self._attribute_cache: dict[
            tuple[ClassRef, str, tuple[Construction, ...] | None], tuple[RngObject, ...]
        ] = shared["attribute"]
        self._init_cache: dict[ClassRef, tuple[Reached, ...]] = shared["init"]
        self._module_cache: dict[tuple[str, str], tuple[RngObject, ...]] = shared["module"]
        self._per_item_cache: dict[ClassRef, PerItemRngs] = shared["per_item"]
        self._scan_cache: dict[tuple[object, ...], ScannedFunction] = shared["scans"]

    # --- constructors ---

    def constructors(
        self, value: Value, where: FunctionRef, self_class: ClassRef | None, depth: int = 0
    ) -> tuple[Creation, ...]:
        """Return the RNG constructor calls `value` may be (through factories it calls)."""
        found: list[Creation] = []
        for option in value.alternatives():
            found.extend(self._constructor(option, where, self_class, depth))
            if option.kind is Kind.UNKNOWN and option.name and depth < MAX_CALL_DEPTH:
                found.extend(self._unpacked(option.name, where, depth))
        return tuple(dict.fromkeys(found))

    def _unpacked(self, name: str, where: FunctionRef, depth: int) -> Iterator[Creation]:
        """Yield what local `name`, unpacked from a factory's returned tuple (`train_tf,
        val_tf = get_transforms(size)`), is made by: that position of each tuple returned."""
        for unpacked, position, count, value in where.function.unpacked:
            if unpacked != name or value.kind is not Kind.CALL or value.base is None:
                continue
            # `train_tf, val_tf = get_transforms(augmentation=None)`: what it returns then.
            for returned, factory in returned_by(self.project, value, where):
                owner = self.project.class_of_function(factory)
                for option in returned.alternatives():
                    if option.kind is Kind.SEQUENCE and len(option.args) == count:
                        element = option.args[position]
                        for creation in self.constructors(element, factory, owner, depth + 1):
                            yield replace(creation, factory=creation.factory or factory.qualname)

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
            yield Creation(_display(qualname), rng_type, *created_at(value, where))
            return
        if base.kind is Kind.ATTRIBUTE and base.name == _SEEDING_CHAIN and base.base is not None:
            for inner in self.constructors(base.base, where, self_class, depth):
                if inner.rng_type == "torch.Generator":
                    constructor = f"{inner.constructor}().manual_seed"
                    yield Creation(constructor, inner.rng_type, *created_at(value, where))
            return
        if depth >= MAX_CALL_DEPTH:
            return
        if base.kind is Kind.FUNCTION:
            # A factory defined inside the function that calls it (`def new_rng(): ...`).
            factory = project.function_of(base, where.module)
            if factory is not None:
                yield from self._from_factory(factory, None, depth)
            return
        for target in project.targets(base, where.module):
            if isinstance(target, ClassRef):
                derived = _rng_base(project, target)
                if derived is not None:
                    yield Creation(target.name, derived, where, value.span)
            elif isinstance(target, FunctionRef):
                owner = project.class_of_function(target)
                yield from self._from_factory(target, owner, depth, called_at=(value, where))
        if (
            self_class is not None
            and base.kind is Kind.ATTRIBUTE
            and base.base is not None
            and base.base.kind is Kind.SELF
        ):
            found = project.find_method(self_class, base.name)
            if found is not None:
                yield from self._from_factory(found[1], self_class, depth)
        # `Builder().build(spec)`: a method of a project class made right there.
        for receiver, method in method_of_made_object(project, base, where.module):
            yield from self._from_factory(method, receiver, depth)

    def _from_factory(
        self,
        factory: FunctionRef,
        owner: ClassRef | None,
        depth: int,
        called_at: Construction | None = None,
    ) -> Iterator[Creation]:
        returns = factory.function.returns
        if called_at is not None:
            # Only what the branches open to the call's arguments return.
            returns = returned_for_call(*called_at, factory)
        for returned in returns:
            for creation in self.constructors(returned, factory, owner, depth + 1):
                yield replace(creation, factory=creation.factory or factory.qualname)

    # --- objects by where they are stored ---

    def init_code(self, ref: ClassRef) -> tuple[Reached, ...]:
        """Return `__init__` of `ref` and the project code it runs on the same instance."""
        cached = self._init_cache.get(ref)
        if cached is None:
            # A class whose bases are picked at run time runs one of its candidates' `__init__`.
            starts = [
                Reached(init, ref, (init.qualname,))
                for init in method_candidates(self.project, ref, "__init__")
            ]
            cached = tuple(
                reached
                for reached in reachable(self.project, starts)
                if reached.self_class == ref and reached.holder == ()
            )
            self._init_cache[ref] = cached
        return cached

    def attribute_objects(
        self,
        ref: ClassRef,
        name: str,
        depth: int = 0,
        made_by: tuple[Construction, ...] | None = None,
    ) -> tuple[RngObject, ...]:
        """Return the RNG objects `self.<name>` of a `ref` instance holds from construction on.

        `made_by`: the constructor calls known to make the instance (one picked from a
        candidate set is made where it is picked); what `__init__` stores from its
        parameters then comes from those calls only. None: from every call of `ref`.
        """
        key = (ref, name, made_by)
        cached = self._attribute_cache.get(key)
        if cached is not None:
            return cached
        self._attribute_cache[key] = ()  # guards against alias cycles
        found: list[RngObject] = []
        target = f"self.{name}"
        for reached in (*self.init_code(ref), *run_by_holders(self.project, ref)):
            for assignment in reached.function.function.assignments:
                if assignment.target != target:
                    continue
                # What the constructions' arguments leave `__init__` to store.
                where, span = reached.function, assignment.span
                for value, kept in stored_when_made(self.project, ref, made_by, where, assignment):
                    found.extend(self._stored(value, where, ref, name, span, depth, made_by=kept))
        if not found:
            found.extend(self.class_attribute_objects(ref, name))
        if not found:
            aliased = property_alias(self.project, ref, name)
            if aliased is not None:
                found.extend(self.attribute_objects(ref, aliased, depth, made_by))
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
        made_by: tuple[Construction, ...] | None = None,
    ) -> Iterator[RngObject]:
        """Yield the RNG objects that `self.<name> = value` (in `where`) stores."""
        for creation in self.constructors(value, where, ref):
            yield RngObject(Place.ATTRIBUTE, ref, name, where, span, creation, created_in or where)
        if depth > MAX_CALL_DEPTH:
            return
        for option in value.alternatives():
            if option.kind is Kind.ATTRIBUTE and option.base and option.base.kind is Kind.SELF:
                # `self.alias = self.rng`: the same object.
                yield from self.attribute_objects(ref, option.name, depth + 1, made_by)
            elif option.kind is Kind.NAME:
                yield from self.name_objects(option, where.module)
            elif option.kind is Kind.PARAM:
                yield from self._passed_in(option.name, where, ref, name, span, depth + 1, made_by)
        yield from self._section_objects(value, where, ref, name, where, span, depth)

    def _passed_in(
        self,
        param: str,
        where: FunctionRef,
        ref: ClassRef,
        name: str,
        span: Span,
        depth: int,
        made_by: tuple[Construction, ...] | None = None,
    ) -> Iterator[RngObject]:
        """Follow `self.<name> = <param of __init__>` to what the callers pass.

        A caller that only forwards its own parameter (`make_loader(rng)` building
        `Dataset(rng=rng)`) is followed to what its callers pass in turn.
        """
        if where.function.name != "__init__":
            return
        sites = None if made_by is None else [CallSite(at, call) for call, at in made_by]
        for site, passed in arguments_for(self.project, ref, where.function, param, sites):
            yield from self._passed(passed, site.function, ref, name, where, span, depth)
            for caller, value in forwarded(self.project, passed, site.function, depth):
                yield from self._passed(value, caller, ref, name, where, span, depth)

    def _passed(
        self,
        value: Value,
        caller: FunctionRef,
        ref: ClassRef,
        name: str,
        store: FunctionRef,
        span: Span,
        depth: int,
    ) -> Iterator[RngObject]:
        """Yield the RNG objects `caller` passes as `value` to be stored in `self.<name>`."""
        caller_class = self.project.class_of_function(caller)
        for creation in self.constructors(value, caller, caller_class):
            yield RngObject(Place.ATTRIBUTE, ref, name, store, span, creation, caller)
        for option in value.alternatives():
            if (
                option.kind is Kind.ATTRIBUTE
                and option.base is not None
                and option.base.kind is Kind.SELF
                and caller_class is not None
            ):
                # Read in a base-class method (`self.dataset(x, self.augment)`): a subclass
                # inheriting it may be what stores it.
                for receiver in self_receivers(self.project, caller) or (caller_class,):
                    yield from self.attribute_objects(receiver, option.name, depth)
            elif option.kind is Kind.NAME:
                yield from self.name_objects(option, caller.module)
        yield from self._section_objects(value, caller, ref, name, store, span, depth)

    def _section_objects(
        self,
        value: Value,
        where: FunctionRef,
        ref: ClassRef,
        name: str,
        store: FunctionRef,
        span: Span,
        depth: int,
    ) -> Iterator[RngObject]:
        """Yield the RNG objects an attribute of another object, or an entry of a
        configuration section, gives to be stored in `self.<name>`: `rng=self.opts.rng`,
        where the class of `self.opts` holds one, or `transform=self._cfg.image.aug`, where
        the configuration class binds `image = AttributeDict(aug=PIPELINE, ...)`."""
        if depth > MAX_CALL_DEPTH:
            return
        for option in value.alternatives():
            if option.kind is Kind.ATTRIBUTE and option.base and option.base.kind is not Kind.SELF:
                for owner in object_classes(self.project, option.base, where):
                    yield from self.attribute_objects(owner, option.name, depth + 1)
        for entry, at in section_entries(self.project, value, where):
            for creation in self.constructors(entry, at, None, depth + 1):
                yield RngObject(Place.ATTRIBUTE, ref, name, store, span, creation, at)
            yield from self.name_objects(entry, at.module)

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
        cached = self._per_item_cache.get(dataset)
        if cached is None:
            cached = self._per_item_cache[dataset] = self._scan_per_item(dataset)
        return cached

    def _scan_per_item(self, dataset: ClassRef) -> PerItemRngs:
        reached = per_item_code(self.project, dataset)
        uses: list[RngUse] = []
        reassigned: set[tuple[ClassRef, str]] = set()
        reseeds: list[ReseedCall] = []
        for current in reached:
            for function in self._with_lambdas(current.function):
                scanned = self._scanned(current, function)
                uses.extend(scanned.uses)
                reseeds.extend(scanned.reseed_calls)
                reassigned.update(scanned.reassigned)
        return PerItemRngs(dataset, reached, tuple(uses), frozenset(reassigned), tuple(reseeds))

    def _scanned(self, reached: Reached, function: FunctionRef) -> ScannedFunction:
        """Scan `function` as `reached` runs it, sharing the scan with every other dataset
        whose per-item code runs it in the same context (a registry's transforms reached by
        dozens of datasets are scanned once)."""
        key = (function, *scan_context(reached))
        scanned = self._scan_cache.get(key)
        if scanned is None:
            scanned = self._scan_cache[key] = self._scan(reached, function)
        return scanned.seen_from(reached)

    def _scan(self, reached: Reached, function: FunctionRef) -> ScannedFunction:
        scan = _Scan(self, reached, function)
        return ScannedFunction(
            reached, tuple(scan.uses()), tuple(scan.reseed_calls()), frozenset(scan.reassigned())
        )

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
