"""What the control-flow rules share: which values a truth test reaches, and JAX's error."""

from __future__ import annotations

import ast

from jax_lsp.analysis.kinds import Kind
from jax_lsp.diagnostics.base import RuleContext
from jax_lsp.diagnostics.traced_values import is_traced


def truth_tested_traced(node: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """The traced value whose truth Python certainly tests when it tests `node`'s truth.

    `a and b` always tests `a` (and `b` only if `a` holds), `not a` tests `a`. The next
    operand is certainly tested after a literal that lets the chain go on (`True and b`,
    `None or b`: decided without a test), and tested too after a static comparison of shapes
    or numbers (`p.ndim > 1 and p.sum() > 0`), for the code is written for that comparison
    to let it through.
    """
    if isinstance(node, ast.BoolOp):
        goes_on = isinstance(node.op, ast.And)
        for value in node.values:
            if isinstance(value, ast.Constant) and bool(value.value) is goes_on:
                continue
            found = truth_tested_traced(value, ctx)
            if found is not None or not _static_comparison(value, ctx):
                return found
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return truth_tested_traced(node.operand, ctx)
    if ctx.pytree_object(node):
        return None  # Python's truth of the object (true; a NamedTuple's length is static)
    return node if is_traced(ctx, node) else None


def _static_comparison(node: ast.expr, ctx: RuleContext) -> bool:
    """A static comparison of numbers or shapes (`x.ndim > 1`, `n == 0`): no identity,
    membership or type test (`x is not None`, `isinstance(x, float)` may guard code that
    never runs with a tracer) and no call but `len`."""
    if not isinstance(node, ast.Compare) or ctx.kind(node) is not Kind.STATIC:
        return False
    if any(isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in node.ops):
        return False
    return all(
        not isinstance(sub, ast.Call) or ctx.qualname(sub.func) == "builtins.len"
        for sub in ast.walk(node)
    )


def is_test_of(parent: ast.AST | None, child: ast.AST, ctx: RuleContext) -> bool:
    """Is `child` the condition that `parent` tests?"""
    if isinstance(parent, ast.If | ast.While | ast.Assert | ast.IfExp):
        return parent.test is child
    if isinstance(parent, ast.comprehension):
        return child in parent.ifs
    if isinstance(parent, ast.Call):
        return ctx.qualname(parent.func) == "builtins.bool" and child in parent.args
    return False


# Python's truth test of a value JAX traces: JAX raises TracerBoolConversionError for a value of
# one element; for more, the shape check comes first and raises NumPy's ValueError ("The truth
# value of an array with more than one element is ambiguous"), traced or not. A traced value's
# shape is seldom known from the source: the message names both.
TRUTH_ERROR = "TracerBoolConversionError (ValueError if it has more than one element)"
# The error a `try` must catch for a truth test of a tracer to be a deliberate probe (of a
# scalar, as validation code tests: `except jax.errors.ConcretizationTypeError`).
TRUTH_ERRORS = ("TracerBoolConversionError",)


def tested_operands(condition: ast.expr) -> list[ast.expr]:
    """The values a condition compares (`n` and `0` in `n > 0 and not flag`, and `flag`)."""
    operands: list[ast.expr] = []
    stack = [condition]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BoolOp):
            stack.extend(node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            stack.append(node.operand)
        elif isinstance(node, ast.Compare):
            stack.extend([node.left, *node.comparators])
        elif not isinstance(node, ast.Constant):
            operands.append(node)
    return operands
