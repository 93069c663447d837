"""Match paths against .gitignore files the way git does.

Patterns are translated to byte regexes that follow git's `wildmatch` (with WM_PATHNAME), so
`?`, `*` and `[...]` work on bytes exactly as in git, and all patterns of one file are compiled
into one regex, tried once per path.
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterable
from pathlib import Path

__all__ = ["GitIgnore", "Patterns"]

_STAR = ord("*")
_SLASH = ord("/")
_BACKSLASH = ord("\\")
_OPEN = ord("[")
_CLOSE = ord("]")
_COLON = ord(":")
_DASH = ord("-")

# git's wildmatch classes only ever match ASCII bytes (see git's ctype.c: isspace is " \t\n\r").
_CLASSES: dict[bytes, bytes] = {
    b"alnum": rb"0-9A-Za-z",
    b"alpha": rb"A-Za-z",
    b"blank": rb"\x20\x09",
    b"cntrl": rb"\x00-\x1f\x7f",
    b"digit": rb"0-9",
    b"graph": rb"\x21-\x7e",
    b"lower": rb"a-z",
    b"print": rb"\x20-\x7e",
    b"punct": rb"\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e",
    b"space": rb"\x20\x09\x0a\x0d",
    b"upper": rb"A-Z",
    b"xdigit": rb"0-9A-Fa-f",
}


def _byte(value: int) -> bytes:
    return b"\\x%02x" % value


def _bracket(pattern: bytes, start: int) -> tuple[bytes, int] | None:
    """Translate the `[...]` starting at `start`; return (regex, index after it) or None."""
    n = len(pattern)
    i = start + 1
    negated = i < n and pattern[i] in b"!^"
    if negated:
        i += 1
    items: list[bytes] = []
    previous: int | None = None  # a range may only start after a plain or escaped character
    first = True
    while True:
        if i >= n:
            return None  # unterminated: git aborts, so the pattern matches nothing
        char = pattern[i]
        if char == _CLOSE and not first:
            break
        first = False
        if char == _BACKSLASH:
            i += 1
            if i >= n:
                return None
            previous = pattern[i]
            items.append(_byte(previous))
        elif char == _DASH and previous is not None and i + 1 < n and pattern[i + 1] != _CLOSE:
            i += 1
            high = pattern[i]
            if high == _BACKSLASH:
                i += 1
                if i >= n:
                    return None
                high = pattern[i]
            if previous <= high:
                items.append(_byte(previous) + b"-" + _byte(high))
            previous = None
        elif char == _OPEN and i + 1 < n and pattern[i + 1] == _COLON:
            end = pattern.find(b"]", i + 2)
            if end < 0:
                return None
            if end - (i + 2) - 1 < 0 or pattern[end - 1] != _COLON:
                items.append(_byte(char))  # not a [:class:]; git reads the '[' literally
                previous = char
            else:
                members = _CLASSES.get(pattern[i + 2 : end - 1])
                if members is None:
                    return None
                items.append(members)
                previous = None
                i = end
        else:
            previous = char
            items.append(_byte(char))
        i += 1
    body = b"".join(items)
    if negated:
        return b"[^/" + body + b"]", i + 1
    return b"(?!/)[" + body + b"]", i + 1


def _translate(pattern: bytes) -> bytes | None:
    """Translate a wildmatch pattern to a regex; None if git could never match it."""
    out: list[bytes] = []
    n = len(pattern)
    i = 0
    while i < n:
        char = pattern[i]
        if char == _STAR:
            j = i
            while j < n and pattern[j] == _STAR:
                j += 1
            # `**` crosses directories only as a whole path component; elsewhere it is `*`.
            if j - i >= 2 and (i == 0 or pattern[i - 1] == _SLASH):
                if j == n:
                    out.append(b".*")
                    i = j
                    continue
                if pattern[j] == _SLASH:
                    out.append(b"(?:.*/)?")
                    i = j + 1
                    continue
                if pattern[j : j + 2] == b"\\/":
                    out.append(b"(?:.*/)?")
                    i = j + 2
                    continue
            out.append(b"[^/]*")
            i = j
        elif char == ord("?"):
            out.append(b"[^/]")
            i += 1
        elif char == _OPEN:
            translated = _bracket(pattern, i)
            if translated is None:
                return None
            regex, i = translated
            out.append(regex)
        elif char == _BACKSLASH:
            if i + 1 >= n:
                return None  # a trailing backslash never matches in git
            out.append(_byte(pattern[i + 1]))
            i += 2
        else:
            out.append(_byte(char))
            i += 1
    return b"".join(out)


def _trim_trailing_spaces(line: bytes) -> bytes:
    """Drop trailing spaces that are not escaped with a backslash, like git's dir.c."""
    last_space: int | None = None
    i = 0
    n = len(line)
    while i < n:
        char = line[i]
        if char == 0x20:
            if last_space is None:
                last_space = i
        elif char == _BACKSLASH:
            i += 1
            if i >= n:
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def _parse(line: bytes) -> tuple[bytes, bool, bool] | None:
    """Return (regex, negated, directory_only) for one .gitignore line, or None."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line or line.startswith(b"#"):
        return None
    line = _trim_trailing_spaces(line)
    negated = line.startswith(b"!")
    if negated:
        line = line[1:]
    directory_only = line.endswith(b"/")
    if directory_only:
        line = line[:-1]
    if not line:
        return None
    if b"/" in line:
        # Anchored: matched against the whole path relative to the .gitignore's directory.
        regex = _translate(line[1:] if line.startswith(b"/") else line)
    else:
        # No slash: matched against the last path component, at any depth.
        body = _translate(line)
        regex = None if body is None else b"(?:.*/)?" + body
    if regex is None:
        return None
    return regex, negated, directory_only


def _combine(rules: list[tuple[bytes, bool]]) -> tuple[re.Pattern[bytes] | None, tuple[bool, ...]]:
    # The last matching line wins, so the alternation lists lines last to first and the
    # first alternative that fully matches (m.lastindex) is the deciding line.
    if not rules:
        return None, ()
    ordered = rules[::-1]
    regex = re.compile(b"|".join(b"(" + source + b")" for source, _ in ordered), re.DOTALL)
    return regex, (False, *(negated for _, negated in ordered))


class Patterns:
    """The compiled lines of one .gitignore file (or exclude list), relative to one directory."""

    __slots__ = ("_dir_negated", "_dir_regex", "_file_negated", "_file_regex")

    def __init__(self, lines: Iterable[bytes]) -> None:
        rules = [rule for rule in map(_parse, lines) if rule is not None]
        self._dir_regex, self._dir_negated = _combine([(r, neg) for r, neg, _ in rules])
        self._file_regex, self._file_negated = _combine(
            [(r, neg) for r, neg, dir_only in rules if not dir_only]
        )

    @classmethod
    def parse(cls, content: bytes) -> Patterns:
        """Compile the content of a .gitignore file."""
        if content.startswith(b"\xef\xbb\xbf"):
            content = content[3:]
        return cls(content.split(b"\n"))

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> Patterns:
        """Compile gitignore-style patterns given one per string."""
        return cls(os.fsencode(line) for line in lines)

    def __bool__(self) -> bool:
        return self._dir_regex is not None

    def match(self, relpath: str, *, is_dir: bool) -> bool | None:
        """Return True (ignored), False (re-included by `!`) or None (no line matches)."""
        return self.match_bytes(os.fsencode(relpath), is_dir=is_dir)

    def match_bytes(self, relpath: bytes, *, is_dir: bool) -> bool | None:
        """Like `match`, for a '/'-separated path already encoded with os.fsencode."""
        if is_dir:
            regex, negated = self._dir_regex, self._dir_negated
        else:
            regex, negated = self._file_regex, self._file_negated
        if regex is None:
            return None
        found = regex.fullmatch(relpath)
        if found is None or found.lastindex is None:
            return None
        return not negated[found.lastindex]


def _read_patterns(path: Path, *, follow_symlinks: bool) -> Patterns | None:
    # git (since 2.32) does not follow a .gitignore that is a symlink inside the work tree.
    try:
        if not follow_symlinks and path.is_symlink():
            return None
        content = path.read_bytes()
    except OSError:
        return None
    patterns = Patterns.parse(content)
    return patterns if patterns else None


def git_sources(root: Path) -> list[Path]:
    """Return the files outside `root` that may decide what git ignores below it: `.git` and
    `.gitignore` in every directory above it (present or not: one may appear), and the
    enclosing repository's `info/exclude`."""
    root = root.resolve()
    sources = [directory / name for directory in root.parents for name in (".git", ".gitignore")]
    _, git_dir = _find_work_tree(root)
    if git_dir is not None:
        sources.append(git_dir / "info" / "exclude")
    return sources


def _index_path(top: Path) -> Path | None:
    """Return the index of the work tree at `top` (a linked work tree keeps its own)."""
    dotgit = top / ".git"
    try:
        if dotgit.is_dir():
            return dotgit / "index"
        first = dotgit.read_text(encoding="utf-8", errors="surrogateescape").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    return top / first[len("gitdir:") :].strip() / "index"


def tracked_paths(index: Path) -> frozenset[bytes]:
    """Return the paths git's index tracks (versions 2 to 4), with every directory above
    them, relative to the work tree; empty when there is no index or it cannot be read."""
    try:
        data = index.read_bytes()
    except OSError:
        return frozenset()
    if data[:4] != b"DIRC" or len(data) < 12:
        return frozenset()
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return frozenset()
    found: set[bytes] = set()
    position = 12
    previous = b""
    try:
        for _ in range(count):
            start = position
            (flags,) = struct.unpack(">H", data[start + 60 : start + 62])
            position = start + 62 + (2 if version >= 3 and flags & 0x4000 else 0)
            if version == 4:
                strip, position = _offset(data, position)
                end = data.index(b"\0", position)
                name = previous[: len(previous) - strip] + data[position:end]
                position = end + 1
            else:
                end = data.index(b"\0", position)
                name = data[position:end]
                # Entries are NUL-padded to a multiple of 8 bytes (at least one NUL).
                position = start + ((end - start) // 8 + 1) * 8
            previous = name
            found.add(name.rstrip(b"/"))
    except (struct.error, ValueError, IndexError):
        return frozenset()
    for name in tuple(found):
        while b"/" in name:
            name = name.rpartition(b"/")[0]
            if name in found:
                break
            found.add(name)
    return frozenset(found)


def _offset(data: bytes, position: int) -> tuple[int, int]:
    """Read git's variable-length offset encoding (index version 4)."""
    byte = data[position]
    position += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[position]
        position += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, position


def _find_work_tree(root: Path) -> tuple[Path, Path | None]:
    """Return (top of the enclosing git work tree or `root`, its git directory or None)."""
    for directory in (root, *root.parents):
        dotgit = directory / ".git"
        try:
            if dotgit.is_dir():
                return directory, dotgit
            if dotgit.is_file():
                return directory, _git_dir_from_file(directory, dotgit)
        except OSError:
            continue
    return root, None


def _git_dir_from_file(directory: Path, dotgit: Path) -> Path | None:
    # Worktrees and submodules have a `.git` file: "gitdir: <path>"; a worktree's
    # info/exclude lives in the common directory named by its `commondir` file.
    try:
        first = dotgit.read_text(encoding="utf-8", errors="surrogateescape").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    git_dir = directory / first[len("gitdir:") :].strip()
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    return git_dir / common


class GitIgnore:
    """The .gitignore rules that apply below a project root."""

    def __init__(self, root: Path) -> None:
        self._root_given = Path(os.path.abspath(root))
        self._root = root.resolve()
        top, self._git_dir = _find_work_tree(self._root)
        self._top = top
        relative = self._root.relative_to(top).as_posix()
        self._prefix = b"" if relative == "." else os.fsencode(relative) + b"/"
        self._lists: dict[bytes, Patterns | None] = {}
        #: What git tracks, read at the first path a pattern ignores: git ignores only
        #: untracked files, and a package under an ignored name (`data/`) may be tracked.
        #: Paths relative to the work tree, with every directory above them.
        self._tracked: frozenset[bytes] | None = None
        self._chains: dict[bytes, tuple[tuple[int, Patterns], ...]] = {}
        self._dirs: dict[bytes, bool] = {}

    @classmethod
    def for_root(cls, root: Path) -> GitIgnore:
        """Return the matcher for the work tree at or around `root`, reading files lazily."""
        return cls(root)

    @property
    def root(self) -> Path:
        """Return the resolved root that relative paths are taken from."""
        return self._root

    def is_ignored(self, path: Path, *, is_dir: bool) -> bool:
        """Return True if git ignores `path` itself or one of its parent directories."""
        relative = self._relative(path)
        if not relative:
            return False
        parent = relative.rpartition(b"/")[0]
        ignored = bool(parent) and self._dir_ignored(parent)
        ignored = ignored or self._own(relative, is_dir=is_dir)
        return ignored and not self.is_tracked(os.fsdecode(relative))

    def ignores_entry(self, relpath: str, *, is_dir: bool) -> bool:
        """Return True if the patterns ignore this entry, not looking at its parents.

        For walkers that never descend into ignored directories; `relpath` is relative to the
        root and '/'-separated.
        """
        return bool(relpath) and self._own(os.fsencode(relpath), is_dir=is_dir)

    def _relative(self, path: Path) -> bytes | None:
        if path.is_absolute():
            for base in (self._root, self._root_given):
                try:
                    path = path.relative_to(base)
                    break
                except ValueError:
                    continue
            else:
                return None
        text = os.path.normpath(path)
        if text == ".":
            return b""
        if text == ".." or text.startswith("../") or os.path.isabs(text):
            return None
        return os.fsencode(text.replace(os.sep, "/"))

    def _dir_ignored(self, relative: bytes) -> bool:
        known = self._dirs.get(relative)
        if known is None:
            parent = relative.rpartition(b"/")[0]
            known = bool(parent) and self._dir_ignored(parent)
            known = known or self._own(relative, is_dir=True)
            self._dirs[relative] = known
        return known

    def _own(self, relative: bytes, *, is_dir: bool) -> bool:
        full = self._prefix + relative
        for offset, patterns in self._chain(full.rpartition(b"/")[0]):
            verdict = patterns.match_bytes(full[offset:], is_dir=is_dir)
            if verdict is not None:
                return verdict
        return False

    def is_tracked(self, relpath: str) -> bool:
        """Return True if git tracks this file, or a file below this directory (`relpath` as
        for `ignores_entry`): git ignores only what it does not track."""
        if self._tracked is None:
            index = _index_path(self._top) if self._git_dir is not None else None
            self._tracked = tracked_paths(index) if index is not None else frozenset()
        return self._prefix + os.fsencode(relpath) in self._tracked

    def _chain(self, directory: bytes) -> tuple[tuple[int, Patterns], ...]:
        """Return (offset, patterns) for the files that apply in `directory`, deepest first."""
        chain = self._chains.get(directory)
        if chain is None:
            if directory:
                parent = directory.rpartition(b"/")[0]
                own = self._load(directory)
                rest = self._chain(parent)
                chain = ((len(directory) + 1, own), *rest) if own else rest
            else:
                top = self._load(b"")
                exclude = self._info_exclude()
                chain = tuple((0, patterns) for patterns in (top, exclude) if patterns)
            self._chains[directory] = chain
        return chain

    def _load(self, directory: bytes) -> Patterns | None:
        if directory not in self._lists:
            base = self._top / os.fsdecode(directory) if directory else self._top
            self._lists[directory] = _read_patterns(base / ".gitignore", follow_symlinks=False)
        return self._lists[directory]

    def _info_exclude(self) -> Patterns | None:
        if self._git_dir is None:
            return None
        return _read_patterns(self._git_dir / "info" / "exclude", follow_symlinks=True)
