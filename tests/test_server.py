"""`workerseed server` end to end: a real LSP client (pygls's) talks JSON-RPC to the server
process over stdio, as an editor would.

Each test starts `python -m cli server`, initialises it, opens documents and reads the
diagnostics it publishes; the quick fix's edit is applied to the document the way a client
applies it, and the server must then publish no diagnostic.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from cli.server import parse_options, rule_docs_directory

REPOSITORY = Path(__file__).resolve().parent.parent
FIXTURES = REPOSITORY / "fixtures" / "rank_invariant_worker_seed"
#: Generous: the first analysis of a project starts the interpreter and reads the rules.
TIMEOUT = 60.0

PROJECT = '[project]\nname = "demo"\ndependencies = ["torch>=2.0"]\n'

SHARED_RNG = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self, size):
        self.size = size
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.rng.normal()


loader = DataLoader(Noisy(8), num_workers=2)
"""


class Client:
    """A pygls client and the diagnostics the server published, by URI."""

    def __init__(self, client: LanguageClient) -> None:
        self.lsp = client
        self.published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
        self.versions: dict[str, int] = {}

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """Wait for the next diagnostics of `uri` (others published meanwhile are skipped)."""
        while True:
            params = await asyncio.wait_for(self.published.get(), TIMEOUT)
            if params.uri == uri:
                return list(params.diagnostics)

    async def codes_become(self, uri: str, codes: list[str]) -> None:
        """Wait until the diagnostics of `uri` have `codes`: a recheck started by an earlier
        event (closing a buffer) may publish first, with what the disk held then."""

        async def published() -> None:
            while [d.code for d in await self.diagnostics(uri)] != codes:
                pass

        await asyncio.wait_for(published(), TIMEOUT)

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.versions[uri] = 1
        self.lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def change(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.lsp.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def actions(
        self, uri: str, line: int, only: Sequence[str] | None = None
    ) -> list[types.CodeAction]:
        position = types.Position(line=line, character=0)
        result = await asyncio.wait_for(
            self.lsp.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(start=position, end=position),
                    context=types.CodeActionContext(diagnostics=[], only=only),
                )
            ),
            TIMEOUT,
        )
        return [action for action in result or () if isinstance(action, types.CodeAction)]


@contextlib.asynccontextmanager
async def server(
    workspace: Path, options: dict[str, object] | None = None
) -> AsyncIterator[Client]:
    """Start `python -m cli server`, initialise it for `workspace`, and stop it afterwards."""
    lsp = LanguageClient("workerseed-tests", "1")
    client = Client(lsp)

    @lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
    def published(params: types.PublishDiagnosticsParams) -> None:
        client.published.put_nowait(params)

    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    await lsp.start_io(sys.executable, "-m", "cli", "server", cwd=workspace, env=environment)
    try:
        await asyncio.wait_for(
            lsp.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(),
                    root_uri=workspace.as_uri(),
                    workspace_folders=[
                        types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)
                    ],
                    initialization_options=options,
                )
            ),
            TIMEOUT,
        )
        lsp.initialized(types.InitializedParams())
        yield client
        await asyncio.wait_for(lsp.shutdown_async(None), TIMEOUT)
        lsp.exit(None)
    except BaseException:
        # `stop()` waits for the server to exit, which it does only when asked to.
        process = getattr(lsp, "_server", None)
        if process is not None and process.returncode is None:
            process.kill()
        raise
    finally:
        await lsp.stop()  # type: ignore[no-untyped-call]


def apply_text_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """Apply LSP edits to `text` as a client does (all positions refer to the old text)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda edit: offset(edit.range.start), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def _project(tmp_path: Path, text: str = SHARED_RNG) -> Path:
    (tmp_path / "pyproject.toml").write_text(PROJECT)
    (tmp_path / "train.py").write_text(text)
    return tmp_path / "train.py"


def test_diagnostic_quick_fix_and_clean_after_applying_it(tmp_path: Path) -> None:
    path = _project(tmp_path)

    async def scenario() -> None:
        async with server(tmp_path) as client:
            uri = client.open(path, SHARED_RNG)
            diagnostics = await client.diagnostics(uri)
            assert [d.code for d in diagnostics] == ["WS201"]
            diagnostic = diagnostics[0]
            assert diagnostic.source == "workerseed"
            assert diagnostic.severity == types.DiagnosticSeverity.Error
            assert "rng-object-shared-by-workers" in diagnostic.message
            assert diagnostic.code_description is not None
            assert diagnostic.code_description.href.endswith("WS201.md")
            # `self.rng = np.random.default_rng(0)` is line 8 (0-based 7), column 9 (8).
            assert diagnostic.range.start == types.Position(line=7, character=8)

            actions = await client.actions(uri, diagnostic.range.start.line)
            fixes = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
            assert len(fixes) == 1
            fix = fixes[0]
            assert fix.title.startswith("Fix WS201: ")
            assert fix.is_preferred
            assert fix.edit is not None
            assert fix.edit.changes is not None
            assert list(fix.edit.changes) == [uri]

            fixed = apply_text_edits(SHARED_RNG, fix.edit.changes[uri])
            assert fixed != SHARED_RNG
            client.change(uri, fixed)
            assert await client.diagnostics(uri) == []

    asyncio.run(scenario())


def test_fix_all_hover_and_a_new_bug_while_typing(tmp_path: Path) -> None:
    clean = SHARED_RNG.replace("num_workers=2", "num_workers=0")
    path = _project(tmp_path, clean)

    async def scenario() -> None:
        async with server(tmp_path, {"debounceMs": 10}) as client:
            uri = client.open(path, clean)
            assert await client.diagnostics(uri) == []
            # Starting workers makes the shared generator a bug: found before saving.
            client.change(uri, SHARED_RNG)
            diagnostics = await client.diagnostics(uri)
            assert [d.code for d in diagnostics] == ["WS201"]

            hover = await asyncio.wait_for(
                client.lsp.text_document_hover_async(
                    types.HoverParams(
                        text_document=types.TextDocumentIdentifier(uri=uri),
                        position=types.Position(line=7, character=12),
                    )
                ),
                TIMEOUT,
            )
            assert hover is not None
            assert isinstance(hover.contents, types.MarkupContent)
            assert hover.contents.value.startswith("**WS201** `rng-object-shared-by-workers`")
            assert "## Why it matters" in hover.contents.value

            actions = await client.actions(uri, 0, only=[types.CodeActionKind.SourceFixAll])
            assert [a.kind for a in actions] == ["source.fixAll.workerseed"]
            edit = actions[0].edit
            assert edit is not None
            assert edit.changes is not None
            client.change(uri, apply_text_edits(SHARED_RNG, edit.changes[uri]))
            assert await client.diagnostics(uri) == []

    asyncio.run(scenario())


def test_a_bug_across_files_and_a_loose_script(tmp_path: Path) -> None:
    """The Dataset lives in another file than its DataLoader: the project is analysed whole.
    A script outside any project is analysed alone."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(PROJECT)
    dataset = SHARED_RNG.replace("loader = DataLoader(Noisy(8), num_workers=2)\n", "")
    (project / "data.py").write_text(dataset)
    train = (
        "from torch.utils.data import DataLoader\n\nfrom data import Noisy\n\n"
        "loader = DataLoader(Noisy(4), num_workers=0)\n"
    )
    train_path = project / "train.py"
    train_path.write_text(train)
    loose = tmp_path / "loose" / "script.py"
    loose.parent.mkdir()
    loose.write_text(SHARED_RNG)

    async def scenario() -> None:
        async with server(tmp_path, {"debounceMs": 0}) as client:
            data_uri = client.open(project / "data.py", dataset)
            assert await client.diagnostics(data_uri) == []
            train_uri = client.open(train_path, train)
            assert await client.diagnostics(train_uri) == []
            # An unsaved edit of train.py starts workers: data.py's generator is now shared.
            client.change(train_uri, train.replace("num_workers=0", "num_workers=4"))
            diagnostics = await client.diagnostics(data_uri)
            assert [d.code for d in diagnostics] == ["WS201"]

            # Saved from elsewhere (a checkout): the client reports the file as changed.
            client.change(train_uri, train)
            assert await client.diagnostics(data_uri) == []
            client.lsp.text_document_did_close(
                types.DidCloseTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=train_uri)
                )
            )
            train_path.write_text(train.replace("num_workers=0", "num_workers=2"))
            client.lsp.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[types.FileEvent(uri=train_uri, type=types.FileChangeType.Changed)]
                )
            )
            await client.codes_become(data_uri, ["WS201"])

            loose_uri = client.open(loose, SHARED_RNG)
            assert [d.code for d in await client.diagnostics(loose_uri)] == ["WS201"]
            assert not (loose.parent / ".workerseed_cache").exists()

    asyncio.run(scenario())


def test_an_invalid_configuration_is_shown_once_and_read_again_when_fixed(
    tmp_path: Path,
) -> None:
    path = _project(tmp_path)
    (tmp_path / "pyproject.toml").write_text(PROJECT + "[tool.workerseed]\nselect = ['XX9']\n")

    async def scenario() -> None:
        async with server(tmp_path, {"debounceMs": 0}) as client:
            messages: asyncio.Queue[types.ShowMessageParams] = asyncio.Queue()

            @client.lsp.feature(types.WINDOW_SHOW_MESSAGE)  # type: ignore[untyped-decorator]
            def shown(params: types.ShowMessageParams) -> None:
                messages.put_nowait(params)

            uri = client.open(path, SHARED_RNG)
            message = await asyncio.wait_for(messages.get(), TIMEOUT)
            assert message.type == types.MessageType.Error
            assert "XX9" in message.message
            client.change(uri, SHARED_RNG + "\n")
            (tmp_path / "pyproject.toml").write_text(PROJECT)
            pyproject = (tmp_path / "pyproject.toml").as_uri()
            client.lsp.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[types.FileEvent(uri=pyproject, type=types.FileChangeType.Changed)]
                )
            )
            assert [d.code for d in await client.diagnostics(uri)] == ["WS201"]
            assert messages.empty()

    asyncio.run(scenario())


def test_options_from_the_client() -> None:
    options = parse_options(
        {"select": "WS1,WS2", "ignore": ["WS202"], "torchVersion": "1.8", "debounceMs": 0}
    )
    assert options.settings.select == ("WS1", "WS2")
    assert options.settings.ignore == ("WS202",)
    assert options.settings.torch_version == "1.8"
    assert options.debounce == 0
    assert parse_options("nonsense").settings.select is None


def test_rule_documentation_pages() -> None:
    directory = rule_docs_directory()
    page = (directory / "WS201.md").read_text(encoding="utf-8")
    assert page.startswith("# WS201 rng-object-shared-by-workers")
    assert "## Fix safety" in page


def test_missing_dependency_is_a_clear_error() -> None:
    """Without pygls, `workerseed server` says what to install (exit status 2)."""
    import subprocess

    code = (
        "import sys; sys.modules['pygls'] = None; sys.argv = ['workerseed', 'server'];"
        "from cli.main import main; main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        check=False,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2
    assert "pip install 'workerseed[server]'" in result.stderr


def test_a_cause_in_other_files_is_related_information(tmp_path: Path) -> None:
    """WS104 at a shared loader: each script's seeding call is a related place, in its file."""
    shutil.copytree(FIXTURES / "seed_helper_called_by_several_scripts" / "before", tmp_path / "p")
    project = tmp_path / "p"
    (project / "pyproject.toml").write_text(PROJECT)
    data = project / "data.py"

    async def scenario() -> None:
        async with server(tmp_path, {"debounceMs": 0}) as client:
            uri = client.open(data, data.read_text())
            (diagnostic,) = await client.diagnostics(uri)
            assert diagnostic.code == "WS104"
            places = [
                (place.location.uri, place.location.range.start.line)
                for place in diagnostic.related_information or []
            ]
            assert places == [
                ((project / "seeding.py").as_uri(), 9),
                ((project / "tools" / "finetune.py").as_uri(), 13),
                ((project / "tools" / "pretrain.py").as_uri(), 13),
            ]

    asyncio.run(scenario())
