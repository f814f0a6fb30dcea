"""A PRNG key built in a default argument (JAX604) made a required argument: the default
becomes `None`, and the function raises when a caller leaves it out, so no caller keeps
drawing the numbers of the one key built when the function was defined."""

from __future__ import annotations

import ast

from jax_lsp.codeactions.site import FixSite, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span


def require_key_fix(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    parameter: str,
    default: ast.expr,
    ctx: FixSite,
) -> Fix | None:
    """`def f(x, key=jax.random.PRNGKey(0)):` -> `def f(x, key=None):` and, first in the body
    (after the docstring), `if key is None: raise TypeError(...)`. Unsafe: callers that
    relied on the default now fail, which is the point: each must pass its own key."""
    body = function.body
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        if len(body) == 1:
            return None
        first = body[1]
    if first.lineno == function.lineno:  # `def f(key=...): return ...` on one line
        return None
    decorators = getattr(first, "decorator_list", [])
    line = min([first.lineno, *(d.lineno for d in decorators)]) - 1
    text = ctx.lines[line]
    indent = text[: len(text) - len(text.lstrip())]
    message = f"{function.name}() needs a PRNG key: pass {parameter}=jax.random.key(seed)"
    guard = f"{indent}if {parameter} is None:\n{indent}    raise TypeError({message!r})\n"
    return Fix(
        f"Default `{parameter}` to `None` and require a key",
        (node_edit(ctx, default, "None"), Edit(Span.of(line, 0, line, 0), guard)),
        Applicability.UNSAFE,
    )
