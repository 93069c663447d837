"""`fix --diff` prints patches that `git apply` accepts, for every kind of file `fix` writes."""

from __future__ import annotations

import codecs
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from sample_project import DATA, LOADER

from cli.main import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _lf(text: str) -> bytes:
    return text.encode()


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def _cr(text: str) -> bytes:
    return text.replace("\n", "\r").encode()


def _no_final_newline(text: str) -> bytes:
    return text.rstrip("\n").encode()


def _crlf_no_final_newline(text: str) -> bytes:
    return text.rstrip("\n").replace("\n", "\r\n").encode()


def _bom(text: str) -> bytes:
    return codecs.BOM_UTF8 + text.encode()


def _bom_crlf(text: str) -> bytes:
    return codecs.BOM_UTF8 + _crlf(text)


def _latin1(text: str) -> bytes:
    return ("# -*- coding: latin-1 -*-\n# Données bruitées\n" + text).encode("latin-1")


def _mixed(text: str) -> bytes:
    lines = text.splitlines(keepends=True)
    return "".join(
        line.replace("\n", "\r\n") if number % 2 else line for number, line in enumerate(lines)
    ).encode()


ENCODINGS: dict[str, Callable[[str], bytes]] = {
    "LF": _lf,
    "CRLF": _crlf,
    "CR": _cr,
    "no final newline": _no_final_newline,
    "CRLF, no final newline": _crlf_no_final_newline,
    "BOM": _bom,
    "BOM and CRLF": _bom_crlf,
    "latin-1 with a coding cookie": _latin1,
    "mixed LF and CRLF": _mixed,
}


def _git(
    root: Path, *arguments: str, input: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-c", "core.autocrlf=false", *arguments],
        cwd=root,
        input=input,
        capture_output=True,
        check=False,
    )


def _repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, train: bytes, name: str) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert _git(root, "init", "-q").returncode == 0
    (root / "requirements.txt").write_text("torch==1.8.1\n", encoding="utf-8")
    (root / "data.py").write_text(DATA, encoding="utf-8")
    (root / name).write_bytes(train)
    monkeypatch.chdir(root)
    for variable in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM"):
        monkeypatch.delenv(variable, raising=False)
    return root


def _patch_applies(root: Path, name: str) -> None:
    before = (root / name).read_bytes()
    diff = CliRunner().invoke(main, ["fix", "--no-cache", "--diff", name], catch_exceptions=False)
    assert diff.exit_code == 1
    patch = diff.stdout_bytes
    check = _git(root, "apply", "--check", "-", input=patch)
    assert check.returncode == 0, check.stderr.decode()
    assert _git(root, "apply", "-", input=patch).returncode == 0
    patched = (root / name).read_bytes()
    assert patched != before
    # The patch does what `fix` does, byte for byte.
    (root / name).write_bytes(before)
    CliRunner().invoke(main, ["fix", "--no-cache", "--yes", name], catch_exceptions=False)
    assert (root / name).read_bytes() == patched


@pytest.mark.parametrize("encode", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_fix_diff_is_a_patch_git_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encode: Callable[[str], bytes]
) -> None:
    root = _repository(tmp_path, monkeypatch, encode(LOADER), "train.py")
    _patch_applies(root, "train.py")


def _notebook(newline: str) -> bytes:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training"]},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": LOADER.splitlines(keepends=True),
        },
    ]
    document = {
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    return text.replace("\n", newline).encode()


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_fix_diff_of_a_notebook_is_a_patch_git_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, newline: str
) -> None:
    root = _repository(tmp_path, monkeypatch, _notebook(newline), "train.ipynb")
    _patch_applies(root, "train.ipynb")
