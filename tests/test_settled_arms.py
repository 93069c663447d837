"""`settled_arms`: the `if` arms an earlier literal store in the same block rules out."""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.analysis.statement_order import settled_arms


def _dead_lines(source: str) -> set[int]:
    tree = ast.parse(textwrap.dedent(source))
    dead = settled_arms(tree.body)
    return {
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt) and id(node) in dead
    }


@pytest.mark.parametrize(
    ("test", "dead"),
    [
        pytest.param('opt.kind == "mesh"', {5}, id="equal"),
        pytest.param('"mesh" == opt.kind', {5}, id="literal first"),
        pytest.param('opt.kind != "mesh"', {3}, id="not equal"),
        pytest.param('opt.kind in ("mesh", "grid")', {5}, id="in a tuple"),
        pytest.param('opt.kind not in ["mesh"]', {3}, id="not in a list"),
        pytest.param("opt.kind", {5}, id="truthiness"),
        pytest.param("not opt.kind", {3}, id="negated"),
        pytest.param("opt.kind is None", {3}, id="is None"),
        pytest.param('opt.kind == "mesh" and opt.workers', set(), id="and is not followed"),
        pytest.param('other.kind == "mesh"', set(), id="another object"),
    ],
)
def test_tests_of_a_stored_literal(test: str, dead: set[int]) -> None:
    source = f'opt.kind = "mesh"\nif {test}:\n    a = 1\nelse:\n    b = 2\n'
    assert _dead_lines(source) == dead


@pytest.mark.parametrize(
    "between",
    [
        pytest.param("opt.kind = input()", id="stored again"),
        pytest.param("configure(opt)", id="handed to a function"),
        pytest.param("opt.update(kind='grid')", id="a method of it called"),
        pytest.param("setup()", id="a function that may rebind globals"),
        pytest.param("opt = load()", id="the object rebound"),
        pytest.param("alias = opt", id="aliased"),
        pytest.param("for opt.kind in kinds:\n    pass", id="a loop target"),
        pytest.param("def opt():\n    pass", id="a definition of its name"),
        pytest.param("@register(opt)\ndef helper():\n    pass", id="a decorator given it"),
    ],
)
def test_what_may_change_the_value_unsettles_it(between: str) -> None:
    source = f'opt.kind = "mesh"\n{between}\nif opt.kind == "mesh":\n    a = 1\nelse:\n    b = 2\n'
    assert _dead_lines(source) == set()


def test_reads_other_stores_and_definitions_keep_it_settled() -> None:
    source = """\
    opt.kind = "mesh"
    opt.batch_size = 16
    print(opt.batch_size, len(opt.name))
    random.seed(opt.seed)
    def configure(options):
        options.kind = "grid"
        log(options)
    if opt.kind == "mesh":
        a = 1
    else:
        b = 2
    """
    assert _dead_lines(source) == {11}


def test_only_the_same_block_counts() -> None:
    source = """\
    if flag:
        mode = "train"
    if mode == "train":
        a = 1
    else:
        b = 2
    """
    assert _dead_lines(source) == set()
