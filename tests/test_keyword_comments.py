"""Adding `worker_init_fn=` to a call never duplicates or moves a comment."""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.fixes.apply import apply_edits
from codemods.types import AddDictEntry, AddKeyword, Span


def _span_of(source: str, kind: type[ast.expr]) -> Span:
    node = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, kind))
    assert node.end_lineno is not None
    assert node.end_col_offset is not None
    return Span(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _added(before: str) -> str:
    source = textwrap.dedent(before)
    edit = AddKeyword(_span_of(source, ast.Call), "worker_init_fn", "seed_worker")
    return apply_edits(source, [edit])


CASES = {
    "comment after the last argument, trailing comma": (
        """\
        loader = DataLoader(
            dataset,
            collate_fn=lambda x: x[0],  # you might want to batch
        )
        """,
        """\
        loader = DataLoader(
            dataset,
            collate_fn=lambda x: x[0],  # you might want to batch
            worker_init_fn=seed_worker,
        )
        """,
    ),
    "comment after the last argument, no trailing comma": (
        """\
        loader = DataLoader(
            dataset,
            collate_fn=lambda x: x[0]  # you might want to batch
        )
        """,
        """\
        loader = DataLoader(
            dataset,
            collate_fn=lambda x: x[0],  # you might want to batch
            worker_init_fn=seed_worker
        )
        """,
    ),
    "comments after every argument": (
        """\
        loader = DataLoader(
            dataset,  # the training split
            batch_size=4,  # small on purpose
        )
        """,
        """\
        loader = DataLoader(
            dataset,  # the training split
            batch_size=4,  # small on purpose
            worker_init_fn=seed_worker,
        )
        """,
    ),
    "comment line before the closing parenthesis": (
        """\
        loader = DataLoader(
            dataset,
            batch_size=4,
            # more options later
        )
        """,
        """\
        loader = DataLoader(
            dataset,
            batch_size=4,
            worker_init_fn=seed_worker,
            # more options later
        )
        """,
    ),
    "comment on the closing parenthesis line": (
        """\
        loader = DataLoader(
            dataset,
            batch_size=4)  # keep it small
        """,
        """\
        loader = DataLoader(
            dataset,
            batch_size=4,
            worker_init_fn=seed_worker)  # keep it small
        """,
    ),
    "arguments on the opening line, comment after the last": (
        """\
        loader = DataLoader(dataset, batch_size=4,  # keep it small
                            shuffle=True)  # and shuffled
        """,
        """\
        loader = DataLoader(dataset, batch_size=4,  # keep it small
                            shuffle=True,
                            worker_init_fn=seed_worker)  # and shuffled
        """,
    ),
}


@pytest.mark.parametrize(("before", "after"), CASES.values(), ids=list(CASES))
def test_adding_a_keyword_keeps_every_comment_where_it_was(before: str, after: str) -> None:
    assert _added(before) == textwrap.dedent(after)


def test_adding_a_dict_entry_keeps_a_comment_after_the_last_entry() -> None:
    source = textwrap.dedent(
        """\
        options = {
            "batch_size": 4,
            "shuffle": True  # shuffled
        }
        """
    )
    edit = AddDictEntry(_span_of(source, ast.Dict), "worker_init_fn", "seed_worker")
    assert apply_edits(source, [edit]) == textwrap.dedent(
        """\
        options = {
            "batch_size": 4,
            "shuffle": True,  # shuffled
            "worker_init_fn": seed_worker
        }
        """
    )
