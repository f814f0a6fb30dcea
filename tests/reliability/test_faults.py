"""Faults over a raw pipe: broken frames, wrong types, unknown methods, unopened documents,
positions past the end, cancellation, shutdown/exit and the client dying."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.reliability.rawclient import (
    ROOT,
    RawServer,
    frame,
    hover_params,
    running,
    wait_until_gone,
)

GOTCHA = "import jax.numpy as jnp\n\nx = jnp.arange(5.0)\nx[1] += 5.0\n"
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


@pytest.mark.parametrize(
    "garbage",
    [
        pytest.param(b"Content-Length: 5\r\n\r\n{bad}", id="invalid-json"),
        pytest.param(b"Content-Length: abc\r\n\r\n{}", id="non-numeric-length"),
        pytest.param(b"Content-Length: 3\r\n\r\n" + b'{"jsonrpc": "2.0"}', id="short-length"),
        pytest.param(b"Content-Type: text/plain\r\n\r\nhello", id="no-length"),
        pytest.param(frame(b"[1, 2, 3]"), id="array-body"),
        pytest.param(frame(b'"just a string"'), id="string-body"),
        pytest.param(frame({"jsonrpc": "2.0", "method": 5}), id="method-not-a-string"),
        pytest.param(frame({"jsonrpc": "1.0", "id": 70, "method": "shutdown"}), id="old-version"),
        pytest.param(b"\xff\xfe\x00garbage\r\n", id="binary-noise"),
    ],
)
def test_malformed_frames_leave_the_server_in_step(server, garbage, tmp_path):
    server.send_bytes(garbage)
    assert server.alive()
    uri = server.open(tmp_path / "a.py", GOTCHA)
    assert [d["code"] for d in server.diagnostics(uri)] == ["JAX202"]


def test_wrong_param_types_are_answered_with_invalid_params(server):
    response = server.request("textDocument/hover", {"textDocument": 5, "position": "top"})
    assert response["error"]["code"] == INVALID_PARAMS
    server.notify("textDocument/didChange", {"textDocument": None})  # a notification: no reply
    assert server.alive()


def test_unknown_method_is_method_not_found(server):
    response = server.request("jax-lsp/noSuchThing", {"x": 1})
    assert response["error"]["code"] == METHOD_NOT_FOUND
    server.notify("$/noSuchNotification", {})  # `$/` notifications may be ignored
    assert server.alive()


@pytest.mark.parametrize(
    "method",
    [
        "textDocument/hover",
        "textDocument/codeAction",
        "textDocument/inlayHint",
        "textDocument/codeLens",
        "textDocument/diagnostic",
    ],
)
def test_requests_on_documents_never_opened(server, method, tmp_path):
    uri = (tmp_path / "never.py").as_uri()
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}
    params = {
        "textDocument/hover": hover_params(uri, 3, 4),
        "textDocument/codeAction": {
            "textDocument": {"uri": uri},
            "range": whole,
            "context": {"diagnostics": []},
        },
        "textDocument/inlayHint": {"textDocument": {"uri": uri}, "range": whole},
        "textDocument/codeLens": {"textDocument": {"uri": uri}},
        "textDocument/diagnostic": {"textDocument": {"uri": uri}},
    }[method]
    response = server.request(method, params)
    assert "error" not in response, response
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": "x = 1\n"}],
        },
    )
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert server.alive()


def test_positions_past_the_end(server, tmp_path):
    uri = server.open(tmp_path / "a.py", GOTCHA)
    server.diagnostics(uri)
    far = {"line": 10_000, "character": 10_000}
    assert "result" in server.request("textDocument/hover", hover_params(uri, 3, 10_000))
    assert "result" in server.request("textDocument/hover", hover_params(uri, 10_000, 0))
    response = server.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": far, "end": far},
            "context": {"diagnostics": []},
        },
    )
    assert "result" in response
    # An edit past the end appends (clamped), like an editor's insert at the end.
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": far, "end": far}, "text": "x[2] += 1.0\n"}],
        },
    )
    found = server.diagnostics(uri)
    assert sorted(d["range"]["start"]["line"] for d in found) == [3, 4]
    # A range whose end lies before its start is read as empty, not as a crash.
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": 4, "character": 5},
                        "end": {"line": 0, "character": 0},
                    },
                    "text": "",
                }
            ],
        },
    )
    assert server.alive()


def test_cancel_request_of_a_pending_request(server, tmp_path):
    big = GOTCHA + "".join(f"y{i} = jnp.zeros(3)\ny{i}[0] = 1.0\n" for i in range(3000))
    uri = server.open(tmp_path / "big.py", big)
    request_id = server.send_request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll.jax-lsp"]},
        },
    )
    server.notify("$/cancelRequest", {"id": request_id})
    server.notify("$/cancelRequest", {"id": 987_654})  # unknown id: ignored
    response = server.response(request_id)
    # Either it finished before the cancel arrived, or it answers RequestCancelled (-32800).
    assert "result" in response or response["error"]["code"] == -32800
    assert server.alive()


def test_shutdown_then_exit_exits_zero(server):
    assert server.request("shutdown")["result"] is None
    server.notify("exit")
    assert server.process.wait(20) == 0


def test_exit_without_shutdown_exits_nonzero(server):
    server.notify("exit")
    assert server.process.wait(20) == 1


def test_stdin_closed_the_server_exits(server, tmp_path):
    server.open(tmp_path / "a.py", GOTCHA)
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(20) is not None
    assert not running(server.process.pid)


def test_parent_killed_the_server_exits():
    """The editor dies but our stdin stays open (held by another process): `processId`."""
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    raw = RawServer()
    try:
        raw.initialize(process_id=editor.pid)
        assert raw.alive()
        editor.kill()
        editor.wait()
        assert wait_until_gone(raw.process.pid), "the server outlived its editor"
        assert raw.process.wait(5) == 1
    finally:
        editor.kill()
        raw.close()


def test_client_process_killed_leaves_no_orphan(tmp_path):
    """A client (a process holding the server's pipes) is SIGKILLed: its server goes too."""
    script = tmp_path / "client.py"
    script.write_text(
        "import sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.reliability.rawclient import RawServer\n"
        "raw = RawServer()\n"
        "raw.initialize()\n"
        "print(raw.process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    client = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert client.stdout is not None
        server_pid = int(client.stdout.readline())
        assert running(server_pid)
        client.kill()
        client.wait()
        assert wait_until_gone(server_pid), "orphaned server still running"
    finally:
        client.kill()
