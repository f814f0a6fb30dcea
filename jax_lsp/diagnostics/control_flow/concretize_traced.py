"""JAX703 (concretize-traced): `int()`, `float()`, `.item()`, `range()` or NumPy on a traced
value.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace

from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import all_params
from jax_lsp.codeactions.numpy_to_jnp import numpy_to_jnp_fix
from jax_lsp.codeactions.static_argnames import (
    parameter_names,
    static_argnames_deferred,
    static_argnames_fix,
)
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.caught_errors import caught_here, error_names
from jax_lsp.diagnostics.numpy_table import CONVERTS_TRACERS, FAILS_TO_COMPILE
from jax_lsp.diagnostics.static_arguments import traced_static_argument
from jax_lsp.diagnostics.traced_values import Misuse, is_traced
from jax_lsp.findings import Applicability, Finding, Severity

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

            def validate(delta):
                try:
                    if int(np.asarray(delta)) <= 0:
                        raise ValueError("delta must be positive")
                except TypeError:  # a tracer: JAX's conversion errors are TypeErrors
                    return

            @jax.jit
            def plan(delta, x):
                validate(delta)
                return x + delta

            out = plan(jnp.asarray(2), jnp.ones(2))
            """,
            check="assert out.tolist() == [3.0, 3.0]",
        ),
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
        if misuse is None or caught_here(ctx, node, error_names(misuse.error)):
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


def _keep_array_remedy(value: ast.expr, ctx: RuleContext) -> str:
    """Static arguments help only a value computed from the function's own parameters."""
    names = parameter_names([value], ctx)
    params = set(all_params(ctx.functions[-1])) if ctx.functions else set()
    return _KEEP_ARRAY if names and params.issuperset(names) else _KEEP_COMPUTED
