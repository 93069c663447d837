"""`if` statements that decide whether code runs for an instance or an argument."""

from __future__ import annotations

import ast
import operator as operator_module
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..types import Span

if TYPE_CHECKING:
    from .facts import Value


@dataclass(frozen=True)
class Branch:
    """An `if` that tests an attribute of `self` or a parameter, and its two bodies.

    `if self.train:`, `if not flag:`, `if self.split == "train":`, `if mode in ("a", "b"):`,
    `if mode != "test":`: the test holds when `subject` is truthy (no `literals`) or equals
    one of `literals`, negated by `not`, `!=` or `not in`. An ordering test (`if prob > 0:`,
    `if random.random() < self.p:`) sets `order` instead.
    """

    #: "self.<attribute>", or the name of a parameter of the function.
    subject: str
    negated: bool
    #: The statements run when the test is true, and those of the `else` (None if none).
    body: Span
    orelse: Span | None = None
    #: The literals compared with (`repr` of each, see `literal_key`); empty for a truth test.
    literals: tuple[str, ...] = ()
    #: For an ordering test: the operator read with `subject` on its left ("<", "<=", ">",
    #: ">=") and what `subject` is compared with: a number's repr, or `UNIT_DRAW`. For
    #: `subject.startswith("train")` (or `endswith`, or `"train" in subject`): the method
    #: (`__contains__` for `in`) and the literal's repr.
    order: tuple[str, str] | None = None
    #: The span of the draw a `UNIT_DRAW` test makes: its value decides nothing but the test.
    #: For a test joined to a draw by `and` / `or`: the draw's operand (see `settles`).
    draw: Span | None = None
    #: For a test joined to a draw by `or` (True) or `and` (False): the outcome of this test
    #: that decides the whole test, so that the draw then decides nothing
    #: (`np.random.random() < 0.5 or not self.train` on an evaluation set). None: any known
    #: outcome does (an ordering test with the draw itself).
    settles: bool | None = None
    #: For an ordering test of anything else with a number (`if config.workers > 0:`, subject
    #: ""): what is compared, to be matched with the same expression elsewhere in the function.
    compared: Value | None = None
    #: For a test of one entry of a dict held on `self` (`if self.hyp.get("flip", False):`,
    #: `random.random() < self.hyp["mosaic"]`, subject ""): the lookup, as `looked_up` reads it.
    lookup: Value | None = None
    #: A string method the test applies to the subject before comparing it with `literals`
    #: (`if split.lower() == "train":`), from `CASE_METHODS`.
    case: str | None = None

    @property
    def truth_test(self) -> bool:
        """Return True if the test holds when `subject` is truthy (`if flag:`, `if not x:`)."""
        return not self.literals and self.order is None

    def excludes(self, span: Span, holds: bool) -> bool:
        """Return True if code at `span` does not run when the test's outcome is `holds`."""
        taken = self.body if holds else self.orelse
        skipped = self.orelse if holds else self.body
        return (
            skipped is not None
            and within(span, skipped)
            and not (taken is not None and within(span, taken))
        )

    def governs(self, span: Span) -> bool | None:
        """Return the outcome the test had wherever code at `span` runs, if it lies in a body."""
        if within(span, self.body):
            return True
        if self.orelse is not None and within(span, self.orelse):
            return False
        return None


#: String methods a test may apply to its subject before comparing (`split.lower()`).
CASE_METHODS = frozenset({"lower", "upper", "casefold", "strip"})


def cased(value: object, case: str | None) -> object:
    """Return `value` as a test that applies the string method `case` to it sees it (None
    for a value that is not a string)."""
    if case is None:
        return value
    return getattr(value, case)() if isinstance(value, str) else None


#: What an ordering test compares with when it is a number drawn from [0, 1) on the spot.
UNIT_DRAW = "<draw in [0, 1)>"


def within(inner: Span, outer: Span) -> bool:
    """Return True if `inner` lies inside `outer`."""
    return (outer.line, outer.column) <= (inner.line, inner.column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)


def ordered_outcome(order: tuple[str, str], keys: Iterable[str]) -> bool | None:
    """Return whether `subject <operator> other` (or `subject.startswith(other)`, or
    `other in subject`) holds for each literal of `keys` the subject may be, or for none
    (None: it depends, or a value is not of the type the test needs)."""
    operator, other = order
    values = [literal_of(key) for key in keys]
    if operator in _STRING_TESTS:
        affix = literal_of(other)
        texts = [value for value in values if isinstance(value, str)]
        if not texts or len(texts) != len(values) or not isinstance(affix, str):
            return None
        found = {getattr(text, operator)(affix) for text in texts}
        return found.pop() if len(found) == 1 else None
    numbers = [value for value in values if isinstance(value, int | float)]
    if not numbers or len(numbers) != len(values):
        return None
    if other == UNIT_DRAW:
        # A draw `u` from [0, 1) is never below a subject of 0 or less: `p > u` never holds
        # and `p < u` always does (but for the one draw in 2**53 that is exactly 0). It is
        # always below a subject of 1 or more: `p > u` always holds.
        if all(number <= 0 for number in numbers):
            return operator in ("<", "<=")
        if all(number >= 1 for number in numbers):
            return operator in (">", ">=")
        return None
    bound = literal_of(other)
    if not isinstance(bound, int | float):
        return None
    compare = _COMPARE[operator]
    results = {compare(number, bound) for number in numbers}
    return results.pop() if len(results) == 1 else None


#: The string tests an `order` may name: `subject.startswith(x)`, `.endswith(x)`, and
#: `x in subject` (`str.__contains__`).
_STRING_TESTS = frozenset({"startswith", "endswith", "__contains__"})

_COMPARE = {
    "<": operator_module.lt,
    "<=": operator_module.le,
    ">": operator_module.gt,
    ">=": operator_module.ge,
}


def literal_of(key: str) -> object:
    """Return the value a literal's repr spells (a value equal to nothing if none)."""
    try:
        return ast.literal_eval(key)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return object()  # equal to nothing
