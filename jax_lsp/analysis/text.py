"""Line bookkeeping for a document: line starts, and column conversions.

Columns inside jax-lsp are Python string indices within a line (code points). `ast`
reports UTF-8 byte offsets and LSP clients speak UTF-16 or UTF-8 code units, so every
conversion goes through here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import overload

from jax_lsp.findings import Span

_NEWLINE = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Split on the newlines Python's tokenizer and LSP agree on (not form feeds)."""
    if "\r" not in text:
        return text.split("\n")  # the same lines, several times faster than the regex
    return _NEWLINE.split(text)


def byte_col_to_char(line: str, byte_col: int) -> int:
    """`ast` column (UTF-8 bytes into the line) to a code point index."""
    if line.isascii():
        return byte_col
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def char_col_to_units(line: str, char_col: int, encoding: str) -> int:
    """A code point index to the column unit a client asked for ('utf-16', 'utf-8', 'utf-32')."""
    if encoding == "utf-32" or line.isascii():
        return char_col
    prefix = line[:char_col]
    if encoding == "utf-8":
        return len(prefix.encode("utf-8", errors="surrogatepass"))
    return len(prefix.encode("utf-16-le", errors="surrogatepass")) // 2


def units_to_char_col(line: str, units: int, encoding: str) -> int:
    """Inverse of `char_col_to_units`, clamped to the line."""
    if encoding == "utf-32" or line.isascii():
        return max(0, min(units, len(line)))
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        if encoding == "utf-8":
            count += len(char.encode("utf-8", errors="surrogatepass"))
        else:
            count += 2 if ord(char) > 0xFFFF else 1
    return len(line)


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
