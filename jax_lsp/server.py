"""The language server (completed by the server issue)."""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from jax_lsp import __version__


def build_server() -> LanguageServer:
    server = LanguageServer("jax-lsp", __version__)

    @server.feature(types.INITIALIZED)
    def _initialized(ls: LanguageServer, params: types.InitializedParams) -> None:
        logging.getLogger(__name__).info("jax-lsp %s initialized", __version__)

    return server


def serve(tcp: str | None = None, log_file: str | None = None) -> int:
    if log_file:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    server = build_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0
