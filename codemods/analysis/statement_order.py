"""Which code runs only after a statement has run: the rest of its block, and past an `if`
whose arm holds it, the code after that `if` when the arm is the one always taken; and
which code never runs: what follows a `return`, `raise`, `break` or `continue` in its block."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..types import Span


@dataclass(frozen=True)
class StatementReach:
    """A call that is a whole statement, and the code that runs only after it has run.

    `after[0]` is the rest of the block the statement is in. When that block is an arm of an
    `if`, `arms[0]` is that arm, and `after[1]` the rest of the block the `if` is in: code
    there runs after the call whenever the `if` always takes that arm; and so on outwards.
    No level passes a loop, `try`, `with` or `match` (their bodies may be left or skipped).
    """

    call: Span
    #: Innermost first; None where nothing follows in that block.
    after: tuple[Span | None, ...]
    #: `arms[i]` is the `if` arm between `after[i]` and `after[i + 1]`.
    arms: tuple[Span, ...]


def statement_reaches(
    body: list[ast.stmt], span_of: Callable[[ast.AST], Span]
) -> tuple[StatementReach, ...]:
    """Return what follows each whole-statement call of a function body (nested functions
    and classes left out)."""
    return tuple(_reaches(body, span_of, (), ()))


def _reaches(
    block: list[ast.stmt],
    span_of: Callable[[ast.AST], Span],
    outer_after: tuple[Span | None, ...],
    outer_arms: tuple[Span, ...],
) -> Iterator[StatementReach]:
    """Yield the reaches of the calls in `block`; `outer_after` / `outer_arms`: the levels
    beyond it, when `block` is an arm of an `if` (`outer_arms[0]` is `block` itself)."""
    for index, statement in enumerate(block):
        rest = _block_span(block[index + 1 :], span_of)
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            yield StatementReach(span_of(statement.value), (rest, *outer_after), outer_arms)
        if isinstance(statement, ast.If):
            for arm in (statement.body, statement.orelse):
                arm_span = _block_span(arm, span_of)
                if arm_span is not None:
                    yield from _reaches(arm, span_of, (rest, *outer_after), (arm_span, *outer_arms))
        elif not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for nested in nested_blocks(statement):
                yield from _reaches(nested, span_of, (), ())


#: Statements after which the rest of their block never runs.
_JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def reachable(block: list[ast.stmt]) -> list[ast.stmt]:
    """Return the statements of `block` up to the first that leaves it (`return`, `raise`,
    `break`, `continue`): the ones after it never run."""
    for index, statement in enumerate(block):
        if isinstance(statement, _JUMPS):
            return block[: index + 1]
    return block


def unreachable(statement: ast.stmt) -> set[int]:
    """Return the ids of the statements of `statement`'s own blocks that never run."""
    return {
        id(dead) for block in nested_blocks(statement) for dead in block[len(reachable(block)) :]
    }


def nested_blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """Yield the statement lists a compound statement holds (body, `else`, `finally`, each
    handler and case); none for any other statement."""
    for field_name in ("body", "orelse", "finalbody"):
        children = getattr(statement, field_name, None)
        if isinstance(children, list) and children and isinstance(children[0], ast.stmt):
            yield children
    for child in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
        yield child.body


def _block_span(block: list[ast.stmt], span_of: Callable[[ast.AST], Span]) -> Span | None:
    if not block:
        return None
    first, last = span_of(block[0]), span_of(block[-1])
    return Span(first.line, first.column, last.end_line, last.end_column)


#: What a handler catching "any error" names (or none: a bare `except:`).
_BROAD_ERRORS = frozenset({"Exception", "BaseException", "ValueError"})


def caught_body(node: ast.stmt) -> frozenset[int]:
    """Return the ids of the statements of a `try` body whose errors a handler catches
    broadly (`except Exception:`): code there that raises is skipped, not fatal."""
    if not isinstance(node, ast.Try | ast.TryStar):
        return frozenset()
    for handler in node.handlers:
        names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if handler.type is None or any(
            isinstance(name, ast.Name) and name.id in _BROAD_ERRORS for name in names
        ):
            return frozenset(id(statement) for statement in node.body)
    return frozenset()
