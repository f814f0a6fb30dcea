"""Edits of a call's arguments: keyword arguments added as one insertion (`f(x)` ->
`f(x, size=n)`), arguments wrapped in `jnp.asarray` (JAX501), and a list passed as a static
argument made a tuple (JAX1002)."""

from __future__ import annotations

import ast

from jax_lsp.codeactions.site import FixSite, Located, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span


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


def as_array_fix(ctx: FixSite, arguments: list[ast.expr]) -> Fix | None:
    """Each of `arguments` (Python lists and tuples) wrapped in `jnp.asarray(...)`, when the
    module spells jax.numpy."""
    numpy = ctx.resolvers[-1].alias_of("jax.numpy")
    if numpy is None:
        return None
    edits = tuple(Edit(ctx.span(a), f"{numpy}.asarray({ctx.segment(a)})") for a in arguments)
    return Fix(f"Wrap in `{numpy}.asarray(...)`", edits, Applicability.SAFE)


def as_tuple_fix(value: ast.List, ctx: FixSite) -> Fix:
    """The list display `[a, b]` as the tuple `(a, b)`: hashable, the same items."""
    items = [ctx.segment(element) for element in value.elts]
    text = f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    return Fix(f"Pass a tuple: `{text}`", (node_edit(ctx, value, text),), Applicability.SAFE)
