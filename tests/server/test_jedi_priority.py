"""The jedi worker runs at a lower CPU priority than the server: warming jedi takes seconds of
CPU right after start-up, while the user types."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no process priorities here")
def test_the_jedi_worker_is_nicer_than_its_server():
    worker = subprocess.Popen(
        [sys.executable, "-m", "jax_lsp.lsp.jedi_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        own = os.getpriority(os.PRIO_PROCESS, 0)
        deadline = time.monotonic() + 30
        while os.getpriority(os.PRIO_PROCESS, worker.pid) <= own:
            assert time.monotonic() < deadline, "the worker never lowered its priority"
            time.sleep(0.05)
    finally:
        worker.stdin.close()
        worker.wait(timeout=30)
