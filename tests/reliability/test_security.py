"""The analyzed code is never imported or run, the network is never used, and nothing is written
outside the files a user's fix applies to: through the server and through the CLI.

Every process runs under tests/reliability/guard/sitecustomize.py, an audit hook that logs
network use (and refuses it), process launches, imports of the workspace's modules and files
opened for writing. HOME points into the test's directory, which is snapshotted around the run.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.rawclient import ROOT, RawServer, hover_params

GUARD = Path(__file__).resolve().parent / "guard"
MARKER = "executed.marker"

# A module whose import, or run as a script, would leave a marker (and try the network).
EVIL = """\
import pathlib, socket
pathlib.Path(__file__).with_name({marker!r}).write_text("imported")
try:
    socket.create_connection(("example.com", 80), timeout=1)
except OSError:
    pass

def helper(x):
    return x
"""
MAIN = """\
import jax
import jax.numpy as jnp
from evil import helper
import evil

@jax.jit
def step(x):
    x[0] += 1.0
    return helper(x)

y = jnp.zeros(3)
y.at[0].set(1.0)
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "evil.py").write_text(EVIL.format(marker=MARKER))
    (root / "pkg" / "__init__.py").write_text(EVIL.format(marker=MARKER))
    (root / "main.py").write_text(MAIN)
    (root / "conftest.py").write_text(EVIL.format(marker=MARKER))
    (root / "pyproject.toml").write_text("[tool.jax-lsp]\n")
    (tmp_path / "home").mkdir()
    return root


def _environment(tmp_path: Path) -> dict[str, str]:
    return {
        "PYTHONPATH": os.pathsep.join((str(GUARD), str(ROOT))),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(tmp_path / "home"),
        "JAX_LSP_AUDIT_LOG": str(tmp_path / "audit.log"),
        "JAX_LSP_AUDIT_MODULES": "evil,main,pkg,conftest",
    }


def _snapshot(*roots: Path) -> dict[str, str]:
    return {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        for root in roots
        for path in sorted(root.rglob("*"))
    }


def _audit(tmp_path: Path) -> list[str]:
    log = tmp_path / "audit.log"
    return log.read_text().splitlines() if log.exists() else []


_OWN_HELPERS = ("jedi/inference/compiled/subprocess/__main__.py", "jax_lsp.lsp.jedi_worker")


def _assert_nothing_ran(workspace: Path, events: list[str]) -> None:
    assert not list(workspace.rglob(MARKER)), "analyzed code was executed"
    assert not [e for e in events if e.startswith(("import ", "socket."))], events
    # The processes allowed: the server's own jedi worker (`jax_lsp.lsp.jedi_worker`, same
    # interpreter) and jedi's inspection helper; neither runs the analyzed code (checked above).
    launched = [e for e in events if e.startswith(("subprocess.", "os."))]
    assert not [e for e in launched if not any(h in e for h in _OWN_HELPERS)], events


def test_server_never_runs_or_writes(workspace: Path, tmp_path: Path):
    before = _snapshot(workspace, tmp_path / "home")
    server = RawServer(env=_environment(tmp_path), cwd=workspace)
    try:
        server.initialize(root=workspace)
        main = server.open(workspace / "main.py", MAIN)
        server.open(workspace / "evil.py", EVIL.format(marker=MARKER))
        found = server.diagnostics(main)
        assert {d["code"] for d in found} >= {"JAX202", "JAX203"}
        document = {"uri": main}
        for diagnostic in found:
            start = diagnostic["range"]["start"]
            hovered = server.request(
                "textDocument/hover", hover_params(main, start["line"], start["character"])
            )
            assert hovered["result"] is not None
            actions = server.request(
                "textDocument/codeAction",
                {
                    "textDocument": document,
                    "range": diagnostic["range"],
                    "context": {"diagnostics": [diagnostic]},
                },
            )
            assert actions["result"], diagnostic
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": 12, "character": 0}}
        fix_all = server.request(
            "textDocument/codeAction",
            {
                "textDocument": document,
                "range": whole,
                "context": {"diagnostics": found, "only": ["source.fixAll.jax-lsp"]},
            },
        )
        assert fix_all["result"]
        for method in ("textDocument/inlayHint", "textDocument/codeLens"):
            assert "result" in server.request(method, {"textDocument": document, "range": whole})
        server.notify("textDocument/didSave", {"textDocument": document})
        server.request("shutdown")
        server.notify("exit")
        assert server.process.wait(20) == 0
    finally:
        server.close()
    _assert_nothing_ran(workspace, _audit(tmp_path))
    # The server writes nothing at all: edits go to the client, which applies them.
    assert [e for e in _audit(tmp_path) if e.startswith("write ")] == []
    assert _snapshot(workspace, tmp_path / "home") == before


def test_cli_check_and_fix_write_only_the_fixed_file(workspace: Path, tmp_path: Path):
    before = _snapshot(workspace, tmp_path / "home")
    env = {**os.environ, **_environment(tmp_path)}
    command = [sys.executable, "-m", "jax_lsp", "check", "--jobs", "1", "."]
    checked = subprocess.run(command, cwd=workspace, env=env, capture_output=True, timeout=120)
    assert checked.returncode == 1, checked.stderr
    assert _snapshot(workspace, tmp_path / "home") == before
    fixed = subprocess.run(
        [*command, "--fix", "--unsafe-fixes"],
        cwd=workspace,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert fixed.returncode in (0, 1), fixed.stderr
    after = _snapshot(workspace, tmp_path / "home")
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    assert changed == {str(workspace / "main.py")}
    events = _audit(tmp_path)
    _assert_nothing_ran(workspace, events)
    written = {str(workspace / e.removeprefix("write ")) for e in events if e.startswith("write ")}
    # The atomic write: a temporary file beside main.py, renamed onto it (none is left).
    temporary = {path for path in written if Path(path).name.startswith(".main.py.")}
    assert not any(Path(path).exists() for path in temporary)
    assert written - temporary <= {str(workspace / "main.py")}, written
