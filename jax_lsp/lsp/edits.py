"""The edits the server builds itself (a whole-document rewrite, a noqa comment), as
LSP text edits: `jax_lsp.codeactions` computes them, this converts their positions."""

from __future__ import annotations

from lsprotocol import types

from jax_lsp.codeactions import apply, noqa
from jax_lsp.findings import Edit
from jax_lsp.lsp.documents import OpenDocument
from jax_lsp.lsp.positions import to_lsp_range


def _text_edit(document: OpenDocument, edit: Edit, encoding: str) -> types.TextEdit:
    return types.TextEdit(
        range=to_lsp_range(document.lines, edit.span, encoding), new_text=edit.content
    )


def replacement_edit(document: OpenDocument, new_text: str, encoding: str) -> types.TextEdit:
    """One edit turning the document into `new_text`, spanning only the lines that differ."""
    return _text_edit(document, apply.replacement(document.text, new_text), encoding)


def noqa_edit(document: OpenDocument, line: int, code: str, encoding: str) -> types.TextEdit:
    """Append `  # noqa: CODE` to the line, or add CODE to the line's existing `# noqa: ...`
    (the line where a string or continuation the finding's line opens ends: `noqa_line`)."""
    line = noqa.noqa_line(document.lines, line)
    return _text_edit(document, noqa.noqa_edit(document.lines[line], line, code), encoding)
