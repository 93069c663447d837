"""The cross-file index: which module a dotted name means, class hierarchies, call sites.

`Project` is built from the `ModuleFacts` of every analysed file of one repository. It turns
the qualified names recorded per file into the classes, functions and variables they denote,
following re-exports (`from .data import MyDataset` in a package `__init__`), module aliases
and module-level assignments (`Loader = DataLoader`, also unpacked from a function's result).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ..types import TorchTarget
from .facts import Kind, ModuleFacts, Value, spelled
from .module_unpacking import assigned_values
from .name_growth import add_aliases, denotes, grow_names, matches
from .path_extensions import module_on_extended_path
from .refs import CallSite, ClassRef, ExternalRef, Family, FunctionRef, Target, VariableRef
from .sources import NOTEBOOK_SUFFIX, SourceSet

#: How many project classes deep a class hierarchy, and re-exports and aliases, are followed.
_MAX_HOPS, _MAX_DEPTH = 8, 32

_Answer = TypeVar("_Answer")


class Project:
    """All analysable modules of one repository, and the questions that span files.

    Modules are summarised on demand (see `sources.SourceSet`): name resolution loads the
    module a name points into, and project-wide questions name the identifiers their answer
    must mention (`modules_mentioning`)."""

    def __init__(
        self, root: Path, modules: Iterable[ModuleFacts] | SourceSet, target: TorchTarget
    ) -> None:
        self.root = root
        self.target = target
        #: Library versions stated by option or configuration: (distribution, version, source).
        self.library_versions: tuple[tuple[str, str, str], ...] = ()
        self.sources = modules if isinstance(modules, SourceSet) else SourceSet.of(root, modules)
        self._resolved: dict[tuple[str, Path | None], tuple[Target, ...]] = {}
        #: Resolution depth now, and whether the depth limit cut an answer short.
        self._depth = 0
        self._cut = False
        #: Callee name -> the calls spelling it, by what they call (see `callers`).
        self._callers: dict[str, dict[Target, list[CallSite]]] = {}
        self._spelling_calls: dict[tuple[int, str], tuple[Value, ...]] = {}
        self._families: dict[frozenset[str], Family] = {}
        self._mentioning: dict[frozenset[str], tuple[FunctionRef, ...]] = {}
        self._denoting: dict[FunctionRef | ClassRef, frozenset[str]] = {}
        #: Resolved bases and lookup orders, by class summary (see `_settled`).
        self._bases: dict[int, tuple[ClassRef, tuple[Target, ...]]] = {}
        self._orders: dict[int, tuple[ClassRef, list[ClassRef]]] = {}
        #: Answers kept for the rules that ask again (see `memo.per_project`).
        self.memo: dict[object, dict[Hashable, Any]] = {}

    def location(self, path: Path, line: int) -> str:
        """Return `path:line` with `path` relative to the project root, as messages show it."""
        return f"{self.shown_path(path)}:{line}"

    def shown_path(self, path: Path) -> str:
        """Return `path` relative to the project root, as messages show it."""
        inside = path.is_relative_to(self.root)
        return (path.relative_to(self.root) if inside else path).as_posix()

    # --- modules and names ---

    def module_at(self, path: Path) -> ModuleFacts | None:
        """Return the module of file `path`."""
        return self.sources.facts(path)

    def modules_mentioning(self, *names: str) -> Iterator[ModuleFacts]:
        """Yield the modules whose text may contain one of the identifiers `names` (a
        superset: `ModuleFacts.spells` says whether one does)."""
        return self.sources.mentioning(names)

    def module_named(self, name: str, near: ModuleFacts | None = None) -> ModuleFacts | None:
        """Return the project module imported as `name`, the nearest to `near` if ambiguous."""
        # A notebook is no module `import` can load: only its own code refers to it by name.
        paths = [
            path
            for path in self.sources.named(name, near.path if near is not None else None)
            if near is None or path.suffix != NOTEBOOK_SUFFIX or path == near.path
        ]
        if not paths:
            return module_on_extended_path(self, name) if near is not None else None
        if near is not None:
            # `from dataset import Base` in a `dataset.py` of a package imports another
            # module of that name, and `import horovod.torch` in a package's `horovod.py`
            # the library: the file itself is known by its package's name (its own names,
            # `pkg.dataset.Base`, are still looked up under that name).
            paths = [path for path in paths if path != near.path or near.module == name]
            if not paths:
                return None
        if len(paths) > 1 and near is not None:
            # A same-named package in a sibling folder (`config/IKC/data` for a script in
            # `config/DANv1`) is on no path the script has: its own folder and the folders
            # above it (`sys.path.insert(0, "../../")`) come first.
            above = [path for path in paths if _import_root(path, name) in near.path.parents]
            paths = above or paths
            nearest = max(_common_parts(path, near.path) for path in paths)
            # The import finds the nearest module first; if that one could not be read,
            # a same-named module elsewhere is not what the code imports.
            paths = [path for path in paths if _common_parts(path, near.path) == nearest]
        found = (self.sources.facts(path) for path in paths)
        return next((module for module in found if module is not None), None)

    def resolve(self, qualname: str, near: ModuleFacts | None = None) -> tuple[Target, ...]:
        """Return what the dotted `qualname` denotes (several targets if it is ambiguous)."""
        key = (qualname, near.path if near else None)
        cached = self._resolved.get(key)
        if cached is not None:
            return cached
        if self._depth >= _MAX_DEPTH:
            self._cut = True
            return ()
        # Every re-export is resolved through this cache: packages that star-import each
        # other reach the same name along many paths, and each is followed once. The empty
        # entry ends re-export cycles.
        self._resolved[key] = ()
        outer_cut, self._cut = self._cut, False
        self._depth += 1
        try:
            cached = tuple(dict.fromkeys(self._resolve(qualname, near)))
        finally:
            self._depth -= 1
        if self._cut:
            del self._resolved[key]  # cut short by the depth limit: not the whole answer
        else:
            self._resolved[key] = cached
        self._cut = self._cut or outer_cut
        return cached

    def _resolve(self, qualname: str, near: ModuleFacts | None) -> Iterator[Target]:
        parts = qualname.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.module_named(".".join(parts[:cut]), near)
            if module is None:
                continue
            rest = parts[cut:]
            if not rest:
                # A module itself: not a class, function or variable, unless its package
                # rebinds the name (`from .build import build` in `pkg/__init__.py`).
                package = self.module_named(".".join(parts[: cut - 1]), near) if cut > 1 else None
                if package is not None and package.binding(parts[-1]):
                    yield from self._resolve_in_module(package, parts[-1:])
                return
            yield from self._resolve_in_module(module, rest)
            return
        yield ExternalRef(qualname)

    def _resolve_in_module(self, module: ModuleFacts, rest: list[str]) -> Iterator[Target]:
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
            # A project module's name wins; a library name one of them imports (`np`
            # re-exported by `from .ops import *`) is what the name is when none defines it.
            external: tuple[Target, ...] = ()
            for star in module.star_imports:
                # Only project modules can be followed; a module that names itself would
                # grow the name forever (`pkg.x.x.x...`).
                star_module = self.module_named(star, module)
                if star_module is None or star_module.path == module.path:
                    continue
                found = self.resolve(".".join([star, *rest]), module)
                if found and not all(isinstance(target, ExternalRef) for target in found):
                    yield from found
                    return
                external = external or found
            yield from external
            return
        own = f"{module.module}.{rest[0]}"
        for value in values:
            if value.kind is Kind.NAME:
                for qualname in value.qualnames:
                    if qualname == own:
                        if len(rest) == 1:
                            yield VariableRef(module, rest[0], values, module.path)
                        continue
                    if qualname.startswith(own + ".") and self.module_named(own, module) is None:
                        continue  # `x = x.y`: the variable's own attribute, unknowable
                    yield from self.resolve(".".join([qualname, *rest[1:]]), module)
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
                for assigned, module in assigned_values(self, target):
                    if assigned.kind is Kind.NAME and assigned.qualnames != (
                        f"{target.module.module}.{target.name}",
                    ):
                        names.update(self.qualnames(assigned, module))
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
        known = self._bases.get(id(ref.cls))
        if known is not None and known[0] == ref:
            return known[1]
        bases, settled = self._settled(
            lambda: tuple(
                target for base in ref.cls.bases for target in self.base_options(ref, base)
            )
        )
        if settled:
            self._bases[id(ref.cls)] = (ref, bases)
        return bases

    def _settled(self, compute: Callable[[], _Answer]) -> tuple[_Answer, bool]:
        """Return what `compute` gives, and whether it is settled: asked outside any name
        resolution and cut short by no depth limit. A settled answer rests only on resolved
        names, each kept once resolved (`resolve`), so asking again gives it again: it is
        kept, by the identity of the class summary it is about (summaries live as long as
        the project; a class defined twice under one qualname has two)."""
        outer_cut, self._cut = self._cut, False
        try:
            answer = compute()
            settled = self._depth == 0 and not self._cut
        finally:
            self._cut = self._cut or outer_cut
        return answer, settled

    def base_options(self, ref: ClassRef, base: Value) -> tuple[Target, ...]:
        """Return what one base expression of `ref` may be: several classes for a base
        picked from a container at run time (`class D(bases[name], mixins[task])`)."""
        if base.kind is Kind.CALL:  # e.g. `Generic[T]` is a subscript; a call is a mixin factory
            return ()
        subject = base.base if base.kind is Kind.SUBSCRIPT and base.base else base
        targets = self.targets(subject, ref.module)
        if base.kind is not Kind.SUBSCRIPT:
            return targets
        return tuple(
            held for target in targets for held in self.held_in_container(target) or (target,)
        )

    def chosen_bases(self, ref: ClassRef) -> tuple[str, ...]:
        """Return the containers a base of `ref` is picked from (`class D(BASES[name])`)."""
        names: list[str] = []
        for base in ref.cls.bases:
            if base.kind is Kind.SUBSCRIPT and base.base is not None:
                names.extend(
                    target.name
                    for target in self.targets(base.base, ref.module)
                    if isinstance(target, VariableRef) and self.held_in_container(target)
                )
        return tuple(names)

    def held_in_container(self, target: Target, depth: int = 0) -> tuple[Target, ...]:
        """Return the classes a module-level dict, list or tuple variable holds (else ()),
        also through `*others` and comprehensions over another container."""
        if not isinstance(target, VariableRef) or depth > _MAX_HOPS:
            return ()
        held: list[Target] = []
        for value in target.values:
            if value.kind is Kind.DICT:
                elements = [element for _, element in value.keywords]
            elif value.kind is Kind.SEQUENCE:
                elements = list(value.args)
            else:
                continue
            for element in elements:
                if element.kind is Kind.STARRED and element.base is not None:
                    for inner in self.targets(element.base, target.module):
                        held.extend(self.held_in_container(inner, depth + 1))
                    continue
                held.extend(
                    found
                    for found in self.targets(element, target.module)
                    if isinstance(found, ClassRef | ExternalRef)
                )
        return tuple(held)

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
            isinstance(target, ExternalRef) and matches(target.qualname, qualnames)
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
        known = self._orders.get(id(ref.cls))
        if known is not None and known[0] == ref:
            return list(known[1])
        order, settled = self._settled(lambda: self._lookup_order(ref))
        if settled:
            self._orders[id(ref.cls)] = (ref, order)
        return list(order)

    def _lookup_order(self, ref: ClassRef) -> list[ClassRef]:
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

    def functions_mentioning(self, *names: str) -> tuple[FunctionRef, ...]:
        """Return the functions (and module bodies) of the modules that mention one of `names`.

        Found once per set of names: the callers of every function named `main` or `train`
        ask for the same names, and a large project has hundreds of modules spelling them.
        """
        wanted = frozenset(names)
        cached = self._mentioning.get(wanted)
        if cached is None:
            cached = self._mentioning[wanted] = tuple(
                FunctionRef.of(module, function)
                for module in self.modules_mentioning(*names)
                for function in module.functions_spelling(wanted)
            )
        return cached

    def subclasses_of(self, qualnames: frozenset[str]) -> tuple[ClassRef, ...]:
        """Return the project classes deriving from one of the external `qualnames`."""
        return self.family(qualnames).classes

    def family(self, qualnames: frozenset[str]) -> Family:
        """Return the project subclasses of `qualnames`, and every name that may denote one.

        A subclass names its base, and an alias names what it aliases: the search starts with
        the files that mention the bases' own names and grows with each subclass and alias
        found. Only classes and bindings that spell a known name are resolved, so the search
        reads no file that cannot be part of the answer.
        """
        cached = self._families.get(qualnames)
        if cached is not None:
            return cached
        names = {qualname.rpartition(".")[2] for qualname in qualnames}
        if any(qualname.startswith("torchvision.datasets.") for qualname in qualnames):
            names.add("torchvision")
        found: dict[ClassRef, None] = {}

        def subclasses_and_aliases(module: ModuleFacts, names: set[str]) -> None:
            for cls in module.classes:
                ref = ClassRef.of(module, cls)
                names_base = any(spelled(base) & names for base in cls.bases)
                if names_base and ref not in found and self.derives_from(ref, qualnames):
                    found[ref] = None
                    names.add(cls.name)
            add_aliases(self, module, names, lambda value: denotes(self, value, module, qualnames))

        grow_names(self, names, subclasses_and_aliases)
        family = Family(tuple(found), frozenset(names))
        self._families[qualnames] = family
        return family

    # --- call sites ---

    def callers(self, ref: FunctionRef | ClassRef) -> list[CallSite]:
        """Return the calls in the project that call function (or instantiate class) `ref`."""
        name = ref.function.name if isinstance(ref, FunctionRef) else ref.cls.name
        return self._calls_by_target(name).get(ref, [])

    def _calls_by_target(self, name: str) -> dict[Target, list[CallSite]]:
        """Return the calls that may call something named `name`, by what they call.

        Many functions share a name (`__init__`, `forward`, `main`): the project's calls
        spelling it are found and resolved once, not again for each function so named.
        """
        cached = self._callers.get(name)
        if cached is not None:
            return cached
        found: dict[Target, list[CallSite]] = {}
        for caller in self.functions_mentioning(name):
            for call in self._calls_spelling(caller, name):
                callee = call.base
                assert callee is not None
                if callee.kind is Kind.FUNCTION:
                    nested = caller.module.function(callee.name)
                    if nested is None:
                        continue
                    targets: tuple[Target, ...] = (FunctionRef.of(caller.module, nested),)
                else:
                    targets = self.targets(callee, caller.module)
                for target in targets:
                    found.setdefault(target, []).append(CallSite(caller, call))
        self._callers[name] = found
        return found

    def _calls_spelling(self, caller: FunctionRef, name: str) -> tuple[Value, ...]:
        """Return the calls of `caller` that may call something named `name`: of a nested
        function, or of a name that spells it (many functions share a name, e.g. `main`)."""
        # By the summary itself: a module may define two functions with one qualname. The
        # summaries live as long as the project, so their ids are not reused meanwhile.
        key = (id(caller.function), name)
        cached = self._spelling_calls.get(key)
        if cached is None:
            cached = self._spelling_calls[key] = tuple(
                call
                for call in caller.function.calls
                if (callee := call.base) is not None
                and (
                    callee.kind is Kind.FUNCTION
                    or (callee.kind in (Kind.NAME, Kind.ALTERNATIVES) and name in spelled(callee))
                )
            )
        return cached

    def names_denoting(self, ref: FunctionRef | ClassRef) -> frozenset[str]:
        """Return the identifiers that may denote `ref` anywhere in the project.

        Its own name, and the names modules bind to it (`from .seeding import seed_worker
        as init`, `init = seed_worker`), followed from module to module: any reference to
        `ref` spells one of them.
        """
        cached = self._denoting.get(ref)
        if cached is not None:
            return cached
        names = {ref.function.name if isinstance(ref, FunctionRef) else ref.cls.name}

        def aliases(module: ModuleFacts, names: set[str]) -> None:
            add_aliases(self, module, names, lambda value: ref in self.targets(value, module))

        grow_names(self, names, aliases)
        result = frozenset(names)
        self._denoting[ref] = result
        return result

    def is_referenced(self, ref: FunctionRef | ClassRef) -> bool:
        """Return True if project code uses `ref` as a value (passes, stores it)."""
        names = self.names_denoting(ref)
        for module in self.modules_mentioning(*names):
            for function in module.functions_spelling(names):
                for qualname in function.references:
                    if qualname.rpartition(".")[2] not in names:
                        continue
                    if module.path == ref.path and qualname == ref.qualname:
                        return True
                    if ref in self.resolve(qualname, module):
                        return True
        return False


def _common_parts(a: Path, b: Path) -> int:
    count = 0
    for left, right in zip(a.parts, b.parts, strict=False):
        if left != right:
            break
        count += 1
    return count


def _import_root(path: Path, name: str) -> Path:
    """Return the folder that must be on `sys.path` for file `path` to import as `name`."""
    depth = name.count(".") + (1 if path.name == "__init__.py" else 0)
    return path.parents[depth] if depth < len(path.parents) else path.parent
