"""The `workerseed` command group: each command lives in a module of its own.

The command modules import click and this package's option and output helpers only: rich,
libcst, the rules and the engine are imported where they are used, so `--version` and
`--help` start without them.
"""

from __future__ import annotations

import click

from . import output
from .check_command import check
from .fix_command import fix
from .rules_command import rules
from .scan_command import scan_command
from .server_command import server_command

__version__ = "0.1.0"  # kept equal to codemods.__version__ (tests/test_startup.py)


@click.group(
    cls=output.InterruptibleGroup, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, prog_name="workerseed")
def main() -> None:
    """Find and fix duplicated randomness in PyTorch DataLoader workers."""


main.add_command(check)
main.add_command(fix)
main.add_command(rules)
main.add_command(server_command)
main.add_command(scan_command)

if __name__ == "__main__":
    main()
