"""Shared pytest options: `--update-fixtures` rewrites expected fixture outputs.

Hypothesis profiles: `workerseed` (the default) is seeded, so every run tries the same
programs; `long` (`HYPOTHESIS_PROFILE=long`) tries twenty times as many, with a new seed
each run (see tests/test_properties.py).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

_BASE = settings(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("workerseed", _BASE, derandomize=True)
settings.register_profile("long", _BASE, derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "workerseed"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-fixtures",
        action="store_true",
        help="Rewrite fixtures/*/*/after and findings.txt from the output (review: git diff).",
    )


@pytest.fixture
def update_fixtures(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-fixtures"))
