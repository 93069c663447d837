"""Errors raised in one layer and handled in another (settings, reading files, fixes)."""

from __future__ import annotations

from .types import SkipReason


class ConfigError(Exception):
    """A configuration file or option is invalid (exit code 2)."""


class SourceError(Exception):
    """A file could not be read as Python source."""

    def __init__(self, reason: SkipReason, detail: str) -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail

    def __str__(self) -> str:
        return self.detail


class FixError(Exception):
    """A fix could not be applied (its target is gone, or the result would not parse)."""


def describe_os_error(error: OSError) -> str:
    """Say what went wrong with a file in a few words, for a message that names the file."""
    if isinstance(error, FileNotFoundError):
        return "file not found (deleted while running?)"
    if isinstance(error, PermissionError):
        return "permission denied"
    if isinstance(error, IsADirectoryError):
        return "is a directory"
    return error.strerror or str(error)
