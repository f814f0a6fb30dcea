"""A minimal LSP client over stdio for the benchmarks: JSON-RPC framing, a reader thread, and
waiting for a given notification or response. No LSP library: the client must cost the same
for every server it measures.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

Message = dict[str, Any]


class LspClient:
    """One server process. `notifications` holds (arrival time, message) of what it sent."""

    # Seconds to wait for an answer unless told: a server under valgrind (`edit_instructions.py`)
    # on a loaded machine needs minutes to start.
    timeout: float = 60

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._next_id = 0
        self._responses: dict[int, queue.Queue] = {}
        self.notifications: queue.Queue[tuple[float, Message]] = queue.Queue()
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    # -- wire -----------------------------------------------------------------------------
    def _send(self, message: Message) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        with self._lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return  # the server exited
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            arrived = time.perf_counter()
            if "id" in message and "method" in message:  # a request from the server
                self._send({"id": message["id"], "result": _reply_to(message)})
            elif "id" in message:
                self._responses.setdefault(message["id"], queue.Queue()).put((arrived, message))
            else:
                self.notifications.put((arrived, message))

    # -- API ------------------------------------------------------------------------------
    def notify(self, method: str, params: Any) -> float:
        """Send a notification; return when it was sent."""
        sent = time.perf_counter()
        self._send({"method": method, "params": params})
        return sent

    def request(
        self, method: str, params: Any, timeout: float | None = None
    ) -> tuple[float, Message]:
        """(seconds to the response, the response)."""
        self._next_id += 1
        request_id = self._next_id
        box = self._responses.setdefault(request_id, queue.Queue())
        sent = time.perf_counter()
        self._send({"id": request_id, "method": method, "params": params})
        arrived, message = box.get(timeout=timeout or self.timeout)
        del self._responses[request_id]
        return arrived - sent, message

    def wait_for(
        self, method: str, uri: str | None = None, timeout: float | None = None
    ) -> tuple[float, Message]:
        """The next notification `method` (for `uri`), dropping others: (arrival, message)."""
        timeout = timeout or self.timeout
        deadline = time.perf_counter() + timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no {method} for {uri} within {timeout} s")
            try:
                arrived, message = self.notifications.get(timeout=remaining)
            except queue.Empty:
                raise TimeoutError(f"no {method} for {uri} within {timeout} s") from None
            if message.get("method") != method:
                continue
            if uri is None or message.get("params", {}).get("uri") == uri:
                return arrived, message

    def drain(self) -> None:
        while not self.notifications.empty():
            self.notifications.get_nowait()

    def initialize(self, root: Path) -> None:
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {
                    "textDocument": {
                        "synchronization": {"didSave": True},
                        "publishDiagnostics": {"versionSupport": True},
                        "codeAction": {
                            "codeActionLiteralSupport": {
                                "codeActionKind": {"valueSet": ["", "quickfix", "source"]}
                            }
                        },
                    },
                    "general": {"positionEncodings": ["utf-16"]},
                },
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            },
        )
        self.notify("initialized", {})

    def open(self, path: Path, text: str) -> str:
        uri = path.resolve().as_uri()
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 0, "text": text}},
        )
        return uri

    def rss_mb(self) -> float:
        """Resident set size of the server process (Linux)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the server process has used so far (Linux)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except Exception:  # a benchmark must not hang on a server that will not stop
            self.process.kill()
            self.process.wait()


def _reply_to(request: Message) -> Any:
    """Answers to the server's own requests: empty settings, registrations accepted."""
    if request.get("method") == "workspace/configuration":
        return [None for _ in request.get("params", {}).get("items", [])]
    return None
