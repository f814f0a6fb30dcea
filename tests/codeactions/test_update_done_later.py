"""An in-place update whose functional form comes later in the same scope (X1: a notebook cell
that raised, or did nothing, and the next cell doing the update right). The JAX202/JAX203
fixes would perform the update twice there: unsafe, left out of `check --fix`. Run under JAX
cell by cell, as a user runs a notebook (a cell that raises does not stop the next)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.ipynb import CELL_MARKER
from tests.cli.helpers import jax_lsp

FIRST = "import jax.numpy as jnp\nx = jnp.zeros(3)\n"
NEXT = "x = x.at[0].add(1.0)\n"


def _run_cells(cells: list[str]) -> list[float]:
    """x after running the cells one by one in one namespace, as a kernel does: a cell that
    raises stops there, and the next cell still runs."""
    namespace: dict = {}
    for cell in cells:
        # JAX arrays are immutable: the notebook shows the TypeError and goes on.
        with contextlib.suppress(TypeError):
            exec(compile(cell, "<cell>", "exec"), namespace)
    return namespace["x"].tolist()


def _notebook(cells: list[str]) -> str:
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells
            ],
        }
    )


# (Not the cell's last expression, whose value the cell would display.)
@pytest.mark.parametrize("attempt", ["x[0] += 1.0\n", "x.at[0].add(1.0)\ny = x\n"])
def test_an_update_the_next_cell_does_right_is_not_fixed_by_fix_all(tmp_path: Path, attempt: str):
    cells = [FIRST + attempt, NEXT]
    text = f"\n{CELL_MARKER}\n".join(cell.removesuffix("\n") for cell in cells) + "\n"
    (finding,) = check_source(text, "book.ipynb", Settings()).findings
    assert finding.fix is not None and not finding.fix.is_safe
    path = tmp_path / "book.ipynb"
    path.write_text(_notebook(cells))
    jax_lsp("check", "--fix", "book.ipynb", cwd=tmp_path)
    assert [c["source"] for c in json.loads(path.read_text())["cells"]] == cells
    # Why: as run, x[0] is 1 (the first cell raised or did nothing); fixed, it would be 2.
    fixed = apply_edits(text, finding.fix.edits).split(f"\n{CELL_MARKER}\n")
    assert _run_cells(cells) == [1.0, 0.0, 0.0]
    assert _run_cells(fixed) == [2.0, 0.0, 0.0]


def test_an_update_at_another_index_later_keeps_the_fix_safe():
    text = FIRST + "x[0] += 1.0\nx = x.at[1].add(1.0)\n"
    (finding,) = check_source(text, "a.py", Settings()).findings
    assert finding.fix is not None and finding.fix.is_safe


def test_inside_a_function_the_later_statements_of_its_body_count():
    text = (
        "import jax.numpy as jnp\n\n\ndef f():\n    x = jnp.zeros(3)\n    x[0] += 1.0\n"
        "    if x.sum() >= 0:\n        x = x.at[0].add(1.0)\n    return x\n"
    )
    (finding,) = check_source(text, "a.py", Settings()).findings
    assert finding.fix is not None and not finding.fix.is_safe
    before = text.replace("    x[0] += 1.0\n    if", "    if").replace(
        "        x = x.at[0].add(1.0)\n", "        x = x.at[0].add(1.0)\n    x[0] += 1.0\n"
    )
    (finding,) = check_source(before, "a.py", Settings()).findings
    assert finding.fix is not None and finding.fix.is_safe  # the update comes first there
