"""Is an expression a boolean array? Comparisons, `~mask`, `a & b`, `jnp.isnan(x)`, ... and
local names bound only to such expressions in the same function. Read by rules (JAX702,
JAX801) and by the `jnp.logical_*` fix, which is safe only on boolean operands."""

from __future__ import annotations

import ast
from typing import Protocol

from jax_lsp.analysis.nodes import walk_nodes

# The `jax.numpy` function each logic operator becomes (`not` is "logical_not").
LOGIC_FUNCTIONS = {ast.And: "logical_and", ast.Or: "logical_or"}


def is_logic(node: ast.AST) -> bool:
    """`a and b`, `a or b`, `not a`: Python tests an operand's truth."""
    return isinstance(node, ast.BoolOp) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


class Scope(Protocol):
    """Where an expression stands: its enclosing functions and its names' meaning."""

    functions: list[ast.AST]  # enclosing FunctionDef/Lambda nodes, innermost last

    def qualname(self, node: ast.AST) -> str | None: ...


# jax.numpy functions whose result is a boolean array.
BOOLEAN_FUNCTIONS = frozenset(
    f"jax.numpy.{name}"
    for name in [
        "isnan",
        "isfinite",
        "isinf",
        "isneginf",
        "isposinf",
        "isclose",
        "signbit",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "equal",
        "not_equal",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "isin",
        "all",  # reductions to a boolean array
        "any",
        "allclose",
        "array_equal",
        "array_equiv",
    ]
)
# Methods of a JAX array that reduce it to a boolean array (`jnp.isnan(x).any()`).
_BOOLEAN_METHODS = frozenset(("all", "any"))
_MAX_NAME_DEPTH = 3


def is_boolean(node: ast.expr, ctx: Scope, depth: int = 0) -> bool:
    """A boolean-valued expression (as far as the text shows; unsure means False)."""
    if isinstance(node, ast.Compare):
        return not any(isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in node.ops)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.Invert):
        return is_boolean(node.operand, ctx, depth)
    if isinstance(node, ast.BoolOp):
        return all(is_boolean(value, ctx, depth) for value in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr | ast.BitXor):
        return is_boolean(node.left, ctx, depth) and is_boolean(node.right, ctx, depth)
    if isinstance(node, ast.Call):
        if ctx.qualname(node.func) in BOOLEAN_FUNCTIONS:
            return True
        # `.any()`/`.all()` of what a jax.numpy call returns (an array, whatever its dtype).
        func = node.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr in _BOOLEAN_METHODS
            and isinstance(func.value, ast.Call)
            and (ctx.qualname(func.value.func) or "").startswith("jax.numpy.")
        )
    if isinstance(node, ast.Name) and depth < _MAX_NAME_DEPTH:
        values = _local_bindings(node.id, ctx)
        return bool(values) and all(is_boolean(value, ctx, depth + 1) for value in values)
    return False


def _local_bindings(name: str, ctx: Scope) -> list[ast.expr]:
    """Every value bound to `name` in the enclosing function, or [] when any binding is not a
    plain `name = value` (loop targets, unpacking, parameters, augmented assignment)."""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    if any(arg.arg == name for arg in parameters):
        return []
    values: list[ast.expr] = []
    stores = 0
    for node in walk_nodes(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stores += 1
        value = _bound_value(node, name)
        if value is not None:
            values.append(value)
    return values if stores == len(values) else []


def _is_name(target: ast.expr, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name


def _bound_value(node: ast.AST, name: str) -> ast.expr | None:
    """The value `node` binds to the plain name `name` (`name = v`, `name: T = v`, `name := v`)."""
    if isinstance(node, ast.Assign) and any(_is_name(t, name) for t in node.targets):
        return node.value
    if isinstance(node, ast.AnnAssign | ast.NamedExpr) and _is_name(node.target, name):
        return node.value
    return None
