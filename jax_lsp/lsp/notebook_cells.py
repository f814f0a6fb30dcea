"""An editor's notebook cells (LSP notebook sync): the code cells, in order, analyzed as one
module (earlier cells' imports and definitions count); findings and traced functions go back to
the cell and line they fall in, and fix-all runs on the whole notebook and is handed back cell
by cell. (The .ipynb file format, which `check` reads, is `jax_lsp.ipynb`.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from jax_lsp.analysis.text import split_lines
from jax_lsp.engine import TracedFunction, shift_finding
from jax_lsp.findings import Finding, Fix, Position, Span
from jax_lsp.ipynb import Notebook
from jax_lsp.ipython import blank_ipython


@dataclass(frozen=True)
class CellSlice:
    uri: str
    version: int | None
    start_line: int  # the cell's first line in the combined module
    line_count: int


def combine(cells: list[tuple[str, int | None, str]]) -> tuple[str, list[CellSlice]]:
    """(uri, version, text) of each code cell -> the module text and where each cell sits."""
    parts: list[str] = []
    slices: list[CellSlice] = []
    line = 0
    for uri, version, text in cells:
        lines = split_lines(text)
        if lines[-1] == "":  # the text ended with a newline
            lines.pop()
        slices.append(CellSlice(uri, version, line, max(len(lines), 1)))
        parts.extend(blank_ipython(lines) or [""])  # IPython syntax: as the CLI reads it
        line += max(len(lines), 1)
    return "\n".join(parts) + "\n", slices


def _within_cell(finding: Finding, line_count: int) -> Finding:
    """Without the fixes that edit elsewhere in the module (an added import: another cell), and
    without the related places in other cells."""

    def local(fix: Fix | None) -> bool:
        return fix is not None and not any(edit.document_anchored for edit in fix.edits)

    return replace(
        finding,
        fix=finding.fix if local(finding.fix) else None,
        alternatives=tuple(fix for fix in finding.alternatives if local(fix)),
        deferred=(),  # codemods need the module; a cell's text alone is not it
        related=tuple(
            r for r in finding.related if r.span.start.line >= 0 and r.span.end.line < line_count
        ),
    )


def findings_by_cell(findings: list[Finding], slices: list[CellSlice]) -> dict[str, list[Finding]]:
    """Each finding moved into the coordinates of the cell it starts in."""
    by_cell: dict[str, list[Finding]] = {cell.uri: [] for cell in slices}
    for finding in findings:
        for cell in slices:
            if cell.start_line <= finding.line < cell.start_line + cell.line_count:
                moved = shift_finding(finding, -cell.start_line)
                by_cell[cell.uri].append(_within_cell(moved, cell.line_count))
                break
    return by_cell


def _moved(position: Position, lines: int) -> Position:
    return Position(position.line + lines, position.column)


def traced_in_cell(functions: list[TracedFunction], cell: CellSlice) -> list[TracedFunction]:
    """The traced functions defined in `cell`, in the cell's coordinates."""
    shift = -cell.start_line
    return [
        replace(
            function,
            name_span=Span(
                _moved(function.name_span.start, shift), _moved(function.name_span.end, shift)
            ),
            params=tuple(replace(p, end=_moved(p.end, shift)) for p in function.params),
        )
        for function in functions
        if cell.start_line <= function.name_span.start.line < cell.start_line + cell.line_count
    ]


def fix_cells(cells: list[str], fix: Callable[[str], str]) -> list[str]:
    """Each code cell's text after `fix` ran on the notebook as one module, joined and split
    back as `jax-lsp check --fix` does for an .ipynb file (an added import lands in the first
    cell)."""
    raw = json.dumps({"cells": [{"cell_type": "code", "source": text} for text in cells]})
    notebook = Notebook.parse(raw)
    fixed = fix(notebook.text)
    if fixed == notebook.text:
        return cells
    fixed_cells = json.loads(notebook.with_text(fixed))["cells"]
    texts = []
    for original, cell in zip(cells, fixed_cells, strict=True):
        text = "".join(cell["source"])
        texts.append(text + "\n" if original.endswith("\n") and not text.endswith("\n") else text)
    return texts
