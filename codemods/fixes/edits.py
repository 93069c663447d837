"""How each edit type is applied: one applier per type, registered with `stage.register`.

`apply.apply_edits` parses a file once and hands each edit to `stage`, which records what
the edit changes in the `Staging` of that file (nodes for the one transformer pass, imports
for libcst's import visitors). A new edit type is a dataclass in `types.py` (with its `span`
and `is_insertion`) and one applier here; nothing else lists the types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import singledispatch

import libcst as cst
from libcst.metadata import CodeRange

from ..errors import FixError
from ..types import (
    AddDictEntry,
    AddHelper,
    AddImport,
    AddKeyword,
    AddParameter,
    Edit,
    HoistFunction,
    InsertStatements,
    PackArguments,
    RemoveEmptiedMethod,
    RemoveStatement,
    RemoveUnreadAssignment,
    RemoveUnusedImport,
    ReplaceExpression,
    Span,
    WrapExpression,
)
from .hoist import HoistError, plan_hoist
from .transformer import EditTransformer, body_statements, is_docstring

#: Finds the node of one of `kinds` at a span (`start_only`: that starts there).
Find = Callable[..., cst.CSTNode]


@dataclass
class Staging:
    """One file's parsed module, where its nodes are, and what the edits will change."""

    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    find: Find
    find_optional: Callable[[Span, tuple[type[cst.CSTNode], ...], bool], cst.CSTNode | None]
    parents: Callable[[], Mapping[cst.CSTNode, cst.CSTNode]]
    references: Callable[[cst.FunctionDef], list[cst.CSTNode]]
    transformer: EditTransformer
    imports: list[AddImport] = field(default_factory=list)
    unused_imports: list[RemoveUnusedImport] = field(default_factory=list)
    #: Methods to remove if the edits empty them, with the calls of them to remove too.
    emptied_methods: list[tuple[cst.FunctionDef, list[cst.CSTNode]]] = field(default_factory=list)


@singledispatch
def stage(edit: Edit, staging: Staging) -> None:
    """Record what `edit` changes in `staging`."""
    raise TypeError(f"no applier for {type(edit).__name__}")


@stage.register
def _(edit: AddKeyword, staging: Staging) -> None:
    node = staging.find(edit.call, (cst.Call,))
    staging.transformer.keywords.setdefault(node, []).append((edit.keyword, edit.value))


@stage.register
def _(edit: AddDictEntry, staging: Staging) -> None:
    node = staging.find(edit.target, (cst.Dict, cst.Call))
    staging.transformer.entries.setdefault(node, []).append((edit.key, edit.value))


@stage.register
def _(edit: InsertStatements, staging: Staging) -> None:
    node = staging.find(edit.function, (cst.FunctionDef,), start_only=True)
    staging.transformer.inserts.setdefault(node, []).append((edit.code, edit.at_top))


@stage.register
def _(edit: ReplaceExpression, staging: Staging) -> None:
    node = staging.find(edit.target, (cst.BaseExpression,))
    staging.transformer.replacements[node] = edit.code
    if edit.keep:
        staging.transformer.kept[node] = [
            staging.find(span, (cst.BaseExpression,)) for span in edit.keep
        ]


@stage.register
def _(edit: HoistFunction, staging: Staging) -> None:
    try:
        plan = plan_hoist(
            edit,
            staging.module,
            staging.positions,
            staging.parents,
            staging.references,
            staging.find_optional,
        )
    except HoistError as error:
        raise FixError(f"{error}; fix not applied") from error
    staging.transformer.add_hoist(plan)


@stage.register
def _(edit: PackArguments, staging: Staging) -> None:
    staging.transformer.packs.add(staging.find(edit.call, (cst.Call,)))


@stage.register
def _(edit: WrapExpression, staging: Staging) -> None:
    node = staging.find(edit.target, (cst.BaseExpression,))
    staging.transformer.wraps[node] = (edit.before, edit.after)


@stage.register
def _(edit: RemoveStatement, staging: Staging) -> None:
    staging.transformer.removals.add(staging.find(edit.target, (cst.BaseExpression,)))


@stage.register
def _(edit: RemoveEmptiedMethod, staging: Staging) -> None:
    method = staging.find(edit.function, (cst.FunctionDef,), start_only=True)
    assert isinstance(method, cst.FunctionDef)
    calls = [staging.find(call, (cst.Call,)) for call in edit.calls]
    staging.emptied_methods.append((method, calls))


def settle(staging: Staging) -> None:
    """Decide, once every edit is staged, which methods the edits leave doing nothing: those
    go with the statements calling them."""
    transformer = staging.transformer
    for method, calls in staging.emptied_methods:
        if all(_removed(statement, method, transformer) for statement in _body(method)):
            transformer.removed_methods.add(method)
            transformer.removals.update(calls)


def _body(method: cst.FunctionDef) -> Sequence[cst.BaseStatement]:
    """Return the statements of `method` after its docstring."""
    statements = body_statements(method)
    return statements[1:] if statements and is_docstring(statements[0]) else statements


def _removed(
    statement: cst.BaseStatement, method: cst.FunctionDef, transformer: EditTransformer
) -> bool:
    """Return True if the staged edits remove `statement` of `method`: a call they remove,
    or an assignment they drop once nothing reads it (only the removed calls did)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    if any(line is statement for line, _ in transformer.unread.get(method, [])):
        return True
    return all(
        isinstance(small, cst.Expr) and small.value in transformer.removals
        for small in statement.body
    )


@stage.register
def _(edit: RemoveUnreadAssignment, staging: Staging) -> None:
    function = staging.find(edit.function, (cst.FunctionDef,), start_only=True)
    target = staging.find(edit.target, (cst.Name,))
    parents = staging.parents()
    assign = parents.get(parents.get(target, target), target)
    line = parents.get(assign)
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
    ):
        staging.transformer.unread.setdefault(function, []).append((line, edit.name))


@stage.register
def _(edit: AddHelper, staging: Staging) -> None:
    transformer = staging.transformer
    if edit.name not in transformer.helper_names:
        transformer.helpers.append(edit)
        transformer.helper_names.add(edit.name)


@stage.register
def _(edit: AddParameter, staging: Staging) -> None:
    node = staging.find(edit.definition, (cst.FunctionDef,), start_only=True)
    staging.transformer.parameters.setdefault(node, []).append((edit.name, edit.annotation))


@stage.register
def _(edit: AddImport, staging: Staging) -> None:
    staging.imports.append(edit)


@stage.register
def _(edit: RemoveUnusedImport, staging: Staging) -> None:
    staging.unused_imports.append(edit)
