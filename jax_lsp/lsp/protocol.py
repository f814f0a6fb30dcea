"""The protocol layer: our position-encoding choice, and text kept only in our document store."""

from __future__ import annotations

import contextvars
import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from jax_lsp.lsp.positions import choose_encoding

log = logging.getLogger(__name__)


class JaxLspProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]):
        # pygls drops a request whose params have the wrong shape without answering it, and
        # the client would wait forever: answer it with the error (InvalidParams) first.
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            raise

    def handle_message(self, message: Any) -> None:
        # pygls's own: but pygls tells requests, notifications and responses apart with
        # isinstance against runtime-checkable Protocols, which on Python 3.11 list the
        # Protocol's members anew at every check (~0.1 ms a message, on every keystroke).
        # Told apart here by the same members, read directly.
        if message.jsonrpc != self.VERSION:
            log.warning('Unknown message "%s"', message)
            return
        if self._shutdown and getattr(message, "method", "") != types.EXIT:
            log.warning("Server shutting down. No more requests!")
            return
        context = contextvars.copy_context()  # each handler runs in its own context
        if hasattr(message, "method") and hasattr(message, "params"):
            if hasattr(message, "id"):
                context.run(self._handle_request, message.id, message.method, message.params)
            else:
                context.run(self._handle_notification, message.method, message.params)
        elif hasattr(message, "result"):
            context.run(self._handle_response, message.id, message.result)
        else:
            context.run(self._handle_response, message.id, None, message.error)

    def notify_json(self, method: str, params: dict[str, Any]) -> None:
        """A notification whose params are JSON already (no converter pass over them)."""
        self._send_data({"jsonrpc": self.VERSION, "method": method, "params": params})

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        # pygls takes the client's first preference; we want UTF-8 whenever it is offered.
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            general.position_encodings = [choose_encoding(general.position_encodings)]
        return (yield from super().lsp_initialize(params))

    # Text documents live in our DocumentStore only: pygls's own copy would cost a second,
    # line-by-line pass per keystroke and the memory of every open file twice.
    # Our handlers of these are synchronous: called here rather than yielded to pygls to run
    # as a second handler (one dispatch per keystroke, not two).
    def _user_handler(self, method: str, params: Any) -> None:
        if (handler := self.fm.features.get(method)) is not None:
            handler(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)
