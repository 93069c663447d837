"""Seeds: which calls reseed an RNG, and what the seed they pass depends on.

`seedings()` finds the calls in one function that reseed a random number generator: the
global seeders (`np.random.seed`, `random.seed`, `torch.manual_seed`, imgaug), constructors
that take a seed (`np.random.default_rng(s)`, `RandomState(s)`, `random.Random(s)`), seed
methods of RNG objects (`rng.seed(s)`, `gen.manual_seed(s)`), and calls of project functions
that pass their parameter on to one of those (`set_seed(s)`).

`seed_classification` says what the seed they pass depends on.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

from ..types import Location, Span
from . import catalog, library_seeders
from .facts import Kind, Value
from .memo import per_project
from .project import Project
from .refs import ClassRef, FunctionRef
from .seed_classification import (
    _PASS_THROUGH,
    SeedScope,
    Source,
    _seed_argument,
    bind_arguments,
    seed_sources,
)


class SinkKind(enum.Enum):
    """How a call seeds an RNG."""

    GLOBAL = "global"
    CONSTRUCTOR = "constructor"
    METHOD = "method"
    #: A function that passes its parameter on to seeders: the project's (`set_seed(s)`),
    #: or a library's seed-everything function (`seed_everything(s)`).
    PROJECT_FUNCTION = "project_function"


@dataclass(frozen=True)
class Seeding:
    """A call that reseeds an RNG, and the seed it passes."""

    function: FunctionRef
    call: Value
    kind: SinkKind
    #: What is seeded: "numpy", "random", "torch", "torch.cuda", "imgaug", the qualified
    #: name of a constructor, ".seed()" for a method, or the project function's name.
    library: str
    #: The seed argument; None when the call passes none (the RNG seeds from OS entropy).
    seed: Value | None
    #: The seed must be below 2**32 (NumPy's legacy seeding raises ValueError otherwise).
    needs_32_bits: bool = False
    #: For PROJECT_FUNCTION: the libraries that function seeds.
    seeds: tuple[str, ...] = ()
    #: For PROJECT_FUNCTION in the same file: where that function reseeds a global RNG.
    inner: tuple[Span, ...] = ()

    @property
    def is_torch(self) -> bool:
        """Return True for `torch.manual_seed(...)` and the CUDA seeders."""
        return self.kind is SinkKind.GLOBAL and self.library in ("torch", "torch.cuda")

    @property
    def reseeds_global(self) -> bool:
        """Return True if the call reseeds a global RNG (NumPy's, `random`'s, torch's),
        itself or through a project function (`self.reset_numpy_seed(seed)`)."""
        if self.kind is SinkKind.PROJECT_FUNCTION:
            return bool(set(self.seeds) & set(catalog.GLOBAL_SEEDERS.values()))
        return self.kind is SinkKind.GLOBAL

    @property
    def span(self) -> Span:
        """Return the span of the seeding call."""
        assert self.call.span is not None
        return self.call.span

    @property
    def places(self) -> tuple[Location, ...]:
        """Return the call, then where the helper it calls reseeds (if seen in its file)."""
        return tuple(Location(self.function.path, span) for span in (self.span, *self.inner))


_SEED_METHODS = frozenset({"seed", "manual_seed"})


def is_none(value: Value | None) -> bool:
    """Return True for a missing value or a literal None."""
    return value is None or value.is_none


def seedings(
    project: Project, function: FunctionRef, *, self_class: ClassRef | None = None
) -> list[Seeding]:
    """Return the calls in `function`'s own code that reseed an RNG."""
    return list(_own_seedings(project, function, self_class))


@per_project
def _own_seedings(
    project: Project, function: FunctionRef, self_class: ClassRef | None
) -> tuple[Seeding, ...]:
    return tuple(_seedings(project, function, self_class, 0))


def _inner_spans(project: Project, helper: FunctionRef, caller: FunctionRef) -> tuple[Span, ...]:
    """Return where project function `helper` reseeds a global RNG itself, if it is written
    in the same file as `caller` (a finding's related places are in its own file)."""
    if helper.path != caller.path:
        return ()
    own = _own_seedings(project, helper, project.class_of_function(helper))
    return tuple(seeding.span for seeding in own if seeding.kind is SinkKind.GLOBAL)


def _seedings(
    project: Project, function: FunctionRef, self_class: ClassRef | None, depth: int
) -> Iterator[Seeding]:
    module = function.module
    for call in function.function.calls:
        callee = call.base
        if callee is None or call.span is None:
            continue
        if callee.kind is Kind.ATTRIBUTE and callee.name in _SEED_METHODS:
            if callee.base is not None and callee.base.kind is not Kind.SELF:
                yield Seeding(function, call, SinkKind.METHOD, f".{callee.name}()", _seed(call))
            continue
        names = project.qualnames(callee, module)
        if names:
            external = list(_external_seeding(function, call, names))
            yield from external
            # A name that star imports may take from a library or from the project
            # (`from utils import *`) may still run a project seeding helper.
            if external or callee.kind is not Kind.NAME:
                continue
        if depth >= 2:
            continue
        for target, offset in _project_callees(project, callee, function, self_class):
            parameters = seeding_parameters(project, target, depth + 1)
            if not parameters:
                continue
            bound = bind_arguments(target, call, SeedScope(function), offset=offset)
            for param, libraries in parameters.items():
                name, _, setting = param.partition(".")
                seed = bound[name][0] if name in bound else _default(target, name, call)
                if seed is None:
                    continue
                for attribute in setting.split(".") if setting else ():
                    seed = Value(Kind.ATTRIBUTE, seed.span, name=attribute, base=seed)
                yield Seeding(
                    function,
                    call,
                    SinkKind.PROJECT_FUNCTION,
                    target.function.name,
                    seed,
                    seeds=libraries,
                    inner=_inner_spans(project, target, function),
                )


def _default(function: FunctionRef, param: str, call: Value) -> Value | None:
    """Return the literal number `param` of `function` defaults to, for a `call` that leaves
    it out (`def main(seed=13)` called as `main()`); None for any other default."""
    default = function.function.default_of(param)
    if default is None or not default.lstrip("-").isdigit():
        return None
    return Value(Kind.INT, call.span, number=int(default))


def _seed(call: Value) -> Value | None:
    seed = _seed_argument(call)
    return None if is_none(seed) else seed


def _external_seeding(
    function: FunctionRef, call: Value, names: frozenset[str]
) -> Iterator[Seeding]:
    seeders = {**catalog.GLOBAL_SEEDERS, **catalog.THIRD_PARTY_SEEDERS}
    libraries = {seeders[name] for name in names if name in seeders}
    if libraries and all(name in seeders for name in names):
        yield Seeding(
            function,
            call,
            SinkKind.GLOBAL,
            min(libraries),
            _seed(call),
            needs_32_bits=names <= catalog.NUMPY_32_BIT_SEEDS,
        )
    elif names <= library_seeders.SEED_ALL.keys():
        # `fix_random_seed(self.seed + worker_id)`: a library's seed-everything function.
        name = min(names)
        yield Seeding(
            function,
            call,
            SinkKind.PROJECT_FUNCTION,
            name.rpartition(".")[2],
            _seed(call),
            seeds=library_seeders.SEED_ALL[name],
        )
    elif names <= catalog.SEEDED_CONSTRUCTORS:
        seed = _seed(call)
        if seed is not None and seed.kind is Kind.CALL:
            return  # `Generator(PCG64(s))`: the inner call is the seeding one
        yield Seeding(
            function,
            call,
            SinkKind.CONSTRUCTOR,
            min(names),
            seed,
            needs_32_bits=names <= catalog.NUMPY_32_BIT_SEEDS,
        )


def _project_callees(
    project: Project, callee: Value, function: FunctionRef, self_class: ClassRef | None
) -> Iterator[tuple[FunctionRef, int]]:
    """Yield the project functions a call may run, with how many parameters it skips."""
    module = function.module
    if callee.kind is Kind.FUNCTION:
        nested = module.function(callee.name)
        if nested is not None:
            yield FunctionRef.of(module, nested), 0
        return
    if callee.kind is Kind.NAME:
        found = [t for t in project.targets(callee, module) if isinstance(t, FunctionRef)]
        if len(found) == 1:
            yield found[0], 0
        return
    if (
        callee.kind is Kind.ATTRIBUTE
        and callee.base is not None
        and callee.base.kind is Kind.SELF
        and self_class is not None
    ):
        method = project.find_method(self_class, callee.name)
        if method is not None:
            yield method[1], 0 if is_static(method[1]) else 1


def is_static(function: FunctionRef) -> bool:
    """Return True for a `@staticmethod`."""
    return any(
        "builtins.staticmethod" in decorator.qualnames for decorator in function.function.decorators
    )


def seeding_parameters(
    project: Project, function: FunctionRef, depth: int = 0
) -> dict[str, tuple[str, ...]]:
    """Return the parameters `function` seeds RNGs from, with the libraries it seeds.

    `def set_seed(seed): np.random.seed(seed); torch.manual_seed(seed)` gives
    {"seed": ("numpy", "torch")}. Only seeds that are the parameter itself, or arithmetic
    on it with constants (`seed % 2**32`), count; a setting of a parameter
    (`torch.manual_seed(args.seed)`) is keyed "args.seed".
    """
    found: dict[str, set[str]] = {}
    self_class = project.class_of_function(function)
    for seeding in _seedings(project, function, self_class, depth):
        if seeding.seed is None:
            continue
        setting = _parameter_setting(seeding.seed, function)
        if setting is not None and _only_library_calls(project, function):
            # `def set_seed(args): torch.manual_seed(args.seed)`: the caller's `args` decides.
            libraries = seeding.seeds if seeding.seeds else (seeding.library,)
            found.setdefault(setting, set()).update(libraries)
            continue
        seed = _without_fallback_draws(project, seeding.seed, function)
        params = parameters_of(seed)
        if len(params) != 1:
            continue
        (param,) = params
        if param not in function.function.params:
            continue
        sources = seed_sources(project, seed, SeedScope(function, worker_param=param))
        if sources <= {Source.WORKER_ID, Source.CONSTANT}:
            libraries = seeding.seeds if seeding.seeds else (seeding.library,)
            found.setdefault(param, set()).update(libraries)
    return {param: tuple(sorted(libraries)) for param, libraries in found.items()}


def _without_fallback_draws(project: Project, seed: Value, function: FunctionRef) -> Value:
    """Return `seed` without the clock or entropy draws it falls back to when a parameter
    is left out (`if seed is None: seed = int(time.time())`): the seed is that parameter
    wherever a caller passes one. Any other seed is returned as it is."""
    options = seed.alternatives()
    scope = SeedScope(function)
    drawn = [
        option
        for option in options
        if not parameters_of(option)
        and (sources := seed_sources(project, option, scope)) & _DRAWN
        and sources <= _DRAWN | {Source.CONSTANT}
    ]
    kept = [option for option in options if option not in drawn]
    return kept[0] if drawn and len(kept) == 1 and parameters_of(kept[0]) else seed


#: What a fallback seed is drawn from (constants may shape it: `os.urandom(2)`).
_DRAWN = frozenset({Source.CLOCK, Source.ENTROPY})


def _parameter_setting(value: Value, function: FunctionRef) -> str | None:
    """Return "args.seed" for a seed read as a setting of a parameter (`args.seed`, also
    `int(args.seed)` and a nested setting, `config.train.seed`), else None."""
    if (
        value.kind is Kind.CALL
        and value.base is not None
        and value.base.kind is Kind.NAME
        and set(value.base.qualnames) & _PASS_THROUGH
        and len(value.args) == 1
    ):
        value = value.args[0]
    attributes: list[str] = []
    while value.kind is Kind.ATTRIBUTE and value.base is not None:
        attributes.append(value.name)
        value = value.base
    if attributes and value.kind is Kind.PARAM and value.name in function.function.params:
        return ".".join([value.name, *reversed(attributes)])
    return None


def _only_library_calls(project: Project, function: FunctionRef) -> bool:
    """Return True for a helper that calls no project code and builds no DataLoader: a
    `set_seed(args)` that seeds libraries, not a training function that also seeds."""
    for call in function.function.calls:
        if call.base is None:
            continue
        targets = project.targets(call.base, function.module)
        if any(isinstance(target, FunctionRef | ClassRef) for target in targets):
            return False
        if project.qualnames(call.base, function.module) & catalog.TORCH_DATALOADERS:
            return False
    return True


def parameters_of(value: Value) -> frozenset[str]:
    """Return the names of the parameters `value` reads directly (not through calls)."""
    if value.kind is Kind.PARAM:
        return frozenset({value.name})
    if value.kind in (Kind.BINOP, Kind.ALTERNATIVES, Kind.SEQUENCE, Kind.SUBSCRIPT):
        found: frozenset[str] = frozenset()
        for item in (*value.args, *((value.base,) if value.base else ())):
            found |= parameters_of(item)
        return found
    if (
        value.kind is Kind.CALL
        and value.base is not None
        and value.base.kind is Kind.NAME
        and set(value.base.qualnames) & _PASS_THROUGH
    ):
        # `int(seed)`, `np.uint32(seed)`
        return frozenset(name for item in value.args for name in parameters_of(item))
    return frozenset()


def additive_terms(value: Value) -> tuple[Value, ...]:
    """Return the terms of a sum (`a + b + c` gives a, b, c); other values are one term."""
    if value.kind is Kind.BINOP and value.name == "+":
        return tuple(term for arg in value.args for term in additive_terms(arg))
    return (value,)


def may_exceed_32_bits(value: Value) -> bool:
    """Return True if `value` is torch's worker seed not reduced below 2**32.

    `torch.initial_seed()` and `get_worker_info().seed` are up to 2**63 in a worker; a sum or
    product of them stays that large. `% n`, `& mask`, `>>` and the like reduce them.
    """
    options = value.alternatives()
    return any(_unreduced(option) for option in options)


def _unreduced(value: Value) -> bool:
    if value.kind is Kind.CALL and value.base is not None and value.base.kind is Kind.NAME:
        if set(value.base.qualnames) & catalog.TORCH_INITIAL_SEED:
            return True
        if set(value.base.qualnames) & {"builtins.int", "builtins.abs"}:
            return any(_unreduced(arg) for arg in value.args)
        return False
    if value.kind is Kind.ATTRIBUTE and value.name == "seed" and value.base is not None:
        base = value.base
        return (
            base.kind is Kind.CALL
            and base.base is not None
            and bool(set(base.base.qualnames) & catalog.GET_WORKER_INFO)
        )
    if value.kind is Kind.BINOP and value.name in ("+", "*", "<<", "|", "^"):
        return any(_unreduced(arg) for arg in value.args)
    return False


def mentions(value: Value, word: str) -> bool:
    """Return True if a name, parameter or attribute in `value` contains `word`."""
    names = [value.name, *(qualname.rpartition(".")[2] for qualname in value.qualnames)]
    if value.kind in (Kind.PARAM, Kind.UNKNOWN, Kind.RECURSIVE, Kind.ATTRIBUTE, Kind.NAME) and any(
        word in name.lower() for name in names
    ):
        return True
    children = [*value.args, *(item for _, item in value.keywords)]
    if value.base is not None:
        children.append(value.base)
    return any(mentions(child, word) for child in children)
