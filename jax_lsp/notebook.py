"""Jupyter notebooks as one module: code cells joined in order, and positions mapped back.

Cells are joined with a marker comment line between them, so a fixed text splits back into the
same cells, and an edit inserted at a cell's start (an import) stays in the cell before it.
IPython magics and shell escapes are blanked: they are not Python, and blanking keeps lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from jax_lsp.findings import Position

CELL_MARKER = "# jax-lsp: cell boundary"
_MAGIC_PREFIXES = ("%", "!", "?")


class NotebookError(ValueError):
    """Not a notebook we can read."""


def _cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _blank_magics(source: str) -> str:
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n".join("" for _ in lines)  # a cell magic: the cell is not Python
    return "\n".join(
        "" if line.lstrip().startswith(_MAGIC_PREFIXES) or line.rstrip().endswith("?") else line
        for line in lines
    )


@dataclass
class Notebook:
    data: dict  # the parsed .ipynb JSON
    code_cells: list[int]  # indexes into data["cells"] of the code cells, in order
    text: str  # the joined module
    first_lines: list[int]  # line of the joined text where each code cell starts

    @classmethod
    def parse(cls, raw: str) -> Notebook:
        try:
            data = json.loads(raw)
            cells = data["cells"]
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise NotebookError(f"not a notebook: {error}") from None
        code_cells = [i for i, c in enumerate(cells) if c.get("cell_type") == "code"]
        parts: list[str] = []
        first_lines: list[int] = []
        line = 0
        for index in code_cells:
            if parts:
                parts.append(CELL_MARKER)
                line += 1
            source = _blank_magics(_cell_source(cells[index]).removesuffix("\n"))
            first_lines.append(line)
            parts.append(source)
            line += source.count("\n") + 1
        return cls(data, code_cells, "\n".join(parts) + "\n", first_lines)

    def locate(self, position: Position) -> tuple[int, Position]:
        """(1-based code cell number, position within that cell) of a joined-text position."""
        cell = 0
        for number, first in enumerate(self.first_lines):
            if first <= position.line:
                cell = number
        return cell + 1, Position(position.line - self.first_lines[cell], position.column)

    def with_text(self, text: str) -> str:
        """The notebook JSON with its code cells replaced by the cells of `text`."""
        chunks = text.removesuffix("\n").split(f"\n{CELL_MARKER}\n")
        if len(chunks) != len(self.code_cells):
            raise NotebookError("the fixed text no longer splits into the notebook's cells")
        data = json.loads(json.dumps(self.data))
        for index, chunk in zip(self.code_cells, chunks, strict=True):
            original = _cell_source(data["cells"][index])
            lines = _restore_magics(original, chunk).split("\n")
            data["cells"][index]["source"] = [f"{line}\n" for line in lines[:-1]] + [lines[-1]]
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _restore_magics(original: str, fixed: str) -> str:
    """Put back the magic lines that parsing blanked (fixes never touch blank lines)."""
    original_lines = original.rstrip("\n").split("\n")
    blanked_lines = _blank_magics(original.rstrip("\n")).split("\n")
    magic = {
        i: line
        for i, (line, blank) in enumerate(zip(original_lines, blanked_lines, strict=True))
        if line != blank
    }
    if not magic:
        return fixed
    fixed_lines = fixed.split("\n")
    if len(fixed_lines) != len(original_lines):
        return original.rstrip("\n")  # lines moved around the magics: leave this cell alone
    return "\n".join(magic.get(i, line) for i, line in enumerate(fixed_lines))
