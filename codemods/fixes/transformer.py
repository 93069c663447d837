"""The libcst transformer that makes the staged edits of one file in one pass.

`fixes/edits.py` records, per edit, which node changes and how; `EditTransformer` rewrites
those nodes while keeping every comment and space that is not edited.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator, Mapping
from typing import TypeVar, cast

import libcst as cst
from libcst.metadata import CodeRange

from ..errors import FixError
from ..types import AddHelper
from .arguments import append_argument, append_item, packed, quote_style
from .dead_code import DropStatements, is_pass, names_in, plain_test, reads, sets_only
from .hoist import (
    HoistPlan,
    in_place,
    insert_before,
    lambda_to_def,
    moved_def,
)
from .parameters import add_parameter
from .wrapping import fitted, fitted_loop, statement_value

CSTNodeT = TypeVar("CSTNodeT", bound=cst.CSTNode)


def _reindented(code: str, indent: str) -> str:
    """Return helper `code` (indented by four spaces) indented by `indent` instead.

    Docstrings follow too: their continuation lines are string content, which libcst
    would otherwise leave at four spaces in a module indented by two or by tabs.
    """
    code = textwrap.dedent(code)
    if indent == "    ":
        return code
    lines = []
    for line in code.splitlines(keepends=True):
        stripped = line.lstrip(" ")
        levels, extra = divmod(len(line) - len(stripped), 4)
        lines.append(indent * levels + " " * extra + stripped)
    return "".join(lines)


def _statements(code: str, newline: str = "\n") -> list[cst.BaseStatement]:
    """Parse new code, with the line endings of the module it goes into.

    Other lines take the module's line ending when it is written, but a line break inside
    a string (a helper's docstring) is kept as it was parsed.
    """
    text = textwrap.dedent(code).strip() + "\n"
    return list(cst.parse_module(text.replace("\n", newline)).body)


def body_statements(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    """Return the statements of a function's body, a one-line `def f(): x` as one line."""
    body = function.body
    if isinstance(body, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=body.body)]
    return [statement for statement in body.body if isinstance(statement, cst.BaseStatement)]


def is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def _is_import_block(statement: cst.BaseStatement) -> bool:
    """Return True for the statements that belong to a module's leading import block."""
    if isinstance(statement, cst.SimpleStatementLine):
        return all(isinstance(small, cst.Import | cst.ImportFrom) for small in statement.body)
    if isinstance(statement, cst.Try | cst.If):
        body = statement.body.body
        return bool(body) and all(
            isinstance(inner, cst.BaseStatement) and _is_import_block(inner) for inner in body
        )
    return False


class EditTransformer(cst.CSTTransformer):
    def __init__(self, line_length: int, positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        super().__init__()
        self.line_length = line_length
        self._positions = positions
        #: Where the nodes the edits name are: the pass enters only what contains one
        #: (None: everything, as a node without a position might hold one).
        self._edited: list[CodeRange] | None = None
        #: Calls given a new argument, whose statement may need splitting.
        self._grown: set[cst.CSTNode] = set()
        #: The indentation of each block being visited, outermost first.
        self._indents: list[str] = []
        self._indent_unit = "    "
        self.keywords: dict[cst.CSTNode, list[tuple[str, str]]] = {}
        self.entries: dict[cst.CSTNode, list[tuple[str, str]]] = {}
        self.inserts: dict[cst.CSTNode, list[tuple[str, bool]]] = {}
        self.parameters: dict[cst.CSTNode, list[tuple[str, str | None]]] = {}
        self.packs: set[cst.CSTNode] = set()
        self.replacements: dict[cst.CSTNode, str] = {}
        self.wraps: dict[cst.CSTNode, tuple[str, str]] = {}
        self.removals: set[cst.CSTNode] = set()
        #: Methods the edits leave doing nothing, removed with their calls (`edits.settle`).
        self.removed_methods: set[cst.CSTNode] = set()
        self._removed_lines: set[cst.CSTNode] = set()
        #: Function -> `name = ...` statements to remove if the edits leave `name` unread.
        self.unread: dict[cst.CSTNode, list[tuple[cst.SimpleStatementLine, str]]] = {}
        #: Each kept statement line -> what it became (to find an `unread` one again).
        self._lines: dict[cst.SimpleStatementLine, cst.SimpleStatementLine] = {}
        #: `elif` branches: an empty one is left to its `if`.
        self._elifs: set[cst.If] = set()
        self.helpers: list[AddHelper] = []
        self.helper_names: set[str] = set()
        self._removing: list[set[cst.CSTNode]] = []
        #: ReplaceExpression targets -> the original sub-expressions their code keeps.
        self.kept: dict[cst.CSTNode, list[cst.CSTNode]] = {}
        self._hoisted: dict[cst.CSTNode, HoistPlan] = {}
        self._hoist_before: dict[cst.CSTNode, list[HoistPlan]] = {}
        self._assignments: dict[cst.CSTNode, HoistPlan] = {}
        self._renames: dict[cst.CSTNode, str] = {}
        self._defs: dict[int, cst.FunctionDef] = {}
        self._first_statement: cst.CSTNode | None = None
        self._newline = "\n"

    def add_hoist(self, plan: HoistPlan) -> None:
        """Move a function to module level while transforming."""
        self._hoisted[plan.node] = plan
        if plan.assignment is not None:
            self._assignments[plan.assignment] = plan
        if not plan.in_place:
            self._hoist_before.setdefault(plan.top, []).append(plan)
        for name in plan.renames:
            self._renames[name] = plan.edit.name

    @property
    def pending_removals(self) -> bool:
        return bool(self.removals)

    def _edited_nodes(self) -> Iterator[cst.CSTNode]:
        """Yield every node an edit names (all are staged before the pass starts)."""
        yield from self.keywords
        yield from self.entries
        yield from self.inserts
        yield from self.parameters
        yield from self.packs
        yield from self.replacements
        yield from self.wraps
        yield from self.removals
        yield from self.unread
        for lines in self.unread.values():
            yield from (line for line, _ in lines)
        for kept in self.kept.values():
            yield from kept
        yield from self._hoisted
        yield from self._hoist_before
        yield from self._assignments
        yield from self._renames

    def on_visit(self, node: cst.CSTNode) -> bool:
        # The node's own visit hook always runs, so the stacks the hooks push stay paired
        # with its leave hook; only the children of a node that holds no edit are skipped
        # (rewriting every node of a large module costs more than the rest of a fix).
        return super().on_visit(node) and self._holds_edit(node)

    def _holds_edit(self, node: cst.CSTNode) -> bool:
        position = self._positions.get(node)
        if position is None or self._edited is None:
            return True
        start, end = position.start, position.end
        return any(
            (start.line, start.column) <= (edited.start.line, edited.start.column)
            and (edited.end.line, edited.end.column) <= (end.line, end.column)
            for edited in self._edited
        )

    # --- expressions ---

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node in self.packs:
            updated_node = packed(updated_node)
        for keyword, value in self.keywords.get(original_node, []):
            argument = cst.Arg(
                keyword=cst.Name(keyword),
                value=cst.parse_expression(value),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            )
            updated_node = append_argument(updated_node, argument)
        for key, value in self.entries.get(original_node, []):
            argument = cst.Arg(
                keyword=cst.Name(key),
                value=cst.parse_expression(value),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            )
            updated_node = append_argument(updated_node, argument)
        result = self._replace(original_node, updated_node)
        if original_node in self.keywords or original_node in self.entries:
            self._grown.add(result)
        return result

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
        for key, value in self.entries.get(original_node, []):
            quote = quote_style(updated_node)
            element = cst.DictElement(
                key=cst.SimpleString(f"{quote}{key}{quote}"),
                value=cst.parse_expression(value),
            )
            elements, closing = append_item(
                list(updated_node.elements),
                element,
                updated_node.lbrace.whitespace_after,
                updated_node.rbrace.whitespace_before,
            )
            updated_node = updated_node.with_changes(
                elements=elements,
                rbrace=updated_node.rbrace.with_changes(whitespace_before=closing),
            )
        result = self._replace(original_node, updated_node)
        if original_node in self.entries:
            self._grown.add(result)
        return result

    def on_leave(
        self, original_node: CSTNodeT, updated_node: CSTNodeT
    ) -> CSTNodeT | cst.RemovalSentinel | cst.FlattenSentinel[CSTNodeT]:
        result = super().on_leave(original_node, updated_node)
        if (
            isinstance(original_node, cst.BaseExpression)
            and (original_node in self.replacements or original_node in self.wraps)
            and not isinstance(original_node, cst.Call | cst.Dict)
            and isinstance(result, cst.BaseExpression)
        ):
            # An expression may be replaced by an expression of another node type.
            return cast(CSTNodeT, self._replace(original_node, result))
        if original_node in self._renames and isinstance(result, cst.Name):
            return cast(CSTNodeT, result.with_changes(value=self._renames[original_node]))
        if original_node in self._hoisted:
            return cast(CSTNodeT, self._hoist(self._hoisted[original_node], result))
        if original_node in self._assignments or original_node in self._hoist_before:
            return cast(CSTNodeT, self._place_defs(original_node, result))
        return result

    def _hoist(self, plan: HoistPlan, result: object) -> object:
        """Turn the moved function into a module-level def; return what stays in its place."""
        if isinstance(result, cst.Lambda):
            definition = lambda_to_def(result, plan.edit)
            self._defs[id(plan)] = definition
            if plan.edit.replaces_assignment:
                return result  # the whole statement goes
            return cst.parse_expression(plan.edit.replacement)
        if isinstance(result, cst.FunctionDef):
            self._defs[id(plan)] = moved_def(result, plan.edit)
            return cst.RemoveFromParent()
        raise FixError("the function to move was removed by another fix; fix not applied")

    def _place_defs(self, original: cst.CSTNode, result: object) -> object:
        plan = self._assignments.get(original)
        statement: cst.BaseStatement | None = None
        if isinstance(result, cst.BaseStatement):
            statement = result
        if plan is not None:
            definition = self._defs.pop(id(plan))
            if plan.in_place and isinstance(result, cst.SimpleStatementLine):
                statement = in_place(result, definition)
            else:
                lines = getattr(original, "leading_lines", [])
                comments = [line for line in lines if line.comment]
                self._defs[id(plan)] = definition.with_changes(leading_lines=comments)
                statement = None
        plans = self._hoist_before.get(original, [])
        if not plans:
            return statement if statement is not None else cst.RemoveFromParent()
        defs = [self._defs.pop(id(item)) for item in plans]
        placed = insert_before(statement, defs, first=original is self._first_statement)
        return cst.FlattenSentinel(placed)

    def visit_Module(self, node: cst.Module) -> bool:
        edited = list(self._edited_nodes())
        if all(node in self._positions for node in edited):
            self._edited = [self._positions[node] for node in edited]
        self._first_statement = node.body[0] if node.body else None
        self._newline = node.default_newline
        self._indent_unit = node.default_indent
        return True

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        self._indents.append(self._indent_unit if node.indent is None else node.indent)
        return True

    def _replace(
        self, original_node: cst.BaseExpression, updated_node: cst.BaseExpression
    ) -> cst.BaseExpression:
        code = self.replacements.get(original_node)
        wrap = self.wraps.get(original_node)
        if wrap is not None:
            inner = cst.Module(body=[]).code_for_node(updated_node.with_changes(lpar=[], rpar=[]))
            code = f"{wrap[0]}{inner}{wrap[1]}"
        if code is None:
            return updated_node
        replacement = cst.parse_expression(code)
        kept = self.kept.get(original_node)
        if kept:
            replacement = cast(cst.BaseExpression, replacement.visit(_Keep(kept)))
        if updated_node.lpar:
            replacement = replacement.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return replacement

    # --- statements ---

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self._removing.append(set())
        return True

    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.Expr:
        if original_node.value in self.removals and self._removing:
            self.removals.discard(original_node.value)
            self._removing[-1].add(original_node)
        return updated_node

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> bool:
        self._removing.append(set())
        return True

    def leave_SimpleStatementSuite(
        self, original_node: cst.SimpleStatementSuite, updated_node: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        removed = self._removing.pop()
        kept = [
            small
            for original, small in zip(original_node.body, updated_node.body, strict=True)
            if original not in removed
        ]
        return updated_node.with_changes(body=kept or [cst.Pass()])

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        removed = self._removing.pop()
        if not removed:
            if statement_value(updated_node) in self._grown:
                indent = sum(len(level) for level in self._indents)
                updated_node = fitted(
                    original_node,
                    updated_node,
                    indent=indent,
                    unit=self._indent_unit,
                    limit=self.line_length,
                )
            self._lines[original_node] = updated_node
            return updated_node
        kept = [
            small
            for original, small in zip(original_node.body, updated_node.body, strict=True)
            if original not in removed
        ]
        if not kept:
            self._removed_lines.add(original_node)
            return cst.RemoveFromParent()
        last = kept[-1]
        if isinstance(last, cst.Expr | cst.Assign | cst.AugAssign | cst.AnnAssign | cst.Pass):
            kept[-1] = last.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(body=kept)

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        if updated_node.iter in self._grown:
            indent = sum(len(level) for level in self._indents)
            return fitted_loop(
                original_node,
                updated_node,
                indent=indent,
                unit=self._indent_unit,
                limit=self.line_length,
            )
        return updated_node

    def visit_If(self, node: cst.If) -> bool:
        if isinstance(node.orelse, cst.If):
            self._elifs.add(node.orelse)
        return True

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.RemovalSentinel:
        """Remove an `if` whose block the edits left guarding nothing: only `pass`, or only
        setting the flags its test reads (`if not seeded:` + reseed + `seeded = True`)."""
        before, after = original_node.body, updated_node.body
        if (
            original_node in self._elifs
            or updated_node.orelse is not None
            or not isinstance(before, cst.IndentedBlock)
            or not isinstance(after, cst.IndentedBlock)
            or not plain_test(updated_node.test)
        ):
            return updated_node
        emptied = len(after.body) < len(before.body) or (
            len(after.body) == 1 and is_pass(after.body[0]) and not is_pass(before.body[0])
        )
        flags = {node.value for node in names_in(updated_node.test)}
        if emptied and all(is_pass(line) or sets_only(line, flags) for line in after.body):
            return cst.RemoveFromParent()
        return updated_node

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef | cst.RemovalSentinel:
        if original_node in self.removed_methods:
            return cst.RemoveFromParent()
        statements = body_statements(updated_node)
        body = updated_node.body
        if isinstance(body, cst.SimpleStatementSuite):
            body = cst.IndentedBlock(body=[])
        for code, at_top in self.inserts.get(original_node, []):
            new = _statements(code, self._newline)
            if at_top:
                index = 1 if statements and is_docstring(statements[0]) else 0
                statements[index:index] = new
            else:
                statements.extend(new)
        if not statements:
            statements = [cst.SimpleStatementLine(body=[cst.Pass()])]
        updated_node = updated_node.with_changes(body=body.with_changes(body=statements))
        for name, annotation in self.parameters.get(original_node, []):
            updated_node = add_parameter(updated_node, name, annotation)
        candidates = [
            (self._lines[line], name)
            for line, name in self.unread.get(original_node, [])
            if line in self._lines and reads(original_node, name)
        ]
        dead: set[cst.SimpleStatementLine] = set()
        while True:  # `seed = entropy + 1` going may leave `entropy` unread in turn
            more = {
                line
                for line, name in candidates
                if line not in dead and not reads(updated_node, name, dead)
            }
            if not more:
                break
            dead |= more
        if dead:
            updated_node = cast(cst.FunctionDef, updated_node.visit(DropStatements(dead)))
        return updated_node

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        self._indents.pop()
        if not updated_node.body:
            # Every statement was removed: keep the block valid.
            return updated_node.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
        first = updated_node.body[0]
        if (
            original_node.body
            and (
                original_node.body[0] in self._hoisted
                or original_node.body[0] in self._removed_lines
            )
            and isinstance(first, cst.SimpleStatementLine | cst.BaseCompoundStatement)
        ):
            # The block's first statement moved out or went: the blank line after it goes too.
            lines = list(first.leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body = [first.with_changes(leading_lines=lines), *updated_node.body[1:]]
            return updated_node.with_changes(body=body)
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.helpers:
            return updated_node
        body: list[cst.BaseStatement] = list(updated_node.body)
        defined = {
            statement.name.value
            for statement in body
            if isinstance(statement, cst.FunctionDef | cst.ClassDef)
        }
        index = 0
        while index < len(body) and (
            _is_import_block(body[index]) or (index == 0 and is_docstring(body[index]))
        ):
            index += 1
        new: list[cst.BaseStatement] = []
        for helper in self.helpers:
            if helper.name in defined:
                continue
            code = _reindented(helper.code, updated_node.default_indent)
            for position, statement in enumerate(_statements(code, self._newline)):
                blank = [cst.EmptyLine(), cst.EmptyLine()] if position == 0 else []
                if position == 0 and not index:
                    blank = []
                if isinstance(statement, cst.FunctionDef | cst.ClassDef | cst.SimpleStatementLine):
                    statement = statement.with_changes(leading_lines=blank)
                new.append(statement)
        if not new:
            return updated_node
        if index < len(body):
            follower = body[index]
            if isinstance(
                follower,
                cst.FunctionDef
                | cst.ClassDef
                | cst.SimpleStatementLine
                | cst.If
                | cst.Try
                | cst.For
                | cst.While
                | cst.With,
            ):
                lines = [line for line in follower.leading_lines if line.comment is not None]
                # Reuse its own blank lines: they keep their line endings in a file that
                # mixes them.
                blank = [line for line in follower.leading_lines if line.comment is None][:2]
                blank += [cst.EmptyLine() for _ in range(2 - len(blank))]
                follower = follower.with_changes(leading_lines=[*blank, *lines])
                body[index] = follower
        body[index:index] = new
        return updated_node.with_changes(body=body)


class _Keep(cst.CSTTransformer):
    """Put original sub-expressions in place of the `__keep_<n>__` names of new code."""

    def __init__(self, nodes: list[cst.CSTNode]) -> None:
        super().__init__()
        self.nodes = nodes

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        match = _KEEP.fullmatch(updated_node.value)
        if match is None:
            return updated_node
        kept = self.nodes[int(match.group(1))]
        assert isinstance(kept, cst.BaseExpression)
        return kept


_KEEP = re.compile(r"__keep_(\d+)__")
