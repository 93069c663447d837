"""Fixer edits added for WS202 (AddParameter, PackArguments, RemoveUnusedImport), helper indents."""

from __future__ import annotations

import ast

import pytest

from codemods.fixes.apply import apply_edits
from codemods.types import (
    AddHelper,
    AddParameter,
    PackArguments,
    RemoveUnusedImport,
    ReplaceExpression,
    Span,
)


def _def_span(source: str) -> Span:
    node = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef))
    return Span(node.lineno, node.col_offset, node.lineno, node.col_offset)


def _call_span(source: str) -> Span:
    node = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call))
    return Span(node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("def f(x):\n", "def f(x, rng):\n", id="appended to plain parameters"),
        pytest.param("def f():\n", "def f(rng):\n", id="the only parameter"),
        pytest.param(
            "def f(x, p=0.5):\n",
            "def f(x, p=0.5, *, rng):\n",
            id="keyword-only after a default",
        ),
        pytest.param("def f(x, *args):\n", "def f(x, *args, rng):\n", id="after *args"),
        pytest.param("def f(x, *, k=1):\n", "def f(x, *, k=1, rng):\n", id="after keyword-only"),
        pytest.param("def f(x, **kw):\n", "def f(x, *, rng, **kw):\n", id="before **kwargs"),
        pytest.param("def f(x, /):\n", "def f(x, /, rng):\n", id="after positional-only"),
        pytest.param(
            "def f(\n    x,\n    y,\n):\n",
            "def f(\n    x,\n    y,\n    rng,\n):\n",
            id="one per line with a trailing comma",
        ),
        pytest.param(
            "def f(\n    x,\n    y\n):\n",
            "def f(\n    x,\n    y,\n    rng\n):\n",
            id="one per line without a trailing comma",
        ),
        pytest.param(
            "def f(\n    x,\n    p=0.5,\n):\n",
            "def f(\n    x,\n    p=0.5,\n    *,\n    rng,\n):\n",
            id="one per line, keyword-only",
        ),
        pytest.param(
            "def f(\n    x,\n    **kw,\n):\n",
            "def f(\n    x,\n    *,\n    rng,\n    **kw,\n):\n",
            id="one per line, before **kwargs",
        ),
    ],
)
def test_add_parameter_follows_the_layout(before: str, after: str) -> None:
    source = before + "    pass\n"
    fixed = apply_edits(source, [AddParameter(_def_span(source), "rng")])
    assert fixed == after + "    pass\n"


def test_add_parameter_with_an_annotation() -> None:
    source = "def f(x: int) -> int:\n    return x\n"
    fixed = apply_edits(source, [AddParameter(_def_span(source), "rng", "np.random.Generator")])
    assert fixed == "def f(x: int, rng: np.random.Generator) -> int:\n    return x\n"


@pytest.mark.parametrize(
    ("call", "packed"),
    [
        pytest.param("rand(2, 3)", "rand((2, 3))", id="on one line"),
        pytest.param("rand(n, *rest)", "rand((n, *rest))", id="with a starred part"),
        pytest.param(
            "rand(\n    4,\n    2,  # (width, height)\n)",
            "rand((\n    4,\n    2,  # (width, height)\n))",
            id="one per line, comments kept",
        ),
        pytest.param("rand(\n    4, 2\n)", "rand((\n    4, 2\n))", id="broken line"),
    ],
)
def test_pack_arguments_keeps_what_lies_between_them(call: str, packed: str) -> None:
    source = f"x = {call}\n"
    assert apply_edits(source, [PackArguments(_call_span(source))]) == f"x = {packed}\n"


def test_a_parenthesized_tuple_can_be_kept() -> None:
    # ast's span of `(2, 2)` includes the parentheses; libcst's does not.
    source = "x = f(5, size=(2, 2))\n"
    tuple_node = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Tuple))
    span = Span(1, tuple_node.col_offset, 1, tuple_node.end_col_offset or 0)
    edit = ReplaceExpression(_call_span(source), "g(__keep_0__)", (span,))
    assert apply_edits(source, [edit]) == "x = g((2, 2))\n"


@pytest.mark.parametrize(
    ("before", "removal", "after"),
    [
        pytest.param(
            "from numpy.random import rand, randn\nx = randn()\n",
            RemoveUnusedImport("numpy.random", "rand"),
            "from numpy.random import randn\nx = randn()\n",
            id="an unused name of a from-import",
        ),
        pytest.param(
            "import numpy.random as npr\nx = 1\n",
            RemoveUnusedImport("numpy.random", None, "npr"),
            "x = 1\n",
            id="an unused module alias",
        ),
        pytest.param(
            "from numpy.random import rand\nx = rand()\n",
            RemoveUnusedImport("numpy.random", "rand"),
            "from numpy.random import rand\nx = rand()\n",
            id="a name still used stays",
        ),
    ],
)
def test_remove_unused_import_removes_only_what_nothing_uses(
    before: str, removal: RemoveUnusedImport, after: str
) -> None:
    assert apply_edits(before, [removal]) == after


HELPER = '''
def helper(x):
    """Say what it does.

    At length.
    """
    if x:
        return 1
    return 2
'''


@pytest.mark.parametrize("indent", ["  ", "\t"], ids=["two spaces", "tabs"])
def test_helpers_follow_the_module_indentation_docstrings_included(indent: str) -> None:
    source = f"import os\n\n\ndef main():\n{indent}return os.sep\n"
    fixed = apply_edits(source, [AddHelper("helper", HELPER)])
    body = fixed.split("def helper(x):\n")[1].split("\n\n\ndef main")[0]
    assert body.splitlines() == [
        f'{indent}"""Say what it does.',
        "",
        f"{indent}At length.",
        f'{indent}"""',
        f"{indent}if x:",
        f"{indent * 2}return 1",
        f"{indent}return 2",
    ]
