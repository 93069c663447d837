"""Decide which torch version the analysis assumes for a project.

The first of these that gives a version wins: the `--torch-version` option, the
`[tool.workerseed] torch-version` setting, the project's dependency declarations, the torch
installed in the running environment, and finally "latest".

Declarations are read, never executed, in this order (which breaks ties between equal
versions): pyproject.toml, setup.cfg, setup.py, requirements*.txt at the root, then
requirements/*.txt, Pipfile, env*.yml / env*.yaml (environment.yml, env.yml), conda*.yml /
conda*.yaml (conda_env.yml, conda_environment.yaml); each glob sorted by name. A
requirements file is read at most once, however often it is included; a declaration found
in an included file, or in the packaging files of a project package that a
requirements line installs by its path (`-e ./ops`), is attributed to that file. A line
pinning with one `=` (`pytorch=1.4.0=py3.7_0`) belongs to a conda package list and is read
with conda's names. A wheel a requirements line gives by its URL or path
(`https://download.pytorch.org/whl/cu100/torch-1.2.0-cp36-cp36m-manylinux1_x86_64.whl`) pins
the version its file name carries. When no file at the root declares the package, the
shallowest requirement, environment and packaging files below the root that do are read
instead (see `declaration_places`). A file that cannot be read or parsed is skipped.

Each declaration of torch gives one bound: the highest lower bound among its specifiers, or,
when it has none, its tightest upper bound (`<1.9` becomes "below 1.9", `<=1.8.1` becomes
1.8.1). The project's target is the lowest of these bounds, where "below X" counts as lower
than X itself, so a lower bound only beats an upper-bound-only declaration when it is lower.
Environment markers are not evaluated: every alternative counts. Only `torch` names torch in
pip and Python packaging files; conda lists also accept `pytorch`.
"""

from __future__ import annotations

import configparser
import importlib.metadata
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from pathlib import Path

from codemods.types import TorchTarget

from .declaration_places import local_package, nested_files
from .read_once import note_read, once
from .setup_requirements import SETUP_KEYWORDS, setup_requirements

__all__ = [
    "Declaration",
    "Names",
    "declarations",
    "declared_target",
    "detect_target",
    "installed_target",
    "parse_version",
    "pip_spec",
    "target_from_option",
]

_VERSION = re.compile(
    r"""
    v?(?:\d+!)?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?
    (?:-\d+|[-_.]?(?:post|rev|r)[-_.]?\d*)?
    (?:[-_.]?dev[-_.]?\d*)?
    (?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?
    """,
    re.VERBOSE | re.IGNORECASE,
)
# `=>` and `=<` are common misspellings of `>=` and `<=`: pip rejects them, but what the
# author declared is plain, and reading such a line as no bound at all would be wrong.
_OPERATOR = r"===|~=|==|!=|<=|>=|=<|=>|<|>|\^|~|="
_CLAUSE = re.compile(rf"({_OPERATOR})?(.+)")
_SPACE_AFTER_OPERATOR = re.compile(rf"({_OPERATOR})\s+")
_REQUIREMENT = re.compile(
    r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?(.*)", re.DOTALL
)
_CONDA_SPEC = re.compile(r"(?:[\w.\-/]+::)?([A-Za-z0-9_.\-]+)(.*)", re.DOTALL)
# Per-requirement options such as `--hash=...` follow the requirement on the same line.
_INLINE_OPTION = re.compile(r"\s+--?[A-Za-z]")
#: A wheel's file name at the end of a URL or path: its distribution name and version (a
#: local version label such as `+cu100`, or `%2Bcu100` in a URL, is left out).
_WHEEL = re.compile(
    r"(?:^|[/=@\s])([A-Za-z0-9_.]+)-([0-9][A-Za-z0-9_.]*)(?:(?:\+|%2B)[^-/]*)?-[^/]*\.whl$",
    re.IGNORECASE,
)
_INCLUDE = re.compile(r"(?:--requirement|-r)[\s=]*(\S.*)")
_PACKAGE_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
_CONDA_PIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*=[^=<>]")
#: `  - pytorch=1.4.0=py3.7_0`: an environment's package list pasted into a requirements
#: file. A pip option has no space after its dash (`-r`, `--index-url`).
_LIST_ITEM = re.compile(r"^-\s+")
_COMMENT = re.compile(r"(?:^|\s+)#.*$")
_CONTINUATION = re.compile(r"\\\r?\n")
# `pytorch==1.2.0` in a requirements file: PyPI's `pytorch` is a placeholder that refuses to
# install, so the line can only mean torch itself (installed with conda, under that name).
_PIP_NAMES = frozenset({"torch", "pytorch"})
_CONDA_NAMES = frozenset({"torch", "pytorch"})
_PARSE_ERRORS = (OSError, ValueError, SyntaxError, RecursionError, configparser.Error)

_Bound = tuple[tuple[int, ...], bool]


@dataclass(frozen=True)
class Names:
    """The distribution names one package goes by in pip files and in conda lists."""

    pip: frozenset[str]
    conda: frozenset[str]


#: A declaration: the version specifier text and the file (relative to the root) it is in.
Declaration = tuple[str, str]
_Reader = Callable[[Path, Path, set[Path], Names], Iterator[Declaration]]
_TORCH = Names(_PIP_NAMES, _CONDA_NAMES)


def parse_version(text: str) -> tuple[int, ...]:
    """Return the release numbers of a version, ignoring pre-release and local parts."""
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"invalid version {text!r}: expected something like 1.8 or 1.8.1")
    return tuple(int(part) for part in match["release"].split("."))


def target_from_option(text: str, source: str) -> TorchTarget:
    """Return the target named by a `--torch-version` or configuration value."""
    if text.strip().lower() == "latest":
        return TorchTarget(None, source=source)
    try:
        return TorchTarget(parse_version(text), source=source)
    except ValueError:
        raise ValueError(
            f"{source}: invalid torch version {text!r}; expected e.g. 1.8, 1.8.1 or latest"
        ) from None


def declared_target(root: Path) -> TorchTarget | None:
    """Return the lowest torch version the project's dependency declarations admit."""
    found = once(("torch declarations", root), lambda: declarations(root, _TORCH))
    targets = (_target(spec, source) for spec, source in found)
    candidates = [target for target in targets if target is not None]
    return min(candidates, key=_target_key, default=None)


def declarations(root: Path, names: Names) -> list[Declaration]:
    """Return every version specifier the project's dependency files give the package `names`.

    Only when no file at the root declares it, the shallowest requirement, environment and
    packaging files below the root that do (see `declaration_places`).
    """
    seen: set[Path] = set()
    found = _read_all(_declaration_files(root), root, seen, names)
    depths = groupby(() if found else nested_files(root), key=itemgetter(0))
    for _, group in depths:
        found = _read_all(((path, _nested_reader(path)) for _, path in group), root, seen, names)
        if found:
            break
    return found


def _read_all(
    files: Iterable[tuple[Path, _Reader]], root: Path, seen: set[Path], names: Names
) -> list[Declaration]:
    found: list[Declaration] = []
    for path, read in files:
        try:
            found.extend(list(read(path, root, seen, names)))
        except _PARSE_ERRORS:
            continue
    return found


def installed_target() -> TorchTarget | None:
    """Return the version of torch installed in the running environment, if any."""
    try:
        text = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None
    try:
        return TorchTarget(parse_version(text), source="installed")
    except ValueError:
        return None


def detect_target(
    root: Path,
    *,
    option: str | None = None,
    config: str | None = None,
    config_source: str = "pyproject.toml",
) -> TorchTarget:
    """Return the torch version to assume: option, config, declarations, installed, latest."""
    if option is not None:
        return target_from_option(option, "--torch-version")
    if config is not None:
        return target_from_option(config, config_source)
    return declared_target(root) or installed_target() or TorchTarget(None, source="latest")


# --- Bounds ---


def _trim(version: tuple[int, ...]) -> tuple[int, ...]:
    end = len(version)
    while end > 1 and version[end - 1] == 0:
        end -= 1
    return version[:end]


def _bound_key(bound: _Bound) -> tuple[tuple[int, ...], bool]:
    version, below = bound
    return _trim(version), not below


def _target_key(target: TorchTarget) -> tuple[tuple[int, ...], bool]:
    return _bound_key((target.version or (), target.below))


def _conjunction(spec: str) -> _Bound | None:
    lowers: list[tuple[int, ...]] = []
    uppers: list[_Bound] = []
    for clause in re.split(r"[\s,]+", _SPACE_AFTER_OPERATOR.sub(r"\1", spec).strip()):
        match = _CLAUSE.fullmatch(clause)
        if match is None or match[1] == "!=":
            continue
        try:
            version = parse_version(match[2].removesuffix(".*"))
        except ValueError:
            continue
        if match[1] == "<":
            uppers.append((version, True))
        elif match[1] in ("<=", "=<"):
            uppers.append((version, False))
        else:
            lowers.append(version)
    if lowers:
        return max(lowers, key=_trim), False
    return min(uppers, key=_bound_key, default=None)


def _target(spec: str | None, source: str) -> TorchTarget | None:
    if spec is None:
        return None
    # Poetry separates alternatives with "||", conda with "|".
    bounds = [bound for part in spec.split("|") if (bound := _conjunction(part)) is not None]
    bound = min(bounds, key=_bound_key, default=None)
    if bound is None:
        return None
    return TorchTarget(bound[0], below=bound[1], source=source)


def _declared(specs: Iterable[str | None], source: str) -> Iterator[Declaration]:
    for spec in specs:
        if spec is not None:
            yield spec, source


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip_spec(requirement: str, names: Names) -> str | None:
    """Return the version specifier of a pip requirement naming the package, if it does.

    A wheel given by its URL or path (`https://download.pytorch.org/whl/cu100/torch-1.2.0-
    cp36-cp36m-manylinux1_x86_64.whl`, or `torch @ <url>`) pins the version its file name
    carries."""
    line = _INLINE_OPTION.split(requirement, maxsplit=1)[0]
    wheel = _WHEEL.search(line.split(";", 1)[0].strip())
    if wheel is not None:
        return f"=={wheel[2]}" if _normalize(wheel[1]) in names.pip else None
    match = _REQUIREMENT.fullmatch(line)
    if match is None or _normalize(match[1]) not in names.pip:
        return None
    rest = match[2].strip()
    if rest.startswith("@"):
        return None
    spec = rest.split(";", 1)[0].strip()
    if spec.startswith("(") and spec.endswith(")"):
        spec = spec[1:-1]
    return spec


def _conda_spec(item: str, names: Names) -> str | None:
    match = _CONDA_SPEC.fullmatch(item.strip())
    if match is None or _normalize(match[1]) not in names.conda:
        return None
    rest = re.sub(r"\s*,\s*", ",", _SPACE_AFTER_OPERATOR.sub(r"\1", match[2].strip()))
    if not rest:
        return None
    token = rest.split()[0]
    # `pytorch=1.8.1=py3.8_cuda11.1_0`: the part after the second "=" is a build string.
    if token.startswith("=") and not token.startswith("==="):
        token = "==" + token.lstrip("=").split("=", 1)[0]
    return token


def _lines(text: str) -> Iterator[str]:
    for line in _CONTINUATION.sub("", text).splitlines():
        stripped = _COMMENT.sub("", line).strip()
        if stripped:
            yield stripped


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:
        return path.as_posix()


def _read(path: Path) -> str:
    note_read(path)  # it may lie outside the project (`-r ../base.txt`)
    return path.read_text(encoding="utf-8-sig")


def _table(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _table_specs(value: object) -> Iterator[str]:
    """Yield the version strings of a Poetry or Pipfile dependency value."""
    entries = value if isinstance(value, list) else [value]
    for entry in entries:
        version = _table(entry).get("version") if isinstance(entry, dict) else entry
        if isinstance(version, str):
            yield version


#: The conda environment files read at a folder, in this order (each glob sorted by name).
ENVIRONMENT_FILES = ("env*.yml", "env*.yaml", "conda*.yml", "conda*.yaml")


# --- Readers, one per file format ---


def _declaration_files(root: Path) -> Iterator[tuple[Path, _Reader]]:
    yield root / "pyproject.toml", _from_pyproject
    yield root / "setup.cfg", _from_setup_cfg
    yield root / "setup.py", _from_setup_py
    for path in sorted(root.glob("requirements*.txt")):
        yield path, _from_requirements
    for path in sorted((root / "requirements").glob("*.txt")):
        yield path, _from_requirements
    yield root / "Pipfile", _from_pipfile
    for pattern in ENVIRONMENT_FILES:
        for path in sorted(root.glob(pattern)):
            yield path, _from_environment


def _nested_reader(path: Path) -> _Reader:
    readers = (_from_pyproject, _from_setup_cfg, _from_setup_py)
    packaging = dict(zip(_PACKAGE_FILES, readers, strict=True))
    if path.name in packaging:
        return packaging[path.name]
    return _from_requirements if path.suffix == ".txt" else _from_environment


def _from_package(
    directory: Path, root: Path, seen: set[Path], names: Names
) -> Iterator[Declaration]:
    """Yield what a project package installed by its path declares."""
    readers = (_from_pyproject, _from_setup_cfg, _from_setup_py)
    files = zip((directory / name for name in _PACKAGE_FILES), readers, strict=True)
    unread = [(path, read) for path, read in files if path not in seen]
    seen.update(path for path, _ in unread)
    yield from _read_all(unread, root, seen, names)


def _from_requirements(
    path: Path, root: Path, seen: set[Path], names: Names
) -> Iterator[Declaration]:
    key = path.resolve()
    if key in seen or not path.is_file():
        return
    seen.add(key)
    try:
        text = _read(path)
    except (OSError, ValueError):
        return
    source = _relative(path, root)
    for line in (_LIST_ITEM.sub("", line, count=1) for line in _lines(text)):
        include = _INCLUDE.fullmatch(line)
        if include is not None:
            yield from _from_requirements(path.parent / include[1].strip(), root, seen, names)
        elif (package := local_package(line, path.parent, root)) is not None:
            yield from _from_package(package, root, seen, names)
        elif _CONDA_PIN.match(line):
            # `pytorch=1.4.0=py3.7_cuda10.1_0` is no pip requirement (pip spells `==`): the
            # file is a conda package list (`conda list --export`), read with conda's names.
            yield from _declared([_conda_spec(line, names)], source)
        elif not line.startswith("-"):
            yield from _declared([pip_spec(line, names)], source)


def _from_pyproject(path: Path, root: Path, seen: set[Path], names: Names) -> Iterator[Declaration]:
    if not path.is_file():
        return
    data = tomllib.loads(_read(path))
    source = _relative(path, root)
    project = _table(data.get("project"))
    requirements = _strings(project.get("dependencies"))
    for extra in _table(project.get("optional-dependencies")).values():
        requirements += _strings(extra)
    for group in _table(data.get("dependency-groups")).values():
        requirements += _strings(group)
    yield from _declared((pip_spec(item, names) for item in requirements), source)

    poetry = _table(_table(data.get("tool")).get("poetry"))
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    tables += [_table(group).get("dependencies") for group in _table(poetry.get("group")).values()]
    for table in tables:
        for name, value in _table(table).items():
            if _normalize(name) in names.pip:
                yield from _declared(_table_specs(value), source)


def _from_pipfile(path: Path, root: Path, seen: set[Path], names: Names) -> Iterator[Declaration]:
    if not path.is_file():
        return
    data = tomllib.loads(_read(path))
    source = _relative(path, root)
    for section in ("packages", "dev-packages"):
        for name, value in _table(data.get(section)).items():
            if _normalize(name) in names.pip:
                yield from _declared(_table_specs(value), source)


def _from_setup_cfg(path: Path, root: Path, seen: set[Path], names: Names) -> Iterator[Declaration]:
    if not path.is_file():
        return
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(_read(path), source=str(path))
    values: list[str] = []
    if parser.has_section("options"):
        values += [parser.get("options", key, fallback="") for key in SETUP_KEYWORDS]
    if parser.has_section("options.extras_require"):
        section = parser["options.extras_require"]
        values += [section[key] for key in section]
    lines = (line for value in values for line in _lines(value))
    yield from _declared((pip_spec(line, names) for line in lines), _relative(path, root))


def _from_setup_py(path: Path, root: Path, seen: set[Path], names: Names) -> Iterator[Declaration]:
    if not path.is_file():
        return
    lines = (line for text in setup_requirements(path) for line in _lines(text))
    yield from _declared((pip_spec(line, names) for line in lines), _relative(path, root))


def _from_environment(
    path: Path, root: Path, seen: set[Path], names: Names
) -> Iterator[Declaration]:
    if not path.is_file():
        return
    source = _relative(path, root)
    section: str | None = None
    pip_indent: int | None = None
    for raw in _read(path).splitlines():
        line = _COMMENT.sub("", raw).rstrip()
        stripped = line.lstrip()
        if not stripped:
            continue
        indent = len(line) - len(stripped)
        is_item = stripped == "-" or stripped.startswith("- ")
        if indent == 0 and not is_item:
            section = stripped.split(":", 1)[0].strip()
            pip_indent = None
            continue
        if section != "dependencies" or not is_item:
            continue
        if pip_indent is not None and indent <= pip_indent:
            pip_indent = None
        item = stripped[1:].strip().strip("'\"")
        if item.replace(" ", "") == "pip:":
            pip_indent = indent
        elif pip_indent is None:
            yield from _declared([_conda_spec(item, names)], source)
        elif (include := _INCLUDE.fullmatch(item)) is not None:
            yield from _from_requirements(path.parent / include[1].strip(), root, seen, names)
        elif not item.startswith("-"):
            yield from _declared([pip_spec(item, names)], source)
