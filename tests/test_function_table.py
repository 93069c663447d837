"""Which functions of a module a text question keeps, now that every function is summarised."""

from __future__ import annotations

import ast
from pathlib import Path

from codemods.analysis.extract import extract

_SOURCE = """\
import helpers


def uses_seed():
    helpers.seed(1)


def other():
    return 2


class Holder:
    def method(self):
        def inner():
            return helpers.seed
        return inner

    def unrelated(self):
        return reseed  # a longer word is not the name


def other():  # defined again: the span covers both definitions and what lies between
    return 3


seed_everything = 0
"""


def _qualnames(names: frozenset[str]) -> list[str]:
    facts = extract(ast.parse(_SOURCE), _SOURCE, Path("module.py"), "module")
    return [function.qualname for function in facts.functions_spelling(names)]


def test_functions_whose_text_spells_the_name_are_kept_with_module_code() -> None:
    assert _qualnames(frozenset({"seed"})) == [
        "<module>",
        "uses_seed",
        "other",
        "Holder.method",
        "Holder.method.<locals>.inner",
        "other",
    ]


def test_a_name_spelled_nowhere_keeps_only_module_code() -> None:
    assert _qualnames(frozenset({"absent"})) == ["<module>"]


def test_a_word_containing_the_name_does_not_count() -> None:
    # `other`, defined twice, spans the class between its definitions.
    assert _qualnames(frozenset({"reseed"})) == ["<module>", "other", "Holder.unrelated", "other"]


def test_every_function_is_summarised_and_the_tree_let_go() -> None:
    facts = extract(ast.parse(_SOURCE), _SOURCE, Path("module.py"), "module")
    assert not facts.table._pending
    assert type(facts.table._source).__name__ == "_Text"
