"""Split a call or dict display that an added entry pushed past the project's line length.

`DataLoader(dataset, batch_size=8, num_workers=4)` on one line may no longer fit once a fix
adds `worker_init_fn=seed_worker` (nor `options = {"batch_size": 8, ...}` once it adds
`"worker_init_fn": seed_worker`). It is then split the way black and ruff's formatter split
it: a call's arguments on one indented line between the brackets, or, when they do not fit
there either (or already sit on such a line), one per line with a trailing comma, as a dict's
entries always are. The same holds for the call a `for` loop iterates over (`for batch in
DataLoader(...):`), split inside the header as black splits it. A statement that was already
too long is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

_RENDER = cst.Module(body=[])


def statement_value(line: cst.SimpleStatementLine) -> cst.Call | cst.Dict | None:
    """Return the call or dict display a one-statement line assigns, returns or evaluates."""
    if len(line.body) != 1:
        return None
    small = line.body[0]
    if isinstance(small, cst.Assign | cst.AnnAssign | cst.Return | cst.Expr):
        return small.value if isinstance(small.value, cst.Call | cst.Dict) else None
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
    """Return `updated`, its call or dict split if the edit took the statement past `limit`."""
    value = statement_value(updated)
    if value is None or width(original, indent) > limit:
        return updated
    small = updated.body[0]

    def with_value(new: cst.Call | cst.Dict) -> cst.SimpleStatementLine:
        return updated.with_changes(body=[small.with_changes(value=new)])

    split = _split_to_fit(value, lambda new: width(with_value(new), indent), unit, limit)
    return updated if split is None else with_value(split)


def fitted_loop(
    original: cst.For, updated: cst.For, *, indent: int, unit: str, limit: int
) -> cst.For:
    """Return `updated`, the call or dict it loops over split if the edit took its header
    (`for batch in DataLoader(...):`) past `limit`."""
    value = updated.iter
    if not isinstance(value, cst.Call | cst.Dict) or _header_width(original, indent) > limit:
        return updated
    split = _split_to_fit(
        value, lambda new: _header_width(updated.with_changes(iter=new), indent), unit, limit
    )
    return updated if split is None else updated.with_changes(iter=split)


def _header_width(loop: cst.For, indent: int) -> int:
    """Return how wide the widest line of the header of `loop` is, indented by `indent`."""
    body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
    code = _RENDER.code_for_node(loop.with_changes(body=body, orelse=None, leading_lines=[]))
    header = code.splitlines()[:-1]
    return indent + max((len(text) for text in header), default=0)


def _split_to_fit(
    value: cst.Call | cst.Dict, measure: Callable[[cst.Call | cst.Dict], int], unit: str, limit: int
) -> cst.Call | cst.Dict | None:
    """Return `value` split the way black splits it, if `measure` (how wide the code that
    holds it is) takes it past `limit`; None when it fits, or its layout is not to be touched."""
    items = value.args if isinstance(value, cst.Call) else value.elements
    if not items or measure(value) <= limit:
        return None
    layout = _layout(value)
    if layout is None:
        return None
    # A trailing comma asks black for one item per line; a collection that does not fit on
    # one line always gets one item per line.
    if (
        layout == "one line"
        and isinstance(value, cst.Call)
        and not isinstance(items[-1].comma, cst.Comma)
    ):
        packed = _split_any(value, unit, one_per_line=False)
        if measure(packed) <= limit:
            return packed
    return _split_any(value, unit, one_per_line=True)


def _layout(value: cst.Call | cst.Dict) -> str | None:
    """Return "one line" for a call or dict written on one line, "packed" for one whose items
    share a line of their own between the brackets, and None for any other layout (one
    item per line already, or comments, which a split must not move)."""
    if "\n" not in _RENDER.code_for_node(value):
        return "one line"
    if isinstance(value, cst.Dict):
        opening, closing = value.lbrace.whitespace_after, value.rbrace.whitespace_before
    else:
        opening, closing = value.whitespace_before_args, value.args[-1].whitespace_after_arg
    if not isinstance(opening, cst.ParenthesizedWhitespace) or opening.first_line.comment:
        return None
    if not isinstance(closing, cst.ParenthesizedWhitespace) or closing.first_line.comment:
        return None
    return "packed" if "\n" not in _RENDER.code_for_node(_joined(value)) else None


def _joined(value: cst.Call | cst.Dict) -> cst.Call | cst.Dict:
    """Return `value` without the line breaks after its opening and before its closing."""
    flat = cst.SimpleWhitespace("")
    if isinstance(value, cst.Dict):
        return value.with_changes(
            lbrace=value.lbrace.with_changes(whitespace_after=flat),
            rbrace=value.rbrace.with_changes(whitespace_before=flat),
        )
    return value.with_changes(
        whitespace_before_args=flat,
        args=[*value.args[:-1], value.args[-1].with_changes(whitespace_after_arg=flat)],
    )


def _split_any(value: cst.Call | cst.Dict, unit: str, *, one_per_line: bool) -> cst.Call | cst.Dict:
    """Break `value` after its opening bracket and before its closing one, and, with
    `one_per_line`, after each item, which then all end in a comma."""
    items = value.args if isinstance(value, cst.Call) else value.elements
    last = len(items) - 1
    split = []
    for index, item in enumerate(items):
        if one_per_line:
            comma = cst.Comma(whitespace_after=_line_break(unit if index < last else ""))
            item = item.with_changes(comma=comma)
        elif index == last:
            item = item.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if isinstance(item, cst.Arg) and (one_per_line or index == last):
            # What follows an argument before its comma, or before the closing bracket.
            gap = cst.SimpleWhitespace("") if one_per_line else _line_break("")
            item = item.with_changes(whitespace_after_arg=gap)
        split.append(item)
    if isinstance(value, cst.Call):
        return value.with_changes(whitespace_before_args=_line_break(unit), args=split)
    closing = cst.SimpleWhitespace("") if one_per_line else _line_break("")
    return value.with_changes(
        lbrace=value.lbrace.with_changes(whitespace_after=_line_break(unit)),
        elements=split,
        rbrace=value.rbrace.with_changes(whitespace_before=closing),
    )


def _line_break(then: str) -> cst.ParenthesizedWhitespace:
    """A line break followed by the block's indentation and `then`."""
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(then))
