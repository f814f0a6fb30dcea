"""Fixes that write the `.at[...]` forms. JAX201-JAX203: an in-place update of a JAX array
rewritten to its functional form (`x[i] += y` -> `x = x.at[i].add(y)`), and a discarded
`.at[...]` update assigned back; safe for a plain name, unsafe for an object's field
(`self.buf`, `state.vel`), written the way its class allows (`codeactions.holders`). An
in-place update rewritten in a module that may build meshes with explicit axes is unsafe: on
such a mesh `.at[...]` raises without `out_sharding=` (`analysis.sharding`).
JAX301: an out-of-bounds read made to give NaN."""

from __future__ import annotations

import ast

from jax_lsp.analysis.nodes import all_params
from jax_lsp.analysis.updates import at_update, index_key, unread_after, updated_after
from jax_lsp.codeactions.broadcast import has_shape_of
from jax_lsp.codeactions.holders import rebinding
from jax_lsp.codeactions.import_edits import module_prefix_and_edits
from jax_lsp.codeactions.site import FixSite, given_by_callers, node_edit
from jax_lsp.findings import Applicability, Fix


def at_update_fix(
    ctx: FixSite, statement: ast.stmt, target: ast.Subscript, method: str, argument: str
) -> Fix | None:
    """`x = x.at[idx].method(argument)` replacing `statement` (for a field of an object, the
    rewrite its class takes: `p = p._replace(vel=p.vel.at[i].set(v))` for a NamedTuple)."""
    array = target.value
    update = f"{ctx.segment(array)}.at[{ctx.segment(target.slice)}].{method}({argument})"
    rebound = rebinding(ctx, array, update)
    if rebound is None:
        return None  # x[i][j] += v, or a holder whose kind is not known
    replacement, imports = rebound
    edits = (node_edit(ctx, statement, replacement), *imports)
    safety = _safety(array)
    if _performed_later(ctx, statement, array, target.slice) or given_by_callers(ctx, array):
        safety = Applicability.UNSAFE
    if ctx.model.may_make_explicit_meshes:
        # The array may sit on a mesh with explicit axes, where `.at[...]` raises unless told
        # the result's sharding: the fix works or not by how the mesh was made.
        safety = Applicability.UNSAFE
    return _caller_checked(Fix(f"Replace with `{replacement}`", edits, safety), ctx, statement)


def masked_update_fix(
    ctx: FixSite, statement: ast.stmt, array: ast.expr, mask: ast.expr, new: str, value: ast.expr
) -> Fix | None:
    """`x[mask] = v` (or `x[mask] += v`, `new` then `x + v`) in traced code, where a traced
    boolean index cannot be used, `.at[mask]` included (its shape would depend on the mask's
    values): `x = jnp.where(mask, new, x)`. Safe when `value` is a number: NumPy puts it at
    every masked place, as `where` does; an array value may be meant for the masked places
    only (NumPy's `x[mask] = values[:k]`), which `where` cannot do."""
    spelled = module_prefix_and_edits(ctx, "jax.numpy", "jnp")
    if spelled is None:
        return None
    jnp, imports = spelled
    rebound = rebinding(
        ctx, array, f"{jnp}.where({ctx.segment(mask)}, {new}, {ctx.segment(array)})"
    )
    if rebound is None:
        return None
    replacement, holder_imports = rebound
    edits = (node_edit(ctx, statement, replacement), *imports, *holder_imports)
    number = _is_number(value, ctx)
    shaped = has_shape_of(mask, array, ctx)
    safety = _safety(array) if number and shaped else Applicability.UNSAFE
    if given_by_callers(ctx, array):
        safety = Applicability.UNSAFE
    title = f"Replace with `{replacement}`"
    if not shaped:  # a mask of rows would be broadcast along the last axis instead
        title += f" (the mask must have `{ctx.segment(array)}`'s shape: `where` broadcasts it)"
    return _caller_checked(Fix(title, edits, safety), ctx, statement)


# Named Python floats: `x[mask] = -jnp.inf` (a causal mask) puts one number everywhere too.
_NAMED_NUMBERS = frozenset(
    f"{module}.{name}" for module in ("jax.numpy", "numpy", "math") for name in ("inf", "nan")
)


def _is_number(node: ast.expr, ctx: FixSite) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    if isinstance(node, ast.Attribute):
        return ctx.qualname(node) in _NAMED_NUMBERS
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    )


def assign_result_fix(ctx: FixSite, statement: ast.Expr, array: ast.expr) -> Fix | None:
    """`x.at[i].set(v)` as a statement -> `x = x.at[i].set(v)` (for a field of an object, the
    rewrite its class takes)."""
    rebound = rebinding(ctx, array, ctx.segment(statement.value))
    if rebound is None:
        return None
    replacement, imports = rebound
    edits = (node_edit(ctx, statement, replacement), *imports)
    assigned = replacement.partition(" = ")[0]
    safety = _safety(array)
    update = at_update(statement.value)
    if update is not None and _performed_later(ctx, statement, array, update[1]):
        safety = Applicability.UNSAFE
    fix = Fix(f"Assign the result: `{assigned} = ...`", edits, safety)
    return _caller_checked(fix, ctx, statement)


def _caller_checked(fix: Fix, ctx: FixSite, statement: ast.stmt) -> Fix:
    """`fix`, unsafe and saying so when the name it rebinds is a parameter that nothing in the
    function reads afterwards: the update was meant for the caller's array (`def bump(counts,
    i): counts[i] += 1`), which the rebinding leaves as it was. The TypeError the in-place
    update raised becomes an update lost without a word; the callers must take a returned
    array instead, which no rewrite here can make them do."""
    (rewrite, *_) = fix.edits
    assigned = rewrite.content.partition(" = ")[0]
    if not (assigned.isidentifier() and _unread_parameter(ctx, assigned, statement)):
        return fix
    title = f"{fix.title} (the caller's `{assigned}` stays unchanged: return it and use the result)"
    return Fix(title, fix.edits, Applicability.UNSAFE)


def _unread_parameter(ctx: FixSite, name: str, statement: ast.stmt) -> bool:
    """Is `name` a parameter of the function holding `statement` that no code of the function
    may read after `statement` runs (`updates.unread_after`)?"""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    return name in all_params(function) and unread_after(function, name, [statement])


def _performed_later(ctx: FixSite, statement: ast.stmt, array: ast.expr, index: ast.expr) -> bool:
    """Whether code after `statement` in its scope already updates the name `array` at the
    same index from itself (`x = x.at[i]...`): a notebook cell that does right what the cell
    before tried. The rewrite would then perform the update twice."""
    if not isinstance(array, ast.Name):
        return False
    key = index_key(index)
    if ctx.functions:
        function = ctx.functions[-1]
        body = function.body if isinstance(function.body, list) else [statement]
        return updated_after(body, array.id, key, statement.lineno)
    line = ctx.unit_start + statement.lineno - 1
    return any(
        later > line and later_key == key
        for later, later_key in ctx.model.self_updates.get(array.id, ())
    )


def _safety(array: ast.expr) -> Applicability:
    """Safe for a plain name; unsafe for a field, whose holder is written or rebound (another
    reference to the same object keeps the old value)."""
    return Applicability.SAFE if isinstance(array, ast.Name) else Applicability.UNSAFE


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
