"""Which names a function binds itself (parameters, assignments, nested defs), hiding the
module-level or imported name of the same spelling."""

from __future__ import annotations

import ast
from functools import lru_cache

from jax_lsp.analysis.summary import FunctionNode
from jax_lsp.analysis.traced import all_params


@lru_cache(maxsize=4096)  # keyed by node identity; trees are immutable once parsed
def local_names(function: FunctionNode) -> frozenset[str]:
    """Parameters, assigned names and nested defs anywhere in `function`."""
    names = set(all_params(function))
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node is not function:
            names.add(node.name)
    return frozenset(names)


def binds_locally(name: str, function: FunctionNode) -> bool:
    return name in local_names(function)
