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
    return not (isinstance(node, ast.Name) and _has_literal_default(node.id, ctx))


def _has_literal_default(name: str, ctx: RuleContext) -> bool:
    """A parameter with a literal default that no call in the module passes to the transformed
    function: its default, a Python value, may be all the function ever sees."""
    function = ctx.functions[-1] if ctx.functions else None
    if function is None:
        return False
    if name not in literal_default_params(function):
        return False
    return name not in ctx.model.passed_defaults(function)
