"""The jedi worker: a process of its own, so jedi's seconds of pure-Python inference never hold
the server's GIL while the user types.

Protocol, one JSON object per line. Requests on stdin:
  {"id": 1, "op": "warm", "root": ROOT}
  {"id": 2, "op": "returns_array", "root": ROOT, "text": TEXT, "path": PATH,
   "sites": {"make_state": [line, column], ...}}
Responses on stdout: {"id": 2, "arrays": ["make_state", ...]} (the spellings whose call returns a
jax.Array). The worker exits when stdin closes, and, even in the middle of a request, when the
server that started it is gone (`exit_with_parent`): it never outlives the server.

Command line: `python -m jax_lsp.lsp.jedi_worker [--parent PID]`, PID the server's (default: the
process that started this one).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Sequence

from jax_lsp.lsp.jedi_oracle import JediOracle

_NICENESS = 10  # CPU shares about a tenth of the server's when both want the same core
PARENT_POLL_SECONDS = 0.5


def serve(stdin=sys.stdin, stdout=sys.stdout) -> None:
    oracles: dict[str | None, JediOracle] = {}
    for line in stdin:
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            continue
        root = request.get("root")
        oracle = oracles.setdefault(root, JediOracle(root))
        arrays: list[str] = []
        if request.get("op") == "warm":
            oracle.warm()
        elif request.get("op") == "returns_array":
            sites = {name: tuple(where) for name, where in request.get("sites", {}).items()}
            arrays = sorted(
                oracle.returns_array(request.get("text", ""), request.get("path"), sites)
            )
        stdout.write(json.dumps({"id": request.get("id"), "arrays": arrays}) + "\n")
        stdout.flush()


def _yield_the_cpu() -> None:
    """Run at a lower priority than the server: on a machine with few cores, warming jedi
    (seconds of CPU) must not take a core from the analysis of the user's keystrokes."""
    # No os.nice (Windows), or not permitted: run as is.
    with contextlib.suppress(AttributeError, OSError):
        os.nice(_NICENESS)


def exit_with_parent(parent: int, poll: float = PARENT_POLL_SECONDS) -> None:
    """End this process once `parent` is no longer its parent (it died: this one was
    re-parented). The end of input reaches `serve` only between requests, and one request
    (loading jedi on a busy machine, inference over a large module) can take a minute: a killed
    server must not leave the worker computing for nobody."""
    if sys.platform == "win32":
        return  # no re-parenting to watch for; the end of input still stops the worker

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(0)  # the main thread may be deep in jedi: no clean way to interrupt it

    threading.Thread(target=watch, name="jax-lsp-parent-watch", daemon=True).start()


def _parent_pid(argv: Sequence[str]) -> int:
    """`--parent PID` (the server's, given by it: the worker may start after it died), or the
    process that started this one."""
    if "--parent" in argv[:-1]:
        return int(argv[argv.index("--parent") + 1])
    return os.getppid()


if __name__ == "__main__":
    exit_with_parent(_parent_pid(sys.argv[1:]))
    _yield_the_cpu()
    serve()
