"""`if` statements that decide whether code runs for an instance or an argument."""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Span


@dataclass(frozen=True)
class Branch:
    """An `if` that tests an attribute of `self` or a parameter, and its two bodies.

    `if self.train:`, `if not flag:`, `if self.split == "train":`, `if mode in ("a", "b"):`,
    `if mode != "test":`: the test holds when `subject` is truthy (no `literals`) or equals
    one of `literals`, negated by `not`, `!=` or `not in`.
    """

    #: "self.<attribute>", or the name of a parameter of the function.
    subject: str
    negated: bool
    #: The statements run when the test is true, and those of the `else` (None if none).
    body: Span
    orelse: Span | None = None
    #: The literals compared with (`repr` of each, see `literal_key`); empty for a truth test.
    literals: tuple[str, ...] = ()

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


def within(inner: Span, outer: Span) -> bool:
    """Return True if `inner` lies inside `outer`."""
    return (outer.line, outer.column) <= (inner.line, inner.column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)
