"""Adding keyword arguments to a call as one insertion (`f(x)` -> `f(x, size=n)`)."""

from __future__ import annotations

import ast

from jax_lsp.codeactions.site import Located
from jax_lsp.findings import Edit, Span


def append_arguments(call: ast.Call, text: str, at: Located) -> Edit | None:
    """The edit adding `text` ("size=n") after the call's last argument, or inside empty
    parentheses; None for anything between empty parentheses (a comment)."""
    arguments = [*call.args, *call.keywords]
    if arguments:
        last = max(arguments, key=lambda a: (a.end_lineno, a.end_col_offset))
        end = at.span(last).end
        return Edit(Span(end, end), f", {text}")
    if at.segment(call)[len(at.segment(call.func)) :] != "()":
        return None
    end = at.span(call).end
    return Edit(Span.of(end.line, end.column - 1, end.line, end.column - 1), text)
