"""Every edit type answers the edit protocol: its span, whether it merges, and its applier."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from codemods.fixes.edits import stage
from codemods.types import Edit, Span

EDIT_TYPES = typing.get_args(Edit)


@pytest.mark.parametrize("edit_type", EDIT_TYPES, ids=lambda edit_type: edit_type.__name__)
def test_every_edit_type_has_an_applier(edit_type: type) -> None:
    assert stage.dispatch(edit_type) is not stage.dispatch(object)


@pytest.mark.parametrize("edit_type", EDIT_TYPES, ids=lambda edit_type: edit_type.__name__)
def test_every_edit_type_says_where_it_edits_and_whether_it_merges(edit_type: type) -> None:
    assert isinstance(getattr(edit_type, "span", None), property)
    assert isinstance(getattr(edit_type, "is_insertion", None), bool)
    assert "is_insertion" not in {field.name for field in dataclasses.fields(edit_type)}


def test_added_parameters_merge_so_they_never_block_another_fix() -> None:
    from codemods.types import AddParameter

    edit = AddParameter(Span(1, 0, 2, 0), "generator")
    assert edit.span == Span(1, 0, 2, 0)
    assert edit.is_insertion
