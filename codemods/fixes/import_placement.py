"""Put the imports a fix adds where an import sorter (isort, ruff's `I` rules) would put them.

libcst's `AddImportsVisitor` decides what to import and merges names into an existing
`from x import ...`, but appends each new import statement after the module's last import,
below first-party and relative imports, so a file that was sorted no longer is. Here each new
statement moves into its section (future, standard library, third party, first party, local),
at its sorted place, keeping the blank lines between sections the file already has; the
names merged into a `from` import are put in sorted order too. The order is ruff's default
(isort's "profile" without options): `import x` before `from x import y` in each section,
modules compared case-insensitively, and imported names by type (CONSTANTS, Classes, others).

Anything else (imports inside `try:` or `if TYPE_CHECKING:`, a second import block further
down) is left where it is: `AddImportsVisitor` only ever adds to the module's first block.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Collection, Sequence
from pathlib import Path

import libcst as cst

__all__ = ["first_party_modules", "place_new_imports", "space_after_imports"]


class Section(enum.IntEnum):
    """An import section, in the order sorters write them."""

    FUTURE = 0
    STANDARD_LIBRARY = 1
    THIRD_PARTY = 2
    FIRST_PARTY = 3
    LOCAL = 4


def first_party_modules(root: Path) -> frozenset[str]:
    """Return the top-level modules of the project at `root`, as ruff finds them.

    A module is first party when the project root, or its `src` directory, holds a package
    directory or a `.py` file of that name (ruff's default `src = [".", "src"]`).
    """
    names: set[str] = set()
    for base in (root, root / "src"):
        try:
            entries = list(base.iterdir())
        except OSError:
            continue
        for entry in entries:
            name = entry.stem if entry.suffix in (".py", ".pyi") else entry.name
            if name.isidentifier() and (entry.suffix in (".py", ".pyi") or entry.is_dir()):
                names.add(name)
    return frozenset(names)


def _dotted(node: cst.BaseExpression | None) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _import(statement: cst.BaseStatement) -> cst.Import | cst.ImportFrom | None:
    """Return the import a statement line consists of, if it is exactly one import."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Import | cst.ImportFrom):
            return small
    return None


def _module(node: cst.Import | cst.ImportFrom) -> str:
    if isinstance(node, cst.Import):
        return _dotted(node.names[0].name)
    return _dotted(node.module)


def section(node: cst.Import | cst.ImportFrom, first_party: Collection[str]) -> Section:
    """Return the section an import belongs in (stdlib is decided before first party)."""
    if isinstance(node, cst.ImportFrom) and node.relative:
        return Section.LOCAL
    top = _module(node).partition(".")[0]
    if top == "__future__":
        return Section.FUTURE
    if top in sys.stdlib_module_names:
        return Section.STANDARD_LIBRARY
    if top in first_party:
        return Section.FIRST_PARTY
    return Section.THIRD_PARTY


def _order(node: cst.Import | cst.ImportFrom) -> tuple[int, str, str]:
    """Return the sort key of an import in its section: `import x` first, then by module."""
    module = _module(node)
    return (isinstance(node, cst.ImportFrom), module.lower(), module)


def _member_order(alias: cst.ImportAlias) -> tuple[int, str, str]:
    """Return the sort key of an imported name: CONSTANTS, then Classes, then the rest."""
    name = _dotted(alias.name)
    if len(name) > 1 and name.isupper():
        kind = 0
    elif name[:1].isupper():
        kind = 1
    else:
        kind = 2
    return (kind, name.lower(), name)


def _blank_prefix(lines: Sequence[cst.EmptyLine]) -> int:
    """Return how many of `lines` come before the first comment (they separate sections)."""
    count = 0
    for line in lines:
        if line.comment is not None:
            break
        count += 1
    return count


def _insert(
    block: list[cst.SimpleStatementLine],
    statement: cst.SimpleStatementLine,
    first_party: Collection[str],
) -> None:
    """Insert `statement` into `block` (a run of import lines) where a sorter would."""
    node = _import(statement)
    assert node is not None
    own_section = section(node, first_party)
    key = (own_section, _order(node))
    keys = []
    for existing in block:
        existing_node = _import(existing)
        assert existing_node is not None
        keys.append((section(existing_node, first_party), _order(existing_node)))
    same = [index for index, (other, _) in enumerate(keys) if other == own_section]
    if same:
        # Before the first import of the section that sorts after it, else after the last.
        later = [index for index in same if keys[index] > key]
        position = later[0] if later else same[-1] + 1
    else:
        later = [index for index, (other, _) in enumerate(keys) if other > own_section]
        position = later[0] if later else len(block)
    if position < len(block) and (not same or position in same):
        # Take the place of the statement now after it: its blank lines (a section break)
        # move up, its comments stay with it.
        following = block[position]
        lines = list(following.leading_lines)
        blanks = _blank_prefix(lines)
        new_section = not same
        statement = statement.with_changes(leading_lines=lines[:blanks])
        rest = lines[blanks:]
        block[position] = following.with_changes(
            leading_lines=[cst.EmptyLine(), *rest] if new_section else rest
        )
    elif position == len(block) and block and not same:
        # A section of its own after the others: one blank line before it.
        statement = statement.with_changes(leading_lines=[cst.EmptyLine()])
    else:
        statement = statement.with_changes(leading_lines=[])
    block.insert(position, statement)


def _merged(updated: cst.ImportFrom, added: int) -> cst.ImportFrom:
    """Return `updated` with the `added` names libcst put first moved to their sorted places.

    Names already there keep their order and their commas (and any comment after them).
    """
    if isinstance(updated.names, cst.ImportStar) or added <= 0:
        return updated
    new_names, old_names = list(updated.names[:added]), list(updated.names[added:])
    if not old_names:
        return updated
    order = list(old_names)
    for alias in sorted(new_names, key=_member_order):
        key = _member_order(alias)
        later = [index for index, other in enumerate(order) if _member_order(other) > key]
        order.insert(later[0] if later else len(order), alias)
    template = _comma_template(old_names)
    old_last = old_names[-1]
    names = []
    for index, alias in enumerate(order):
        if index == len(order) - 1:
            # The last name keeps the end of the list: no comma, or a trailing one.
            comma: cst.Comma | cst.MaybeSentinel = (
                old_last.comma if alias is old_last else _without_comment(old_last.comma)
            )
        elif alias is old_last:
            comma = _no_longer_last(alias.comma, template)
        elif isinstance(alias.comma, cst.Comma) and any(alias is old for old in old_names):
            comma = alias.comma
        else:
            comma = template
        names.append(alias.with_changes(comma=comma))
    return updated.with_changes(names=names)


def _without_comment(comma: cst.Comma | cst.MaybeSentinel) -> cst.Comma | cst.MaybeSentinel:
    """Return a trailing comma laid out like `comma`, without the comment that follows it."""
    if isinstance(comma, cst.Comma) and isinstance(
        comma.whitespace_after, cst.ParenthesizedWhitespace
    ):
        return comma.with_changes(
            whitespace_after=comma.whitespace_after.with_changes(
                first_line=cst.TrailingWhitespace(), empty_lines=[]
            )
        )
    return comma


def _no_longer_last(
    comma: cst.Comma | cst.MaybeSentinel, template: cst.Comma | cst.MaybeSentinel
) -> cst.Comma | cst.MaybeSentinel:
    """Return the comma for what was the last name: laid out as the others, its comment kept.

    A trailing comma before `)` is followed by a line at the indentation of `)`, not of the
    names; a comment after it stays on its line.
    """
    if not isinstance(comma, cst.Comma) or not isinstance(template, cst.Comma):
        return template
    own, between = comma.whitespace_after, template.whitespace_after
    if isinstance(own, cst.ParenthesizedWhitespace) and isinstance(
        between, cst.ParenthesizedWhitespace
    ):
        return template.with_changes(
            whitespace_after=between.with_changes(
                first_line=own.first_line, empty_lines=own.empty_lines
            )
        )
    return template


def _comma_template(aliases: Sequence[cst.ImportAlias]) -> cst.Comma | cst.MaybeSentinel:
    """Return a comma laid out like those between the names, without their comments."""
    for alias in aliases:
        comma = alias.comma
        if not isinstance(comma, cst.Comma):
            continue
        after = comma.whitespace_after
        if isinstance(after, cst.ParenthesizedWhitespace):
            return cst.Comma(
                whitespace_after=cst.ParenthesizedWhitespace(
                    first_line=cst.TrailingWhitespace(),
                    empty_lines=[],
                    indent=after.indent,
                    last_line=after.last_line,
                )
            )
        return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.MaybeSentinel.DEFAULT


def _first_block(module: cst.Module) -> tuple[int, int]:
    """Return where the first import block starts and ends, as `AddImportsVisitor` sees it."""
    body = module.body
    start = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1:
        first = body[0].body[0]
        docstring = isinstance(first, cst.Expr) and isinstance(first.value, cst.SimpleString)
        strict = (
            isinstance(first, cst.Assign)
            and len(first.targets) == 1
            and isinstance(first.targets[0].target, cst.Name)
            and first.targets[0].target.value == "__strict__"
        )
        start = 1 if docstring or strict else 0
    end = start
    while end < len(body) and _import(body[end]) is not None:
        end += 1
    return start, end


def place_new_imports(
    before: cst.Module, after: cst.Module, *, first_party: Collection[str] = ()
) -> cst.Module:
    """Return `after` (`before` through `AddImportsVisitor`) with its new imports sorted in.

    `first_party` names the project's own top-level modules. When `after` is not laid out as
    `AddImportsVisitor` lays it out (e.g. it added a `__future__` import), it is returned as
    it is.
    """
    start, end = _first_block(before)
    added = len(after.body) - len(before.body)
    old_block, block_after = before.body[start:end], after.body[start:end]
    new = after.body[end : end + added]
    nodes = [_import(statement) for statement in new]
    if (
        added < 0
        or not all(
            old.deep_equals(kept)
            for old, kept in zip(before.body[:start], after.body[:start], strict=True)
        )
        or [_module_of(old) for old in old_block] != [_module_of(kept) for kept in block_after]
        or any(node is None or section(node, first_party) is Section.FUTURE for node in nodes)
    ):
        return after
    block: list[cst.SimpleStatementLine] = []
    for old, updated in zip(old_block, block_after, strict=True):
        assert isinstance(updated, cst.SimpleStatementLine)
        old_node, new_node = _import(old), _import(updated)
        if (
            isinstance(old_node, cst.ImportFrom)
            and isinstance(new_node, cst.ImportFrom)
            and not isinstance(old_node.names, cst.ImportStar)
            and not isinstance(new_node.names, cst.ImportStar)
        ):
            merged = _merged(new_node, len(new_node.names) - len(old_node.names))
            updated = updated.with_changes(body=[merged])
        block.append(updated)
    for statement in new:
        assert isinstance(statement, cst.SimpleStatementLine)
        _insert(block, statement, first_party)
    if new and not old_block and start:
        # A new block after the module docstring: one blank line between them.
        block[0] = block[0].with_changes(leading_lines=[cst.EmptyLine()])
    return after.with_changes(body=[*after.body[:start], *block, *after.body[end + added :]])


def _module_of(statement: cst.BaseStatement) -> str | None:
    node = _import(statement)
    return None if node is None else _module(node)


def space_after_imports(before: cst.Module, after: cst.Module) -> cst.Module:
    """Return `after` with two blank lines between the first import block and a new def/class.

    Sorters want two blank lines before a function or class that follows the imports (one
    before other code). A fix that turns the statement after the imports into a function (a
    hoisted lambda) or inserts one there keeps the one blank line that was enough before;
    statements no fix touched are left as they are.
    """
    start, end = _first_block(after)
    if end == start or end >= len(after.body):
        return after
    following = after.body[end]
    if not isinstance(following, cst.FunctionDef | cst.ClassDef):
        return after
    if any(following.deep_equals(statement) for statement in before.body):
        return after
    lines = list(following.leading_lines)
    blanks = _blank_prefix(lines)
    if blanks >= 2 or blanks == 0:
        # No blank line at all: a file that never separated its imports; keep its style.
        return after
    spaced = following.with_changes(
        leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *lines[blanks:]]
    )
    return after.with_changes(body=[*after.body[:end], spaced, *after.body[end + 1 :]])
