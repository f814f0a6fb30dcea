"""The jedi worker: a process of its own, so jedi's seconds of pure-Python inference never hold
the server's GIL while the user types.

Protocol, one JSON object per line. Requests on stdin:
  {"id": 1, "op": "warm", "root": ROOT}
  {"id": 2, "op": "returns_array", "root": ROOT, "text": TEXT, "path": PATH,
   "sites": {"make_state": [line, column], ...}}
Responses on stdout: {"id": 2, "arrays": ["make_state", ...]} (the spellings whose call returns a
jax.Array). The worker exits when stdin closes, so it never outlives the server.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

from jax_lsp.analysis.external import CallSite
from jax_lsp.analysis.jedi_oracle import JediOracle

_NICENESS = 10  # CPU shares about a tenth of the server's when both want the same core


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
            sites = {name: CallSite(*where) for name, where in request.get("sites", {}).items()}
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


if __name__ == "__main__":
    _yield_the_cpu()
    serve()
