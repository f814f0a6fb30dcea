"""Limits: a 60,000-line file, nesting past Python's parser and recursion limits, NUL bytes and
text that is not valid Unicode. The server stays alive and reports what it can read; the CLI
gives one clean line for a file it cannot analyze and checks the rest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.rawclient import ROOT, hover_params

GOTCHA = "import jax.numpy as jnp\n\nx = jnp.arange(5.0)\nx[1] += 5.0\n"
TAIL = "\nz = jnp.zeros(3)\nz[0] = 1.0\n"  # JAX201 after whatever comes before it
BOUND = 120.0  # generous (shared CI cores): a hang or a quadratic blow-up, not a perf figure

# A big generated module: functions (a jitted one now and then), comments and data tables.
PLAIN = '''
def helper_{i}(values, scale=2):
    """Scale {i}."""
    # accumulate in Python: no JAX here
    total = 0
    for value in values:
        total += value * scale
    return total

'''
JITTED = """
@jax.jit
def step_{i}(x):
    y = jnp.sin(x) * 2.0
    return y.at[0].set(1.0)

"""
TABLE = (
    "TABLE_{i} = [\n"
    + "".join(f"    ({k}, 'name {k}', {k}.5),  # row\n" for k in range(40))
    + "]\n"
)


def big_module(lines: int) -> str:
    blocks, count = [], 0
    while count < lines:
        kind = len(blocks) % 20
        block = (JITTED if kind == 0 else PLAIN if kind % 2 else TABLE).format(i=len(blocks))
        blocks.append(block)
        count += block.count("\n")
    return "import jax\nimport jax.numpy as jnp\n" + "".join(blocks)


DEEP = {
    "parentheses": "y = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
    "brackets": "y = " + "[" * 3000 + "]" * 3000 + "\n",
    "additions": "y = 1" + " + 1" * 1500 + "\n",  # parses, deeper than the recursion limit
    "attributes": "y = a" + ".b" * 3000 + "\n",
    "calls": "y = f" + "()" * 3000 + "\n",
    "unary": "y = " + "-" * 20000 + "1\n",
    "lambdas": "y = " + "lambda: " * 3000 + "0\n",
    "indentation": "".join("    " * d + f"if c{d}:\n" for d in range(120))
    + "    " * 120
    + "pass\n",
}


def codes(diagnostics: list[dict]) -> list[str]:
    return sorted(d["code"] for d in diagnostics)


def test_sixty_thousand_lines_answer_in_bounded_time(server, tmp_path):
    text = big_module(60_000) + "x = jnp.zeros(3)\nx[0] = 1.0\n"
    lines = text.count("\n")
    assert lines >= 60_000
    uri = server.open(tmp_path / "big.py", text)
    assert codes(server.diagnostics(uri, timeout=BOUND)) == ["JAX201"]
    # An edit at the end, then requests: answered within the bound too.
    end = {"line": lines, "character": 0}
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": end, "end": end}, "text": "x[1] += 2.0\n"}],
        },
    )
    assert codes(server.diagnostics(uri, timeout=BOUND)) == ["JAX201", "JAX202"]
    hovered = server.request("textDocument/hover", hover_params(uri, lines - 1, 0), BOUND)
    assert hovered["result"] is not None


@pytest.mark.parametrize("name", list(DEEP))
def test_deep_nesting_clean_and_alive(server, tmp_path, name):
    uri = server.open(tmp_path / f"{name}.py", GOTCHA + DEEP[name] + TAIL)
    # The findings outside the unparseable statement still arrive, beside its syntax error.
    assert codes(server.diagnostics(uri)) == ["JAX201", "JAX202", "invalid-syntax"]
    assert server.alive()


def test_nul_bytes_and_invalid_unicode_in_the_editor(server, tmp_path):
    """The server gets text, not bytes: NUL characters and lone surrogates (JSON `\\udc80`)."""
    for name, broken in (("nul", "s = 'a\x00b'\n"), ("surrogate", "s = '\udc80'\n")):
        uri = server.open(tmp_path / f"{name}.py", GOTCHA + broken + TAIL)
        found = server.diagnostics(uri)
        # Python refuses the line (as `check` reports it); the others are still checked.
        assert codes(found) == ["JAX201", "JAX202", "invalid-syntax"], name
        hovered = server.request(
            "textDocument/hover", hover_params(uri, 4, 6)
        )  # on the broken line
        assert "result" in hovered
    assert server.alive()


def test_cli_one_clean_line_per_file_it_cannot_analyze(tmp_path):
    (tmp_path / "gotcha.py").write_text(GOTCHA)
    for name, text in DEEP.items():
        (tmp_path / f"deep_{name}.py").write_text(GOTCHA + text + TAIL)
    (tmp_path / "nul.py").write_bytes(GOTCHA.encode() + b"s = 1\x00\n")
    (tmp_path / "latin.py").write_bytes(b"s = '\xff\xfe'\n")
    done = subprocess.run(
        [sys.executable, "-m", "jax_lsp", "check", "--jobs", "1", "."],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr
    errors = done.stderr.splitlines()
    for name in ("nul.py", "latin.py"):
        assert len([line for line in errors if name in line]) == 1, errors
    for name in DEEP:
        # One line for the statement it cannot analyze; the rest of the file is checked.
        assert len([line for line in errors if f"deep_{name}.py" in line]) <= 1, errors
        assert f"deep_{name}.py:4:1: error: JAX202" in done.stdout
    assert "gotcha.py:4:1: error: JAX202" in done.stdout
    assert done.returncode == 1


def test_path_and_uri_oddities(server, tmp_path):
    """Non-file URIs, spaces and non-ASCII in paths, a directory, a missing file."""
    odd = tmp_path / "dir with space" / "日本 😀.py"
    odd.parent.mkdir()
    for uri in (
        server.open(odd, GOTCHA),
        server.open(Path(tmp_path), GOTCHA),
        server.open(tmp_path / "missing" / "gone.py", GOTCHA),
    ):
        assert codes(server.diagnostics(uri)) == ["JAX202"]
    item = {"uri": "untitled:Untitled-1", "languageId": "python", "version": 1, "text": GOTCHA}
    server.notify("textDocument/didOpen", {"textDocument": item})
    assert codes(server.diagnostics("untitled:Untitled-1")) == ["JAX202"]
