"""Split source text into lines where Python does: at `\\n`, `\\r\\n` and `\\r` only.

`str.splitlines` also splits at form feeds, vertical tabs, `\\x1c`-`\\x1e`, `\\x85`, U+2028
and U+2029, which may appear in comments and strings; the line numbers of `ast`, `tokenize`
and libcst do not count them.
"""

from __future__ import annotations

import io

__all__ = ["source_lines"]


def source_lines(text: str) -> list[str]:
    """Return the lines of `text`, each with its line ending, numbered as Python numbers them."""
    return io.StringIO(text, newline="").readlines()
