"""The server's handlers are plain functions of (server, params): called here directly on a real
`JaxLanguageServer`, with no client and no transport, the engine analyzing for real."""

from __future__ import annotations

from lsprotocol import types

from jax_lsp.lsp import handlers
from jax_lsp.lsp.language_server import JaxLanguageServer

URI = "file:///work/handlers_example.py"
TEXT = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n"


def _pull(uri: str, previous: str | None = None) -> types.DocumentDiagnosticParams:
    return types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
    )


async def test_handlers_open_edit_and_pull_diagnostics():
    ls = JaxLanguageServer()
    ls.client.pull = True  # nothing is pushed: there is no client to push to
    try:
        handlers.did_open(
            ls,
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=URI, language_id="python", version=1, text=TEXT
                )
            ),
        )
        report = await handlers.pull_diagnostics(ls, _pull(URI))
        assert [d.code for d in report.items] == ["JAX201"]
        assert report.items[0].range.start == types.Position(3, 0)
        unchanged = await handlers.pull_diagnostics(ls, _pull(URI, report.result_id))
        assert isinstance(unchanged, types.RelatedUnchangedDocumentDiagnosticReport)

        fixed = "x = x.at[0].set(1.0)"
        handlers.did_change(
            ls,
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(types.Position(3, 0), types.Position(3, 10)), text=fixed
                    )
                ],
            ),
        )
        assert ls.documents.get(URI).text == TEXT.replace("x[0] = 1.0", fixed)
        report = await handlers.pull_diagnostics(ls, _pull(URI, report.result_id))
        assert report.items == [] and report.result_id.startswith("2:0:")  # version 2, generation 0

        handlers.did_close(
            ls, types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(URI))
        )
        assert ls.documents.get(URI) is None
        closed = await handlers.pull_diagnostics(ls, _pull(URI))
        assert closed.items == []
    finally:
        ls.cross.close()
