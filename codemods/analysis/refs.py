"""What `Project` answers with: references to the project's classes, functions and
variables and to names outside it, families of subclasses, and call sites."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .facts import ClassFacts, FunctionFacts, ModuleFacts, Value


@dataclass(frozen=True)
class ClassRef:
    """A class defined in the project."""

    module: ModuleFacts = field(compare=False, repr=False)
    cls: ClassFacts = field(compare=False, repr=False)
    path: Path
    qualname: str

    @classmethod
    def of(cls, module: ModuleFacts, facts: ClassFacts) -> ClassRef:
        return cls(module, facts, module.path, facts.qualname)

    @property
    def name(self) -> str:
        """Return the class name as written."""
        return self.cls.name


@dataclass(frozen=True)
class FunctionRef:
    """A function, method or lambda defined in the project."""

    module: ModuleFacts = field(compare=False, repr=False)
    function: FunctionFacts = field(compare=False, repr=False)
    path: Path
    qualname: str
    #: For a method inherited by a known class: the class `self` belongs to when it runs
    #: (a base's `prepare_data` read for a subclass, whose `self.transforms()` is its own).
    #: Not part of its identity: it is the same function, its callers are the same; only
    #: answers kept per function (`memo`) tell the receivers apart.
    receiver: ClassRef | None = field(default=None, compare=False)

    @classmethod
    def of(cls, module: ModuleFacts, facts: FunctionFacts) -> FunctionRef:
        return cls(module, facts, module.path, facts.qualname)

    def run_on(self, receiver: ClassRef) -> FunctionRef:
        """Return this method as it runs on an instance of `receiver`, a class inheriting it."""
        return FunctionRef(self.module, self.function, self.path, self.qualname, receiver)


@dataclass(frozen=True)
class VariableRef:
    """A module-level variable of the project and the values assigned to it."""

    module: ModuleFacts = field(compare=False, repr=False)
    name: str
    values: tuple[Value, ...] = field(compare=False)
    path: Path = field(default=Path())


@dataclass(frozen=True)
class ExternalRef:
    """Something outside the project (torch, numpy, a third-party package, a builtin)."""

    qualname: str


Target = ClassRef | FunctionRef | VariableRef | ExternalRef


@dataclass(frozen=True)
class Family:
    """The project subclasses of some external classes, and the names that denote them."""

    classes: tuple[ClassRef, ...]
    names: frozenset[str]


@dataclass(frozen=True)
class CallSite:
    """A call made somewhere in the project."""

    function: FunctionRef
    call: Value
