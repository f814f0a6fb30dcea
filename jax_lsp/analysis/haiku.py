"""Haiku's transformed objects: `hk.transform(f)` makes an object whose `init` and `apply`
run `f`. The object is the same wherever it travels: bound to a name at module level,
returned by a factory (`def make_net(): return hk.transform(forward)`), or imported from the
module that makes it. Read from a module's parse and its imports; nothing is run."""

from __future__ import annotations

import ast

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import block_children, own_returns

# How many arguments `apply` takes before the function's own (params, state, rng).
HAIKU_TRANSFORMS = {"haiku.transform": 2, "haiku.transform_with_state": 3}


def haiku_transformed(value: ast.expr, resolver: Resolver) -> tuple[str | ast.Lambda, int] | None:
    """`hk.transform(f)`, `hk.without_apply_rng(hk.transform_with_state(f))`,
    `hk.transform(lambda x: Net()(x))`: (`f` or the lambda, the arguments `apply` takes
    before its own)."""
    if not (isinstance(value, ast.Call) and len(value.args) == 1):
        return None
    qualname = resolver.qualname(value.func) or ""
    given = value.args[0]
    if qualname == "haiku.without_apply_rng":
        inner = haiku_transformed(given, resolver)
        return None if inner is None else (inner[0], inner[1] - 1)
    leading = HAIKU_TRANSFORMS.get(qualname)
    if leading is None:
        return None
    if isinstance(given, ast.Name):
        return given.id, leading
    return (given, leading) if isinstance(given, ast.Lambda) else None


def returned_haiku_transform(
    factory: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, path: str, resolver: Resolver
) -> tuple[str | ast.Lambda, int] | None:
    """A factory (at `path`) every return of which is a haiku transformation of one function
    (`def make_net(): ... return hk.transform(forward)`): the function's path (a def of the
    factory's own body, `make_net.forward`, else the module's `forward`) or the lambda, and
    the arguments `apply` takes before its own."""
    if not isinstance(factory, ast.FunctionDef):
        return None
    returns = own_returns(factory, may_yield=False)
    if not returns:
        return None
    found = [haiku_transformed(value, resolver) if value is not None else None for value in returns]
    first = found[0]
    if first is None or any(other != first for other in found[1:]):
        return None
    function, leading = first
    if isinstance(function, str) and own_def(factory, function) is not None:
        function = f"{path}.{function}"
    return function, leading


def own_def(function: ast.FunctionDef, name: str) -> ast.FunctionDef | None:
    """The `def name` of the function's own body (in its blocks, not in nested functions),
    when there is one only."""
    found = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.FunctionDef) and statement.name == name:
            found.append(statement)
        elif not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(block_children(statement))
    return found[0] if len(found) == 1 else None
