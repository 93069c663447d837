"""`# noqa` comments: which lines suppress which rule codes."""

from __future__ import annotations

import io
import re
import tokenize

from ..lines import source_lines

_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)

#: (line, suppressed codes) pairs; no codes means the comment suppresses every rule.
Suppressions = tuple[tuple[int, tuple[str, ...]], ...]


def noqa_comments(text: str) -> Suppressions:
    """Return the `# noqa` comments of a module's text (comments only, not strings)."""
    if "noqa" not in text and "NOQA" not in text:
        return ()
    found: list[tuple[int, tuple[str, ...]]] = []
    try:
        comments = [
            (token.start[0], token.string)
            for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline)
            if token.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        comments = list(enumerate(source_lines(text), 1))
    for line, comment in comments:
        match = _NOQA.search(comment)
        if match is None:
            continue
        codes = match.group("codes")
        found.append((line, tuple(re.split(r"[,\s]+", codes.upper())) if codes else ()))
    return tuple(found)
