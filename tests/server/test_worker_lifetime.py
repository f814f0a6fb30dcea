"""The jedi worker ends with the server, however the server ends: a killed server (SIGKILL, or
its own `os._exit` when the editor dies) leaves the worker no chance to be told, and the end of
its input reaches it only between requests, while one request can keep it busy for a minute."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.reliability.rawclient import ROOT, RawServer, running

pytestmark = pytest.mark.slow  # real servers and jedi workers started and killed

# Long enough for any machine to still be busy on the request when its server is killed; the
# worker must be gone well before it could have finished.
GONE_WITHIN = 5.0
SITES = 1500  # about 50 KB of request: it fits in the pipe's buffer, so it is sent whole


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _wait_for_children(pid: int, timeout: float = 60.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while not (children := _children(pid)):
        assert time.monotonic() < deadline, "the server never started its jedi worker"
        time.sleep(0.05)
    return children


def _still_running_after(pids: list[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while (alive := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_busy_worker_ends_soon_after_its_server_is_killed(tmp_path: Path) -> None:
    """A stand-in server starts the worker the server's way (`JediWorker`) and gives it a long
    request; the server is killed while the worker works on it."""
    (tmp_path / "lib.py").write_text(
        "".join(f"def f{i}(x):\n    return x\n\n" for i in range(SITES))
    )
    text = "from lib import *\n" + "".join(f"y{i} = f{i}(1)\n" for i in range(SITES))
    sites = {f"f{i}": [i + 1, len(f"y{i} = ")] for i in range(SITES)}
    stand_in = tmp_path / "server.py"
    stand_in.write_text(
        textwrap.dedent(
            f"""
            import time
            from jax_lsp.lsp.crossmodule import JediWorker

            worker = JediWorker()
            worker.request(op="returns_array", root={str(tmp_path)!r}, text={text!r},
                           path={str(tmp_path / "a.py")!r}, sites={sites!r})
            print(worker._process.pid, flush=True)
            time.sleep(600)
            """
        )
    )
    server = subprocess.Popen(
        [sys.executable, str(stand_in)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    worker = 0
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        time.sleep(0.5)  # the request is in the worker's pipe, the worker at work on it
        assert running(worker)
        server.kill()
        server.wait()
        assert not _still_running_after([worker], GONE_WITHIN), "the worker outlived its server"
    finally:
        server.kill()
        server.wait()
        _kill_all([worker] if worker else [])


def _end_the_server(raw: RawServer, how: str) -> None:
    if how == "killed":
        raw.process.kill()
    elif how == "stdin-closed":
        assert raw.process.stdin is not None
        raw.process.stdin.close()
    else:
        raw.notify("exit")  # without `shutdown`
    raw.process.wait(30)


@pytest.mark.parametrize("how", ["killed", "stdin-closed", "exit-without-shutdown"])
def test_the_jedi_worker_ends_with_the_real_server(tmp_path: Path, how: str) -> None:
    """Over stdio: the server starts the worker once its first diagnostics are out, and ends
    while the worker loads jedi (seconds: it runs at a low priority)."""
    (tmp_path / "lib.py").write_text("import jax.numpy as jnp\n\ndef make():\n    return 1\n")
    raw = RawServer(cwd=tmp_path)
    helpers: list[int] = []
    try:
        raw.initialize(root=tmp_path)
        uri = raw.open(tmp_path / "a.py", "from lib import make\n\nx = make()\nx[0] = 1\n")
        raw.diagnostics(uri)
        workers = _wait_for_children(raw.process.pid)
        helpers = workers + [grandchild for w in workers for grandchild in _children(w)]
        _end_the_server(raw, how)
        # jedi's own helper process, if started, ends when the worker's pipes close.
        assert not _still_running_after(helpers, GONE_WITHIN), "the worker outlived its server"
    finally:
        raw.close()
        _kill_all(helpers)
