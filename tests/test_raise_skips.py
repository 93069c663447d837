"""`raise_skips`: the code a caught `try` body skips when one of its calls raises;
`always_raises`: a function body that never returns; `constructions`: the statements that
make an instance, with the code that runs only if making it returns."""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.analysis.statement_order import always_raises, constructions, raise_skips
from codemods.types import Span


def _span_of(node: ast.AST) -> Span:
    assert isinstance(node, ast.expr | ast.stmt)
    return Span(node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)


def _skipped_calls(source: str, raising: str) -> set[str]:
    """Return the names of the calls that do not run when the call of `raising` raises."""
    tree = ast.parse(textwrap.dedent(source))
    body = tree.body[0]
    assert isinstance(body, ast.Try)

    calls = {
        node.func.id: _span_of(node)
        for node in ast.walk(body)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    skips = dict(raise_skips(body.body, _span_of))
    after = skips[calls[raising]]
    return {
        name
        for name, span in calls.items()
        if any(
            (outer.line, outer.column) <= (span.line, span.column)
            and (span.end_line, span.end_column) <= (outer.end_line, outer.end_column)
            for outer in after
        )
    }


@pytest.mark.parametrize(
    ("source", "skipped"),
    [
        pytest.param(
            """
            try:
                steps = [crop(), flip()]
                pipeline = compose(steps)
            except Exception:
                pass
            """,
            {"flip", "compose"},
            id="the rest of the statement and of the block",
        ),
        pytest.param(
            """
            try:
                if augment:
                    steps = [crop()]
                    steps += [flip()]
                else:
                    steps = [resize()]
                pipeline = compose(steps)
            except Exception:
                pass
            """,
            {"flip", "compose"},
            id="past the if, but not its other arm",
        ),
        pytest.param(
            """
            try:
                try:
                    steps = [crop()]
                    flip()
                except KeyError:
                    pass
                compose()
            except Exception:
                pass
            """,
            {"flip"},
            id="an inner try may stop the error",
        ),
    ],
)
def test_skipped_when_a_call_raises(source: str, skipped: set[str]) -> None:
    assert _skipped_calls(source, "crop") == skipped


def test_a_call_in_a_lambda_body_does_not_run_there() -> None:
    source = "try:\n    pick = lambda: crop()\n    compose()\nexcept Exception:\n    pass\n"
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.Try)

    assert [span.line for span, _ in raise_skips(body.body, _span_of)] == [3]


@pytest.mark.parametrize(
    ("body", "raises"),
    [
        pytest.param(
            "np.random.seed(0)\nraise ValueError('not released')", True, id="after set-up"
        ),
        pytest.param(
            "if missing:\n    raise ValueError()\nself.root = root", False, id="in a branch"
        ),
        pytest.param("if ready:\n    return\nraise ValueError()", False, id="a return before"),
        pytest.param("def inner():\n    return 1\nraise ValueError()", True, id="a nested return"),
        pytest.param("self.root = root", False, id="no raise"),
    ],
)
def test_always_raises(body: str, raises: bool) -> None:
    assert always_raises(ast.parse(body).body) is raises


def test_constructions_with_the_rest_of_their_block() -> None:
    source = textwrap.dedent(
        """
        clips = data.Clips(root)
        helper(root)
        if ready:
            Unreleased(root)
            loader = DataLoader(clips)
        last = Clips(root)
        """
    )
    made = {
        (span.line, rest.line, rest.end_line)
        for span, rest in constructions(ast.parse(source).body, _span_of)
    }
    # `helper` is not class-like; `Clips` on the last line has nothing after it.
    assert made == {(2, 3, 7), (5, 6, 6)}
