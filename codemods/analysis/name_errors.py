"""Assignments that always stop at a name bound nowhere (a `NameError`).

`elif name == "kubric": dataset = Kubric(root=os.path.join(args.root, ...))` in a function
that has no `args`, in a module that binds none either: the arm raises `NameError` before it
binds anything, like an arm that ends in `raise`. Only names no enclosing scope binds count,
in modules without `import *` or ways to bind names their statements do not spell out
(`globals()`, `exec`, a write to `builtins`), and only reads the statement always makes (not
behind `and` / `or`, a conditional expression, a lambda or a comprehension).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator

from .undefined_names import DYNAMIC_BINDING

_BUILTINS = frozenset(dir(builtins))
#: A module that spells one of these may bind names (its own, or every module's) at run time.
_OTHER_BINDERS = (*DYNAMIC_BINDING, "builtins")


def may_bind_otherwise(text: str) -> bool:
    """Return True if module text may bind names by other means than its statements."""
    return any(binder in text for binder in _OTHER_BINDERS)


def first_failing(block: list[ast.stmt], is_bound: Callable[[str], bool]) -> ast.stmt | None:
    """Return the first assignment at the top of `block` whose value always reads a name
    `is_bound` says no scope binds (None if there is none, or if the block jumps first).

    Only assignments are read: what a failing one would bind, and what the block bound
    before it, is what a read below the block must not see; reading every statement of
    every block costs more than it finds."""
    for statement in block:
        if isinstance(statement, ast.Return | ast.Raise | ast.Break | ast.Continue):
            return None
        if not isinstance(statement, ast.Assign | ast.AnnAssign) or statement.value is None:
            continue
        if any(
            not name.startswith("__") and name not in _BUILTINS and not is_bound(name)
            for name in _always_read(statement.value)
        ):
            return statement
    return None


def _always_read(expression: ast.expr) -> Iterator[str]:
    """Yield the names evaluating `expression` always reads."""
    pending: list[ast.AST] = [expression]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                yield node.id
        elif isinstance(node, ast.BoolOp):
            pending.append(node.values[0])
        elif isinstance(node, ast.IfExp):
            pending.append(node.test)
        elif not isinstance(
            node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
        ):
            pending.extend(ast.iter_child_nodes(node))
