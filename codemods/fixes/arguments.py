"""Adding an item to a call's arguments or a dict's entries, in the layout they already have.

A new keyword goes after the last item, on its own line when the items are one per line,
and no comment is copied or moved: a trailing comment stays on the line it was on.
"""

from __future__ import annotations

from typing import TypeVar

import libcst as cst

#: An item of a comma-separated sequence: a call's argument or a dict's entry.
ItemT = TypeVar("ItemT", cst.Arg, cst.BaseDictElement)


def _has_newline(whitespace: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace)


def packed(call: cst.Call) -> cst.Call:
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


def append_argument(call: cst.Call, argument: cst.Arg) -> cst.Call:
    """Return `call` with `argument` last."""
    args = list(call.args)
    closing: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace("")
    if args:
        closing = args[-1].whitespace_after_arg
        args[-1] = args[-1].with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
    args, closing = append_item(args, argument, call.whitespace_before_args, closing)
    args[-1] = args[-1].with_changes(whitespace_after_arg=closing)
    return call.with_changes(args=args)


def quote_style(node: cst.Dict) -> str:
    for element in node.elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
            return element.key.quote if element.key.quote in ("'", '"') else '"'
    return '"'


def append_item(
    items: list[ItemT],
    new: ItemT,
    opening_whitespace: cst.BaseParenthesizableWhitespace,
    closing: cst.BaseParenthesizableWhitespace,
) -> tuple[list[ItemT], cst.BaseParenthesizableWhitespace]:
    """Append `new` to a comma-separated sequence, following its layout (one per line or not).

    `closing` is the space before the closing bracket when there is no trailing comma. Return
    the new items and the new `closing`. Every comment stays where it was: one after the last
    item stays on that item's line, comment lines before the bracket stay before the bracket,
    and the separator copied for the new item carries none.
    """
    if not items:
        return [new], closing
    last = items[-1]
    trailing = last.comma if isinstance(last.comma, cst.Comma) else None
    end = trailing.whitespace_after if trailing is not None else closing
    if len(items) > 1 and isinstance(items[-2].comma, cst.Comma):
        separator = _without_comments(items[-2].comma.whitespace_after)
    elif _has_newline(opening_whitespace):
        separator = _without_comments(opening_whitespace)
    else:
        separator = cst.SimpleWhitespace(" ")
    if isinstance(end, cst.ParenthesizedWhitespace) and end.first_line.comment is not None:
        # `b,  # why` then `)`: the comment stays after `b`, the new item goes on a line of its own.
        if isinstance(separator, cst.ParenthesizedWhitespace):
            indent = separator.last_line
        else:
            indent = cst.SimpleWhitespace(end.last_line.value + "    ")
        separator = cst.ParenthesizedWhitespace(
            first_line=end.first_line, indent=True, last_line=indent
        )
    end = _without_trailing_comment(end)
    whitespace_before = (
        trailing.whitespace_before if trailing is not None else cst.SimpleWhitespace("")
    )
    last = last.with_changes(
        comma=cst.Comma(whitespace_before=whitespace_before, whitespace_after=separator)
    )
    appended: list[ItemT] = items[:-1]
    appended.append(last)
    if trailing is not None:
        appended.append(new.with_changes(comma=trailing.with_changes(whitespace_after=end)))
        return appended, closing
    appended.append(new)
    return appended, end


def _without_comments(
    whitespace: cst.BaseParenthesizableWhitespace,
) -> cst.BaseParenthesizableWhitespace:
    """Return the same line break and indentation without comments or blank lines."""
    if not isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace
    return whitespace.with_changes(
        first_line=cst.TrailingWhitespace(newline=whitespace.first_line.newline), empty_lines=[]
    )


def _without_trailing_comment(
    whitespace: cst.BaseParenthesizableWhitespace,
) -> cst.BaseParenthesizableWhitespace:
    """Return `whitespace` without the comment that ends its first line (kept elsewhere)."""
    if not isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace
    return whitespace.with_changes(
        first_line=cst.TrailingWhitespace(newline=whitespace.first_line.newline)
    )
