"""Record the `if` statements of a function as `Branch` facts while it is summarised.

Only tests of `self.<attribute>` or of a parameter are kept (truth tests, comparisons with
literals, `not`), with the span of each body: what a construction or a call passes later
decides which body runs.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..types import Span
from .branch_facts import Branch
from .catalog import GET_WORKER_INFO
from .expression_values import compared_literals
from .facts import Kind, Value

#: Summarises an expression of the function being summarised.
Summarise = Callable[[ast.expr], Value]
#: The span of a node of the file being summarised.
SpanOf = Callable[[ast.AST], Span]


def if_branches(
    node: ast.If, orelse: Span | None, value: Summarise, span_of: SpanOf
) -> list[Branch]:
    """Return the branches `node` records; `orelse` is its `else` (or implicit `else`) block."""
    body = block_span(node.body, span_of)
    if body is None:
        return []
    if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And):
        # `if self.train and np.random.random() < p:`: what follows an operand (the rest
        # of the test and the body) runs only where that operand holds.
        found: list[Branch] = []
        operands = node.test.values
        for index, operand in enumerate(operands):
            test = _branch_test(operand, value)
            if test is None:
                continue
            rest = operands[index + 1] if index + 1 < len(operands) else node.body[0]
            start = span_of(rest)
            span = Span(start.line, start.column, body.end_line, body.end_column)
            found.append(Branch(test[0], test[1], span, None, test[2]))
        return found
    test = _branch_test(node.test, value)
    if test is None:
        return []
    subject, negated, literals = test
    return [Branch(subject, negated, body, orelse, literals)]


def block_span(body: list[ast.stmt], span_of: SpanOf) -> Span | None:
    """Return the span from the first to the last statement of `body`."""
    if not body:
        return None
    first, last = span_of(body[0]), span_of(body[-1])
    return Span(first.line, first.column, last.end_line, last.end_column)


def _branch_test(test: ast.expr, value: Summarise) -> tuple[str, bool, tuple[str, ...]] | None:
    """Return what a test reads, whether it is negated, and the literals it compares with."""
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    literals: tuple[str, ...] = ()
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        compared = compared_literals(test, value(test.comparators[0]))
        if compared is None:
            return None
        literals, flips = compared
        negated = negated != flips
        test = test.left
    subject = _branch_subject(value(test))
    return None if subject is None else (subject, negated, literals)


#: The subject of a test of what `get_worker_info()` returned: not None in every worker.
WORKER_INFO = "<worker info>"


def _branch_subject(value: Value) -> str | None:
    """Return what a branch test reads: "self.<attribute>", a parameter's name, or
    `WORKER_INFO`."""
    if (
        value.kind is Kind.CALL
        and value.base is not None
        and set(value.base.qualnames) & GET_WORKER_INFO
    ):
        return WORKER_INFO
    if value.kind is Kind.ATTRIBUTE and value.base is not None:
        return f"self.{value.name}" if value.base.kind is Kind.SELF else None
    return value.name if value.kind is Kind.PARAM else None
