"""Fix helpers for rewrites that call a module function (`jnp.logical_and(...)`).

`module_prefix` reuses the module's existing alias for a module; when there is none,
`add_import_edit` inserts the import. The import goes right before the enclosing top-level
statement, not after the last import: findings are cached per top-level unit with unit-relative
positions, so an edit elsewhere in the file would go stale when lines above the unit change.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.imports import canonical, import_bindings
from jax_lsp.diagnostics.base import RuleContext
from jax_lsp.findings import Edit, Span


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


def add_import_edit(ctx: RuleContext, module: str, alias: str) -> Edit | None:
    """An Edit inserting `import module as alias` before the enclosing top-level statement,
    or None when `alias` is already taken in the module."""
    if alias in _module_bindings(ctx) or alias in ctx.model.global_kinds:
        return None
    if ctx.qualname(ast.Name(id=alias, ctx=ast.Load())) is not None:
        return None  # a builtin of that name
    return Edit(Span.of(0, 0, 0, 0), f"import {module} as {alias}\n")


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
    adding `import module` after the module's last top-level import when there is none.

    The edit is in document coordinates (`absolute`), and the insertion line is part of each
    unit's cache key, so a cached fix stays right when lines above move. None when the name
    `module` is taken by something else.
    """
    prefix = module_prefix(ctx, module)
    if prefix is not None:
        return prefix, ()
    if module in _module_bindings(ctx) or module in ctx.model.global_kinds:
        return None
    line = ctx.model.import_insertion_line
    lines = ctx.model.document.lines
    if line >= len(lines):  # the last import ends a text without a final newline
        end = Span.of(len(lines) - 1, len(lines[-1]), len(lines) - 1, len(lines[-1]))
        return module, (Edit(end, f"\nimport {module}", absolute=True),)
    return module, (Edit(Span.of(line, 0, line, 0), f"import {module}\n", absolute=True),)
