"""Fix helpers for rewrites that need a module name: reuse the file's alias, or add an import."""

from __future__ import annotations

import ast

from jax_lsp.diagnostics.base import RuleContext
from jax_lsp.findings import Edit, Span


def module_alias(ctx: RuleContext, module: str) -> str | None:
    """A name that refers to `module` here (`jax` for `import jax`), or None."""
    name = ctx.resolvers[-1].name_for(module)
    if name is not None and ctx.qualname(ast.Name(name, ast.Load())) == module:
        return name
    return None


def ensure_import(ctx: RuleContext, module: str) -> tuple[str, tuple[Edit, ...]] | None:
    """The name to write for `module`, and the edits adding `import module` if it is missing.

    None when the name `module` is taken by something else (the import would shadow it).

    The import goes after the module's last top-level import; its edit is in document
    coordinates, so it stays right whichever unit the rule runs on.
    """
    alias = module_alias(ctx, module)
    if alias is not None:
        return alias, ()
    if ctx.model.resolver.binds(module) or module in ctx.model.global_kinds:
        return None
    line = ctx.model.import_insertion_line
    lines = ctx.model.document.lines
    if line >= len(lines):  # the last import ends a text without a final newline
        end = Span.of(len(lines) - 1, len(lines[-1]), len(lines) - 1, len(lines[-1]))
        return module, (Edit(end, f"\nimport {module}", absolute=True),)
    return module, (Edit(Span.of(line, 0, line, 0), f"import {module}\n", absolute=True),)
