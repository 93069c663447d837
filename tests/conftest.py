"""Shared pytest options: `--update-fixtures` rewrites expected fixture outputs.

Hypothesis profiles: `workerseed` (the default) is seeded, so every run tries the same
programs; `long` (`HYPOTHESIS_PROFILE=long`) tries twenty times as many, with a new seed
each run (see tests/test_properties.py).
"""

from __future__ import annotations

import os
import signal

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


def pytest_configure(config: pytest.Config) -> None:
    # A shell without job control starts a background job (`pytest &`) with Ctrl-C
    # ignored, and every process it starts inherits that: the tests of what Ctrl-C does
    # need it delivered as a terminal does. An ignored signal is inherited across exec; a
    # handler is not, so this also gives the programs the tests start Python's default.
    del config
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
