"""The requests and notifications `workerseed server` answers, registered on a
`WorkerseedServer`: document sync, watched files, code actions and hover."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from codemods import Finding

from .server import FIX_ALL_KIND, WorkerseedServer, hover_text, lsp_range, parse_options


def _covers(finding: Finding, position: types.Position) -> bool:
    span = finding.span
    start = (span.line - 1, span.column)
    end = (span.end_line - 1, span.end_column)
    return start <= (position.line, position.character) <= end


def _path(uri: str) -> Path | None:
    """Return the file a `file:` URI names, resolved as discovery resolves files."""
    if not uri.startswith("file:"):
        return None
    text = to_fs_path(uri)
    if text is None:
        return None
    path = Path(os.path.realpath(text))
    return path if path.suffix == ".py" else None


def create_server() -> WorkerseedServer:
    """Return a server with every feature registered."""
    server = WorkerseedServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: WorkerseedServer, params: types.InitializeParams) -> None:
        ls.options = parse_options(params.initialization_options)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: WorkerseedServer, params: types.DidOpenTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is not None:
            ls.uris[path] = params.text_document.uri
            ls.changed(path, now=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: WorkerseedServer, params: types.DidChangeTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is not None and path in ls.uris:
            ls.changed(path, now=False)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: WorkerseedServer, params: types.DidSaveTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is not None and path in ls.uris:
            ls.changed(path, now=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: WorkerseedServer, params: types.DidCloseTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is None or path not in ls.uris:
            return
        uri = ls.uris.pop(path)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
        # The file on disk counts again: unsaved text that was dropped may have mattered
        # to other files.
        ls.changed(path, now=False)

    @server.feature(types.INITIALIZED)
    def initialized(ls: WorkerseedServer, params: types.InitializedParams) -> None:
        del params
        workspace = ls.client_capabilities.workspace
        watching = workspace.did_change_watched_files if workspace is not None else None
        if watching is None or not watching.dynamic_registration:
            return
        # Files changed outside the editor (a checkout, a formatter) change the analysis.
        ls.client_register_capability(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="workerseed-watched-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[
                                types.FileSystemWatcher(glob_pattern="**/*.py"),
                                types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                            ]
                        ),
                    )
                ]
            )
        )

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: WorkerseedServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.files_changed(params.changes)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]
        ),
    )
    def code_action(
        ls: WorkerseedServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        path = _path(params.text_document.uri)
        if path is None or path not in ls.uris:
            return None
        if ls._dirty:
            ls.flush()  # the actions must edit the text the client has now
        project = ls.project_of(path)
        if project is None:
            return None
        document = ls.workspace.get_text_document(params.text_document.uri)
        wanted = params.context.only
        actions: list[types.CodeAction] = []
        if not wanted or any(kind.startswith(types.CodeActionKind.QuickFix) for kind in wanted):
            first, last = params.range.start.line, params.range.end.line
            for finding in ls.findings(path):
                # Offered on any line the finding covers, as editors ask for the cursor's.
                if finding.span.end_line - 1 < first or finding.span.line - 1 > last:
                    continue
                action = ls.quick_fix(finding, project, document.lines)
                if action is not None:
                    actions.append(action)
        if not wanted or any(
            FIX_ALL_KIND.startswith(kind) or kind.startswith(FIX_ALL_KIND) for kind in wanted
        ):
            action = ls.fix_all(path, project)
            if action is not None:
                actions.append(action)
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: WorkerseedServer, params: types.HoverParams) -> types.Hover | None:
        path = _path(params.text_document.uri)
        if path is None or path not in ls.uris:
            return None
        document = ls.workspace.get_text_document(params.text_document.uri)
        position = ls.workspace.position_codec.position_from_client_units(
            document.lines, params.position
        )
        place = types.Position(line=position.line, character=position.character)
        for finding in ls.findings(path):
            if _covers(finding, place):
                return types.Hover(
                    contents=types.MarkupContent(
                        kind=types.MarkupKind.Markdown, value=hover_text(finding)
                    ),
                    range=ls.workspace.position_codec.range_to_client_units(
                        document.lines, lsp_range(finding.span)
                    ),
                )
        return None

    return server


def serve() -> None:
    """Run the server on standard input and output until the client stops it."""
    logging.basicConfig(level=logging.WARNING, format="workerseed server: %(message)s")
    create_server().start_io()
