"""Python control flow and conversions on traced values (JAX701-JAX703).

While JAX traces a function abstractly (jit, vmap, lax control flow) a traced value has a shape
and dtype but no value: Python cannot branch on it, combine it with `and`/`or`/`not`, or turn
it into an `int`. Ownership of `if x > 0 and y > 0:` goes to JAX701: the branch is what must
change (`jnp.where`, `lax.cond`), and rewriting the `and` alone would not make it trace.
JAX702 reports `and`/`or`/`not` only where their result is used as a value.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace

from jax_lsp.analysis.booleans import LOGIC_FUNCTIONS, is_logic
from jax_lsp.analysis.flow import annotation_kind
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import all_params
from jax_lsp.codeactions.branch_select import branch_select_fix
from jax_lsp.codeactions.logical import condition_text, logical_fix
from jax_lsp.codeactions.numpy_to_jnp import jnp_function_fix, numpy_to_jnp_fix
from jax_lsp.codeactions.static_argnames import (
    parameter_names,
    static_argnames_deferred,
    static_argnames_fix,
)
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.numpy_table import CONVERTS_TRACERS, FAILS_TO_COMPILE
from jax_lsp.diagnostics.static_arguments import traced_static_argument
from jax_lsp.diagnostics.traced_values import Misuse, is_traced
from jax_lsp.findings import Applicability, Finding, Fix, Severity


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


def _test_of(parent: ast.AST | None, child: ast.AST, ctx: RuleContext) -> bool:
    """Is `child` the condition that `parent` tests?"""
    if isinstance(parent, ast.If | ast.While | ast.Assert | ast.IfExp):
        return parent.test is child
    if isinstance(parent, ast.comprehension):
        return child in parent.ifs
    if isinstance(parent, ast.Call):
        return ctx.qualname(parent.func) == "builtins.bool" and child in parent.args
    return False


def _in_test_position(node: ast.AST, ctx: RuleContext) -> bool:
    """Is `node` (a logic operator) part of a condition JAX701 owns?"""
    child = node
    for ancestor in reversed(ctx.ancestors):
        if _test_of(ancestor, child, ctx):
            return True
        if not is_logic(ancestor):
            return False
        child = ancestor
    return False


_CONSTRUCTS = {
    ast.If: ("`if`", "use `jnp.where(cond, a, b)` or `lax.cond`"),
    ast.While: ("`while`", "use `lax.while_loop`"),
    ast.Assert: ("`assert`", "use `jax.experimental.checkify.check`, or check outside `jit`"),
    ast.IfExp: ("a conditional expression", "use `jnp.where(cond, a, b)`"),
    ast.comprehension: ("a comprehension `if`", "use `jnp.where` or a `where=` mask"),
    ast.Call: ("`bool()`", "keep the value as an array (`jnp.where`, `lax.cond`)"),
}


# Python's truth test of a value JAX traces: JAX raises TracerBoolConversionError for a value of
# one element; for more, the shape check comes first and raises NumPy's ValueError ("The truth
# value of an array with more than one element is ambiguous"), traced or not. A traced value's
# shape is seldom known from the source: the message names both.
TRUTH_ERROR = "TracerBoolConversionError (ValueError if it has more than one element)"


class PythonBranchOnTraced(Rule):
    code = "JAX701"
    needs_trace = "abstract"
    name = "python-branch-on-traced"
    summary = "`if`, `while`, `assert`, conditional expression or `bool()` on a traced value"
    severity = Severity.ERROR
    what_it_does = """
        Flags Python branching on a value that is traced abstractly: the condition of `if`,
        `while`, `assert`, a conditional expression `a if cond else b`, a comprehension `if`,
        and `bool(x)`, inside `jax.jit`, `jax.vmap` or `lax` control flow; also the builtins
        `max()` and `min()` on traced values, which compare them and test the result's truth
        (`max(0.0, margin - score)`; with `key=` they compare the key's results and are not
        flagged); and `any()`, `all()` and `sorted()` of a traced array, which iterate it and
        test each element (not of a bare parameter, which may be a dict of arrays whose keys
        they iterate, unless it is annotated as an array). A condition that
        starts with `and`/`or`/`not` on a traced value is reported here (not as JAX702).
        Static facts (`x.shape[0] > 2`, `len(x)`, `x.ndim`, `x.dtype`, `x is None`, static
        arguments) are never flagged, nor is `x == None` or `x != None` (a jax array compared
        with None falls back to Python's identity test and gives a Python bool); nor are
        keyword-only parameters of a function that `lax` control flow calls (it passes
        operands positionally, so they keep their defaults).
        Every leaf of a `lax` loop's carry is traced in the body,
        whatever the initial value (`(n, 0)`); the carry's tuple or dict structure is static.
        A parameter with a literal default (`if training:` of `def f(x, training=True)`) is
        flagged only where a call in the module passes it to the jitted function: a default
        left alone stays a Python value. A `while` condition is checked again after each pass of
        the body, so `err = jnp.inf` then `while err > tol: err = jnp.abs(...)` is flagged:
        `err` is traced from the second check on.
    """
    why_bad = """
        Under `jit` a traced value has no concrete value, so Python cannot decide the branch:
        JAX raises `jax.errors.TracerBoolConversionError` ("Attempted boolean conversion of
        traced array"), or `ValueError` ("The truth value of an array with more than one
        element is ambiguous") for a value of several elements. On a value of one element
        the same code works eagerly and under `jax.grad` alone, so the failure appears only
        once the function is jitted or vmapped. Select values with
        `jnp.where(cond, a, b)`, branch with `lax.cond` / loop with `lax.while_loop`, or make
        the argument static with `static_argnames` when it really is a Python setting.
    """
    fix_safety = """
        A branch that only selects a value becomes `jnp.where(cond, a, b)`: a conditional
        expression `a if cond else b`; an `if`/`else` whose branches each only assign the same
        name (`y = jnp.where(cond, a, b)`) or each only `return` a value; `if cond: return a`
        followed by `return b`; and `if cond: y = y * 2` (or `y *= 2`) with no `else`, when `y`
        is bound before (`y = jnp.where(cond, y * 2, y)`). `and`/`or`/`not` in the condition
        become `jnp.logical_*`. Comments of the replaced lines are kept. `jnp.where` evaluates
        both values, and `jax.grad` differentiates both and multiplies the one not selected by
        zero, so `0 * inf` makes the gradient NaN: `jnp.where(x > 0, jnp.sqrt(x), 0.0)` has
        gradient NaN at `x <= 0`, where the original `if` gives 0. The fix is safe only when the
        condition is boolean and both values are free of side effects and finite and
        differentiable wherever their inputs are finite: names, numbers, indexing, `+`, `-`,
        `*`, division by a non-zero number, whole powers and `abs`, `maximum`, `minimum`,
        `clip`, `sin`, `cos`, `tanh`, `relu`, `sigmoid`. Over `sqrt`, `log`, division by a value
        or any other call it is unsafe. Where each such part is `sqrt`, `log`, `log1p`, `exp`,
        `reciprocal`, `arcsin`, `arccos`, `arctanh`, a division or a power, with a smooth input,
        the fix also guards that input (the divisor, the base) where its branch is not taken
        ("double where": `jnp.where(x > 0,
        jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)`), so the gradient stays finite and equals the
        original's on each side; otherwise its title warns of NaN gradients. A value that calls
        another function (effectful or costly) is selected with `lax.cond(cond, lambda: a,
        lambda: b)` instead, which runs only the branch taken: unsafe, since both branches are
        traced, the condition must be a scalar and both values of the same shape and dtype. A
        branch that calls back into its own function (recursion) gets no rewrite: tracing it
        recurses forever under either form. Tuples of one length (`return x, 1` / `return -x,
        0`) become a tuple of `jnp.where`s, one per element. No fix for `elif` chains, lists
        or `None` values.
        When the condition is a parameter of a function jitted by its decorator (`if training:`,
        `if n > 0:`) an unsafe alternative adds it to `static_argnames` (see JAX803).
        `max(a, b)` / `min(a, b)` become `jnp.maximum(a, b)` / `jnp.minimum(a, b)` (unsafe:
        where `a == b` the gradient is split between both, where Python's `max` gives it all
        to `a`, and arrays broadcast instead of failing); other forms get no fix.
        `any(a)` / `all(a)` / `sorted(a)` become `jnp.any(a)` / `jnp.all(a)` / `jnp.sort(a)`
        (unsafe: they return an array, not a Python bool or list, and reduce over every axis
        where Python iterates the first); none where Python tests the result's truth itself
        (`if any(x < 0):`, `not all(...)`), as the `jnp` result would fail there in turn.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.If, ast.While, ast.Assert, ast.IfExp, ast.comprehension, ast.Call)
    invalid = (
        Example(
            """
            import jax

            @jax.jit
            def relu(x):
                if x > 0:  # error
                    return x
                return 0.0 * x

            out = relu(2.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax

            @jax.jit
            def relu(x):
                return jax.numpy.where(x > 0, x, 0.0 * x)

            out = relu(2.0)
            """,
            fixed_check="assert float(out) == 2.0 and float(relu(-1.0)) == 0.0",
        ),
        Example(
            """
            import jax

            @jax.jit
            def hinge(score, margin):
                return max(0.0, margin - score)  # error

            out = hinge(0.25, 1.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax

            @jax.jit
            def hinge(score, margin):
                return jax.numpy.maximum(0.0, margin - score)

            out = hinge(0.25, 1.0)
            """,
            fixed_check="assert float(out) == 0.75 and float(hinge(2.0, 1.0)) == 0.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def largest(x):
                return max(x)  # error

            out = largest(jnp.arange(3.0))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def safe_log(x):
                if any(x <= 0):  # error
                    return jnp.zeros_like(x)
                return jnp.log(x)

            out = safe_log(jnp.array([1.0, 2.0]))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def smallest(x):
                return sorted(jnp.abs(x))[0]  # error

            out = smallest(jnp.array([3.0, -1.0, 2.0]))
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def smallest(x):
                return jnp.sort(jnp.abs(x))[0]

            out = smallest(jnp.array([3.0, -1.0, 2.0]))
            """,
            fixed_check="assert float(out) == 1.0",
        ),
        Example(
            """
            import jax

            @jax.jit
            def grow(x):
                while x < 10:  # error
                    x = x * 2
                return x

            grow(1.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def newton_sqrt(a):
                x = a
                err = jnp.inf  # a Python float the first time the condition is checked
                while err > 1e-6:  # error
                    x_new = 0.5 * (x + a / x)
                    err = jnp.abs(x_new - x)
                    x = x_new
                return x

            newton_sqrt(2.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def soft_abs(x):
                return x if x > 0 else -x  # error

            out = jax.vmap(soft_abs)(jnp.array([-1.0, 2.0]))
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax
            import jax.numpy as jnp

            def soft_abs(x):
                return jnp.where(x > 0, x, -x)

            out = jax.vmap(soft_abs)(jnp.array([-1.0, 2.0]))
            """,
            fixed_check="assert out.tolist() == [1.0, 2.0]",
        ),
        Example(
            """
            import jax

            @jax.jit
            def in_range(x, lo, hi):
                if x > lo and x < hi:  # error
                    return x
                return lo

            out = in_range(0.5, 0.0, 1.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax

            @jax.jit
            def in_range(x, lo, hi):
                return jax.numpy.where(jax.numpy.logical_and(x > lo, x < hi), x, lo)

            out = in_range(0.5, 0.0, 1.0)
            """,
            fixed_check="assert float(out) == 0.5 and float(in_range(2.0, 0.0, 1.0)) == 0.0",
        ),
        Example(
            """
            import jax

            @jax.jit
            def checked_log(x):
                assert x > 0, "log of a non-positive number"  # error
                return jax.numpy.log(x)

            checked_log(2.0)
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def loss_fn(params, x, y):
                return jnp.mean((x * params - y) ** 2)

            @jax.jit
            def step(params, x, y):
                loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
                if loss < 1e-3:  # error
                    return params
                return params - 0.1 * grads

            step(1.0, jnp.ones(3), jnp.ones(3))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def energy(w):
                return jnp.sum(w**2)

            @jax.jit
            def descend(w):
                g = jax.grad(energy)(w)
                if g.sum() > 0:  # error
                    return w - g
                return w

            descend(jnp.ones(3))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def loss_fn(w, x):
                if x.sum() > 0:  # error
                    return jnp.sum(w * x)
                return jnp.sum(w)

            @jax.jit
            def step(w, x):
                loss, grads = jax.value_and_grad(loss_fn)(w, x)
                return w - 0.1 * grads, loss

            step(jnp.ones(3), jnp.ones(3))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            class Scale(eqx.Module):
                weight: jax.Array

                def __call__(self, x):
                    if self.weight.sum() > 0:  # error
                        return x * self.weight
                    return x

            @eqx.filter_jit
            def step(model, x):
                return model(x)  # the model's array fields are traced

            model = Scale(jnp.ones(3))
            step(model, jnp.ones(3))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax.numpy as jnp
            from flax import nnx

            class Model(nnx.Module):
                def __init__(self, rngs):
                    self.lin = nnx.Linear(2, 2, rngs=rngs)

                def __call__(self, x):
                    y = self.lin(x)  # a layer's output: a tracer here
                    if y.sum() > 0:  # error
                        y = -y
                    return y

            @nnx.jit
            def forward(model: Model, x):
                return model(x)

            forward(Model(nnx.Rngs(0)), jnp.ones(2))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def collatz_steps(n):
                def body(state):
                    n, steps = state  # every leaf of the carry is a tracer here
                    if n % 2 == 0:  # error
                        n = n // 2
                    else:
                        n = 3 * n + 1
                    return n, steps + 1

                return jax.lax.while_loop(lambda s: s[0] != 1, body, (n, 0))[1]

            collatz_steps(jnp.int32(6))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def forward(x, training=True):
                if training:  # error
                    x = x * 0.5
                return x

            fast = jax.jit(forward)
            fast(jnp.ones(2), training=False)  # jit traces every argument it is given
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            WEIGHTS = np.array([0.5, 1.5])

            @jax.jit
            def total(params):
                assert all(WEIGHTS > 0) and any([True, False])  # NumPy and Python values
                return sum(params[name] for name in sorted(params))  # a dict's keys

            out = total({"b": jnp.float32(1.0), "a": jnp.float32(2.0)})
            """,
            check="assert float(out) == 3.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def pad_to_two(x, parts):
                width = max(x.shape[0], 2)  # shapes are Python ints
                longest = max(parts, key=len)  # compares what `len` returns
                return jnp.zeros(width) + len(longest)

            out = pad_to_two(jnp.ones(3), ([1.0], [1.0, 2.0]))
            """,
            check="assert out.tolist() == [2.0, 2.0, 2.0]",
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            class Block(eqx.Module):
                weight: jax.Array
                skip: bool = eqx.field(static=True)

                def __call__(self, x):
                    if self.skip:  # a static field: a Python bool
                        return x + x * self.weight
                    return x * self.weight

            @eqx.filter_jit
            def step(model, x):
                return model(x)

            out = step(Block(jnp.ones(3), True), jnp.ones(3))
            """,
            check="assert float(out.sum()) == 6.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def rotate(x, table=None):
                # A jax array compared with None defers to Python's identity test: a bool.
                table = table if table != None else jnp.ones(3)  # noqa: E711
                return x * table

            with_table = rotate(jnp.ones(3), jnp.full(3, 2.0))
            without = rotate(jnp.ones(3))
            """,
            check="assert with_table.tolist() == [2.0] * 3 and without.tolist() == [1.0] * 3",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def relu(x):
                return jnp.where(x > 0, x, 0.0)

            result = relu(2.0)
            """,
            check="assert float(result) == 2.0",
        ),
        Example(
            """
            import jax

            @jax.jit
            def repeat(x):
                i = 0
                while i < 3:  # a Python counter: static on every check
                    x = x * 2
                    i += 1
                return x

            out = repeat(1.0)
            """,
            check="assert float(out) == 8.0",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnames=("training",))
            def dropout(x, key, training, rate=0.5):
                if not training or x.ndim == 0:
                    return x
                if x.shape[0] > 2 and x.dtype == jnp.float32:
                    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
                    return jnp.where(keep, x / (1.0 - rate), 0.0)
                return x

            out = dropout(jnp.ones(4), jax.random.key(0), training=False)
            """,
            check="assert out.shape == (4,)",
        ),
        Example(
            """
            import jax

            def relu(x):
                if x > 0:  # concrete under jax.grad alone
                    return x
                return 0.0 * x

            slope = jax.grad(relu)(2.0)
            """,
            check="assert float(slope) == 1.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def maybe_scale(x, scale=None):
                if scale is None:
                    return x
                return x * scale

            out = maybe_scale(jnp.ones(2))
            """,
            check="assert out.shape == (2,)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax import lax

            @jax.jit
            def count_up(x):
                def body(carry):
                    if carry:  # a non-empty tuple of tracers is truthy: nothing is converted
                        carry = (carry[0] + 1, jnp.clip(carry[1] + 1.0, 0.0, 2.0))
                    return carry

                return lax.while_loop(lambda c: c[0] < 3, body, (0, x))

            steps, out = count_up(jnp.array(0.0))
            """,
            check="assert int(steps) == 3 and float(out) == 2.0",
        ),
        Example(
            """
            from typing import Tuple

            import jax
            import jax.numpy as jnp

            def clip_to(x: jax.Array, limit: Tuple[jax.Array, jax.Array]) -> jax.Array:
                if limit:  # a tuple parameter stays a tuple under vmap: it is truthy
                    x = jnp.clip(x, limit[0], limit[1])
                return x

            out = jax.vmap(clip_to)(jnp.full(3, 5.0), (jnp.zeros(3), jnp.ones(3)))
            """,
            check="assert out.tolist() == [1.0, 1.0, 1.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def forward(x, training=True):
                if training:  # the jitted calls leave the default: a Python bool
                    x = x * 0.5
                return x

            fast = jax.jit(forward)
            out = fast(jnp.ones(2)) + forward(jnp.ones(2), training=False)
            """,
            check="assert out.tolist() == [1.5, 1.5]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def shrink(x, n):
                def body(i, state):
                    x, steps, aux = state
                    if aux is None and x.ndim == 1 and len(state) == 3:  # static facts
                        steps = steps + x.shape[0]
                    return x, steps, aux

                return jax.lax.fori_loop(0, n, body, (x, 0, None))[1]

            out = shrink(jnp.ones(3), 2)
            """,
            check="assert int(out) == 6",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def flip(image, *, channel_axis=-1):
                if channel_axis == -1:  # lax.cond passes `image` alone: the default stays
                    return jnp.flip(image, axis=-2)
                return jnp.flip(image, axis=-1)

            def random_flip(key, image):
                should = jax.random.bernoulli(key)
                return jax.lax.cond(should, flip, lambda x: x, image)

            out = random_flip(jax.random.key(0), jnp.arange(4.0).reshape(2, 2, 1))
            """,
            check="assert out.shape == (2, 2, 1)",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.abstract:
            return
        if isinstance(node, ast.comprehension):
            conditions = node.ifs
        elif isinstance(node, ast.Call):
            qualname = ctx.qualname(node.func)
            if qualname in _EXTREMES:
                yield from self._extreme(node, qualname, ctx)
                return
            if qualname in _ELEMENT_TESTS:
                yield from self._element_test(node, qualname, ctx)
                return
            if qualname != "builtins.bool" or len(node.args) != 1:
                return
            conditions = node.args
        else:
            conditions = [node.test]
        construct, remedy = _CONSTRUCTS[type(node)]
        for condition in conditions:
            traced = truth_tested_traced(condition, ctx)
            if traced is None:
                continue
            start, end = _reported(node, condition)
            yield ctx.finding(
                self,
                start,
                f"{construct} on the traced value `{ctx.segment(traced)}` raises "
                f"{TRUTH_ERROR} in {ctx.where_traced}: it has no concrete value "
                f"while tracing. Instead, {remedy}; or make it static (`static_argnames`)",
                fix=self._branch_select_fix(node, ctx),
                alternatives=self._static_fix(condition, ctx),
                deferred=static_argnames_deferred(_tested_operands(condition), ctx),
                end=end,
            )

    def _extreme(self, node: ast.Call, qualname: str, ctx: RuleContext) -> Iterator[Finding]:
        """`max(a, b)` / `min(...)` compare their operands with `>`/`<` and test the result's
        truth, as an `if` does; with `key=` they compare what the key returns instead."""
        if node.keywords or not node.args or any(isinstance(a, ast.Starred) for a in node.args):
            return
        function, elementwise, reduction = _EXTREMES[qualname]
        only = node.args[0]
        if len(node.args) == 2:
            compared, remedy = node.args, f"`jnp.{elementwise}(a, b)`"
        elif len(node.args) > 2:
            compared, remedy = node.args, f"`jnp.{reduction}(jnp.stack([...]))`"
        elif isinstance(only, ast.Tuple | ast.List):
            if len(only.elts) < 2:
                return  # nothing to compare
            compared, remedy = only.elts, f"`jnp.{reduction}(jnp.stack([...]))`"
        else:  # iterating a traced array gives traced elements
            compared, remedy = [only], f"`jnp.{reduction}(...)`"
        traced = next((value for value in compared if is_traced(ctx, value)), None)
        if traced is None:
            return
        yield ctx.finding(
            self,
            node,
            f"`{function}()` on the traced value `{ctx.segment(traced)}` raises "
            f"TracerBoolConversionError in {ctx.where_traced}: it compares the values, and "
            f"Python cannot decide a comparison of tracers. Instead, use {remedy}",
            fix=jnp_function_fix(node, elementwise, ctx) if len(node.args) == 2 else None,
        )

    def _element_test(self, node: ast.Call, qualname: str, ctx: RuleContext) -> Iterator[Finding]:
        """`any(x > 0)` / `all(...)` / `sorted(x)` iterate a traced array: each element is a
        tracer, and Python tests its truth (with `key=`, `sorted` compares the key's results)."""
        if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
            return
        iterated = node.args[0]
        if not is_traced(ctx, iterated) or _may_be_pytree(iterated, ctx):
            return
        function, how = _ELEMENT_TESTS[qualname]
        name = qualname.removeprefix("builtins.")
        # Where Python tests the result's truth itself (`if any(...)`), `jnp.any` would fail
        # there in turn: the branch must change, and no rewrite of the call is offered.
        tested = _test_of(ctx.parent, node, ctx) or isinstance(ctx.parent, ast.BoolOp | ast.UnaryOp)
        yield ctx.finding(
            self,
            node,
            f"`{name}()` on the traced value `{ctx.segment(iterated)}` raises "
            f"TracerBoolConversionError in {ctx.where_traced}: it iterates the array and "
            f"{how}, which tracers cannot answer. Instead, use `jnp.{function}(...)`"
            + (" and keep its result an array (`jnp.where`, `lax.cond`)" if tested else ""),
            fix=None if tested else jnp_function_fix(node, function, ctx),
        )

    @staticmethod
    def _static_fix(condition: ast.expr, ctx: RuleContext) -> tuple[Fix, ...]:
        """Making the tested parameters static, when the condition only compares arithmetic
        on them with constants (`if training:`, `if n > 0 and not flag:`)."""
        fix = static_argnames_fix(parameter_names(_tested_operands(condition), ctx), ctx)
        return (fix,) if fix is not None else ()

    @staticmethod
    def _branch_select_fix(node: ast.AST, ctx: RuleContext) -> Fix | None:
        if not isinstance(node, ast.If | ast.IfExp):
            return None
        condition = condition_text(node.test, ctx)
        return branch_select_fix(node, condition, ctx) if condition is not None else None


# Builtins that test the truth of comparisons between their operands: their name, the
# elementwise `jax.numpy` function for two operands, and the reduction over one array.
_EXTREMES = {
    "builtins.max": ("max", "maximum", "max"),
    "builtins.min": ("min", "minimum", "min"),
}


# Builtins that iterate their argument and test the truth of each element (`any`, `all`) or
# of comparisons between elements (`sorted`), and the `jax.numpy` function computing the same
# on an array.
_ELEMENT_TESTS = {
    "builtins.any": ("any", "tests the truth of each element"),
    "builtins.all": ("all", "tests the truth of each element"),
    "builtins.sorted": ("sort", "compares the elements"),
}


def _may_be_pytree(node: ast.expr, ctx: RuleContext) -> bool:
    """A parameter of the traced function, not annotated as an array, may be a pytree that
    a transformation keeps as a container: iterating a dict of tracers gives its keys."""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(node, ast.Name) or function is None:
        return False
    arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    for arg in arguments:
        if arg.arg == node.id:
            return annotation_kind(arg.annotation, ctx.resolvers[-1]) is not Kind.ARRAY
    return False


def _reported(node: ast.AST, condition: ast.expr) -> tuple[ast.AST, ast.AST | None]:
    """(first node, last node) of what JAX701 underlines: from the `if`/`elif`/`while`/`assert`
    keyword to the end of its condition, where a user puts the cursor (not the whole block);
    the `bool()` call; the condition of a conditional expression or comprehension."""
    if isinstance(node, ast.If | ast.While | ast.Assert):
        return node, condition
    if isinstance(node, ast.Call):
        return node, None
    return condition, None


def _tested_operands(condition: ast.expr) -> list[ast.expr]:
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
        operands = _tested_operands(node)
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


# NumPy functions measured to convert a tracer with `__array__` (TracerArrayConversionError)
# under every trace, `jax.grad` included. numpy_table.py adds the positions measured under
# `jax.jit` for every public NumPy function (reported under abstract tracing only).
# Reductions such as np.sum/np.mean/np.max dispatch to the array's method and do trace.
_NUMPY_CONVERTING = frozenset(
    f"numpy.{name}"
    for name in [
        "array",
        "asarray",
        "asanyarray",
        "ascontiguousarray",
        "copy",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log1p",
        "log2",
        "log10",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sqrt",
        "square",
        "abs",
        "absolute",
        "sign",
        "floor",
        "ceil",
        "isnan",
        "isfinite",
        "dot",
        "matmul",
        "outer",
        "where",
        "concatenate",
        "stack",
        "vstack",
        "hstack",
        "maximum",
        "minimum",
        "clip",
        "power",
        "add",
        "multiply",
        "subtract",
        "divide",
        "arctan2",
        "hypot",
        "sort",
        "ravel",
        "diff",
        "median",
        "percentile",
        "quantile",
        "unique",
        "nonzero",
        "histogram",
        "interp",
        "allclose",
        "isclose",
        "logical_and",
        "logical_not",
        "zeros_like",
        "ones_like",
        "full_like",
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint32",
        "bool_",
        "linalg.norm",
    ]
)
_MATH_CONVERTING = frozenset(
    f"math.{name}"
    for name in [
        "sqrt",
        "exp",
        "log",
        "log2",
        "log10",
        "log1p",
        "expm1",
        "sin",
        "cos",
        "tan",
        "tanh",
        "fabs",
        "isnan",
        "isfinite",
        "isinf",
        "pow",
        "atan2",
        "hypot",
    ]
)
# `float()`, `complex()`, `.tolist()`, `math.*` and NumPy fail under every trace, `jax.grad`
# included; `int()`, `.item()` and `range()` only under abstract tracing (measured: under
# jax.grad alone they still see the concrete value).
_ALWAYS_CONCRETE = frozenset({"builtins.float", "builtins.complex"})
_CONCRETIZATION = "ConcretizationTypeError"
_KEEP_ARRAY = "Keep the value as an array, or make it a static argument (`static_argnames`)"
# A value computed in the function (`loss.item()`) cannot be made static: say what to do.
_KEEP_COMPUTED = (
    "Keep the value as an array: return it and convert it outside the traced function, or "
    "print it with `jax.debug.print`"
)
_STATIC_VALUE = "Pass a Python value: make it static (`static_argnames`) or a constant"
_RANGE = "Make the bound static (`static_argnames`) or loop with `lax.fori_loop`"


class ConcretizeTraced(Rule):
    code = "JAX703"
    needs_trace = "traced"
    fails_in_eager_shard_map = True
    name = "concretize-traced"
    summary = "`int()`, `float()`, `.item()`, `.tolist()`, `range()` or NumPy on a traced value"
    severity = Severity.ERROR
    what_it_does = """
        Flags conversions of a traced value to a Python or NumPy value: `float(x)`,
        `complex(x)`, `int(x)`, `x.item()`, `x.tolist()`, `range(n)`, `math.sqrt(x)`,
        `np.asarray(x)` and NumPy functions that convert their arguments, in any position
        (`np.exp(x)`, `np.dot(a, x)`, `np.searchsorted(edges, x)`, `np.fft.fft(x)`,
        `np.ma.masked_array(x, mask)`, `scipy.special.hyp2f1(a, b, c, x)`: a table measured on
        every public function of NumPy, `numpy.linalg`, `numpy.fft`, `numpy.ma` and
        `scipy.special`;
        `np.sum(x)`, which calls `x.sum()`, traces and is not flagged; `np.argsort(x)`,
        which calls `x.argsort(stable=None)`, traces but fails when jit compiles it); a NumPy
        array, list or tuple indexed or sliced with a traced value (`table[i]`); and traced
        values given where `jax.numpy`/`lax`/`jax.random`/`jax.nn` need a Python value that
        is not a shape (the `axis` and `keepdims` of reductions, `axis1`, `k` of
        `tril`, `reverse` of `lax.cumsum`, ...: a table measured on JAX; shapes and lengths
        are JAX803). `float`, `complex`, `.tolist()`, `math.*` and NumPy fail under any
        transformation, `jax.grad` included; the others only under abstract tracing (jit,
        vmap, lax).
    """
    why_bad = """
        A tracer cannot become a concrete number or a NumPy array: `float(x)`, `complex(x)`,
        `int(x)`, `.item()` and `.tolist()` raise `jax.errors.ConcretizationTypeError`,
        `range(n)` and `my_list[i]` raise `jax.errors.TracerIntegerConversionError`, and
        `np.asarray(x)`, `np.exp(x)` or `numpy_array[i]` raise
        `jax.errors.TracerArrayConversionError`. A
        traced `axis` raises `ConcretizationTypeError` (or `ValueError`: JAX passes it on as
        a static argument, which must be hashable). Use the `jnp.` function instead of the `np.`
        one, keep values as arrays, and pass sizes as static arguments (`static_argnames`) or
        loop with `lax.fori_loop`.
    """
    fix_safety = """
        A NumPy function called through its module (`np.clip(x, 0, 1)`, `np.linalg.norm(v)`)
        becomes its `jax.numpy` namesake (`jnp.clip(x, 0, 1)`), when `jax.numpy` has one
        (unsafe: `jax.numpy` computes in 32 bits unless x64 is on, and `jnp.unique` or
        `jnp.nonzero` then need `size=` under `jit`). When the converted value is a parameter
        of a function jitted by its own decorator (`range(n)`, `int(n)` in `@jax.jit def f(x,
        n)`), and it looks like a Python setting, adds it to `static_argnames` exactly as
        JAX803's fix does (unsafe: callers must pass hashable Python values; each new value
        compiles again). Other conversions get no fix.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.Call, ast.Subscript)
    invalid = (
        Example(
            """
            import jax
            import numpy as np

            @jax.jit
            def activation(x):
                return np.tanh(x)  # error

            out = activation(jax.numpy.ones(3))
            """,
            raises="jax.errors.TracerArrayConversionError",
            fixed="""
            import jax
            import numpy as np

            @jax.jit
            def activation(x):
                return jax.numpy.tanh(x)

            out = activation(jax.numpy.ones(3))
            """,
            fixed_check="assert abs(float(out[0]) - float(np.tanh(1.0))) < 1e-6",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            @jax.jit
            def top_two(scores):
                order = np.argsort(scores)  # error
                return scores[order[-2:]]

            top_two(jnp.array([0.1, 0.9, 0.5]))
            """,
            raises="TypeError",  # traced through `scores.argsort(stable=None)`; fails to compile
        ),
        Example(
            """
            import jax

            def loss(w):
                scale = float(w)  # error
                return scale * w

            jax.grad(loss)(2.0)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @jax.jit
            def power_sum(x, n):
                total = jnp.zeros_like(x)
                for k in range(n):  # error
                    total = total + x**k
                return total

            out = power_sum(jnp.ones(3), 4)
            """,
            raises="jax.errors.TracerIntegerConversionError",
            fixed="""
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnames=("n",))
            def power_sum(x, n):
                total = jnp.zeros_like(x)
                for k in range(n):
                    total = total + x**k
                return total

            out = power_sum(jnp.ones(3), 4)
            """,
            fixed_check="assert out.tolist() == [4.0, 4.0, 4.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def log_mean(x):
                m = x.mean().item()  # error
                return jnp.log(x) - m

            log_mean(jnp.ones(3))
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import jax
            import numpy as np

            WEIGHTS = np.array([0.5, 1.0, 2.0])

            @jax.jit
            def weighted(x, i):
                return x * WEIGHTS[i]  # error

            weighted(1.0, 2)
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
        Example(
            """
            import jax

            @jax.jit
            def pick(x, i):
                scales = [1.0, 10.0, 100.0]
                return x * scales[i]  # error

            pick(1.0, 1)
            """,
            raises="jax.errors.TracerIntegerConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def total(x, axis):
                return jnp.sum(x, axis=axis)  # error

            total(jnp.ones((2, 3)), 0)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import jax
            import numpy as np

            EDGES = np.linspace(0.0, 1.0, 5)

            @jax.jit
            def bucket(x):
                return np.searchsorted(EDGES, x)  # error

            bucket(jax.numpy.array([0.3, 0.7]))
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def mse(prediction, target):
                error = prediction - target
                return jnp.mean(error**2)

            @jax.jit
            def report(w, x):
                loss = mse(w * x, 1.0)
                return {"loss": float(loss)}  # error

            report(jnp.ones(3), jnp.ones(3))
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import jax
            import numpy as np

            @jax.jit
            def shifted(tree):
                # the function given to a tree map gets the leaves: tracers here
                return jax.tree.map(lambda x: np.append(x[0], x[:-1]), tree)  # error

            shifted({"a": jax.numpy.arange(3.0)})
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from scipy.special import erf

            @jax.jit
            def concentration(x, t):
                return 0.5 * (1 - erf(x / jnp.sqrt(4 * t)))  # error

            concentration(jnp.linspace(0.0, 2.0, 5), 0.5)
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np
            from jax.scipy.optimize import minimize

            r = np.linspace(0.8, 3.0, 12)
            measured = (1 - np.exp(-1.5 * (r - 1.1))) ** 2

            def misfit(p):
                # minimize traces its objective (BFGS runs in a lax.while_loop)
                model = (1 - np.exp(-p[0] * (r - p[1]))) ** 2  # error
                return jnp.sum((model - measured) ** 2)

            minimize(misfit, jnp.array([1.0, 1.0]), method="BFGS")
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from scipy.special import hyp2f1

            def incomplete_beta(x, a, b):
                # a SciPy ufunc of four inputs converts every one of them
                return x**a * hyp2f1(a, 1.0 - b, a + 1.0, x) / a  # error

            jax.vmap(incomplete_beta, in_axes=(0, None, None))(jnp.linspace(0.1, 0.9, 4), 2.0, 3.0)
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
        Example(
            """
            import jax
            import numpy as np

            def masked_speed(u, mask):
                return np.ma.masked_array(u, mask).filled(0.0)  # error

            jax.vmap(masked_speed, in_axes=(0, None))(np.ones((3, 4)), np.zeros(4, dtype=bool))
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            class Grid:
                def __init__(self, shape):
                    self.shape = shape

                def __getitem__(self, index):
                    # `grid[i]` runs this method: in a trace, with the traced index
                    return [x[index] for x in np.indices(self.shape)]  # error

            @jax.jit
            def corner(values):
                grid = Grid((3, 3))
                rows, cols = grid[jnp.argmax(values)]
                return rows + cols

            corner(jnp.arange(3.0))
            """,
            raises="jax.errors.TracerArrayConversionError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np
            from jax.scipy.special import betainc

            data = np.ma.masked_invalid(np.array([0.2, np.nan, 0.7]))
            host = data.filled(0.5)  # masked arrays stay on the host

            def incomplete_beta(x, a, b):
                return betainc(a, b, x)

            out = jax.vmap(incomplete_beta, in_axes=(0, None, None))(jnp.asarray(host), 2.0, 3.0)
            """,
            check="assert out.shape == (3,)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def activation(x):
                return jnp.tanh(x)

            out = activation(jnp.ones(3))
            """,
            check="assert out.shape == (3,)",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp
            import numpy as np

            @partial(jax.jit, static_argnames="n")
            def power_sum(x, n):
                total = jnp.zeros_like(x)
                for k in range(n):
                    total = total + x**k
                rows = int(x.shape[0])
                return total.reshape(rows), np.float32(2.0)

            out, two = power_sum(jnp.ones(3), n=4)
            """,
            check="assert float(out[0]) == 4.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            def summarize(x):
                y = jnp.asarray(x)
                return float(y.mean()), np.asarray(y).tolist()

            mean, values = summarize(np.arange(3.0))
            """,
            check="assert mean == 1.0 and values == [0.0, 1.0, 2.0]",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp
            import numpy as np

            WEIGHTS = np.array([0.5, 1.0, 2.0])

            @partial(jax.jit, static_argnames="axis")
            def weighted(x, i, axis):
                scales = (1.0, 10.0)
                total = jnp.asarray(WEIGHTS)[i] * scales[0] * x.sum(axis=axis)
                return total, WEIGHTS[1], jnp.max(x, axis=x.ndim - 1)

            total, w, m = weighted(jnp.ones((2, 3)), 2, axis=0)
            """,
            check="assert total.tolist() == [4.0, 4.0, 4.0] and m.shape == (2,)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            EDGES = np.linspace(0.0, 1.0, 5)

            @jax.jit
            def bucket(x):
                return jnp.searchsorted(EDGES, x), np.sum(x), np.shape(x)

            found, total, shape = bucket(jnp.array([0.3, 0.7]))
            """,
            check="assert found.tolist() == [2, 3] and shape == (2,)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax import lax

            def shift(x):
                size = lax.psum(1, "i")  # the axis size: a Python int while tracing
                perm = [(i, (i + 1) % size) for i in range(size)]
                return x * len(perm)

            out = jax.jit(jax.vmap(shift, axis_name="i"))(jnp.ones(3))
            """,
            check="assert out.tolist() == [3.0, 3.0, 3.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            @jax.jit
            def shifted(tree):
                return jax.tree.map(lambda x: jnp.append(x[0], x[:-1]), tree)

            out = shifted({"a": jnp.arange(3.0)})
            # outside traced code the leaves are concrete arrays: NumPy may take them
            sizes = jax.tree.map(lambda x: np.asarray(x).size, out)
            """,
            check="assert out['a'].tolist() == [0.0, 0.0, 1.0] and sizes == {'a': 3}",
        ),
    )

    def check(self, node: ast.Call | ast.Subscript, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.in_traced:
            return
        relation = "on"
        if isinstance(node, ast.Subscript):
            misuse, relation = (_host_index(node, ctx) if ctx.abstract else None), "with"
        elif any(keyword.arg is None for keyword in node.keywords):
            return
        else:
            misuse = self._conversion(node, ctx)
            if misuse is None and ctx.abstract:
                misuse, relation = self._static_argument(node, ctx), "set to"
        if misuse is None:
            return
        if misuse.numpy_function is not None and isinstance(node, ast.Call):
            # The value is an array handed to NumPy: the `jnp.` function takes it; making the
            # parameter static would make JAX hash an array (ValueError at the call).
            fix = numpy_to_jnp_fix(node, misuse.numpy_function, ctx)
            yield misuse.finding(self, node, ctx, relation, fix=fix)
            return
        fix = static_argnames_fix(parameter_names([misuse.traced], ctx), ctx)
        finding = misuse.finding(self, node, ctx, relation, fix=fix)
        yield replace(finding, deferred=static_argnames_deferred([misuse.traced], ctx))

    def _conversion(self, node: ast.Call, ctx: RuleContext) -> Misuse | None:
        func = node.func
        qualname = ctx.qualname(func)
        args = [arg for arg in node.args if not isinstance(arg, ast.Starred)]
        if isinstance(func, ast.Attribute) and qualname is None:
            concretizing = func.attr == "tolist" or (func.attr == "item" and ctx.abstract)
            if concretizing and not node.args and is_traced(ctx, func.value):
                remedy = _keep_array_remedy(func.value, ctx)
                return Misuse(func.value, f"`.{func.attr}()`", _CONCRETIZATION, remedy)
            return None
        if qualname == "builtins.range" and ctx.abstract:
            traced = next((arg for arg in args if is_traced(ctx, arg)), None)
            return (
                Misuse(traced, "`range()`", "TracerIntegerConversionError", _RANGE)
                if traced
                else None
            )
        scalar = qualname in _ALWAYS_CONCRETE or (qualname == "builtins.int" and ctx.abstract)
        if scalar and len(args) == 1 and not node.keywords and is_traced(ctx, args[0]):
            what = f"`{qualname.removeprefix('builtins.')}()`"
            return Misuse(args[0], what, _CONCRETIZATION, _keep_array_remedy(args[0], ctx))
        if qualname in _NUMPY_CONVERTING or qualname in _MATH_CONVERTING:
            traced = _traced_argument(args, ctx)
            if traced is None:
                return None
            module, _, name = qualname.partition(".")
            if module == "math":
                return Misuse(traced, f"`math.{name}()`", _CONCRETIZATION, f"Use `jnp.{name}`")
            remedy = f"Use `jnp.{name}`: NumPy converts its argument to a NumPy array"
            return Misuse(traced, f"`np.{name}()`", "TracerArrayConversionError", remedy, qualname)
        positions = CONVERTS_TRACERS.get(qualname or "")
        if positions and ctx.abstract:
            converted = [args[p] for p in positions if p < len(args)]
            traced = _traced_argument(converted, ctx)
            if traced is None:
                return None
            if qualname.startswith("scipy."):
                remedy = (
                    "SciPy converts it to a NumPy array. Use the `jax.scipy` counterpart "
                    f"(`jax.{qualname}`) where JAX has one, or compute it outside the traced "
                    "function"
                )
            else:
                remedy = (
                    "NumPy converts it to a NumPy array or a Python number. Use the `jnp.` "
                    "counterpart, or compute it outside the traced function"
                )
            error = "TracerArrayConversionError (or ConcretizationTypeError)"
            return Misuse(traced, f"`{_spelled(qualname)}()`", error, remedy, qualname)
        positions = FAILS_TO_COMPILE.get(qualname or "")
        if positions and ctx.abstract:
            # Traces (NumPy hands the call to the array's own method) but with arguments JAX
            # cannot compile: `np.argsort` passes `stable=None` to `x.argsort`.
            traced = _traced_argument([args[p] for p in positions if p < len(args)], ctx)
            if traced is None:
                return None
            name = qualname.removeprefix("numpy.")
            error = "TypeError when `jax.jit` compiles it (TracerArrayConversionError under vmap)"
            remedy = f"Use `jnp.{name}`"
            return Misuse(traced, f"`{_spelled(qualname)}()`", error, remedy, qualname)
        return None

    def _static_argument(self, node: ast.Call, ctx: RuleContext) -> Misuse | None:
        """A traced axis, flag or offset where JAX needs a Python value (`jnp.sum(x, axis=a)`)."""
        found = traced_static_argument(node, ctx, self.code)
        if found is None:
            return None
        what = f"The `{found.parameter}` of {found.function}"
        return Misuse(found.traced, what, found.error, _STATIC_VALUE)


def _spelled(qualname: str) -> str:
    """A host function's name as users write it: `np.clip`, `scipy.special.erf`."""
    return "np." + qualname.removeprefix("numpy.") if qualname.startswith("numpy.") else qualname


def _host_index(node: ast.Subscript, ctx: RuleContext) -> Misuse | None:
    """A NumPy array, list or tuple indexed (or sliced) with a traced value: NumPy converts
    the index with `__array__`, Python with `__index__`; a tracer answers neither."""
    container = ctx.kind(node.value)
    if container not in (Kind.NUMPY, Kind.SEQUENCE):
        return None
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    bounds = [
        bound
        for part in parts
        for bound in (
            (part.lower, part.upper, part.step) if isinstance(part, ast.Slice) else (part,)
        )
    ]
    traced = next((bound for bound in bounds if is_traced(ctx, bound)), None)
    if traced is None:
        return None
    name = ctx.segment(node.value)
    sliced = any(isinstance(part, ast.Slice) for part in parts)
    if container is Kind.NUMPY:
        error = "TracerIntegerConversionError" if sliced else "TracerArrayConversionError"
        what = f"Indexing the NumPy array `{name}`"
        remedy = f"Index a JAX array instead (`jnp.asarray({name})`)"
    else:
        error = "TracerIntegerConversionError"
        what = f"Indexing the Python sequence `{name}`"
        remedy = (
            "Index an array instead (`jnp.stack(...)` of its elements), select with "
            "`lax.switch` for functions, or make the index static (`static_argnames`)"
        )
    return Misuse(traced, what, error, remedy)


def _traced_argument(args: list[ast.expr], ctx: RuleContext) -> ast.expr | None:
    """The first traced argument, looking inside list/tuple arguments (`np.stack([x, y])`)
    and lists the value model knows to hold a tracer (`np.stack([d[k] for k in keys])`)."""
    for arg in args:
        elements = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
        for element in elements:
            if is_traced(ctx, element):
                return element
        if not isinstance(arg, ast.List | ast.Tuple) and ctx.holds_tracer(arg):
            return arg
    return None


RULES: tuple[type[Rule], ...] = (PythonBranchOnTraced, PythonLogicOnTraced, ConcretizeTraced)


def _keep_array_remedy(value: ast.expr, ctx: RuleContext) -> str:
    """Static arguments help only a value computed from the function's own parameters."""
    names = parameter_names([value], ctx)
    params = set(all_params(ctx.functions[-1])) if ctx.functions else set()
    return _KEEP_ARRAY if names and params.issuperset(names) else _KEEP_COMPUTED
