"""One reading of `# noqa`: what the silencing fix writes is what the engine honours, on the
same lines."""

from __future__ import annotations

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.codeactions.noqa import noqa_codes, noqa_edit, noqa_line
from jax_lsp.engine import analyze

# (a line with a JAX201 finding, the line after the fix that silences JAX201)
LINES = [
    ("x[1] = 2.0", "x[1] = 2.0  # noqa: JAX201"),
    ("x[1] = 2.0   ", "x[1] = 2.0  # noqa: JAX201"),  # trailing spaces dropped
    ("x[1] = 2.0  # noqa: JAX999", "x[1] = 2.0  # noqa: JAX999, JAX201"),
    ("x[1] = 2.0  # NOQA:JAX9,JAX8 why", "x[1] = 2.0  # NOQA:JAX9,JAX8, JAX201 why"),
    ("x[1] = 2.0  # set # noqa: JAX999", "x[1] = 2.0  # set # noqa: JAX999, JAX201"),
    ("x[1] = 2.0  # noqa: jax201", "x[1] = 2.0  # noqa: jax201"),  # silenced already
    ("x[1] = 2.0  # noqa", "x[1] = 2.0  # noqa"),  # a bare noqa is not narrowed
    ("x[1] = 2.0  # see noqa docs", "x[1] = 2.0  # see noqa docs  # noqa: JAX201"),  # prose
]
CODE = "JAX201"


@pytest.mark.parametrize(("line", "expected"), LINES)
def test_the_fix_writes_what_the_parser_reads(line: str, expected: str):
    assert apply_edits(line, [noqa_edit(line, 0, CODE)]) == expected
    codes = noqa_codes(expected)
    assert codes is not None and (not codes or CODE in codes)


@pytest.mark.parametrize(("line", "expected"), LINES)
def test_the_engine_silences_the_finding_the_fix_silenced(line: str, expected: str):
    header = "import jax.numpy as jnp\nx = jnp.arange(5.0)\n"
    findings = analyze(Document(header + line + "\n")).findings
    silenced_before = noqa_codes(line)
    if silenced_before is None or (silenced_before and CODE not in silenced_before):
        assert [f.code for f in findings] == [CODE]
    assert analyze(Document(header + expected + "\n")).findings == []


def test_codes_are_read_case_insensitively_and_bare_noqa_silences_all():
    assert noqa_codes("x  # noqa: jax201 , JAX202") == frozenset({"JAX201", "JAX202"})
    assert noqa_codes("x  # noqa") == frozenset()
    assert noqa_codes("x  # nothing to see") is None


# A finding whose line ends inside a triple-quoted string, or with a backslash: no comment
# can go there; the noqa goes where the string or the continuation ends, and is honoured there.
MULTILINE = [
    (
        'import jax\n\n@jax.jit\ndef step(x):\n    print("""step\n    value""", x)\n    return x\n',
        "JAX101",
        5,
    ),
    (
        'import jax\n\n@jax.jit\ndef step(x):\n    print("a", \\\n          x)\n    return x\n',
        "JAX101",
        5,
    ),
    (  # on a line inside the string (a field of an f-string): a comment there is its text
        'import jax\n\n@jax.jit\ndef step(x):\n    s = f"""a {\n        x.item()\n    } b"""\n'
        "    return x\n",
        "JAX703",
        6,
    ),
]


@pytest.mark.parametrize(("text", "code", "noqa_row"), MULTILINE)
def test_a_noqa_goes_where_the_string_or_continuation_ends(text: str, code: str, noqa_row: int):
    (finding,) = analyze(Document(text)).findings
    lines = text.split("\n")
    row = noqa_line(lines, finding.span.start.line)
    assert row == noqa_row
    silenced = apply_edits(text, [noqa_edit(lines[row], row, code)])
    compile(silenced, "<silenced>", "exec")  # the comment is outside the string
    assert f"# noqa: {code}" in silenced.split("\n")[noqa_row]
    # The string's text is unchanged, and the engine honours the comment where it is.
    assert analyze(Document(silenced)).findings == []
    assert silenced.replace(f"  # noqa: {code}", "") == text
    # Scanned within the finding's unit only (as the engine does), the line is the same.
    document = Document(text)
    start = finding.span.start.line
    assert noqa_line(lines, start, document.unit_lines(start)) == noqa_row
