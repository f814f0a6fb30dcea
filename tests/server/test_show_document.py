"""The code lens's command asks the client to show the jit site in another module: the command
is answered whatever the client replies to `window/showDocument` (this client replies null,
which pygls cannot read as a ShowDocumentResult), and the server goes on answering."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench.lsp_client import LspClient

_TRAIN = """import jax

from utils import halve


@jax.jit
def step(x):
    return halve(x)
"""

_UTILS = """def halve(x):
    if x > 0:
        return x / 2
    return x
"""


def test_the_lens_command_is_answered_when_the_client_replies_null(tmp_path: Path):
    (tmp_path / "train.py").write_text(_TRAIN)
    (tmp_path / "utils.py").write_text(_UTILS)
    client = LspClient([sys.executable, "-m", "jax_lsp", "serve"], cwd=tmp_path)
    try:
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": tmp_path.as_uri(),
                "capabilities": {"window": {"showDocument": {"support": True}}},
            },
        )
        client.notify("initialized", {})
        uri = client.open(tmp_path / "utils.py", _UTILS)
        _, lenses = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        [lens] = lenses["result"]
        command = {"command": lens["command"]["command"], "arguments": lens["command"]["arguments"]}
        _, answer = client.request("workspace/executeCommand", command, timeout=20)
        assert "error" not in answer
        _, hover = client.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 8}},
            timeout=20,
        )
        assert "traced" in hover["result"]["contents"]["value"]
    finally:
        client.close()
