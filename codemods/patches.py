"""A change as a patch `git apply` accepts: the file's own bytes, line by line.

A patch describes bytes, not text. `git apply` splits lines at `\\n` only, compares them byte
for byte (carriage returns, a byte order mark and the file's encoding included) and needs
`\\ No newline at end of file` after a last line without one. The diff people read on a
terminal is another thing: it may show a notebook cell by cell, in the terminal's encoding.
"""

from __future__ import annotations

import codecs
import difflib

from .types import Changed

__all__ = ["file_patch"]

NO_NEWLINE = b"\\ No newline at end of file\n"


def _git_lines(data: bytes) -> list[bytes]:
    """Split at `\\n` only, as git does: `\\r` stays part of the line (CRLF or old Mac)."""
    lines = data.split(b"\n")
    ended = [line + b"\n" for line in lines[:-1]]
    return [*ended, lines[-1]] if lines[-1] else ended


def _file_bytes(changed: Changed, text: str) -> bytes:
    # A character the encoding lacks makes the write fail, and `fix` reports it; the patch
    # still shows the change.
    data = text.encode(changed.source.encoding, errors="replace")
    return codecs.BOM_UTF8 + data if changed.source.bom else data


def file_patch(changed: Changed, name: str) -> bytes:
    """Return the unified diff from the file's bytes on disk to the bytes `fix` would write.

    `name` is the path the patch names (`a/name`, `b/name`), relative to where it is applied.
    """
    old = _git_lines(changed.source.raw)
    new = _git_lines(_file_bytes(changed, changed.new))
    header = f"--- a/{name}\n+++ b/{name}\n".encode()
    body = []
    # The first two lines are difflib's own `---`/`+++` header, without names.
    for line in list(difflib.diff_bytes(difflib.unified_diff, old, new, n=3))[2:]:
        body.append(line if line.endswith(b"\n") else line + b"\n" + NO_NEWLINE)
    return header + b"".join(body) if body else b""
