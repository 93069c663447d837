"""What each finding's fix would change, as text (for JSON and SARIF output).

`fix` applies all fixes together; a preview applies one finding's fix alone to the files as
they are on disk, and describes the result as whole-line text replacements and a diff. A
notebook's preview is a change to its JSON file, exactly what `fix` would write.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import files, notebooks
from .lines import source_lines
from .types import Edit, Finding, SourceFile, Span

__all__ = ["FilePreview", "TextEdit", "preview_fixes"]


@dataclass(frozen=True)
class TextEdit:
    """Replace the text of `span` (1-based lines, 0-based columns) with `content`.

    An empty span inserts; an empty `content` deletes. Edits cover whole lines.
    """

    span: Span
    content: str


@dataclass(frozen=True)
class FilePreview:
    """One file's text before and after a fix."""

    path: Path
    old: str
    new: str
    edits: tuple[TextEdit, ...]


def text_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    old_lines = source_lines(old)
    new_lines = source_lines(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return tuple(
        TextEdit(Span(i1 + 1, 0, i2 + 1, 0), "".join(new_lines[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    )


def preview_fixes(findings: Iterable[Finding]) -> dict[Finding, tuple[FilePreview, ...]]:
    """Return what each finding's fix alone would change; leave out fixes that cannot apply."""
    sources: dict[Path, SourceFile | None] = {}

    def source(path: Path) -> SourceFile | None:
        if path not in sources:
            try:
                sources[path] = files.read_source(path)
            except files.SourceError:
                sources[path] = None
        return sources[path]

    # Findings of one cause often carry the same fix (each loader of a shared Dataset):
    # each distinct change of a file is made once, as rewriting costs most of a preview.
    made: dict[tuple[Path, tuple[Edit, ...]], FilePreview | None] = {}

    def change(path: Path, path_edits: tuple[Edit, ...]) -> FilePreview | None:
        key = (path, path_edits)
        if key not in made:
            made[key] = _change(path, path_edits, source(path))
        return made[key]

    previews: dict[Finding, tuple[FilePreview, ...]] = {}
    for finding in findings:
        if finding.fix is None:
            continue
        edits: dict[Path, list[Edit]] = {}
        for file_edits in finding.fix.files:
            edits.setdefault(file_edits.path, []).extend(file_edits.edits)
        changes = []
        for path, path_edits in edits.items():
            preview = change(path, tuple(path_edits))
            if preview is None:
                break
            changes.append(preview)
        else:
            previews[finding] = tuple(changes)
    return previews


def _change(path: Path, edits: tuple[Edit, ...], original: SourceFile | None) -> FilePreview | None:
    """Return file `path` before and after `edits` (None if they cannot be applied)."""
    # libcst is imported only when something is fixed: it costs more than checking a tree.
    from .fixes.apply import FixError, apply_edits
    from .fixes.code_style import code_style

    if original is None:
        return None
    try:
        style = code_style(files.find_project_root(path))
        new = apply_edits(original.text, edits, style=style)
        old = original.text
        if notebooks.is_notebook(path):
            file_source, new = notebooks.file_change(original, new)
            old = file_source.text
    except (FixError, notebooks.NotebookError):
        return None
    return FilePreview(path, old, new, text_edits(old, new))
