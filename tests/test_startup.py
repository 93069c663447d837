"""`workerseed --version` and `--help` start without the heavy modules: rich, libcst, the
rules and the engine are imported only by the commands that use them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import codemods
from cli import main as cli_main

HEAVY = ("rich", "libcst", "codemods.engine", "codemods.registry", "codemods.rules")

_PROBE = """
import json, sys
from cli.main import main
try:
    main({arguments!r}, prog_name="workerseed")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("arguments", [["--version"], ["--help"], ["check", "--help"]])
def test_start_up_imports_no_heavy_module(arguments: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(arguments=arguments)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.stdout
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    heavy = [name for name in loaded if name.split(".")[0] in HEAVY or name.startswith(HEAVY)]
    assert heavy == []


def test_the_command_states_the_package_version() -> None:
    assert cli_main.__version__ == codemods.__version__
