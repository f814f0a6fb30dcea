"""`shutdown` is answered at once: the jedi worker (possibly still loading jedi) is told to stop
without being waited for, and ended (killed if it is still busy) when the server exits."""

from __future__ import annotations

import time

from jax_lsp.lsp.crossmodule import JediWorker


def test_closing_without_waiting_returns_at_once_and_the_worker_is_reaped_later() -> None:
    worker = JediWorker()
    worker.request(op="warm", root=None)  # starts the process; loading jedi takes a while
    process = worker._process
    assert process is not None and process.poll() is None
    started = time.monotonic()
    worker.close(wait=False)
    assert time.monotonic() - started < 0.5
    started = time.monotonic()
    worker.close()  # at exit: a moment for the worker to end, then it is killed
    assert process.poll() is not None
    assert time.monotonic() - started < 1.5  # not the seconds jedi takes to load
