"""End-to-end harness: the real server over stdio (`python -m jax_lsp serve`), no mocks.

Each test starts a fresh server and initialises it with the capabilities it is about.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[2]
SERVER_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "jax_lsp", "serve"], server_env=SERVER_ENV
)
TIMEOUT = 20.0


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await end_session(lsp_client)


async def end_session(client: LanguageClient) -> None:
    """`shutdown`, then `exit`, and the server ends with status 0 (a jedi worker still loading
    jedi is not waited for: `tests/server/test_shutdown.py`)."""
    server = client._server  # what pytest-lsp's own `shutdown_session` waits for
    if client.error is not None or client.capabilities is None or server is None:
        return
    await client.shutdown_async(None)
    client.exit(None)
    assert await asyncio.wait_for(server.wait(), TIMEOUT) == 0


def capabilities(
    *,
    encodings: list[str] | None = None,
    pull: bool = False,
    resolve: bool = False,
    configuration: bool = False,
    document_changes: bool = False,
    related: bool = False,
    show_document: bool = False,
) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings),
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=True)
        )
        if show_document
        else None,
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                version_support=True, related_information=related
            ),
            code_action=types.CodeActionClientCapabilities(
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
                if resolve
                else None,
                data_support=True,
            ),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=document_changes),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
            if pull
            else None,
        ),
    )


async def start(
    client: LanguageClient,
    root: Path | None = None,
    options: Any = None,
    client_name: str | None = None,
    **kwargs: Any,
) -> types.InitializeResult:
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(**kwargs),
            client_info=types.ClientInfo(name=client_name) if client_name else None,
            root_uri=root.as_uri() if root else None,
            initialization_options=options,
        )
    )


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=text
            )
        )
    )
    return uri


def change(
    client: LanguageClient,
    uri: str,
    version: int,
    text: str,
    start: tuple[int, int],
    end: tuple[int, int] | None = None,
) -> None:
    """An incremental change replacing start..end (LSP units) with `text`."""
    end = end or start
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(*start), types.Position(*end)), text=text
                )
            ],
        )
    )


async def wait_for(condition: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    """Poll until `condition()` is truthy; its value."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = condition()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for the server")
        await asyncio.sleep(0.02)


async def diagnostics_for(
    client: LanguageClient,
    uri: str,
    accept: Callable[[list[types.Diagnostic]], bool],
    timeout: float = TIMEOUT,
) -> list[types.Diagnostic]:
    """The pushed diagnostics of `uri` once `accept` holds for them."""

    def current() -> list[types.Diagnostic] | None:
        found = client.diagnostics.get(uri)
        return list(found) if found is not None and accept(list(found)) else None

    result = await wait_for(lambda: current() is not None and [current()], timeout)
    return result[0]


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """Apply LSP text edits the way a client does (positions in `encoding` units)."""
    lines = text.splitlines(keepends=True) or [""]

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        line = lines[position.line]
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return sum(map(len, lines[: position.line])) + index
            units += (
                len(char.encode("utf-8"))
                if encoding == "utf-8"
                else len(char.encode("utf-16-le")) // 2
            )
        return sum(map(len, lines[: position.line])) + len(line.rstrip("\r\n"))

    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
        lines = text.splitlines(keepends=True) or [""]
    return text


def edits_of(edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
    assert edit is not None
    if edit.document_changes:
        return [e for change in edit.document_changes for e in change.edits]
    return list((edit.changes or {}).get(uri, []))
