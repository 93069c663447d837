"""Apply a file's `Edit`s with libcst, keeping every comment and space that is not edited.

Edits name their targets by source span (from the analysis). The fixer parses the text with
libcst, finds each target through `PositionProvider` metadata, rewrites it in one transformer
pass, then adds imports with libcst's `AddImportsVisitor`. The result must parse, or nothing
is returned.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Collection, Mapping, Sequence
from typing import TypeVar, cast

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

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
    RemoveStatement,
    RemoveUnusedImport,
    ReplaceExpression,
    Span,
    WrapExpression,
)
from .hoist import (
    HoistError,
    HoistPlan,
    in_place,
    insert_before,
    lambda_to_def,
    moved_def,
    plan_hoist,
)
from .import_placement import place_new_imports, space_after_imports
from .parameters import add_parameter

CSTNodeT = TypeVar("CSTNodeT", bound=cst.CSTNode)


class FixError(Exception):
    """A fix could not be applied (its target is gone, or the result would not parse)."""


def apply_edits(text: str, edits: Sequence[Edit], *, first_party: Collection[str] = ()) -> str:
    """Return `text` with `edits` applied; raise FixError if that is not possible.

    `first_party` names the project's top-level modules, so added imports are sorted in.
    """
    try:
        return _apply_edits(text, edits, first_party)
    except RecursionError as error:
        # libcst recurses once per level of nesting: a long chain like `a + b + ... + z`
        # (hundreds of terms, common in generated code) exhausts the stack.
        raise FixError("the code is nested too deeply for libcst to rewrite it") from error


def _apply_edits(text: str, edits: Sequence[Edit], first_party: Collection[str]) -> str:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        raise FixError(f"libcst cannot parse the file: {error.message}") from error
    # libcst drops the last line ending of a file whose lines end in a lone "\r"; it is put
    # back below. Any other difference would change lines no fix touches: refuse.
    unchanged = module.code
    lost = "\r" if unchanged + "\r" == text else ""
    if unchanged + lost != text:
        raise FixError("libcst cannot reproduce the file exactly")
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    by_span: dict[tuple[int, int, int, int], list[cst.CSTNode]] = {}
    by_start: dict[tuple[int, int], list[cst.CSTNode]] = {}
    for node, position in positions.items():
        start, end = position.start, position.end
        by_span.setdefault((start.line, start.column, end.line, end.column), []).append(node)
        by_start.setdefault((start.line, start.column), []).append(node)

    def find(
        span: Span, kinds: tuple[type[cst.CSTNode], ...], *, start_only: bool = False
    ) -> cst.CSTNode:
        if start_only:
            nodes = by_start.get((span.line, span.column), [])
        else:
            nodes = by_span.get((span.line, span.column, span.end_line, span.end_column), [])
        matches = [node for node in nodes if isinstance(node, kinds)]
        if not matches and not start_only:
            # ast counts a tuple's parentheses as part of it; libcst's position excludes them.
            inner = (span.line, span.column + 1, span.end_line, span.end_column - 1)
            matches = [
                node
                for node in by_span.get(inner, [])
                if isinstance(node, cst.Tuple) and isinstance(node, kinds) and node.lpar
            ]
        if not matches:
            raise FixError(f"the code at line {span.line} has changed; fix not applied")
        return matches[0]

    def find_optional(
        span: Span, kinds: tuple[type[cst.CSTNode], ...], start_only: bool
    ) -> cst.CSTNode | None:
        try:
            return find(span, kinds, start_only=start_only)
        except FixError:
            return None

    def parents() -> Mapping[cst.CSTNode, cst.CSTNode]:
        return wrapper.resolve(ParentNodeProvider)

    def references(node: cst.FunctionDef) -> list[cst.CSTNode]:
        scope = wrapper.resolve(ScopeProvider).get(node)
        if scope is None:
            return []
        return [
            access.node
            for assignment in scope.assignments[node.name.value]
            if getattr(assignment, "node", None) is node
            for access in assignment.references
        ]

    transformer = _Transformer()
    imports: list[AddImport] = []
    unused_imports: list[RemoveUnusedImport] = []
    for edit in dict.fromkeys(edits):
        if isinstance(edit, AddKeyword):
            node = find(edit.call, (cst.Call,))
            transformer.keywords.setdefault(node, []).append((edit.keyword, edit.value))
        elif isinstance(edit, AddDictEntry):
            node = find(edit.target, (cst.Dict, cst.Call))
            transformer.entries.setdefault(node, []).append((edit.key, edit.value))
        elif isinstance(edit, InsertStatements):
            node = find(edit.function, (cst.FunctionDef,), start_only=True)
            transformer.inserts.setdefault(node, []).append((edit.code, edit.at_top))
        elif isinstance(edit, ReplaceExpression):
            node = find(edit.target, (cst.BaseExpression,))
            transformer.replacements[node] = edit.code
            if edit.keep:
                transformer.kept[node] = [find(span, (cst.BaseExpression,)) for span in edit.keep]
        elif isinstance(edit, HoistFunction):
            try:
                plan = plan_hoist(edit, module, positions, parents, references, find_optional)
            except HoistError as error:
                raise FixError(f"{error}; fix not applied") from error
            transformer.add_hoist(plan)
        elif isinstance(edit, PackArguments):
            transformer.packs.add(find(edit.call, (cst.Call,)))
        elif isinstance(edit, WrapExpression):
            node = find(edit.target, (cst.BaseExpression,))
            transformer.wraps[node] = (edit.before, edit.after)
        elif isinstance(edit, RemoveStatement):
            node = find(edit.target, (cst.BaseExpression,))
            transformer.removals.add(node)
        elif isinstance(edit, AddHelper):
            if edit.name not in transformer.helper_names:
                transformer.helpers.append(edit)
                transformer.helper_names.add(edit.name)
        elif isinstance(edit, AddParameter):
            node = find(edit.definition, (cst.FunctionDef,), start_only=True)
            transformer.parameters.setdefault(node, []).append((edit.name, edit.annotation))
        elif isinstance(edit, AddImport):
            imports.append(edit)
        elif isinstance(edit, RemoveUnusedImport):
            unused_imports.append(edit)
    try:
        fixed = module.visit(transformer)
    except cst.ParserSyntaxError as error:
        raise FixError(f"a fix produced code libcst cannot parse: {error.message}") from error
    if transformer.pending_removals:
        raise FixError("a statement to remove was not found; fix not applied")
    if imports:
        context = CodemodContext()
        for item in dict.fromkeys(imports):
            AddImportsVisitor.add_needed_import(context, item.module, item.obj, item.asname)
        with_imports = AddImportsVisitor(context).transform_module(fixed)
        fixed = place_new_imports(fixed, with_imports, first_party=first_party)
    if unused_imports:
        context = CodemodContext()
        for removal in dict.fromkeys(unused_imports):
            RemoveImportsVisitor.remove_unused_import(
                context, removal.module, removal.obj, removal.asname
            )
        fixed = RemoveImportsVisitor(context).transform_module(fixed)
    code = space_after_imports(module, fixed).code
    if lost and not code.endswith(lost):
        code += lost
    try:
        ast.parse(code)
    except SyntaxError as error:
        raise FixError(f"the fixed code would not parse ({error.msg}); not applied") from error
    return code


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


def _is_docstring(statement: cst.BaseStatement) -> bool:
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


def _has_newline(whitespace: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace)


class _Transformer(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self.keywords: dict[cst.CSTNode, list[tuple[str, str]]] = {}
        self.entries: dict[cst.CSTNode, list[tuple[str, str]]] = {}
        self.inserts: dict[cst.CSTNode, list[tuple[str, bool]]] = {}
        self.parameters: dict[cst.CSTNode, list[tuple[str, str | None]]] = {}
        self.packs: set[cst.CSTNode] = set()
        self.replacements: dict[cst.CSTNode, str] = {}
        self.wraps: dict[cst.CSTNode, tuple[str, str]] = {}
        self.removals: set[cst.CSTNode] = set()
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

    # --- expressions ---

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node in self.packs:
            updated_node = _packed(updated_node)
        for keyword, value in self.keywords.get(original_node, []):
            argument = cst.Arg(
                keyword=cst.Name(keyword),
                value=cst.parse_expression(value),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            )
            updated_node = updated_node.with_changes(
                args=_append(list(updated_node.args), argument, updated_node.whitespace_before_args)
            )
        for key, value in self.entries.get(original_node, []):
            argument = cst.Arg(
                keyword=cst.Name(key),
                value=cst.parse_expression(value),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            )
            updated_node = updated_node.with_changes(
                args=_append(list(updated_node.args), argument, updated_node.whitespace_before_args)
            )
        return self._replace(original_node, updated_node)

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
        for key, value in self.entries.get(original_node, []):
            quote = _quote_style(updated_node)
            element = cst.DictElement(
                key=cst.SimpleString(f"{quote}{key}{quote}"),
                value=cst.parse_expression(value),
            )
            updated_node = updated_node.with_changes(
                elements=_append(
                    list(updated_node.elements), element, updated_node.lbrace.whitespace_after
                )
            )
        return self._replace(original_node, updated_node)

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
        self._first_statement = node.body[0] if node.body else None
        self._newline = node.default_newline
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
            return updated_node
        kept = [
            small
            for original, small in zip(original_node.body, updated_node.body, strict=True)
            if original not in removed
        ]
        if not kept:
            return cst.RemoveFromParent()
        last = kept[-1]
        if isinstance(last, cst.Expr | cst.Assign | cst.AugAssign | cst.AnnAssign | cst.Pass):
            kept[-1] = last.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(body=kept)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        body = updated_node.body
        statements: list[cst.BaseStatement]
        if isinstance(body, cst.SimpleStatementSuite):
            statements = [cst.SimpleStatementLine(body=body.body)]
            body = cst.IndentedBlock(body=[])
        else:
            statements = [
                statement for statement in body.body if isinstance(statement, cst.BaseStatement)
            ]
        for code, at_top in self.inserts.get(original_node, []):
            new = _statements(code, self._newline)
            if at_top:
                index = 1 if statements and _is_docstring(statements[0]) else 0
                statements[index:index] = new
            else:
                statements.extend(new)
        if not statements:
            statements = [cst.SimpleStatementLine(body=[cst.Pass()])]
        updated_node = updated_node.with_changes(body=body.with_changes(body=statements))
        for name, annotation in self.parameters.get(original_node, []):
            updated_node = add_parameter(updated_node, name, annotation)
        return updated_node

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if not updated_node.body:
            # Every statement was removed: keep the block valid.
            return updated_node.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
        first = updated_node.body[0]
        if (
            original_node.body
            and original_node.body[0] in self._hoisted
            and isinstance(first, cst.SimpleStatementLine | cst.BaseCompoundStatement)
        ):
            # The block's first statement moved out: the blank line after it goes too.
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
            _is_import_block(body[index]) or (index == 0 and _is_docstring(body[index]))
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


def _packed(call: cst.Call) -> cst.Call:
    """Return `call` with its arguments as one tuple, keeping what lies between them."""
    elements: list[cst.BaseElement] = []
    for arg in call.args:
        if arg.star == "*":
            starred = cst.StarredElement(
                value=arg.value, comma=arg.comma, whitespace_before_value=arg.whitespace_after_star
            )
            elements.append(starred)
        else:
            elements.append(cst.Element(value=arg.value, comma=arg.comma))
    closing = call.args[-1].whitespace_after_arg if call.args else cst.SimpleWhitespace("")
    shape = cst.Tuple(
        elements=elements,
        lpar=[cst.LeftParen(whitespace_after=call.whitespace_before_args)],
        rpar=[cst.RightParen(whitespace_before=closing)],
    )
    return call.with_changes(
        args=[cst.Arg(value=shape)], whitespace_before_args=cst.SimpleWhitespace("")
    )


def _quote_style(node: cst.Dict) -> str:
    for element in node.elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
            return element.key.quote if element.key.quote in ("'", '"') else '"'
    return '"'


def _append(items: list, new, opening_whitespace: cst.BaseParenthesizableWhitespace) -> list:  # type: ignore[type-arg, no-untyped-def]  # Arg or DictElement
    """Append `new` to a comma-separated sequence, following its layout (one per line or not)."""
    if not items:
        return [new]
    last = items[-1]
    trailing = last.comma
    multiline = _has_newline(opening_whitespace) or any(
        isinstance(item.comma, cst.Comma) and _has_newline(item.comma.whitespace_after)
        for item in items
    )
    if isinstance(trailing, cst.Comma):
        # `f(\n    a,\n    b,\n)`: the new item takes the closing comma; `b` gets a separator.
        separator = (
            items[-2].comma if len(items) > 1 else cst.Comma(whitespace_after=opening_whitespace)
        )
        if not isinstance(separator, cst.Comma):
            separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return [*items[:-1], last.with_changes(comma=separator), new.with_changes(comma=trailing)]
    if multiline and len(items) > 1 and isinstance(items[-2].comma, cst.Comma):
        separator = items[-2].comma
    elif multiline:
        separator = cst.Comma(whitespace_after=opening_whitespace)
    else:
        separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    moved = {}
    if isinstance(last, cst.Arg):
        moved = {"whitespace_after_arg": last.whitespace_after_arg}
        last = last.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
    return [*items[:-1], last.with_changes(comma=separator), new.with_changes(**moved)]
