"""Each rule's documented "Example" triggers the rule, and its "Use instead" is clean.

The snippets are checked through the library API (`run_source`) with the imports they assume.
A "Use instead" that shows only the changed part is completed from the Example (the dataset
class it keeps); one that calls a helper the fix inserts is compared with the fixed Example.
"""

from __future__ import annotations

import re

import pytest

from codemods import ALL_RULES, Settings, run_source
from codemods.rule import Rule
from codemods.types import Changed, Finding

PRELUDE = (
    "import random\n"
    "import numpy as np\n"
    "import torch\n"
    "from torch.utils.data import DataLoader, Dataset\n\n"
)
#: WS101 reports only where torch does not seed NumPy in workers.
TORCH_VERSIONS = {"WS101": "1.8"}
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _snippets(rule: type[Rule]) -> tuple[str, str]:
    example, use_instead = _BLOCK.findall(rule.sections()["Example"])
    return example, use_instead


def _findings(rule: type[Rule], code: str, *, prelude: str = PRELUDE) -> tuple[Finding, ...]:
    settings = Settings(select=(rule.CODE,), torch_version=TORCH_VERSIONS.get(rule.CODE))
    result = run_source(prelude + code, settings=settings)
    return tuple(getattr(result, "findings", ()))


def _kept_classes(example: str, use_instead: str) -> str:
    """Return the Example's classes that "Use instead" uses but does not define."""
    kept = []
    for block in re.split(r"\n(?=\S)", example):
        name = re.match(r"class (\w+)", block)
        if name and f"class {name[1]}" not in use_instead and name[1] in use_instead:
            kept.append(block.rstrip() + "\n\n")
    return "".join(kept)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.CODE)
def test_the_example_triggers_the_rule(rule: type[Rule]) -> None:
    example, _ = _snippets(rule)
    assert [finding.code for finding in _findings(rule, example)] != []


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.CODE)
def test_use_instead_is_clean(rule: type[Rule]) -> None:
    example, use_instead = _snippets(rule)
    helpers = re.findall(r"\b(_\w+)\(", use_instead)
    if helpers:
        # It calls helpers the fix inserts: it is what `fix` makes of the Example.
        settings = Settings(
            select=(rule.CODE,), torch_version=TORCH_VERSIONS.get(rule.CODE), unsafe_fixes=True
        )
        result = run_source(PRELUDE + example, settings=settings, fix=True)
        assert isinstance(result, Changed)
        for line in use_instead.splitlines():
            assert line in result.new.splitlines()
        assert result.remaining == ()
        assert _findings(rule, result.new, prelude="") == ()
        return
    code = _kept_classes(example, use_instead) + use_instead
    assert _findings(rule, code) == ()
