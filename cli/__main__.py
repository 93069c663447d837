"""`python -m cli`: the same as the `workerseed` command."""

from __future__ import annotations

from .main import main

main(prog_name="workerseed")
