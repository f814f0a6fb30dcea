"""A rule that raises is reported once per file, and the other rules' findings still arrive.

The failing rule is real: JAX_LSP_FAIL_RULE (read by the engine at import) makes JAX201 raise.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.reliability.rawclient import ROOT, RawServer

# JAX201 would flag lines 3 and 7 (it fails in two units, first on line 2); JAX203 line 4.
TEXT = (
    "import jax.numpy as jnp\n"
    "y = jnp.zeros(3)\n"
    "y[0] = 1.0\n"
    "y.at[0].set(2.0)\n"
    "def f():\n"
    "    z = jnp.zeros(3)\n"
    "    z[1] = 1.0\n"
    "    return z\n"
)
FAIL = {"JAX_LSP_FAIL_RULE": "JAX201"}


def _failure_logs(server: RawServer) -> list[str]:
    messages = [m for m in server.seen if m.get("method") == "window/logMessage"]
    while not server.messages.empty():
        message = server.messages.get()
        (messages if message.get("method") == "window/logMessage" else server.seen).append(message)
    return [m["params"]["message"] for m in messages if "JAX201" in m["params"]["message"]]


def test_failing_rule_reported_once_per_file_other_rules_still_report(tmp_path):
    server = RawServer(env=FAIL)
    try:
        server.initialize()
        uris = [server.open(tmp_path / name, TEXT) for name in ("a.py", "b.py")]
        for uri in uris:
            assert [d["code"] for d in server.diagnostics(uri)] == ["JAX203"]
        # Edit a.py twice more: the failure is not reported again.
        for version in (2, 3):
            server.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uris[0], "version": version},
                    "contentChanges": [{"text": TEXT + f"# edit {version}\n"}],
                },
            )
            assert [d["code"] for d in server.diagnostics(uris[0])] == ["JAX203"]
        assert server.alive()
        logs = _failure_logs(server)
        assert len(logs) == 2, logs
        assert any("a.py" in log for log in logs)
        assert any("b.py" in log for log in logs)
    finally:
        server.close()


def test_cli_reports_a_failing_rule_once_per_file(tmp_path):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(TEXT)
    done = subprocess.run(
        [sys.executable, "-m", "jax_lsp", "check", "a.py", "b.py"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), **FAIL},
        capture_output=True,
        text=True,
        timeout=120,
    )
    errors = done.stderr.splitlines()
    assert sorted(line for line in errors if "JAX201" in line) == [
        "jax-lsp: a.py: rule JAX201 failed: RuntimeError: failing on purpose "
        "(JAX_LSP_FAIL_RULE) (line 2)",
        "jax-lsp: b.py: rule JAX201 failed: RuntimeError: failing on purpose "
        "(JAX_LSP_FAIL_RULE) (line 2)",
    ]
    assert done.stdout.count("JAX203") == 2
    assert done.returncode == 1
