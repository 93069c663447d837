"""Where, besides the files at its root, a project declares its dependencies.

A requirements file may install a package of the project by its path (`-e ./ops`,
`./ops_lib/.`): what that package's pyproject.toml, setup.cfg or setup.py declares is part
of what the requirements file installs, and counts like it.

Research repositories often keep their pins beside a Dockerfile or an install script
(`docker/requirements.txt`, `installation/requirements.txt`), or only in the packaging files
of a package of their own that the README installs by hand (`pointnet2_ops_lib/setup.py`
asking for `torch>=1.4`), rather than at the root. When no top-level file declares a package,
the requirement, environment and packaging files below the root are read instead, and only
the shallowest of them that declare it count: a pin deeper down (an example's own
environment) describes that example more than the project.

A file at the root always wins: these files are never read when a top-level file declares the
package. Directories that hold someone else's code are never read: hidden and build
directories, virtual environments, git submodules, and the usual homes of vendored code
(`third_party/`, `vendor/`, `external/`, ...). Neither is `docs/`: its requirements set up
the documentation build, not the project's own runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path

from ..files import DEFAULT_EXCLUDES
from .read_once import once

__all__ = ["MAX_DEPTH", "local_package", "nested_files"]

#: How many directory levels below the root are searched.
MAX_DEPTH = 3

#: Directory names that conventionally hold vendored copies of other projects.
_VENDORED = frozenset(
    {
        "third_party",
        "third-party",
        "thirdparty",
        "3rdparty",
        "vendor",
        "vendored",
        "external",
        "externals",
        "extern",
        "submodules",
    }
)
#: Directories whose requirements serve another purpose than running the project.
_DOCUMENTATION = frozenset({"docs", "doc"})
_SKIPPED = frozenset(DEFAULT_EXCLUDES) | _VENDORED | _DOCUMENTATION


def nested_files(root: Path) -> list[tuple[int, Path]]:
    """Return (depth, path) for each requirements*.txt, requirements/*.txt, env*.yml /
    env*.yaml / conda*.yml / conda*.yaml, pyproject.toml, setup.cfg and setup.py file below
    the root (not at it), shallowest first, sorted within a depth."""
    return once(("nested declaration files", root), lambda: list(_nested_files(root)))


def _nested_files(root: Path) -> Iterator[tuple[int, Path]]:
    level = [root]
    for depth in range(1, MAX_DEPTH + 1):
        listed = sorted(
            (child, files) for parent in level for child, files in _subdirectories(parent)
        )
        for _, files in listed:
            for path in files:
                yield depth, path
        level = [directory for directory, _ in listed]


def _subdirectories(parent: Path) -> Iterator[tuple[Path, list[Path]]]:
    """Yield each directory below `parent` that is searched, with its declaration files.

    One `scandir` per directory lists both, which keeps a warm run's cost down.
    """
    for entry in _entries(parent):
        name = entry.name
        if name.startswith(".") or name.lower() in _SKIPPED:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        path = Path(entry.path)
        entries = _entries(path)
        # A git submodule (or any checkout inside this one) is another repository.
        if not any(child.name == ".git" for child in entries):
            yield path, _declaration_files(path, entries)


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return list(listing)
    except OSError:
        return []


def _declaration_files(directory: Path, entries: list[os.DirEntry[str]]) -> list[Path]:
    names = sorted(
        Path(entry.path)
        for entry in entries
        if any(fnmatchcase(entry.name, pattern) for pattern in _DECLARATION_PATTERNS)
        and _is_file(entry)
    )
    nested = next((entry for entry in entries if entry.name == "requirements"), None)
    if nested is not None and nested.is_dir():
        names += sorted(
            Path(entry.path)
            for entry in _entries(directory / "requirements")
            if fnmatchcase(entry.name, "*.txt") and _is_file(entry)
        )
    return names


_DECLARATION_PATTERNS = (
    "requirements*.txt",
    "env*.yml",
    "env*.yaml",
    "conda*.yml",
    "conda*.yaml",
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
)


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


_EDITABLE = re.compile(r"(?:-e|--editable)(?:\s+|=)(\S.*)")
# What follows a path: extras, an `#egg=` fragment, an environment marker, options.
_PATH_END = re.compile(r"[\[#;\s]")


def local_package(line: str, base: Path, root: Path) -> Path | None:
    """Return the project directory a requirements line (in a file in `base`) installs by
    its path, if it names one inside the project other than the root itself."""
    match = _EDITABLE.fullmatch(line)
    text = (match[1] if match else line).strip()
    # An editable install or a `file:` reference is always a path (or a URL); otherwise
    # pip takes a requirement for a path when it looks like one.
    named_path = match is not None or text.startswith("file:")
    if text.startswith("file:") and not text.startswith("file://"):
        text = text.removeprefix("file:")
    text = _PATH_END.split(text, maxsplit=1)[0]
    if "://" in text or "@" in text or not (named_path or text.startswith(".") or "/" in text):
        return None  # a URL, a VCS reference or a plain requirement
    try:
        directory = (base / text).resolve()
        top = root.resolve()
        if directory == top or not directory.is_dir():
            return None  # the root's own files are read anyway
        directory.relative_to(top)
    except (OSError, ValueError):
        return None  # outside the project: not ours to read
    return directory
