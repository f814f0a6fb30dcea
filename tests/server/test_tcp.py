"""`jax-lsp serve --tcp`: the real server over a socket. A clean end (`shutdown`, then `exit`)
writes nothing on stderr (pygls's `exit` handler raises SystemExit, which asyncio logged as an
unhandled exception of the connection); an `exit` without `shutdown` ends with status 1, as LSP
asks; a client gone without a word is one line; an error of the server's own still shows."""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # real servers started

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "jax_lsp", "serve", "--tcp", f"127.0.0.1:{port}"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


class TcpClient:
    """JSON-RPC frames over a socket to the server listening on `port`."""

    def __init__(self, port: int) -> None:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                self._socket = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.05)
        self._input = self._socket.makefile("rb")
        self._next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self._socket.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        return self.wait_for(lambda message: message.get("id") == self._next_id)

    def wait_for(self, accept) -> dict[str, Any]:
        while True:
            length = 0
            while (line := self._input.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert line, "the server closed the connection"
            message = json.loads(self._input.read(length))
            if accept(message):
                return message

    def close(self) -> None:
        self._input.close()
        self._socket.close()


def _session(port: int, tmp_path: Path) -> TcpClient:
    """A client initialised, with a document open whose diagnostics arrived."""
    client = TcpClient(port)
    client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    client.send({"method": "initialized", "params": {}})
    uri = (tmp_path / "a.py").as_uri()
    text = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n"
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}
            },
        }
    )
    published = client.wait_for(
        lambda message: message.get("method") == "textDocument/publishDiagnostics"
    )
    assert [d["code"] for d in published["params"]["diagnostics"]] == ["JAX201"]
    return client


def _ended(server: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, stderr = server.communicate(timeout=TIMEOUT)
    finally:
        server.kill()
    return server.returncode, stderr


def test_shutdown_and_exit_end_quietly_with_status_zero(tmp_path: Path) -> None:
    port = _free_port()
    server = _serve(port)
    client = _session(port, tmp_path)
    assert client.request("shutdown")["result"] is None
    client.send({"method": "exit"})
    status, stderr = _ended(server)
    client.close()
    assert (status, stderr) == (0, "")


def test_exit_without_shutdown_ends_with_status_one(tmp_path: Path) -> None:
    port = _free_port()
    server = _serve(port)
    client = _session(port, tmp_path)
    client.send({"method": "exit"})
    status, stderr = _ended(server)
    client.close()
    assert (status, stderr) == (1, "")


def test_a_client_gone_without_exit_is_one_line(tmp_path: Path) -> None:
    """A client that closes with the server's answer unread resets the connection: said in a
    line, as a broken pipe is over stdio, not as an unhandled exception of the connection."""
    port = _free_port()
    server = _serve(port)
    client = TcpClient(port)
    client.send({"id": 1, "method": "initialize", "params": {"capabilities": {}}})
    select.select([client._socket], [], [], TIMEOUT)  # the answer arrived, unread
    client._socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()
    status, stderr = _ended(server)
    assert status == 1
    assert stderr.startswith("Connection to the client is lost") and "Traceback" not in stderr


def test_a_port_in_use_is_still_reported() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        status, stderr = _ended(_serve(taken.getsockname()[1]))
    assert status != 0
    assert "address already in use" in stderr.lower()
