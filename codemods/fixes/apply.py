"""Apply a file's `Edit`s with libcst, keeping every comment and space that is not edited.

Edits name their targets by source span (from the analysis). The fixer parses the text with
libcst, finds each target through `PositionProvider` metadata, rewrites it in one transformer
pass, then adds imports with libcst's `AddImportsVisitor`. The result must parse, or nothing
is returned.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import TypeVar

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

from ..errors import FixError
from ..types import AddImport, Edit, Span
from .code_style import DEFAULT_STYLE, CodeStyle
from .edits import Staging, settle, stage
from .import_placement import place_new_imports, space_after_imports
from .transformer import EditTransformer

__all__ = ["FixError", "apply_edits"]

CSTNodeT = TypeVar("CSTNodeT", bound=cst.CSTNode)


def apply_edits(text: str, edits: Sequence[Edit], *, style: CodeStyle = DEFAULT_STYLE) -> str:
    """Return `text` with `edits` applied; raise FixError if that is not possible.

    `style` says where the project's import sorter puts added imports, and how long a line
    its formatter keeps.
    """
    try:
        return _apply_edits(text, edits, style)
    except RecursionError as error:
        # libcst recurses once per level of nesting: a long chain like `a + b + ... + z`
        # (hundreds of terms, common in generated code) exhausts the stack.
        raise FixError("the code is nested too deeply for libcst to rewrite it") from error


def _apply_edits(text: str, edits: Sequence[Edit], style: CodeStyle) -> str:
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

    transformer = EditTransformer(style.line_length, positions)
    staging = Staging(module, positions, find, find_optional, parents, references, transformer)
    for edit in dict.fromkeys(edits):
        stage(edit, staging)
    settle(staging)
    imports, unused_imports = staging.imports, staging.unused_imports
    try:
        fixed = module.visit(transformer)
    except cst.ParserSyntaxError as error:
        raise FixError(f"a fix produced code libcst cannot parse: {error.message}") from error
    if transformer.pending_removals:
        raise FixError("a statement to remove was not found; fix not applied")
    if imports:
        with_imports = _with_imports(fixed, imports)
        fixed = place_new_imports(fixed, with_imports, first_party=style.first_party)
    if unused_imports:
        context = CodemodContext()
        for removal in dict.fromkeys(unused_imports):
            RemoveImportsVisitor.remove_unused_import(
                context, removal.module, removal.obj, removal.asname
            )
        fixed = RemoveImportsVisitor(context).transform_module(fixed)
    code = space_after_imports(module, fixed).code
    if unused_imports and code[:1] in "\r\n" and text[:1] not in "\r\n":
        # Removing a file's first import leaves the blank line that followed it on top.
        code = code.lstrip("\r\n")
    if lost and not code.endswith(lost):
        code += lost
    try:
        ast.parse(code)
    except SyntaxError as error:
        raise FixError(f"the fixed code would not parse ({error.msg}); not applied") from error
    return code


def _with_imports(module: cst.Module, imports: Sequence[AddImport]) -> cst.Module:
    """Return `module` through libcst's `AddImportsVisitor`, adding `imports`.

    The visitor reads and changes only the module's head: its docstring, the import block
    that follows, and the first statement after it (given a blank line). It copies and walks
    the whole module, though, which for a large file costs more than the rest of a fix: it is
    given the head alone, and the rest of the body is put back after it.
    """
    end = 1  # the first statement, a docstring or an import, may open the head
    body = module.body
    while end < len(body) and _imports_only(body[end]):
        end += 1
    head = module.with_changes(body=body[: end + 1])
    context = CodemodContext()
    for item in dict.fromkeys(imports):
        AddImportsVisitor.add_needed_import(context, item.module, item.obj, item.asname)
    added = AddImportsVisitor(context).transform_module(head)
    return added.with_changes(body=[*added.body, *body[end + 1 :]])


def _imports_only(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Import | cst.ImportFrom) for small in statement.body
    )
