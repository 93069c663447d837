"""A project kept open between edits, for editors (`workerseed server`).

`check` reads and summarises a repository once per run. An editor asks again after every
change to a file: `LiveProject` keeps the project's file summaries in memory and replaces
only the summary of the file that changed, so a question about the whole project costs
running the rules, not reading and parsing the repository again. Text an editor has not
saved (`update`) takes the place of the file on disk.

Nothing here knows about the Language Server Protocol: positions are the engine's (1-based
lines, 0-based columns counted in characters); the server converts them for its client.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import files
from .analysis.project import Project
from .checking import check_project
from .engine import discover, project_target
from .fixing import MAX_FIX_ROUNDS, applicable, choose_fixes
from .previews import FilePreview, text_edits
from .registry import selected_rules
from .settings import Settings, for_project
from .summaries import Parsed, summarise_source
from .types import Edit, Finding, SourceFile
from .workspace import Workspace, open_workspace

if TYPE_CHECKING:
    from .fixes.code_style import CodeStyle

__all__ = ["LiveProject", "live_root"]


def live_root(path: Path) -> tuple[Path, bool]:
    """Return the project root `path` is analysed in, and whether it is a real project.

    A file below no project marker (pyproject.toml, setup.py, .git, ...) is analysed alone:
    its directory may be a home directory, and reading everything below it on every open
    would make the editor wait for nothing.
    """
    root = files.find_project_root(path)
    return root, files.is_project_root(root)


@dataclass(frozen=True)
class _Overlay:
    """Unsaved text of one file, and the summary made of it (None: it does not parse)."""

    text: str
    raw: bytes
    parsed: bool


class LiveProject:
    """One project's summaries, kept up to date with the editor's unsaved text.

    `check()` answers as `workerseed check` on the whole project would if every updated file
    were saved. Raises ConfigError (from the constructor) for an invalid configuration.
    """

    def __init__(
        self, root: Path, settings: Settings, *, only: Iterable[Path] | None = None
    ) -> None:
        """Open the project at `root`; with `only`, just those files (a loose script)."""
        self.root = root
        self.settings = for_project(settings, root)
        self.rules = selected_rules(self.settings)
        self.target = project_target(root, self.settings)
        self._only = None if only is None else sorted(set(only), key=str)
        self._overlays: dict[Path, _Overlay] = {}
        self._workspace = self._open(())

    # --- the files ---

    def _open(self, extra: Iterable[Path]) -> Workspace:
        if self._only is None:
            everything = discover([self.root], self.root, self.settings)
        else:
            everything = [path for path in self._only if path.is_file()]
        paths = sorted(set(everything) | set(extra), key=str)
        prefetch = tuple(
            dict.fromkeys(token for rule in self.rules for token in rule.prefetch(self.target))
        )
        unsaved = {path: overlay.raw for path, overlay in self._overlays.items()}
        workspace = open_workspace(self.root, paths, self.settings, prefetch, None, unsaved)
        self._known = frozenset(workspace.sources.paths)
        for path, overlay in self._overlays.items():
            self._use(workspace, path, overlay)
        return workspace

    def reload(self) -> None:
        """Read the project again (files were created or deleted); unsaved text stays."""
        self._workspace = self._open(())

    def contains(self, path: Path) -> bool:
        """Return True if `path` is one of the project's analysed files."""
        return path in self._known

    def text(self, path: Path) -> str | None:
        """Return the current text of `path`: unsaved text, else the file on disk."""
        overlay = self._overlays.get(path)
        if overlay is not None:
            return overlay.text
        try:
            return files.read_source(path).text
        except files.SourceError:
            return None

    def update(self, path: Path, text: str | None) -> bool:
        """Analyse `text` as the content of `path` from now on (None: the file on disk).

        Return False if the text cannot be analysed (a syntax error while typing): the last
        version that could be stays in the project, so findings elsewhere do not flicker.
        """
        if text is None:
            self._overlays.pop(path, None)
            try:
                text = files.read_source(path).text
            except files.SourceError:
                return False
        try:
            raw = files.encode_source(path, text)
        except files.SourceError:
            return False
        overlay = _Overlay(text, raw, parsed=True)
        if path not in self._known:
            if self._only is not None:
                self._only.append(path)
            # A file the project did not have (new, or excluded): its module names and
            # text must be indexed with the others, so the project is read again.
            self._overlays[path] = overlay
            self._workspace = self._open([path])
            return self._overlays[path].parsed
        parsed = self._use(self._workspace, path, overlay)
        self._overlays[path] = _Overlay(text, raw, parsed)
        return parsed

    def _use(self, workspace: Workspace, path: Path, overlay: _Overlay) -> bool:
        """Put the overlay's summary in place of the file's; False if it does not parse."""
        source = SourceFile(path, overlay.raw, overlay.text, "utf-8", False, 0o644)
        summary = summarise_source(source, self.root)
        if not isinstance(summary, Parsed):
            self._overlays[path] = _Overlay(overlay.text, overlay.raw, parsed=False)
            return False
        workspace.sources.replace(summary.facts, overlay.raw)
        workspace.problems.pop(path, None)
        return True

    @staticmethod
    def release_replaced() -> None:
        """Free the memory of the summaries that edits replaced.

        Summaries leave the cyclic garbage collector's view when they are made (see
        `summaries.collector_paused`), so one that an edit replaced is freed only by a full
        collection. That takes a fraction of a second on a large project: a server runs it
        when the editor is idle, not after every edit.
        """
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    # --- findings and fixes ---

    def check(self) -> dict[Path, tuple[Finding, ...]]:
        """Return the findings of the whole project, by file."""
        project = Project(self.root, self._workspace.sources, self.target)
        by_path: dict[Path, list[Finding]] = {}
        for finding in check_project(project, self.rules, self.settings):
            by_path.setdefault(finding.path, []).append(finding)
        # Summaries made while answering are kept for the next start (as `check` does).
        self._workspace.cache.save()
        return {path: tuple(findings) for path, findings in by_path.items()}

    def _style(self) -> CodeStyle:
        """Return the project's code style, so quick fixes write code as `fix` does."""
        from .fixes.code_style import code_style

        return code_style(self.root)

    def preview(self, finding: Finding) -> tuple[FilePreview, ...] | None:
        """Return what `finding`'s fix alone changes in the current texts (None: it cannot)."""
        # libcst is imported only when something is fixed: it costs more than checking.
        from .fixes.apply import FixError, apply_edits

        if finding.fix is None:
            return None
        edits: dict[Path, list[Edit]] = {}
        for file_edits in finding.fix.files:
            edits.setdefault(file_edits.path, []).extend(file_edits.edits)
        changes = []
        for path, path_edits in edits.items():
            old = self.text(path)
            if old is None:
                return None
            try:
                new = apply_edits(old, path_edits, style=self._style())
            except FixError:
                return None
            changes.append(FilePreview(path, old, new, text_edits(old, new)))
        return tuple(changes)

    def fix_all(self, path: Path) -> FilePreview | None:
        """Return the change `workerseed fix PATH` would make to the current text of `path`.

        Fixes that edit other files are left out, as `fix` leaves them out for a path it
        was not given; unsafe fixes apply only where the configuration allows them.
        """
        from .fixes.apply import FixError, apply_edits

        original = self.text(path)
        if original is None:
            return None
        had_overlay = path in self._overlays
        current = original
        try:
            for _ in range(MAX_FIX_ROUNDS):
                findings = [finding for found in self.check().values() for finding in found]
                candidates = [
                    finding for finding in findings if applicable(finding, self.settings, {path})
                ]
                if not candidates:
                    break
                edits = [
                    edit
                    for finding in choose_fixes(candidates)
                    if finding.fix is not None
                    for file_edits in finding.fix.files
                    for edit in file_edits.edits
                ]
                try:
                    new = apply_edits(current, edits, style=self._style())
                except FixError:
                    break
                if new == current or not self.update(path, new):
                    break
                current = new
        finally:
            # The editor's text is what it was: the change is only offered.
            self.update(path, original if had_overlay else None)
        if current == original:
            return None
        return FilePreview(path, original, current, text_edits(original, current))
