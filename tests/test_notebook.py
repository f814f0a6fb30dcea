"""Notebooks: code cells checked as one module, findings reported per cell, fixes written back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jax_lsp.findings import Position
from jax_lsp.notebook import CELL_MARKER, Notebook


def notebook_json(*cells: tuple[str, str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "source": source.splitlines(keepends=True), "metadata": {}}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for kind, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


NOTEBOOK = notebook_json(
    ("markdown", "# Updating arrays\n"),
    ("code", "%matplotlib inline\nimport jax.numpy as jnp\nx = jnp.zeros(3)"),
    ("code", "!nvidia-smi\nx[0] = 1.0\nx.at[1].set(2.0)"),
    ("code", "%%bash\necho not python"),
)


def test_cells_join_in_order_with_magics_blanked():
    notebook = Notebook.parse(NOTEBOOK)
    assert notebook.text.split("\n") == [
        "",
        "import jax.numpy as jnp",
        "x = jnp.zeros(3)",
        CELL_MARKER,
        "",
        "x[0] = 1.0",
        "x.at[1].set(2.0)",
        CELL_MARKER,
        "",
        "",
        "",
    ]
    assert notebook.locate(Position(5, 0)) == (2, Position(1, 0))
    assert notebook.locate(Position(2, 4)) == (1, Position(2, 4))


def test_check_reports_cells_and_fix_writes_cells_back(tmp_path: Path):
    path = tmp_path / "demo.ipynb"
    path.write_text(NOTEBOOK)

    def run(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "jax_lsp", "check", str(path), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    result = run()
    assert result.returncode == 1
    assert "demo.ipynb:cell 2:2:1: error: JAX201" in result.stdout
    assert "demo.ipynb:cell 2:3:1: warning: JAX203" in result.stdout
    rows = json.loads(run("--output-format", "json").stdout)
    assert [(r["cell"], r["location"]["row"]) for r in rows] == [(2, 2), (2, 3)]

    assert run("--fix").returncode == 0
    cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert cells == [
        "# Updating arrays\n",
        "%matplotlib inline\nimport jax.numpy as jnp\nx = jnp.zeros(3)",
        "!nvidia-smi\nx = x.at[0].set(1.0)\nx = x.at[1].set(2.0)",
        "%%bash\necho not python",
    ]


def test_a_broken_notebook_is_one_line_on_stderr(tmp_path: Path):
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "ok.py").write_text("import jax.numpy as jnp\nx = jnp.zeros(2)\nx[0] = 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "jax_lsp", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stderr.count("\n") == 1 and "broken.ipynb" in result.stderr
    assert "ok.py:3:1: error: JAX201" in result.stdout
