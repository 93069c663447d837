"""Where, besides the files at its root, a project declares its dependencies.

A requirements file may install a package of the project by its path (`-e ./ops`,
`./ops_lib/.`): what that package's pyproject.toml, setup.cfg or setup.py declares is part
of what the requirements file installs, and counts like it.

Research repositories often keep their pins beside a Dockerfile or an install script
(`docker/requirements.txt`, `installation/requirements.txt`) rather than at the root. When
no top-level file declares a package, the requirement and environment files below the root
are read instead, and only the shallowest of them that declare it count: a pin deeper down
(an example's own environment) describes that example more than the project.

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
from pathlib import Path

from ..files import DEFAULT_EXCLUDES

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


def nested_files(root: Path) -> Iterator[tuple[int, Path]]:
    """Yield (depth, path) for each requirements*.txt, requirements/*.txt and env*.yml /
    env*.yaml file below the root (not at it), shallowest first, sorted within a depth."""
    level = [root]
    for depth in range(1, MAX_DEPTH + 1):
        directories = sorted(child for parent in level for child in _subdirectories(parent))
        for directory in directories:
            for path in _declaration_files(directory):
                yield depth, path
        level = directories


def _subdirectories(parent: Path) -> Iterator[Path]:
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name.lower() in _SKIPPED:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        path = Path(entry.path)
        # A git submodule (or any checkout inside this one) is another repository.
        if not (path / ".git").exists():
            yield path


def _declaration_files(directory: Path) -> Iterator[Path]:
    names = sorted(
        path
        for pattern in ("requirements*.txt", "env*.yml", "env*.yaml")
        for path in directory.glob(pattern)
        if path.is_file()
    )
    yield from names
    nested = directory / "requirements"
    if nested.is_dir():
        yield from sorted(path for path in nested.glob("*.txt") if path.is_file())


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
