"""JAX701 (python-branch-on-traced): `if`, `while`, `assert` or `bool()` on a traced value."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jax_lsp.analysis.flow import annotation_kind
from jax_lsp.analysis.kinds import Kind
from jax_lsp.codeactions.branch_select import branch_select_fix
from jax_lsp.codeactions.logical import condition_text
from jax_lsp.codeactions.numpy_to_jnp import jnp_function_fix
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
from jax_lsp.findings import Applicability, Finding, Fix, Severity

_CONSTRUCTS = {
    ast.If: ("`if`", "use `jnp.where(cond, a, b)` or `lax.cond`"),
    ast.While: ("`while`", "use `lax.while_loop`"),
    ast.Assert: ("`assert`", "use `jax.experimental.checkify.check`, or check outside `jit`"),
    ast.IfExp: ("a conditional expression", "use `jnp.where(cond, a, b)`"),
    ast.comprehension: ("a comprehension `if`", "use `jnp.where` or a `where=` mask"),
    ast.Call: ("`bool()`", "keep the value as an array (`jnp.where`, `lax.cond`)"),
}


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
        is bound before (`y = jnp.where(cond, y * 2, y)`). Branches assigning several names,
        one a statement, get one `jnp.where` per name, in order (`if done: pos = p0; t = 0`
        becomes `pos = jnp.where(done, p0, pos)` then `t = jnp.where(done, 0, t)`): with no
        `else` each name must be bound before; with an `else` both branches assign the same
        names once each, and no fix is offered where a value of the `else` reads a name the
        rewrite would already have assigned and the `else` had not (or the other way round).
        A condition that calls something, or reads a name the branch assigns, is then
        computed once, first, into a name of its own (`condition = done`).
        `and`/`or`/`not` in the condition
        become `jnp.logical_*`. Comments of the replaced lines are kept. `jnp.where` evaluates
        both values, and `jax.grad` differentiates both and multiplies the one not selected by
        zero, so `0 * inf` makes the gradient NaN: `jnp.where(x > 0, jnp.sqrt(x), 0.0)` has
        gradient NaN at `x <= 0`, where the original `if` gives 0. The fix is safe only when the
        condition is boolean and both values are free of side effects and finite and
        differentiable wherever their inputs are finite: names, numbers, indexing, `+`, `-`,
        `*`, division by a non-zero number, whole powers and `abs`, `maximum`, `minimum`,
        `clip`, `sin`, `cos`, `tanh`, `relu`, `sigmoid`, and when both values are known to have
        one shape: `jnp.where` broadcasts them, so `y = jnp.where(c, x[0], x)` gives a vector
        where the `if` gave one element (or raises ValueError for `x[:2]`). Known alike are
        values over the same arrays combined elementwise (`x * 2` and `-x`), numbers, elements
        read at literal indices of one array (`y[0]` and `y[1]`), and values the condition
        compares (those hold one element); otherwise the title says both values must have one
        shape. In a function traced only because traced callers call it, the fix is unsafe
        when the condition or a value is a JAX array only as those callers pass it (a
        parameter, or computed from one): an untraced caller may pass NumPy or Python values,
        which the `if` gives back as they are and `jnp.where` as a JAX array. Over `sqrt`,
        `log`, division by a value
        or any other call it is unsafe. Where each such part is `sqrt`, `log`, `log1p`, `exp`,
        `reciprocal`, `arcsin`, `arccos`, `arctanh`, a division or a power, with a smooth input,
        the fix also guards that input (the divisor, the base) where its branch is not taken
        ("double where": `jnp.where(x > 0,
        jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)`), so the gradient stays finite and equals the
        original's on each side; otherwise its title warns of NaN gradients. A value that calls
        another function (effectful or costly) is selected with `lax.cond(cond, lambda: a,
        lambda: b)` instead, which runs only the branch taken: unsafe, since both branches are
        traced, the condition must be a scalar and both values of the same shape and dtype;
        several names get one `lax.cond` returning a tuple (`pos, t = lax.cond(done, lambda:
        (reset(pos), 0), lambda: (pos, t))`), and none where a value reads a name its branch
        assigned above it (the lambdas would see the old value). A
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
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def checked(x, rate):
                try:
                    if rate >= 1:  # error
                        raise ValueError("rate must be below 1")
                except ValueError:  # not the tracer's error
                    rate = 0.5
                return x * rate

            out = checked(jnp.ones(2), 0.25)
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import optax

            def warmup(peak, steps):
                def schedule(count):  # optax calls it with the traced step count
                    if count < steps:  # error
                        return peak * count / steps
                    return peak

                return schedule

            def build_optimizer():
                learning_rate = warmup(1e-3, 100)
                return optax.adam(learning_rate=learning_rate)

            tx = build_optimizer()
            params = {"w": jnp.ones(3)}

            @jax.jit
            def step(params, state):
                return tx.update(params, state, params)

            step(params, tx.init(params))
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
        Example(
            """
            import jax

            def jit_static(*names):
                return lambda f: jax.jit(f, static_argnames=names)

            @jit_static("n")
            def power(x, n):
                if n > 2:  # a static argument: a Python int
                    x = x * x
                if x > 1:  # error
                    return x
                return -x

            out = power(2.0, 3)
            """,
            raises="jax.errors.TracerBoolConversionError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            def leaf_count(tree):
                return sum(jnp.size(leaf) for leaf in jax.tree_util.tree_leaves(tree))

            @jax.jit
            def init(position):
                if leaf_count(position) < 2:  # sizes are Python ints: so is their sum
                    raise ValueError("needs at least two dimensions")
                if max(jnp.ndim(position), 1) > 1 or min([jnp.size(position), 9]) > 8:
                    raise ValueError("needs a short vector")
                return position * 2

            out = init(jnp.ones(3))
            """,
            check="assert float(out.sum()) == 6.0",
        ),
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

            @jax.jit
            def decode(logits, *, temperature: float = 1.0):
                def step(i, logits):
                    if temperature > 0.0:  # the call leaves the default: a Python float
                        logits = logits / temperature
                    return logits

                return jax.lax.fori_loop(0, 3, step, logits)

            out = decode(jnp.ones(2))
            """,
            check="assert out.tolist() == [1.0, 1.0]",
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
        Example(
            """
            import dataclasses
            import enum

            import jax
            import jax.numpy as jnp

            class Mode(enum.Enum):
                FIXED = "fixed"
                ADAPTIVE = "adaptive"

            @jax.tree_util.register_dataclass
            @dataclasses.dataclass(frozen=True)
            class Pedestal:
                height: jax.Array
                mode: Mode = dataclasses.field(metadata={"static": True})

            @jax.tree_util.register_dataclass
            @dataclasses.dataclass(frozen=True)
            class Params:
                pedestal: Pedestal

            @jax.jit
            def evaluate(params: Params, x):
                if params.pedestal.mode == Mode.ADAPTIVE:  # aux data: a Python enum
                    x = x * 2.0
                if params.pedestal:  # a Python object: true
                    x = x + params.pedestal.height
                return x

            out = evaluate(Params(Pedestal(jnp.asarray(1.0), Mode.ADAPTIVE)), jnp.ones(2))
            """,
            check="assert out.tolist() == [3.0, 3.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            def as_array(data) -> jax.Array | np.ndarray:
                if isinstance(data, np.ndarray):
                    return data
                return jnp.asarray(data)

            def check_rows(shape: jax.Array, rows):
                if shape[0] != rows:  # the caller passes a shape: a tuple of ints
                    raise ValueError(f"expected {rows} rows")

            @jax.jit
            def as_column(x):
                data = as_array(x * 2)
                if data.ndim == 1:
                    data = data.reshape(data.shape[0], 1)
                check_rows(data.shape, x.shape[0])  # an array's shape either way
                return data

            out = as_column(jnp.ones(3))
            """,
            check="assert out.shape == (3, 1)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def dropout(x, rate):
                try:  # checks a Python rate; a traced one raises, and passes
                    if rate < 0 or rate >= 1:
                        raise ValueError("rate must be in [0, 1)")
                    if rate == 0.0:
                        return x
                except jax.errors.ConcretizationTypeError:
                    pass
                return x * (1 - rate)

            out = dropout(jnp.ones(3), 0.25)
            """,
            check="assert out.tolist() == [0.75, 0.75, 0.75]",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        findings = list(self._findings(node, ctx))
        if findings and not caught_here(ctx, node, TRUTH_ERRORS):
            yield from findings

    def _findings(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
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
                deferred=static_argnames_deferred(tested_operands(condition), ctx),
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
        tested = is_test_of(ctx.parent, node, ctx) or isinstance(
            ctx.parent, ast.BoolOp | ast.UnaryOp
        )
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
        fix = static_argnames_fix(parameter_names(tested_operands(condition), ctx), ctx)
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
