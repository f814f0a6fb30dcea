"""What the performance rules share: the static positions of the jitted function a call invokes."""

from __future__ import annotations

import ast

from jax_lsp.analysis.jitted import StaticSignature, jit_call_signature
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.summary import FunctionNode
from jax_lsp.diagnostics.base import RuleContext


def static_signature(node: ast.Call, ctx: RuleContext) -> StaticSignature | None:
    """The static positions of the jitted function a call invokes, if known."""
    func = node.func
    if isinstance(func, ast.Call):  # jax.jit(f, static_argnums=1)(x, [0])
        return jit_call_signature(func, ctx.resolvers[-1], _module_function(ctx))
    if not isinstance(func, ast.Name):
        return None
    signature = ctx.model.static_signatures.get(func.id)
    if signature is None or (ctx.functions and binds_locally(func.id, ctx.functions[-1])):
        return None
    return signature


def _module_function(ctx: RuleContext):
    def resolve(name: str) -> FunctionNode | None:
        record = ctx.model.functions.get(name)
        return record.node if record is not None else None

    return resolve
