"""Start-up: the first diagnostics need little. The libraries of fixes (libcst), of
cross-module answers (jedi, run in its own worker process) and of the installed JAX's metadata
(importlib.metadata) wait until they are first needed (a subprocess each: a test process has
imported them already), and a module's importers are read after its first diagnostics."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.lsp_client import LspClient

# Each costs 20 ms to a second of start-up; jax and numpy are never imported at all.
HEAVY = ("libcst", "jedi", "parso", "importlib.metadata", "jax", "numpy")

_PRESENT = f"sorted(m for m in {HEAVY!r} if m in sys.modules)"

# The real server over stdio, which writes the heavy modules loaded when it publishes its
# first diagnostics to the file named by its first argument.
_SERVE = f"""
import json, sys
from jax_lsp.lsp.publisher import Publisher
from jax_lsp.server import serve

publish = Publisher.publish

def first_publish(self, *args, **kwargs):
    with open(sys.argv[1], "a") as out:
        out.write(json.dumps({_PRESENT}) + "\\n")
    return publish(self, *args, **kwargs)

Publisher.publish = first_publish
sys.exit(serve())
"""

_TRACED = """import jax
import numpy as np


@jax.jit
def step(x):
    if x > 0:
        return x
    return np.asarray(x)
"""


def test_importing_the_engine_loads_no_heavy_library():
    probe = f"import sys, jax_lsp.engine; print({_PRESENT})"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_server_publishes_its_first_diagnostics_without_heavy_libraries(tmp_path: Path):
    source = tmp_path / "project" / "step.py"
    source.parent.mkdir()
    source.write_text(_TRACED)
    loaded = tmp_path / "loaded.jsonl"
    client = LspClient([sys.executable, "-c", _SERVE, str(loaded)], cwd=source.parent)
    try:
        client.initialize(source.parent)
        uri = client.open(source, _TRACED)
        _, message = client.wait_for("textDocument/publishDiagnostics", uri, timeout=120)
    finally:
        client.close()
    assert "JAX701" in [d["code"] for d in message["params"]["diagnostics"]]
    assert json.loads(loaded.read_text().splitlines()[0]) == []


_TRAIN = """import jax

from utils import clip_update


@jax.jit
def step(params, grads):
    return clip_update(params, grads, 0.1)
"""

_UTILS = """import jax.numpy as jnp


def clip_update(params, grads, lr):
    if jnp.linalg.norm(grads) > 1.0:
        grads = grads / jnp.linalg.norm(grads)
    return params - lr * grads
"""


def test_a_module_traced_by_its_importers_gets_their_findings_in_a_second_publication(
    tmp_path: Path,
):
    """The first diagnostics of an opened module come before its importers are read (in a
    large project that takes seconds); those the importers' traced code gives it follow."""
    (tmp_path / "train.py").write_text(_TRAIN)
    (tmp_path / "utils.py").write_text(_UTILS)
    client = LspClient([sys.executable, "-m", "jax_lsp", "serve"], cwd=tmp_path)
    published = []
    try:
        client.initialize(tmp_path)
        uri = client.open(tmp_path / "utils.py", _UTILS)
        while not published or not published[-1]:
            _, message = client.wait_for("textDocument/publishDiagnostics", uri, timeout=120)
            published.append([d["code"] for d in message["params"]["diagnostics"]])
    finally:
        client.close()
    assert published == [[], ["JAX701"]]
