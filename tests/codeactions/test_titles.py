"""Fix titles are one line, whoever builds them: the code they quote loses its comments and line
breaks, and a long expression is shortened with an ellipsis (as ruff's titles quote code). The
edits still write the code as the user wrote it."""

from __future__ import annotations

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.engine import analyze
from jax_lsp.findings import Fix
from jax_lsp.snippets import SNIPPET_WIDTH, one_line_code, one_line_title

CODE = [
    ("foo(\n    a,  # c\n)", "foo(a)"),  # a call's last comma is layout
    ("x = x.at[min(\n    idx,  # the first\n    2,\n)].set(1.0)", "x = x.at[min(idx, 2)].set(1.0)"),
    ("x = (\n    a,\n)", "x = (a,)"),  # a tuple of one keeps its comma
    ("x[a,\n]", "x[a,]"),  # so does a tuple index
    ("[\n    1,\n    2,\n]", "[1, 2]"),
    ('s = "# kept"  # dropped', 's = "# kept"'),  # a `#` in a string is no comment
    ('print(f"""a\n    {x}""", x)', 'print(f"""...""", x)'),  # a string spanning lines
    ("total = a + \\\n    b", "total = a + b"),
    ("x[1] = 2.0", "x[1] = 2.0"),  # one line, short: as it is
    (
        "x = x.at[jnp.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])].set(2.0)",
        "x = x.at[jnp.array([...])].set(2.0)",  # the smallest bracket whose loss is enough
    ),
    (
        "jnp.where(jnp.logical_and(x > 0, y > 0), jnp.sqrt(x * y), 0.0).sum(axis=0)",
        "jnp.where(...).sum(axis=0)",
    ),
    (
        "first_long_name_of_a_sum + second_long_name + third_long_name",
        "first_long_name_of_a_sum + second_long_name + ...",
    ),
]


@pytest.mark.parametrize(("code", "shown"), CODE)
def test_code_is_shown_on_one_line_short(code: str, shown: str):
    assert one_line_code(code) == shown
    assert len(shown) <= SNIPPET_WIDTH and "\n" not in shown
    assert one_line_code(shown) == shown  # a title made again is the same


def test_a_title_is_one_line_when_built():
    fix = Fix("Replace `foo(\n    a,  # c\n)` with\n`bar(a)`", ())
    assert fix.title == "Replace `foo(a)` with `bar(a)`"
    assert one_line_title("Make `n` static (`static_argnames`)") == (
        "Make `n` static (`static_argnames`)"
    )


MULTI_LINE_UPDATE = """\
import jax.numpy as jnp

x = jnp.zeros(3)
idx = 1
x[min(
    idx,  # the first
    2,
)] = 1.0
"""


def test_a_fix_quoting_code_over_lines_has_a_one_line_title_and_keeps_the_code():
    (finding,) = analyze(Document(MULTI_LINE_UPDATE)).findings
    assert finding.fix is not None
    assert finding.fix.title == "Replace with `x = x.at[min(idx, 2)].set(1.0)`"
    fixed = apply_edits(MULTI_LINE_UPDATE, finding.fix.edits)
    assert "x = x.at[min(\n    idx,  # the first\n    2,\n)].set(1.0)" in fixed
