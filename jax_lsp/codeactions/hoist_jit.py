"""JAX1001's fix: a `jax.jit(lambda ...)` (or a jit of a transformation made on the spot,
`jax.jit(jax.grad(loss))`) created in a loop is created once, before the loop.

`step = jax.jit(lambda v: ...)` directly in the loop body moves above the loop; any other such
jit in a loop that is not nested in another (`x = jax.jit(lambda v: ...)(x)`) is bound to a
fresh name above the loop and used through it. Only when the jit call reads no name the
loop binds (its target, or any name assigned in its body): the function then computes the same
thing on every iteration. Unsafe:
the lambda now reads the names it uses once per loop, not once per iteration (a global rebound
inside a called function would be missed), and the jit is created even if the loop never runs.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.names import assigned_name, stored_names
from jax_lsp.codeactions.site import FixSite, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def hoist_jit_fix(call: ast.Call, loops: list[ast.AST], ctx: FixSite) -> Fix | None:
    """Move the jit `call` out of the innermost of `loops` (innermost first)."""
    loop = loops[0]
    if not isinstance(loop, _LOOPS) or _reads_loop_names(call, loop):
        return None
    loop_line = loop.lineno - 1
    indent = ctx.lines[loop_line][: ctx.span(loop).start.column]
    above = Span.of(loop_line, 0, loop_line, 0)
    statement = ctx.parent
    if (
        isinstance(statement, ast.Assign)
        and statement in loop.body
        and len(loop.body) > 1
        and assigned_name(statement) is not None
        and _bound_once(assigned_name(statement), loop)
    ):
        moved = _whole_lines(statement, indent, ctx)
        if moved is None:
            return None
        text, removed = moved
        edits = (Edit(above, text), Edit(removed, ""))
        return Fix("Create the jitted function once, before the loop", edits, Applicability.UNSAFE)
    if len(loops) > 1:
        # A fresh name bound inside an outer loop could clash with one another fix of the
        # same pass binds around it; names above outermost loops are bound in sequence.
        return None
    name = _fresh_name("jitted", ctx)
    edits = (Edit(above, f"{indent}{name} = {ctx.segment(call)}\n"), node_edit(ctx, call, name))
    return Fix(f"Jit once before the loop, as `{name}`", edits, Applicability.UNSAFE)


def _reads_loop_names(call: ast.Call, loop: ast.AST) -> bool:
    """`call` reads a name the loop binds (its target, its body's assignments, ...)."""
    parameters = {node.arg for node in ast.walk(call) if isinstance(node, ast.arg)}
    read = {
        node.id
        for node in ast.walk(call)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    return not (read - parameters).isdisjoint(stored_names(loop))


def _bound_once(name: str, loop: ast.AST) -> bool:
    """`name` is bound by exactly one assignment in the loop (the jit being hoisted)."""
    stores = [
        node
        for statement in loop.body
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
    ]
    return len(stores) == 1 and sum(name in stored_names(s) for s in loop.body) == 1


def _whole_lines(statement: ast.stmt, indent: str, ctx: FixSite) -> tuple[str, Span] | None:
    """The statement's lines re-indented to `indent`, and the span removing them; None when
    the statement shares a line with another one."""
    first, last = statement.lineno - 1, statement.end_lineno - 1
    span = ctx.span(statement)
    own_indent = ctx.lines[first][: span.start.column]
    rest = ctx.lines[last][span.end.column :].strip()
    if own_indent.strip() or (rest and not rest.startswith("#")):
        return None
    if not own_indent.startswith(indent):
        return None
    extra = len(own_indent) - len(indent)
    lines = [
        line[extra:] if line[:extra].isspace() else line for line in ctx.lines[first : last + 1]
    ]
    text = "\n".join(lines) + "\n"
    if last + 1 < len(ctx.lines):
        removed = Span.of(first, 0, last + 1, 0)
    else:  # the unit's last line: remove it with the newline before it
        removed = Span.of(first - 1, len(ctx.lines[first - 1]), last, len(ctx.lines[last]))
    return text, removed


def _fresh_name(base: str, ctx: FixSite) -> str:
    """`base`, or `base_2`, ...: a name no identifier of the unit or module uses."""
    used = set(ctx.model.global_kinds)
    tree = ctx.ancestors[0] if ctx.ancestors else None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.arg):
            used.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            used.add(node.name)
        elif isinstance(node, ast.alias):
            used.add((node.asname or node.name).partition(".")[0])
    name, suffix = base, 1
    while name in used or ctx.qualname(ast.Name(id=name, ctx=ast.Load())) is not None:
        suffix += 1
        name = f"{base}_{suffix}"
    return name
