"""Which argument of a call fills a parameter position when the call spreads a sequence of
known length before it: `train(*build(model), config, args)` where every return of the
project function `build` is a two-element tuple, so `config` fills position 2.
"""

from __future__ import annotations

from .facts import Kind, Value
from .project import Project
from .refs import FunctionRef


def gathered_arguments(call: Value, index: int) -> Value | None:
    """Return the tuple a `*args` parameter receives from `call`, whose arguments from
    position `index` on land in it; None if one of them is spread (`*rest`)."""
    rest = call.args[index:]
    if any(arg.kind is Kind.STARRED for arg in rest):
        return None
    return Value(Kind.SEQUENCE, call.span, args=rest)


def positional_argument(
    project: Project, call: Value, where: FunctionRef, index: int
) -> Value | None:
    """Return the argument `call` (written in `where`) passes at position `index`, or None
    if none does or a spread argument before it has no known length (or spans it)."""
    position = 0
    for arg in call.args:
        if arg.kind is not Kind.STARRED:
            if position == index:
                return arg
            position += 1
            continue
        width = spread_width(project, arg, where)
        if width is None or position + width > index:
            return None  # the position is filled from the spread, or may be
        position += width
    return None


def spread_width(project: Project, starred: Value, where: FunctionRef) -> int | None:
    """Return how many arguments `*value` spreads, when every value it may be is a sequence
    display of one length or a call of project functions whose every return is."""
    spread = starred.base
    if spread is None:
        return None
    widths: set[int | None] = set()
    for option in spread.alternatives():
        if option.kind is Kind.SEQUENCE:
            widths.add(_display_width(option))
        elif option.kind is Kind.CALL and option.base is not None:
            widths.update(_returned_widths(project, option.base, where))
        else:
            return None
    if len(widths) != 1:
        return None
    return widths.pop()


def _returned_widths(project: Project, callee: Value, where: FunctionRef) -> set[int | None]:
    targets = project.targets(callee, where.module)
    if not targets or not all(isinstance(target, FunctionRef) for target in targets):
        return {None}
    widths: set[int | None] = set()
    for target in targets:
        assert isinstance(target, FunctionRef)
        returns = [option for value in target.function.returns for option in value.alternatives()]
        if not returns:
            return {None}
        widths.update(
            _display_width(option) if option.kind is Kind.SEQUENCE else None for option in returns
        )
    return widths


def _display_width(display: Value) -> int | None:
    """Return the length of a tuple or list display (None if it spreads something itself)."""
    if any(element.kind is Kind.STARRED for element in display.args):
        return None
    return len(display.args)
