"""Fix planning for WS102: seed from torch's per-worker, per-epoch seed.

A seed built from a constant, the worker id or the rank becomes `torch.initial_seed() % 2**32`
(keeping the rank terms), `np.random.seed()` gets that seed as its argument, and a per-item
reseed of a global RNG, or a `torch.manual_seed(...)` line torch makes redundant, is deleted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..analysis.assignment_origins import assignment_origin
from ..analysis.facts import Assignment, FunctionFacts, Kind, Value
from ..analysis.project import Project
from ..analysis.refs import FunctionRef
from ..analysis.seed_classification import SeedScope, Source, seed_sources
from ..analysis.seeds import Seeding, SinkKind, additive_terms, seedings
from ..analysis.self_calls import self_callers, subclasses
from ..types import (
    Edit,
    FileEdits,
    Fix,
    RemoveEmptiedMethod,
    RemoveStatement,
    RemoveUnreadAssignment,
    RemoveUnusedImport,
    ReplaceExpression,
    Safety,
    Span,
)
from .imports import module_reference


@dataclass(frozen=True)
class WorkerSeedFix:
    """Plans the fixes of seeding calls in one function: a worker_init_fn or per-item code."""

    project: Project
    scope: SeedScope
    #: The per-item entry method for Dataset code ("__getitem__", "__iter__"), else None.
    entry: str | None = None
    #: The function is also called directly by project code (fixing it changes those calls).
    called_directly: bool = False

    def fix(self, seeding: Seeding) -> Fix | None:
        """Return the fix of a seeding call that repeats every epoch, if there is one."""
        function = seeding.function
        facts = function.function
        per_item = self.entry not in (None, "__iter__")
        statement = seeding.span in facts.statement_calls
        if per_item:
            return self._delete_per_item(seeding, statement)
        if seeding.seed is None:
            return self._replace(seeding, seeding.call, (), fill_argument=True)
        seeds = [
            other.seed
            for other in seedings(self.project, function, self_class=self.scope.self_class)
            if other.seed is not None
        ]
        origin = assignment_origin(function, seeding.seed, seeds)
        ranks = self._rank_terms(origin)
        if ranks is None:
            return None
        if seeding.is_torch and not ranks and statement:
            title = "Delete the `torch.manual_seed(...)` line: torch seeds each worker itself"
            edits: tuple[Edit, ...] = (
                RemoveStatement(seeding.span),
                *_unread_after_fix(function, seeding.call),
            )
            return self._safety_fix(title, FileEdits(function.path, edits))
        return self._replace(seeding, origin, ranks)

    def _delete_per_item(self, seeding: Seeding, statement: bool) -> Fix | None:
        if seeding.kind is not SinkKind.GLOBAL or not statement:
            return None
        # On torch < 1.9 this leaves NumPy to the worker_init_fn WS101 adds at the loader,
        # which a per-item reseed kept here would override.
        title = "Delete the per-item reseeding: torch already seeds each worker per epoch"
        edits: tuple[Edit, ...] = (
            RemoveStatement(seeding.span),
            *_unread_after_fix(seeding.function, seeding.call),
            *self._emptied_helper(seeding.function),
        )
        return Fix(title, Safety.SAFE, (FileEdits(seeding.function.path, edits),))

    def _emptied_helper(self, function: FunctionRef) -> tuple[Edit, ...]:
        """Return the removal of a helper method of the Dataset that only reseeds
        (`self._set_random_seed(index)` in `__getitem__`), with its calls, for when the
        fix leaves it doing nothing: only when every call of it is a statement of its
        class's code in its file, and no subclass has its own."""
        owner = self.project.class_of_function(function)
        if owner is None or function.function.name == self.entry:
            return ()
        sites = self_callers(self.project, function)
        if not sites:
            return ()
        name = function.function.name
        if any(
            self.project.find_method(below, name) != (owner, function)
            for below in subclasses(self.project, owner)
        ):
            return ()  # a subclass's own version runs where the base calls it
        calls = []
        for call, caller in sites:
            if (
                caller.path != function.path
                or call.span is None
                or call.span not in caller.function.statement_calls
            ):
                return ()
            calls.append(call.span)
        return (RemoveEmptiedMethod(function.function.span, tuple(calls)),)

    def _rank_terms(self, origin: Value) -> tuple[Value, ...] | None:
        """Return the rank terms of the seed to keep; None if they cannot be kept."""
        terms = []
        for term in additive_terms(origin):
            sources = seed_sources(self.project, term, self.scope)
            if Source.RANK in sources and Source.WORKER_ID not in sources:
                terms.append(term)
        for term in terms:
            if term.span is None or origin.span is None or not _inside(term.span, origin.span):
                return None
        return tuple(terms)

    def _replace(
        self,
        seeding: Seeding,
        origin: Value,
        ranks: tuple[Value, ...],
        *,
        fill_argument: bool = False,
    ) -> Fix | None:
        function = seeding.function
        if origin.span is None:
            return None
        avoid = frozenset(function.function.params) | frozenset(
            a.target for a in function.function.assignments if "." not in a.target
        )
        torch = module_reference(function.module, "torch", "torch", avoid=avoid)
        seed = f"{torch.expression}.initial_seed()"
        if ranks:
            kept = " + ".join(f"__keep_{index}__" for index in range(len(ranks)))
            code = f"({seed} + {kept}) % 2**32"
        else:
            code = f"{seed} % 2**32"
        spans = tuple(term.span for term in ranks if term.span is not None)
        edits: list[Edit]
        if fill_argument:
            if seeding.call.args or seeding.call.keywords or seeding.call.base is None:
                return None
            callee = seeding.call.base
            if callee.span is None:
                return None
            # `np.random.seed()` seeds from OS entropy: pass torch's worker seed instead.
            edits = [ReplaceExpression(seeding.span, f"__keep_0__({code})", (callee.span,))]
        else:
            edits = [ReplaceExpression(origin.span, code, spans)]
        edits.extend(torch.imports)
        edits.extend(_unread_after_fix(function, None if fill_argument else origin))
        title = "Seed from `torch.initial_seed() % 2**32`, which changes every epoch"
        if ranks:
            title = "Seed from `torch.initial_seed()` plus the rank, which changes every epoch"
        return self._safety_fix(title, FileEdits(function.path, tuple(edits)))

    def _safety_fix(self, title: str, edits: FileEdits) -> Fix:
        safety = Safety.UNSAFE if self.called_directly else Safety.SAFE
        return Fix(title, safety, (edits,))


#: Calls whose only effect is their value: an assignment of one that nothing reads is dead.
_PURE_CALLS = frozenset(
    {
        "os.urandom",
        "os.getpid",
        "builtins.int",
        "builtins.int.from_bytes",
        "builtins.abs",
        "builtins.hash",
        "builtins.round",
        "numpy.array",
        "numpy.asarray",
        "numpy.int32",
        "numpy.int64",
        "numpy.uint32",
        "numpy.uint64",
        "time.time",
        "time.time_ns",
        "time.perf_counter",
        "secrets.randbits",
        "secrets.randbelow",
        "uuid.uuid4",
        "torch.initial_seed",
        "torch.utils.data.get_worker_info",
        "torch.utils.data._utils.worker.get_worker_info",
        "torch.distributed.get_rank",
    }
)


def _unread_after_fix(function: FunctionRef, replaced: Value | None = None) -> tuple[Edit, ...]:
    """Return removals of the function's `name = <value>` lines that the fix may leave
    unread (a `base_seed = ...` only the seeding read), and of the imports only they, or the
    `replaced` seed expression (or deleted seeding call), used; the fixer removes only what
    it does leave unread.
    A lambda or nested function reads its seed from the function enclosing it, where such a
    line is then looked for too.
    Values that do anything but compute (a call not known to be pure) stay."""
    edits: list[Edit] = []
    candidates: list[Assignment] = []
    for facts in (function.function, _enclosing(function)):
        if facts is None:
            continue
        counts = Counter(assignment.target for assignment in facts.assignments)
        unread = [
            assignment
            for assignment in facts.assignments
            if "." not in assignment.target
            and counts[assignment.target] == 1
            and assignment.target not in facts.params
            and assignment.target not in facts.nonlocals
            and _pure(assignment.value)
        ]
        candidates.extend(unread)
        edits.extend(
            RemoveUnreadAssignment(facts.span, assignment.span, assignment.target)
            for assignment in unread
        )
    called = {name for assignment in candidates for name in _calls(assignment.value)}
    if replaced is not None:
        called |= _calls(replaced)
    for name, values in function.module.bindings:
        if len(values) != 1 or values[0].kind is not Kind.NAME or len(values[0].qualnames) != 1:
            continue
        (qualname,) = values[0].qualnames
        parent, _, child = qualname.rpartition(".")
        alias = None if name == child else name
        used_through = any(call.startswith(f"{qualname}.") for call in called)
        if parent and (qualname in called or used_through):
            # Also `from datetime import datetime` for `datetime.now()`; the edit removes
            # only an import spelled so (not `import a.b as c`), and only if unused.
            edits.append(RemoveUnusedImport(parent, child, alias))
        if used_through:
            edits.append(RemoveUnusedImport(qualname, None, None if name == qualname else name))
    return tuple(edits)


def _enclosing(function: FunctionRef) -> FunctionFacts | None:
    """Return the `def` a lambda or nested function is written in (None at module level)."""
    qualname = function.function.qualname
    outer = max(qualname.rfind(".<lambda"), qualname.rfind(".<locals>."))
    if outer < 0 or qualname[:outer].endswith(">"):
        return None  # module-level, or inside another lambda
    return function.module.function(qualname[:outer])


def _calls(value: Value) -> set[str]:
    """Return the qualified names of the functions `value` calls."""
    found = set(value.base.qualnames) if value.kind is Kind.CALL and value.base else set()
    parts = [*value.args, *(keyword for _, keyword in value.keywords)]
    if value.base is not None:
        parts.append(value.base)
    for part in parts:
        found |= _calls(part)
    return found


def _pure(value: Value) -> bool:
    if value.kind in (Kind.INT, Kind.CONSTANT, Kind.PARAM, Kind.SELF, Kind.NAME):
        return True
    if _name_read(value):
        return True  # `args` of `args = parser.parse_args()`: reading it calls nothing
    if value.kind is Kind.CALL:
        if value.base is None or not value.base.qualnames:
            return False
        if not set(value.base.qualnames) <= _PURE_CALLS:
            return False
    elif value.kind not in (
        Kind.ATTRIBUTE,
        Kind.SUBSCRIPT,
        Kind.BINOP,
        Kind.SEQUENCE,
        Kind.ALTERNATIVES,
    ):
        return False
    parts = [*value.args, *(keyword for _, keyword in value.keywords)]
    if value.base is not None and value.kind is not Kind.CALL:
        parts.append(value.base)
    return all(_pure(part) for part in parts)


def merged_fix(fixes: list[Fix | None]) -> Fix | None:
    """Return one fix making the edits of every fix in `fixes` (of one cause), or None.

    Unsafe if any of them is; an edit two of them share (the assignment of a seed variable
    that several calls read) is made once.
    """
    present = [fix for fix in fixes if fix is not None]
    if len(present) <= 1:
        return present[0] if present else None
    titles = list(dict.fromkeys(fix.title for fix in present))
    title = "; ".join([titles[0], *(title[0].lower() + title[1:] for title in titles[1:])])
    safety = Safety.UNSAFE if any(fix.safety is Safety.UNSAFE for fix in present) else Safety.SAFE
    edits: dict[Path, dict[Edit, None]] = {}
    for fix in present:
        for file in fix.files:
            edits.setdefault(file.path, {}).update(dict.fromkeys(file.edits))
    files = tuple(FileEdits(path, tuple(file_edits)) for path, file_edits in edits.items())
    return Fix(title, safety, files)


def _name_read(value: Value) -> bool:
    """Return True for a read of a local name that stands for the call bound to it: the value
    keeps the span of the name, which does not hold the span of the call's callee."""
    return (
        value.kind is Kind.CALL
        and value.span is not None
        and value.base is not None
        and value.base.span is not None
        and not _inside(value.base.span, value.span)
    )


def _inside(inner: Span, outer: Span) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)
