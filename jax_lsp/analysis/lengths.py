"""Where code counts the entries of an array: its length (`len(r)`, `r.shape[0]`, `r.size`),
its whole shape, a reduction over it (`r.mean()`, `jnp.mean(r)`), an iteration over it. A
result padded to a static size (`jnp.nonzero(m, size=n)`) counts its padding there."""

from __future__ import annotations

import ast

# Reductions whose value the padded entries change (a mean over padded counts, a sum of
# padded indices).
_REDUCTIONS = frozenset(
    ["mean", "sum", "average", "max", "min", "prod", "std", "var", "median", "nanmean", "nansum"]
)
# Functions whose argument's length or shape they give (`jnp.size(r)`, `np.shape(r)`).
_SHAPE_FUNCTIONS = frozenset(["size", "shape", "len", "list", "tuple", "enumerate", "sorted"])


def length_taken(result: ast.expr, parents: list[ast.AST]) -> ast.expr | None:
    """`len(result)`, `result.shape[0]` (or `[-1]` of a one-dimensional result) or
    `result.size`: the expression taking its length; `parents` are its ancestors, innermost
    first."""
    if not parents:
        return None
    parent = parents[0]
    if (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id == "len"
        and parent.args == [result]
    ):
        return parent
    if isinstance(parent, ast.Attribute) and parent.attr == "size":
        return parent
    if isinstance(parent, ast.Attribute) and parent.attr == "shape" and len(parents) > 1:
        above = parents[1]
        if (
            isinstance(above, ast.Subscript)
            and isinstance(above.slice, ast.Constant)
            and above.slice.value in (0, -1)
        ):
            return above
    return None


def entries_counted(result: ast.expr, parents: list[ast.AST]) -> bool:
    """Does the code see how many entries `result` has, or their values all together: its
    length, its shape, a reduction over it, an iteration over it (`parents` innermost
    first)?"""
    if not parents:
        return False
    if length_taken(result, parents) is not None:
        return True
    parent = parents[0]
    if isinstance(parent, ast.Attribute):
        if parent.attr in ("shape", "size"):
            return True
        if parent.attr in _REDUCTIONS and len(parents) > 1:
            above = parents[1]
            return isinstance(above, ast.Call) and above.func is parent
        return False
    if isinstance(parent, ast.Call) and result in parent.args:
        func = parent.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in _REDUCTIONS or name in _SHAPE_FUNCTIONS
    if isinstance(parent, ast.For | ast.comprehension):
        return parent.iter is result
    return isinstance(parent, ast.Starred)


def parent_map(scope: ast.AST) -> dict[ast.AST, ast.AST]:
    """Each node of `scope` (nested functions included) to its parent."""
    parents: dict[ast.AST, ast.AST] = {}
    for parent in ast.walk(scope):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    return parents


def ancestors_of(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[ast.AST]:
    """The ancestors of `node` up to its statement, innermost first."""
    chain: list[ast.AST] = []
    current = node
    while current in parents and not isinstance(current, ast.stmt):
        current = parents[current]
        chain.append(current)
    return chain
