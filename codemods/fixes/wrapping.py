"""Split a call that an added keyword pushed past the project's line length.

`DataLoader(dataset, batch_size=8, num_workers=4)` on one line may no longer fit once a fix
adds `worker_init_fn=seed_worker`. It is then split the way black and ruff's formatter split
it: the arguments on one indented line between the brackets, or, when they do not fit there
either (or already sit on such a line), one per line with a trailing comma. A statement that
was already too long is left as it is.
"""

from __future__ import annotations

import libcst as cst

_RENDER = cst.Module(body=[])


def statement_call(line: cst.SimpleStatementLine) -> cst.Call | None:
    """Return the call a one-statement line assigns, returns or evaluates."""
    if len(line.body) != 1:
        return None
    small = line.body[0]
    if isinstance(small, cst.Assign | cst.AnnAssign | cst.Return | cst.Expr):
        return small.value if isinstance(small.value, cst.Call) else None
    return None


def width(line: cst.SimpleStatementLine, indent: int) -> int:
    """Return how wide the widest line of `line` is, indented by `indent` columns."""
    code = _RENDER.code_for_node(line.with_changes(leading_lines=[]))
    return indent + max((len(text) for text in code.splitlines()), default=0)


def fitted(
    original: cst.SimpleStatementLine,
    updated: cst.SimpleStatementLine,
    *,
    indent: int,
    unit: str,
    limit: int,
) -> cst.SimpleStatementLine:
    """Return `updated`, its call split if the edit took the statement past `limit`."""
    call = statement_call(updated)
    if (
        call is None
        or not call.args
        or width(original, indent) > limit
        or width(updated, indent) <= limit
    ):
        return updated
    layout = _layout(call)
    if layout is None:
        return updated
    small = updated.body[0]

    def with_call(new: cst.Call) -> cst.SimpleStatementLine:
        return updated.with_changes(body=[small.with_changes(value=new)])

    # A trailing comma asks black for one argument per line.
    if layout == "one line" and not isinstance(call.args[-1].comma, cst.Comma):
        packed = with_call(_split(call, unit, one_per_line=False))
        if width(packed, indent) <= limit:
            return packed
    return with_call(_split(call, unit, one_per_line=True))


def _layout(call: cst.Call) -> str | None:
    """Return "one line" for a call written on one line, "packed" for one whose arguments
    share a line of their own between the brackets, and None for any other layout (one
    argument per line already, or comments, which a split must not move)."""
    if "\n" not in _RENDER.code_for_node(call):
        return "one line"
    opening, closing = call.whitespace_before_args, call.args[-1].whitespace_after_arg
    if not isinstance(opening, cst.ParenthesizedWhitespace) or opening.first_line.comment:
        return None
    if not isinstance(closing, cst.ParenthesizedWhitespace) or closing.first_line.comment:
        return None
    between = call.with_changes(
        whitespace_before_args=cst.SimpleWhitespace(""),
        args=[
            *call.args[:-1],
            call.args[-1].with_changes(whitespace_after_arg=cst.SimpleWhitespace("")),
        ],
    )
    return "packed" if "\n" not in _RENDER.code_for_node(between) else None


def _split(call: cst.Call, unit: str, *, one_per_line: bool) -> cst.Call:
    last = len(call.args) - 1
    args = []
    for index, arg in enumerate(call.args):
        if one_per_line:
            after = _line_break(unit if index < last else "")
            arg = arg.with_changes(
                comma=cst.Comma(whitespace_after=after),
                whitespace_after_arg=cst.SimpleWhitespace(""),
            )
        elif index == last:
            arg = arg.with_changes(
                comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_line_break("")
            )
        args.append(arg)
    return call.with_changes(whitespace_before_args=_line_break(unit), args=args)


def _line_break(then: str) -> cst.ParenthesizedWhitespace:
    """A line break followed by the block's indentation and `then`."""
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(then))
