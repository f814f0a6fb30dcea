"""A bare JSON-RPC client over the real server's pipes, for frames no LSP library would send."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 20.0


def frame(message: Any) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawServer:
    """`python -m jax_lsp serve` with its stdio in our hands; messages read on a thread."""

    def __init__(self, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jax_lsp", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
            cwd=cwd,
        )
        self.messages: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.messages.put(json.loads(stream.read(length)))

    # -- sending ---------------------------------------------------------------------------
    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        self.send_bytes(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def send_request(self, method: str, params: Any = None) -> int:
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_bytes(frame(message))
        return self._next_id

    def request(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> dict:
        """The whole response message (with `result` or `error`)."""
        return self.response(self.send_request(method, params), timeout)

    # -- receiving -------------------------------------------------------------------------
    def wait_for(self, accept, timeout: float = TIMEOUT) -> dict:
        for message in self.seen:
            if accept(message):
                self.seen.remove(message)
                return message
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                break
            if accept(message):
                return message
            self.seen.append(message)
        raise AssertionError(f"no such message from the server within {timeout} s")

    def response(self, request_id: int, timeout: float = TIMEOUT) -> dict:
        return self.wait_for(
            lambda m: m.get("id") == request_id and "method" not in m, timeout=timeout
        )

    def notification(self, method: str, timeout: float = TIMEOUT) -> dict:
        return self.wait_for(lambda m: m.get("method") == method, timeout=timeout)

    def diagnostics(self, uri: str, timeout: float = TIMEOUT) -> list[dict]:
        message = self.wait_for(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            ),
            timeout=timeout,
        )
        return message["params"]["diagnostics"]

    # -- lifecycle -------------------------------------------------------------------------
    def initialize(self, process_id: int | None = None, root: Path | None = None) -> dict:
        params = {
            "processId": process_id,
            "rootUri": root.as_uri() if root else None,
            "capabilities": {},
        }
        result = self.request("initialize", params)
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        item = {"uri": uri, "languageId": "python", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})
        return uri

    def alive(self) -> bool:
        """The server still answers a request."""
        return "result" in self.request("textDocument/hover", hover_params("file:///none.py"))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def hover_params(uri: str, line: int = 0, character: int = 0) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def running(pid: int) -> bool:
    """The process exists and is not a zombie (from /proc, no psutil needed)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until_gone(pid: int, timeout: float = TIMEOUT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not running(pid):
            return True
        time.sleep(0.05)
    return False
