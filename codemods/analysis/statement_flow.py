"""Which bindings of a name a read may see, from the lines of the statements around them.

A scope's own code runs top to bottom, except where a loop repeats it or a choice (`if`,
`match`) runs one arm of several. A plain assignment that always runs before a read (in the
read's own block or one around it) hides every binding the read could only see through it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .binding_statements import choice_arms
from .statement_order import nested_blocks, reachable

if TYPE_CHECKING:
    from .scopes import _Binding

#: First and last line of a statement or block.
Lines = tuple[int, int]


@dataclass
class StatementFlow:
    """The compound statements of a function's (or the module's) own code, by their lines."""

    #: The loops: a binding on a later line is seen by a read its next pass makes.
    loops: list[Lines] = field(default_factory=list)
    #: The `if` / `match` statements and each arm, of which one run takes at most one.
    choices: list[tuple[Lines, tuple[Lines, ...]]] = field(default_factory=list)
    #: Every compound statement and its blocks (body, `else`, handlers, `finally`, cases).
    blocks: list[tuple[Lines, tuple[Lines, ...]]] = field(default_factory=list)
    #: Blocks that end by leaving the code (`return` or `raise`), by their first line and
    #: the line of that statement: what they bind is never seen below them.
    exits: list[Lines] = field(default_factory=list)
    #: The `try` statements, within which a `raise` may be caught and a `return` runs a
    #: `finally` first: no block inside one counts as leaving.
    tries: list[Lines] = field(default_factory=list)

    def note(self, node: ast.stmt) -> None:
        """Record the lines of compound statement `node` (any other statement is ignored)."""
        lines = (node.lineno, node.end_lineno or node.lineno)
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            self.loops.append(lines)
        if isinstance(node, ast.If | ast.Match):
            self.choices.append(choice_arms(node))
        if isinstance(node, ast.Try | ast.TryStar):
            self.tries.append(lines)
        blocks = list(nested_blocks(node))
        for block in blocks:
            last = reachable(block)[-1]
            if isinstance(last, ast.Return | ast.Raise):
                self.leaves(block, last)
        if blocks:
            self.blocks.append(
                (lines, tuple((block[0].lineno, _last_line(block)) for block in blocks))
            )

    def reaching(self, bindings: list[_Binding], line: int) -> list[_Binding]:
        """Return the bindings of a function's own name that a read at `line` may see.

        Straight-line code runs top to bottom: a binding on a later line is seen only when
        a loop holds both (its next pass sees it). A binding in one arm of an `if` / `elif`
        chain (or `match`) is not seen by a read in another arm, unless a loop holds the
        whole statement. The last plain assignment that always runs before the read hides
        the bindings before it (and those a loop brings back, when it is inside that loop).
        None of them (a read before any binding, as in code that is never run that way):
        all, as without flow.
        """
        seen = [
            binding
            for binding in bindings
            if binding.line is None
            or (
                (
                    binding.line <= line
                    or any(first <= line and binding.line <= last for first, last in self.loops)
                )
                and not self._in_other_arm(binding.line, line)
                and not self._left_before(binding.line, line)
            )
        ]
        hiding = [
            binding
            for binding in seen
            if binding.line is not None
            and binding.replaces_until is not None
            and binding.replaces_until < line
            and self._always_before(binding.line, line)
        ]
        if hiding:
            last = max(hiding, key=lambda binding: binding.line or 0)
            start = last.line or 0
            seen = [
                binding
                for binding in seen
                if binding is last
                or (binding.line is not None and start < binding.line <= line)
                or (
                    binding.line is not None
                    and binding.line > line
                    and not any(first <= start and binding.line <= end for first, end in self.loops)
                )
            ]
        return seen or bindings

    def _in_other_arm(self, bound: int, read: int) -> bool:
        """Return True if lines `bound` and `read` lie in different arms of one choice that
        no loop repeats: a run that takes one arm never takes the other."""
        for (first, last), arms in self.choices:
            if not first <= read <= last or not first <= bound <= last:
                continue
            if any(start <= first and last <= end for start, end in self.loops):
                continue
            held = [index for index, (start, end) in enumerate(arms) if start <= bound <= end]
            reading = [index for index, (start, end) in enumerate(arms) if start <= read <= end]
            if held and reading and held[0] != reading[0]:
                return True
        return False

    def leaves(self, block: list[ast.stmt], statement: ast.stmt) -> None:
        """Record that a run of `block` that gets to `statement` leaves the code there,
        unless a `break` or `continue` may leave the block first."""
        if not escapes(block):
            self.exits.append((block[0].lineno, statement.lineno))

    def block_end(self, line: int) -> int | None:
        """Return the last line of the innermost block holding line `line` (None: the
        code's own top level)."""
        ends = [
            (end - start, end)
            for _, blocks in self.blocks
            for start, end in blocks
            if start <= line <= end
        ]
        return min(ends)[1] if ends else None

    def _left_before(self, bound: int, read: int) -> bool:
        """Return True if line `bound` lies in a block that then returns or raises, and
        line `read` lies below that block: a run that binds there never gets to the read
        (`elif name == "full": dataset = Full(); raise ValueError("not released")`)."""
        return any(
            first <= bound <= jump < read
            and not any(start <= first and jump <= end for start, end in self.tries)
            for first, jump in self.exits
        )

    def _always_before(self, bound: int, read: int) -> bool:
        """Return True if a run that reaches line `read` has run line `bound` (above it)
        first: every compound statement around `bound` holds `read` in the same block."""
        for (first, last), blocks in self.blocks:
            if not first <= bound <= last:
                continue
            if not first <= read <= last:
                return False
            held = [index for index, (start, end) in enumerate(blocks) if start <= bound <= end]
            reading = [index for index, (start, end) in enumerate(blocks) if start <= read <= end]
            if not held or held != reading:
                return False
        return bound < read


def _last_line(block: list[ast.stmt]) -> int:
    return block[-1].end_lineno or block[-1].lineno


def escapes(block: list[ast.stmt]) -> bool:
    """Return True if a `break` or `continue` in `block` may leave it for a loop around it."""
    pending: list[ast.AST] = list(block)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Break | ast.Continue):
            return True
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            pending.extend(node.orelse)  # the loop's own body keeps its jumps
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(
                child
                for child in ast.iter_child_nodes(node)
                if isinstance(child, ast.stmt | ast.ExceptHandler | ast.match_case)
            )
    return False
