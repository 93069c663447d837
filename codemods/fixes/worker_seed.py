"""Fix planning for WS102: seed from torch's per-worker, per-epoch seed.

A seed built from a constant, the worker id or the rank becomes `torch.initial_seed() % 2**32`
(keeping the rank terms), `np.random.seed()` gets that seed as its argument, and a per-item
reseed of a global RNG, or a `torch.manual_seed(...)` line torch makes redundant, is deleted.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.facts import Value
from ..analysis.project import Project
from ..analysis.seed_classification import SeedScope, Source, assignment_origin, seed_sources
from ..analysis.seeds import Seeding, SinkKind, additive_terms, seedings
from ..types import Edit, FileEdits, Fix, RemoveStatement, ReplaceExpression, Safety, Span
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
            return self._safety_fix(
                title, FileEdits(function.path, (RemoveStatement(seeding.span),))
            )
        return self._replace(seeding, origin, ranks)

    def _delete_per_item(self, seeding: Seeding, statement: bool) -> Fix | None:
        if seeding.kind is not SinkKind.GLOBAL or not statement:
            return None
        # On torch < 1.9 this leaves NumPy to the worker_init_fn WS101 adds at the loader,
        # which a per-item reseed kept here would override.
        title = "Delete the per-item reseeding: torch already seeds each worker per epoch"
        edits = FileEdits(seeding.function.path, (RemoveStatement(seeding.span),))
        return Fix(title, Safety.SAFE, (edits,))

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
        title = "Seed from `torch.initial_seed() % 2**32`, which changes every epoch"
        if ranks:
            title = "Seed from `torch.initial_seed()` plus the rank, which changes every epoch"
        return self._safety_fix(title, FileEdits(function.path, tuple(edits)))

    def _safety_fix(self, title: str, edits: FileEdits) -> Fix:
        safety = Safety.UNSAFE if self.called_directly else Safety.SAFE
        return Fix(title, safety, (edits,))


def _inside(inner: Span, outer: Span) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)
