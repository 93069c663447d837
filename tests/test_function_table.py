"""Which functions of a module a text question keeps, now that every function is summarised."""

from __future__ import annotations

import ast
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods.analysis.extract import extract
from codemods.analysis.facts import ModuleFacts
from codemods.analysis.function_table import TableAnswers

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


def _summary(source: str) -> ModuleFacts:
    return extract(ast.parse(source), source, Path("module.py"), "module")


def _asked(question: Callable[[ModuleFacts], object]) -> tuple[ModuleFacts, TableAnswers]:
    """Ask one question of a summary made lazily (as a run does), and what it answered."""
    earlier = extract(ast.parse(_SOURCE), _SOURCE, Path("module.py"), "module", keep_tree=True)
    question(earlier)
    return earlier, earlier.table.answers()


_SPELLING = pytest.param(
    lambda facts: facts.functions_spelling(frozenset({"seed"})), id="functions spelling a name"
)
_SPELLS = pytest.param(lambda facts: facts.spells(frozenset({"unrelated_name"})), id="spells")
_MATCHING = pytest.param(
    lambda facts: facts.functions_matching(re.compile(r"\bunrelated_name\b")), id="matching"
)
_NOQA = pytest.param(lambda facts: facts.noqa, id="noqa comments")


@pytest.mark.parametrize("question", [_SPELLING, _SPELLS, _MATCHING, _NOQA])
def test_a_comment_that_answers_no_question_differently_answers_alike(
    question: Callable[[ModuleFacts], object],
) -> None:
    earlier, answers = _asked(question)
    now = _summary(_SOURCE.replace("return 2", "return 2  # a comment") + "# the end\n")
    assert now.answers_alike(earlier, answers)


@pytest.mark.parametrize("question", [_SPELLING, _SPELLS, _MATCHING, _NOQA])
def test_a_comment_that_changes_an_answer_does_not_answer_alike(
    question: Callable[[ModuleFacts], object],
) -> None:
    earlier, answers = _asked(question)
    written = "# a longer word is not the name"
    now = _summary(_SOURCE.replace(written, f"{written}: seed unrelated_name  # noqa"))
    assert not now.answers_alike(earlier, answers)


def test_a_changed_function_no_question_reached_still_answers_alike() -> None:
    earlier, answers = _asked(lambda facts: facts.function("uses_seed"))
    assert "other" not in answers.summarised
    now = _summary(_SOURCE.replace("return 2", "return 5"))
    assert now.answers_alike(earlier, answers)


def test_a_changed_function_a_question_reached_does_not_answer_alike() -> None:
    earlier, answers = _asked(lambda facts: facts.function("other"))
    now = _summary(_SOURCE.replace("return 2", "return 5"))
    assert not now.answers_alike(earlier, answers)


def test_a_stored_summary_missing_a_function_the_run_read_does_not_answer_alike() -> None:
    earlier, answers = _asked(lambda facts: facts.function("other"))
    stored = pickle.loads(pickle.dumps(_asked(lambda facts: None)[0]))
    assert not _summary(_SOURCE).answers_alike(stored, answers)
    assert _summary(_SOURCE).answers_alike(earlier, answers)
