"""Whether a function uses a parameter only in ways a tuple supports exactly as a list does:
then a caller may pass `(a, b)` for `[a, b]` without changing what the function does.

A tuple iterates, indexes, measures and tests membership like a list, and JAX and NumPy take
either as a shape or axes. Anything else may tell them apart: `dims + [1]` raises TypeError,
`axes.sort()` AttributeError, `x[idx]` indexes other elements (a list is an advanced index, a
tuple one index per dimension), `p == [1, 2]` is False, and code the function hands the value
to may do any of these.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.summary import FunctionNode

# Builtins whose result is the same for a list and a tuple of the same items.
_ALIKE_BUILTINS = frozenset(
    {"len", "tuple", "list", "set", "frozenset", "sorted", "sum", "min", "max", "any", "all"}
    | {"enumerate", "zip", "reversed", "iter"}
)
# Keywords of JAX and NumPy functions and array methods that take a shape or axes.
_SHAPE_KEYWORDS = frozenset(
    {"axis", "axes", "shape", "newshape", "new_sizes", "dimensions", "sizes", "permutation"}
    | {"broadcast_dimensions", "out_shape", "source", "destination"}
)
# JAX and NumPy functions whose positional argument at the index is a shape or axes.
_SHAPE_POSITIONS = {
    "zeros": 0,
    "ones": 0,
    "empty": 0,
    "full": 0,
    "reshape": 1,
    "transpose": 1,
    "broadcast_to": 1,
    "expand_dims": 1,
    "squeeze": 1,
    "moveaxis": 1,
    "tile": 1,
}
_RANDOM_SHAPE_POSITION = 1  # jax.random.normal(key, shape)
_ARRAY_METHODS = frozenset({"reshape", "transpose"})  # x.reshape(dims), x.transpose(axes)
_ARRAY_MODULES = ("jax.numpy.", "jax.lax.", "numpy.", "jax.random.")


def used_as_tuple_alike(function: FunctionNode, parameter: str, resolver: Resolver) -> bool:
    """Every use of `parameter` in `function` is one a tuple supports as a list does."""
    if isinstance(function, ast.Lambda):
        body: list[ast.AST] = [function.body]
    else:
        body = list(function.body)
    parents: dict[ast.AST, ast.AST] = {}
    for statement in body:
        for node in ast.walk(statement):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Global | ast.Nonlocal) and parameter in node.names:
                return False
            if not (isinstance(node, ast.Name) and node.id == parameter):
                continue
            if not isinstance(node.ctx, ast.Load):
                return False  # rebound: what it then holds is not followed
            if not _alike_use(node, parents, resolver):
                return False
    return True


def _alike_use(name: ast.expr, parents: dict[ast.AST, ast.AST], resolver: Resolver) -> bool:
    """`name` (the parameter, or a slice of it: a list of a list, a tuple of a tuple) is used
    as a tuple would be used alike."""
    parent = parents.get(name)
    if isinstance(parent, ast.For | ast.comprehension):
        return parent.iter is name
    if isinstance(parent, ast.Subscript):
        if parent.value is not name or not isinstance(parent.ctx, ast.Load):
            return False
        return not isinstance(parent.slice, ast.Slice) or _alike_use(parent, parents, resolver)
    if isinstance(parent, ast.Assign):  # `t0, t1 = t_span`
        return parent.value is name and all(
            isinstance(t, ast.Tuple | ast.List) for t in parent.targets
        )
    if isinstance(parent, ast.Compare):
        index = next(i for i, o in enumerate([parent.left, *parent.comparators]) if o is name)
        ops = parent.ops
        # `v in p`: p is a right operand of `in`
        return index > 0 and isinstance(ops[index - 1], ast.In | ast.NotIn)
    if isinstance(parent, ast.keyword):
        call = parents.get(parent)
        return (
            isinstance(call, ast.Call)
            and parent.arg in _SHAPE_KEYWORDS
            and _array_call(call, resolver)
        )
    if isinstance(parent, ast.Call) and any(a is name for a in parent.args):
        index = next(i for i, a in enumerate(parent.args) if a is name)
        return _alike_argument(parent, index, resolver)
    return False


def _array_call(call: ast.Call, resolver: Resolver) -> bool:
    """A call of a JAX or NumPy function, or of a method a JAX or NumPy array has."""
    qualname = resolver.qualname(call.func) or ""
    if qualname.startswith(_ARRAY_MODULES):
        return True
    return isinstance(call.func, ast.Attribute) and resolver.qualname(call.func) is None


def _alike_argument(call: ast.Call, index: int, resolver: Resolver) -> bool:
    func = call.func
    if isinstance(func, ast.Name) and func.id in _ALIKE_BUILTINS:
        return resolver.qualname(func) in (None, f"builtins.{func.id}")
    qualname = resolver.qualname(func) or ""
    if qualname.startswith(_ARRAY_MODULES):
        last = qualname.rsplit(".", 1)[-1]
        if qualname.startswith("jax.random."):
            return index == _RANDOM_SHAPE_POSITION
        return _SHAPE_POSITIONS.get(last) == index
    if isinstance(func, ast.Attribute) and resolver.qualname(func) is None:
        return func.attr in _ARRAY_METHODS  # x.reshape(dims): any position is the shape
    return False
