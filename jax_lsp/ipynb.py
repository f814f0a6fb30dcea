"""Jupyter notebook files (.ipynb) as one module, for `check`: code cells joined in order, and
positions mapped back. (The server's notebooks arrive as cells: `jax_lsp.lsp.notebook_cells`.)

Cells are joined with a marker comment line between them, so a fixed text splits back into the
same cells, and an edit inserted at a cell's start (an import) stays in the cell before it.
IPython's syntax is blanked (`jax_lsp.ipython`): it is not Python, and blanking keeps lines.

A fixed notebook is written back as it was: only the changed cells' sources change, and the JSON
keeps its indentation, key order, escaping and final newline.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from jax_lsp.analysis.cells import CELL_MARKER
from jax_lsp.findings import Edit, Position, Span
from jax_lsp.ipython import blank_ipython

_LINES = re.compile(r"[^\n]*\n|[^\n]+")  # as Jupyter stores a source: lines with their \n
_INDENT = re.compile(r"\{\s*?\n([ \t]+)\"")


class NotebookError(ValueError):
    """Not a notebook we can read, or a fix we cannot put back into its cells."""


def _cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _blanked(source: str) -> str:
    return "\n".join(blank_ipython(source.split("\n")))


@dataclass(frozen=True)
class _Layout:
    """How the notebook's JSON was written, to write it again the same way."""

    indent: int | str | None
    ensure_ascii: bool
    final_newline: bool

    @classmethod
    def of(cls, raw: str) -> _Layout:
        match = _INDENT.search(raw)
        indent: int | str | None = None
        if match:
            spaces = match.group(1)
            indent = len(spaces) if set(spaces) == {" "} else spaces
        # json escapes non-ASCII text as \uXXXX when told to: an all-ASCII file that has such
        # escapes was written that way.
        ensure_ascii = raw.isascii() and "\\u" in raw
        return cls(indent, ensure_ascii, raw.endswith("\n"))

    def dump(self, data: dict) -> str:
        separators = (",", ": ") if self.indent is not None else None
        text = json.dumps(
            data, indent=self.indent, ensure_ascii=self.ensure_ascii, separators=separators
        )
        return text + "\n" if self.final_newline else text


@dataclass
class Notebook:
    data: dict  # the parsed .ipynb JSON
    code_cells: list[int]  # indexes into data["cells"] of the code cells, in order
    text: str  # the joined module
    first_lines: list[int]  # line of the joined text where each code cell starts
    layout: _Layout

    @classmethod
    def parse(cls, raw: str) -> Notebook:
        try:
            data = json.loads(raw)
            cells = data["cells"]
            code_cells = [i for i, c in enumerate(cells) if c.get("cell_type") == "code"]
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as error:
            raise NotebookError(f"not a notebook: {error}") from None
        parts: list[str] = []
        first_lines: list[int] = []
        line = 0
        for index in code_cells:
            if parts:
                parts.append(CELL_MARKER)
                line += 1
            source = _blanked(_cell_source(cells[index]).removesuffix("\n"))
            first_lines.append(line)
            parts.append(source)
            line += source.count("\n") + 1
        return cls(data, code_cells, "\n".join(parts) + "\n", first_lines, _Layout.of(raw))

    @classmethod
    def of_sources(cls, sources: list[str]) -> Notebook:
        """A notebook of these code cells' sources (an editor's cells, which arrive as texts)."""
        return cls.parse(
            json.dumps({"cells": [{"cell_type": "code", "source": s} for s in sources]})
        )

    def locate(self, position: Position) -> tuple[int, Position]:
        """(1-based cell number, position within that cell) of a joined-text position. Cells
        are numbered as Jupyter, VS Code ("Cell 3 of 7") and ruff number them: markdown cells
        counted."""
        cell = 0
        for number, first in enumerate(self.first_lines):
            if first <= position.line:
                cell = number
        where = Position(position.line - self.first_lines[cell], position.column)
        return self.code_cells[cell] + 1, where

    def edit_in_cell(self, edit: Edit) -> Edit:
        """`edit` relative to its cell, naming the cell. An insertion at the start of the line
        after a cell's last line (an import added below the first cell's imports: in the
        joined text, the marker line) becomes one at the end of that last line, its closing
        newline moved to the front: the cell's rows end where the cell does."""
        cell, start = self.locate(edit.span.start)
        end = self.locate(edit.span.end)[1]
        index = self.code_cells.index(cell - 1)
        following = self.first_lines[index + 1] - 1 if index + 1 < len(self.first_lines) else None
        lines = self.text.split("\n")
        line_count = (len(lines) - 1 if following is None else following) - self.first_lines[index]
        content = edit.content
        insertion = edit.span.start == edit.span.end and content.endswith("\n")
        if insertion and start == Position(line_count, 0) and line_count > 0:
            last = lines[self.first_lines[index] + line_count - 1]
            start = end = Position(line_count - 1, len(last))
            content = "\n" + content[:-1]
        return replace(edit, span=Span(start, end), content=content, cell=cell)

    def with_text(self, text: str) -> str:
        """The notebook JSON with its code cells replaced by the cells of `text` (only the
        cells that changed are touched)."""
        chunks = _cells_of(text)
        if len(chunks) != len(self.code_cells):
            raise NotebookError("the fixed text no longer splits into the notebook's cells")
        data = json.loads(json.dumps(self.data))
        for index, chunk in zip(self.code_cells, chunks, strict=True):
            cell = data["cells"][index]
            original = _cell_source(cell)
            body = original.removesuffix("\n")
            if chunk == _blanked(body):
                continue  # unchanged: its source stays exactly as it was
            # An emptied cell keeps no newline: Jupyter stores an empty cell as [].
            new = _restore_ipython(body, chunk) + original[len(body) :] if chunk else ""
            if isinstance(cell.get("source"), list):
                cell["source"] = _LINES.findall(new)
            else:
                cell["source"] = new
        return self.layout.dump(data)


def _cells_of(text: str) -> list[str]:
    """The cells of a joined text: what lies between its marker lines. A fix that removed a
    cell's every line (a statement moved to the imports) leaves two markers in a row: an
    empty cell, which splitting on the marker with its newlines would merge away."""
    cells: list[list[str]] = [[]]
    for line in text.removesuffix("\n").split("\n"):
        if line == CELL_MARKER:
            cells.append([])
        else:
            cells[-1].append(line)
    return ["\n".join(lines) for lines in cells]


def _restore_ipython(original: str, fixed: str) -> str:
    """`fixed` with the IPython lines that parsing blanked put back where they now are (fixes
    never edit the blanked lines, but may add or remove lines around them)."""
    original_lines = original.split("\n")
    blanked_lines = _blanked(original).split("\n")
    pairs = zip(original_lines, blanked_lines, strict=True)
    ipython = {i for i, (line, blanked) in enumerate(pairs) if line != blanked}
    fixed_lines = fixed.split("\n")
    if not ipython:
        return fixed
    import difflib  # a fixed notebook with IPython lines only

    matcher = difflib.SequenceMatcher(None, blanked_lines, fixed_lines, autojunk=False)
    moved: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            moved[block.a + offset] = block.b + offset
    if not ipython <= moved.keys():
        raise NotebookError("a fix changed a line next to IPython syntax")
    for line in ipython:
        fixed_lines[moved[line]] = original_lines[line]
    return "\n".join(fixed_lines)


def json_source_lines(raw: str) -> dict[int, list[int]] | None:
    """For each code cell of the notebook text `raw`, by its 1-based cell number (markdown
    cells counted, as `Notebook.locate` numbers them), the 0-based line of the JSON
    file holding each line of its source: where a reader of the `.ipynb` file (GitHub code
    scanning, for SARIF) finds it. Only for the layout Jupyter writes (a `source` list, one
    string a line); None when the file is laid out otherwise or a line cannot be matched."""
    try:
        data = json.loads(raw)
        cells = data["cells"]
    except (ValueError, KeyError, TypeError):
        return None
    lines = raw.split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip().startswith('"source": [')]
    if len(starts) != sum(isinstance(cell.get("source"), list) for cell in cells):
        return None
    found: dict[int, list[int]] = {}
    opening = iter(starts)
    for number, cell in enumerate(cells, start=1):
        source = cell.get("source")
        start = next(opening) if isinstance(source, list) else None
        if cell.get("cell_type") != "code":
            continue
        if start is None:
            return None
        rows = []
        for offset, text in enumerate(source):
            row = start + 1 + offset
            stored = lines[row].strip().removesuffix(",") if row < len(lines) else ""
            try:
                if json.loads(stored) != text:
                    return None
            except ValueError:
                return None
            rows.append(row)
        found[number] = rows
    return found
