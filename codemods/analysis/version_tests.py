"""Tests of torch's version (`if torch.__version__ >= "1.8.0":`), decided by the target.

A project that supports several torch versions picks code by version: mmseg builds its
DataLoader with `persistent_workers` under `if digit_version(torch.__version__) >=
digit_version("1.8.0")` and without it otherwise. For the torch version the analysis
assumes, only one of the two runs. The test is decided as Python decides it: a comparison of
`torch.__version__` with a string compares text ("1.10.0" < "1.8.0"), one of parsed versions
compares numbers; a test whose outcome depends on digits the target leaves open (target 1.8
against "1.8.1") is not decided.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..types import Span, TorchTarget
from .branch_facts import Branch

#: Branch subjects: torch's version as its text, or as a parsed (numeric) version.
TORCH_VERSION_TEXT = "<torch.__version__>"
TORCH_VERSION = "<torch version>"

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
#: Stand-ins for the parts of a version the target leaves open (none, one digit, two digits).
_OPEN_PARTS = (0, 9, 10, 99)


def excluded_by_target(branches: Sequence[Branch], span: Span, target: TorchTarget) -> bool:
    """Return True if code at `span` lies in a body of a version test that the target's
    torch version does not take."""
    for branch in branches:
        if branch.subject not in (TORCH_VERSION_TEXT, TORCH_VERSION) or branch.order is None:
            continue
        holds = _outcome(branch, target)
        if holds is not None and branch.excludes(span, holds != branch.negated):
            return True
    return False


def _outcome(branch: Branch, target: TorchTarget) -> bool | None:
    """Return the outcome of the test for every version the target may stand for, if it is
    the same for all of them."""
    assert branch.order is not None
    name, literal = branch.order
    compare = _OPERATORS.get(name)
    if compare is None or target.below:
        return None
    outcomes = set()
    for version in _versions(target):
        if branch.subject == TORCH_VERSION_TEXT:
            outcomes.add(compare(".".join(map(str, version)), literal))
        else:
            wanted = _numbers(literal)
            if wanted is None:
                return None
            width = max(len(version), len(wanted))
            padded = (version + (0,) * width)[:width], (wanted + (0,) * width)[:width]
            outcomes.add(compare(*padded))
    return outcomes.pop() if len(outcomes) == 1 else None


def _versions(target: TorchTarget) -> list[tuple[int, ...]]:
    """Return versions that stand for the target: each open part filled in several ways."""
    known = target.version if target.version is not None else (2,)
    fills = itertools.product(_OPEN_PARTS, repeat=max(0, 3 - len(known)))
    return [known + fill for fill in fills]


def _numbers(text: str) -> tuple[int, ...] | None:
    """Return the release numbers of a version string ("1.8.0" -> (1, 8, 0))."""
    match = re.match(r"\d+(\.\d+)*", text)
    return tuple(int(part) for part in match.group(0).split(".")) if match else None
