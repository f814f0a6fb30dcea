"""Fixes that write the `.at[...]` forms. JAX201-JAX203: an in-place update of a JAX array
rewritten to its functional form (`x[i] += y` -> `x = x.at[i].add(y)`), and a discarded
`.at[...]` update assigned back; safe for a plain name, unsafe for an attribute chain
(`self.buf`), which is read and rebound. JAX301: an out-of-bounds read made to give NaN."""

from __future__ import annotations

import ast

from jax_lsp.codeactions.site import FixSite, node_edit
from jax_lsp.findings import Applicability, Fix


def _plain_target(node: ast.expr) -> bool:
    """A name or attribute chain (`x`, `self.buf`): safe to read and rebind."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def at_update_fix(
    ctx: FixSite, statement: ast.stmt, target: ast.Subscript, method: str, argument: str
) -> Fix | None:
    """`x = x.at[idx].method(argument)` replacing `statement`, when `x` is a plain target."""
    if not _plain_target(target.value):
        return None  # x[i][j] += v: the rewrite would change what is updated
    base = ctx.segment(target.value)
    index = ctx.segment(target.slice)
    replacement = f"{base} = {base}.at[{index}].{method}({argument})"
    safety = Applicability.SAFE if isinstance(target.value, ast.Name) else Applicability.UNSAFE
    return Fix(f"Replace with `{replacement}`", (node_edit(ctx, statement, replacement),), safety)


def assign_result_fix(ctx: FixSite, statement: ast.Expr, array: ast.expr) -> Fix | None:
    """`x.at[i].set(v)` as a statement -> `x = x.at[i].set(v)`, when `x` is a plain target."""
    if not _plain_target(array):
        return None
    base = ctx.segment(array)
    safety = Applicability.SAFE if isinstance(array, ast.Name) else Applicability.UNSAFE
    edit = node_edit(ctx, statement, f"{base} = {ctx.segment(statement.value)}")
    return Fix(f"Assign the result: `{base} = ...`", (edit,), safety)


def fill_read_fix(read: ast.Subscript, array: ast.expr, ctx: FixSite) -> Fix | None:
    """`x[i]` -> `x.at[i].get(mode="fill", fill_value=jnp.nan)` (unsafe: the value read
    changes from the clamped element to NaN), when the module spells jax.numpy."""
    numpy = ctx.resolvers[-1].alias_of("jax.numpy")
    if numpy is None:
        return None
    replacement = (
        f'{ctx.segment(array)}.at[{ctx.segment(read.slice)}].get(mode="fill", '
        f"fill_value={numpy}.nan)"
    )
    return Fix(
        "Read with a NaN fill value", (node_edit(ctx, read, replacement),), Applicability.UNSAFE
    )
