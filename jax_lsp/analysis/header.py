"""Where a new top-level import goes: the one answer every fix and the module model use.

After the module's header: the leading docstring, imports (`from __future__` ones included) and
`if`/`try` blocks holding only imports (`if TYPE_CHECKING:`). With no such statement, after the
lines that must stay first (a `#!` line, an encoding declaration) and a leading comment block
that a blank line separates from the code (a licence); a comment right above the first
statement stays with it. An import placed there runs before any other top-level statement.

`import_blank_lines` says how many blank lines such an import needs around it, as ruff's isort
and formatter lay them out.
"""

from __future__ import annotations

import ast
import re

from jax_lsp.analysis.document import Document
from jax_lsp.compat import TRY_STATEMENTS

# PEP 263: an encoding declaration is honoured on the first or second line only.
_ENCODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
# The start of a line of code that takes two blank lines after imports.
_DEFINITION = re.compile(r"(async\s+def|def|class)\b|@")


def import_insertion_line(document: Document) -> int:
    """The 0-based line a new import is inserted at (it may equal the line count)."""
    line = 0
    for unit in document.units:
        if unit.tree is None or not unit.tree.body:
            continue  # comments only, or a unit that does not parse (half-typed)
        if not all(
            _in_header(statement, index == 0 and line == 0)
            for index, statement in enumerate(unit.tree.body)
        ):
            break
        line = unit.start_line + unit.tree.body[-1].end_lineno
    return line or _after_leading_comments(document.lines)


def _in_header(statement: ast.stmt, first: bool) -> bool:
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return True
    if isinstance(statement, (ast.If, *TRY_STATEMENTS)):
        nested = [
            *statement.body,
            *statement.orelse,
            *getattr(statement, "finalbody", ()),
            *(s for handler in getattr(statement, "handlers", ()) for s in handler.body),
        ]
        return all(isinstance(s, ast.Pass) or _in_header(s, first=False) for s in nested) and any(
            not isinstance(s, ast.Pass) for s in nested
        )
    return first and is_docstring(statement)


def is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _after_leading_comments(lines: list[str]) -> int:
    """The line after the comments that lead a module with no header statement: after a
    `#!` line and an encoding declaration always, after other comments only up to the last
    blank line before the code."""
    if lines and not lines[-1]:
        lines = lines[:-1]  # what follows the final newline is no line
    line = 0
    for index, text in enumerate(lines):
        stripped = text.strip()
        if not stripped:
            line = index + 1
        elif not stripped.startswith("#"):
            break
        elif (index == 0 and stripped.startswith("#!")) or (index < 2 and _ENCODING.match(text)):
            line = max(line, index + 1)
    return min(line, _first_code_line(lines))


def _first_code_line(lines: list[str]) -> int:
    for index, text in enumerate(lines):
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            return index
    return len(lines)


def import_blank_lines(document: Document, line: int, code: bool = False) -> tuple[int, int]:
    """The blank lines an import inserted at `line` (the import line) needs before and after
    it: one before it after a module docstring or `from __future__` imports; where code
    follows it (no import above it), enough after it to make two blank lines before a `def`,
    a `class` or a decorator and one before other code. Below other imports it joins their
    block as it is: (0, 0). `code`: what is inserted starts with a statement that is not an
    import (`jax.config.update(...)`), which takes one blank line below any statement too."""
    above = _statement_above(document, line)
    if above is not None and not code and not _docstring_or_future(above):
        return 0, 0
    lines = document.lines
    before = int(above is not None and line > 0 and bool(lines[line - 1].strip()))
    blank = 0
    while line + blank < len(lines) and not lines[line + blank].strip():
        blank += 1
    following = _next_code(lines, line + blank)
    if following is None:
        return before, 0
    wanted = 2 if _DEFINITION.match(following) else 1
    return before, max(wanted - blank, 0)


def _statement_above(document: Document, line: int) -> ast.stmt | None:
    """The last top-level statement ending before `line`."""
    above = None
    for unit in document.units:
        if unit.start_line >= line:
            break
        for statement in unit.tree.body if unit.tree is not None else ():
            if unit.start_line + statement.end_lineno - 1 < line:
                above = statement
    return above


def _docstring_or_future(statement: ast.stmt) -> bool:
    return is_docstring(statement) or (
        isinstance(statement, ast.ImportFrom) and statement.module == "__future__"
    )


def _next_code(lines: list[str], start: int) -> str | None:
    """The first line from `start` that is neither blank nor a comment, without its indent."""
    for text in lines[start:]:
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            return stripped
    return None
