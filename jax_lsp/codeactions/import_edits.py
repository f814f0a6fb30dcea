"""Imports a fix needs: spelling a module the way the module does, and adding the import.

`module_prefix` reuses the module's existing alias for a module (for rewrites that call a module
function, `jnp.logical_and(...)`); when there is none, `add_import_edit` inserts the import at
the module's import line (`analysis.header`; a document-anchored edit: the engine keys cached
findings on that position, so it never goes stale). `debug_nans_edit` inserts the
`jax_debug_nans` setting at the same line.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.header import import_insertion_line
from jax_lsp.analysis.imports import canonical
from jax_lsp.codeactions.site import FixSite, import_line_edit
from jax_lsp.findings import Edit, Span

DEBUG_NANS = 'jax.config.update("jax_debug_nans", True)'


def _module_bindings(ctx: FixSite) -> dict[str, str]:
    """Top-level import bindings of the whole document: local name -> qualified name (merged
    once per model: a fix per finding, each walking every unit, was quadratic in a long file)."""
    return ctx.model.import_bindings


def _resolves_here(ctx: FixSite, name: str, module: str) -> bool:
    """Does `name` mean `module` at this point (not shadowed by a parameter or local)?"""
    return ctx.qualname(ast.Name(id=name, ctx=ast.Load())) == module


def module_prefix(ctx: FixSite, module: str) -> str | None:
    """How code here can spell `module` ("jnp" or "jax.numpy"), or None if it cannot yet."""
    bindings = _module_bindings(ctx)
    for name, qualname in sorted(bindings.items()):
        if canonical(qualname) == module and _resolves_here(ctx, name, module):
            return name
    head, _, tail = module.partition(".")
    if tail and bindings.get(head) == head and _resolves_here(ctx, head, head):
        return module  # `import jax` is enough for `jax.numpy.logical_and`
    return None


def name_is_free(ctx: FixSite, name: str) -> bool:
    """No import, global or builtin of the module is called `name`: an import may bind it."""
    if name in _module_bindings(ctx) or name in ctx.model.global_kinds:
        return False
    return ctx.qualname(ast.Name(id=name, ctx=ast.Load())) is None


def add_import_edit(ctx: FixSite, module: str, alias: str) -> Edit | None:
    """An Edit inserting `import module as alias` after the module's imports, or None when
    `alias` is already taken in the module."""
    if not name_is_free(ctx, alias):
        return None
    return import_line_edit(ctx, f"import {module} as {alias}")


def module_prefix_and_edits(
    ctx: FixSite, module: str, alias: str
) -> tuple[str, tuple[Edit, ...]] | None:
    """The spelling of `module` to use and the edits (an import, if needed) that make it valid."""
    prefix = module_prefix(ctx, module)
    if prefix is not None:
        return prefix, ()
    edit = add_import_edit(ctx, module, alias)
    return (alias, (edit,)) if edit is not None else None


def ensure_import(ctx: FixSite, module: str) -> tuple[str, tuple[Edit, ...]] | None:
    """The name to write for `module` (`jax`, or the module's alias for it), and the edit
    adding a plain `import module` when there is none; None when the name is taken."""
    prefix = module_prefix(ctx, module)
    if prefix is not None:
        return prefix, ()
    if module in _module_bindings(ctx) or module in ctx.model.global_kinds:
        return None
    return module, (import_line_edit(ctx, f"import {module}"),)


def insert_lines(lines: list[str], line: int, block: str, newline: str = "\n") -> Edit:
    """The edit inserting `block` (whole lines, each ending in `newline`) before `line`; past
    the last line of a text without a final newline, after a newline added to that line."""
    if line >= len(lines):
        end = len(lines) - 1
        at_end = Span.of(end, len(lines[end]), end, len(lines[end]))
        return Edit(at_end, newline + block.removesuffix(newline))
    return Edit(Span.of(line, 0, line, 0), block)


def debug_nans_edit(document: Document, newline: str) -> Edit | None:
    """Insert `jax.config.update("jax_debug_nans", True)` at the import line (with `import jax`
    when no import above it binds `jax`); None when the module mentions the setting already."""
    if "jax_debug_nans" in document.text:
        return None
    line = import_insertion_line(document)
    above = [
        statement
        for unit in document.units
        if unit.tree is not None and unit.start_line < line
        for statement in unit.tree.body  # not under `if TYPE_CHECKING:`: bound at run time
        if isinstance(statement, ast.Import)
    ]
    binds_jax = any(
        alias.asname in (None, "jax") and alias.name.split(".")[0] == "jax"
        for statement in above
        for alias in statement.names
    )
    block = ("" if binds_jax else f"import jax{newline}") + DEBUG_NANS + newline
    return insert_lines(document.lines, line, block, newline)
