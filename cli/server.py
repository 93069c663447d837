"""`workerseed server`: a Language Server over standard input and output (pygls, lsprotocol).

Diagnostics on open, change (debounced) and save; a quick fix per fixable finding (unsafe
ones say so) and a "fix all" source action; hover over a finding shows its rule's
documentation. Each file is analysed with the rest of its project, as `check` does; the
project stays open between edits (`codemods.live.LiveProject`), so an edit costs running
the rules, not reading the repository again.

Settings come from each project's `[tool.workerseed]`, and from the client's
`initializationOptions` (`select`, `extendSelect`, `ignore`, `torchVersion`, `debounceMs`,
`ruleDocsUrl`), which act like the command line's options.

The requests and notifications it answers are registered in `server_features.py`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import tempfile
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from codemods import ALL_RULES, ConfigError, Finding, Safety, Settings, __version__, rule_by_code
from codemods.live import LiveProject, live_root
from codemods.previews import FilePreview
from codemods.types import Span

#: Seconds without a change after which memory that edits freed is collected.
IDLE_COLLECTION_DELAY = 2.0
#: Analyses after which memory is collected even if the editor is never idle.
MAX_UNCOLLECTED = 200
#: Changes closer together than this are analysed once, when they pause.
DEFAULT_DEBOUNCE_MS = 40
#: The `source.fixAll` kind of the "fix all" action (editors run it on save if asked to).
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.workerseed"
SOURCE = "workerseed"

logger = logging.getLogger(__name__)
#: A project root, and whether it is a real project (False: a loose script's directory).
ProjectKey = tuple[Path, bool]


@dataclass(frozen=True)
class Options:
    """What the client asked for in `initializationOptions`."""

    settings: Settings
    debounce: float
    #: A URL template with `{code}` and `{name}`; None: the documentation written locally.
    rule_docs_url: str | None


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return ()
    return tuple(item.strip() for item in value if isinstance(item, str) and item.strip())


def parse_options(raw: Any) -> Options:
    """Read `initializationOptions` (anything the client sends; unknown keys are ignored)."""
    data = raw if isinstance(raw, dict) else {}
    select = _strings(data.get("select"))
    torch_version = data.get("torchVersion")
    debounce = data.get("debounceMs", DEFAULT_DEBOUNCE_MS)
    url = data.get("ruleDocsUrl")
    settings = Settings(
        select=select or None,
        extend_select=_strings(data.get("extendSelect")),
        ignore=_strings(data.get("ignore")),
        torch_version=torch_version if isinstance(torch_version, str) else None,
        torch_version_source="the editor's settings",
    )
    return Options(
        settings,
        max(0.0, float(debounce) / 1000)
        if isinstance(debounce, int | float)
        else DEFAULT_DEBOUNCE_MS / 1000,
        url if isinstance(url, str) and "{code}" in url else None,
    )


def rule_docs_directory() -> Path:
    """Write every rule's documentation as Markdown once; return the directory.

    There is no documentation site to link to: the pages are the rules' own docs (what
    `workerseed rules --explain` shows), written where any editor can open them, under a
    name that changes with their text.
    """
    pages = {
        rule.CODE: f"# {rule.CODE} {rule.NAME}\n\n{rule.documentation()}\n" for rule in ALL_RULES
    }
    stamp = hashlib.sha256("".join(pages.values()).encode()).hexdigest()[:12]
    directory = Path(tempfile.gettempdir()) / f"workerseed-{__version__}-rules-{stamp}"
    try:
        directory.mkdir(exist_ok=True)
        for code, page in pages.items():
            target = directory / f"{code}.md"
            if not target.exists():
                temporary = directory / f".{code}.{os.getpid()}.tmp"
                temporary.write_text(page, encoding="utf-8")
                temporary.replace(target)
    except OSError as error:
        logger.warning("rule documentation not written: %s", error)
    return directory


def lsp_range(span: Span) -> types.Range:
    """Return a span's range, 0-based, in code points (the client's units come later)."""
    return types.Range(
        start=types.Position(line=span.line - 1, character=span.column),
        end=types.Position(line=span.end_line - 1, character=span.end_column),
    )


def text_edits(preview: FilePreview) -> list[types.TextEdit]:
    """Return a file's change as LSP edits; they replace whole lines (column 0 to column 0)."""
    return [
        types.TextEdit(
            range=types.Range(
                start=types.Position(line=edit.span.line - 1, character=0),
                end=types.Position(line=edit.span.end_line - 1, character=0),
            ),
            new_text=edit.content,
        )
        for edit in preview.edits
    ]


def hover_text(finding: Finding) -> str:
    """Return the hover of a finding: its message, then its rule's documentation."""
    rule = rule_by_code(finding.code)
    docs = rule.documentation() if rule is not None else ""
    return f"**{finding.code}** `{finding.name}`: {finding.message}\n\n---\n\n{docs}\n"


class WorkerseedServer(LanguageServer):
    """The server's state: open projects, the latest findings and what waits for analysis."""

    def __init__(self) -> None:
        super().__init__(
            SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental
        )
        self.options = parse_options(None)
        self.projects: dict[ProjectKey, LiveProject] = {}
        #: Projects whose configuration is invalid.
        self.broken: set[ProjectKey] = set()
        #: The latest findings of each open project, by file.
        self.results: dict[ProjectKey, dict[Path, tuple[Finding, ...]]] = {}
        #: URIs of the open documents, by path (as the client spells them).
        self.uris: dict[Path, str] = {}
        self._dirty: set[Path] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        #: Analyses since memory was last collected.
        self._uncollected = 0
        #: When the last change came (the event loop's clock).
        self._last_change = float("-inf")
        self._docs: Path | None = None
        self._keys: dict[Path, ProjectKey] = {}

    def key(self, path: Path) -> ProjectKey:
        """Return the project `path` belongs to (looked up once per file)."""
        key = self._keys.get(path)
        if key is None:
            key = self._keys[path] = live_root(path)
        return key

    # --- documents and projects ---

    def project_of(self, path: Path) -> LiveProject | None:
        """Return the open project `path` belongs to, opening it if needed."""
        key = self.key(path)
        root, is_project = key
        project = self.projects.get(key)
        if project is None and key not in self.broken:
            settings = self.options.settings
            try:
                if is_project:
                    project = LiveProject(root, settings)
                else:
                    # A loose script: analysed alone, and no cache is left beside it.
                    project = LiveProject(root, _without_cache(settings), only=[path])
            except ConfigError as error:
                # Said once; the project is tried again when its pyproject.toml changes.
                self.broken.add(key)
                self.window_show_message(
                    types.ShowMessageParams(
                        type=types.MessageType.Error, message=f"workerseed: {error}"
                    )
                )
                return None
            self.projects[key] = project
        return project

    def document_text(self, path: Path) -> str | None:
        uri = self.uris.get(path)
        if uri is None:
            return None
        return self.workspace.get_text_document(uri).source

    def changed(self, path: Path, *, now: bool) -> None:
        """Note that `path` changed; analyse now, or once changes pause.

        A change that comes alone (none in the debounce delay before it) is analysed at
        once: a keystroke's diagnostics do not wait. Changes in quick succession (a paste,
        a formatter, multi-cursor edits) wait until they pause, and are analysed once.
        """
        self._dirty.add(path)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        loop = asyncio.get_running_loop()
        alone = loop.time() - self._last_change >= self.options.debounce
        self._last_change = loop.time()
        if now or alone:
            self.flush()
        else:
            self._timer = loop.call_later(self.options.debounce, self.flush)

    def flush(self) -> None:
        """Analyse what changed and publish the diagnostics of every open document."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        dirty, self._dirty = self._dirty, set()
        touched: set[ProjectKey] = set()
        for path in sorted(dirty):
            project = self.project_of(path)
            if project is None:
                continue
            project.update(path, self.document_text(path))
            touched.add(self.key(path))
        for key in sorted(touched):
            try:
                self.results[key] = self.projects[key].check()
            except Exception:  # a rule's bug must not stop the server
                self.window_log_message(
                    types.LogMessageParams(
                        type=types.MessageType.Error,
                        message=f"workerseed: analysis failed\n{traceback.format_exc()}",
                    )
                )
                continue
            self.publish(path for path in self.uris if self.key(path) == key)
        if not touched:
            return
        self._uncollected += 1
        if self._uncollected >= MAX_UNCOLLECTED:
            self._collect()  # typing without a pause for this long: collect anyway
        elif self._idle is None:
            loop = asyncio.get_running_loop()
            self._idle = loop.call_later(IDLE_COLLECTION_DELAY, self._collect)

    def _collect(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        self._idle = None
        self._uncollected = 0
        LiveProject.release_replaced()

    def findings(self, path: Path) -> tuple[Finding, ...]:
        """Return the latest findings in `path`."""
        return self.results.get(self.key(path), {}).get(path, ())

    def publish(self, paths: Iterable[Path]) -> None:
        for path in paths:
            uri = self.uris[path]
            document = self.workspace.get_text_document(uri)
            diagnostics = [
                self.diagnostic(finding, document.lines) for finding in self.findings(path)
            ]
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri, diagnostics=diagnostics, version=document.version
                )
            )

    def files_changed(self, changes: Sequence[types.FileEvent]) -> None:
        """Bring the open projects up to date with files changed on disk."""
        for change in changes:
            text = to_fs_path(change.uri) if change.uri.startswith("file:") else None
            if text is None:
                continue
            path = Path(os.path.realpath(text))
            if path.name == "pyproject.toml" and self.key(path) in self.broken:
                key = self.key(path)
                self.broken.discard(key)
                self._dirty.update(p for p in self.uris if self.key(p) == key)
            for key, project in list(self.projects.items()):
                if not path.is_relative_to(key[0]):
                    continue
                if path.name == "pyproject.toml":
                    # The settings may have changed: the project is opened afresh.
                    del self.projects[key]
                    self.results.pop(key, None)
                    self._dirty.update(p for p in self.uris if self.key(p) == key)
                elif change.type is types.FileChangeType.Changed and path.suffix == ".py":
                    if path not in self.uris:  # an open file's text is the editor's
                        self._dirty.add(path)
                elif path.suffix == ".py":
                    project.reload()
                    self._dirty.update(p for p in self.uris if self.key(p) == key)
        if self._dirty:
            self.changed(next(iter(self._dirty)), now=False)

    # --- what the client sees ---

    def docs_href(self, finding: Finding) -> str:
        template = self.options.rule_docs_url
        if template is not None:
            return template.format(code=finding.code, name=finding.name)
        if self._docs is None:
            self._docs = rule_docs_directory()
        return (self._docs / f"{finding.code}.md").as_uri()

    def diagnostic(self, finding: Finding, lines: Sequence[str]) -> types.Diagnostic:
        codec = self.workspace.position_codec
        fix = finding.fix
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=place.path.as_uri(),
                    range=codec.range_to_client_units(
                        lines
                        if place.path == finding.path
                        else self.workspace.get_text_document(place.path.as_uri()).lines,
                        lsp_range(place.span),
                    ),
                ),
                message="same cause",
            )
            for place in finding.related
        ]
        return types.Diagnostic(
            range=codec.range_to_client_units(lines, lsp_range(finding.span)),
            related_information=related or None,
            message=f"{finding.message} ({finding.name})",
            severity=types.DiagnosticSeverity.Warning
            if finding.severity == "warning"
            else types.DiagnosticSeverity.Error,
            code=finding.code,
            code_description=types.CodeDescription(href=self.docs_href(finding)),
            source=SOURCE,
            data={
                "name": finding.name,
                "fix": None if fix is None else fix.title,
                "safety": None if fix is None else fix.safety.value,
            },
        )

    def quick_fix(
        self, finding: Finding, project: LiveProject, lines: Sequence[str]
    ) -> types.CodeAction | None:
        fix = finding.fix
        if fix is None:
            return None
        previews = project.preview(finding)
        if not previews:
            return None
        unsafe = fix.safety is Safety.UNSAFE
        title = f"{'Unsafe fix' if unsafe else 'Fix'} {finding.code}: {fix.title}"
        return types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[self.diagnostic(finding, lines)],
            is_preferred=not unsafe,
            edit=types.WorkspaceEdit(
                changes={self.uri(preview.path): text_edits(preview) for preview in previews}
            ),
        )

    def fix_all(self, path: Path, project: LiveProject) -> types.CodeAction | None:
        preview = project.fix_all(path)
        if preview is None:
            return None
        return types.CodeAction(
            title="workerseed: fix all",
            kind=FIX_ALL_KIND,
            edit=types.WorkspaceEdit(changes={self.uri(path): text_edits(preview)}),
        )

    def uri(self, path: Path) -> str:
        return self.uris.get(path) or path.as_uri()


def _without_cache(settings: Settings) -> Settings:
    return replace(settings, cache=False)
