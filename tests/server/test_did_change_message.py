"""`textDocument/didChange` is read without lsprotocol's converter (`protocol.did_change_message`)
and handed to its handler without pygls's generic dispatch: exactly what the converter would
build for the usual shapes, and the converter's own answer (coerced, or rejected) for the rest;
an error in the handler reported to the client as pygls reports one."""

from __future__ import annotations

import copy

import pytest
from lsprotocol import types
from pygls.exceptions import FeatureNotificationError
from pygls.protocol import default_converter

from jax_lsp.lsp.language_server import JaxLanguageServer
from jax_lsp.lsp.protocol import did_change_message

AT = {"line": 3, "character": 7}
PARTIAL = {"range": {"start": AT, "end": {"line": 4, "character": 0}}, "text": "x𐐀\n"}


def _message(*changes: dict, **document: object) -> dict:
    return {
        "jsonrpc": "2.0",
        "method": types.TEXT_DOCUMENT_DID_CHANGE,
        "params": {
            "textDocument": {"uri": "file:///a.py", "version": 2, **document},
            "contentChanges": list(changes),
        },
    }


USUAL = [
    _message(PARTIAL),
    _message({**PARTIAL, "rangeLength": 5}),
    _message({**PARTIAL, "rangeLength": None}),
    _message({"text": "whole\r\n"}),
    _message(PARTIAL, {"text": ""}, PARTIAL),
    _message(),
    # Keys the converter ignores.
    {**_message({**PARTIAL, "other": 1}, extra=True), "other": {"a": 1}},
]


@pytest.mark.parametrize("message", USUAL)
def test_the_usual_shapes_are_built_as_the_converter_builds_them(message):
    expected = default_converter().structure(
        copy.deepcopy(message), types.DidChangeTextDocumentNotification
    )
    built = did_change_message(copy.deepcopy(message))
    assert built == expected
    # The same types too: the converter makes a tuple of the changes, each of its kind.
    changes = built.params.content_changes
    assert type(changes) is type(expected.params.content_changes)
    assert list(map(type, changes)) == list(map(type, expected.params.content_changes))


def _with(path: tuple, value: object) -> dict:
    message = _message(copy.deepcopy(PARTIAL))
    *parents, last = path
    target = message
    for key in parents:
        target = target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return message


CHANGE = ("params", "contentChanges", 0)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("jsonrpc",), 2.0),
        (("params",), None),
        (("params", "textDocument"), None),
        (("params", "textDocument", "version"), "2"),  # the converter coerces it
        (("params", "textDocument", "version"), True),
        (("params", "textDocument", "version"), KeyError),
        (("params", "textDocument", "uri"), 5),
        (("params", "contentChanges"), {}),
        ((*CHANGE, "text"), None),
        ((*CHANGE, "range"), None),
        ((*CHANGE, "range", "start"), KeyError),
        ((*CHANGE, "range", "start", "line"), 3.0),  # the converter coerces it
        ((*CHANGE, "range", "start", "line"), -1),  # out of range: rejected
        ((*CHANGE, "range", "end", "character"), 2**31),
        ((*CHANGE, "rangeLength"), "5"),
    ],
)
def test_other_shapes_are_left_to_the_converter(path, value):
    assert did_change_message(_with(path, value)) is None


def test_an_error_in_the_handler_is_reported_as_pygls_reports_it():
    ls = JaxLanguageServer()
    reported: list[tuple[Exception, type]] = []
    ls.report_server_error = lambda error, source: reported.append((error, source))

    def failing(params: types.DidChangeTextDocumentParams) -> None:
        raise RuntimeError("broken handler")

    ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)(failing)
    try:
        ls.protocol.handle_message(did_change_message(_message(PARTIAL)))
    finally:
        ls.cross.close()
    [(error, source)] = reported
    assert source is FeatureNotificationError
    assert "broken handler" in str(error)
