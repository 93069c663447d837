"""Which code runs only after a statement has run: the rest of its block, and past an `if`
whose arm holds it, the code after that `if` when the arm is the one always taken; and
which code never runs: what follows a `return`, `raise`, `break` or `continue` in its block,
and the `if` arm an earlier literal store of the block rules out."""

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
        rest = _rest_span(block, index, span_of)
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


def constructions(
    body: list[ast.stmt], span_of: Callable[[ast.AST], Span]
) -> Iterator[tuple[Span, Span]]:
    """Yield each statement of a function body that makes an instance of a class-like name
    (`Clips(root)`, `data.Clips(root)`, alone or assigned), as the call, with the rest of
    its block: code that runs only if making it returns. Nested functions and classes are
    left out; so are other calls, to keep summaries small (what is not yielded is only not
    known to end its block)."""
    for index, statement in enumerate(body):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        value = statement.value if isinstance(statement, ast.Expr | ast.Assign) else None
        if isinstance(value, ast.Call) and _class_like(value.func):
            rest = _rest_span(body, index, span_of)
            if rest is not None:
                yield span_of(value), rest
        for nested in nested_blocks(statement):
            yield from constructions(nested, span_of)


def _class_like(callee: ast.expr) -> bool:
    name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
    return name[:1].isupper()


def always_raises(body: list[ast.stmt]) -> bool:
    """Return True if a function with `body` never returns: a `raise` at its top level, with
    no `return` before it (a placeholder: `raise ValueError("not released")` after some
    set-up)."""
    if not any(isinstance(statement, ast.Raise) for statement in body):
        return False  # the common case, told without walking the body
    for statement in body:
        if isinstance(statement, ast.Raise):
            return True
        if _returns(statement):
            return False
    return False


def _returns(statement: ast.stmt) -> bool:
    """Return True if `statement` may return or yield from the function it is in."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return False


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


def settled_arms(block: list[ast.stmt]) -> set[int]:
    """Return the ids of the statements of `if` arms in `block` that never run because an
    earlier statement of the block sets what the `if` tests to a literal.

    `opt = parser.parse_args()`, `opt.dataset_type = "splat"`, then `if opt.dataset_type ==
    "splat": ... else: ...`: the `else` arm never runs. A later statement that may change
    the value (stores it, hands the object on, calls a method of it, or calls a function by
    bare name, which may rebind a global) makes the value unknown again.
    """
    settled: set[int] = set()
    known: dict[str, object] = {}
    for statement in block:
        if isinstance(statement, ast.If) and known:
            taken = _test_outcome(statement.test, known)
            if taken is not None:
                settled.update(id(dead) for dead in (statement.orelse if taken else statement.body))
        if known:
            _forget_changed(statement, known)
        stored = _literal_store(statement)
        if stored is not None:
            known[stored[0]] = stored[1]
    return settled


#: Functions called by bare name that change no variable of their caller.
_INERT_BUILTINS = frozenset(
    {
        *("print", "len", "int", "float", "str", "bool", "round", "abs", "min", "max", "sum"),
        *("range", "enumerate", "zip", "sorted", "list", "tuple", "dict", "set", "isinstance"),
    }
)


def _key(expression: ast.expr) -> str | None:
    """Return `name` or `name.attribute` for an expression of that form."""
    if isinstance(expression, ast.Name):
        return expression.id
    if isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
        return f"{expression.value.id}.{expression.attr}"
    return None


def _literal_store(statement: ast.stmt) -> tuple[str, object] | None:
    """Return the key and literal of `name = literal` or `name.attribute = literal`."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return None
    key = _key(target)
    if key is None or not isinstance(value, ast.Constant):
        return None
    return key, value.value


def _literals(expression: ast.expr) -> tuple[object, ...] | None:
    if isinstance(expression, ast.Constant):
        return (expression.value,)
    if isinstance(expression, ast.Tuple | ast.List | ast.Set):
        values = [element.value for element in expression.elts if isinstance(element, ast.Constant)]
        return tuple(values) if len(values) == len(expression.elts) else None
    return None


def _test_outcome(test: ast.expr, known: dict[str, object]) -> bool | None:
    """Return whether `test` holds, where it tests a known key; None where that is not told."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _test_outcome(test.operand, known)
        return None if inner is None else not inner
    key = _key(test)
    if key is not None:
        return bool(known[key]) if key in known else None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _key(left) not in known and isinstance(op, ast.Eq | ast.NotEq):
        left, right = right, left  # `"splat" == opt.dataset_type`
    key = _key(left)
    literals = _literals(right)
    if key not in known or literals is None:
        return None
    value = known[key]
    if isinstance(op, ast.Eq | ast.NotEq) and len(literals) == 1:
        return (value == literals[0]) == isinstance(op, ast.Eq)
    if isinstance(op, ast.In | ast.NotIn) and not isinstance(right, ast.Constant):
        return (value in literals) == isinstance(op, ast.In)
    if isinstance(op, ast.Is | ast.IsNot) and any(literals[0] is v for v in (None, True, False)):
        return (value is literals[0]) == isinstance(op, ast.Is)
    return None


def _forget_changed(statement: ast.stmt, known: dict[str, object]) -> None:
    """Drop from `known` what `statement` may change."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        _forget_root(known, statement.name)  # a definition binds its name
    nodes = [node for part in _evaluated(statement) for node in ast.walk(part)]
    called = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    # `opt.batch_size` read or stored (not called): the object itself is not handed on.
    attribute_of = {
        id(node.value)
        for node in nodes
        if isinstance(node, ast.Attribute) and id(node) not in called
    }
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id not in _INERT_BUILTINS
        ):
            known.clear()  # a function of the module may rebind a global it declares
            return
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            known.pop(_key(node) or "", None)  # `opt.x = ...`, `del opt.x`
        elif isinstance(node, ast.Name) and id(node) not in attribute_of:
            # Rebound, or handed on whole (an argument, `opt.update(...)`, an alias).
            _forget_root(known, node.id)


def _evaluated(statement: ast.stmt) -> list[ast.AST]:
    """Return what running `statement` evaluates: of a definition, only its decorators,
    defaults and bases (its body runs when called, and a call by name forgets all)."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        defaults = [default for default in statement.args.kw_defaults if default is not None]
        return [*statement.decorator_list, *statement.args.defaults, *defaults]
    if isinstance(statement, ast.ClassDef):
        keywords = [keyword.value for keyword in statement.keywords]
        return [*statement.decorator_list, *statement.bases, *keywords]
    return [statement]


def _forget_root(known: dict[str, object], name: str) -> None:
    for key in [key for key in known if key.split(".")[0] == name]:
        del known[key]


def nested_blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """Yield the statement lists a compound statement holds (body, `else`, `finally`, each
    handler and case); none for any other statement."""
    for field_name in ("body", "orelse", "finalbody"):
        children = getattr(statement, field_name, None)
        if isinstance(children, list) and children and isinstance(children[0], ast.stmt):
            yield children
    for child in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
        yield child.body


def raise_skips(
    body: list[ast.stmt], span_of: Callable[[ast.AST], Span]
) -> Iterator[tuple[Span, tuple[Span, ...]]]:
    """Yield each call of `body`, a `try` body whose errors a handler catches, with the code
    that does not run when the call raises: the rest of its statement, of its block, and of
    each block around it up to `body` (the other arm of an `if` is not among them).

    What is left out only makes less code skipped: past an inner `try` or `with`, which may
    stop the error, only what follows inside; the call that takes the raising one as an
    argument (`f(g())`)."""
    yield from _skips(body, span_of, ())


def _skips(
    block: list[ast.stmt], span_of: Callable[[ast.AST], Span], outer: tuple[Span, ...]
) -> Iterator[tuple[Span, tuple[Span, ...]]]:
    for index, statement in enumerate(block):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        rest = _rest_span(block, index, span_of)
        after = outer if rest is None else (rest, *outer)
        end = span_of(statement)
        for call in _own_calls(statement):
            span = span_of(call)
            yield span, (Span(span.end_line, span.end_column, end.end_line, end.end_column), *after)
        stops = isinstance(statement, ast.Try | ast.TryStar | ast.With | ast.AsyncWith)
        for nested in nested_blocks(statement):
            yield from _skips(nested, span_of, () if stops else after)


def _own_calls(statement: ast.stmt) -> Iterator[ast.Call]:
    """Yield the calls in the expressions of `statement` itself (not in the blocks it holds,
    nor in the bodies of lambdas, which do not run there)."""
    stack = [child for child in ast.iter_child_nodes(statement) if isinstance(child, ast.expr)]
    stack.extend(item.context_expr for item in getattr(statement, "items", ()))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))


def _rest_span(
    block: list[ast.stmt], index: int, span_of: Callable[[ast.AST], Span]
) -> Span | None:
    """Return the span of the statements after `block[index]` (None if it is the last),
    without copying the block: asked for each statement, a slice made long blocks cost
    their length squared."""
    if index + 1 >= len(block):
        return None
    first, last = span_of(block[index + 1]), span_of(block[-1])
    return Span(first.line, first.column, last.end_line, last.end_column)


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
