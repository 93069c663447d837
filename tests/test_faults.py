"""`check` and `fix` end to end under faults and hostile input: nothing lost, nothing corrupted.

Each test puts a faulty file (or a fault) next to an ordinary buggy file, `good.py`, runs the
command, and asserts both what happened to the faulty file and that the rest of the run
completed: `good.py` was still fixed. The same faults at the level of single functions are
tested in test_files.py.
"""

from __future__ import annotations

import ast
import codecs
import difflib
import errno
import importlib.util
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import codemods
from cli.main import main
from codemods import Changed, Settings, run_source
from codemods.lines import source_lines

REPOSITORY = Path(__file__).resolve().parent.parent
CASE = REPOSITORY / "fixtures" / "rng_object_shared_by_workers" / "default_rng_in_init"
#: A program WS201 fixes, and the fixed program.
BUGGY = (CASE / "before" / "train.py").read_text(encoding="utf-8")
FIXED = (CASE / "after" / "train.py").read_text(encoding="utf-8")
TEMPORARY = re.compile(r"\.workerseed\.tmp$")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository holding `good.py` (a program `fix` changes); the working directory."""
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "good.py").write_text(BUGGY, encoding="utf-8")
    monkeypatch.chdir(root)
    for name in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM"):
        monkeypatch.delenv(name, raising=False)
    return root


def run(*arguments: str) -> Result:
    return CliRunner().invoke(main, list(arguments), catch_exceptions=False)


def fix(*arguments: str) -> Result:
    return run("fix", "--yes", "--no-cache", *arguments)


def assert_rest_completed(root: Path) -> None:
    """Assert that the ordinary file was fixed and that no temporary file is left."""
    assert (root / "good.py").read_bytes() == FIXED.encode()
    assert leftovers(root) == []


def leftovers(root: Path) -> list[str]:
    return sorted(
        str(path.relative_to(root))
        for path in root.rglob("*")
        if TEMPORARY.search(path.name) and ".git" not in path.parts
    )


def parses(source: bytes) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# --- files that cannot be analysed ---

NEWER_SYNTAX = [
    pytest.param("type Batch = list[int]\n", id="type alias statement of Python 3.12"),
    pytest.param(
        "def first[T](items: list[T]) -> T:\n    return items[0]\n",
        id="generic function of Python 3.12",
    ),
    pytest.param('label = f"{"nested"}"\n', id="nested f-string quotes of Python 3.12"),
    pytest.param('greeting = t"hello {label}"\n', id="template string of Python 3.14"),
]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        pytest.param(
            b"from torch.utils.data import DataLoader\nname = '\xff\xfe'\n",
            "not utf8",
            id="not UTF-8",
        ),
        pytest.param(
            # An unknown codec is read as UTF-8 (a note); these bytes are not UTF-8 either.
            b"# -*- coding: klingon -*-\nfrom torch.utils.data import DataLoader\nx = '\xff'\n",
            "not utf8",
            id="unknown coding cookie, not UTF-8",
        ),
        pytest.param(
            BUGGY.replace("pass\n", 'print "epoch", epoch\n').encode(),
            "syntax error",
            id="Python 2 print statement",
        ),
        pytest.param(
            BUGGY.replace("range(10)", "range(0777)").encode(),
            "syntax error",
            id="Python 2 octal literal",
        ),
        pytest.param(BUGGY.encode() + b"x = 1\x00\n", "syntax error", id="null byte"),
        pytest.param(
            BUGGY.encode() + b"x = a" + b".b" * 100_000 + b"\n",
            "syntax error",
            id="nesting too deep for the parser",
        ),
    ],
)
def test_a_file_that_cannot_be_analysed_is_skipped_and_the_rest_is_fixed(
    project: Path, content: bytes, reason: str
) -> None:
    (project / "faulty.py").write_bytes(content)
    result = fix()
    assert result.exit_code == 0, result.output
    assert f"warning: faulty.py: skipped, {reason}" in result.stderr
    assert "1 file changed" in result.stdout
    assert (project / "faulty.py").read_bytes() == content
    assert_rest_completed(project)


@pytest.mark.parametrize("syntax", NEWER_SYNTAX)
def test_syntax_of_newer_pythons_is_skipped_when_this_python_cannot_parse_it(
    project: Path, syntax: str
) -> None:
    content = (BUGGY + syntax).encode()
    (project / "newer.py").write_bytes(content)
    result = fix()
    assert_rest_completed(project)
    if parses(content):  # a newer Python runs the tests: the file is analysed like any other
        assert result.exit_code in (0, 2)
        new = (project / "newer.py").read_bytes()
        assert new == content or parses(new)
        return
    assert result.exit_code == 0, result.output
    assert "warning: newer.py: skipped, syntax error" in result.stderr
    assert (project / "newer.py").read_bytes() == content


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"", id="empty file"),
        pytest.param(b"\n\n", id="blank lines only"),
        pytest.param(b"# a comment without a newline", id="comment only without newline"),
        pytest.param(codecs.BOM_UTF8, id="byte order mark only"),
    ],
)
def test_an_empty_file_is_checked_and_left_alone(project: Path, content: bytes) -> None:
    (project / "empty.py").write_bytes(content)
    checked = run("check", "--no-cache")
    assert checked.stdout.endswith(
        "2 files checked: 1 finding, 1 fixable (run `workerseed fix`).\n"
    )
    assert checked.stderr == ""
    result = fix()
    assert result.exit_code == 0, result.output
    assert (project / "empty.py").read_bytes() == content
    assert_rest_completed(project)


def test_a_huge_file_is_checked_in_reasonable_time(project: Path) -> None:
    # The usual 10 MB Python file: a generated data table.
    row = ", ".join(f"{value / 7:.9f}" for value in range(1, 11))
    header = "import numpy as np\nfrom torch.utils.data import Dataset\n\nWEIGHTS = np.array([\n"
    content = (header + f"    {row},\n" * 80_000 + "])\n").encode()
    assert len(content) >= 10_000_000
    (project / "weights.py").write_bytes(content)
    started = time.monotonic()
    result = fix()
    elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    assert "2 files" not in result.stdout  # weights.py has nothing to fix
    assert (project / "weights.py").read_bytes() == content
    assert_rest_completed(project)
    # Reading a 10 MB module takes Python's own parser seconds; this catches a blow-up.
    assert elapsed < 90


# --- encoding, byte order mark, line endings, indentation and mode survive a fix ---

LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def raw_lines(data: bytes) -> list[bytes]:
    return LINE.findall(data)


def ending(line: bytes) -> bytes:
    return line[len(line.rstrip(b"\r\n")) :]


def alternate_endings(text: str) -> bytes:
    lines = text.splitlines(keepends=True)
    return "".join(
        line.replace("\n", "\r\n") if index % 2 else line for index, line in enumerate(lines)
    ).encode()


#: (how the LF program is changed, how it is written). The fix must keep the file's format.
FORMATS: list[Any] = [
    pytest.param(lambda text: text, lambda text: text.encode(), id="UTF-8 and LF"),
    pytest.param(
        lambda text: text,
        lambda text: codecs.BOM_UTF8 + text.encode(),
        id="UTF-8 with a byte order mark",
    ),
    pytest.param(
        lambda text: (
            "# -*- coding: latin-1 -*-\n# Données: ½ °C\n" + text.replace("1-D", "1-D « signal »")
        ),
        lambda text: text.encode("latin-1"),
        id="latin-1 with a coding cookie",
    ),
    pytest.param(lambda text: text, lambda text: text.replace("\n", "\r\n").encode(), id="CRLF"),
    pytest.param(lambda text: text, lambda text: text.replace("\n", "\r").encode(), id="CR"),
    pytest.param(lambda text: text, alternate_endings, id="mixed LF and CRLF"),
    pytest.param(
        lambda text: text.replace("    ", "\t"), lambda text: text.encode(), id="tab indentation"
    ),
    pytest.param(
        lambda text: text.replace("\n\n\nclass", "\n\n\x0c\nclass").replace("1-D", "1-D ≈"),
        lambda text: text.encode(),
        id="form feed and non-ASCII text",
    ),
    pytest.param(
        lambda text: text.replace("# one generator", "# \u2028 é \x0b one generator"),
        lambda text: text.encode(),
        id="Unicode line separator in a comment",
    ),
    pytest.param(
        lambda text: text.replace("):\n", "):   \n").rstrip("\n"),
        lambda text: text.encode(),
        id="trailing spaces and no final newline",
    ),
]


@pytest.mark.parametrize(("change", "encode"), FORMATS)
def test_the_file_format_survives_a_fix_byte_for_byte_outside_the_changed_lines(
    project: Path, change: Callable[[str], str], encode: Callable[[str], bytes]
) -> None:
    text = change(BUGGY)
    original = encode(text)
    (project / "variant.py").write_bytes(original)
    result = fix()
    assert result.exit_code == 0, result.output
    assert "2 files changed" in result.stdout
    assert_rest_completed(project)
    new = (project / "variant.py").read_bytes()
    # What the fix changes in the same program written as plain UTF-8 with LF endings.
    reference = run_source(text, settings=Settings(cache=False), fix=True)
    assert isinstance(reference, Changed)
    old_lines, new_lines = raw_lines(original), raw_lines(new)
    bom = codecs.BOM_UTF8 if original.startswith(codecs.BOM_UTF8) else b""
    assert new.startswith(bom)
    assert_same_edits(old_lines, new_lines, text, reference.new)
    if encode is not alternate_endings:
        # The same format throughout: the fixed file is the fixed program in that format.
        assert new == encode(reference.new)
    # Lines the fix added end like the file's first line.
    first = ending(old_lines[0])
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            assert {ending(line) for line in new_lines[j1:j2]} <= {first, b""}


def assert_same_edits(
    old_lines: list[bytes], new_lines: list[bytes], text: str, fixed: str
) -> None:
    """Assert that the file changed on the lines where the LF reference changed, and no others.

    Lines are compared as bytes: an unchanged line keeps its encoding and its line ending.
    """

    def touched(old: list[Any], new: list[Any]) -> set[int]:
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        return {
            index
            for tag, i1, i2, _, _ in matcher.get_opcodes()
            if tag != "equal"
            for index in range(i1, i2)
        }

    reference = touched(_content(text), _content(fixed))
    assert touched(old_lines, new_lines) == reference
    assert len(new_lines) - len(old_lines) == len(_content(fixed)) - len(_content(text))


def _content(text: str) -> list[str]:
    return [line.rstrip("\r\n") for line in source_lines(text)]


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o2775], ids=lambda mode: f"mode {mode:o}")
def test_the_file_mode_survives_a_fix(project: Path, mode: int) -> None:
    path = project / "good.py"
    path.chmod(mode)
    result = fix()
    assert result.exit_code == 0, result.output
    assert_rest_completed(project)
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_the_file_owner_survives_a_fix_as_root(project: Path) -> None:
    path = project / "good.py"
    os.chown(path, 4321, 4321)
    result = fix()
    assert result.exit_code == 0, result.output
    assert_rest_completed(project)
    status = path.stat()
    assert (status.st_uid, status.st_gid) == (4321, 4321)


# --- files that cannot be written ---


def test_a_read_only_file_is_reported_and_untouched(project: Path) -> None:
    # The owner's write bit is off: refused even for root, who could write it anyway.
    locked = project / "locked.py"
    locked.write_text(BUGGY, encoding="utf-8")
    locked.chmod(0o444)
    result = fix()
    assert result.exit_code == 2
    assert "error: locked.py: " in result.stderr
    assert "locked.py is read-only; not overwritten" in result.stderr
    assert locked.read_text(encoding="utf-8") == BUGGY
    assert stat.S_IMODE(locked.stat().st_mode) == 0o444
    assert "1 file changed" in result.stdout
    assert_rest_completed(project)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_file_in_a_read_only_directory_is_reported_and_untouched(project: Path) -> None:
    directory = project / "locked"
    directory.mkdir()
    (directory / "train.py").write_text(BUGGY, encoding="utf-8")
    directory.chmod(0o555)
    try:
        result = fix()
    finally:
        directory.chmod(0o755)
    assert result.exit_code == 2
    assert "cannot create a temporary file" in result.stderr
    assert (directory / "train.py").read_text(encoding="utf-8") == BUGGY
    assert_rest_completed(project)


@pytest.mark.parametrize(
    ("function", "code", "message"),
    [
        pytest.param(
            "mkstemp",
            errno.EACCES,
            "cannot create a temporary file in locked: permission denied",
            id="no temporary file",
        ),
        pytest.param("replace", errno.EROFS, "Read-only file system", id="rename refused"),
        pytest.param("replace", errno.EPERM, "permission denied", id="rename not allowed"),
    ],
)
def test_a_refused_write_is_reported_and_leaves_the_file_untouched(
    project: Path, monkeypatch: pytest.MonkeyPatch, function: str, code: int, message: str
) -> None:
    # Permission bits do not stop root, so the refusal is simulated where the OS would refuse.
    (project / "locked").mkdir()
    locked = project / "locked" / "train.py"
    locked.write_text(BUGGY, encoding="utf-8")
    module: Any = tempfile if function == "mkstemp" else os
    real = getattr(module, function)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        if "locked" in str(kwargs.get("dir", "")) or "locked" in str(args[-1] if args else ""):
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, function, refuse)
    result = fix()
    assert result.exit_code == 2
    assert "error: locked/train.py: " in result.stderr
    assert message in result.stderr.replace(str(project) + os.sep, "")
    assert locked.read_text(encoding="utf-8") == BUGGY
    assert_rest_completed(project)


def test_disk_full_half_way_through_a_write_keeps_the_original(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = project / "full.py"
    full.write_text(BUGGY, encoding="utf-8")
    full.chmod(0o640)
    temporary: list[str] = []
    real_mkstemp, real_fdopen = tempfile.mkstemp, os.fdopen

    def mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        descriptor, name = real_mkstemp(*args, **kwargs)
        temporary.append(name)
        return descriptor, name

    class HalfWritten:
        """A file that takes half of what is written, then reports a full disk."""

        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> HalfWritten:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, data: bytes) -> int:
            self.handle.write(data[: len(data) // 2])
            self.handle.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.handle, name)

    def fdopen(descriptor: int, *args: Any, **kwargs: Any) -> Any:
        handle = real_fdopen(descriptor, *args, **kwargs)
        if Path(temporary[-1]).name.startswith(".full.py."):
            return HalfWritten(handle)
        return handle

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(os, "fdopen", fdopen)
    result = fix()
    assert result.exit_code == 2
    assert (
        "error: full.py: cannot write full.py: No space left on device; the original file is "
        "unchanged" in result.stderr.replace(str(project) + os.sep, "")
    )
    assert full.read_text(encoding="utf-8") == BUGGY
    assert stat.S_IMODE(full.stat().st_mode) == 0o640
    assert any(".full.py." in name for name in temporary)
    assert_rest_completed(project)


# --- files that change while `fix` runs ---


def before_writing(monkeypatch: pytest.MonkeyPatch, action: Callable[[], object]) -> None:
    """Make `fix` run `action` once the engine has read and fixed everything, before writing."""

    real = codemods.run_paths

    def run_paths(*args: Any, **kwargs: Any) -> Iterator[Any]:
        yield from real(*args, **kwargs)
        action()

    monkeypatch.setattr(codemods, "run_paths", run_paths)  # the CLI imports it when it runs


def test_a_file_deleted_before_the_write_is_not_recreated(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doomed = project / "doomed.py"
    doomed.write_text(BUGGY, encoding="utf-8")
    before_writing(monkeypatch, doomed.unlink)
    result = fix()
    assert result.exit_code == 2
    assert "doomed.py changed on disk since it was read (it no longer exists)" in result.stderr
    assert not doomed.exists()
    assert_rest_completed(project)


def edit_in_place(path: Path) -> str:
    path.write_text("x = 'edited'\n", encoding="utf-8")
    return "x = 'edited'\n"


def replace_by_another_file(path: Path) -> str:
    other = path.with_name("other.txt")
    other.write_text("x = 'new'\n", encoding="utf-8")
    os.replace(other, path)
    return "x = 'new'\n"


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(edit_in_place, id="edited in place"),
        pytest.param(replace_by_another_file, id="replaced by another file"),
    ],
)
def test_a_file_changed_before_the_write_is_not_overwritten(
    project: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], str]
) -> None:
    edited = project / "edited.py"
    edited.write_text(BUGGY, encoding="utf-8")
    written: list[str] = []
    before_writing(monkeypatch, lambda: written.append(change(edited)))
    result = fix()
    assert result.exit_code == 2
    assert "edited.py changed on disk since it was read; not overwritten" in result.stderr
    assert edited.read_text(encoding="utf-8") == written[0]
    assert_rest_completed(project)


# --- symbolic links ---


def test_symlink_loops_and_links_leaving_the_root_are_not_followed(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "stranger.py").write_text(BUGGY, encoding="utf-8")
    os.symlink(project, project / "loop")  # a directory that contains itself
    (project / "nested").mkdir()
    os.symlink("..", project / "nested" / "up")
    os.symlink("b.py", project / "a.py")  # two links pointing at each other
    os.symlink("a.py", project / "b.py")
    os.symlink(outside, project / "elsewhere")
    os.symlink(outside / "stranger.py", project / "stranger.py")
    checked = run("check", "--no-cache")
    assert "stranger" not in checked.output
    assert checked.stdout.endswith("1 file checked: 1 finding, 1 fixable (run `workerseed fix`).\n")
    result = fix()
    assert result.exit_code == 0, result.output
    assert "1 file changed" in result.stdout
    assert (outside / "stranger.py").read_text(encoding="utf-8") == BUGGY
    assert_rest_completed(project)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_or_a_device_named_like_a_python_file_is_not_read(project: Path) -> None:
    # Reading either would never end: a pipe waits for a writer, /dev/zero has no end.
    os.mkfifo(project / "pipe.py")
    os.symlink("/dev/zero", project / "zero.py")
    result = fix()
    assert result.exit_code == 0, result.output
    assert "1 file changed" in result.stdout
    assert_rest_completed(project)
    named = run("check", "--no-cache", "pipe.py", "zero.py")
    assert named.exit_code == 0
    assert named.stdout == "0 files checked: 0 findings.\n"


# --- Ctrl-C ---


#: A small program `fix` changes (WS103 moves the lambda to a module-level function).
SMALL = """\
from torch.utils.data import DataLoader

loader = DataLoader(list(range(8)), num_workers=2, worker_init_fn=lambda wid: print(wid))
"""


def many_files(root: Path, count: int) -> list[Path]:
    paths = [root / f"module_{index:03}.py" for index in range(count)]
    for path in paths:
        path.write_text(SMALL, encoding="utf-8")
    return paths


def assert_old_or_new(paths: list[Path]) -> tuple[int, int]:
    """Assert that every file is its original or its fixed version; count each."""
    fixed = run_source(SMALL, fix=True)
    assert isinstance(fixed, Changed)
    contents = [path.read_text(encoding="utf-8") for path in paths]
    assert set(contents) <= {SMALL, fixed.new}
    return contents.count(SMALL), contents.count(fixed.new)


@pytest.mark.parametrize(
    ("module", "function"),
    [
        pytest.param(tempfile, "mkstemp", id="as the temporary file is created"),
        pytest.param(os, "replace", id="as the file is renamed"),
    ],
)
def test_ctrl_c_during_the_fifth_write_leaves_every_file_old_or_new(
    project: Path, monkeypatch: pytest.MonkeyPatch, module: Any, function: str
) -> None:
    paths = many_files(project, 8)
    calls = 0
    real = getattr(module, function)

    def interrupt(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 5:
            signal.raise_signal(signal.SIGINT)  # what Ctrl-C does
        return real(*args, **kwargs)

    monkeypatch.setattr(module, function, interrupt)
    result = run("fix", "--yes", "--no-cache", *(path.name for path in paths))
    monkeypatch.undo()
    assert result.exit_code == 130  # interrupted, as shells report it
    assert "Interrupted." in result.stderr
    # The fifth file is finished first: Ctrl-C stops `fix` between two files.
    assert assert_old_or_new(paths) == (3, 5)
    assert leftovers(project) == []


def test_ctrl_c_in_a_real_process_leaves_every_file_old_or_new(project: Path) -> None:
    paths = many_files(project, 60)
    # Each fsync sleeps, so that the signal lands while files are being written.
    program = (
        "import os, time\n"
        "fsync = os.fsync\n"
        "os.fsync = lambda descriptor: (time.sleep(0.05), fsync(descriptor))[1]\n"
        "from cli.main import main\n"
        "main(['fix', '--yes', '--no-cache', '--quiet'])\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    process = subprocess.Popen(
        [sys.executable, "-c", program],
        cwd=project,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while all(path.read_text(encoding="utf-8") == SMALL for path in paths):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no file was written"
            time.sleep(0.005)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert b"Interrupted." in stderr
    old, new = assert_old_or_new(paths)
    assert old > 0
    assert new > 0
    assert leftovers(project) == []


# --- paths printed verbatim ---


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("[bold]x.py", id="rich markup"),
        pytest.param("[link=mailto:x@example.com]x.py", id="rich link markup"),
        pytest.param(":heart: x.py", id="rich emoji code"),
        pytest.param("données_ü.py", id="non-ASCII"),
        pytest.param("[red]données ✓.py", id="markup and non-ASCII"),
    ],
)
def test_paths_are_printed_verbatim_in_text_json_diffs_and_errors(project: Path, name: str) -> None:
    (project / name).write_text(BUGGY, encoding="utf-8")
    text = run("check", "--no-cache", name)
    assert text.stdout.startswith(f"{name}:12:9: WS201 [*] ")
    assert f"(np.random.default_rng, {name}:12)" in text.stdout
    (finding,) = json.loads(run("check", "--no-cache", "--format", "json", name).stdout)
    assert finding["path"] == name
    assert f"--- a/{name}\n+++ b/{name}\n" in finding["fix"]["diff"]
    diff = run("fix", "--no-cache", "--diff", name)
    assert f"--- a/{name}\n+++ b/{name}\n" in diff.stdout
    (project / name).chmod(0o444)
    refused = fix(name)
    assert f"error: {name}: {project / name} is read-only; not overwritten\n" in refused.stderr
    (project / name).write_bytes(b"x = '\xff'\n")
    skipped = run("check", "--no-cache", name)
    assert f"warning: {name}: skipped, not utf8 (cannot decode {project / name}" in skipped.stderr


# --- static analysis only ---

EVIL = """\
import os
import sys

import numpy as np
from torch.utils.data import DataLoader, Dataset

with open({marker!r}, "w") as handle:
    handle.write("imported")
os.system("touch " + {marker!r} + ".system")
sys.exit(3)
raise SystemExit("imported")


class Noisy(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return np.random.rand()


loader = DataLoader(Noisy(), num_workers=2)
"""


def test_check_and_fix_never_import_or_run_the_analysed_code(project: Path) -> None:
    marker = project.parent / "pwned"
    code = EVIL.format(marker=str(marker))
    (project / "evil.py").write_text(code, encoding="utf-8")
    (project / "setup.py").write_text(code + "\nsetup(install_requires=['torch==1.8.1'])\n")
    (project / "conftest.py").write_text(code, encoding="utf-8")
    (project / "package").mkdir()
    (project / "package" / "__init__.py").write_text(code, encoding="utf-8")
    (project / "package" / "train.py").write_text(
        "from package import Noisy\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(Noisy(), num_workers=2)\n",
        encoding="utf-8",
    )
    cells: list[dict[str, Any]] = [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": cell,
        }
        for cell in (code, "!rm -rf ~")
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    (project / "explore.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    notebooks = importlib.util.find_spec("nbformat") is not None
    modules = set(sys.modules)
    checked = run("check", "--no-cache", "--select", "ALL")
    assert checked.exit_code == 1
    assert "evil.py:22:10: WS101" in checked.stdout  # torch 1.8.1, read from setup.py
    result = fix("--select", "ALL")
    assert result.exit_code == 0, result.output
    assert "def seed_worker(worker_id" in (project / "evil.py").read_text(encoding="utf-8")
    if notebooks:
        fixed = (project / "explore.ipynb").read_text(encoding="utf-8")
        assert "def seed_worker(worker_id" in fixed
    assert_rest_completed(project)
    assert not list(project.parent.glob("pwned*"))
    assert not {"evil", "setup", "conftest", "package", "package.train"} & (
        set(sys.modules) - modules
    )
