from __future__ import annotations

import errno
import os
import pickle
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest
from file_trees import write_tree

from codemods.files import (
    DEFAULT_EXCLUDES,
    SourceError,
    WriteError,
    discover,
    encode_text,
    find_project_root,
    is_generated,
    python_text,
    read_source,
    write_atomic,
)
from codemods.types import SkipReason


def found(
    root: Path,
    paths: list[Path] | None = None,
    *,
    exclude: Sequence[str] = (),
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
) -> list[str]:
    result = discover(
        [root] if paths is None else paths,
        root,
        exclude=exclude,
        extend_exclude=extend_exclude,
        respect_gitignore=respect_gitignore,
    )
    real = root.resolve()
    return [path.relative_to(real).as_posix() for path in result]


# --- find_project_root ---


@pytest.mark.parametrize(
    "marker", ["pyproject.toml", "setup.py", "setup.cfg", ".git"], ids=lambda m: f"marker {m}"
)
def test_find_project_root_stops_at_a_marker(tmp_path: Path, marker: str) -> None:
    write_tree(tmp_path, {f"project/{marker}": "", "project/src/pkg/mod.py": ""})
    project = (tmp_path / "project").resolve()
    assert find_project_root(tmp_path / "project" / "src" / "pkg" / "mod.py") == project
    assert find_project_root(tmp_path / "project" / "src") == project
    assert find_project_root(tmp_path / "project") == project


def test_find_project_root_without_markers(tmp_path: Path) -> None:
    write_tree(tmp_path, {"loose/mod.py": ""})
    assert find_project_root(tmp_path / "loose") == (tmp_path / "loose").resolve()
    assert find_project_root(tmp_path / "loose" / "mod.py") == (tmp_path / "loose").resolve()


def test_find_project_root_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"pyproject.toml": "", "src/mod.py": ""})
    monkeypatch.chdir(tmp_path / "src")
    assert find_project_root(Path("mod.py")) == tmp_path.resolve()
    assert find_project_root(Path(".")) == tmp_path.resolve()


# --- discover ---


def test_discover_yields_sorted_python_files(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "b.py": "",
            "a.py": "",
            "notes.txt": "",
            "stub.pyi": "",
            "pkg/z.py": "",
            "pkg/sub/y.py": "",
            "pkg-extra/x.py": "",
            "dir.py/inner.py": "",
        },
    )
    assert found(tmp_path) == [
        "a.py",
        "b.py",
        "dir.py/inner.py",
        "pkg/sub/y.py",
        "pkg/z.py",
        "pkg-extra/x.py",
    ]


def test_discover_yields_absolute_resolved_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"src/a.py": ""})
    monkeypatch.chdir(tmp_path)
    result = list(discover([Path("src")], Path(".")))
    assert result == [(tmp_path / "src" / "a.py").resolve()]
    assert result[0].is_absolute()


@pytest.mark.parametrize("directory", DEFAULT_EXCLUDES, ids=lambda d: f"default exclude {d}")
def test_default_excludes(tmp_path: Path, directory: str) -> None:
    write_tree(tmp_path, {f"{directory}/x.py": "", f"src/{directory}/y.py": "", "keep.py": ""})
    assert found(tmp_path) == ["keep.py"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param({}, ["gen/g.py", "src/a.py"], id="defaults skip venv and build"),
        pytest.param(
            {"exclude": ["gen"]},
            ["build/b.py", "src/a.py", "venv/v.py"],
            id="exclude replaces the defaults",
        ),
        pytest.param({"extend_exclude": ["gen"]}, ["src/a.py"], id="extend_exclude adds"),
        pytest.param(
            {"extend_exclude": ["src"]},
            ["gen/g.py"],
            id="extend_exclude of a directory name skips it",
        ),
        pytest.param({"exclude": ["*.py"]}, [], id="exclude glob matches file names at any depth"),
        pytest.param(
            {"exclude": ["/src/a.py"]},
            ["build/b.py", "gen/g.py", "venv/v.py"],
            id="anchored exclude is relative to the root",
        ),
        pytest.param(
            {"exclude": ["venv/", "build/", "gen/*.py", "!gen/g.py"]},
            ["gen/g.py", "src/a.py"],
            id="exclude supports gitignore syntax",
        ),
    ],
)
def test_excludes(tmp_path: Path, options: dict[str, list[str]], expected: list[str]) -> None:
    write_tree(
        tmp_path,
        {"src/a.py": "", "venv/v.py": "", "build/b.py": "", "gen/g.py": "", ".gitignore": "gen/"},
    )
    result = found(
        tmp_path,
        exclude=options.get("exclude", ()),
        extend_exclude=options.get("extend_exclude", ()),
        respect_gitignore=False,
    )
    assert result == expected


def test_exclude_with_slash_is_anchored(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/gen/a.py": "", "other/src/gen/b.py": ""})
    assert found(tmp_path, extend_exclude=["src/gen"]) == ["other/src/gen/b.py"]


def test_discover_respects_gitignore(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".gitignore": "*_pb2.py\nscratch/\n",
            "pkg/.gitignore": "local.py\n",
            "pkg/api_pb2.py": "",
            "pkg/local.py": "",
            "pkg/mod.py": "",
            "scratch/s.py": "",
            "local.py": "",
        },
    )
    assert found(tmp_path) == ["local.py", "pkg/mod.py"]
    assert found(tmp_path, respect_gitignore=False) == [
        "local.py",
        "pkg/api_pb2.py",
        "pkg/local.py",
        "pkg/mod.py",
        "scratch/s.py",
    ]


def test_explicit_files_are_always_yielded(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {".gitignore": "ignored.py\n", "build/gen.py": "", "ignored.py": "", "script": ""},
    )
    paths = [tmp_path / "build" / "gen.py", tmp_path / "ignored.py", tmp_path / "script"]
    assert found(tmp_path, paths) == ["build/gen.py", "ignored.py", "script"]


def test_missing_explicit_paths_are_not_yielded(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": ""})
    assert found(tmp_path, [tmp_path / "missing.py", tmp_path / "gone", tmp_path / "a.py"]) == [
        "a.py"
    ]


def test_explicit_excluded_directory_is_walked(tmp_path: Path) -> None:
    write_tree(tmp_path, {"build/a.py": "", "build/__pycache__/b.py": ""})
    assert found(tmp_path, [tmp_path / "build"]) == ["build/a.py"]


def test_each_file_is_yielded_once(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/a.py": "", "b.py": ""})
    paths = [tmp_path, tmp_path / "pkg", tmp_path / "pkg" / "a.py", tmp_path / "b.py"]
    assert found(tmp_path, paths) == ["b.py", "pkg/a.py"]


def test_symlink_loop_terminates(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/a.py": ""})
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "loop")
    os.symlink("..", tmp_path / "pkg" / "up")
    assert found(tmp_path) == ["pkg/a.py"]


def test_symlinks_leaving_the_root_are_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write_tree(tmp_path, {"outside/secret.py": "", "outside.py": "", "root/a.py": ""})
    os.symlink(tmp_path / "outside", root / "linked_dir")
    os.symlink(tmp_path / "outside.py", root / "linked_file.py")
    assert found(root) == ["a.py"]
    assert found(root, [root / "linked_file.py", root / "linked_dir"]) == []


def test_symlinks_inside_the_root_yield_the_target_once(tmp_path: Path) -> None:
    write_tree(tmp_path, {"real/a.py": "", "b.py": ""})
    os.symlink(tmp_path / "real", tmp_path / "alias")
    os.symlink(tmp_path / "b.py", tmp_path / "c.py")
    os.symlink(tmp_path / "missing.py", tmp_path / "broken.py")
    assert found(tmp_path) == ["b.py", "real/a.py"]


# --- read_source ---


def test_read_plain_utf8(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes("x = 'é'\n".encode())
    source = read_source(path)
    assert (source.text, source.encoding, source.bom, source.path) == (
        "x = 'é'\n",
        "utf-8",
        False,
        path,
    )
    assert source.raw == path.read_bytes()


def test_read_bom(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"\xef\xbb\xbfx = 1\n")
    source = read_source(path)
    assert (source.text, source.encoding, source.bom) == ("x = 1\n", "utf-8", True)


def test_read_latin1_with_coding_cookie(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9'\n")
    source = read_source(path)
    assert source.encoding == "iso-8859-1"
    assert source.text == "# -*- coding: latin-1 -*-\nname = 'é'\n"


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"x = 1\n", id="LF"),
        pytest.param(b"x = 1\r\ny = 2\r\n", id="CRLF"),
        pytest.param(b"x = 1\r\ny = 2\nz = 3\rw = 4", id="mixed endings without final newline"),
        pytest.param(b"\xef\xbb\xbfx = 1\r\n", id="BOM and CRLF"),
        pytest.param(b"# coding: latin-1\r\ns = '\xe9\xff'\r\n", id="latin-1 and CRLF"),
        pytest.param(b"", id="empty file"),
        pytest.param(b"s = '\\f\x0c'\n", id="form feed"),
    ],
)
def test_round_trip_is_byte_for_byte(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(raw)
    source = read_source(path)
    assert encode_text(source, source.text) == raw
    assert "\r" in source.text or b"\r" not in raw


def test_read_mode(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"")
    path.chmod(0o750)
    assert read_source(path).mode == 0o750


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\ny = '\xff'\n")
    with pytest.raises(SourceError) as caught:
        read_source(path)
    assert caught.value.reason is SkipReason.NOT_UTF8
    assert "0xff" in caught.value.detail
    assert "offset 11" in caught.value.detail
    assert "line 2" in caught.value.detail


def test_unknown_coding_cookie_is_read_as_utf8(tmp_path: Path) -> None:
    # A codec registered at run time by some package: the bytes are UTF-8 text.
    path = tmp_path / "a.py"
    raw = "# -*- coding: future_fstrings -*-\nname = 'é'\nx = f'{name}'\n".encode()
    path.write_bytes(raw)
    source = read_source(path)
    assert source.encoding == "utf-8"
    assert source.text == raw.decode("utf-8")
    assert source.note == "unknown coding `future_fstrings`: read as UTF-8"
    # Written back, the cookie stays as it was.
    assert encode_text(source, source.text) == raw


def test_notebook_cell_writing_the_file_is_read_without_its_magic(tmp_path: Path) -> None:
    # Copied out of a notebook: the cell's `%%writefile` line is not part of the module.
    path = tmp_path / "a.py"
    raw = b"%%writefile a.py\nimport numpy as np\n"
    path.write_bytes(raw)
    source = read_source(path)
    assert source.text == raw.decode()  # written back as it was
    assert "`%%writefile a.py` is a notebook cell magic" in source.note
    assert python_text(source.text) == "#%writefile a.py\nimport numpy as np\n"
    # Any other first line, and a magic further down, are Python's to judge.
    for text in ("%%time\nx = 1\n", "x = 1\n%%writefile a.py\n"):
        assert python_text(text) == text


def test_known_coding_cookie_has_no_note(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")
    source = read_source(path)
    assert (source.encoding, source.note) == ("iso-8859-1", "")


def test_unknown_coding_cookie_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"# coding: no-such-codec\nx = '\xff'\n")
    with pytest.raises(SourceError) as caught:
        read_source(path)
    assert caught.value.reason is SkipReason.NOT_UTF8
    assert "0xff" in caught.value.detail


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        pytest.param(lambda path: None, "not found", id="vanished file"),
        pytest.param(lambda path: path.mkdir(), "directory", id="directory"),
    ],
)
def test_unreadable(tmp_path: Path, make: object, fragment: str) -> None:
    path = tmp_path / "a.py"
    make(path)  # type: ignore[operator]
    with pytest.raises(SourceError) as caught:
        read_source(path)
    assert caught.value.reason is SkipReason.UNREADABLE
    assert fragment in caught.value.detail
    assert str(caught.value) == caught.value.detail


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files without permission")
def test_permission_denied(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0)
    try:
        with pytest.raises(SourceError) as caught:
            read_source(path)
    finally:
        path.chmod(0o644)
    assert caught.value.reason is SkipReason.UNREADABLE
    assert "permission denied" in caught.value.detail


def test_source_error_pickles() -> None:
    error = pickle.loads(pickle.dumps(SourceError(SkipReason.NOT_UTF8, "bad byte")))
    assert (error.reason, error.detail) == (SkipReason.NOT_UTF8, "bad byte")


# --- is_generated ---


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("# @generated by tool\nx = 1\n", True, id="generated marker"),
        pytest.param('"""Module.\n\n@generated\n"""\n', True, id="generated marker in docstring"),
        pytest.param(
            "# Generated by the protocol buffer compiler.  DO NOT EDIT!\n# source: a.proto\n",
            True,
            id="protobuf header",
        ),
        pytest.param(
            "#!/usr/bin/env python\n# Code generated by x. DO NOT EDIT.\n",
            True,
            id="do not edit in second line",
        ),
        pytest.param("\n" * 5 + "# DO NOT EDIT\n", False, id="do not edit after five lines"),
        pytest.param('x = "DO NOT EDIT"\n', False, id="do not edit in code"),
        pytest.param("x = 1\n" * 1000 + "# @generated\n", False, id="marker after 2048 chars"),
        pytest.param("x = 1\n", False, id="ordinary file"),
    ],
)
def test_is_generated(text: str, expected: bool) -> None:
    assert is_generated(text) is expected


# --- encode_text and write_atomic ---


def read(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)


def temporary_files(directory: Path) -> list[str]:
    return [name for name in os.listdir(directory) if name.endswith(".workerseed.tmp")]


def test_encode_text_rejects_unencodable_characters(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"# coding: latin-1\nx = 1\n")
    source = read_source(path)
    with pytest.raises(WriteError, match="line 2"):
        encode_text(source, "# coding: latin-1\nx = '\u2603'\n")


def test_write_atomic_writes_with_the_same_encoding(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"\xef\xbb\xbfx = 1\r\n")
    write_atomic(read_source(path), "x = 2\r\ny = 'é'\r\n")
    assert path.read_bytes() == b"\xef\xbb\xbfx = 2\r\ny = '\xc3\xa9'\r\n"
    assert temporary_files(tmp_path) == []


def test_write_atomic_keeps_latin1(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"# coding: latin-1\nx = '\xe9'\n")
    write_atomic(read_source(path), "# coding: latin-1\nx = '\xe9\xe8'\n")
    assert path.read_bytes() == b"# coding: latin-1\nx = '\xe9\xe8'\n"


@pytest.mark.parametrize("mode", [0o755, 0o640, 0o600], ids=oct)
def test_write_atomic_preserves_mode(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(mode)
    write_atomic(read_source(path), "x = 2\n")
    assert read(path) == (b"x = 2\n", mode)


def test_write_atomic_refuses_a_file_changed_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)
    path.write_bytes(b"x = 1  # edited by a human\n")
    with pytest.raises(WriteError, match="changed on disk since it was read; not overwritten"):
        write_atomic(source, "x = 2\n")
    assert path.read_bytes() == b"x = 1  # edited by a human\n"
    assert temporary_files(tmp_path) == []


def test_write_atomic_refuses_a_deleted_file(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)
    path.unlink()
    with pytest.raises(WriteError, match="changed on disk since it was read"):
        write_atomic(source, "x = 2\n")
    assert not path.exists()
    assert temporary_files(tmp_path) == []


def test_write_atomic_refuses_a_read_only_file(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0o444)
    source = read_source(path)
    with pytest.raises(WriteError, match="read-only"):
        write_atomic(source, "x = 2\n")
    assert read(path) == (b"x = 1\n", 0o444)
    assert temporary_files(tmp_path) == []


@pytest.mark.parametrize("failing", ["fsync", "replace", "chmod"])
def test_write_atomic_failure_leaves_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0o640)
    source = read_source(path)

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(WriteError, match="No space left on device"):
        write_atomic(source, "x = 2\n")
    monkeypatch.undo()
    assert read(path) == (b"x = 1\n", 0o640)
    assert temporary_files(tmp_path) == []


def test_write_atomic_interrupted_removes_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)

    def interrupt(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(source, "x = 2\n")
    monkeypatch.undo()
    assert path.read_bytes() == b"x = 1\n"
    assert temporary_files(tmp_path) == []


def test_write_atomic_through_a_symlink_replaces_the_target(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_bytes(b"x = 1\n")
    link = tmp_path / "link.py"
    os.symlink(target, link)
    write_atomic(read_source(link), "x = 2\n")
    assert link.is_symlink()
    assert target.read_bytes() == b"x = 2\n"
    assert temporary_files(tmp_path) == []
