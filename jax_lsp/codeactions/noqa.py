"""`# noqa` comments: the one reading of them, for the engine's suppression and for the fix that
silences a finding on its line (so what the fix writes is what the engine honours)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from jax_lsp.analysis.document import string_interior_lines
from jax_lsp.findings import Edit, Span

# A bare noqa comment silences every finding of its line; one naming codes, only those.
_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*))?", re.IGNORECASE
)


def noqa_codes(line: str) -> frozenset[str] | None:
    """None: no noqa comment; empty set: a bare `# noqa`; else the codes it names."""
    if "noqa" not in line.lower():
        return None
    match = _NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return frozenset()
    return frozenset(code.strip().upper() for code in codes.split(","))


def noqa_edit(text: str, line: int, code: str) -> Edit:
    """The edit silencing `code` on `line`, whose text is `text`: CODE added to the line's
    `# noqa: ...`, or `  # noqa: CODE` appended (trailing whitespace dropped). Empty when the
    line's noqa silences the code already (a bare `# noqa` is not narrowed to one code)."""
    match = _NOQA.search(text) if "noqa" in text.lower() else None
    if match is not None:
        codes = noqa_codes(match.group(0)) or frozenset()
        column = match.end()
        silenced = not codes or code.upper() in codes
        return Edit(Span.of(line, column, line, column), "" if silenced else f", {code}")
    column = len(text.rstrip())
    return Edit(Span.of(line, column, line, len(text)), f"  # noqa: {code}")


def noqa_line(lines: Sequence[str], line: int, scope: tuple[int, int] | None = None) -> int:
    """The line whose `# noqa` covers a finding that starts on `line`: that line, unless it
    ends inside a triple-quoted string (one it opens, or one it lies in: a field of a
    multi-line f-string) or with a backslash, where a comment cannot go or is string text;
    then the line where the string or the continuation ends (as ruff places it).

    `scope`: the half-open range of lines around `line` that no string or continuation
    crosses (`Document.unit_lines`), the only ones scanned; else the whole text."""
    start, stop = scope if scope is not None else (0, len(lines))
    if line >= stop:
        return line
    if not _continues(lines[line]) and not any(map(_has_triple_quote, lines[start:line])):
        return line  # the common case, without a scan of the strings
    interior = {start + index for index in string_interior_lines(list(lines[start:stop]))}
    while line + 1 < stop:
        if line + 1 in interior:
            while line + 1 in interior:
                line += 1  # to the line where the string closes
        elif lines[line].rstrip().endswith("\\"):
            line += 1
        else:
            break
    return line


def _has_triple_quote(text: str) -> bool:
    return '"""' in text or "'''" in text


def _continues(text: str) -> bool:
    return _has_triple_quote(text) or text.rstrip().endswith("\\")
