from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from file_trees import write_tree

from codemods.files import discover
from codemods.gitignore import GitIgnore, Patterns

# (.gitignore content, path relative to the root, is_dir, ignored by git)
SINGLE_FILE_CASES = [
    pytest.param("", "a.py", False, False, id="empty file ignores nothing"),
    pytest.param("# a.py\n", "a.py", False, False, id="comment line is not a pattern"),
    pytest.param("\n\n*.log\n\n", "x.log", False, True, id="blank lines are skipped"),
    pytest.param("\\#a.py\n", "#a.py", False, True, id="escaped hash matches a literal hash"),
    pytest.param("\\!a.py\n", "!a.py", False, True, id="escaped bang matches a literal bang"),
    pytest.param("a.py   \n", "a.py", False, True, id="trailing spaces are trimmed"),
    pytest.param("a.py\\ \n", "a.py ", False, True, id="escaped trailing space is kept"),
    pytest.param("a.py\\ \n", "a.py", False, False, id="escaped trailing space is required"),
    pytest.param("a.py\r\n", "a.py", False, True, id="CRLF line endings"),
    pytest.param("a.py", "a.py", False, True, id="last line without newline"),
    pytest.param("*.py\n!keep.py\n", "keep.py", False, False, id="negation re-includes a file"),
    pytest.param("*.py\n!keep.py\n", "other.py", False, True, id="negation leaves others ignored"),
    pytest.param("!keep.py\n*.py\n", "keep.py", False, True, id="later pattern overrides earlier"),
    pytest.param("build/\n", "build", True, True, id="directory pattern matches the directory"),
    pytest.param("build/\n", "build", False, False, id="directory pattern does not match a file"),
    pytest.param("build/\n", "build/x.py", False, True, id="directory pattern ignores files below"),
    pytest.param("build/\n", "src/build/x.py", False, True, id="directory pattern at any depth"),
    pytest.param("/build\n", "build/x.py", False, True, id="leading slash anchors to the root"),
    pytest.param("/build\n", "src/build", True, False, id="anchored pattern not deeper"),
    pytest.param("doc/frotz\n", "doc/frotz", False, True, id="middle slash anchors"),
    pytest.param("doc/frotz\n", "a/doc/frotz", False, False, id="middle slash anchored not deeper"),
    pytest.param("*.py\n", "a/b/c.py", False, True, id="no slash matches the name at any depth"),
    pytest.param("src/*.py\n", "src/x.py", False, True, id="star matches within a component"),
    pytest.param("src/*.py\n", "src/pkg/x.py", False, False, id="star does not match a slash"),
    pytest.param("?.py\n", "a.py", False, True, id="question mark matches one character"),
    pytest.param("?.py\n", "ab.py", False, False, id="question mark matches only one"),
    pytest.param("caf?\n", "caf\u00e9", False, False, id="question mark matches a byte not a char"),
    pytest.param("caf??\n", "caf\u00e9", False, True, id="two question marks match a 2-byte char"),
    pytest.param("caf\u00e9\n", "caf\u00e9", False, True, id="non-ascii literal"),
    pytest.param("[abc].py\n", "b.py", False, True, id="class matches a member"),
    pytest.param("[!abc].py\n", "b.py", False, False, id="negated class with bang"),
    pytest.param("[^abc].py\n", "d.py", False, True, id="negated class with caret"),
    pytest.param("[a-c].py\n", "c.py", False, True, id="class range"),
    pytest.param("[a-c].py\n", "d.py", False, False, id="class range excludes others"),
    pytest.param("[]].py\n", "].py", False, True, id="closing bracket first is a member"),
    pytest.param("[[:digit:]].py\n", "7.py", False, True, id="posix class"),
    pytest.param("[[:digit:]].py\n", "x.py", False, False, id="posix class excludes others"),
    pytest.param("a[b\n", "a[b", False, False, id="unterminated class matches nothing"),
    pytest.param("a\\*b\n", "a*b", False, True, id="escaped star is literal"),
    pytest.param("**/foo\n", "foo", False, True, id="leading double star matches at the top"),
    pytest.param("**/foo\n", "a/b/foo", False, True, id="leading double star matches deeper"),
    pytest.param("**/a/foo\n", "x/y/a/foo", False, True, id="leading double star with path"),
    pytest.param("abc/**\n", "abc/x/y.py", False, True, id="trailing double star matches inside"),
    pytest.param("abc/**\n", "abc", True, False, id="trailing double star not the directory"),
    pytest.param("a/**/b\n", "a/b", False, True, id="middle double star matches zero dirs"),
    pytest.param("a/**/b\n", "a/x/y/b", False, True, id="middle double star matches many dirs"),
    pytest.param("a/**/b\n", "a/xb", False, False, id="middle double star needs a slash"),
    pytest.param("foo**bar\n", "fooXbar", False, True, id="double star inside a name is a star"),
    pytest.param(
        "build/\n!build/keep.py\n",
        "build/keep.py",
        False,
        True,
        id="cannot re-include a file below an excluded directory",
    ),
    pytest.param(
        "build/*\n!build/keep.py\n",
        "build/keep.py",
        False,
        False,
        id="can re-include when only the contents are excluded",
    ),
    pytest.param(
        "/*\n!/foo\n/foo/*\n!/foo/bar\n",
        "foo/bar/x.py",
        False,
        False,
        id="documented example keeps foo/bar",
    ),
    pytest.param(
        "/*\n!/foo\n/foo/*\n!/foo/bar\n",
        "foo/baz/x.py",
        False,
        True,
        id="documented example ignores foo/baz",
    ),
]

# (files to write, path relative to the root, is_dir, ignored by git)
NESTED_CASES = [
    pytest.param({"sub/.gitignore": "*.py\n"}, "sub/a.py", False, True, id="nested applies below"),
    pytest.param({"sub/.gitignore": "*.py\n"}, "a.py", False, False, id="nested not above"),
    pytest.param(
        {"sub/.gitignore": "/a.py\n"}, "sub/a.py", False, True, id="nested anchor is its dir"
    ),
    pytest.param(
        {"sub/.gitignore": "/a.py\n"}, "sub/x/a.py", False, False, id="nested anchor not deeper"
    ),
    pytest.param(
        {"sub/.gitignore": "x/y.py\n"}, "sub/x/y.py", False, True, id="nested path pattern"
    ),
    pytest.param(
        {".gitignore": "*.py\n", "sub/.gitignore": "!keep.py\n"},
        "sub/keep.py",
        False,
        False,
        id="deeper file overrides the parent",
    ),
    pytest.param(
        {".gitignore": "*.py\n", "sub/.gitignore": "!keep.py\n"},
        "keep.py",
        False,
        True,
        id="deeper file does not apply above",
    ),
    pytest.param(
        {".gitignore": "sub/\n", "sub/.gitignore": "!*.py\n"},
        "sub/a.py",
        False,
        True,
        id="nested negation cannot undo an excluded directory",
    ),
    pytest.param({".git/info/exclude": "*.log\n"}, "a.log", False, True, id="info exclude is read"),
    pytest.param(
        {".git/info/exclude": "*.log\n", ".gitignore": "!keep.log\n"},
        "keep.log",
        False,
        False,
        id=".gitignore overrides info exclude",
    ),
]


def make_path(root: Path, relative: str, *, is_dir: bool) -> None:
    path = root / relative
    if is_dir:
        path.mkdir(parents=True, exist_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()


@pytest.mark.parametrize(("content", "relative", "is_dir", "expected"), SINGLE_FILE_CASES)
def test_single_file(
    tmp_path: Path, content: str, relative: str, is_dir: bool, expected: bool
) -> None:
    write_tree(tmp_path, {".gitignore": content})
    ignore = GitIgnore.for_root(tmp_path)
    assert ignore.is_ignored(Path(relative), is_dir=is_dir) is expected
    assert ignore.is_ignored(tmp_path / relative, is_dir=is_dir) is expected


@pytest.mark.parametrize(("files", "relative", "is_dir", "expected"), NESTED_CASES)
def test_nested_files(
    tmp_path: Path, files: dict[str, str], relative: str, is_dir: bool, expected: bool
) -> None:
    write_tree(tmp_path, files)
    assert GitIgnore.for_root(tmp_path).is_ignored(Path(relative), is_dir=is_dir) is expected


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "HOME": str(root),
    }
    return subprocess.run(
        ["git", "-c", f"core.excludesFile={os.devnull}", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


CONSISTENCY_CASES = [
    pytest.param({".gitignore": c}, r, d, e, id=p.id)
    for p in SINGLE_FILE_CASES
    for c, r, d, e in [p.values]
] + NESTED_CASES


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(("files", "relative", "is_dir", "expected"), CONSISTENCY_CASES)
def test_agrees_with_git_check_ignore(
    tmp_path: Path, files: dict[str, str], relative: str, is_dir: bool, expected: bool
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert git(repo, "init", "-q").returncode == 0
    write_tree(repo, files)
    make_path(repo, relative, is_dir=is_dir)
    result = git(repo, "check-ignore", "-q", "--", relative)
    assert result.returncode in (0, 1), result.stderr
    by_git = result.returncode == 0
    ours = GitIgnore.for_root(repo).is_ignored(Path(relative), is_dir=is_dir)
    assert (ours, by_git) == (expected, expected)


def test_paths_outside_the_root_are_not_ignored(tmp_path: Path) -> None:
    write_tree(tmp_path, {"root/.gitignore": "*\n"})
    ignore = GitIgnore.for_root(tmp_path / "root")
    assert not ignore.is_ignored(tmp_path / "elsewhere.py", is_dir=False)
    assert not ignore.is_ignored(Path("../elsewhere.py"), is_dir=False)
    assert not ignore.is_ignored(tmp_path / "root", is_dir=True)


def test_normalises_relative_paths(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": "/a/b.py\n"})
    ignore = GitIgnore.for_root(tmp_path)
    assert ignore.is_ignored(Path("a/x/../b.py"), is_dir=False)
    assert ignore.is_ignored(Path("./a/b.py"), is_dir=False)


def test_nested_files_are_read_lazily(tmp_path: Path) -> None:
    ignore = GitIgnore.for_root(tmp_path)
    write_tree(tmp_path, {".gitignore": "*.log\n", "sub/.gitignore": "*.tmp\n"})
    assert ignore.is_ignored(Path("sub/a.tmp"), is_dir=False)
    assert ignore.is_ignored(Path("sub/a.log"), is_dir=False)


def test_root_inside_a_repository_uses_the_outer_files(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".gitignore": "generated/\n/project/top_only.py\n",
            ".git/info/exclude": "*.log\n",
            "project/pyproject.toml": "",
        },
    )
    ignore = GitIgnore.for_root(tmp_path / "project")
    assert ignore.is_ignored(Path("generated/x.py"), is_dir=False)
    assert ignore.is_ignored(Path("top_only.py"), is_dir=False)
    assert ignore.is_ignored(Path("a.log"), is_dir=False)
    assert not ignore.is_ignored(Path("x.py"), is_dir=False)


def test_symlinked_gitignore_is_not_followed(tmp_path: Path) -> None:
    write_tree(tmp_path, {"rules": "*.py\n"})
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path / "rules", tmp_path / "sub" / ".gitignore")
    assert not GitIgnore.for_root(tmp_path).is_ignored(Path("sub/a.py"), is_dir=False)


def test_ignores_entry_does_not_look_at_parents(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": "build/\n"})
    ignore = GitIgnore.for_root(tmp_path)
    assert ignore.ignores_entry("build", is_dir=True)
    assert not ignore.ignores_entry("build/x.py", is_dir=False)
    assert ignore.is_ignored(Path("build/x.py"), is_dir=False)


def test_bom_at_the_start_of_a_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_bytes(b"\xef\xbb\xbf*.py\n")
    assert GitIgnore.for_root(tmp_path).is_ignored(Path("a.py"), is_dir=False)


@pytest.mark.parametrize(
    ("lines", "path", "is_dir", "expected"),
    [
        pytest.param(["*.py"], "a/b.py", False, True, id="ignored"),
        pytest.param(["*.py", "!b.py"], "a/b.py", False, False, id="re-included"),
        pytest.param(["*.txt"], "a/b.py", False, None, id="no line matches"),
        pytest.param(["out/"], "out", False, None, id="directory-only skipped for files"),
        pytest.param([], "a.py", False, None, id="no lines"),
    ],
)
def test_patterns_match(lines: list[str], path: str, is_dir: bool, expected: bool | None) -> None:
    assert Patterns.from_lines(lines).match(path, is_dir=is_dir) is expected


def test_many_patterns_pick_the_last_matching_line() -> None:
    lines = [f"f{i}.py" for i in range(500)] + ["*.py", "!f7.py"]
    patterns = Patterns.from_lines(lines)
    assert patterns.match("d/f7.py", is_dir=False) is False
    assert patterns.match("d/f8.py", is_dir=False) is True


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("index_version", ["2", "3", "4"])
def test_tracked_files_are_never_ignored(tmp_path: Path, index_version: str) -> None:
    # `data/` in .gitignore (for downloaded datasets) also names a tracked package `pkg/data`:
    # git ignores only untracked files, so the package is analysed and the download is not.
    repo = tmp_path / "repo"
    repo.mkdir()
    assert git(repo, "init", "-q").returncode == 0
    write_tree(repo, {"pkg/data/loader.py": "", "pkg/data/new.py": "", "pkg/other.py": ""})
    assert git(repo, "add", "pkg/data/loader.py", "pkg/other.py").returncode == 0
    assert git(repo, "add", "-N", "pkg/data/new.py").returncode == 0  # an extended entry
    (repo / ".gitignore").write_text("data/\n")
    write_tree(repo, {"pkg/data/download.py": "", "data/cache.py": ""})
    assert git(repo, "update-index", "--index-version", index_version).returncode == 0
    found = {path.relative_to(repo).as_posix() for path in discover([repo], repo)}
    assert found == {"pkg/data/loader.py", "pkg/data/new.py", "pkg/other.py"}
    ignore = GitIgnore.for_root(repo)
    assert not ignore.is_ignored(Path("pkg/data/loader.py"), is_dir=False)
    assert ignore.is_ignored(Path("pkg/data/download.py"), is_dir=False)
