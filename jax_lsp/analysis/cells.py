"""A notebook's cells in the module the faces join them into (`jax_lsp.ipynb`: the code cells in
order, `CELL_MARKER` on a line between two): which top-level statements end a cell as an
expression, whose value IPython displays (its default `last_expr`) rather than discarding it."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jax_lsp.analysis.document import Document

# The line between two cells of a notebook joined into one module.
CELL_MARKER = "# jax-lsp: cell boundary"


def displayed_lines(document: Document) -> frozenset[int]:
    """The document lines where a cell's displayed last expression starts: the last top-level
    statement of a cell, when it is an expression statement and the cell does not end with
    `;` (which tells IPython to show nothing). Empty for a document of no cells."""
    if CELL_MARKER not in document.text:  # no notebook: no pass over its lines
        return frozenset()
    lines = document.lines
    boundaries = [line for line, text in enumerate(lines) if text == CELL_MARKER]
    if not boundaries:
        return frozenset()
    boundaries.append(len(lines))
    # cell -> (unit start, its last statement; None: a unit that does not parse)
    last_of_cell: dict[int, tuple[int, ast.stmt | None]] = {}
    cell = 0
    for unit in document.units:
        tree = unit.tree
        for statement in tree.body if tree is not None else (None,):
            start = unit.start_line + (statement.lineno - 1 if statement is not None else 0)
            while start > boundaries[cell]:
                cell += 1
            last_of_cell[cell] = (unit.start_line, statement)
    found = set()
    for start_line, statement in last_of_cell.values():
        if not isinstance(statement, ast.Expr):
            continue
        end_line = start_line + statement.end_lineno - 1
        after = lines[end_line].encode()[statement.end_col_offset :].decode().lstrip()
        if not after.startswith(";"):
            found.add(start_line + statement.lineno - 1)
    return frozenset(found)
