"""Which names a function binds itself (parameters, assignments, nested defs), hiding the
module-level or imported name of the same spelling."""

from __future__ import annotations

import ast

from jax_lsp.analysis.summary import FunctionNode
from jax_lsp.analysis.traced import all_params


def binds_locally(name: str, function: FunctionNode) -> bool:
    if name in all_params(function):
        return True
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        nested_def = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        if nested_def and node is not function and node.name == name:
            return True
    return False
