"""Decide which version of a third-party library (albumentations, imgaug, MONAI, ...) to assume.

Like the torch target (see `torch_version`), per distribution, the first of these that gives
a version wins: a `--library-version` option, the `[tool.workerseed] library-versions`
setting, the project's dependency declarations (read by `torch_version.declarations`:
requirements*.txt, pyproject.toml including Poetry, setup.py / setup.cfg, env*.yml including
its `pip:` section, Pipfile, and those below the root when none at the root declares the
distribution; else a notebook's `!pip install`), a lock file (poetry.lock, uv.lock, pdm.lock,
Pipfile.lock) for a distribution the project does not declare itself, the distribution
installed in the running environment, and finally the newest release of that distribution.
Declarations come first, as for torch (DESIGN section 2): the lowest release they admit is
the one the code must work with, whatever one machine's lock file installed.

A declaration stands for the lowest release it admits, as for torch (DESIGN section 2): an
exact pin is that version, otherwise the highest lower bound among its specifiers
(`>=1.1.0` is 1.1.0, `~=1.4.22` is 1.4.22, Poetry's `^1.3` is 1.3); a declaration with only
an upper bound stands for the newest release below it (`<1.4.21`), and one with no bound
at all for the newest release. Of several declarations (alternatives, extras, conda files)
the lowest counts, "below X" counting as lower than X.
Distributions that share an import name (`albumentations` and its successor
`albumentationsx`) are told apart by the name they are declared or installed under.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .read_once import once
from .torch_version import Names, declarations, parse_version, pip_spec

__all__ = [
    "NEWEST_RELEASES",
    "LibraryVersion",
    "detect_library",
    "parse_override",
]

#: The newest release of each distribution the rules know about (checked 2026-12-03).
#: `albumentations` is no longer developed: 2.0.8 is its last release.
NEWEST_RELEASES: dict[str, tuple[int, ...]] = {
    "albumentations": (2, 0, 8),
    "albumentationsx": (2, 5, 1),
    "imgaug": (0, 4, 0),
    "monai": (1, 6, 1),
    "audiomentations": (0, 43, 1),
    # Lightning's Trainer defaults to every visible device from 2.0 on.
    "pytorch-lightning": (2, 5, 5),
    "lightning": (2, 5, 5),
}

_LOCK_FILES = ("poetry.lock", "uv.lock", "pdm.lock")
_CLAUSE = re.compile(r"(===|~=|==|!=|<=|>=|<|>|\^|~|=)?\s*(.+)")


@dataclass(frozen=True)
class LibraryVersion:
    """The version of one distribution the analysis assumes, and where that came from."""

    distribution: str
    #: The release, as (major, minor, micro).
    version: tuple[int, ...]
    #: True when only an exclusive upper bound is known: the newest release below `version`.
    below: bool = False
    #: e.g. "requirements.txt", "--library-version", "installed", "newest release".
    source: str = "newest release"

    def within(self, low: tuple[int, ...] | None, high: tuple[int, ...] | None) -> bool:
        """Return True if the assumed release lies in `[low, high)` (None: unbounded)."""
        version = _trim(self.version)
        if self.below:
            # The newest release below `version`: at least `low` only if `low` is lower.
            return (low is None or _trim(low) < version) and (
                high is None or version <= _trim(high)
            )
        return (low is None or _trim(low) <= version) and (high is None or version < _trim(high))

    def describe(self) -> str:
        """Return e.g. "albumentations 2.0.8 (requirements.txt)"."""
        text = ".".join(str(part) for part in self.version)
        operator = "<" if self.below else " "
        return f"{self.distribution}{operator}{text} ({self.source})"


def parse_override(text: str, source: str) -> tuple[str, str]:
    """Return (distribution, version) from `name==1.2.3` (ValueError if malformed)."""
    name, separator, version = text.partition("==")
    if not separator:
        name, separator, version = text.partition("=")
    name = _normalize(name.strip())
    if not separator or not name or not version.strip():
        raise ValueError(
            f"{source}: expected NAME==VERSION (e.g. albumentations==2.0.8), got {text!r}"
        )
    try:
        parse_version(version)
    except ValueError:
        raise ValueError(f"{source}: invalid version {version.strip()!r} for {name}") from None
    return name, version.strip()


def detect_library(
    root: Path,
    distributions: Iterable[str],
    overrides: Iterable[tuple[str, str, str]] = (),
) -> LibraryVersion:
    """Return the version to assume for a package that one of `distributions` provides.

    `distributions` are tried in order (an import name may belong to several); the first is
    assumed when nothing names any. `overrides` are (distribution, version, source) triples,
    later ones winning.
    """
    candidates = [_normalize(name) for name in distributions]
    chosen: dict[str, tuple[str, str]] = {}
    for name, version, source in overrides:
        chosen[_normalize(name)] = (version, source)
    for name in candidates:
        if name in chosen:
            version, source = chosen[name]
            return LibraryVersion(name, parse_version(version), source=source)
    for name in candidates:
        declared = _declared(root, name) or _installed_by_notebook(root, name)
        if declared is not None:
            return declared
    for name in candidates:
        # A distribution the project does not declare itself (a dependency of one it does).
        locked = _locked(root, name)
        if locked is not None:
            return locked
    for name in candidates:
        try:
            return LibraryVersion(
                name, parse_version(importlib.metadata.version(name)), source="installed"
            )
        except (importlib.metadata.PackageNotFoundError, ValueError):
            continue
    first = candidates[0]
    return LibraryVersion(first, NEWEST_RELEASES.get(first, (0,)), source="newest release")


# --- declarations ---


def _declared(root: Path, name: str) -> LibraryVersion | None:
    """Return the release the project's declarations of `name` install, if any declare it."""
    found = [_resolve(name, spec, source) for spec, source in declarations(root, _names(name))]
    if not found:
        return None
    # Several declarations (an extra, a conda file): the lowest, as for torch.
    return min(found, key=_version_key)


def _resolve(name: str, spec: str, source: str) -> LibraryVersion:
    """Return the release of `name` that `spec` stands for (alternatives: the lowest)."""
    newest = NEWEST_RELEASES.get(name)
    options = [_conjunction(name, part, newest, source) for part in spec.split("|") if part.strip()]
    if not options:
        return LibraryVersion(name, newest or (0,), source=f"newest release admitted by {source}")
    return min(options, key=_version_key)


def _version_key(item: LibraryVersion) -> tuple[tuple[int, ...], bool]:
    """Order releases so that "below X" comes before X."""
    return _trim(item.version), not item.below


def _conjunction(
    name: str, spec: str, newest: tuple[int, ...] | None, source: str
) -> LibraryVersion:
    upper: tuple[tuple[int, ...], bool] | None = None  # (version, exclusive)
    lower: tuple[int, ...] | None = None
    for clause in re.split(r"\s*,\s*", spec.strip()):
        match = _CLAUSE.fullmatch(clause.strip())
        if match is None or match[1] == "!=" or match[2].strip() in ("", "*"):
            continue
        operator, text = match[1] or "==", match[2].strip()
        try:
            version = parse_version(text.removesuffix(".*"))
        except ValueError:
            continue
        if operator in ("==", "===", "=") and not text.endswith(".*"):
            return LibraryVersion(name, version, source=source)
        if operator in ("<", "<="):
            bound = (version, operator == "<")
            if upper is None or _trim(bound[0]) < _trim(upper[0]):
                upper = bound
        else:
            # `>=`, `>`, `~=`, Poetry's `^` and `~`, a wildcard `1.4.*`, conda's `=1.4`:
            # the lowest release admitted starts here.
            lower = version if lower is None else max(lower, version, key=_trim)
    if lower is not None:
        return LibraryVersion(name, lower, source=source)
    if upper is None:
        return LibraryVersion(name, newest or (0,), source=f"newest release admitted by {source}")
    version, exclusive = upper
    if newest is not None and (
        _trim(newest) < _trim(version) or (not exclusive and _trim(newest) == _trim(version))
    ):
        return LibraryVersion(name, newest, source=f"newest release admitted by {source}")
    return LibraryVersion(name, version, below=exclusive, source=source)


# --- notebooks: `!pip install albumentations==1.4.24` ---

_PIP_INSTALL = re.compile(r"^\s*[!%]\s*pip3?\s+install\s+(.*)$")
#: Notebooks read at most, so a repository of thousands of them stays quick.
_MAX_NOTEBOOKS = 200
_SKIPPED = frozenset({"node_modules", "site-packages", "venv", "env", "__pycache__"})


def _notebooks(root: Path) -> list[Path]:
    """Return the project's notebooks, skipping hidden folders and installed packages."""
    return once(("notebooks", root), lambda: _walk_notebooks(root))


def _walk_notebooks(root: Path) -> list[Path]:
    found: list[Path] = []
    for directory, folders, names in os.walk(root):
        folders[:] = sorted(
            folder for folder in folders if not folder.startswith(".") and folder not in _SKIPPED
        )
        found.extend(Path(directory, name) for name in sorted(names) if name.endswith(".ipynb"))
        if len(found) >= _MAX_NOTEBOOKS:
            break
    return found[:_MAX_NOTEBOOKS]


def _installed_by_notebook(root: Path, name: str) -> LibraryVersion | None:
    """Return the release a notebook's `!pip install` / `%pip install` of `name` gets."""
    found: list[LibraryVersion] = []
    for path in _notebooks(root):
        try:
            cells = _mapping(json.loads(path.read_text(encoding="utf-8"))).get("cells")
        except (OSError, ValueError):
            continue
        source = path.relative_to(root).as_posix()
        for cell in _list(cells):
            text = cell.get("source", "")
            lines = text if isinstance(text, list) else str(text).splitlines()
            for line in lines:
                match = _PIP_INSTALL.match(str(line))
                if match is None:
                    continue
                for word in match[1].split():
                    spec = pip_spec(word.strip("'\""), _names(name))
                    if spec is not None and not word.startswith("-"):
                        found.append(_resolve(name, spec, source))
    return min(found, key=_version_key, default=None)


# --- lock files ---


def _locked(root: Path, name: str) -> LibraryVersion | None:
    for filename in _LOCK_FILES:
        path = root / filename
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for package in _list(data.get("package")):
            if _normalize(str(package.get("name", ""))) == name:
                found = _exact(str(package.get("version", "")), name, filename)
                if found is not None:
                    return found
    path = root / "Pipfile.lock"
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        for section in ("default", "develop"):
            for key, entry in _mapping(_mapping(data).get(section)).items():
                if _normalize(key) == name:
                    pinned = str(_mapping(entry).get("version", "")).lstrip("=")
                    found = _exact(pinned, name, "Pipfile.lock")
                    if found is not None:
                        return found
    return None


def _exact(text: str, name: str, source: str) -> LibraryVersion | None:
    try:
        return LibraryVersion(name, parse_version(text), source=source)
    except ValueError:
        return None


def _list(value: object) -> Iterator[Mapping[str, object]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


# --- versions ---


def _names(name: str) -> Names:
    spellings = frozenset({name, name.replace("-", "_")})
    return Names(spellings, spellings)


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _trim(version: tuple[int, ...]) -> tuple[int, ...]:
    end = len(version)
    while end > 1 and version[end - 1] == 0:
        end -= 1
    return version[:end]
