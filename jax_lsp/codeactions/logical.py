"""JAX702's fix: `a and b`, `a or b`, `not a` on traced values rewritten to
`jnp.logical_and(a, b)` / `logical_or` / `logical_not`, importing `jax.numpy as jnp` when the
module has no spelling for it. Safe when every operand is boolean (`analysis.booleans`) and,
in a function traced through its callers alone, a JAX array whoever calls it; an
`and`/`or` of other values has no rewrite (Python returns an operand, not a truth value). The
same rewrite gives JAX701's `jnp.where` fix its condition."""

from __future__ import annotations

import ast

from jax_lsp.analysis.booleans import LOGIC_FUNCTIONS, is_boolean, is_logic
from jax_lsp.codeactions.import_edits import module_prefix_and_edits
from jax_lsp.codeactions.site import FixSite, given_by_callers, node_edit
from jax_lsp.findings import Applicability, Edit, Fix

Rewrite = tuple[str, tuple[Edit, ...], Applicability]


def logic_rewrite(node: ast.BoolOp | ast.UnaryOp, function: str, ctx: FixSite) -> Rewrite | None:
    """`a and b` as `jnp.logical_and(a, b)` (nested for more operands), the import edits it
    needs, and its safety; None when the rewrite could change the value (non-boolean `or`)."""
    operands = node.values if isinstance(node, ast.BoolOp) else [node.operand]
    boolean = all(is_boolean(operand, ctx) for operand in operands)
    if isinstance(node, ast.BoolOp) and not boolean:
        return None
    if any(isinstance(operand, ast.NamedExpr) for operand in operands):
        return None
    spelled = module_prefix_and_edits(ctx, "jax.numpy", "jnp")
    if spelled is None:
        return None
    prefix, import_edits = spelled
    call = f"{prefix}.{function}"
    texts = [ctx.segment(operand) for operand in operands]
    replacement = texts[-1]
    for text in reversed(texts[:-1]):  # a and b and c -> f(a, f(b, c))
        replacement = f"{call}({text}, {replacement})"
    if len(texts) == 1:
        replacement = f"{call}({replacement})"
    # An untraced caller of a function traced through calls alone may pass Python or NumPy
    # values, of which the rewrite makes a JAX array.
    safe = boolean and not any(given_by_callers(ctx, operand) for operand in operands)
    return replacement, import_edits, Applicability.SAFE if safe else Applicability.UNSAFE


def logical_fix(node: ast.BoolOp | ast.UnaryOp, function: str, ctx: FixSite) -> Fix | None:
    """The operator replaced by its `jnp.logical_*` call (JAX702)."""
    rewrite = logic_rewrite(node, function, ctx)
    if rewrite is None:
        return None
    replacement, import_edits, safety = rewrite
    call = replacement.partition("(")[0]
    return Fix(
        f"Replace with `{call}(...)`",
        (node_edit(ctx, node, replacement), *import_edits),
        safety,
    )


def condition_text(condition: ast.expr, ctx: FixSite) -> Rewrite | None:
    """The condition as a `jnp.where` argument: `and`/`or`/`not` rewritten to `jnp.logical_*`."""
    if isinstance(condition, ast.BoolOp):
        return logic_rewrite(condition, LOGIC_FUNCTIONS[type(condition.op)], ctx)
    if is_logic(condition):
        return logic_rewrite(condition, "logical_not", ctx)
    return ctx.segment(condition), (), Applicability.SAFE
