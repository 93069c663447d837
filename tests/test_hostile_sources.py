"""Sources that once broke the engine, each reduced to a small case.

They were found by the property and fault tests (test_properties.py, test_faults.py).
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from cli.render import unified_diff
from codemods import Changed, Failed, Settings, Skipped, SkipReason, run_paths, run_source
from codemods.files import read_source
from codemods.lines import source_lines
from codemods.previews import preview_fixes

REPOSITORY = Path(__file__).resolve().parent.parent
CASE = REPOSITORY / "fixtures" / "rng_object_shared_by_workers" / "default_rng_in_init"
BUGGY = (CASE / "before" / "train.py").read_text(encoding="utf-8")
FIXED = (CASE / "after" / "train.py").read_text(encoding="utf-8")

WORKER_ID_SEED = """\
import numpy as np
from torch.utils.data import DataLoader

# Données{separator}bruitées


def seed_worker(worker_id):
    np.random.seed(worker_id)


loader = DataLoader(list(range(8)), num_workers=2, worker_init_fn=seed_worker)
"""

#: Characters `str.splitlines` ends a line at, and Python does not.
SEPARATORS = [
    pytest.param("\x0c", id="form feed"),
    pytest.param("\x0b", id="vertical tab"),
    pytest.param("\x1c", id="file separator"),
    pytest.param("\x85", id="next line"),
    pytest.param("\u2028", id="line separator"),
    pytest.param("\u2029", id="paragraph separator"),
]


# --- line numbers: Python ends lines at \n, \r\n and \r only ---


#: The same program with a space in place of the line break.
PLAIN = WORKER_ID_SEED.format(separator=" ")


@pytest.mark.parametrize("separator", SEPARATORS)
def test_a_position_after_a_unicode_line_break_in_a_comment_is_found(separator: str) -> None:
    source = WORKER_ID_SEED.format(separator=separator)
    (finding,) = run_source(source).findings  # type: ignore[union-attr]
    (expected,) = run_source(PLAIN).findings  # type: ignore[union-attr]
    assert finding.span == expected.span
    fixed = run_source(source, fix=True)
    assert isinstance(fixed, Changed), fixed
    assert "np.random.seed(torch.initial_seed() % 2**32)" in fixed.new


@pytest.mark.parametrize("separator", SEPARATORS)
def test_fix_previews_and_diffs_count_lines_as_python_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, separator: str
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "train.py"
    path.write_text(WORKER_ID_SEED.format(separator=separator), encoding="utf-8")
    (result,) = run_paths([tmp_path], Settings(cache=False), fix=True)
    assert isinstance(result, Changed)
    ((preview,),) = preview_fixes(result.findings).values()
    lines = source_lines(preview.old)
    for edit in reversed(preview.edits):
        lines[edit.span.line - 1 : edit.span.end_line - 1] = source_lines(edit.content)
    assert "".join(lines) == preview.new
    path.write_text(PLAIN, encoding="utf-8")
    (expected,) = run_paths([tmp_path], Settings(cache=False), fix=True)
    assert isinstance(expected, Changed)
    assert unified_diff(result).replace(separator, " ") == unified_diff(expected)


def test_noqa_applies_in_a_file_with_cr_line_endings() -> None:
    source = BUGGY.replace("# one generator for the whole dataset", "# noqa: WS201")
    assert run_source(source.replace("\n", "\r")).findings == ()  # type: ignore[union-attr]


# --- encodings ---


def test_run_source_decodes_text_with_a_latin1_cookie_as_the_text_it_is() -> None:
    source = "# -*- coding: latin-1 -*-\n# Données\n" + BUGGY
    fixed = run_source(source, fix=True)
    assert isinstance(fixed, Changed)
    assert fixed.new == "# -*- coding: latin-1 -*-\n# Données\n" + FIXED


def test_run_source_reads_an_unknown_coding_cookie_as_utf8() -> None:
    # A codec some package registers at run time: the text is analysed, with one note.
    result = run_source("# coding: klingon\n" + BUGGY, fix=True)
    assert isinstance(result, Changed)
    assert result.note == "unknown coding `klingon`: read as UTF-8"
    assert result.new.startswith("# coding: klingon\n")


@pytest.mark.parametrize(
    ("source", "detail"),
    [
        pytest.param(
            "# coding: latin-1\nx = '€'\n",
            "character '€' on line 2 cannot be encoded as iso-8859-1",
            id="unencodable",
        ),
    ],
)
def test_run_source_skips_text_its_coding_cookie_cannot_hold(source: str, detail: str) -> None:
    result = run_source(source)
    assert isinstance(result, Skipped)
    assert result.reason is SkipReason.NOT_UTF8
    assert detail in result.detail


def test_a_latin1_file_with_cr_line_endings_is_read(tmp_path: Path) -> None:
    path = tmp_path / "old_mac.py"
    path.write_bytes("# -*- coding: latin-1 -*-\r# Données\rx = 1\r".encode("latin-1"))
    source = read_source(path)
    assert (source.encoding, source.text) == (
        "iso-8859-1",
        "# -*- coding: latin-1 -*-\r# Données\rx = 1\r",
    )


# --- fixes keep the file's line endings ---


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_a_fix_writes_the_file_line_ending_everywhere(newline: str) -> None:
    # Helper docstrings span lines; the last line of a CR file used to lose its ending.
    fixed = run_source(BUGGY.replace("\n", newline), fix=True)
    assert isinstance(fixed, Changed)
    assert fixed.new == FIXED.replace("\n", newline)


def test_a_fix_keeps_the_line_endings_of_blank_lines_it_moves() -> None:
    lines = BUGGY.splitlines(keepends=True)
    source = "".join(
        line.replace("\n", "\r\n") if index % 2 else line for index, line in enumerate(lines)
    )
    fixed = run_source(source, fix=True)
    assert isinstance(fixed, Changed)
    old, new = source_lines(source), source_lines(fixed.new)
    # The blank line after the imports ends with CRLF; the helpers go in front of it.
    assert old[5] == "\r\n"
    assert new.count("\r\n") == old.count("\r\n")


# --- nesting ---


def test_a_file_nested_too_deeply_for_libcst_fails_alone(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a_fine.py").write_text(BUGGY, encoding="utf-8")
    (tmp_path / "b_deep.py").write_text(
        BUGGY + "TOTAL = " + " + ".join(["1"] * 1200) + "\n", encoding="utf-8"
    )
    fine, deep = run_paths([tmp_path], Settings(cache=False), fix=True)
    assert isinstance(fine, Changed)
    assert fine.new == FIXED
    assert isinstance(deep, Failed)
    assert deep.error == "fix not applied: the code is nested too deeply for libcst to rewrite it"


def test_a_bom_only_file_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "empty.py"
    path.write_bytes(codecs.BOM_UTF8)
    assert read_source(path).text == ""
