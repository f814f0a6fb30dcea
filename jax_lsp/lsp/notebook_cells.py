"""An editor's notebook cells (LSP notebook sync): the code cells, in order, analyzed as one
module (earlier cells' imports and definitions count), joined as `check` joins an .ipynb's cells
(`jax_lsp.ipynb`: a marker line between cells), so both read, and fix, the same text. Findings
and traced functions go back to the cell and line they fall in; a fix that edits another cell
too (an added import lands in the notebook's import cell, as `check --fix` puts it) is handed
back as the new text of each cell it changes, as fix-all is."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from jax_lsp.codeactions import build_deferred
from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.engine import TracedFunction
from jax_lsp.findings import DeferredFix, Edit, Finding, Fix, Position, Related, Span
from jax_lsp.ipynb import Notebook, NotebookError


@dataclass(frozen=True)
class CellSlice:
    uri: str
    version: int | None
    start_line: int  # the cell's first line in the combined module
    line_count: int
    text: str  # the cell's text as the editor has it

    def holds(self, span: Span) -> bool:
        return (
            self.start_line <= span.start.line and span.end.line < self.start_line + self.line_count
        )


def combine(cells: list[tuple[str, int | None, str]]) -> tuple[str, list[CellSlice]]:
    """(uri, version, text) of each code cell -> the module text and where each cell sits."""
    notebook = Notebook.of_sources([text for _, _, text in cells])
    ends = [first - 1 for first in notebook.first_lines[1:]]  # each next cell's marker line
    ends.append(notebook.text.count("\n"))
    slices = [
        CellSlice(uri, version, first, end - first, text)
        for (uri, version, text), first, end in zip(cells, notebook.first_lines, ends, strict=True)
    ]
    return notebook.text, slices


@dataclass(frozen=True)
class CellFix:
    """A fix that edits other cells too: the new text of each cell it changes."""

    title: str
    is_safe: bool
    texts: tuple[tuple[str, str], ...]  # (cell uri, new text)


@dataclass(frozen=True)
class CellRelated:
    """A related place in another cell, in that cell's coordinates."""

    uri: str
    number: int  # the cell's 1-based place among all the notebook's cells (VS Code's "Cell 3")
    related: Related


@dataclass(frozen=True)
class CellFinding:
    """A finding in its cell's coordinates with the fixes and related places within the cell;
    every fix in the order offered (a `CellFix` for one that edits other cells too); the
    related places in other cells."""

    finding: Finding
    fixes: tuple[Fix | CellFix, ...]
    elsewhere: tuple[CellRelated, ...]


def _split(notebook: Notebook, slices: list[CellSlice], fixed: str) -> list[str]:
    """Each cell's text once the notebook's module text is `fixed` (`check --fix`'s split)."""
    fixed_cells = json.loads(notebook.with_text(fixed))["cells"]
    texts = []
    for cell, fixed_cell in zip(slices, fixed_cells, strict=True):
        text = "".join(fixed_cell["source"])
        ended = cell.text.endswith("\n") and not text.endswith("\n")
        texts.append(text + "\n" if ended else text)
    return texts


def _cell_fix(fix: Fix, notebook: Notebook, slices: list[CellSlice]) -> CellFix | None:
    """`fix` (module coordinates) applied to the notebook and split back into its cells;
    None when it does not split back."""
    try:
        texts = _split(notebook, slices, apply_edits(notebook.text, fix.edits))
    except NotebookError:
        return None
    changed = tuple(
        (cell.uri, text) for cell, text in zip(slices, texts, strict=True) if text != cell.text
    )
    return CellFix(fix.title, fix.is_safe, changed) if changed else None


def _in_cell(
    finding: Finding,
    cell: CellSlice,
    notebook: Notebook,
    slices: list[CellSlice],
    numbers: Mapping[str, int],
) -> CellFinding:
    """`finding` (module coordinates) as `cell` reports it."""
    shift = -cell.start_line
    offered: list[Fix | CellFix] = []
    for fix in (finding.fix, *finding.alternatives):
        if fix is None:
            continue
        if all(cell.holds(edit.span) for edit in fix.edits):
            edits = tuple(Edit(_moved_span(e.span, shift), e.content) for e in fix.edits)
            offered.append(replace(fix, edits=edits))
        elif (split := _cell_fix(fix, notebook, slices)) is not None:
            offered.append(split)
    own = [fix for fix in offered if isinstance(fix, Fix)]
    elsewhere = tuple(
        CellRelated(
            other.uri,
            numbers.get(other.uri, 0),
            Related(_moved_span(item.span, -other.start_line), item.message),
        )
        for item in finding.related
        if item.path is None and not cell.holds(item.span)
        for other in slices
        if other.holds(item.span)
    )
    within = replace(
        finding,
        span=_moved_span(finding.span, shift),
        fix=own[0] if own else None,
        alternatives=tuple(own[1:]),
        # In the cell's coordinates: built on the notebook's module when asked (`built_fixes`).
        deferred=tuple(replace(d, anchor=_moved(d.anchor, shift)) for d in finding.deferred),
        related=tuple(
            item if item.path is not None else Related(_moved_span(item.span, shift), item.message)
            for item in finding.related
            if item.path is not None or cell.holds(item.span)
        ),
    )
    return CellFinding(within, tuple(offered), elsewhere)


def built_fixes(
    deferred: list[DeferredFix], cell_uri: str, cells: list[tuple[str, int | None, str]]
) -> list[CellFix]:
    """The codemods deferred by a finding in the cell `cell_uri` (anchors in its coordinates),
    built on the notebook's module (`cells`: each code cell's uri, version and text) and split
    back into the cells they change."""
    text, slices = combine(cells)
    start = next((cell.start_line for cell in slices if cell.uri == cell_uri), None)
    if start is None:
        return []
    notebook = Notebook.of_sources([cell.text for cell in slices])
    found = []
    for item in deferred:
        moved = replace(item, anchor=_moved(item.anchor, start))
        for fix in build_deferred(moved, text):
            if (split := _cell_fix(fix, notebook, slices)) is not None:
                found.append(split)
    return found


def findings_by_cell(
    findings: list[Finding], slices: list[CellSlice], numbers: Mapping[str, int]
) -> dict[str, list[CellFinding]]:
    """Each finding moved into the coordinates of the cell it starts in (`numbers`: each
    cell's place in the notebook, markdown cells counted, to name a cell)."""
    notebook = Notebook.of_sources([cell.text for cell in slices])
    by_cell: dict[str, list[CellFinding]] = {cell.uri: [] for cell in slices}
    for finding in findings:
        for cell in slices:
            if cell.start_line <= finding.line < cell.start_line + cell.line_count:
                by_cell[cell.uri].append(_in_cell(finding, cell, notebook, slices, numbers))
                break
    return by_cell


def _moved_span(span: Span, lines: int) -> Span:
    return Span(_moved(span.start, lines), _moved(span.end, lines))


def _moved(position: Position, lines: int) -> Position:
    return Position(position.line + lines, position.column)


def traced_in_cell(functions: list[TracedFunction], cell: CellSlice) -> list[TracedFunction]:
    """The traced functions defined in `cell`, in the cell's coordinates."""
    shift = -cell.start_line
    return [
        replace(
            function,
            name_span=_moved_span(function.name_span, shift),
            params=tuple(replace(p, end=_moved(p.end, shift)) for p in function.params),
        )
        for function in functions
        if cell.start_line <= function.name_span.start.line < cell.start_line + cell.line_count
    ]


def fix_cells(cells: list[str], fix: Callable[[str], str]) -> list[str]:
    """Each code cell's text after `fix` ran on the notebook as one module, joined and split
    back as `jax-lsp check --fix` does for an .ipynb file (an added import lands in the cell
    that holds the notebook's imports)."""
    notebook = Notebook.of_sources(cells)
    fixed = fix(notebook.text)
    if fixed == notebook.text:
        return cells
    slices = [CellSlice("", None, 0, 0, text) for text in cells]
    return _split(notebook, slices, fixed)
