"""A notebook's findings as its cells report them: fixes within the cell move with it, a fix
that edits another cell becomes each changed cell's new text (as `check --fix` splits the
notebook), a fix that would break the cells apart is not offered, and a related place in
another cell names that cell."""

from __future__ import annotations

from jax_lsp.findings import Edit, Finding, Fix, Related, Severity, Span
from jax_lsp.lsp.notebook_cells import CellFix, combine, findings_by_cell

CELLS = [("a", 1, "import jax"), ("b", 3, "x = jax.numpy.zeros(3)\nx[0] = 1.0")]


def _finding(*fixes: Fix, related: tuple[Related, ...] = ()) -> Finding:
    # `x[0] = 1.0`: line 3 of the module (cell "a", the marker line, then cell "b").
    return Finding(
        "JAX201", "m", Span.of(3, 0, 3, 4), Severity.ERROR, fixes[0], fixes[1:], related=related
    )


def test_cells_sit_between_marker_lines():
    text, slices = combine(CELLS)
    assert text == "import jax\n# jax-lsp: cell boundary\nx = jax.numpy.zeros(3)\nx[0] = 1.0\n"
    assert [(s.uri, s.start_line, s.line_count) for s in slices] == [("a", 0, 1), ("b", 2, 2)]


def test_fixes_within_and_across_cells():
    _, slices = combine(CELLS)
    local = Fix("at", (Edit(Span.of(3, 0, 3, 10), "x = x.at[0].set(1.0)"),))
    # An import added after the first cell's imports: at the start of the marker line.
    across = Fix(
        "import",
        (
            Edit(Span.of(1, 0, 1, 0), "import numpy as np\n", document_anchored=True),
            Edit(Span.of(3, 0, 3, 1), "np"),
        ),
    )
    broken = Fix("joins cells", (Edit(Span.of(0, 10, 2, 0), " "),))  # eats the marker line
    (found,) = findings_by_cell([_finding(local, across, broken)], slices, {"a": 1, "b": 3})["b"]
    assert found.finding.span == Span.of(1, 0, 1, 4)
    assert found.finding.fix == Fix("at", (Edit(Span.of(1, 0, 1, 10), "x = x.at[0].set(1.0)"),))
    assert found.finding.alternatives == ()
    assert found.fixes[1] == CellFix(
        "import",
        True,
        (("a", "import jax\nimport numpy as np"), ("b", "x = jax.numpy.zeros(3)\nnp[0] = 1.0")),
    )
    assert len(found.fixes) == 2  # the fix that joins two cells is not offered


def test_a_related_place_in_another_cell_names_it():
    _, slices = combine(CELLS)
    fix = Fix("at", (Edit(Span.of(3, 0, 3, 10), "x = x.at[0].set(1.0)"),))
    related = (Related(Span.of(0, 0, 0, 6), "there"), Related(Span.of(2, 0, 2, 1), "here"))
    (found,) = findings_by_cell([_finding(fix, related=related)], slices, {"a": 1, "b": 3})["b"]
    assert found.finding.related == (Related(Span.of(0, 0, 0, 1), "here"),)
    assert [(p.uri, p.number, p.related) for p in found.elsewhere] == [
        ("a", 1, Related(Span.of(0, 0, 0, 6), "there"))
    ]
