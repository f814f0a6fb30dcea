"""Imports a fix needs: spelling a module the way the module does, and adding the import.

`module_prefix` reuses the module's existing alias for a module (for rewrites that call a module
function, `jnp.logical_and(...)`); when there is none, `add_import_edit` inserts the import at
the module's import line (`analysis.header`; a document-anchored edit: the engine keys cached
findings on that position, so it never goes stale). `debug_nans_edit` inserts the
`jax_debug_nans` setting at the same line, with the same blank lines around it
(`site.header_insertion`). `unused_import_removal` takes an import away once a fix removed its
last use (`functools.partial` of a jit decorator made plain).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.header import import_blank_lines, import_insertion_line
from jax_lsp.analysis.imports import canonical
from jax_lsp.codeactions.site import FixSite, header_insertion, import_line_edit
from jax_lsp.findings import Edit, Position, Span
from jax_lsp.text import byte_col_to_char

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
    # ruff's formatter puts a blank line between imports and the code after them.
    block = ("" if binds_jax else f"import jax{newline}{newline}") + DEBUG_NANS + newline
    blank_lines = import_blank_lines(document, line, code=binds_jax)
    return header_insertion(document.lines, line, block, blank_lines, newline)


def unused_import_removal(document: Document, name: str, edits: Sequence[Edit]) -> Edit | None:
    """The edit removing the top-level import that binds `name` once a fix made of `edits`
    removed its last use: None while anything else may still use the name (a reference outside
    the edits' spans, a string naming it, as in `__all__`, the edits' new text, a unit that
    does not parse), when the import shares its lines with other code
    (`import os; from functools import partial`), or when it would touch one of `edits`."""
    binders = [
        (unit, statement)
        for unit in document.units
        if unit.tree is not None and name in unit.source.words()
        for statement in ast.walk(unit.tree)
        if isinstance(statement, ast.Import | ast.ImportFrom)
        and any(_bound_name(alias) == name for alias in statement.names)
    ]
    mentioned = re.compile(rf"\b{re.escape(name)}\b")
    if len(binders) != 1 or any(mentioned.search(e.content) for e in edits):
        return None
    unit, statement = binders[0]
    replaced = [e.span for e in edits]
    if statement not in unit.tree.body or _used_elsewhere(document, name, replaced, statement):
        return None
    removal = _statement_removal(document, unit.start_line, statement, name)
    if removal is None or any(_touch(removal.span, span) for span in replaced):
        return None
    return removal


def _touch(a: Span, b: Span) -> bool:
    return a.start <= b.end and b.start <= a.end


def _statement_removal(
    document: Document, offset: int, statement: ast.Import | ast.ImportFrom, name: str
) -> Edit | None:
    """The edit taking the alias binding `name` out of the statement, or the whole statement
    (its lines) when it binds nothing else."""
    start, end = statement.lineno - 1 + offset, statement.end_lineno - 1 + offset
    lines = document.lines
    first = byte_col_to_char(lines[start], statement.col_offset)
    last = byte_col_to_char(lines[end], statement.end_col_offset)
    if lines[start][:first].strip() or lines[end][last:].split("#")[0].strip(" \t;"):
        return None  # shares a line with other code
    if len(statement.names) > 1:
        alias = next(alias for alias in statement.names if _bound_name(alias) == name)
        line = alias.lineno - 1 + offset
        before = lines[line][: byte_col_to_char(lines[line], alias.col_offset)]
        after = lines[line][byte_col_to_char(lines[line], alias.end_col_offset) :]
        if start < line < end and not before.strip() and after.split("#")[0].strip() == ",":
            return Edit(Span.of(line, 0, line + 1, 0), "")  # a line of its own, with its comment
        kept = _without_alias(lines[start : end + 1], name)
        return None if kept is None else Edit(Span.of(start, first, end, last), kept)
    if end + 1 >= len(lines):  # the last line, without a newline after it
        return Edit(Span.of(start, 0, end, len(lines[end])), "")
    # No blank line left doubled (or leading the file) where the statement stood.
    previous_blank = start == 0 or not lines[start - 1].strip()
    if previous_blank and not lines[end + 1].strip() and end + 2 < len(lines):
        end += 1
    return Edit(Span.of(start, 0, end + 1, 0), "")


def _bound_name(alias: ast.alias) -> str:
    """The name an import alias binds (`import a.b` binds `a`)."""
    return alias.asname or alias.name.split(".")[0]


def _used_elsewhere(
    document: Document, name: str, removed: Sequence[Span], statement: ast.stmt
) -> bool:
    """Whether the module mentions `name` outside the import and the `removed` spans."""
    for unit in document.units:
        if name not in unit.source.words():
            continue
        if unit.tree is None or unit.source.blanked_lines:
            return True  # code that does not parse as typed: it may use the name
        for node in ast.walk(unit.tree):
            if node is statement:
                continue
            if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
                return True
            if isinstance(node, ast.Constant) and node.value == name:
                return True  # `__all__ = ["partial"]`, `getattr(module, "partial")`
            if isinstance(node, ast.Name) and node.id == name:
                line = node.lineno - 1 + unit.start_line
                at = Position(line, byte_col_to_char(document.lines[line], node.col_offset))
                if not any(span.start <= at < span.end for span in removed):
                    return True
    return False


def _without_alias(lines: list[str], name: str) -> str | None:
    """The import statement on `lines` without the alias binding `name`, its other names,
    comments and layout kept (libcst); None if it does not read as one import."""
    import libcst as cst

    try:
        module = cst.parse_module("\n".join(lines) + "\n")
    except cst.ParserSyntaxError:
        return None
    statement = module.body[0] if len(module.body) == 1 else None
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    node = statement.body[0]
    if not isinstance(node, cst.Import | cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
        return None
    names = list(node.names)
    gone = [i for i, alias in enumerate(names) if _cst_bound_name(alias) == name]
    if len(gone) != 1:
        return None
    dropped = names.pop(gone[0])
    if gone[0] == len(names):  # the last name: the one before it takes its (trailing) comma
        names[-1] = names[-1].with_changes(comma=dropped.comma)
    return module.code_for_node(node.with_changes(names=names))


def _cst_bound_name(alias) -> str:
    import libcst as cst

    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    dotted = cst.helpers.get_full_name_for_node(alias.name) or ""
    return dotted.split(".")[0]
