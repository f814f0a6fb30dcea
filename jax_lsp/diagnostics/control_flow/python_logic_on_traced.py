"""JAX702 (python-logic-on-traced): `and` / `or` / `not` on traced values."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jax_lsp.analysis.booleans import LOGIC_FUNCTIONS, is_logic
from jax_lsp.codeactions.logical import logical_fix
from jax_lsp.codeactions.static_argnames import (
    parameter_names,
    static_argnames_deferred,
    static_argnames_fix,
)
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.caught_errors import caught_here
from jax_lsp.diagnostics.control_flow._common import (
    TRUTH_ERROR,
    TRUTH_ERRORS,
    is_test_of,
    tested_operands,
    truth_tested_traced,
)
from jax_lsp.diagnostics.traced_values import is_traced
from jax_lsp.findings import Applicability, Finding, Severity


def _in_test_position(node: ast.AST, ctx: RuleContext) -> bool:
    """Is `node` (a logic operator) part of a condition JAX701 owns?"""
    child = node
    for ancestor in reversed(ctx.ancestors):
        if is_test_of(ancestor, child, ctx):
            return True
        if not is_logic(ancestor):
            return False
        child = ancestor
    return False


class PythonLogicOnTraced(Rule):
    code = "JAX702"
    needs_trace = "abstract"
    name = "python-logic-on-traced"
    summary = "`and` / `or` / `not` on traced values"
    severity = Severity.ERROR
    what_it_does = """
        Flags `a and b`, `a or b` and `not a` whose result is used as a value when `a` is
        traced abstractly (jit, vmap, lax control flow). When the operator is the condition of
        `if`/`while`/`assert`, JAX701 reports it instead. A chained comparison `a < x <= b`
        is an implicit `a < x and x <= b`, flagged the same way when `a < x` is traced.
    """
    why_bad = """
        `and`, `or` and `not` call `bool()` on their operand, which a traced value cannot
        answer: JAX raises `jax.errors.TracerBoolConversionError` for a value of one element,
        and for more than one, traced or not, `ValueError: The truth value of an array with
        more than one element is ambiguous`. The element-wise
        `jnp.logical_and` / `jnp.logical_or` / `jnp.logical_not` (or `&`, `|`, `~` on boolean
        arrays) compute the same truth values without leaving the trace.
    """
    fix_safety = """
        Rewrites to `jnp.logical_and(a, b)` / `jnp.logical_or` / `jnp.logical_not`, adding
        `import jax.numpy as jnp` when needed. Safe when every operand is boolean (a
        comparison, `jnp.isnan(...)`, ...). When an operand is not boolean the rewrite is
        unsafe: `x or default` returns `x` in Python but a boolean from `jnp.logical_or`, so
        for `and`/`or` no fix is offered then, and `not x` is rewritten as an unsafe fix.
        In a function traced only because traced callers call it, an operand that is a JAX
        array only as those callers pass it makes the fix unsafe: an untraced caller may pass
        Python or NumPy values, of which the rewrite makes a JAX array.
        A result passed to a callee outside JAX, directly or through a name
        (`nn.Dropout(deterministic=not training)`, a helper that branches on it), must be a
        Python bool: a `jnp.logical_*` array fails there the same way. The fix then makes the
        operand static (`static_argnames`, unsafe: callers must pass hashable Python values)
        when it is a parameter of the function jitted by its decorator; otherwise there is no
        fix, and the argument it comes from must be made static where the function is jitted.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.BoolOp, ast.UnaryOp, ast.Compare)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def in_unit_interval(x):
                inside = x >= 0 and x <= 1  # error
                return jnp.where(inside, x, 0.0)

            in_unit_interval(0.5)
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def in_unit_interval(x):
                inside = jnp.logical_and(x >= 0, x <= 1)
                return jnp.where(inside, x, 0.0)

            in_unit_interval(0.5)
            """,
        ),
        Example(
            """
            import jax

            @jax.jit
            def outside(x):
                return not (x > 0)  # error

            outside(1.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax

            @jax.jit
            def outside(x):
                return jax.numpy.logical_not(x > 0)

            outside(1.0)
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def inside_and_finite(p, lo, hi):
                inside = jnp.all(p >= lo) and jnp.all(p <= hi)  # error
                return inside, not jnp.isnan(p).any()  # error

            result = inside_and_finite(jnp.array([0.5, 0.2]), 0.0, 1.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def inside_and_finite(p, lo, hi):
                inside = jnp.logical_and(jnp.all(p >= lo), jnp.all(p <= hi))
                return inside, jnp.logical_not(jnp.isnan(p).any())

            result = inside_and_finite(jnp.array([0.5, 0.2]), 0.0, 1.0)
            """,
            fixed_check="assert [bool(r) for r in result] == [True, True]",
        ),
        Example(
            """
            import jax.numpy as jnp
            from jax import vmap

            def either_negative(a, b):
                return a < 0 or b < 0  # error

            vmap(either_negative)(jnp.ones(2), -jnp.ones(2))
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax.numpy as jnp
            from jax import vmap

            def either_negative(a, b):
                return jnp.logical_or(a < 0, b < 0)

            vmap(either_negative)(jnp.ones(2), -jnp.ones(2))
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def in_unit_interval(x):
                return jnp.where(0 <= x <= 1, x, 0.0)  # error

            in_unit_interval(0.5)
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Dropout:
                def __call__(self, x, training):
                    keep = not training  # error
                    return x if keep else x * 0.5

            layer = Dropout()

            @jax.jit
            def forward(x, training):
                return layer(x, training)

            forward(jnp.ones(4), True)
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def in_unit_interval(x):
                inside = jnp.logical_and(x >= 0, x <= 1)
                return jnp.where(inside, x, 0.0)

            result = in_unit_interval(0.5)
            """,
            check="assert float(result) == 0.5",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnames=("center", "scale"))
            def normalize(x, center=True, scale=True):
                both = center and scale and x.ndim > 0
                return (x - x.mean()) / x.std() if both else x

            out = normalize(jnp.arange(4.0))
            """,
            check="assert abs(float(out.mean())) < 1e-6",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            LOW, HIGH = 0.0, 1.0

            @jax.jit
            def in_unit_interval(x):
                assert 0.0 <= LOW < HIGH  # Python values: a chain is fine
                inside = (LOW <= x) & (x <= HIGH)
                return jnp.where(inside, x, 0.0)

            result = in_unit_interval(0.5)
            """,
            check="assert float(result) == 0.5",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        findings = list(self._findings(node, ctx))
        if findings and not caught_here(ctx, node, TRUTH_ERRORS):
            yield from findings

    def _findings(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        if isinstance(node, ast.Compare) and ctx.abstract:
            yield from self._chained(node, ctx)
            return
        if not (ctx.abstract and is_logic(node)):
            return
        parent = ctx.parent
        if is_logic(parent) and _first_operand(parent) is node:
            return  # the enclosing operator's finding covers this operand
        if _in_test_position(node, ctx):
            return  # JAX701 owns conditions
        traced = truth_tested_traced(_first_operand(node), ctx)
        if traced is None:
            return
        if isinstance(node, ast.BoolOp):
            word = "and" if isinstance(node.op, ast.And) else "or"
            function = LOGIC_FUNCTIONS[type(node.op)]
        else:
            word, function = "not", "logical_not"
        problem = (
            f"`{word}` on the traced value `{ctx.segment(traced)}` raises "
            f"{TRUTH_ERROR} in {ctx.where_traced}."
        )
        receiver = _python_receiver(node, ctx)
        if receiver is None:
            yield ctx.finding(
                self, node, f"{problem} Use `jnp.{function}`", fix=logical_fix(node, function, ctx)
            )
            return
        # A callee outside JAX (flax's `deterministic=`, a helper branching on its argument)
        # needs a Python bool: a `jnp.logical_*` array would fail there the same way. Only a
        # static operand gives it one.
        operands = tested_operands(node)
        static = static_argnames_fix(parameter_names(operands, ctx), ctx)
        callee = ctx.segment(receiver.func)
        yield ctx.finding(
            self,
            node,
            f"{problem} `{callee}` takes the result as a Python value, where `jnp.{function}` "
            "would fail too: make the operand static (`static_argnames`)",
            fix=static,
            deferred=static_argnames_deferred(operands, ctx),
        )

    def _chained(self, node: ast.Compare, ctx: RuleContext) -> Iterator[Finding]:
        """`a < x <= b` is `a < x and x <= b`: Python tests the truth of `a < x`."""
        if len(node.ops) < 2 or _in_test_position(node, ctx):
            return  # JAX701 owns conditions
        operands = [node.left, *node.comparators]
        if not any(is_traced(ctx, operand) for operand in operands[:2]):
            return
        links = [
            f"{ctx.segment(left)} {_COMPARISONS.get(type(op), '?')} {ctx.segment(right)}"
            for left, op, right in zip(operands, node.ops, operands[1:], strict=False)
        ]
        yield ctx.finding(
            self,
            node,
            f"The chained comparison `{ctx.segment(node)}` means `{' and '.join(links)}`: "
            f"`and` on the traced value `{links[0]}` raises {TRUTH_ERROR} under "
            f"{ctx.trace.via}. Use `{' & '.join(f'({link})' for link in links)}`",
        )


def _python_receiver(node: ast.expr, ctx: RuleContext) -> ast.Call | None:
    """The call outside JAX that receives `node`'s value as an argument, directly or through a
    name it is assigned to in the same function; None when the value only meets JAX."""
    parent = ctx.parent
    grandparent = ctx.ancestors[-2] if len(ctx.ancestors) > 1 else None
    if isinstance(parent, ast.Call) and node in parent.args:
        return None if _takes_arrays(parent, ctx) else parent
    if isinstance(parent, ast.keyword) and isinstance(grandparent, ast.Call):
        return None if _takes_arrays(grandparent, ctx) else grandparent
    if not (
        isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
        and ctx.functions
    ):
        return None
    name = parent.targets[0].id
    for call in ast.walk(ctx.functions[-1]):
        if not isinstance(call, ast.Call) or _takes_arrays(call, ctx):
            continue
        arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
        if any(isinstance(a, ast.Name) and a.id == name for a in arguments):
            return call
    return None


def _takes_arrays(call: ast.Call, ctx: RuleContext) -> bool:
    """Does the callee accept a traced array (a JAX function, a method of a JAX value)?"""
    name = ctx.qualname(call.func)
    if name is not None:
        return name == "jax" or name.startswith("jax.")
    return isinstance(call.func, ast.Attribute) and ctx.kind(call.func.value).is_jax


_COMPARISONS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}


def _first_operand(node: ast.AST) -> ast.expr | None:
    if isinstance(node, ast.BoolOp):
        return node.values[0]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    return None
