"""Time from an edit to its diagnostics in `workerseed server`, as an editor sees it.

    python benchmarks/bench_server.py                  # a generated tree of 1,500 files
    python benchmarks/bench_server.py --files 5000     # a larger generated tree
    python benchmarks/bench_server.py --path REPO      # a copy of a real repository (its
                                                       # largest file that mentions
                                                       # DataLoader is edited)

A real LSP client (pygls's) starts `python -m cli server`, opens one file, waits for the
first diagnostics (the project is read and summarised then), and then sends edits one by
one, each a `didChange`, timing until the server publishes diagnostics for that version.
The time includes the server's debounce delay (`--debounce-ms`, the default is the
server's) and JSON-RPC over stdio both ways. This is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_check import count_files, generate

REPOSITORY = Path(__file__).resolve().parent.parent


def _edited_file(root: Path) -> Path:
    """Return the file edited: the largest that mentions DataLoader, else the largest."""
    candidates = [path for path in root.rglob("*.py") if ".git" not in path.parts]
    loaders = [path for path in candidates if b"DataLoader" in path.read_bytes()]
    return max(loaders or candidates, key=lambda path: path.stat().st_size)


async def measure(root: Path, path: Path, edits: int, debounce_ms: int | None) -> None:
    client = LanguageClient("bench", "1")
    published: asyncio.Queue[tuple[float, types.PublishDiagnosticsParams]] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait((time.perf_counter(), params))

    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    await client.start_io(sys.executable, "-m", "cli", "server", cwd=root, env=environment)
    options = {} if debounce_ms is None else {"debounceMs": debounce_ms}
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options=options,
        )
    )
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8")

    async def diagnostics_of(version: int | None) -> tuple[float, int]:
        while True:
            when, params = await published.get()
            if params.uri == uri and (version is None or params.version == version):
                return when, len(params.diagnostics)

    start = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )
    opened, found = await diagnostics_of(1)
    print(f"open (read and summarise the project): {opened - start:.2f} s, {found} diagnostics")

    latencies = []
    lines = text.count("\n")
    for version in range(2, edits + 2):
        # Typing at the end of the file: a new statement each time, so every edit changes
        # the file's text and its summary.
        position = types.Position(line=lines, character=0)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=position, end=position), text=f"edited_{version} = {version}\n"
        )
        lines += 1
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[change],
            )
        )
        received, _ = await diagnostics_of(version)
        latencies.append((received - sent) * 1000)
        await asyncio.sleep(0.05)  # a typist's pause: each edit is analysed on its own
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))]
    print(
        f"edit -> diagnostics over {len(latencies)} edits: median "
        f"{statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms, max {latencies[-1]:.0f} ms"
    )


def main() -> None:
    # An installed workerseed runs from compiled bytecode: with writing it turned off, every
    # run would also time compiling the tool's own modules (about 0.15 s).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--path", type=Path, help="a repository instead of a generated tree")
    parser.add_argument("--file", type=Path, help="the file of --path to edit (default: see above)")
    parser.add_argument("--files", type=int, default=1500, help="files in the generated tree")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--debounce-ms", type=int, help="the server's debounce delay")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch).resolve() / "tree"
        if args.path is None:
            generate(root, args.files)
        else:
            # A copy: the server writes its cache into the project, and the edited file's
            # text must not matter to anyone else.
            shutil.copytree(args.path, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        if args.file is not None:
            path = root / args.file.resolve().relative_to(args.path.resolve())
        else:
            path = _edited_file(root)
        print(f"{count_files(root)} files; editing {path.relative_to(root)}")
        asyncio.run(measure(root, path, args.edits, args.debounce_ms))


if __name__ == "__main__":
    main()
