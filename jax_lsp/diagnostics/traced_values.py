"""Which expressions the tracing rules treat as traced.

A parameter with a literal default (`training=False`, `n=3`) is traced only when a caller
passes it, which the model cannot see for calls made outside the module: such a bare
parameter is not treated as traced, trading a few misses for precision, unless a call in the
module passes it to the transformed function (`forward(x, False)` of a jitted `forward`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.names import scope_bound_names
from jax_lsp.analysis.traced import literal_default_params
from jax_lsp.diagnostics.base import Rule, RuleContext
from jax_lsp.findings import Finding, Fix


@dataclass(frozen=True)
class Misuse:
    """A traced value used where a concrete one is needed, and what happens at run time."""

    traced: ast.expr  # the traced value at fault
    what: str  # "`float()`", "A slice", ...
    error: str  # the exception JAX raises (measured)
    remedy: str
    numpy_function: str | None = None  # "numpy.clip": a NumPy function converts the value

    def finding(
        self,
        rule: Rule,
        node: ast.AST,
        ctx: RuleContext,
        relation: str,
        why: str = "",
        fix: Fix | None = None,
    ) -> Finding:
        reason = f": {why}" if why else ""
        return ctx.finding(
            rule,
            node,
            f"{self.what} {relation} the traced value `{ctx.segment(self.traced)}` raises "
            f"{self.error} in {ctx.where_traced}{reason}. {self.remedy}",
            fix=fix,
        )


def is_traced(ctx: RuleContext, node: ast.AST | None) -> bool:
    """`node` is certainly a tracer here."""
    if node is None or ctx.kind(node) is not Kind.TRACED:
        return False
    return not _only_from_literal_defaults(node, ctx)


# What a value computed from parameters and constants alone is built of (`temperature > 0.0`).
_PLAIN_ARITHMETIC = (
    *(ast.Name, ast.Constant, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp),
    *(ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop),
)


def _only_from_literal_defaults(node: ast.AST, ctx: RuleContext) -> bool:
    """Traced only through parameters with a literal default no call passes (see
    `_has_literal_default`): the bare parameter, or arithmetic and comparisons of such
    parameters and constants (`temperature > 0.0`)."""
    parts = list(ast.walk(node))
    if not all(isinstance(part, _PLAIN_ARITHMETIC) for part in parts):
        return False
    traced = [p for p in parts if isinstance(p, ast.Name) and ctx.kind(p) is Kind.TRACED]
    if isinstance(node, ast.Name):
        return _has_literal_default(node.id, ctx)
    # Computed with: only where a transformation traces the function in this module, whose
    # calls of what it makes the model sees all (a call forwarding `**kwargs` may pass it).
    return bool(traced) and all(_has_literal_default(name.id, ctx, True) for name in traced)


def _has_literal_default(name: str, ctx: RuleContext, transformed: bool = False) -> bool:
    """A parameter with a literal default that no call in the module passes to the transformed
    function: its default, a Python value, may be all the function ever sees. The parameter
    may be an enclosing function's, which a nested one reads (`if temperature > 0:` in a
    loop body defined in the jitted function). `transformed`: of a function a transformation
    of the module traces itself."""
    for function in reversed(ctx.functions):
        if name in literal_default_params(function):
            if transformed:
                info = ctx.model.context_of(function)
                if info is None or not info.direct:
                    return False
            return name not in ctx.model.passed_defaults(function)
        if name in scope_bound_names(function):  # it hides the enclosing one's parameter
            return False
    return False
