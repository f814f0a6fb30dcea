"""Fix helpers for rewrites that call a module function (`jnp.logical_and(...)`).

`module_prefix` reuses the module's existing alias for a module; when there is none,
`add_import_edit` inserts the import after the module's leading imports (a document-anchored
edit: the engine keys cached findings on that position, so it never goes stale).
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.imports import canonical, import_bindings
from jax_lsp.diagnostics.base import RuleContext
from jax_lsp.findings import Edit


def _module_bindings(ctx: RuleContext) -> dict[str, str]:
    """Top-level import bindings of the whole document: local name -> qualified name."""
    bindings: dict[str, str] = {}
    for unit in ctx.model.document.units:
        if unit.tree is not None:
            bindings.update(import_bindings(unit.tree.body))
    return bindings


def _resolves_here(ctx: RuleContext, name: str, module: str) -> bool:
    """Does `name` mean `module` at this point (not shadowed by a parameter or local)?"""
    return ctx.qualname(ast.Name(id=name, ctx=ast.Load())) == module


def module_prefix(ctx: RuleContext, module: str) -> str | None:
    """How code here can spell `module` ("jnp" or "jax.numpy"), or None if it cannot yet."""
    bindings = _module_bindings(ctx)
    for name, qualname in sorted(bindings.items()):
        if canonical(qualname) == module and _resolves_here(ctx, name, module):
            return name
    head, _, tail = module.partition(".")
    if tail and bindings.get(head) == head and _resolves_here(ctx, head, head):
        return module  # `import jax` is enough for `jax.numpy.logical_and`
    return None


def name_is_free(ctx: RuleContext, name: str) -> bool:
    """No import, global or builtin of the module is called `name`: an import may bind it."""
    if name in _module_bindings(ctx) or name in ctx.model.global_kinds:
        return False
    return ctx.qualname(ast.Name(id=name, ctx=ast.Load())) is None


def add_import_edit(ctx: RuleContext, module: str, alias: str) -> Edit | None:
    """An Edit inserting `import module as alias` after the module's imports, or None when
    `alias` is already taken in the module."""
    if not name_is_free(ctx, alias):
        return None
    return ctx.import_edit(f"import {module} as {alias}")


def module_prefix_and_edits(
    ctx: RuleContext, module: str, alias: str
) -> tuple[str, tuple[Edit, ...]] | None:
    """The spelling of `module` to use and the edits (an import, if needed) that make it valid."""
    prefix = module_prefix(ctx, module)
    if prefix is not None:
        return prefix, ()
    edit = add_import_edit(ctx, module, alias)
    return (alias, (edit,)) if edit is not None else None


def ensure_import(ctx: RuleContext, module: str) -> tuple[str, tuple[Edit, ...]] | None:
    """The name to write for `module` (`jax`, or the module's alias for it), and the edit
    adding a plain `import module` when there is none; None when the name is taken."""
    prefix = module_prefix(ctx, module)
    if prefix is not None:
        return prefix, ()
    if module in _module_bindings(ctx) or module in ctx.model.global_kinds:
        return None
    return module, (ctx.import_edit(f"import {module}"),)
