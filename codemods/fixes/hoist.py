"""Move a lambda or a nested `def` to module level (the `HoistFunction` edit), with libcst."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange

from ..types import HoistFunction, Span


class HoistError(Exception):
    """The code at the target does not have the shape the edit expects."""


@dataclass
class HoistPlan:
    """Where a hoisted function comes from and where its def goes."""

    edit: HoistFunction
    #: The `cst.Lambda` or nested `cst.FunctionDef` being moved.
    node: cst.CSTNode
    #: The module-level statement the def goes before (or replaces).
    top: cst.CSTNode
    #: For `replaces_assignment`: the statement `name = lambda ...`.
    assignment: cst.CSTNode | None = None
    #: Name nodes to rename (uses of a nested def that gets a new name).
    renames: list[cst.CSTNode] = field(default_factory=list)

    @property
    def in_place(self) -> bool:
        """Return True when the def replaces the module-level assignment itself."""
        return self.assignment is not None and self.assignment is self.top


def plan_hoist(
    edit: HoistFunction,
    module: cst.Module,
    positions: Mapping[cst.CSTNode, CodeRange],
    parents: Callable[[], Mapping[cst.CSTNode, cst.CSTNode]],
    references: Callable[[cst.FunctionDef], Sequence[cst.CSTNode]],
    find: Callable[[Span, tuple[type[cst.CSTNode], ...], bool], cst.CSTNode | None],
) -> HoistPlan:
    """Locate the function `edit` moves and the statement its def goes before."""
    node = find(edit.target, (cst.Lambda,), False) or find(edit.target, (cst.FunctionDef,), True)
    if node is None:
        raise HoistError(f"the code at line {edit.target.line} has changed")
    top = _top_statement(module, positions, positions[node])
    plan = HoistPlan(edit, node, top)
    if isinstance(node, cst.Lambda) and edit.replaces_assignment:
        plan.assignment = _assignment_of(node, edit.name, parents())
    if isinstance(node, cst.FunctionDef) and node.name.value != edit.name:
        plan.renames = [ref for ref in references(node) if isinstance(ref, cst.Name)]
    return plan


def _top_statement(
    module: cst.Module, positions: Mapping[cst.CSTNode, CodeRange], where: CodeRange
) -> cst.CSTNode:
    for statement in module.body:
        span = positions[statement]
        if (span.start.line, span.start.column) <= (where.start.line, where.start.column) and (
            where.end.line,
            where.end.column,
        ) <= (span.end.line, span.end.column):
            return statement
    raise HoistError("the function is not inside a module-level statement")


def _assignment_of(
    node: cst.Lambda, name: str, parents: Mapping[cst.CSTNode, cst.CSTNode]
) -> cst.CSTNode:
    assign = parents.get(node)
    line = parents.get(assign) if assign is not None else None
    if (
        isinstance(assign, cst.Assign)
        and assign.value is node
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == name
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
    ):
        return line
    raise HoistError(f"`{name} = lambda ...` is not a statement of its own")


def lambda_to_def(node: cst.Lambda, edit: HoistFunction) -> cst.FunctionDef:
    """Return `def name(params): <body>` for a lambda (a call body is a statement)."""
    body = node.body
    statement: cst.BaseSmallStatement = (
        cst.Expr(body) if isinstance(body, cst.Call) else cst.Return(body)
    )
    return cst.FunctionDef(
        name=cst.Name(edit.name),
        params=_with_leading(node.params, edit.leading_params),
        body=cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[statement])]),
    )


def moved_def(node: cst.FunctionDef, edit: HoistFunction) -> cst.FunctionDef:
    """Return a nested def as it reads at module level (renamed, with leading params)."""
    return node.with_changes(
        name=node.name.with_changes(value=edit.name),
        params=_with_leading(node.params, edit.leading_params),
    )


def _with_leading(params: cst.Parameters, names: tuple[str, ...]) -> cst.Parameters:
    if not names:
        return params
    new = [cst.Param(cst.Name(name)) for name in names]
    if params.posonly_params:
        return params.with_changes(posonly_params=[*new, *params.posonly_params])
    return params.with_changes(params=[*new, *params.params])


def _comments(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    return [line for line in lines if line.comment is not None]


def insert_before(
    statement: cst.BaseStatement | None, defs: Sequence[cst.FunctionDef], *, first: bool
) -> list[cst.BaseStatement]:
    """Return `defs` followed by `statement`, two blank lines apart; comments stay put."""
    result: list[cst.BaseStatement] = []
    for index, definition in enumerate(defs):
        blank = [] if first and index == 0 else [cst.EmptyLine(), cst.EmptyLine()]
        result.append(
            definition.with_changes(leading_lines=[*blank, *_comments(definition.leading_lines)])
        )
    if statement is None:
        return result
    lines = list(getattr(statement, "leading_lines", []))
    cut = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
    if hasattr(statement, "leading_lines"):
        statement = statement.with_changes(
            leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *lines[cut:]]
        )
    result.append(statement)
    return result


def in_place(statement: cst.SimpleStatementLine, definition: cst.FunctionDef) -> cst.FunctionDef:
    """Return the def that replaces `name = lambda ...`, keeping its comments."""
    body = definition.body
    assert isinstance(body, cst.IndentedBlock)
    trailing = statement.trailing_whitespace
    return definition.with_changes(
        leading_lines=statement.leading_lines,
        body=body.with_changes(header=trailing) if trailing.comment else body,
    )
