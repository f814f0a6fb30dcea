"""Unit splitting ignores column-0 lines inside triple-quoted strings."""

from __future__ import annotations

import ast

from jax_lsp.analysis.document import Document

DOCSTRING_AT_COLUMN_0 = "\n".join(
    [
        '"""Module docstring.',
        "",
        "x = y[0]",
        "def looks_like_code():",
        *[f"* list item {n} (more column-0 lines than the unit merger's reach)" for n in range(12)],
        '"""',
        'import jax.numpy as jnp  # a "quote" in a comment',
        "",
        "",
        "def f(x):",
        "    s = \"'''\"  # a triple quote inside a one-line string",
        "    return jnp.sum(x)",
        "",
    ]
)


def test_docstring_lines_at_column_0_do_not_split_units() -> None:
    document = Document(DOCSTRING_AT_COLUMN_0)
    assert document.problems == []
    statements = sum(len(unit.tree.body) for unit in document.units if unit.tree is not None)
    assert statements == len(ast.parse(DOCSTRING_AT_COLUMN_0).body) == 3


def test_unclosed_triple_quote_still_recovers_the_rest() -> None:
    document = Document('x = 1\ns = """\ndef g():\n    return 2\n')
    assert document.problems  # reported, and the file is still split into units
    assert len(document.units) >= 2
