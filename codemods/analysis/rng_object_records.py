"""What workerseed records about RNG objects: where one lives, the call that creates it,
how per-item code uses it, and the names of the helpers its fixes insert."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property

from ..types import Span
from . import catalog
from .facts import Value
from .package_versions import LibraryVersion
from .per_item import Reached
from .refs import ClassRef, FunctionRef

#: The helpers workerseed inserts; a call to one of them is a reseed, not a draw.
RESEED_IN_WORKER = "_reseed_rngs_in_worker"
RESEED_OBJECT = "_reseed_rng_object"
RESEED_WALKER = "_reseed_worker_rngs"
CHAIN_WORKER_INIT = "_chain_worker_init"


class Place(enum.Enum):
    """Where an RNG object lives."""

    #: `self.<name>` of an instance, created in `__init__` (or code it calls).
    ATTRIBUTE = "attribute"
    #: An assignment in a class body.
    CLASS_ATTRIBUTE = "class attribute"
    #: A module-level variable.
    MODULE = "module level"
    #: A local variable of a function that a function nested in it reads (a closure the
    #: enclosing function returns or stores): made each time the enclosing function runs.
    CLOSURE = "closure"


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
    #: What it makes cannot be seen (a pipeline read from a file named at run time) and is
    #: assumed to draw random numbers.
    draws_assumed: bool = False
    #: What a finding must add about how it knows that it draws (a candidate set).
    note: str | None = None
    #: The library release from which building it raises (a step's arguments it no longer
    #: takes), or leaves it no random step, so that from there on no random pipeline exists.
    raises_from: tuple[int, ...] | None = None

    def never_built_on(self, version: LibraryVersion) -> bool:
        """Return True if no random pipeline is built here on `version` of its library."""
        return self.raises_from is not None and version.within(self.raises_from, None)


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
