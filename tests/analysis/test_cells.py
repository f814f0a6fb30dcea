"""A notebook's joined cells (`jax_lsp.ipynb`): the statements that end a cell as an
expression, which IPython displays (`analysis.cells`)."""

from __future__ import annotations

from jax_lsp.analysis.cells import displayed_lines
from jax_lsp.analysis.document import Document
from jax_lsp.ipynb import Notebook


def _displayed(*cells: str) -> list[str]:
    text = Notebook.of_sources(list(cells)).text
    lines = text.split("\n")
    return [lines[line] for line in sorted(displayed_lines(Document(text, "nb.ipynb")))]


def test_a_cells_last_expression_statement_is_displayed():
    assert _displayed("x = 1\nx", "x + 1\ny = 2", "print(x)\n# a comment\n") == ["x", "print(x)"]


def test_a_semicolon_hides_the_value():
    assert _displayed("x = 1\nx;", "x  ;  # nothing shown", "x") == ["x"]


def test_only_the_top_level_last_statement_counts():
    assert _displayed("for i in range(2):\n    i", "if True:\n    1\n2") == ["2"]


def test_a_cell_ending_in_a_statement_that_does_not_parse_displays_nothing():
    assert _displayed("x = 1\nx\ny = (", "x") == ["x"]


def test_a_module_of_no_cells_displays_nothing():
    assert displayed_lines(Document("x = 1\nx\n", "a.py")) == frozenset()


def test_a_statement_added_after_a_cells_last_expression_makes_it_discarded_on_reuse():
    """The server analyses each version on the last one's parse, reusing a unit's findings
    while what its rules read answers the same: `w.at[0].set(5.0)` keeps its text, but once a
    line follows it in its cell its result is discarded."""
    from jax_lsp.config import Settings
    from jax_lsp.engine import check_source

    def lines(cells: list[str], previous=None):
        text = Notebook.of_sources(cells).text
        analysis = check_source(text, "nb.ipynb", Settings(), previous=previous)
        return [(f.code, f.span.start.line) for f in analysis.findings], analysis.document

    shown = ["import jax.numpy as jnp\nw = jnp.zeros(3)", "w.at[0].set(5.0)", "w"]
    found, document = lines(shown)
    assert found == []
    found, document = lines([shown[0], "w.at[0].set(5.0)\nprint(w)", "w"], document)
    assert found == [("JAX203", 3)]
    found, document = lines(shown, document)
    assert found == []
