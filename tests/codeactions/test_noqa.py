"""One reading of `# noqa`: what the silencing fix writes is what the engine honours, on the
same lines."""

from __future__ import annotations

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.codeactions.noqa import noqa_codes, noqa_edit
from jax_lsp.engine import analyze

# (line, the code to silence, the line after the fix)
LINES = {
    "no comment": ("x[1] = 2.0", "JAX201", "x[1] = 2.0  # noqa: JAX201"),
    "trailing spaces": ("x[1] = 2.0   ", "JAX201", "x[1] = 2.0  # noqa: JAX201"),
    "another code": ("x[1] = 2.0  # noqa: JAX999", "JAX201", "x[1] = 2.0  # noqa: JAX999, JAX201"),
    "codes, then prose": (
        "x[1] = 2.0  # NOQA:JAX999,JAX998 why",
        "JAX201",
        "x[1] = 2.0  # NOQA:JAX999,JAX998, JAX201 why",
    ),
    "a comment first": (
        "x[1] = 2.0  # setter # noqa: JAX999",
        "JAX201",
        "x[1] = 2.0  # setter # noqa: JAX999, JAX201",
    ),
    "silenced already": ("x[1] = 2.0  # noqa: jax201", "JAX201", "x[1] = 2.0  # noqa: jax201"),
    "a bare noqa stays bare": ("x[1] = 2.0  # noqa", "JAX201", "x[1] = 2.0  # noqa"),
    "noqa in prose is no directive": (
        "x[1] = 2.0  # see noqa docs",
        "JAX201",
        "x[1] = 2.0  # see noqa docs  # noqa: JAX201",
    ),
}


@pytest.mark.parametrize(("line", "code", "expected"), LINES.values(), ids=LINES.keys())
def test_the_fix_writes_what_the_parser_reads(line: str, code: str, expected: str):
    assert apply_edits(line, [noqa_edit(line, 0, code)]) == expected
    codes = noqa_codes(expected)
    assert codes is not None and (not codes or code in codes)


@pytest.mark.parametrize(("line", "code", "expected"), LINES.values(), ids=LINES.keys())
def test_the_engine_silences_the_finding_the_fix_silenced(line: str, code: str, expected: str):
    header = "import jax.numpy as jnp\nx = jnp.arange(5.0)\n"
    findings = analyze(Document(header + line + "\n")).findings
    silenced_before = noqa_codes(line)
    if silenced_before is None or (silenced_before and code.upper() not in silenced_before):
        assert [f.code for f in findings] == [code]
    assert analyze(Document(header + expected + "\n")).findings == []


def test_codes_are_read_case_insensitively_and_bare_noqa_silences_all():
    assert noqa_codes("x  # noqa: jax201 , JAX202") == frozenset({"JAX201", "JAX202"})
    assert noqa_codes("x  # noqa") == frozenset()
    assert noqa_codes("x  # nothing to see") is None
