"""Text edits the server builds itself: whole-document rewrites, noqa comments, debug-NaNs
(the noqa and debug-NaNs edits move to `jax_lsp.codeactions` with issue 16's item 1)."""

from __future__ import annotations

import ast
import re

from lsprotocol import types

from jax_lsp.analysis.document import Document
from jax_lsp.findings import Position
from jax_lsp.lsp.documents import OpenDocument
from jax_lsp.lsp.positions import to_lsp_position

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_NOQA_CODES = re.compile(r"#\s*noqa:\s*[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*", re.IGNORECASE)
DEBUG_NANS = 'jax.config.update("jax_debug_nans", True)'


def replacement_edit(document: OpenDocument, new_text: str, encoding: str) -> types.TextEdit:
    """One edit turning the document into `new_text`, spanning only the lines that differ."""
    old_lines, new_lines = _LINE.findall(document.text), _LINE.findall(new_text)
    prefix = 0
    limit = min(len(old_lines), len(new_lines))
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and old_lines[len(old_lines) - 1 - suffix] == new_lines[len(new_lines) - 1 - suffix]
    ):
        suffix += 1
    start = to_lsp_position(document.lines, Position(prefix, 0), encoding)
    end = to_lsp_position(document.lines, Position(len(old_lines) - suffix, 0), encoding)
    middle = "".join(new_lines[prefix : len(new_lines) - suffix])
    return types.TextEdit(range=types.Range(start, end), new_text=middle)


def noqa_edit(document: OpenDocument, line: int, code: str, encoding: str) -> types.TextEdit:
    """Append `  # noqa: CODE` to the line, or add CODE to the line's existing `# noqa: ...`."""
    text = document.lines[line]
    match = _NOQA_CODES.search(text)
    if match:
        column, insert = match.end(), f", {code}"
        end_column = column
    else:
        column, insert = len(text.rstrip()), f"  # noqa: {code}"
        end_column = len(text)  # drop trailing whitespace
    return types.TextEdit(
        range=types.Range(
            to_lsp_position(document.lines, Position(line, column), encoding),
            to_lsp_position(document.lines, Position(line, end_column), encoding),
        ),
        new_text=insert,
    )


def _binds_jax(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Import) and any(
        alias.asname in (None, "jax") and alias.name.split(".")[0] == "jax"
        for alias in statement.names
    )


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def debug_nans_edit(document: OpenDocument, encoding: str) -> types.TextEdit | None:
    """Insert `jax.config.update("jax_debug_nans", True)` after the leading imports (and
    `import jax` when nothing binds `jax`); None when the file already sets it."""
    if "jax_debug_nans" in document.text:
        return None
    after_imports = 0  # the 0-based line after the leading docstring and imports
    in_header = True
    binds_jax = False
    for unit in Document(document.text, document.path).units:
        if unit.tree is None:
            in_header = False
            continue
        for statement in unit.tree.body:
            binds_jax = binds_jax or _binds_jax(statement)
            header = isinstance(statement, ast.Import | ast.ImportFrom) or (
                _is_docstring(statement) and after_imports == 0
            )
            if in_header and header:
                after_imports = unit.start_line + (statement.end_lineno or statement.lineno)
            else:
                in_header = False
    newline = document.newline
    insert = ("" if binds_jax else f"import jax{newline}") + DEBUG_NANS + newline
    if after_imports >= len(document.lines):
        # The header runs to the end of a file without a final newline.
        insert = newline + insert.removesuffix(newline)
        after_imports = len(document.lines)
    position = to_lsp_position(document.lines, Position(after_imports, 0), encoding)
    return types.TextEdit(range=types.Range(position, position), new_text=insert)
