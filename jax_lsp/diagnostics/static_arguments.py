"""Traced values given to parameters that JAX needs as Python values (JAX703, JAX803).

The parameters come from static_parameters.py, measured on JAX: a shape, a length or slice
bounds (JAX803), or an axis, a flag or an offset (JAX703).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_lsp.diagnostics.base import RuleContext
from jax_lsp.diagnostics.static_parameters import METHOD_PARAMETERS, STATIC_PARAMETERS
from jax_lsp.diagnostics.traced_values import is_traced

# A keyword that lets the parameter be traced after all: `jnp.repeat(x, r,
# total_repeat_length=n)` (tests/rules/test_static_table.py measures it).
UNLESS_KEYWORD = {("jax.numpy.repeat", "repeats"): "total_repeat_length"}
# Python conversions that keep a traced value's traced-ness for this purpose: `int(m)` of a
# traced `m` is no Python value either (it raises before the shape is even built).
_CONVERSIONS = frozenset({"builtins.int", "builtins.float", "builtins.round"})


@dataclass(frozen=True)
class StaticArgument:
    """A traced value at fault in a parameter that must be static."""

    function: str  # as the user wrote it: `jnp.zeros`, `random.randint`, `.sum`
    parameter: str
    traced: ast.expr
    error: str  # measured


def traced_static_argument(node: ast.Call, ctx: RuleContext, code: str) -> StaticArgument | None:
    """The first parameter of `node` that JAX needs static (reported by `code`) and that
    holds a traced value, or an element of a tuple/list built from one."""
    func = node.func
    qualname = ctx.qualname(func)
    if qualname is not None:
        entries = STATIC_PARAMETERS.get(qualname, ())
        label = _short(qualname, func, ctx)
    elif isinstance(func, ast.Attribute) and func.attr in METHOD_PARAMETERS:
        if _is_index_update(func.value) or not is_traced(ctx, func.value):
            return None  # `x.at[i].min(v)` is an update, not a reduction
        entries, label = METHOD_PARAMETERS[func.attr], f"`.{func.attr}()`"
        qualname = f"jax.numpy.{func.attr}"
    else:
        return None
    if any(isinstance(arg, ast.Starred) for arg in node.args) or any(
        keyword.arg is None for keyword in node.keywords
    ):
        return None  # `*args` / `**kwargs`: which argument lands where is unknown
    for parameter, position, entry_code, error in entries:
        if entry_code != code:
            continue
        unless = UNLESS_KEYWORD.get((qualname, parameter))
        if unless is not None and any(k.arg == unless for k in node.keywords):
            continue
        argument = _argument(node, position, parameter)
        traced = traced_part(argument, ctx)
        if traced is not None:
            return StaticArgument(label, _as_called(qualname, parameter, node), traced, error)
    return None


def _as_called(qualname: str, parameter: str, node: ast.Call) -> str:
    """The parameter as the call uses it: `jnp.arange(n)` alone is the stop (the length), which
    a message calling it `start` hides from a reader who wrote a length."""
    alone = len(node.args) == 1 and not any(keyword.arg == "stop" for keyword in node.keywords)
    if qualname == "jax.numpy.arange" and parameter == "start" and alone:
        return "stop"
    return parameter


def traced_part(node: ast.expr | None, ctx: RuleContext) -> ast.expr | None:
    """`node` if it is traced, or the traced value inside a tuple/list of it (`(n, 3)`,
    `((0, p), (0, 0))`) or converted by `int()`/`float()`/`round()`."""
    if node is None:
        return None
    if isinstance(node, ast.Tuple | ast.List):
        return next((t for e in node.elts if (t := traced_part(e, ctx)) is not None), None)
    if isinstance(node, ast.Starred):
        return traced_part(node.value, ctx)
    if (
        isinstance(node, ast.Call)
        and ctx.qualname(node.func) in _CONVERSIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        return traced_part(node.args[0], ctx)
    return node if is_traced(ctx, node) else None


def _argument(node: ast.Call, position: int | None, name: str) -> ast.expr | None:
    if position is not None and position < len(node.args):
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg == name), None)


def _short(qualname: str, func: ast.expr, ctx: RuleContext) -> str:
    """The function as written (`np.arange` where `np` is jax.numpy), else `jnp.`-style."""
    written = ctx.segment(func)
    if written.count("\n") == 0 and len(written) <= 40:
        return f"`{written}`"
    return "`" + qualname.replace("jax.numpy.", "jnp.").replace("jax.", "") + "`"


def _is_index_update(node: ast.expr) -> bool:
    """`x.at[i]`: its methods (`min`, `max`, ...) take values, not axes."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "at"
    )
