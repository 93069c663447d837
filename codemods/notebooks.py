"""Jupyter notebooks: their code cells as one Python module, and a fixed module back as cells.

A notebook is analysed as one module made of its code cells in order, so a Dataset defined
in one cell and used by a DataLoader in another is found like in a `.py` file. Each code
cell is preceded in that module by a marker line, `# <<workerseed cell N>>` (N counts every
cell of the notebook from 1), which is how findings are located in cells and how a fixed
module is split back into cells.

IPython syntax that is not Python is masked before parsing, keeping the number of lines:
line magics (`%matplotlib inline`), shell escapes (`!pip install x`, `files = !ls`), help
(`np.random?`) and cell magics (`%%time`) become placeholder comments (`pass` plus a comment
inside an indented block). Cells whose magic runs something else than Python (`%%bash`,
`%%html`, ...) are masked whole. Placeholders are restored verbatim when a fixed module is
written back, so magics are never touched.

Writing keeps the notebook as it was: outputs, metadata, key order and indentation. Only the
`source` of changed cells is replaced, and the JSON is written in the layout the file had
(detected from the file itself, and only used when it reproduces the file byte for byte);
otherwise in Jupyter's own layout.

The JSON format is read here and written by `notebook_json`, without nbformat: reading needs
only the cells and their sources, and writing keeps the file's own layout, so nbformat's
dependencies (jsonschema, traitlets, jupyter_core) would buy nothing but a heavier install.
Notebooks are therefore checked by every installation.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .errors import SourceError
from .notebook_json import _layout, _render
from .types import Finding, Location, SkipReason, SourceFile, Span

__all__ = [
    "NotebookError",
    "NotebookModule",
    "file_change",
    "file_position",
    "file_span",
    "is_notebook",
    "locate",
    "notebook_cells",
    "read_module",
]

SUFFIX = ".ipynb"

_CELL_MARKER = "# <<workerseed cell {}>>"
_CELL_MARKER_LINE = re.compile(r"^# <<workerseed cell (\d+)>>\r?\n?$")
_MAGIC_PLACEHOLDER = "# <<workerseed magic {}>>"
_MAGIC_LINE = re.compile(r"^[ \t]*(?:pass  )?# <<workerseed magic (\d+)>>(?P<end>\r?\n?)$")

#: Cell magics whose body is Python run in the kernel: only their first line is masked.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit"})
#: `name = !cmd` and `name = %magic`: IPython assigns the output.
_ASSIGNED_MAGIC = re.compile(
    r"^[ \t]*[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[!%]"
)


class NotebookError(Exception):
    """A fixed module cannot be turned back into the notebook's cells."""


def is_notebook(path: Path) -> bool:
    """Return True if `path` names a Jupyter notebook."""
    return path.suffix.lower() == SUFFIX


@dataclass(frozen=True)
class _Cell:
    """One code cell: where it is, and its source before and after masking."""

    #: 0-based position among all cells of the notebook.
    index: int
    source: str
    #: The source as it appears in the module (magics masked; same number of lines).
    masked: str

    @property
    def number(self) -> int:
        """Return the 1-based cell number users see."""
        return self.index + 1


@dataclass(frozen=True)
class NotebookModule:
    """A notebook's code cells as one Python module."""

    text: str
    cells: tuple[_Cell, ...]
    #: The original lines that placeholders replace, by placeholder number.
    magics: tuple[str, ...]


# --- reading ---


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SourceError(
            SkipReason.NOT_UTF8, f"cannot decode {path} as UTF-8: {error.reason}"
        ) from error


def _read_notebook(path: Path, raw: bytes) -> dict[str, Any]:
    """Return the notebook's JSON document, each cell's `source` joined into one string."""
    text = _decode(path, raw)
    try:
        document = json.loads(text)
    except ValueError as error:
        raise SourceError(
            SkipReason.INVALID_NOTEBOOK, f"not a valid notebook: {_first_line(error)}"
        ) from error
    if not isinstance(document, dict):
        raise SourceError(SkipReason.INVALID_NOTEBOOK, "not a valid notebook: not a JSON object")
    version = document.get("nbformat")
    if not isinstance(version, int):
        raise SourceError(SkipReason.INVALID_NOTEBOOK, "not a valid notebook: no nbformat version")
    if version != 4:
        raise SourceError(
            SkipReason.INVALID_NOTEBOOK,
            f"nbformat {version} notebooks are not supported (only version 4; convert with "
            "`jupyter nbconvert --to notebook`)",
        )
    cells = document.get("cells")
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise SourceError(SkipReason.INVALID_NOTEBOOK, "not a valid notebook: malformed cells")
    joined = []
    for cell in cells:
        source = _joined(cell.get("source", ""))
        if source is None:
            raise SourceError(SkipReason.INVALID_NOTEBOOK, "not a valid notebook: malformed cells")
        joined.append({**cell, "source": source})
    language = _language(document)
    if language is not None and language.lower() not in ("python", "python3", "ipython"):
        raise SourceError(SkipReason.EXCLUDED, f"not a Python notebook (language: {language})")
    return {**document, "cells": joined}


def _joined(source: object) -> str | None:
    """Return a cell's source as one string (the format allows a list of lines), else None."""
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return None


def _first_line(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def _language(notebook: Any) -> str | None:
    metadata = notebook.get("metadata") or {}
    for key in ("kernelspec", "language_info"):
        section = metadata.get(key) or {}
        value = section.get("language") if key == "kernelspec" else section.get("name")
        if isinstance(value, str) and value:
            return value
    return None


def _lines(text: str) -> list[str]:
    """Split like Python counts lines: at `\\n` only, keeping the line ends."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _is_magic(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return False
    return (
        stripped.startswith(("%", "!", "?"))
        # `obj?` asks for help; `x = f(y)  # why?` is a comment.
        or (stripped.endswith("?") and "#" not in stripped)
        or bool(_ASSIGNED_MAGIC.match(line))
    )


def _mask_cell(source: str, magics: list[str], *, number: int) -> str:
    """Return `source` with IPython syntax replaced by placeholders (same lines, same columns)."""
    if _parses(source):
        return source
    lines = _lines(source)
    kinds: list[str | None] = [None] * len(lines)  # "line" magic, or "body" of a cell magic
    first = lines[0].strip() if lines else ""
    start = 0
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        kinds[0] = "body"
        start = 1
        if name not in _PYTHON_CELL_MAGICS:
            kinds[1:] = ["body"] * (len(lines) - 1)
            start = len(lines)
    continued = False
    for position in range(start, len(lines)):
        line = lines[position]
        if continued or _is_magic(line):
            kinds[position] = "line"
            continued = line.rstrip("\r\n").endswith("\\")
    first_placeholder = len(magics)
    for use_pass in (False, True):
        masked = []
        number_of = first_placeholder
        for line, kind in zip(lines, kinds, strict=True):
            if kind is None:
                masked.append(line)
                continue
            body = line.rstrip("\r\n")
            end = line[len(body) :]
            indent = body[: len(body) - len(body.lstrip(" \t"))]
            placeholder = _MAGIC_PLACEHOLDER.format(number_of)
            if use_pass and kind == "line" and indent:
                placeholder = "pass  " + placeholder
            masked.append(indent + placeholder + end)
            number_of += 1
        text = "".join(masked)
        if _parses(text):
            originals = zip(lines, kinds, strict=True)
            magics.extend(line.rstrip("\r\n") for line, kind in originals if kind)
            return text
    raise SourceError(SkipReason.SYNTAX_ERROR, _syntax_error(source, number))


def _syntax_error(source: str, number: int) -> str:
    try:
        ast.parse(source)
    except SyntaxError as error:
        where = f", line {error.lineno}" if error.lineno else ""
        return f"cell {number}{where}: {error.msg}"
    except ValueError as error:
        return f"cell {number}: {error}"
    return f"cell {number}: cannot be parsed"


def _module(notebook: Any) -> NotebookModule:
    magics: list[str] = []
    cells: list[_Cell] = []
    parts: list[str] = []
    for index, cell in enumerate(notebook["cells"]):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        masked = _mask_cell(source, magics, number=index + 1)
        cells.append(_Cell(index, source, masked))
        parts.append(_CELL_MARKER.format(index + 1) + "\n")
        parts.append(masked if not masked or masked.endswith("\n") else masked + "\n")
    return NotebookModule("".join(parts), tuple(cells), tuple(magics))


def read_module(path: Path, raw: bytes, mode: int) -> SourceFile:
    """Return a notebook's code cells as a Python `SourceFile` (SourceError if impossible).

    `raw` stays the notebook's bytes, so the result can be compared with the file on disk;
    `text` is the module made of the cells.
    """
    module = _module(_read_notebook(path, raw))
    return SourceFile(
        path=path,
        raw=raw,
        text=module.text,
        encoding="utf-8",
        bom=raw.startswith(b"\xef\xbb\xbf"),
        mode=mode,
    )


# --- locating findings ---


def _markers(text: str) -> list[tuple[int, int]]:
    """Return (line of the marker in the module, cell number) for every code cell."""
    found = []
    for line_number, line in enumerate(_lines(text), 1):
        match = _CELL_MARKER_LINE.match(line)
        if match:
            found.append((line_number, int(match.group(1))))
    return found


def _cell_line(markers: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    best = None
    for marker_line, cell in markers:
        if marker_line >= line:
            break
        best = (cell, line - marker_line)
    return best


def locate(finding: Finding, text: str) -> Finding:
    """Return `finding` with its span counted from the first line of its cell.

    `text` is the module the finding was made on (see `read_module`).
    """
    markers = _markers(text)
    start = _cell_line(markers, finding.span.line)
    end = _cell_line(markers, finding.span.end_line)
    if start is None or end is None:
        return finding
    cell, line = start
    end_line = end[1] if end[0] == cell else line
    end_column = finding.span.end_column if end[0] == cell else finding.span.column
    related = []
    for place in finding.related:
        if place.path != finding.path:
            related.append(place)
            continue
        span = place.span
        at, until = _cell_line(markers, span.line), _cell_line(markers, span.end_line)
        if at is not None and until is not None and at[0] == until[0] == cell:
            moved = Span(at[1], span.column, until[1], span.end_column)
            related.append(Location(place.path, moved))  # a place in the finding's own cell
    return replace(
        finding,
        cell=cell,
        span=Span(line, finding.span.column, end_line, end_column),
        related=tuple(related),
        message=_cell_references(finding.message, finding.path.name, markers),
    )


def _cell_references(message: str, name: str, markers: list[tuple[int, int]]) -> str:
    """Rewrite `nb.ipynb:12` in a message (a line of the module) as `nb.ipynb:cell 3:5`."""

    def in_cell(match: re.Match[str]) -> str:
        where = _cell_line(markers, int(match.group(2)))
        if where is None:
            return match.group(0)
        return f"{match.group(1)}cell {where[0]}:{where[1]}"

    return re.sub(rf"((?<![\w.-]){re.escape(name)}:)(\d+)\b", in_cell, message)


# --- writing back ---


def _restore(region: str, magics: tuple[str, ...]) -> str:
    restored = []
    for line in _lines(region):
        match = _MAGIC_LINE.match(line)
        if match and int(match.group(1)) < len(magics):
            restored.append(magics[int(match.group(1))] + match.group("end"))
        else:
            restored.append(line)
    return "".join(restored)


def _regions(text: str, cells: tuple[_Cell, ...]) -> dict[int, str]:
    """Split a module into the text of each code cell, by cell index."""
    regions: dict[int, list[str]] = {}
    preamble: list[str] = []
    current: list[str] = preamble
    order: list[int] = []
    for line in _lines(text):
        match = _CELL_MARKER_LINE.match(line)
        if match:
            number = int(match.group(1))
            current = regions.setdefault(number - 1, [])
            order.append(number - 1)
            continue
        current.append(line)
    if order != [cell.index for cell in cells]:
        raise NotebookError("the fix moved code across notebook cells; not applied")
    if preamble and cells:
        regions[cells[0].index][:0] = preamble
    return {index: "".join(lines) for index, lines in regions.items()}


def _new_source(cell: _Cell, region: str, magics: tuple[str, ...]) -> str:
    expected = cell.masked if not cell.masked or cell.masked.endswith("\n") else cell.masked + "\n"
    if region == expected:
        return cell.source
    restored = _restore(region, magics).split("\n")
    # A cell's trailing blank lines mean nothing; keep the ending the cell had.
    while restored and not restored[-1].strip():
        restored.pop()
    body = cell.source.rstrip("\n")
    return "\n".join(restored) + cell.source[len(body) :]


def _changed_sources(new_text: str, module: NotebookModule) -> dict[int, str]:
    regions = _regions(new_text, module.cells)
    changed = {}
    for cell in module.cells:
        source = _new_source(cell, regions[cell.index], module.magics)
        if source != cell.source:
            changed[cell.index] = source
    return changed


def file_change(source: SourceFile, new_text: str) -> tuple[SourceFile, str]:
    """Return the notebook file as read and its new content, given the fixed module.

    `source` is what `read_module` returned; the result's SourceFile holds the notebook's
    JSON text, ready for `files.write_atomic`. Raises NotebookError if the edit cannot be
    mapped back to cells.
    """
    try:
        notebook = _read_notebook(source.path, source.raw)
        module = _module(notebook)
    except SourceError as error:
        raise NotebookError(error.detail) from error
    changed = _changed_sources(new_text, module)
    original = source.raw.decode("utf-8-sig")
    file_source = replace(source, text=original)
    if not changed:
        return file_source, original
    return file_source, _render(source.raw, changed)


def notebook_cells(text: str) -> dict[int, str]:
    """Return the source of every code cell of a notebook's JSON text, by cell number."""
    document = json.loads(text)
    cells = {}
    for index, cell in enumerate(document.get("cells", [])):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            cells[index + 1] = "".join(source) if isinstance(source, list) else str(source)
    return cells


def file_position(raw: bytes, cell: int, line: int, column: int) -> tuple[int, int] | None:
    """Return the (line, column) in the notebook file where a cell's (line, column) is.

    Both columns are 0-based. None when the file's layout cannot be reproduced, or the
    position is not in the cell.
    """
    text = raw.decode("utf-8-sig")
    document = json.loads(text)
    layout = _layout(text, document)
    cells = document.get("cells", [])
    if layout is None or not 0 < cell <= len(cells):
        return None
    source = cells[cell - 1].get("source", "")
    lines = source if isinstance(source, list) else _lines(str(source))
    if not 0 < line <= len(lines):
        return None
    if isinstance(source, list):
        element, prefix = line - 1, lines[line - 1][:column]
    else:
        element, prefix = -1, "".join(lines[: line - 1]) + lines[line - 1][:column]
    marker = "workerseed-position-7f3a"
    probe = copy.deepcopy(document)
    if element >= 0:
        probe["cells"][cell - 1]["source"][element] = marker
    else:
        probe["cells"][cell - 1]["source"] = marker
    dumped = layout.dumps(probe)
    offset = dumped.find(marker)
    if offset < 0:
        return None
    file_line = dumped.count("\n", 0, offset) + 1
    line_start = dumped.rfind("\n", 0, offset) + 1
    escaped = json.dumps(prefix, ensure_ascii=layout.ensure_ascii)[1:-1]
    return file_line, offset - line_start + len(escaped)


def file_span(finding: Finding) -> Span | None:
    """Return where a notebook finding is in the notebook file itself (its JSON lines).

    For tools that only know files, such as SARIF viewers and GitHub annotations. None when
    the finding is not in a notebook cell or its place in the file cannot be worked out.
    """
    if finding.cell is None:
        return None
    try:
        raw = finding.path.read_bytes()
        start = file_position(raw, finding.cell, finding.span.line, finding.span.column)
        end = file_position(raw, finding.cell, finding.span.end_line, finding.span.end_column)
    except (OSError, ValueError):  # gone, or no longer JSON
        return None
    if start is None or end is None:
        return None
    return Span(start[0], start[1], end[0], end[1])
