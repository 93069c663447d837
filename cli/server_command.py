"""`workerseed server`: start the Language Server, or say how to install what it needs."""

from __future__ import annotations

import click

from .options import ConfigurationError


@click.command("server")
def server_command() -> None:
    """Run a Language Server on standard input and output, for editors.

    Diagnostics, quick fixes and a "fix all" action, with rule documentation on hover. Needs
    the optional dependencies: pip install 'workerseed[server]'.
    """
    try:
        from . import server_features
    except ModuleNotFoundError as error:
        package = (error.name or "").partition(".")[0]
        if package not in ("pygls", "lsprotocol"):
            raise
        raise ConfigurationError(
            f"`workerseed server` needs {package}, which is not installed: "
            "pip install 'workerseed[server]'"
        ) from error
    server_features.serve()
