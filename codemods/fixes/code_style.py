"""What a project's formatter and import sorter expect of the code a fix writes."""

from __future__ import annotations

import configparser
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .import_placement import first_party_modules

#: black's and ruff's default.
DEFAULT_LINE_LENGTH = 88


@dataclass(frozen=True)
class CodeStyle:
    #: The project's top-level modules, which an import sorter puts in their own section.
    first_party: frozenset[str] = frozenset()
    #: The longest line the project's formatter keeps.
    line_length: int = DEFAULT_LINE_LENGTH


#: The style assumed when no project is at hand.
DEFAULT_STYLE = CodeStyle()


def code_style(root: Path) -> CodeStyle:
    """Return the style of the project at `root`."""
    return CodeStyle(first_party_modules(root), configured_line_length(root))


def configured_line_length(root: Path) -> int:
    """Return the line length the project configures: ruff's `line-length` (`ruff.toml`,
    `.ruff.toml`, `[tool.ruff]` of `pyproject.toml`), else black's, else flake8's
    `max-line-length` (`setup.cfg`, `tox.ini`, `.flake8`), else 88."""
    tool = _toml(root / "pyproject.toml").get("tool")
    tool = tool if isinstance(tool, dict) else {}
    for table in (
        _toml(root / "ruff.toml"),
        _toml(root / ".ruff.toml"),
        tool.get("ruff"),
        tool.get("black"),
    ):
        length = table.get("line-length") if isinstance(table, dict) else None
        if isinstance(length, int) and not isinstance(length, bool) and length > 0:
            return length
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        parser = configparser.ConfigParser()
        try:
            parser.read(root / name, encoding="utf-8")
            return parser.getint("flake8", "max-line-length")
        except (configparser.Error, UnicodeDecodeError, ValueError):
            continue
    return DEFAULT_LINE_LENGTH


def _toml(path: Path) -> dict[str, object]:
    """Return the document of TOML file `path`; empty if it is missing or unreadable."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
