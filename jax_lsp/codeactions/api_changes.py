"""Fixes for JAX names a release removed or deprecates (JAX1101/JAX1102): the replacement the
table (`analysis/api_changes.py`) names, spelled through the module's own imports.

- an attribute: `jax.tree_map` -> `jax.tree.map`, `jnp.product` -> `jnp.prod` (the new name
  written through the alias the module already has for its module, or none offered);
- a `jax.ops` index update: `jax.ops.index_update(x, i, v)` -> `x.at[i].set(v)`;
- an import: `from jax.experimental import optimizers` -> `from jax.example_libraries import
  optimizers`, `from jax import tree_map` -> `from jax.tree import map as tree_map` (the local
  name kept, so the module's uses stay valid), `import jax.experimental.stax as stax` ->
  `import jax.example_libraries.stax as stax`.

Safe where the table marks the replacement safe (it computes the same), unsafe otherwise.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.api_changes import ApiChange
from jax_lsp.codeactions.site import FixSite, node_edit
from jax_lsp.findings import Applicability, Fix

# Expressions that need no parentheses before `.at[...]`.
_ATOMIC = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)


def _applicability(row: ApiChange) -> Applicability:
    return Applicability.SAFE if row.safe else Applicability.UNSAFE


def attribute_fix(node: ast.Attribute, row: ApiChange, ctx: FixSite) -> Fix | None:
    """`jax.tree_map` -> `jax.tree.map`, spelled through the scope's imports."""
    if row.replacement is None:
        return None
    spelled = _spelling(row.replacement, ctx)
    if spelled is None:
        return None
    return Fix(
        f"Replace `{row.name}` by `{row.replacement}`",
        (node_edit(ctx, node, spelled),),
        _applicability(row),
    )


def _spelling(qualname: str, ctx: FixSite) -> str | None:
    """`qualname` spelled through the nearest module the scope binds by a name of its own
    (`jnp.prod` after `import jax.numpy as jnp`, rather than `jax.numpy.prod`)."""
    resolver = ctx.resolvers[-1]
    parts = qualname.split(".")
    for length in range(len(parts), 0, -1):
        alias = resolver.alias_of(".".join(parts[:length]))
        if alias is not None and "." not in alias:
            return ".".join([alias, *parts[length:]])
    return resolver.alias_of(qualname)


def at_update_fix(call: ast.Call, row: ApiChange, ctx: FixSite) -> Fix | None:
    """`jax.ops.index_update(x, i, v)` -> `x.at[i].set(v)`: the three arguments by position
    only (the flags `indices_are_sorted=`/`unique_indices=` are left to the user)."""
    if row.at_method is None or len(call.args) != 3 or call.keywords:
        return None
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    array, index, value = call.args
    target = ctx.segment(array)
    if not isinstance(array, _ATOMIC):
        target = f"({target})"
    # `jax.ops.index[1:3]` only spelled an index: its subscript is the index itself.
    if (
        isinstance(index, ast.Subscript)
        and ctx.resolvers[-1].qualname(index.value) == "jax.ops.index"
    ):
        index_text = ctx.segment(index.slice)
    else:
        index_text = ctx.segment(index)
    text = f"{target}.at[{index_text}].{row.at_method}({ctx.segment(value)})"
    return Fix(
        f"Replace `{row.name}(x, i, v)` by `x.at[i].{row.at_method}(v)`",
        (node_edit(ctx, call, text),),
        Applicability.SAFE,
    )


def import_from_fix(
    statement: ast.ImportFrom, alias: ast.alias, row: ApiChange, ctx: FixSite
) -> Fix | None:
    """`from M import old [as a]` -> `from M2 import new as a` (the local name kept): the
    whole statement when it imports only this name, else the one name when the module stays."""
    if row.replacement is None or statement.level:
        return None
    module, _, name = row.replacement.rpartition(".")
    local = alias.asname or alias.name
    imported = name if local == name else f"{name} as {local}"
    if module == statement.module:
        return Fix(
            f"Import `{row.replacement}` instead",
            (node_edit(ctx, alias, imported),),
            _applicability(row),
        )
    # The whole statement rewritten: one line only, so no comment inside it is lost.
    if len(statement.names) != 1 or not module or statement.lineno != statement.end_lineno:
        return None
    return Fix(
        f"Import `{row.replacement}` instead",
        (node_edit(ctx, statement, f"from {module} import {imported}"),),
        _applicability(row),
    )


def import_fix(alias: ast.alias, row: ApiChange, ctx: FixSite) -> Fix | None:
    """`import jax.experimental.stax as stax` -> `import jax.example_libraries.stax as stax`:
    only with `as` (a bare `import a.b` binds `a`, whose uses spell the old path)."""
    if row.replacement is None or alias.asname is None or alias.name != row.name:
        return None
    return Fix(
        f"Import `{row.replacement}` instead",
        (node_edit(ctx, alias, f"{row.replacement} as {alias.asname}"),),
        _applicability(row),
    )


def import_module_fix(statement: ast.ImportFrom, row: ApiChange, ctx: FixSite) -> Fix | None:
    """`from jax.experimental.optimizers import adam` -> `from jax.example_libraries.optimizers
    import adam`: a moved module's path rewritten, the names kept."""
    module = statement.module or ""
    if row.replacement is None or statement.level or not module.startswith(row.name):
        return None
    if statement.lineno != statement.end_lineno:  # a comment inside it would be lost
        return None
    names = ", ".join(
        alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"
        for alias in statement.names
    )
    new_module = row.replacement + module[len(row.name) :]
    return Fix(
        f"Import from `{new_module}` instead",
        (node_edit(ctx, statement, f"from {new_module} import {names}"),),
        _applicability(row),
    )
