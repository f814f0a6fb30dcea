"""Whether two values a `jnp.where` selects between are known to have one shape and kind of
element. `jnp.where(c, a, b)` broadcasts `a` and `b` against each other and promotes them to
one dtype, where the Python `if` it replaces gave one of them as it is: `y = x[0] if c else x`
becomes a vector in both branches (or raises when the shapes do not broadcast).

A value's shape is the broadcast of its operands (`broadcast_operands`): arithmetic, comparisons
and elementwise functions (`jnp.sin`, `jnp.maximum`) give the broadcast of what they combine,
and a Python number adds nothing. Anything else (`x.T`, `jnp.dot(a, b)`, a call) is an operand
of its own, named by its code; an element read at literal indices (`y[0]`) is named by the
array and how many axes the index takes, since `y[0]` has the shape of `y[1]`. Two values
over the same operands broadcast alike; an operand of the `if` test, combined elementwise into
the tested value, holds one element (the test of a Python `if` must), so it adds nothing
either.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.elementwise import ELEMENTWISE_FUNCTIONS
from jax_lsp.analysis.nodes import all_params
from jax_lsp.codeactions.site import FixSite

# Functions whose result has the shape of their first argument, and those that fill a shape.
_FIRST_SHAPED = frozenset(
    f"jax.numpy.{name}" for name in ("triu", "tril", "zeros_like", "ones_like", "full_like")
)
_FILLED = frozenset(f"jax.numpy.{name}" for name in ("ones", "zeros", "empty", "full"))
# Keywords of those functions that take an array operand; another (`dtype=`) is no operand.
_OPERAND_KEYWORDS = frozenset({"min", "max", "a_min", "a_max", "x1", "x2", "nan"})
# Methods of an array that keep its shape, and attributes that keep it.
_SHAPE_KEEPING_METHODS = frozenset({"astype", "clip", "conj", "round"})
_SHAPE_KEEPING_ATTRIBUTES = frozenset({"real", "imag"})
# Builtins that give a Python number (a scalar).
_NUMBER_BUILTINS = frozenset({"builtins.len", "builtins.int", "builtins.float"})


def broadcast_operands(node: ast.expr, ctx: FixSite) -> frozenset[str]:
    """The operands whose broadcast is `node`'s shape, each as its code (`ast.dump`); empty
    for a Python number."""
    if _python_number(node, ctx):
        return frozenset()
    if isinstance(node, ast.UnaryOp):
        return broadcast_operands(node.operand, ctx)
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        return broadcast_operands(node.left, ctx) | broadcast_operands(node.right, ctx)
    if isinstance(node, ast.Compare):
        parts = (node.left, *node.comparators)
        return frozenset().union(*(broadcast_operands(part, ctx) for part in parts))
    if isinstance(node, ast.Attribute) and node.attr in _SHAPE_KEEPING_ATTRIBUTES:
        return broadcast_operands(node.value, ctx)
    if isinstance(node, ast.Call):
        made = _made_in_shape_of(node, ctx)
        if made is not None:  # `jnp.ones(x.shape)`: x's shape
            return broadcast_operands(made, ctx)
        operands = _elementwise_operands(node, ctx)
        if operands is not None:
            return frozenset().union(*(broadcast_operands(operand, ctx) for operand in operands))
    if isinstance(node, ast.Subscript):
        depth = _integer_index_depth(node.slice)
        if depth:  # `y[0]` has the shape of `y[1]`: an element (or row) of `y`
            return frozenset({f"{depth} in {ast.dump(node.value)}"})
    return frozenset({ast.dump(node)})


def _integer_index_depth(index: ast.expr) -> int:
    """How many axes an index of integer literals takes (`[0]`: 1, `[0, -1]`: 2); 0 for
    another index."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in parts:
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
            part = part.operand
        if not (isinstance(part, ast.Constant) and type(part.value) is int):
            return 0
    return len(parts)


def _made_in_shape_of(call: ast.Call, ctx: FixSite) -> ast.expr | None:
    """`x` of `jnp.ones(x.shape, ...)` (`zeros`, `empty`, `full`)."""
    if ctx.qualname(call.func) not in _FILLED or not call.args:
        return None
    shape = call.args[0]
    if isinstance(shape, ast.Attribute) and shape.attr == "shape":
        return shape.value
    return None


def _elementwise_operands(call: ast.Call, ctx: FixSite) -> list[ast.expr] | None:
    """The array operands of an elementwise call (`jnp.maximum(x, 0)`, `x.astype(f)`'s `x`);
    None for any other call."""
    if any(isinstance(argument, ast.Starred) for argument in call.args):
        return None
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _SHAPE_KEEPING_METHODS
        and ctx.qualname(func) is None  # a method of a value, not a module function
    ):
        if func.attr == "clip":  # its bounds broadcast with the array
            return [func.value, *call.args, *(keyword.value for keyword in call.keywords)]
        return [func.value]  # the arguments are a dtype or decimals
    qualname = ctx.qualname(func)
    if qualname in _FIRST_SHAPED and call.args:
        return [call.args[0]]  # the other arguments pick a diagonal or give a fill value
    if qualname not in ELEMENTWISE_FUNCTIONS and not (
        qualname == "jax.numpy.where" and len(call.args) == 3
    ):
        return None  # `jnp.where(mask)` alone gives indices
    if any(keyword.arg not in _OPERAND_KEYWORDS for keyword in call.keywords):
        return None
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _python_number(node: ast.expr, ctx: FixSite) -> bool:
    """A Python number: a literal, `len(...)`/`int(...)`/`float(...)`, `x.shape[i]` (not
    `x.size`: an object's own `size` may be an array)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool | int | float | complex)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return ctx.qualname(node.func) in _NUMBER_BUILTINS
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
        and not isinstance(node.slice, ast.Slice)
    )


def _is_bool(node: ast.expr, ctx: FixSite) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    return is_boolean(node, ctx)


def _tested_operands(test: ast.expr, ctx: FixSite) -> frozenset[str]:
    """The operands of an `if` test, each of one element: Python tests the truth of each
    operand of `and`/`or`/`not`, and only an array of one element has one."""
    if isinstance(test, ast.BoolOp):
        return frozenset().union(*(_tested_operands(value, ctx) for value in test.values))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tested_operands(test.operand, ctx)
    return broadcast_operands(test, ctx)


def select_alike(first: ast.expr, second: ast.expr, test: ast.expr, ctx: FixSite) -> bool:
    """Are `first` and `second` known to have one shape, the one `jnp.where(test, first,
    second)` gives, and both booleans or both numbers (so that the selected value is the
    branch's value, neither broadcast nor turned from a boolean into a number)?"""
    if _is_bool(first, ctx) != _is_bool(second, ctx):
        return False
    one_element = _tested_operands(test, ctx)
    return broadcast_operands(first, ctx) - one_element == (
        broadcast_operands(second, ctx) - one_element
    )


def has_shape_of(mask: ast.expr, array: ast.expr, ctx: FixSite) -> bool:
    """Is the boolean index `mask` of `array[mask]` known to have `array`'s whole shape (so
    that `jnp.where(mask, v, array)` puts `v` where the index would)? So when `array` is among
    the operands of its broadcast (a boolean index has at most the array's axes); a name
    bound once in the function stands for its value (`mask = jnp.triu(jnp.ones(x.shape))`)."""
    return ast.dump(array) in broadcast_operands(_bound_value(mask, ctx), ctx)


def _bound_value(node: ast.expr, ctx: FixSite) -> ast.expr:
    """The value of a name the enclosing function binds once (`mask = x > 0`), else `node`."""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(node, ast.Name) or not isinstance(
        function, ast.FunctionDef | ast.AsyncFunctionDef
    ):
        return node
    stores = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Store)
    ]
    if len(stores) != 1 or node.id in all_params(function):
        return node
    for statement in ast.walk(function):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and statement.targets[0] is stores[0]
        ):
            return statement.value
    return node
