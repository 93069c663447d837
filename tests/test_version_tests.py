"""Tests of torch's version are decided by the target version, as Python decides them."""

from __future__ import annotations

import pytest

from codemods.analysis.branch_facts import Branch
from codemods.analysis.version_tests import (
    TORCH_VERSION,
    TORCH_VERSION_TEXT,
    excluded_by_target,
)
from codemods.types import Span, TorchTarget

BODY = Span(2, 4, 3, 20)
ORELSE = Span(5, 4, 6, 20)
IN_BODY = Span(3, 8, 3, 12)
IN_ORELSE = Span(6, 8, 6, 12)


def _branch(subject: str, operator: str, literal: str, *, negated: bool = False) -> Branch:
    return Branch(subject, negated, BODY, ORELSE, order=(operator, literal))


@pytest.mark.parametrize(
    ("subject", "target", "body_runs"),
    [
        (TORCH_VERSION_TEXT, (1, 8, 1), True),
        (TORCH_VERSION_TEXT, (1, 7, 1), False),
        # As text, "1.10.0" sorts before "1.8.0": the `else` runs, as it does in Python.
        (TORCH_VERSION_TEXT, (1, 10, 0), False),
        (TORCH_VERSION, (1, 10, 0), True),
        (TORCH_VERSION, (1, 8), True),
        (TORCH_VERSION_TEXT, None, True),
    ],
)
def test_decided_tests_exclude_the_body_not_taken(
    subject: str, target: tuple[int, ...] | None, body_runs: bool
) -> None:
    branch = _branch(subject, ">=", "1.8.0")
    torch = TorchTarget(target)
    assert excluded_by_target([branch], IN_BODY, torch) is not body_runs
    assert excluded_by_target([branch], IN_ORELSE, torch) is body_runs


def test_negated_test_swaps_the_bodies() -> None:
    branch = _branch(TORCH_VERSION, ">=", "1.8.0", negated=True)
    assert excluded_by_target([branch], IN_BODY, TorchTarget((1, 9)))
    assert not excluded_by_target([branch], IN_ORELSE, TorchTarget((1, 9)))


@pytest.mark.parametrize(
    ("subject", "target", "literal"),
    [
        # Target 1.8 may be 1.8.0 or 1.8.2: the test of "1.8.1" goes either way.
        (TORCH_VERSION, (1, 8), "1.8.1"),
        (TORCH_VERSION_TEXT, (1, 8), "1.8.1"),
        # Only an upper bound is known (`torch<1.9`).
        (TORCH_VERSION, None, "1.8.0"),
    ],
)
def test_open_tests_exclude_nothing(
    subject: str, target: tuple[int, ...] | None, literal: str
) -> None:
    torch = TorchTarget(target) if target is not None else TorchTarget((1, 9), below=True)
    branch = _branch(subject, ">=", literal)
    assert not excluded_by_target([branch], IN_BODY, torch)
    assert not excluded_by_target([branch], IN_ORELSE, torch)


def test_other_branches_are_not_decided() -> None:
    branch = Branch("self.train", False, BODY, ORELSE)
    assert not excluded_by_target([branch], IN_BODY, TorchTarget((1, 8)))
