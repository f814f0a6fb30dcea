"""Edits of a call's arguments: keyword arguments added as one insertion (`f(x)` ->
`f(x, size=n)`), arguments wrapped in `jnp.asarray` (JAX501), and a list passed as a static
argument made a tuple (JAX1002)."""

from __future__ import annotations

import ast

from jax_lsp.analysis.kinds import Kind
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


def as_array_fix(ctx: FixSite, arguments: list[ast.expr], call: ast.Call) -> Fix | None:
    """Each of `arguments` (Python lists and tuples) of `call` wrapped in `jnp.asarray(...)`,
    when the module spells jax.numpy. Safe when each holds Python numbers only and no other
    argument of the call is a JAX value: `jnp.asarray([0.0, 1.0])` is a float32 array, where
    Python numbers beside a bfloat16 `x` would have kept it bfloat16 (`jnp.maximum(x, 0.0)`),
    so the result's dtype may widen; and a list holding arrays gives an array only when their
    shapes agree (`jnp.asarray([x, 1.0])` raises for a vector `x`)."""
    numpy = ctx.resolvers[-1].alias_of("jax.numpy")
    if numpy is None:
        return None
    edits = tuple(Edit(ctx.span(a), f"{numpy}.asarray({ctx.segment(a)})") for a in arguments)
    wrapped = {id(node) for argument in arguments for node in ast.walk(argument)}
    others = [
        node
        for value in (*call.args, *(keyword.value for keyword in call.keywords))
        for node in _items(value)
        if id(node) not in wrapped
    ]
    numbers = all(_numbers_only(ctx, argument) for argument in arguments)
    safe = numbers and not any(ctx.kind(other).is_jax for other in others)
    safety = Applicability.SAFE if safe else Applicability.UNSAFE
    return Fix(f"Wrap in `{numpy}.asarray(...)`", edits, safety)


def _items(value: ast.expr) -> list[ast.expr]:
    """`value`, or the items of a list or tuple display (`jnp.stack([x, [1, 2]])`)."""
    if isinstance(value, ast.List | ast.Tuple):
        return [item for element in value.elts for item in _items(element)]
    return [value]


def _numbers_only(ctx: FixSite, value: ast.expr) -> bool:
    """Whether `value` is a Python number (a literal, or a value known to be a Python one),
    or a list or tuple of those, nested or not."""
    if isinstance(value, ast.List | ast.Tuple):
        return all(_numbers_only(ctx, element) for element in value.elts)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub | ast.UAdd):
        value = value.operand
    if isinstance(value, ast.Constant):
        return isinstance(value.value, int | float | complex)
    return ctx.kind(value) is Kind.STATIC


def as_tuple_fix(value: ast.List, ctx: FixSite, tuple_alike: bool) -> Fix:
    """The list display `[a, b]` as the tuple `(a, b)`: hashable, the same items. Safe when
    the receiving function uses the value only as a tuple is used alike (`tuple_alike`)."""
    items = [ctx.segment(element) for element in value.elts]
    text = f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    safety = Applicability.SAFE if tuple_alike else Applicability.UNSAFE
    return Fix(f"Pass a tuple: `{text}`", (node_edit(ctx, value, text),), safety)
