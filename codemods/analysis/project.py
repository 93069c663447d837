"""The cross-file index: which module a dotted name means, class hierarchies, call sites.

`Project` is built from the `ModuleFacts` of every analysed file of one repository. It turns
the qualified names recorded per file into the classes, functions and variables they denote,
following re-exports (`from .data import MyDataset` in a package `__init__`), module aliases
and module-level assignments (`Loader = DataLoader`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..types import TorchTarget
from . import catalog
from .facts import ClassFacts, FunctionFacts, Kind, ModuleFacts, Value

#: How many re-exports / aliases a name is followed through.
_MAX_HOPS = 8


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

    @classmethod
    def of(cls, module: ModuleFacts, facts: FunctionFacts) -> FunctionRef:
        return cls(module, facts, module.path, facts.qualname)


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
class CallSite:
    """A call made somewhere in the project."""

    function: FunctionRef
    call: Value


class Project:
    """All analysed modules of one repository, and the questions that span files."""

    def __init__(self, root: Path, modules: Iterable[ModuleFacts], target: TorchTarget) -> None:
        self.root = root
        self.target = target
        self.modules: tuple[ModuleFacts, ...] = tuple(modules)
        self.by_path: dict[Path, ModuleFacts] = {module.path: module for module in self.modules}
        self._by_name: dict[str, list[ModuleFacts]] = {}
        paths = set(self.by_path)
        for module in self.modules:
            for alias in _module_aliases(module, root, paths):
                self._by_name.setdefault(alias, []).append(module)
        self._resolved: dict[tuple[str, Path | None], tuple[Target, ...]] = {}

    # --- modules and names ---

    def module_named(self, name: str, near: ModuleFacts | None = None) -> ModuleFacts | None:
        """Return the project module imported as `name`, the nearest to `near` if ambiguous."""
        candidates = self._by_name.get(name)
        if not candidates:
            return None
        if len(candidates) == 1 or near is None:
            return candidates[0]
        return max(candidates, key=lambda module: _common_parts(module.path, near.path))

    def resolve(self, qualname: str, near: ModuleFacts | None = None) -> tuple[Target, ...]:
        """Return what the dotted `qualname` denotes (several targets if it is ambiguous)."""
        key = (qualname, near.path if near else None)
        cached = self._resolved.get(key)
        if cached is None:
            self._resolved[key] = ()  # guards against re-export cycles
            cached = tuple(dict.fromkeys(self._resolve(qualname, near, 0)))
            self._resolved[key] = cached
        return cached

    def _resolve(self, qualname: str, near: ModuleFacts | None, hops: int) -> Iterator[Target]:
        if hops > _MAX_HOPS:
            return
        parts = qualname.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.module_named(".".join(parts[:cut]), near)
            if module is None:
                continue
            rest = parts[cut:]
            if not rest:
                return  # a module itself: not a class, function or variable
            yield from self._resolve_in_module(module, rest, hops)
            return
        yield ExternalRef(qualname)

    def _resolve_in_module(
        self, module: ModuleFacts, rest: list[str], hops: int
    ) -> Iterator[Target]:
        # Classes (with nested classes and methods) and functions defined in the module.
        for length in range(len(rest), 0, -1):
            qualname = ".".join(rest[:length])
            remaining = rest[length:]
            cls = module.class_(qualname)
            if cls is not None and not remaining:
                yield ClassRef.of(module, cls)
                return
            function = module.function(qualname)
            if function is not None and not remaining and "<" not in qualname:
                yield FunctionRef.of(module, function)
                return
        values = module.binding(rest[0])
        if not values:
            for star in module.star_imports:
                found = list(self._resolve(".".join([star, *rest]), module, hops + 1))
                if found and not all(isinstance(target, ExternalRef) for target in found):
                    yield from found
                    return
            return
        for value in values:
            if value.kind is Kind.NAME:
                for qualname in value.qualnames:
                    if qualname == f"{module.module}.{rest[0]}":
                        if len(rest) == 1:
                            yield VariableRef(module, rest[0], values, module.path)
                        continue
                    yield from self._resolve(".".join([qualname, *rest[1:]]), module, hops + 1)
            elif len(rest) == 1:
                yield VariableRef(module, rest[0], values, module.path)

    def targets(self, value: Value, near: ModuleFacts) -> tuple[Target, ...]:
        """Return what a NAME value (or each of its alternatives) denotes."""
        found: list[Target] = []
        for option in value.alternatives():
            if option.kind is Kind.NAME:
                for qualname in option.qualnames:
                    found.extend(self.resolve(qualname, near))
        return tuple(dict.fromkeys(found))

    def qualnames(self, value: Value, near: ModuleFacts) -> frozenset[str]:
        """Return the external qualified names `value` may denote, following project aliases."""
        names = set()
        for target in self.targets(value, near):
            if isinstance(target, ExternalRef):
                names.add(target.qualname)
            elif isinstance(target, VariableRef):
                for assigned in target.values:
                    if assigned.kind is Kind.NAME and assigned.qualnames != (
                        f"{target.module.module}.{target.name}",
                    ):
                        names.update(self.qualnames(assigned, target.module))
        return frozenset(names)

    def is_one_of(self, value: Value, near: ModuleFacts, qualnames: frozenset[str]) -> bool:
        """Return True if `value` certainly denotes one of the external `qualnames`."""
        names = self.qualnames(value, near)
        return bool(names) and names <= qualnames

    def function_of(self, value: Value, near: ModuleFacts) -> FunctionRef | None:
        """Return the project function a NAME or nested-function value denotes, if unique."""
        if value.kind is Kind.FUNCTION:
            function = near.function(value.name)
            return FunctionRef.of(near, function) if function else None
        functions = [t for t in self.targets(value, near) if isinstance(t, FunctionRef)]
        return functions[0] if len(functions) == 1 else None

    # --- classes ---

    def class_bases(self, ref: ClassRef) -> tuple[Target, ...]:
        """Return the resolved direct bases of a project class."""
        found: list[Target] = []
        for base in ref.cls.bases:
            if (
                base.kind is Kind.CALL
            ):  # e.g. `Generic[T]` is a subscript; a call is a mixin factory
                continue
            subject = base.base if base.kind is Kind.SUBSCRIPT and base.base else base
            found.extend(self.targets(subject, ref.module))
        return tuple(found)

    def ancestors(self, ref: ClassRef) -> Iterator[Target]:
        """Yield every base of `ref`, nearest first (project classes and external names)."""
        seen: set[Target] = {ref}
        queue: list[Target] = list(self.class_bases(ref))
        while queue:
            current = queue.pop(0)
            if current in seen:
                continue
            seen.add(current)
            yield current
            if isinstance(current, ClassRef):
                queue.extend(self.class_bases(current))
            elif isinstance(current, VariableRef):
                for value in current.values:
                    queue.extend(self.targets(value, current.module))

    def derives_from(self, ref: ClassRef, qualnames: frozenset[str]) -> bool:
        """Return True if `ref` has one of the external `qualnames` among its ancestors."""
        return any(
            isinstance(target, ExternalRef) and _matches(target.qualname, qualnames)
            for target in self.ancestors(ref)
        )

    def find_method(self, ref: ClassRef, name: str) -> tuple[ClassRef, FunctionRef] | None:
        """Return where `ref` gets method `name` from, searching project bases in order."""
        for owner in self.mro(ref):
            qualname = owner.cls.method(name)
            if qualname is not None:
                function = owner.module.function(qualname)
                if function is not None:
                    return owner, FunctionRef.of(owner.module, function)
        return None

    def mro(self, ref: ClassRef) -> list[ClassRef]:
        """Return `ref` and its project ancestors, in (depth-first) lookup order."""
        order: list[ClassRef] = []

        def visit(current: ClassRef, depth: int) -> None:
            if current in order or depth > _MAX_HOPS:
                return
            order.append(current)
            for base in self.class_bases(current):
                if isinstance(base, ClassRef):
                    visit(base, depth + 1)

        visit(ref, 0)
        return order

    def class_of_function(self, ref: FunctionRef) -> ClassRef | None:
        """Return the class whose body defines method `ref`."""
        if ref.function.class_qualname is None:
            return None
        cls = ref.module.class_(ref.function.class_qualname)
        return ClassRef.of(ref.module, cls) if cls else None

    @cached_property
    def classes(self) -> tuple[ClassRef, ...]:
        """Return every class defined in the project."""
        return tuple(ClassRef.of(module, cls) for module in self.modules for cls in module.classes)

    @cached_property
    def functions(self) -> tuple[FunctionRef, ...]:
        """Return every function (and module body) defined in the project."""
        return tuple(
            FunctionRef.of(module, function)
            for module in self.modules
            for function in module.functions
        )

    # --- call sites ---

    @cached_property
    def _callers(self) -> dict[FunctionRef | ClassRef, list[CallSite]]:
        index: dict[FunctionRef | ClassRef, list[CallSite]] = {}
        for caller in self.functions:
            for call in caller.function.calls:
                if call.base is None:
                    continue
                callee = call.base
                if callee.kind is Kind.FUNCTION:
                    nested = caller.module.function(callee.name)
                    if nested is not None:
                        key: FunctionRef | ClassRef = FunctionRef.of(caller.module, nested)
                        index.setdefault(key, []).append(CallSite(caller, call))
                    continue
                if callee.kind not in (Kind.NAME, Kind.ALTERNATIVES):
                    continue
                for target in self.targets(callee, caller.module):
                    if isinstance(target, FunctionRef | ClassRef):
                        index.setdefault(target, []).append(CallSite(caller, call))
        return index

    def callers(self, ref: FunctionRef | ClassRef) -> list[CallSite]:
        """Return the calls in the project that call function (or instantiate class) `ref`."""
        return self._callers.get(ref, [])


def _matches(qualname: str, qualnames: frozenset[str]) -> bool:
    if qualname in qualnames:
        return True
    # Every dataset class torchvision ships derives from torch's Dataset.
    return "torch.utils.data.Dataset" in qualnames and qualname.startswith("torchvision.datasets.")


def _module_aliases(module: ModuleFacts, root: Path, paths: set[Path]) -> set[str]:
    """Return the dotted names a file may be imported as.

    Its package name; its path from the project root (scripts run from the root); from
    `src/`; and, for a file outside any package, its bare name (scripts importing siblings).
    """
    aliases = {module.module}
    try:
        relative = module.path.relative_to(root)
    except ValueError:
        return aliases
    parts = list(relative.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    if parts:
        aliases.add(".".join(parts))
        if parts[0] == "src" and len(parts) > 1:
            aliases.add(".".join(parts[1:]))
        if module.path.parent / "__init__.py" not in paths:
            aliases.add(parts[-1])
    return aliases


def _common_parts(a: Path, b: Path) -> int:
    count = 0
    for left, right in zip(a.parts, b.parts, strict=False):
        if left != right:
            break
        count += 1
    return count


def is_dataset_class(project: Project, ref: ClassRef) -> bool:
    """Return True if `ref` derives from a torch Dataset (directly or via project classes)."""
    return project.derives_from(ref, catalog.TORCH_DATASET_BASES)
