"""Engine positions (0-based line, code point column) to LSP positions and back.

LSP columns count UTF-16 code units unless the client agreed to UTF-8 at initialisation.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from jax_lsp.findings import Position, Span
from jax_lsp.text import char_col_to_units, units_to_char_col

UTF8 = types.PositionEncodingKind.Utf8
UTF16 = types.PositionEncodingKind.Utf16


def choose_encoding(offered: Sequence[str] | None) -> types.PositionEncodingKind:
    """UTF-8 when the client offers it (no conversion for ASCII, cheap otherwise), else UTF-16."""
    return UTF8 if offered and UTF8 in offered else UTF16


def to_lsp_position(lines: Sequence[str], position: Position, encoding: str) -> types.Position:
    if position.line >= len(lines):
        last = len(lines) - 1
        return types.Position(last, char_col_to_units(lines[last], len(lines[last]), encoding))
    line = lines[position.line]
    column = min(position.column, len(line))
    return types.Position(position.line, char_col_to_units(line, column, encoding))


def to_lsp_range(lines: Sequence[str], span: Span, encoding: str) -> types.Range:
    return types.Range(
        to_lsp_position(lines, span.start, encoding), to_lsp_position(lines, span.end, encoding)
    )


def from_lsp_position(lines: Sequence[str], position: types.Position, encoding: str) -> Position:
    """A client position as an engine position, clamped to the document."""
    if position.line >= len(lines):
        return Position(len(lines) - 1, len(lines[-1]))
    line = lines[position.line]
    return Position(position.line, units_to_char_col(line, position.character, encoding))


def from_lsp_range(lines: Sequence[str], range_: types.Range, encoding: str) -> Span:
    return Span(
        from_lsp_position(lines, range_.start, encoding),
        from_lsp_position(lines, range_.end, encoding),
    )
