"""The fixer's HoistFunction edit and ReplaceExpression's kept sub-expressions."""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.fixes.apply import FixError, apply_edits
from codemods.types import HoistFunction, ReplaceExpression, Span


def _span(text: str, source: str, kind: type[ast.expr | ast.stmt], occurrence: int = 0) -> Span:
    """Return the span of the `occurrence`-th node of `kind` whose source is `text`."""
    found = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, kind) and ast.get_source_segment(source, node) == text
    ]
    node = found[occurrence]
    return Span(node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)


def _def_span(name: str, source: str, *, nested: bool = False) -> Span:
    """Return where `def name` starts (the nested one if `nested`)."""
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.FunctionDef)
            and node.name == name
            and bool(node.col_offset) is nested
        ):
            return Span(node.lineno, node.col_offset, node.lineno, node.col_offset)
    raise AssertionError(name)


def test_inline_lambda_becomes_a_def_before_the_enclosing_statement() -> None:
    source = textwrap.dedent(
        """\
        import os


        # Builds the loader.
        def main():
            return load(init=lambda wid: os.sched_yield())
        """
    )
    span = _span("lambda wid: os.sched_yield()", source, ast.Lambda)
    fixed = apply_edits(source, [HoistFunction(span, "init_fn", replacement="init_fn")])
    assert fixed == textwrap.dedent(
        """\
        import os


        def init_fn(wid):
            os.sched_yield()


        # Builds the loader.
        def main():
            return load(init=init_fn)
        """
    )


def test_lambda_returning_a_value_keeps_its_return_and_gets_leading_parameters() -> None:
    source = "def f(k):\n    return g(lambda w: w + k)\n"
    span = _span("lambda w: w + k", source, ast.Lambda)
    edit = HoistFunction(span, "_h", replacement="partial(_h, k)", leading_params=("k",))
    assert apply_edits(source, [edit]) == (
        "def _h(k, w):\n    return w + k\n\n\ndef f(k):\n    return g(partial(_h, k))\n"
    )


def test_module_level_assignment_is_replaced_in_place() -> None:
    source = "import os\nseed = lambda w: w * 2  # per worker\nuse(seed)\n"
    span = _span("lambda w: w * 2", source, ast.Lambda)
    edit = HoistFunction(span, "seed", replaces_assignment=True)
    assert apply_edits(source, [edit]) == (
        "import os\ndef seed(w):  # per worker\n    return w * 2\nuse(seed)\n"
    )


def test_local_assignment_is_removed_and_its_comment_moves_with_the_def() -> None:
    source = "def f():\n    # tell workers apart\n    init = lambda w: print(w)\n    return init\n"
    span = _span("lambda w: print(w)", source, ast.Lambda)
    edit = HoistFunction(span, "init", replaces_assignment=True)
    assert apply_edits(source, [edit]) == (
        "# tell workers apart\ndef init(w):\n    print(w)\n\n\ndef f():\n    return init\n"
    )


def test_nested_def_is_moved_and_renamed_with_its_uses() -> None:
    source = textwrap.dedent(
        """\
        def seed(x):
            return x


        def build():
            def seed(w):
                print(w)

            seed(0)
            return seed
        """
    )
    edit = HoistFunction(_def_span("seed", source, nested=True), "_s")
    assert apply_edits(source, [edit]) == textwrap.dedent(
        """\
        def seed(x):
            return x


        def _s(w):
            print(w)


        def build():
            _s(0)
            return _s
        """
    )


def test_assignment_that_is_not_a_statement_of_its_own_is_refused() -> None:
    source = "def f():\n    a = b = lambda w: w\n"
    span = _span("lambda w: w", source, ast.Lambda)
    with pytest.raises(FixError):
        apply_edits(source, [HoistFunction(span, "a", replaces_assignment=True)])


def test_replace_expression_keeps_marked_sub_expressions_as_written() -> None:
    source = "seed = num_workers * (rank)  + worker_id + base\n"
    target = _span("num_workers * (rank)  + worker_id + base", source, ast.BinOp)
    kept = _span("num_workers * (rank)", source, ast.BinOp)
    edit = ReplaceExpression(target, "(torch.initial_seed() + __keep_0__) % 2**32", (kept,))
    assert apply_edits(source, [edit]) == (
        "seed = (torch.initial_seed() + num_workers * (rank)) % 2**32\n"
    )
