"""Where code that drew from NumPy's legacy global RNG gets its per-worker Generator from.

WS202 rewrites `np.random.rand(3)` as `rng.random(3)`; `rng` must name a NumPy Generator
that is distinct in every DataLoader worker. The function whose scope provides that name is
the call's *host*: the def the call is in, or for a lambda or nested def, the def it is
defined in.

- A method names its own object's generator: the seeded `self.<gen>` its class already
  creates in `__init__` (the dataset class only; WS201's `_reseed_rngs_in_worker` call at the
  top of the per-item methods reseeds it in place per worker), else a local
  `rng = _numpy_rng(self)`: created on first use from torch's RNG, reseeded per worker.
- A module-level function gets the generator as a new parameter when that is a local
  change: it is defined in the module of all its callers, only called (never passed or
  stored), and every caller is itself a host that can pass one.
- Anything else (static methods, module-level code, helpers of other modules) gets no fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analysis import catalog
from ..analysis.facts import FunctionFacts, Kind, ModuleFacts, Value
from ..analysis.per_item import Reached, entry_methods
from ..analysis.project import Project
from ..analysis.refs import ClassRef, FunctionRef
from ..analysis.rng_draws import is_reseed_helper
from ..analysis.rng_hosts import instances_have_dict, reseed_helpers_handle
from ..analysis.rng_object_records import RESEED_IN_WORKER, RESEED_OBJECT, PerItemRngs
from ..analysis.rng_objects import RngIndex
from ..analysis.seeds import is_static
from ..analysis.self_calls import calls_method
from ..types import AddHelper, AddKeyword, AddParameter, Edit, InsertStatements
from .generator_names import _free_name, _with_nested
from .helpers import (
    numpy_rng_function,
    reseed_rngs_in_worker_function,
    rng_helper_names,
)
from .imports import module_reference

#: The helper WS202 inserts; it is also the attribute that holds the object's Generator.
NUMPY_RNG = "_numpy_rng"
GENERATOR = "numpy.random.Generator"
_CLASSMETHOD = "builtins.classmethod"


@dataclass(frozen=True)
class Access:
    """How code in a host names the Generator, and the edits that make that name valid."""

    expression: str
    edits: tuple[tuple[Path, Edit], ...] = ()


@dataclass(frozen=True)
class NoAccess:
    """Why a host cannot be given a Generator."""

    reason: str


def host_of(function: FunctionRef) -> FunctionRef | None:
    """Return the method or module-level function whose scope `function`'s code runs in."""
    module = function.module
    current: FunctionFacts | None = function.function
    while current is not None and current.nested and not current.is_method:
        parent, separator, _ = current.qualname.rpartition(".<")
        current = module.function(parent) if separator else None
    if current is None or current.qualname == "<module>" or current.is_lambda:
        return None
    return FunctionRef.of(module, current)


class GeneratorHosts:
    """Decides, once per host, how it gets its Generator (results are cached)."""

    def __init__(
        self,
        project: Project,
        index: RngIndex,
        contexts: dict[FunctionRef, list[tuple[ClassRef, Reached]]],
    ) -> None:
        self.project = project
        self.index = index
        #: Every host of per-item code, with the datasets (and paths) that reach it.
        self.contexts = contexts
        self._access: dict[FunctionRef, Access | NoAccess] = {}
        #: Helpers being given a parameter (its name), while their callers are planned.
        self._planning: dict[FunctionRef, str] = {}
        self._per_item: dict[ClassRef, PerItemRngs] = {}

    def access(self, host: FunctionRef) -> Access | NoAccess:
        """Return how code in `host` reaches its Generator, or why it cannot."""
        planned = self._planning.get(host)
        if planned is not None:
            return Access(planned)
        cached = self._access.get(host)
        if cached is None:
            if host.function.is_method:
                cached = self._method_access(host)
            else:
                cached = self._helper_access(host)
            self._access[host] = cached
        return cached

    # --- methods ---

    def _method_access(self, host: FunctionRef) -> Access | NoAccess:
        facts = host.function
        name = f"`{facts.qualname}`"
        if is_static(host) or any(_CLASSMETHOD in value.qualnames for value in facts.decorators):
            return NoAccess(f"{name} is a static or class method: no instance to hold a Generator")
        cls = self.project.class_of_function(host)
        if not facts.params or cls is None:
            return NoAccess(f"{name} has no `self` parameter")
        if not instances_have_dict(self.project, cls):
            return NoAccess(
                f"`{cls.name}` declares `__slots__` and its instances have no `__dict__` "
                "to keep a Generator in"
            )
        outside = self._caller_outside_per_item_code(host, cls)
        if outside is not None:
            return NoAccess(
                f"{name} is also called from `{outside}`, which is not per-item code "
                "(its draws would change too)"
            )
        existing = self._existing_local(host)
        if existing is not None:
            return Access(existing)
        reused = self._reused(host, cls)
        if reused is not None:
            return reused
        return self._lazy(host, cls)

    def _caller_outside_per_item_code(self, host: FunctionRef, cls: ClassRef) -> str | None:
        """Return a method of the class that calls `self.<host>()` but is not per-item code."""
        name = host.function.name
        for owner in self.project.mro(cls):
            for _, qualname in owner.cls.methods:
                method = owner.module.function(qualname)
                if method is None:
                    continue
                caller = FunctionRef.of(owner.module, method)
                if caller in self.contexts or caller == host:
                    continue
                for function in _with_nested(caller):
                    if any(_calls_self_method(call, name) for call in function.calls):
                        return method.qualname
        return None

    def _existing_local(self, host: FunctionRef) -> str | None:
        """Return the local variable `host` already assigns `_numpy_rng(self)` to, if any."""
        for assignment in host.function.assignments:
            if "." not in assignment.target and self._is_numpy_rng_call(
                assignment.value, host.module
            ):
                return assignment.target
        return None

    def _is_numpy_rng_call(self, value: Value, module: ModuleFacts) -> bool:
        if value.kind is not Kind.CALL or value.base is None or not value.args:
            return False
        if value.args[0].kind is not Kind.SELF:
            return False
        return any(
            isinstance(target, FunctionRef) and self._is_numpy_rng_helper(target)
            for target in self.project.targets(value.base, module)
        )

    def _is_numpy_rng_helper(self, function: FunctionRef) -> bool:
        """Return True for workerseed's `_numpy_rng`, not a namesake of the user's."""
        facts = function.function
        if facts.name != NUMPY_RNG or facts.class_qualname is not None or facts.nested:
            return False
        module = function.module
        calls_reseed = any(
            isinstance(target, FunctionRef) and is_reseed_helper(self.project, target)
            for call in facts.calls
            if call.base is not None
            for target in self.project.targets(call.base, module)
        )
        creates = any(
            call.base is not None
            and "numpy.random.default_rng" in self.project.qualnames(call.base, module)
            for call in facts.calls
        )
        return calls_reseed and creates

    def _lazy(self, host: FunctionRef, cls: ClassRef) -> Access | NoAccess:
        """Plan `rng = _numpy_rng(self)` at the top of `host`."""
        module = host.module
        problem = self._helpers_problem(module, numpy_rng=True)
        if problem is not None:
            return NoAccess(problem)
        for owner in self.project.mro(cls):
            for _, qualname in owner.cls.methods:
                method = owner.module.function(qualname)
                if method is not None and _uses_attribute(method, NUMPY_RNG):
                    return NoAccess(
                        f"`{owner.name}` has an attribute `{NUMPY_RNG}` of its own, where the "
                        "Generator would be kept"
                    )
        local = _free_name(host)
        if local is None:
            return NoAccess(f"`{host.function.qualname}` uses every name the Generator could have")
        owner_param = host.function.params[0]
        code = f"{local} = {NUMPY_RNG}({owner_param})\n"
        edits: list[Edit] = [InsertStatements(host.function.span, code, at_top=True)]
        edits.extend(self._helper_edits(module, numpy_rng=True))
        return Access(local, tuple((host.path, edit) for edit in edits))

    # --- a generator the dataset class already has ---

    def _reused(self, host: FunctionRef, cls: ClassRef) -> Access | None:
        """Plan `self.<gen>` when the dataset class creates exactly one seeded Generator."""
        contexts = self.contexts.get(host, [])
        if not contexts or any(reached.holder != () for _, reached in contexts):
            return None  # also run on objects the dataset holds, or created per item
        name = self._own_generator(cls)
        if name is None:
            return None
        edits: list[tuple[Path, Edit]] = []
        for dataset, _ in contexts:
            planned = self._reseed_in_entries(dataset, name)
            if planned is None:
                return None
            edits.extend(planned)
        return Access(f"{host.function.params[0]}.{name}", tuple(dict.fromkeys(edits)))

    def _own_generator(self, cls: ClassRef) -> str | None:
        """Return the one attribute `__init__` sets to a seeded NumPy Generator, if exactly one."""
        values: dict[str, list[tuple[Value, FunctionRef]]] = {}
        for reached in self.index.init_code(cls):
            for assignment in reached.function.function.assignments:
                if assignment.target.startswith("self."):
                    attribute = assignment.target[len("self.") :]
                    values.setdefault(attribute, []).append((assignment.value, reached.function))
        found = [
            attribute
            for attribute, assigned in values.items()
            if all(self._seeded_generator(value, where, cls) for value, where in assigned)
        ]
        return found[0] if len(found) == 1 else None

    def _seeded_generator(self, value: Value, where: FunctionRef, cls: ClassRef) -> bool:
        """Return True if every possible `value` is a seeded NumPy Generator constructor call."""
        for option in value.alternatives():
            creations = self.index.constructors(option, where, cls)
            if not creations or any(creation.rng_type != GENERATOR for creation in creations):
                return False
            if creations[0].factory is not None or not self._seeded(option, where.module):
                return False
        return True

    def _seeded(self, call: Value, module: ModuleFacts) -> bool:
        """Return True if a constructor call passes a seed (through `Generator(PCG64(s))`)."""
        seed = call.args[0] if call.args else call.keyword("seed")
        if seed is None or seed.is_none or seed.kind is Kind.STARRED:
            return False
        if seed.kind is Kind.CALL and seed.base is not None:
            names = self.project.qualnames(seed.base, module)
            if names and names <= catalog.SEEDED_CONSTRUCTORS:
                return self._seeded(seed, module)
        return True

    def _reseed_in_entries(self, dataset: ClassRef, name: str) -> list[tuple[Path, Edit]] | None:
        """Plan `_reseed_rngs_in_worker(self, "<name>")` in the dataset's per-item methods.

        None if the generator must not be reseeded per worker (per-item code re-creates it,
        or an IterableDataset shards by it) or the helpers cannot be inserted.
        """
        per_item = self._per_item.get(dataset)
        if per_item is None:
            per_item = self._per_item[dataset] = self.index.per_item(dataset)
        objects = set(self.index.attribute_objects(dataset, name))
        if not objects or any((obj.owner, name) in per_item.reassigned for obj in objects):
            return None
        if any(
            use.obj in objects and use.is_order_draw and self.index.shards(use.reached, per_item)
            for use in per_item.uses
        ):
            return None
        if any(
            call.instance_owner == () and (not call.names or name in call.names)
            for call in per_item.reseed_calls
        ):
            return []
        edits: list[tuple[Path, Edit]] = []
        for entry in entry_methods(self.project, dataset):
            if not entry.function.params or self._helpers_problem(entry.module, numpy_rng=False):
                return None
            code = f'{RESEED_IN_WORKER}({entry.function.params[0]}, "{name}")\n'
            edits.append((entry.path, InsertStatements(entry.function.span, code, at_top=True)))
            edits.extend(
                (entry.path, edit) for edit in self._helper_edits(entry.module, numpy_rng=False)
            )
        return edits or None

    # --- module-level functions ---

    def _helper_access(self, host: FunctionRef) -> Access | NoAccess:
        """Plan a new parameter for a module-level function, passed by every caller."""
        facts = host.function
        label = f"`{facts.name}`"
        existing = self._existing_parameter(host)
        if existing is not None:
            return Access(existing)
        if facts.decorators:
            return NoAccess(f"{label} is decorated, so a new parameter may not reach it")
        if self._referenced(host):
            return NoAccess(
                f"{label} is also used as a value (passed or stored), so not every caller "
                "can be given the Generator"
            )
        sites = self.project.callers(host)
        if not sites:
            return NoAccess(f"no call of {label} is seen")
        for site in sites:
            caller = host_of(site.function)
            where = self._relative_line(site.function, site.call)
            if site.function.path != host.path:
                return NoAccess(f"{label} is also called from another module ({where})")
            if caller is None or caller not in self.contexts:
                return NoAccess(f"{label} is also called outside per-item code ({where})")
            if facts.has_var_keyword and any(key is None for key, _ in site.call.keywords):
                return NoAccess(f"{label} takes `**kwargs` and a caller passes `**` ({where})")
        parameter = _free_name(host)
        if parameter is None:
            return NoAccess(f"{label} uses every name the Generator could have")
        self._planning[host] = parameter
        decided = set(self._access)
        try:
            edits: list[tuple[Path, Edit]] = [(host.path, AddParameter(facts.span, parameter))]
            for site in sites:
                caller = host_of(site.function)
                assert caller is not None
                assert site.call.span is not None
                access = self.access(caller)
                if isinstance(access, NoAccess):
                    # Callers planned meanwhile may count on this parameter: plan them again.
                    for other in set(self._access) - decided:
                        del self._access[other]
                    return NoAccess(
                        f"its caller `{caller.function.qualname}` cannot pass one: {access.reason}"
                    )
                keyword = AddKeyword(site.call.span, parameter, access.expression)
                edits.append((site.function.path, keyword))
                edits.extend(access.edits)
        finally:
            del self._planning[host]
        return Access(parameter, tuple(dict.fromkeys(edits)))

    def _existing_parameter(self, host: FunctionRef) -> str | None:
        """Return the parameter every caller already passes a per-worker Generator to."""
        sites = self.project.callers(host)
        facts = host.function
        if not sites:
            return None
        for index, parameter in enumerate(facts.params):
            passed = [_passed(site.call, parameter, index, facts) for site in sites]
            # Assume the answer while checking, so that a recursive call can confirm it.
            self._planning[host] = parameter
            try:
                if all(
                    value is not None and self._is_generator(value, site.function)
                    for value, site in zip(passed, sites, strict=True)
                ):
                    return parameter
            finally:
                del self._planning[host]
        return None

    def _is_generator(self, value: Value, where: FunctionRef) -> bool:
        """Return True if `value` (in `where`) is a per-worker Generator a host provides."""
        if self._is_numpy_rng_call(value, where.module):
            return True
        caller = host_of(where)
        if caller is None:
            return False
        if value.kind is Kind.PARAM:
            if caller in self._planning:
                return self._planning[caller] == value.name
            return self._existing_parameter(caller) == value.name
        cls = self.project.class_of_function(caller)
        return (
            value.kind is Kind.ATTRIBUTE
            and value.base is not None
            and value.base.kind is Kind.SELF
            and cls is not None
            and self._own_generator(cls) == value.name
        )

    def _referenced(self, host: FunctionRef) -> bool:
        """Return True if project code uses `host` as a value (not only calls it)."""
        own = host.function.qualname
        qualname = f"{host.module.module}.{own}"
        for function in self.project.functions_mentioning(host.function.name):
            references = function.function.references
            if own in references and function.module is host.module:
                return True
            if qualname in references:
                return True
        return False

    def _relative_line(self, function: FunctionRef, call: Value) -> str:
        line = call.span.line if call.span is not None else function.function.span.line
        return self.project.location(function.path, line)

    # --- helpers inserted in a module ---

    def _helpers_problem(self, module: ModuleFacts, *, numpy_rng: bool) -> str | None:
        """Return why the helpers cannot be used in `module`: a namesake of the user's."""
        if not reseed_helpers_handle(self.project, module, GENERATOR):
            return (
                f"the module's own `{RESEED_IN_WORKER}` or `{RESEED_OBJECT}` is not workerseed's, "
                "or does not handle NumPy Generators; rename or delete it and run `fix` again"
            )
        if not numpy_rng or NUMPY_RNG not in module.module_names:
            return None
        own = module.function(NUMPY_RNG)
        if own is None or not self._is_numpy_rng_helper(FunctionRef.of(module, own)):
            return f"the module's own `{NUMPY_RNG}` is not workerseed's; rename it"
        return None

    def _helper_edits(self, module: ModuleFacts, *, numpy_rng: bool) -> list[Edit]:
        names = rng_helper_names(module, kinds={"numpy"})
        assert names.numpy is not None
        edits: list[Edit] = [
            AddHelper(RESEED_IN_WORKER, reseed_rngs_in_worker_function(RESEED_IN_WORKER, names)),
            *names.imports,
        ]
        if numpy_rng:
            torch = module_reference(module, "torch", "torch")
            code = numpy_rng_function(NUMPY_RNG, RESEED_IN_WORKER, names.numpy, torch.expression)
            edits.append(AddHelper(NUMPY_RNG, code))
            edits.extend(torch.imports)
        return edits


def _passed(call: Value, parameter: str, index: int, facts: FunctionFacts) -> Value | None:
    """Return the value `call` passes for `parameter` (at position `index`), if visible."""
    value = call.keyword(parameter)
    if value is not None:
        return value
    if index < facts.positional_count and index < len(call.args):
        arg = call.args[index]
        if not any(earlier.kind is Kind.STARRED for earlier in call.args[: index + 1]):
            return arg
    return None


def _uses_attribute(function: FunctionFacts, attribute: str) -> bool:
    return attribute in function.self_reads or any(
        assignment.target == f"self.{attribute}" for assignment in function.assignments
    )


def _calls_self_method(call: Value, name: str) -> bool:
    """Return True for `self.<name>(...)`."""
    return (
        calls_method(call, name)
        and call.base is not None
        and call.base.base is not None
        and call.base.base.kind is Kind.SELF
    )
