"""The 64-bit fixes. JAX901 (a 64-bit dtype asked for with x64 off): enable 64-bit mode right
after the imports, as the JAX guide advises (the author who wrote `float64` asked for 64 bits),
or ask for the 32-bit dtype JAX computes in anyway. JAX902 (x64 enabled after arrays were
made): move the switch up to the imports. All unsafe."""

from __future__ import annotations

import ast

from jax_lsp.codeactions.import_edits import ensure_import
from jax_lsp.codeactions.site import FixSite, import_line_edit, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span

_ENABLE = '{jax}.config.update("jax_enable_x64", True)'
# The 32-bit dtype JAX computes in when a 64-bit one is asked for with x64 off.
_NARROW = {
    "float64": "float32",
    "int64": "int32",
    "uint64": "uint32",
    "complex128": "complex64",
    "double": "float32",
    "longlong": "int32",
    "ulonglong": "uint32",
    "cdouble": "complex64",
    "f8": "f4",
    "i8": "i4",
    "u8": "u4",
    "c16": "c8",
}


def x64_fixes(requested: ast.expr, line: int, ctx: FixSite) -> tuple[Fix | None, tuple[Fix, ...]]:
    """(main fix, alternatives): enabling 64-bit mode for the whole program first (what the
    request for 64 bits asks), the 32-bit dtype second. Both are unsafe: the switch changes
    every computation, the narrowing drops the request (see `Float64WithoutX64.fix_safety`)."""
    fixes = [
        fix for fix in (enable_x64_fix(line, ctx), _narrow_fix(requested, ctx)) if fix is not None
    ]
    return (fixes[0], tuple(fixes[1:])) if fixes else (None, ())


def _narrow_fix(requested: ast.expr, ctx: FixSite) -> Fix | None:
    """Ask for the 32-bit dtype JAX computes in anyway with x64 off: the same values, without
    the warning, and no change when the code is later run with x64 on elsewhere."""
    if isinstance(requested, ast.Constant) and isinstance(requested.value, str):
        narrow = _NARROW.get(requested.value)
        text = ctx.segment(requested)
        replacement = text.replace(requested.value, narrow) if narrow else None
    elif isinstance(requested, ast.Attribute):
        narrow = _NARROW.get(requested.attr)
        replacement = f"{ctx.segment(requested.value)}.{narrow}" if narrow else None
    elif isinstance(requested, ast.Name):
        module, _, name = (ctx.qualname(requested) or "").rpartition(".")
        narrow = _NARROW.get(name)
        spelled = ctx.qualname(ast.Name(id=narrow, ctx=ast.Load())) if narrow else None
        replacement = narrow if spelled == f"{module}.{narrow}" else None  # imported too
    else:
        replacement = None
    if replacement is None:
        return None
    return Fix(
        f"Use `{replacement}` (what JAX computes in now; drops the request for 64 bits)",
        (node_edit(ctx, requested, replacement),),
        Applicability.UNSAFE,
    )


def enable_x64_fix(line: int, ctx: FixSite) -> Fix | None:
    """Insert `jax.config.update("jax_enable_x64", True)` right after the leading imports,
    with an `import jax` when the module has none (`import jax.numpy as jnp` only); `line` is
    the document line of the code that needs 64 bits (the imports must come before it)."""
    if ctx.model.import_line > line:
        return None
    facts = ctx.model.x64
    if facts.jax_name is not None:
        statement = _ENABLE.format(jax=facts.jax_name)
    else:
        spelled = ensure_import(ctx, "jax")
        if spelled is None:
            return None
        name, import_edits = spelled
        statement = _ENABLE.format(jax=name)
        if import_edits:
            statement = f"import jax\n{statement}"  # one insertion: the import comes first
    return Fix(
        "Enable 64-bit mode for the whole program (every importer of this module)",
        (import_line_edit(ctx, statement),),
        Applicability.UNSAFE,
    )


def move_x64_fix(node: ast.Call, ctx: FixSite) -> Fix | None:
    """JAX902: the top-level `jax.config.update("jax_enable_x64", ...)` statement `node` moved
    up to the import line, above the arrays made before it."""
    facts = ctx.model.x64
    statement = ctx.parent
    if not (
        isinstance(statement, ast.Expr)
        and len(ctx.ancestors) == 2  # Module > Expr: a plain top-level statement
        and facts.first_array_line is not None
        and ctx.model.import_line <= facts.first_array_line
    ):
        return None
    start, end = statement.lineno - 1, statement.end_lineno
    # The whole lines move, so that a comment after the call goes with it; code sharing
    # them (`x = 1; jax.config.update(...)`) would be moved or deleted too: no fix then.
    after = ctx.lines[end - 1][statement.end_col_offset :].strip()
    if statement.col_offset != 0 or (after and not after.startswith("#")):
        return None
    moved = "".join(ctx.lines[start:end]).rstrip("\r\n")
    return Fix(
        "Move the x64 switch right after the imports",
        (import_line_edit(ctx, moved), Edit(Span.of(start, 0, end, 0), "")),
        Applicability.UNSAFE,
    )
