"""jax-lsp in a real JupyterLab 4 with jupyterlab-lsp and this repository's labextension (Lab
headless on a temporary folder, driven in headless Chromium via playwright-core): the squiggles
on the right cells, a sibling module's import resolved, the hover naming a cell, quick fixes from
Ctrl+. and from the context menu, Fix All, the saved .ipynb fixed with its other cells as they
were. jax-lsp is given a higher `priority` than other Python servers and a `serverSettings`
severity, as the README says."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.clients.tools import ARTIFACTS, CHROMIUM, EXTENSION, REPO, require

pytestmark = pytest.mark.slow

LABEXTENSION = REPO / "jupyterlab-extension" / "labextension"
PLAYWRIGHT = Path(
    os.environ.get("JAX_LSP_PLAYWRIGHT", EXTENSION / "node_modules" / "playwright-core")
)

HELPERS = "import jax.numpy as jnp\n\n\ndef make_array():\n    return jnp.zeros(3)\n"
CELLS = [
    ("code", "import jax\nimport jax.numpy as jnp\nfrom helpers import make_array"),
    ("markdown", "# Updating arrays"),
    ("code", "x = make_array()\nx[0] = 1.0"),
    ("code", "y = jnp.ones(4)\ny[1] += 2.0"),
    ("code", "def show(v):\n    print(v)\n    return v"),
    ("code", "shown = jax.jit(show)"),
    ("code", "z = jnp.zeros(2)\nz[1] = 3.0"),
    ("code", "w = jnp.ones(2)\nw[0] = 5.0"),
    # Its fix (static_argnames) needs `from functools import partial`: added to the first cell.
    ("code", "@jax.jit\ndef padded(v, n):\n    return jnp.zeros(n) + v.sum()"),
]
# After Ctrl+. (cells 3 and 9, the latter's fix adding an import to cell 1), the context menu's
# fix (cell 8) and Fix All (cells 4 and 7); JAX101's print has no safe fix, so Fix All leaves it.
FIXED = {
    0: CELLS[0][1] + "\nfrom functools import partial",
    8: '@partial(jax.jit, static_argnames=("n",))' + CELLS[8][1].removeprefix("@jax.jit"),
    2: "x = make_array()\nx = x.at[0].set(1.0)",
    3: "y = jnp.ones(4)\ny = y.at[1].add(2.0)",
    6: "z = jnp.zeros(2)\nz = z.at[1].set(3.0)",
    7: "w = jnp.ones(2)\nw = w.at[0].set(5.0)",
}
LAB_SETTINGS = {
    "@jupyter-lsp/jupyterlab-lsp/plugin.jupyterlab-settings": {
        "language_servers": {
            "jax-lsp": {
                "priority": 60,
                "serverSettings": {"jax-lsp.severity": {"JAX202": "warning"}},
            }
        }
    },
    # No news or update prompts over the notebook.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def missing_jupyterlab_tools() -> str | None:
    """Why the JupyterLab test cannot run here, or None."""
    import importlib.util

    for module in ("jupyterlab", "jupyter_lsp", "ipykernel"):
        if importlib.util.find_spec(module) is None:
            return f"{module} not installed (the jupyterlab extra, as .ci/run installs it)"
    if shutil.which("node") is None:
        return "node not installed"
    if not CHROMIUM.is_file():
        return f"chromium not installed at {CHROMIUM} (apt-get install chromium)"
    if not PLAYWRIGHT.is_dir():
        return f"playwright-core not at {PLAYWRIGHT} (npm ci in vscode-extension/)"
    return None


def notebook(cells: list[tuple[str, str]]) -> dict:
    return {
        "cells": [
            {"cell_type": kind, "id": f"cell-{index}", "metadata": {}, "source": source}
            | ({"execution_count": None, "outputs": []} if kind == "code" else {})
            for index, (kind, source) in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(url: str, lab: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lab.poll() is not None:
            raise AssertionError(f"JupyterLab exited:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(
        f"JupyterLab did not answer within {timeout} s:\n{log.read_text()[-4000:]}"
    )


def cell_sources(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]


def test_fixes_in_jupyterlab(tmp_path: Path) -> None:
    require(missing_jupyterlab_tools())
    root = tmp_path / "notebooks"
    root.mkdir()
    (root / "helpers.py").write_text(HELPERS)
    (root / "demo.ipynb").write_text(json.dumps(notebook(CELLS), indent=1) + "\n")
    # The labextension as this checkout built it (first on Jupyter's path; the wheel installs the
    # same folder under sys.prefix).
    share = tmp_path / "share" / "jupyter" / "labextensions"
    share.mkdir(parents=True)
    (share / "jax-lsp-jupyterlab").symlink_to(LABEXTENSION, target_is_directory=True)
    settings = tmp_path / "lab-settings"
    for name, value in LAB_SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(value))
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO),  # the server jupyter-lsp starts is this checkout's
        "JUPYTER_PATH": str(tmp_path / "share" / "jupyter"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
    }
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / "jupyterlab.log"
    with log.open("w") as output:
        lab = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--allow-root",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                "--ServerApp.ip=127.0.0.1",
                "--IdentityProvider.token=",
                "--ServerApp.password=",
                f"--ServerApp.root_dir={root}",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its kernel and language server end with it
        )
    try:
        wait_until_serving(url, lab, log)
        run = subprocess.run(
            ["node", str(REPO / "tests" / "clients" / "jupyterlab_e2e.mjs")],
            env={
                **os.environ,
                "LAB_URL": url,
                "NOTEBOOK": "demo.ipynb",
                "CHROMIUM": str(CHROMIUM),
                "ARTIFACTS": str(ARTIFACTS),
                "PLAYWRIGHT": str(PLAYWRIGHT),
            },
            capture_output=True,
            text=True,
            timeout=600,
        )
        print(run.stdout)  # the steps with their timings (pytest -s or -rP shows them)
        assert run.returncode == 0, f"{run.stdout}\n{run.stderr}\n{log.read_text()[-4000:]}"
        assert "JUPYTERLAB E2E OK" in run.stdout
        for screenshot in ("diagnostics", "hover", "quickfix", "fixall"):
            assert (ARTIFACTS / f"jupyterlab-{screenshot}.png").is_file()
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        try:
            lab.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait()

    saved = cell_sources(root / "demo.ipynb")
    expected = [FIXED.get(index, source) for index, (_, source) in enumerate(CELLS)]
    assert saved == expected
    assert (
        json.loads((root / "demo.ipynb").read_text())["metadata"]["kernelspec"]["name"] == "python3"
    )
