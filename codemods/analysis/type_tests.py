"""What an enclosing `if isinstance(value, C):` says about the classes a value may be.

`if isinstance(dataset, IterableDataset): DataLoader(dataset, ...)` else `DataLoader(dataset,
sampler=...)`: each call loads only the candidates on its side of the test. A candidate is
ruled out only when its whole class hierarchy is known well enough to tell.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import replace

from ..types import Span
from . import catalog
from .branch_facts import within
from .candidates import DatasetsOf
from .facts import Kind, TypeTest, Value
from .known_values import Known
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef

_ISINSTANCE = frozenset({"builtins.isinstance"})

#: torch's map-style Dataset classes: none of them is an IterableDataset.
_MAP_STYLE_BASES = (
    catalog.TORCH_DATASET_BASES
    - catalog.TORCH_ITERABLE_DATASET_BASES
    - {
        "torch.utils.data.ChainDataset",
        "torch.utils.data.dataset.ChainDataset",
    }
)


def narrowed(
    project: Project, datasets: DatasetsOf, value: Value, span: Span, where: FunctionRef
) -> DatasetsOf:
    """Return `datasets` (what `value` may be) without the classes that an `isinstance` test
    enclosing the code at `span` in `where` rules out."""
    subject = replace(value, span=None)
    kept = datasets.classes
    for test in where.function.type_tests:
        call = test.call
        if (
            call.kind is not Kind.CALL
            or call.base is None
            or len(call.args) != 2
            or replace(call.args[0], span=None) != subject
            or not project.is_one_of(call.base, where.module, _ISINSTANCE)
        ):
            continue
        if within(span, test.body):
            holds = not test.negated
        elif test.orelse is not None and within(span, test.orelse):
            holds = test.negated
        else:
            continue
        tested = _tested_classes(project, call.args[1], where)
        if tested is None:
            continue
        kept = tuple(ref for ref in kept if _is_instance(project, ref, *tested) in (None, holds))
    if kept == datasets.classes:
        return datasets
    return replace(
        datasets,
        classes=kept,
        made=tuple(pair for pair in datasets.made if pair[0] in kept),
        applied=tuple(pair for pair in datasets.applied if pair[0] in kept),
    )


def _tested_classes(
    project: Project, value: Value, where: FunctionRef
) -> tuple[frozenset[str], frozenset[ClassRef]] | None:
    """Return the external qualified names and project classes a test's second argument
    names, or None if some part of it is not resolved."""
    options = value.args if value.kind is Kind.SEQUENCE else (value,)
    names: set[str] = set()
    classes: set[ClassRef] = set()
    for option in options:
        targets = project.targets(option, where.module)
        if not targets:
            return None
        for target in targets:
            if isinstance(target, ClassRef):
                classes.add(target)
            elif isinstance(target, ExternalRef):
                names.update(_spellings(target.qualname))
            else:
                return None
    return frozenset(names), frozenset(classes)


def _spellings(qualname: str) -> tuple[str, ...]:
    """torch.utils.data re-exports its dataset classes: both names test the same class."""
    short = "torch.utils.data."
    long = "torch.utils.data.dataset."
    if qualname.startswith(long):
        return qualname, short + qualname.removeprefix(long)
    if qualname.startswith(short) and "." not in qualname.removeprefix(short):
        return qualname, long + qualname.removeprefix(short)
    return (qualname,)


def _is_instance(
    project: Project, ref: ClassRef, names: frozenset[str], classes: frozenset[ClassRef]
) -> bool | None:
    """Return whether instances of `ref` pass the test, or None if that cannot be told."""
    if classes & set(project.mro(ref)) or (names and project.derives_from(ref, names)):
        return True
    for ancestor in project.ancestors(ref):
        if isinstance(ancestor, ClassRef):
            continue
        if not isinstance(ancestor, ExternalRef):
            return None  # a base that is not resolved
        # A third-party class may derive from any external class named in the test.
        if (
            names
            and ancestor.qualname != "builtins.object"
            and not (
                names <= catalog.TORCH_ITERABLE_DATASET_BASES
                and ancestor.qualname in _MAP_STYLE_BASES
            )
        ):
            return None
    return False


#: What `isinstance(literal, C)` says, for each class C a literal may be tested against
#: (`isinstance(seeding, Callable)`), by qualname.
_LITERAL_TESTS: dict[str, Callable[[object], bool]] = {
    "builtins.str": lambda literal: isinstance(literal, str),
    "builtins.int": lambda literal: isinstance(literal, int),
    "builtins.float": lambda literal: isinstance(literal, float),
    "builtins.bool": lambda literal: isinstance(literal, bool),
    "builtins.bytes": lambda literal: isinstance(literal, bytes),
    "builtins.dict": lambda literal: isinstance(literal, dict),
    "builtins.list": lambda literal: isinstance(literal, list),
    "builtins.tuple": lambda literal: isinstance(literal, tuple),
    "typing.Callable": callable,
    "collections.abc.Callable": callable,
}


def literal_test_outcome(
    project: Project, test: TypeTest, where: FunctionRef, known: Mapping[str, Known]
) -> bool | None:
    """Return whether `if isinstance(param, C):` in `where` holds, when `known` says which
    literals parameter `param` may be (None if that does not tell)."""
    call = test.call
    if (
        call.kind is not Kind.CALL
        or call.base is None
        or len(call.args) != 2
        or call.args[0].kind is not Kind.PARAM
        or not project.is_one_of(call.base, where.module, _ISINSTANCE)
    ):
        return None
    values = known.get(call.args[0].name)
    tests = _literal_tests(project, call.args[1], where)
    if values is None or not values.one_of or tests is None:
        return None
    results: set[bool] = set()
    for key in values.one_of:
        try:
            literal = ast.literal_eval(key)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        results.add(any(holds(literal) for holds in tests))
    return results.pop() != test.negated if len(results) == 1 else None


def _literal_tests(
    project: Project, tested: Value, where: FunctionRef
) -> list[Callable[[object], bool]] | None:
    """Return the tests of the classes `tested` (a class or a tuple of them) names, if it
    names only classes a literal may be tested against."""
    options = tested.args if tested.kind is Kind.SEQUENCE else (tested,)
    tests: list[Callable[[object], bool]] = []
    for option in options:
        found = {name for name in project.qualnames(option, where.module) if name in _LITERAL_TESTS}
        if len(found) != 1:
            return None
        tests.append(_LITERAL_TESTS[found.pop()])
    return tests or None
