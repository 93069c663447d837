"""Seed sources: what a seed expression depends on, and what that means in a worker.

`seed_sources()` classifies a seed expression by the `Source`s it depends on, following
local variables, module constants, project functions' return values and the arguments they
were called with. `verdict()` turns the sources into what matters in a DataLoader worker: does
the seed change per worker and per epoch, stay the same every epoch, or come from entropy.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..types import TorchTarget
from . import catalog
from .branch_facts import within
from .facts import Kind, ModuleFacts, Value
from .memo import on_reentry, per_project
from .passed_callables import bind_call
from .project import Project
from .randomness import NUMPY_GLOBAL_DRAWS
from .refs import ClassRef, ExternalRef, FunctionRef, VariableRef

#: torch seeds NumPy's global RNG in each worker from this version on (pytorch#56488).
NUMPY_SEEDED_SINCE = (1, 9)
#: How deep seed expressions are followed through variables and project functions.
MAX_DEPTH = 6


class Source(enum.Enum):
    """Something a seed expression depends on."""

    #: The worker id: the `worker_id` parameter of a worker_init_fn, `get_worker_info().id`.
    WORKER_ID = "worker_id"
    #: A literal or a module-level constant.
    CONSTANT = "constant"
    #: torch's per-worker, per-epoch seed: `torch.initial_seed()`, `get_worker_info().seed`.
    WORKER_SEED = "worker_seed"
    #: A draw from the `random` or `torch` global RNG, which torch seeds in every worker.
    WORKER_STREAM = "worker_stream"
    #: A draw from NumPy's global RNG: per worker and epoch only since torch 1.9.
    NUMPY_DRAW = "numpy_draw"
    #: `np.random.get_state()`: in a worker its `[1][0]` is the same in every epoch.
    NUMPY_STATE = "numpy_state"
    #: A pid, a uuid, `os.urandom`, `secrets`, or no seed at all (OS entropy): distinct in
    #: every worker.
    ENTROPY = "entropy"
    #: The clock: workers started within one tick of it read the same value.
    CLOCK = "clock"
    #: The process's rank in a distributed run.
    RANK = "rank"
    #: A value fixed for the run: a config attribute, state an object gets in `__init__`.
    RUN_VALUE = "run_value"
    #: Another parameter of the function (a worker_init_fn's, bound by functools.partial).
    PARAMETER = "parameter"
    #: Anything that cannot be seen through.
    UNKNOWN = "unknown"


class Verdict(enum.Enum):
    """How a seed behaves in DataLoader workers."""

    #: Different in every worker and every epoch (derived from torch's worker seed).
    PER_EPOCH = "per_epoch"
    #: The same in every epoch: each epoch replays the previous one's random numbers.
    EPOCH_INVARIANT = "epoch_invariant"
    #: Different every time, but not reproducible under `torch.manual_seed`.
    NOT_REPRODUCIBLE = "not_reproducible"
    #: The clock (with or without the worker id): not reproducible, and alike in the workers
    #: of processes started within one tick.
    CLOCK = "clock"
    UNKNOWN = "unknown"


def verdict(
    sources: frozenset[Source],
    target: TorchTarget,
    *,
    parameters_fixed: bool = True,
    per_item: bool = False,
) -> Verdict:
    """Return how a seed with these sources behaves in workers on torch `target`.

    `parameters_fixed` says whether other parameters of the function hold values fixed for
    the run (a worker_init_fn's partial-bound arguments) or may change per call (an index).
    `per_item`: the seed is computed for every item (a Dataset's `__getitem__`), not once
    per worker.
    """
    if Source.WORKER_SEED in sources or Source.WORKER_STREAM in sources:
        return Verdict.PER_EPOCH
    if Source.NUMPY_DRAW in sources and not target.is_before(NUMPY_SEEDED_SINCE):
        return Verdict.PER_EPOCH
    if Source.UNKNOWN in sources:
        return Verdict.UNKNOWN
    if Source.ENTROPY in sources:
        return Verdict.NOT_REPRODUCIBLE
    if Source.CLOCK in sources:
        # An index or other varying argument mixed into the clock changes nothing: the seed
        # is still only as distinct as the tick read, and no run can be reproduced.
        # The rank added to the clock keeps the processes of a run apart. Without it, every
        # process that starts workers within one tick (each rank of a distributed run) gives
        # them the same seeds, whether or not the worker id is added.
        # Per item, the workers of one process read the clock alike whatever the rank.
        if Source.RANK in sources and not per_item:
            return Verdict.NOT_REPRODUCIBLE
        return Verdict.CLOCK
    if Source.PARAMETER in sources and not parameters_fixed:
        return Verdict.UNKNOWN
    return Verdict.EPOCH_INVARIANT


def in_spawned_workers(sources: frozenset[Source], target: TorchTarget) -> frozenset[Source]:
    """Return the sources of a seed read in workers started as fresh interpreters (spawn,
    forkserver): before torch 1.9, which seeds NumPy itself, NumPy's state there is drawn from
    OS entropy, not inherited from the main process."""
    inherited = {Source.NUMPY_STATE, Source.NUMPY_DRAW}
    if not sources & inherited or not target.is_before(NUMPY_SEEDED_SINCE):
        return sources
    return sources - inherited | {Source.ENTROPY}


#: Calls that send one rank's value to every rank of the process group.
_BROADCASTS = frozenset({"torch.distributed.broadcast", "torch.distributed.broadcast_object_list"})
#: The keyword names a seed may be passed by, per callee.
_SEED_KEYWORDS = ("seed", "a", "x", "entropy")
#: Builtins and NumPy scalar types whose result depends only on their arguments.
_PASS_THROUGH = frozenset(
    {
        "builtins.int",
        "builtins.float",
        "builtins.abs",
        "builtins.round",
        "builtins.hash",
        "builtins.str",
        "builtins.sum",
        "builtins.min",
        "builtins.max",
        "builtins.pow",
        "builtins.divmod",
        "builtins.int.from_bytes",
        "numpy.uint32",
        "numpy.uint64",
        "numpy.int32",
        "numpy.int64",
        "numpy.array",
        "numpy.asarray",
        "math.floor",
        "math.ceil",
        "math.trunc",
        "math.fmod",
        "math.modf",
        "numpy.modf",
        "numpy.mod",
        "numpy.fmod",
        "numpy.floor",
        "numpy.ceil",
        "numpy.trunc",
        "numpy.round",
        "numpy.abs",
    }
)
#: Methods whose result depends only on the object they are called on (and arguments).
_PASS_THROUGH_METHODS = frozenset(
    {"item", "timestamp", "strftime", "__int__", "tolist", "encode", "hex"}
)
_RANK_NAMES = frozenset({"process_index", "local_process_index", "ordinal", "global_ordinal"})


_ARGUMENT_PARSERS = frozenset({"argparse.ArgumentParser"})


def is_command_line_option(project: Project, seed: Value, function: FunctionRef) -> bool:
    """Return True for `args.seed` where `args = parser.parse_args()` of an ArgumentParser,
    or `args = parse_args()` of a project function returning that."""
    if seed.kind is not Kind.ATTRIBUTE or seed.base is None or is_rank_name(seed.name):
        return False
    return _parsed_command_line(project, seed.base, function, 0)


def _parsed_command_line(
    project: Project, parsed: Value, function: FunctionRef, depth: int
) -> bool:
    """Return True if `parsed` (read in `function`) is what an ArgumentParser parsed."""
    callee = parsed.base if parsed.kind is Kind.CALL else None
    if callee is None:
        return False
    module = function.module
    created: list[Value] = []
    if callee.kind is Kind.ATTRIBUTE and callee.name == "parse_args" and callee.base is not None:
        # `parser.parse_args()` with `parser` local to the function.
        created.append(callee.base)
        targets = project.targets(callee.base, module)
    elif callee.kind is Kind.NAME:
        functions = [
            target for target in project.targets(callee, module) if isinstance(target, FunctionRef)
        ]
        if functions and depth == 0:
            # `args = parse_args()`, a function of the script returning `parser.parse_args()`.
            return all(
                helper.function.returns
                and all(
                    _parsed_command_line(project, option, helper, depth + 1)
                    for value in helper.function.returns
                    for option in value.alternatives()
                )
                for helper in functions
            )
        # `parser.parse_args()` with `parser` a module-level variable.
        parsers = [
            name.removesuffix(".parse_args")
            for name in callee.qualnames
            if name.endswith(".parse_args")
        ]
        if len(parsers) != len(callee.qualnames) or not parsers:
            return False
        targets = tuple(target for name in parsers for target in project.resolve(name, module))
    else:
        return False
    for target in targets:
        if isinstance(target, VariableRef):
            created.extend(target.values)
    return bool(created) and all(
        option.kind is Kind.CALL
        and option.base is not None
        and project.is_one_of(option.base, module, _ARGUMENT_PARSERS)
        for value in created
        for option in value.alternatives()
    )


def is_rank_name(name: str) -> bool:
    """Return True for names that conventionally hold a distributed rank (`local_rank`)."""
    lowered = name.lower()
    return "rank" in lowered or lowered in _RANK_NAMES


#: NumPy's global seeding function.
_NUMPY_SEEDERS = frozenset(name for name, rng in catalog.GLOBAL_SEEDERS.items() if rng == "numpy")


@dataclass(frozen=True)
class SeedScope:
    """Where a seed expression is evaluated: the function, and what its parameters hold."""

    function: FunctionRef
    #: The parameter that receives the worker id (a worker_init_fn's first argument).
    worker_param: str | None = None
    #: Arguments a caller passed, by parameter name, with the scope they were written in.
    arguments: Mapping[str, tuple[Value, SeedScope]] = field(default_factory=dict)
    #: The class `self` is an instance of.
    self_class: ClassRef | None = None
    #: What some parameters are known to depend on (e.g. values bound by functools.partial).
    parameters: Mapping[str, frozenset[Source]] = field(default_factory=dict)


def seed_sources(project: Project, value: Value, scope: SeedScope) -> frozenset[Source]:
    """Return the sources the seed expression `value` (written in `scope`) depends on."""
    return _Classifier(project).sources(value, scope, 0) or frozenset({Source.UNKNOWN})


class _Classifier:
    def __init__(self, project: Project) -> None:
        self.project = project

    def sources(self, value: Value, scope: SeedScope, depth: int) -> frozenset[Source]:
        if depth > MAX_DEPTH:
            return frozenset({Source.UNKNOWN})
        deeper = depth + 1
        kind = value.kind
        if kind in (Kind.INT, Kind.CONSTANT):
            return frozenset({Source.CONSTANT})
        if kind is Kind.PARAM:
            return self._parameter(value.name, scope, deeper)
        if kind is Kind.NAME:
            return self._name(value, scope, deeper)
        if kind is Kind.ATTRIBUTE:
            return self._attribute(value, scope, deeper)
        if kind is Kind.CALL:
            return self._call(value, scope, deeper)
        if kind is Kind.SUBSCRIPT and value.base is not None:
            if self._is_environment(value.base, scope):
                return self._environment_key(value.args[0] if value.args else None)
            holder = self._holder(value.base, scope, deeper)
            return holder | self._union(list(value.args), scope, deeper)
        if kind in (Kind.BINOP, Kind.ALTERNATIVES, Kind.SEQUENCE):
            return self._union(list(value.args), scope, deeper)
        if kind in (Kind.UNKNOWN, Kind.RECURSIVE) and value.name and is_rank_name(value.name):
            return frozenset({Source.RANK})
        if kind is Kind.RECURSIVE:
            # `seed = seed + offset` reads the name it rebinds: the earlier values are the
            # other alternatives of the name, so the read adds no source of its own. (A local
            # name does not keep its value from one call of the function to the next.)
            return frozenset()
        return frozenset({Source.UNKNOWN})

    def _union(self, values: list[Value], scope: SeedScope, depth: int) -> frozenset[Source]:
        found: set[Source] = set()
        for item in values:
            found |= self.sources(item, scope, depth)
        return frozenset(found)

    def _parameter(self, name: str, scope: SeedScope, depth: int) -> frozenset[Source]:
        if name == scope.worker_param:
            return frozenset({Source.WORKER_ID})
        passed = scope.arguments.get(name)
        if passed is not None:
            return self.sources(passed[0], passed[1], depth)
        known = scope.parameters.get(name)
        if known is not None:
            return known
        if is_rank_name(name):
            return frozenset({Source.RANK})
        return frozenset({Source.PARAMETER})

    def _name(self, value: Value, scope: SeedScope, depth: int) -> frozenset[Source]:
        module = scope.function.module
        targets = self.project.targets(value, module)
        if not targets:
            aliased = self._module_alias(value, module)
            if aliased:
                code = module.function("<module>")
                if code is not None:
                    inner = SeedScope(FunctionRef.of(module, code))
                    return self._union(aliased, inner, depth)
            return self._module_object_attribute(value, module)
        found: set[Source] = set()
        for target in targets:
            if isinstance(target, VariableRef):
                code = target.module.function("<module>")
                if code is None:
                    found.add(Source.UNKNOWN)
                    continue
                inner = SeedScope(FunctionRef.of(target.module, code))
                for assigned in target.values:
                    if assigned.kind is Kind.NAME and assigned.qualnames == (
                        f"{target.module.module}.{target.name}",
                    ):
                        found.add(Source.UNKNOWN)
                    else:
                        found |= self.sources(assigned, inner, depth)
                if is_rank_name(target.name):
                    found.add(Source.RANK)
            elif isinstance(target, ExternalRef):
                # A module attribute of a package (`config.SEED`): fixed for the run.
                last = target.qualname.rpartition(".")[2]
                found.add(Source.RANK if is_rank_name(last) else Source.RUN_VALUE)
            else:
                found.add(Source.UNKNOWN)
        return frozenset(found)

    @staticmethod
    def _module_alias(value: Value, module: ModuleFacts) -> list[Value]:
        """Return the values of a module-level name bound to another dotted name
        (`fix_seed = args.seed` at a script's top level), which resolution cannot follow."""
        found: list[Value] = []
        prefix = module.module + "."
        for qualname in value.qualnames:
            if not qualname.startswith(prefix) or "." in qualname[len(prefix) :]:
                continue
            own = qualname
            for assigned in module.binding(qualname[len(prefix) :]) or ():
                if (
                    assigned.kind is Kind.NAME
                    and assigned.qualnames
                    and own not in assigned.qualnames
                ):
                    found.append(assigned)
        return found

    def _module_object_attribute(self, value: Value, module: ModuleFacts) -> frozenset[Source]:
        """Classify `cfg.SEED` / `args.seed` where `cfg` is a module-level object of the project,
        or a project class that holds settings (`class CFG: seed = 42`).

        Such an object (`args = parser.parse_args()`, `cfg = CfgNode()`) is built once when
        its module runs, and a class body runs once; every worker inherits them unchanged, so
        their attributes are fixed for the run, like a literal. A class attribute the project
        stores a rank-dependent value in (`CFG.seed = CFG.seed + rank`) depends on the rank.
        """
        for qualname in value.qualnames:
            parts = qualname.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                targets = self.project.resolve(".".join(parts[:cut]), module)
                rank = {Source.RANK} if is_rank_name(parts[-1]) else set()
                if any(isinstance(t, VariableRef) for t in targets):
                    return frozenset({Source.RUN_VALUE, *rank})
                classes = [t for t in targets if isinstance(t, ClassRef)]
                if classes and cut == len(parts) - 1:
                    if _stored_from_rank(self.project, tuple(classes), parts[-1]):
                        rank.add(Source.RANK)
                    return frozenset({Source.RUN_VALUE, *rank})
        return frozenset({Source.UNKNOWN})

    def _attribute(self, value: Value, scope: SeedScope, depth: int) -> frozenset[Source]:
        base = value.base
        if base is None:
            return frozenset({Source.UNKNOWN})
        if self._is_worker_info(base, scope):
            if value.name == "id":
                return frozenset({Source.WORKER_ID})
            if value.name == "seed":
                return frozenset({Source.WORKER_SEED})
            if value.name == "num_workers":
                return frozenset({Source.RUN_VALUE})
            return frozenset({Source.UNKNOWN})
        rank = {Source.RANK} if is_rank_name(value.name) else set()
        if base.kind is Kind.SELF:
            stored = self._stored(value.name, scope)
            if stored:
                # Stored by the function that reads it (`self.seed = cfg.seed + self.rank` in
                # the `__init__` that then seeds from `self.seed`): what it stores.
                return self._union(stored, scope, depth) | rank
            return self._self_attribute(value.name, scope) | rank
        if base.kind is Kind.CALL:
            if is_command_line_option(self.project, value, scope.function):
                # `parser.parse_args().seed`: every process is started with the same
                # command line, which stays as it is for the run.
                return frozenset({Source.RUN_VALUE, *rank})
            # `uuid.uuid4().int`, `datetime.now().microsecond`: what the call depends on.
            return self.sources(base, scope, depth) | rank
        inner = self._holder(base, scope, depth)
        if Source.UNKNOWN in inner or Source.WORKER_ID in inner:
            # `self.args.local_rank` of an object not known: still the rank, by its name.
            return frozenset({Source.UNKNOWN, *rank})
        # `args.seed`, `cfg.data.seed`: an attribute of a fixed object is fixed too.
        return frozenset({Source.RUN_VALUE, *rank})

    def _holder(self, value: Value, scope: SeedScope, depth: int) -> frozenset[Source]:
        """Classify an object a setting is read from (`self.config` of `self.config.seed`
        or `self.config["seed"]`): one the instance holds is a setting of that object, even
        when this function stored it from a parameter (`self.config = config`)."""
        base = value.base
        if value.kind is Kind.ATTRIBUTE and base is not None and base.kind is Kind.SELF:
            return self._self_attribute(value.name, scope)
        return self.sources(value, scope, depth)

    @staticmethod
    def _stored(name: str, scope: SeedScope) -> list[Value]:
        """Return the values the scope's function stores as `self.<name>`."""
        target = f"self.{name}"
        assignments = scope.function.function.assignments
        return [assignment.value for assignment in assignments if assignment.target == target]

    def _self_attribute(self, name: str, scope: SeedScope) -> frozenset[Source]:
        """Classify `self.<name>` as an attribute of the instance, set once or not."""
        rank = {Source.RANK} if is_rank_name(name) else set()
        if self._changes_after_init(scope.self_class, name):
            return frozenset({Source.UNKNOWN})
        return frozenset({Source.RUN_VALUE, *rank})

    def _call(self, call: Value, scope: SeedScope, depth: int) -> frozenset[Source]:
        callee = call.base
        if callee is None:
            return frozenset({Source.UNKNOWN})
        module = scope.function.module
        if callee.kind is Kind.ATTRIBUTE and callee.base is not None:
            return self._method_call(call, callee, scope, depth)
        if callee.kind is Kind.FUNCTION:
            nested = module.function(callee.name)
            if nested is None:
                return frozenset({Source.UNKNOWN})
            return self._returns(FunctionRef.of(module, nested), call, scope, depth)
        names = self.project.qualnames(callee, module)
        if names:
            return self._external_call(call, names, scope, depth)
        functions = [
            target
            for target in self.project.targets(callee, module)
            if isinstance(target, FunctionRef)
        ]
        if len(functions) == 1:
            return self._returns(functions[0], call, scope, depth)
        return frozenset({Source.UNKNOWN})

    def _external_call(
        self, call: Value, names: frozenset[str], scope: SeedScope, depth: int
    ) -> frozenset[Source]:
        if names <= catalog.TORCH_INITIAL_SEED:
            return frozenset({Source.WORKER_SEED})
        if names <= catalog.NUMPY_GET_STATE:
            return frozenset({Source.NUMPY_STATE})
        if names <= NUMPY_GLOBAL_DRAWS:
            reseeded = self._numpy_seed_before(call, scope)
            if reseeded is not None:
                # `np.random.seed(base + worker_id)`, then `random.seed(np.random.randint(n))`:
                # the draw is as fixed as the seed just given.
                return self.sources(reseeded, scope, depth)
            return frozenset({Source.NUMPY_DRAW})
        if names <= catalog.PYTHON_RANDOM_DRAWS | catalog.TORCH_DRAWS:
            return frozenset({Source.WORKER_STREAM})
        if names <= catalog.CLOCK_SOURCES:
            return frozenset({Source.CLOCK})
        if names <= catalog.TIME_SOURCES:
            return frozenset({Source.ENTROPY})
        if names <= catalog.DISTRIBUTED_RANKS:
            return frozenset({Source.RANK})
        if names <= catalog.ENVIRONMENT_READS:
            return self._environment_key(call.args[0] if call.args else None)
        if names <= _PASS_THROUGH:
            values = [*call.args, *(value for _, value in call.keywords)]
            return self._union(values, scope, depth) if values else frozenset({Source.CONSTANT})
        return frozenset({Source.UNKNOWN})

    def _numpy_seed_before(self, draw: Value, scope: SeedScope) -> Value | None:
        """Return the seed of the `np.random.seed(seed)` statement that runs last before the
        NumPy draw `draw` in the same block of `scope`'s function, if there is one."""
        facts = scope.function.function
        if draw.span is None:
            return None
        seeds = {
            call.span: call.args[0]
            for call in facts.calls
            if call.base is not None
            and call.span is not None
            and len(call.args) == 1
            and self.project.qualnames(call.base, scope.function.module) & _NUMPY_SEEDERS
        }
        before = [
            reach.call
            for reach in facts.statement_reaches
            if reach.call in seeds
            and reach.after
            and reach.after[0] is not None
            and within(draw.span, reach.after[0])
        ]
        if not before:
            return None
        return seeds[max(before, key=lambda span: (span.line, span.column))]

    def _method_call(
        self, call: Value, callee: Value, scope: SeedScope, depth: int
    ) -> frozenset[Source]:
        assert callee.base is not None
        holder = callee.base
        if callee.name in _PASS_THROUGH_METHODS:
            return self._union([holder, *call.args], scope, depth)
        if self._is_environment(holder, scope) and callee.name == "get":
            return self._environment_key(call.args[0] if call.args else None)
        if holder.kind is Kind.SELF and scope.self_class is not None:
            # `self.get_worker_id()`: what the class's method returns.
            found = self.project.find_method(scope.self_class, callee.name)
            if found is not None:
                return self._returns(found[1], call, scope, depth)
        # A draw from an RNG object created in reach: it depends on what seeded the object.
        created = self._rng_object(holder, scope)
        if created is not None:
            seed = _seed_argument(created)
            if seed is None:
                return frozenset({Source.ENTROPY})
            return self.sources(seed, scope, depth)
        return frozenset({Source.UNKNOWN})

    def _returns(
        self, function: FunctionRef, call: Value, scope: SeedScope, depth: int
    ) -> frozenset[Source]:
        returns = function.function.returns
        if not returns:
            return frozenset({Source.UNKNOWN})
        inner = SeedScope(
            function,
            arguments=bind_arguments(function, call, scope),
            self_class=self.project.class_of_function(function),
        )
        if self._broadcasts(function):
            # OpenMMLab's `init_random_seed(seed)`: the seed passed, or one drawn on rank 0
            # and broadcast to the others, the same on every rank and fixed for the run.
            return self._union(
                [value for value in returns if value.kind is Kind.PARAM], inner, depth
            ) | {Source.CONSTANT}
        return self._union(list(returns), inner, depth)

    def _broadcasts(self, function: FunctionRef) -> bool:
        """Return True if `function` broadcasts a value from one rank to all the others."""
        module = function.module
        return any(
            call.base is not None and self.project.is_one_of(call.base, module, _BROADCASTS)
            for call in function.function.calls
        )

    def _rng_object(self, holder: Value, scope: SeedScope) -> Value | None:
        options = holder.alternatives()
        if len(options) != 1 or options[0].kind is not Kind.CALL or options[0].base is None:
            return None
        created = options[0]
        assert created.base is not None
        names = self.project.qualnames(created.base, scope.function.module)
        if names and names <= catalog.SEEDED_CONSTRUCTORS:
            return created
        return None

    def _is_worker_info(self, value: Value, scope: SeedScope) -> bool:
        return (
            value.kind is Kind.CALL
            and value.base is not None
            and self.project.is_one_of(value.base, scope.function.module, catalog.GET_WORKER_INFO)
        )

    def _is_environment(self, value: Value, scope: SeedScope) -> bool:
        return self.project.is_one_of(value, scope.function.module, catalog.ENVIRONMENT)

    def _environment_key(self, key: Value | None) -> frozenset[Source]:
        if key is not None and key.kind is Kind.CONSTANT:
            name = key.name.strip("'\"")
            if name in catalog.RANK_ENVIRONMENT:
                return frozenset({Source.RANK})
        return frozenset({Source.RUN_VALUE})

    def _changes_after_init(self, cls: ClassRef | None, attribute: str) -> bool:
        """Return True if a method other than `__init__` assigns `self.<attribute>`."""
        if cls is None:
            return True
        target = f"self.{attribute}"
        for owner in self.project.mro(cls):
            for name, qualname in owner.cls.methods:
                function = owner.module.function(qualname)
                if function is None or name == "__init__":
                    continue
                if any(assignment.target == target for assignment in function.assignments):
                    return True
        return False


@per_project
@on_reentry(False)
def _stored_from_rank(project: Project, classes: tuple[ClassRef, ...], attribute: str) -> bool:
    """Return True if the project stores a rank-dependent value as `attribute` of one of
    `classes` (`CFG.seed = args.seed + rank`). A store that reads the attribute itself
    (`CFG.seed = CFG.seed + 1`) asks again: that read adds nothing."""
    for function in project.functions_mentioning(attribute):
        for store in function.function.attribute_stores:
            if store.attribute != attribute or store.base.kind is not Kind.NAME:
                continue
            if not set(project.targets(store.base, function.module)) & set(classes):
                continue
            if Source.RANK in seed_sources(project, store.value, SeedScope(function)):
                return True
    return False


def bind_arguments(
    function: FunctionRef, call: Value, scope: SeedScope, *, offset: int = 0
) -> dict[str, tuple[Value, SeedScope]]:
    """Map `function`'s parameters to the arguments `call` (written in `scope`) passes.

    `offset` skips leading parameters the call does not pass (`self` of a bound method).
    """
    return {param: (arg, scope) for param, arg in bind_call(function, call, offset).items()}


def _seed_argument(call: Value) -> Value | None:
    """Return the seed a seeding call passes: its first argument or a seed keyword."""
    if call.args:
        first = call.args[0]
        return None if first.kind is Kind.STARRED else first
    for name in _SEED_KEYWORDS:
        value = call.keyword(name)
        if value is not None:
            return value
    return None
