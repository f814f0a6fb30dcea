"""The language server: `jax-lsp serve` (stdio, or `--tcp HOST:PORT`).

This module wires LSP methods to their handlers under `jax_lsp.lsp`: lifecycle, document and
notebook sync, pulled diagnostics (of open documents, and of the workspace's other files) and
settings (`handlers`), code actions (`actions`), hover
(`hover`), inlay hints and code lenses (`hints`). The server's state and its analysis loop are
`language_server`; which settings apply is documented in `jax_lsp.lsp.settings`.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from jax_lsp.lsp import handlers, hints
from jax_lsp.lsp.action_handlers import DEBUG_NANS, FIX_ALL, QUICKFIX, code_actions, resolve
from jax_lsp.lsp.hover import hover
from jax_lsp.lsp.language_server import JaxLanguageServer
from jax_lsp.lsp.settings import SECTION
from jax_lsp.lsp.transport import serve_stdio, serve_tcp


def _features() -> list[tuple[str, Callable[..., Any], Any]]:
    """Each LSP method the server answers: its handler, and its registration options."""
    code_action_options = types.CodeActionOptions(
        code_action_kinds=[QUICKFIX, FIX_ALL, DEBUG_NANS],
        resolve_provider=True,
    )
    # Editing one module changes the findings of others (the helpers its jitted code calls);
    # pygls sets `workspace_diagnostics` for the `workspace/diagnostic` handler below.
    diagnostic_options = types.DiagnosticOptions(
        identifier=SECTION, inter_file_dependencies=True, workspace_diagnostics=True
    )
    return [
        (types.INITIALIZE, handlers.initialize, None),
        (types.INITIALIZED, handlers.initialized, None),
        (types.SHUTDOWN, handlers.shutdown, None),
        (types.TEXT_DOCUMENT_DID_OPEN, handlers.did_open, None),
        (types.TEXT_DOCUMENT_DID_CHANGE, handlers.did_change, None),
        (types.TEXT_DOCUMENT_DID_SAVE, handlers.did_save, None),
        (types.TEXT_DOCUMENT_DID_CLOSE, handlers.did_close, None),
        (types.NOTEBOOK_DOCUMENT_DID_OPEN, handlers.notebook_open, None),
        (types.NOTEBOOK_DOCUMENT_DID_CHANGE, handlers.notebook_change, None),
        (types.NOTEBOOK_DOCUMENT_DID_SAVE, handlers.notebook_save, None),
        (types.NOTEBOOK_DOCUMENT_DID_CLOSE, handlers.notebook_close, None),
        (types.TEXT_DOCUMENT_DIAGNOSTIC, handlers.pull_diagnostics, diagnostic_options),
        (types.WORKSPACE_DIAGNOSTIC, handlers.workspace_diagnostics, None),
        (types.TEXT_DOCUMENT_CODE_ACTION, code_actions, code_action_options),
        (types.CODE_ACTION_RESOLVE, resolve, None),
        (types.TEXT_DOCUMENT_HOVER, hover, None),
        (types.TEXT_DOCUMENT_INLAY_HINT, hints.inlay_hints, None),
        (types.TEXT_DOCUMENT_CODE_LENS, hints.code_lenses, None),
        (types.WORKSPACE_DID_CHANGE_CONFIGURATION, handlers.did_change_configuration, None),
        (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, handlers.did_change_watched_files, None),
    ]


def build_server() -> JaxLanguageServer:
    """A server with every handler registered (each receives the server as its first
    argument)."""
    server = JaxLanguageServer()
    for method, handler, options in _features():
        server.feature(method, options)(handler)
    server.command(hints.SHOW_TRACE_SITE)(handlers.show_trace_site)
    return server


def serve(tcp: str | None = None, log_file: str | None = None) -> int:
    if log_file:
        logging.basicConfig(
            filename=log_file,
            level=logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message at INFO
    server = build_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        serve_tcp(server, host or "127.0.0.1", int(port))
    else:
        serve_stdio(server, sys.stdin.buffer, sys.stdout.buffer)
    server.cross.close()  # the jedi worker must not outlive the server
    # LSP: exit status 0 after `shutdown`, 1 otherwise (pygls's own status is swallowed).
    return 0 if server.shut_down else 1
