"""A notebook file's JSON written back: in the layout the file had (detected from the file
itself, and only used when it reproduces the file byte for byte), otherwise in Jupyter's own."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class _Layout:
    """How a notebook file's JSON is laid out: the json.dumps options that reproduce it."""

    indent: int | str | None
    separators: tuple[str, str]
    ensure_ascii: bool
    #: The line ending between JSON lines ("\r\n" in a notebook checked out on Windows).
    newline: str = "\n"

    def dumps(self, document: Any) -> str:
        text = json.dumps(
            document,
            indent=self.indent,
            separators=self.separators,
            ensure_ascii=self.ensure_ascii,
        )
        # json.dumps escapes line breaks inside strings, so every "\n" here is structural.
        return text if self.newline == "\n" else text.replace("\n", self.newline)


def _layout(text: str, document: Any) -> _Layout | None:
    """Return the layout that reproduces `text` exactly, if there is one."""
    body = text.rstrip()
    lines = body.split("\n", 2)
    indent: int | str | None = None
    if len(lines) > 1:
        second = lines[1]
        prefix = second[: len(second) - len(second.lstrip(" \t"))]
        indent = len(prefix) if set(prefix) <= {" "} else prefix
    newline = "\r\n" if "\r\n" in body else "\n"
    separator_options = [(",", ": ")] if indent is not None else [(", ", ": "), (",", ":")]
    for separators in separator_options:
        for ensure_ascii in (False, True):
            layout = _Layout(indent, separators, ensure_ascii, newline)
            if layout.dumps(document) == body:
                return layout
    return None


def _render(raw: bytes, changed: dict[int, str]) -> str:
    text = raw.decode("utf-8-sig")
    document = json.loads(text)
    ending = text[len(text.rstrip()) :]
    layout = _layout(text, document)
    if layout is not None:
        for index, source in changed.items():
            cell = document["cells"][index]
            cell["source"] = (
                source.splitlines(keepends=True) if isinstance(cell.get("source"), list) else source
            )
        return layout.dumps(document) + ending
    # A layout json.dumps cannot reproduce: write Jupyter's own, as Jupyter would on save.
    for index, source in changed.items():
        document["cells"][index]["source"] = source
    return _jupyter_json(document) + "\n"


#: Non-text MIME types whose values Jupyter also stores as lists of lines.
_SPLIT_MIME_TYPES = frozenset({"application/javascript", "image/svg+xml"})


def _split_bundle(bundle: object) -> None:
    if isinstance(bundle, dict):
        for key, value in bundle.items():
            if isinstance(value, str) and (key.startswith("text/") or key in _SPLIT_MIME_TYPES):
                bundle[key] = value.splitlines(keepends=True)


def _jupyter_json(document: dict[str, Any]) -> str:
    """Return the notebook in the layout Jupyter (nbformat 4) writes.

    Sorted keys, one-space indentation, and multi-line text stored as lists of lines.
    """
    document = copy.deepcopy(document)
    for cell in document.get("cells", []):
        if isinstance(cell.get("source"), str):
            cell["source"] = cell["source"].splitlines(keepends=True)
        for attachment in (cell.get("attachments") or {}).values():
            _split_bundle(attachment)
        for output in cell.get("outputs") or []:
            if not isinstance(output, dict):
                continue
            if output.get("output_type") in ("execute_result", "display_data"):
                _split_bundle(output.get("data"))
            elif output.get("output_type") == "stream" and isinstance(output.get("text"), str):
                output["text"] = output["text"].splitlines(keepends=True)
    return json.dumps(
        document, sort_keys=True, indent=1, separators=(",", ": "), ensure_ascii=False
    )
