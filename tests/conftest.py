"""Shared pytest options: `--update-fixtures` rewrites expected fixture outputs."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-fixtures",
        action="store_true",
        help="Rewrite fixtures/*/*/after and findings.txt from the output (review: git diff).",
    )


@pytest.fixture
def update_fixtures(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-fixtures"))
