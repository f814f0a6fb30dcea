"""What the analysis reads from a document's text: its identifiers, whether a word occurs, a
node's span in document coordinates, and lines that record which were read. The lines and
column conversions every floor shares are in `jax_lsp/text.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import overload

from jax_lsp.findings import Span
from jax_lsp.text import byte_col_to_char

# ASCII characters that cannot be part of an identifier, mapped to spaces, as bytes (the bytes
# of other characters, UTF-8, kept).
_NOT_IDENTIFIER_BYTES = bytes(
    byte if byte >= 128 or chr(byte).isalnum() or byte == ord("_") else ord(" ")
    for byte in range(256)
)


def identifiers(text: str) -> frozenset[str]:
    """Every identifier of the text, and more (numbers, words of strings and comments): a
    superset found several times faster than with a regular expression. (A name cannot
    follow a digit in Python code: only keywords can, as in `1if`.)

    Text is translated as bytes, a table lookup per byte: `str.translate` looks each
    character up in a dict (ten times slower on ASCII text, forty on other text). ASCII text
    is decoded back whole before the split (a copy); other text is translated as UTF-8 bytes,
    each distinct word decoded once, and a word holding non-ASCII text split again on Unicode
    spaces, as `str.split` would."""
    if text.isascii():
        return frozenset(text.encode().translate(_NOT_IDENTIFIER_BYTES).decode().split())
    encoded = text.encode("utf-8", "surrogatepass")
    words = set(encoded.translate(_NOT_IDENTIFIER_BYTES).split())
    found: set[str] = set()
    for word in words:
        decoded = word.decode("utf-8", "surrogatepass")
        if word.isascii():
            found.add(decoded)
        else:
            found.update(decoded.split())
    return frozenset(found)


def contains_word(text: str, word: str) -> bool:
    """Does `word` occur in `text` as an identifier (or right after digits: `2zeros` has
    `zeros`, for prefilters that may say yes too often, never too rarely)? A substring search
    per occurrence: several times faster than a regular expression with word boundaries."""
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        before_ok = at == 0 or not (text[at - 1].isalpha() or text[at - 1] == "_")
        after_ok = end == len(text) or not (text[end].isalnum() or text[end] == "_")
        if before_ok and after_ok:
            return True
        at = text.find(word, at + 1)
    return False


def document_span(lines: list[str], unit_start: int, node: ast.AST) -> Span:
    """A node's span in document coordinates, for a node of the unit starting at line
    `unit_start` (`lines` are the document's)."""
    start, end = unit_start + node.lineno - 1, unit_start + node.end_lineno - 1
    return Span.of(
        start,
        byte_col_to_char(lines[start], node.col_offset),
        end,
        byte_col_to_char(lines[end], node.end_col_offset),
    )


class RecordedLines(Sequence[str]):
    """A text's lines that remember which were read (`read`, 0-based), for telling whether
    what was made from them depends on a line that has since changed. `plain` reads without
    recording."""

    __slots__ = ("plain", "read")

    def __init__(self, lines: list[str]) -> None:
        self.plain = lines
        self.read: set[int] = set()

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            self.read.update(range(*index.indices(len(self.plain))))
        else:
            self.read.add(index % len(self.plain) if index < 0 else index)
        return self.plain[index]

    def __len__(self) -> int:
        return len(self.plain)

    def __iter__(self) -> Iterator[str]:
        self.read.update(range(len(self.plain)))
        return iter(self.plain)
