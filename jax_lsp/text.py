"""Lines and columns of a text: the lines Python's tokenizer and LSP agree on, and column
conversions. Below every floor: the engine, the analysis and the faces convert positions with
the same functions, so that a range never shifts.

Columns inside jax-lsp are Python string indices within a line (code points). `ast` reports
UTF-8 byte offsets and LSP clients speak UTF-16 or UTF-8 code units, so every conversion goes
through here.
"""

from __future__ import annotations

import re

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
