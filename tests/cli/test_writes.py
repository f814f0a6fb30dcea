"""`check --fix` never damages a file: encoding, BOM, line endings and permissions kept, the write
atomic, nothing written that would not parse; notebooks keep their JSON as it was."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from jax_lsp import engine, files
from jax_lsp.config import Settings
from tests.cli.helpers import FIXABLE, FIXED, jax_lsp


@pytest.mark.slow  # the fixed file run by a new interpreter
def test_latin1_file_keeps_its_encoding_and_still_prints_cafe(tmp_path: Path):
    source = "# -*- coding: latin-1 -*-\n" + FIXABLE + 'label = "café"\nprint(label)\n'
    path = tmp_path / "latin.py"
    path.write_bytes(source.encode("latin-1"))

    run = jax_lsp("check", "--fix", "latin.py", cwd=tmp_path)

    assert run.code == 0, run.stdout + run.stderr
    data = path.read_bytes()
    assert b"caf\xe9" in data and b"\xc3" not in data  # latin-1 é, not UTF-8's two bytes
    assert "x = x.at[0].set(1.0)" in data.decode("latin-1")
    printed = subprocess.run(
        [sys.executable, str(path)], capture_output=True, timeout=120, env={**os.environ}
    )
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.decode("utf-8").strip() == "café"


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_line_endings_are_kept(tmp_path: Path, newline: str):
    path = tmp_path / "endings.py"
    path.write_bytes(FIXABLE.replace("\n", newline).encode())

    assert jax_lsp("check", "--fix", "endings.py", cwd=tmp_path).code == 0

    assert path.read_bytes() == FIXED.replace("\n", newline).encode()


def test_byte_order_mark_is_kept(tmp_path: Path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + FIXABLE.encode())

    assert jax_lsp("check", "--fix", "bom.py", cwd=tmp_path).code == 0

    assert path.read_bytes() == b"\xef\xbb\xbf" + FIXED.encode()


def test_permissions_are_kept_and_no_temporary_file_is_left(tmp_path: Path):
    path = tmp_path / "script.py"
    path.write_text(FIXABLE)
    path.chmod(0o751)

    assert jax_lsp("check", "--fix", "script.py", cwd=tmp_path).code == 0

    assert path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py"]


def test_a_failed_write_leaves_the_file_whole(tmp_path: Path, monkeypatch):
    path = tmp_path / "whole.py"
    path.write_text(FIXABLE)

    def disk_full(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", disk_full)
    run = jax_lsp("check", "--fix", "whole.py", cwd=tmp_path)

    assert run.code == 1
    assert "fixes not written" in run.stderr and "No space left" in run.stderr
    # The file was checked: its finding is still reported, and the summary says what failed.
    assert "whole.py:4:1: error: JAX201" in run.stdout
    assert "Fixes could not be applied to 1 file (see above)." in run.stdout
    assert "could not be checked" not in run.stdout + run.stderr
    assert path.read_text() == FIXABLE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["whole.py"]


def test_a_fix_that_would_not_parse_is_not_written(tmp_path: Path, monkeypatch):
    path = tmp_path / "broken_fix.py"
    path.write_text(FIXABLE)
    # A codemod bug: the fixed text does not parse.
    monkeypatch.setattr(engine, "fix_text", lambda text, analyze, unsafe: (text + "x = (\n", 1))

    assert engine.fix_source(FIXABLE, str(path), Settings()) == (FIXABLE, 0)
    jax_lsp("check", "--fix", "broken_fix.py", cwd=tmp_path)
    assert path.read_text() == FIXABLE


def test_a_half_typed_line_keeps_its_text_and_the_rest_is_fixed(tmp_path: Path):
    source = FIXABLE + "\n\ndef broken(:\n    y = x[0] +\n"
    path = tmp_path / "syntax.py"
    path.write_text(source)

    check = jax_lsp("check", "syntax.py", cwd=tmp_path)
    fix = jax_lsp("check", "--fix", "syntax.py", cwd=tmp_path)

    assert "JAX201 [*]" in check.stdout and "invalid-syntax SyntaxError" in check.stdout
    # The syntax error is still reported (exit 1); the JAX201 before it is fixed.
    assert fix.code == 1 and "Fixed 1 finding" in fix.stdout
    assert path.read_text() == FIXED + "\n\ndef broken(:\n    y = x[0] +\n"


def test_no_fix_is_offered_inside_the_half_typed_function(tmp_path: Path):
    source = (
        "import jax.numpy as jnp\n\n\ndef f():\n    x = jnp.zeros(3)\n    x[0] = 1.0\n    if x\n"
    )
    path = tmp_path / "typing.py"
    path.write_text(source)

    check = jax_lsp("check", "typing.py", cwd=tmp_path)
    fix = jax_lsp("check", "--fix", "typing.py", cwd=tmp_path)

    assert "JAX201 " in check.stdout and "[*]" not in check.stdout
    assert fix.code == 1 and path.read_text() == source


def test_an_unencodable_fix_is_not_written():
    source = files.decode_source("# coding: ascii\nx = 1\n".encode("ascii"))
    with pytest.raises(files.UnwritableFile):
        source.encode("# coding: ascii\nx = 'é'\n")


def _notebook(cells: list[dict]) -> dict:
    # Keys deliberately not sorted, as some tools write them.
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernel": "python3"}, "cells": cells}


def _code(source, **extra) -> dict:
    return {"cell_type": "code", "source": source, "metadata": extra, "outputs": []}


def test_a_notebook_changes_only_in_the_fixed_cell(tmp_path: Path):
    data = _notebook(
        [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Café\n", "notes"]},
            _code(["import jax.numpy as jnp\n", "%matplotlib inline\n", "x = jnp.zeros(3)\n"]),
            _code("try:\n    import optax\nexcept ImportError:\n    !pip install optax"),
            _code(["x[0] = 1.0\n", "print(x)"], tags=["fix-me"]),
            _code("y = 2  # a string source, unchanged"),
        ]
    )
    raw = json.dumps(data, indent=2, ensure_ascii=False)  # two spaces, no final newline
    path = tmp_path / "book.ipynb"
    path.write_text(raw, encoding="utf-8")

    run = jax_lsp("check", "--fix", "book.ipynb", cwd=tmp_path)

    assert run.code == 0, run.stdout + run.stderr
    written = path.read_text(encoding="utf-8")
    data["cells"][3]["source"] = ["x = x.at[0].set(1.0)\n", "print(x)"]
    assert written == json.dumps(data, indent=2, ensure_ascii=False)
    changed = [a for a, b in zip(raw.split("\n"), written.split("\n"), strict=True) if a != b]
    assert changed == ['        "x[0] = 1.0\\n",']


def test_a_notebook_keeps_one_space_indent_ascii_escapes_and_final_newline(tmp_path: Path):
    data = _notebook([_code("# café\nimport jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1.0\n")])
    raw = json.dumps(data, indent=1) + "\n"  # é written as \u00e9
    path = tmp_path / "ascii.ipynb"
    path.write_text(raw)

    assert jax_lsp("check", "--fix", "ascii.ipynb", cwd=tmp_path).code == 0

    data["cells"][0]["source"] = data["cells"][0]["source"].replace(
        "x[0] = 1.0", "x = x.at[0].set(1.0)"
    )
    assert path.read_text() == json.dumps(data, indent=1) + "\n"
