"""Every rule is registered, documented, uniquely named and has fixture cases.

Each check is a function that returns the problems it finds, so it can be shown to catch a
badly made rule (the `test_check_catches_*` tests) as well as pass on the real ones.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import codemods.rules
from codemods import ALL_RULES
from codemods.rule import DOC_SECTIONS, FixAvailability, FixSafety, Rule
from codemods.types import Safety

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def _load_script(name: str) -> Any:
    """Import a developer script of `scripts/` (not an installed module) by its path."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


docs = _load_script("rules_table")

Rules = Sequence[type[Rule]]


def section_problems(rules: Rules) -> list[str]:
    """Missing, empty or out-of-order documentation sections."""
    problems = []
    for rule in rules:
        sections = rule.sections()
        present = [heading for heading in sections if heading in DOC_SECTIONS]
        for heading in DOC_SECTIONS:
            if not sections.get(heading):
                problems.append(f"{rule.CODE}: no '## {heading}' section (or it is empty)")
        if present != [heading for heading in DOC_SECTIONS if heading in present]:
            problems.append(f"{rule.CODE}: sections out of order: {present}")
        if not sections.get("What it does", "").startswith("Checks for"):
            problems.append(f"{rule.CODE}: 'What it does' must start with 'Checks for'")
    return problems


def fix_safety_problems(rules: Rules) -> list[str]:
    """Rules with a fix that declare no `FIX_SAFETY`, or whose docs tell another one."""
    problems = []
    for rule in rules:
        if rule.FIX is FixAvailability.NEVER:
            continue
        declared = getattr(rule, "FIX_SAFETY", None)
        if not isinstance(declared, FixSafety) or declared is FixSafety.NONE:
            problems.append(f"{rule.CODE}: declares no FIX_SAFETY")
            continue
        text = rule.sections().get("Fix safety", "")
        says_safe = re.search(r"\bsafe\b", text, flags=re.IGNORECASE) is not None
        says_unsafe = re.search(r"\bunsafe\b", text, flags=re.IGNORECASE) is not None
        told = {
            FixSafety.SAFE: says_safe and not says_unsafe,
            FixSafety.UNSAFE: says_unsafe and not says_safe,
            FixSafety.SOMETIMES_UNSAFE: says_safe and says_unsafe,
        }[declared]
        if not told:
            problems.append(f"{rule.CODE}: 'Fix safety' does not say {declared.value}")
    return problems


def identity_problems(rules: Rules) -> list[str]:
    """Codes and names that are malformed or shared."""
    problems = []
    codes = [rule.CODE for rule in rules]
    names = [rule.NAME for rule in rules]
    for value in sorted({code for code in codes if codes.count(code) > 1}):
        problems.append(f"code {value} is used by more than one rule")
    for value in sorted({name for name in names if names.count(name) > 1}):
        problems.append(f"name {value} is used by more than one rule")
    for rule in rules:
        if not re.fullmatch(r"WS[12]\d\d", rule.CODE):
            problems.append(f"{rule.CODE}: codes are WS1xx (call sites) or WS2xx (Dataset code)")
        if not re.fullmatch(r"[a-z]+(?:-[a-z0-9]+)+", rule.NAME):
            problems.append(f"{rule.CODE}: name {rule.NAME!r} is not kebab-case")
        module = rule.__module__.rsplit(".", 1)[-1]
        if module != rule.NAME.replace("-", "_"):
            problems.append(f"{rule.CODE}: lives in {module}.py, not {rule.NAME}.py in snake_case")
    return problems


def registration_problems(rules: Rules) -> list[str]:
    """Rules defined in codemods/rules/ but missing from ALL_RULES, and the reverse."""
    problems = []
    defined: set[type[Rule]] = set()
    for module_info in pkgutil.iter_modules(codemods.rules.__path__):
        module = importlib.import_module(f"codemods.rules.{module_info.name}")
        classes = [
            value
            for value in vars(module).values()
            if inspect.isclass(value)
            and issubclass(value, Rule)
            and value is not Rule
            and value.__module__ == module.__name__
        ]
        if not classes:
            problems.append(f"codemods/rules/{module_info.name}.py defines no rule")
        defined.update(classes)
    for rule in sorted(defined - set(rules), key=lambda rule: rule.CODE):
        problems.append(f"{rule.CODE} ({rule.__module__}) is not in ALL_RULES")
    for rule in rules:
        if not rule.__module__.startswith("codemods.rules."):
            problems.append(f"{rule.CODE} is not defined in codemods/rules/")
    return problems


def fixture_problems(rules: Rules, fixtures: Path = FIXTURES) -> list[str]:
    """Rules without fixture cases: one that reports, one that must not change anything."""
    problems = []
    for rule in rules:
        folder = fixtures / rule.__module__.rsplit(".", 1)[-1]
        cases = sorted(before.parent for before in folder.glob("*/before"))
        if not cases:
            problems.append(f"{rule.CODE}: no fixture cases under fixtures/{folder.name}/")
            continue
        reporting = [
            case
            for case in cases
            if (case / "findings.txt").exists()
            and (case / "findings.txt").read_text(encoding="utf-8").strip()
        ]
        if not reporting:
            problems.append(f"{rule.CODE}: no fixture case reports a finding")
        if all((case / "after").exists() for case in cases):
            problems.append(f"{rule.CODE}: no fixture case that must stay unchanged (no after/)")
    return problems


# --- the real rules ---


def test_every_rule_has_every_documentation_section() -> None:
    assert section_problems(ALL_RULES) == []


def test_codes_and_names_are_unique_and_well_formed() -> None:
    assert identity_problems(ALL_RULES) == []


def test_every_rule_module_is_registered() -> None:
    assert registration_problems(ALL_RULES) == []


def test_every_rule_has_fixture_cases() -> None:
    assert fixture_problems(ALL_RULES) == []


def test_all_rules_are_in_code_order() -> None:
    assert [rule.CODE for rule in ALL_RULES] == sorted(rule.CODE for rule in ALL_RULES)


def test_readme_rule_table_is_current() -> None:
    text = docs.README.read_text(encoding="utf-8")
    assert docs.with_rules_table(text) == text, (
        "run `python scripts/rules_table.py` to update README.md"
    )
    assert docs.main(["--check"]) == 0


# --- the checks catch what they are for ---


class _Undocumented(Rule):
    """Flags nothing.

    ## What it does
    Checks for nothing.

    ## Example
    Nothing.
    """

    CODE = "WS101"
    NAME = "unseeded-numpy-in-workers"

    def check(self) -> None:
        return None


def test_check_catches_missing_sections() -> None:
    problems = section_problems([_Undocumented])
    assert "WS101: no '## Why it matters' section (or it is empty)" in problems
    assert "WS101: no '## Known limitations' section (or it is empty)" in problems


def test_check_catches_shared_codes_and_names() -> None:
    problems = identity_problems([*ALL_RULES, _Undocumented])
    assert "code WS101 is used by more than one rule" in problems
    assert "name unseeded-numpy-in-workers is used by more than one rule" in problems


def test_check_catches_unregistered_rules() -> None:
    problems = registration_problems(ALL_RULES[1:])
    assert f"{ALL_RULES[0].CODE} ({ALL_RULES[0].__module__}) is not in ALL_RULES" in problems


def test_check_catches_rules_without_fixtures(tmp_path: Path) -> None:
    assert fixture_problems(ALL_RULES[:1], tmp_path) == [
        f"{ALL_RULES[0].CODE}: no fixture cases under fixtures/"
        f"{ALL_RULES[0].__module__.rsplit('.', 1)[-1]}/"
    ]


def test_every_rule_declares_the_fix_safety_its_docs_tell() -> None:
    assert fix_safety_problems(ALL_RULES) == []


class _SafeButSaysUnsafe(Rule):
    """Flags.

    ## Fix safety
    Unsafe: a closure may change.
    """

    CODE = "WS199"
    NAME = "example-rule"
    FIX_SAFETY = FixSafety.SAFE

    def check(self) -> None:
        return None


def test_check_catches_a_declaration_the_docs_contradict() -> None:
    assert fix_safety_problems([_SafeButSaysUnsafe, _Undocumented]) == [
        "WS199: 'Fix safety' does not say safe",
        "WS101: declares no FIX_SAFETY",
    ]


@pytest.mark.parametrize(
    ("declared", "safety", "allowed"),
    [
        (FixSafety.SAFE, Safety.SAFE, True),
        (FixSafety.SAFE, Safety.UNSAFE, False),
        (FixSafety.UNSAFE, Safety.SAFE, False),
        (FixSafety.SOMETIMES_UNSAFE, Safety.UNSAFE, True),
        (FixSafety.NONE, Safety.SAFE, False),
    ],
)
def test_a_declaration_allows_only_what_it_says(
    declared: FixSafety, safety: Safety, allowed: bool
) -> None:
    assert declared.allows(safety) is allowed
