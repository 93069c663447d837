"""Statements that bind a name in a way other than an assignment: a list or a transform
container grown by a method call, a list extended with `+=`, the arms of an `if` or
`match` (a binding in one arm is not seen from another), the value variable of a loop
over `d.items()`, and the targets of an unpacking assignment."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scopes import _Scope


def choice_arms(node: ast.If | ast.Match) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]]:
    """Return the lines of an `if` (its body and its `else`, where an `elif` is an `if` of
    its own) or a `match` (each case), and those of the statement itself."""
    if isinstance(node, ast.If):
        blocks = [(block[0].lineno, block[-1]) for block in (node.body, node.orelse) if block]
    else:
        # A case's own pattern binds names too: the arm starts there.
        blocks = [(case.pattern.lineno, case.body[-1]) for case in node.cases]
    arms = tuple((start, last.end_lineno or last.lineno) for start, last in blocks)
    return (node.lineno, node.end_lineno or node.lineno), arms


def extends_sequence(node: ast.AugAssign) -> bool:
    """Return True for `name += [a, b]` (or a tuple): a list growing by known elements."""
    return (
        isinstance(node.op, ast.Add)
        and isinstance(node.target, ast.Name)
        and isinstance(node.value, ast.List | ast.Tuple)
    )


def appended(node: ast.Expr, scope: _Scope) -> tuple[ast.Name, ast.expr] | None:
    """Return the list name and what it grows by for `name.append(x)` / `name.extend(xs)`,
    when `name` is bound in `scope` to a list display."""
    call = node.value
    if (
        not isinstance(call, ast.Call)
        or not isinstance(call.func, ast.Attribute)
        or not isinstance(call.func.value, ast.Name)
        or call.func.attr not in ("append", "extend")
        or len(call.args) != 1
        or call.keywords
    ):
        return None
    name = call.func.value
    bound = scope.bindings.get(name.id, [])
    if not any(isinstance(binding.node, ast.List) for binding in bound):
        return None
    return name, _added(call)


def grown_container(node: ast.Expr, scope: _Scope) -> tuple[ast.Name, ast.Call] | None:
    """Return the name and an equivalent construction for `name.transforms.append(step)`
    (or `.extend(steps)`, `.insert(i, step)`) when `name` is bound in `scope` to a call given
    its steps as a list (`Compose([...])`): `transforms` is the list a transform container
    keeps what it was built with. Whether the call makes a container is decided when names
    are resolved; for any other class the construction holds a list nothing applies."""
    call = node.value
    if (
        not isinstance(call, ast.Call)
        or not isinstance(call.func, ast.Attribute)
        or call.func.attr not in ("append", "extend", "insert")
        or not isinstance(call.func.value, ast.Attribute)
        or call.func.value.attr != "transforms"
        or not isinstance(call.func.value.value, ast.Name)
        or call.keywords
        or len(call.args) != (2 if call.func.attr == "insert" else 1)
    ):
        return None
    name = call.func.value.value
    made = [
        binding.node
        for binding in scope.bindings.get(name.id, [])
        if isinstance(binding.node, ast.Call)
        and binding.node.args
        and isinstance(binding.node.args[0], ast.List | ast.Tuple)
    ]
    if not made:
        return None
    added = call.args[-1]
    steps = added if call.func.attr == "extend" else ast.List(elts=[added], ctx=ast.Load())
    grown = ast.Call(func=made[0].func, args=[steps], keywords=[])
    for synthesized in (steps, grown):
        ast.copy_location(synthesized, added)
        synthesized.end_lineno, synthesized.end_col_offset = added.end_lineno, added.end_col_offset
    return name, grown


def grown_attribute(node: ast.stmt) -> ast.BinOp | None:
    """Return `a.b + [x]` for a statement `a.b.append(x)` (`a.b + xs` for `.extend(xs)`)."""
    if not (
        isinstance(node, ast.Expr)
        and isinstance(call := node.value, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("append", "extend")
        and isinstance(call.func.value, ast.Attribute)
        and len(call.args) == 1
        and not isinstance(call.args[0], ast.Starred)
        and not call.keywords
    ):
        return None
    grown = ast.BinOp(call.func.value, ast.Add(), _added(call))
    return ast.copy_location(grown, call)


def _added(call: ast.Call) -> ast.expr:
    """Return what `xs.append(x)` (`[x]`, spanning `x`) or `xs.extend(ys)` (`ys`) adds."""
    added = call.args[0]
    if isinstance(call.func, ast.Attribute) and call.func.attr == "append":
        listed = ast.copy_location(ast.List(elts=[added], ctx=ast.Load()), added)
        listed.end_lineno, listed.end_col_offset = added.end_lineno, added.end_col_offset
        return listed
    return added


def dict_values(target: ast.expr, iterable: ast.expr) -> tuple[str, ast.expr] | None:
    """Return the value name of `for key, value in d.items()` and `d.values()`, if it is one."""
    if not (
        isinstance(target, ast.Tuple | ast.List)
        and len(target.elts) == 2
        and isinstance(target.elts[1], ast.Name)
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr == "items"
        and not iterable.args
        and not iterable.keywords
    ):
        return None
    method = ast.copy_location(
        ast.Attribute(value=iterable.func.value, attr="values", ctx=ast.Load()), iterable.func
    )
    values = ast.copy_location(ast.Call(func=method, args=[], keywords=[]), iterable)
    return target.elts[1].id, values


def unpacked_pairs(
    target: ast.expr, value: ast.expr | None
) -> Iterator[tuple[ast.expr, ast.expr | None]]:
    """Yield each target of an assignment with the expression it takes, where a display on
    the right gives it (`a, b = x, y`); None where it does not (`a, b = make()`)."""
    if isinstance(target, ast.Tuple | ast.List):
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
            for element, element_value in zip(target.elts, value.elts, strict=True):
                yield from unpacked_pairs(element, element_value)
        else:
            for element in target.elts:
                yield from unpacked_pairs(element, None)
    elif isinstance(target, ast.Starred):
        yield from unpacked_pairs(target.value, None)
    else:
        yield target, value
