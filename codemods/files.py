"""Find, read and safely rewrite the Python files of a project (writes: `atomic_writes`)."""

from __future__ import annotations

import codecs
import os
import re
import stat
import tokenize
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from codemods.gitignore import GitIgnore, Patterns
from codemods.lines import source_lines
from codemods.types import SkipReason, SourceFile

from . import notebooks
from .atomic_writes import WriteError, encode_text, write_atomic, write_text_atomic
from .errors import SourceError as SourceError
from .errors import describe_os_error

__all__ = [
    "DEFAULT_EXCLUDES",
    "SOURCE_SUFFIXES",
    "SourceError",
    "Stamp",
    "WriteError",
    "decode_source",
    "discover",
    "encode_source",
    "encode_text",
    "encoding_note",
    "find_project_root",
    "is_generated",
    "is_project_root",
    "python_text",
    "read_bytes",
    "read_source",
    "read_stamped",
    "stamp_of",
    "write_atomic",
    "write_text_atomic",
]

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    ".eggs",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".ipynb_checkpoints",
    "_build",
    "buck-out",
    "__pypackages__",
    ".workerseed_cache",
)

_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
#: What directory discovery collects: Python files and Jupyter notebooks.
SOURCE_SUFFIXES = (".py", ".ipynb")


def find_project_root(path: Path) -> Path:
    """Return the nearest enclosing directory that looks like a project root."""
    resolved = path.resolve()
    start = resolved if resolved.is_dir() else resolved.parent
    for directory in (start, *start.parents):
        if any(os.path.lexists(directory / marker) for marker in _ROOT_MARKERS):
            return directory
    return start


def is_project_root(directory: Path) -> bool:
    """Return True if `directory` holds a project marker (pyproject.toml, setup.py, .git...)."""
    return any(os.path.lexists(directory / marker) for marker in _ROOT_MARKERS)


def _inside(real: str, root: str) -> bool:
    prefix = root if root.endswith(os.sep) else root + os.sep
    return real == root or real.startswith(prefix)


def discover(
    paths: Sequence[Path],
    root: Path,
    *,
    exclude: Sequence[str] = (),
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
) -> Iterator[Path]:
    """Yield the Python files and notebooks in `paths` (files or directories below `root`)."""
    root_real = os.path.realpath(root)
    excludes = Patterns.from_lines([*(exclude or DEFAULT_EXCLUDES), *extend_exclude])
    gitignore = GitIgnore.for_root(Path(root_real)) if respect_gitignore else None
    found: set[str] = set()
    visited: set[str] = set()
    for given in paths:
        real = os.path.realpath(given)
        if not _inside(real, root_real):
            continue
        if os.path.isdir(real):
            relative = os.path.relpath(real, root_real)
            _walk(
                real,
                "" if relative == "." else relative,
                root_real,
                excludes,
                gitignore,
                found,
                visited,
            )
        elif os.path.isfile(real):
            # Like ruff without force-exclude: a file named explicitly is always checked.
            found.add(real)
    # Sorting split strings orders like Paths (by component) and is several times faster.
    yield from (Path(p) for p in sorted(found, key=lambda text: text.split(os.sep)))


def _walk(
    top: str,
    top_relative: str,
    root: str,
    excludes: Patterns,
    gitignore: GitIgnore | None,
    found: set[str],
    visited: set[str],
) -> None:
    # Below a directory git ignores, only what git tracks is kept: git ignores the rest.
    stack = [(top, top_relative.replace(os.sep, "/"), False)]
    while stack:
        directory, relative, only_tracked = stack.pop()
        if directory in visited:
            continue
        visited.add(directory)
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        subdirectories: list[tuple[str, str, bool]] = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
                if not is_dir and not (name.endswith(SOURCE_SUFFIXES) and entry.is_file()):
                    continue
                is_link = entry.is_symlink()
            except OSError:
                continue
            entry_relative = f"{relative}/{name}" if relative else name
            if excludes.match(entry_relative, is_dir=is_dir):
                continue
            tracked_only = only_tracked
            if gitignore is not None and (
                only_tracked or gitignore.ignores_entry(entry_relative, is_dir=is_dir)
            ):
                if not gitignore.is_tracked(entry_relative):
                    continue
                tracked_only = True
            if is_link:
                real = os.path.realpath(entry.path)
                if not _inside(real, root):
                    continue
                real_relative = os.path.relpath(real, root).replace(os.sep, "/")
            else:
                real = entry.path
                real_relative = entry_relative
            if is_dir:
                if real not in visited:
                    subdirectories.append(
                        (real, "" if real_relative == "." else real_relative, tracked_only)
                    )
            else:
                found.add(real)
        stack.extend(reversed(subdirectories))


def read_source(path: Path) -> SourceFile:
    """Read `path` as Python source, keeping what is needed to write it back byte for byte."""
    raw, mode = read_bytes(path)
    return decode_source(path, raw, mode)


#: What `stat` says of a file's version: size, mtime and ctime (ns), inode, device, mode.
#: Writing a file changes its mtime and ctime; setting the mtime back (`os.utime`, `touch -d`,
#: `cp -p`) changes the ctime, which no call can set; replacing it (an editor's save by
#: rename) changes the inode.
Stamp = tuple[int, int, int, int, int, int]


def stamp_of(status: os.stat_result) -> Stamp:
    """Return the stamp of a file from its `stat`."""
    return (
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
        status.st_ino,
        status.st_dev,
        status.st_mode,
    )


def read_bytes(path: Path) -> tuple[bytes, int]:
    """Return the bytes and permission bits of regular file `path` (SourceError if unreadable)."""
    raw, status = read_stamped(path)
    return raw, stat.S_IMODE(status[5])


def read_stamped(path: Path) -> tuple[bytes, Stamp]:
    """Return the bytes of regular file `path` and its stamp, taken before they were read
    (SourceError if unreadable): bytes written after the stamp change it."""
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            kind = "a directory" if stat.S_ISDIR(status.st_mode) else "not a regular file"
            raise SourceError(SkipReason.UNREADABLE, f"cannot read {path}: {kind}")
        with open(path, "rb") as handle:
            status = os.fstat(handle.fileno())
            raw = handle.read()
    except OSError as error:
        raise SourceError(
            SkipReason.UNREADABLE, f"cannot read {path}: {describe_os_error(error)}"
        ) from error
    return raw, stamp_of(status)


#: One line, ended where Python ends lines: at `\n`, `\r\n` or a lone `\r`.
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _first_lines(raw: bytes) -> Callable[[], bytes]:
    """Return a `readline` for the coding cookie search.

    `io.BytesIO.readline` ends lines at `\n` only: in a file with `\r` line endings the
    whole file would be the first line, and the cookie search would fail to decode it.
    """
    lines = (match.group() for match in _LINE.finditer(raw))
    return lambda: next(lines, b"")


def decode_source(path: Path, raw: bytes, mode: int) -> SourceFile:
    """Decode `raw` as Python source (PEP 263 cookie or BOM), keeping its line endings.

    A notebook's text is its code cells as one module (see `codemods.notebooks`).
    """
    if path.suffix.lower() == ".ipynb":
        return notebooks.read_module(path, raw, mode)
    try:
        encoding, _ = tokenize.detect_encoding(_first_lines(raw))
    except SyntaxError as error:
        cookie = _unknown_cookie(raw)
        if cookie is None:
            raise SourceError(SkipReason.NOT_UTF8, f"cannot decode {path}: {error.msg}") from error
        # A codec some package registers when it is imported (`future_fstrings`, say): Python
        # itself cannot know it before run time, but such files hold plain UTF-8 text. Decoding
        # fails below if they do not; the cookie is text like any other and is never rewritten.
        encoding = "utf-8"
    bom = raw.startswith(codecs.BOM_UTF8)
    body = raw[len(codecs.BOM_UTF8) :] if bom else raw
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    try:
        # bytes.decode keeps \r\n and \r as they are; only text-mode files translate them.
        text = body.decode(encoding)
    except UnicodeDecodeError as error:
        offset = error.start + (len(raw) - len(body))
        line = raw.count(b"\n", 0, offset) + 1
        column = offset - (raw.rfind(b"\n", 0, offset) + 1)
        bad = raw[offset : offset + 1].hex()
        raise SourceError(
            SkipReason.NOT_UTF8,
            f"cannot decode {path} as {encoding}: byte 0x{bad} at offset {offset} "
            f"(line {line}, column {column}): {error.reason}",
        ) from error
    return SourceFile(
        path=path,
        raw=raw,
        text=text,
        encoding=encoding,
        bom=bom,
        mode=mode,
        note=encoding_note(raw),
    )


def encoding_note(raw: bytes) -> str:
    """Return the note `decode_source` attaches to a file with these bytes ("" if none)."""
    notes = []
    cookie = _unknown_cookie(raw)
    if cookie:
        notes.append(f"unknown coding `{cookie}`: read as UTF-8")
    magic = _CELL_MAGIC.match(raw[:1024].decode("utf-8", "replace"))
    if magic:
        line = magic.group()
        notes.append(f"first line `{line}` is a notebook cell magic: the rest analysed as Python")
    return "; ".join(notes)


#: A notebook cell that writes the rest of the file (`%%writefile data.py`): files copied out
#: of notebooks often keep this first line, which the notebook strips when it writes the file.
_CELL_MAGIC = re.compile(r"%%(?:writefile|file)\b[^\r\n]*")


def python_text(text: str) -> str:
    """Return `text` as Python parses it: a leading `%%writefile` cell magic commented out.

    The line keeps its length, so every position in the file stays where it was.
    """
    if text.startswith("%%") and _CELL_MAGIC.match(text):
        return "#" + text[1:]
    return text


def with_cell_magic(original: str, fixed: str) -> str:
    """Return `fixed`, made from `python_text(original)`, with the cell magic line that
    `python_text` commented out restored (fixes insert nothing above a leading comment)."""
    if python_text(original) is not original and fixed.startswith("#%"):
        return "%" + fixed[1:]
    return fixed


#: PEP 263: the coding cookie, in a comment on one of the first two lines.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _unknown_cookie(raw: bytes) -> str | None:
    """Return the name a coding cookie declares if Python knows no codec of that name."""
    for line in raw.splitlines()[:2]:
        match = _COOKIE.match(line)
        if match is None:
            continue
        name = match.group(1).decode("ascii", "replace")
        try:
            codecs.lookup(name)
        except LookupError:
            return name
        return None
    return None


_GENERATED_COMMENT = re.compile(r"^\s*#.*\bDO NOT EDIT\b")


def is_generated(text: str) -> bool:
    """Return True if the text marks itself as generated code."""
    if "@generated" in text[:2048]:
        return True
    return any(_GENERATED_COMMENT.match(line) for line in text[:2048].splitlines()[:5])


def encode_source(path: Path, text: str) -> bytes:
    """Encode `text` as a file holding it is encoded: as its coding cookie declares, else UTF-8.

    Raises SourceError if the text cannot be written in the encoding it declares.
    """
    raw = text.encode("utf-8")
    try:
        encoding, _ = tokenize.detect_encoding(_first_lines(raw))
    except SyntaxError:
        return raw  # an unknown encoding: decoding reports it
    if encoding in ("utf-8", "utf-8-sig"):
        return raw
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as error:
        line = len(source_lines(text[: error.start + 1]))
        raise SourceError(
            SkipReason.NOT_UTF8,
            f"{path}: character {text[error.start]!r} on line {line} cannot be encoded as "
            f"{encoding}, the encoding the file declares",
        ) from error
