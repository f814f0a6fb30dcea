"""The protocol layer: our position-encoding choice, and text kept only in our document store."""

from __future__ import annotations

import contextvars
import logging
import sys
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcException, JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from jax_lsp.lsp.positions import choose_encoding

log = logging.getLogger(__name__)


# The document notifications whose handlers here are synchronous (`_user_handler`): called
# directly (`_notify_document`), not through pygls's dispatch of any handler, which on every
# keystroke made a uuid, a concurrent Future with its lock and inspected the handler thrice.
_DOCUMENT_NOTIFICATIONS = frozenset(
    {types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_CLOSE}
)


class JaxLspProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]):
        # Called for every JSON object of a message (the JSON decoder's object hook), most of
        # them a message's parts, which stay dicts.
        if "jsonrpc" not in data:
            return data
        if data.get("method") == types.TEXT_DOCUMENT_DID_CHANGE and "id" not in data:
            change = did_change_message(data)
            if change is not None:
                return change
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
            elif message.method in _DOCUMENT_NOTIFICATIONS:
                context.run(self._notify_document, message.method, message.params)
            else:
                context.run(self._handle_notification, message.method, message.params)
        elif hasattr(message, "result"):
            context.run(self._handle_response, message.id, message.result)
        else:
            context.run(self._handle_response, message.id, None, message.error)

    def _notify_document(self, method: str, params: Any) -> None:
        """A document notification handled as pygls handles a synchronous handler's: an
        error is reported to the client, not raised."""
        try:
            self._get_handler(method)(params)
        except Exception:
            error = JsonRpcInternalError.of(sys.exc_info())
            self._server._report_server_error(error, FeatureNotificationError)

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


def did_change_message(data: dict[str, Any]) -> types.DidChangeTextDocumentNotification | None:
    """The `textDocument/didChange` notification `data`, as lsprotocol's converter structures
    it, built directly (the converter's generic pass cost as much as the rest of reading the
    message); None when it is not of the usual shape (values of other types, which the
    converter coerces or rejects): the converter takes it then."""
    params = data.get("params")
    if type(data.get("jsonrpc")) is not str or not isinstance(params, dict):
        return None
    document = params.get("textDocument")
    changes = params.get("contentChanges")
    if not isinstance(document, dict) or not isinstance(changes, list):
        return None
    uri, version = document.get("uri"), document.get("version")
    if type(uri) is not str or type(version) is not int:
        return None
    try:
        events = tuple(map(_content_change, changes))
        return types.DidChangeTextDocumentNotification(
            params=types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                content_changes=events,
            ),
            jsonrpc=data["jsonrpc"],
        )
    except (KeyError, TypeError, ValueError):  # not of the usual shape, or out of range
        return None


def _content_change(change: Any) -> types.TextDocumentContentChangeEvent:
    """One content change; KeyError or TypeError when not of the usual shape."""
    text = change["text"] if isinstance(change, dict) else None
    if type(text) is not str:
        raise TypeError
    if "range" not in change:  # how the converter tells the two kinds apart
        return types.TextDocumentContentChangeWholeDocument(text=text)
    range_ = change["range"]
    length = change.get("rangeLength")
    if length is not None and type(length) is not int:
        raise TypeError
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=_position(range_["start"]), end=_position(range_["end"])),
        text=text,
        range_length=length,
    )


def _position(position: Any) -> types.Position:
    line, character = position["line"], position["character"]
    if type(line) is not int or type(character) is not int:
        raise TypeError
    return types.Position(line=line, character=character)
