"""Where a new top-level import goes: the one answer every fix and the module model use.

After the module's header: the leading docstring, imports (`from __future__` ones included) and
`if`/`try` blocks holding only imports (`if TYPE_CHECKING:`). With no such statement, after the
lines that must stay first (a `#!` line, an encoding declaration) and a leading comment block
that a blank line separates from the code (a licence); a comment right above the first
statement stays with it. An import placed there runs before any other top-level statement.
"""

from __future__ import annotations

import ast
import re

from jax_lsp.analysis.document import Document
from jax_lsp.compat import TRY_STATEMENTS

# PEP 263: an encoding declaration is honoured on the first or second line only.
_ENCODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


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
