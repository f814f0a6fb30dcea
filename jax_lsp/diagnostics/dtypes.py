"""Dtypes (JAX901-JAX903): 64-bit requests without x64, enabling x64 late, saturating casts."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from jax_lsp.analysis.dtypes import (
    AT_UPDATES,
    FloatOracle,
    IntArrayOracle,
    at_update_target,
    dtype_argument,
    is_integer,
    is_numpy_float64,
    is_wide,
    scope_bindings,
    short_dtype,
    wide_dtype,
)
from jax_lsp.analysis.kinds import ARRAY_MODULES, STATIC_RESULTS, Kind
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.x64 import is_x64_context, is_x64_update
from jax_lsp.codeactions.x64 import enable_x64_fix, move_x64_fix, x64_fixes
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.findings import Applicability, Finding, Severity


def _absolute_line(node: ast.AST, ctx: RuleContext) -> int:
    return ctx.unit_start + node.lineno - 1


def _in_x64_context(ctx: RuleContext) -> bool:
    return any(
        isinstance(node, ast.With | ast.AsyncWith)
        and any(is_x64_context(item.context_expr, ctx.resolvers[-1]) for item in node.items)
        for node in ctx.ancestors
    )


def x64_enabled_at(node: ast.AST, ctx: RuleContext) -> bool:
    """Could 64-bit mode be on when this code runs? Unsure means yes."""
    facts = ctx.model.x64
    if facts.settings_enabled or facts.reads_flag or facts.maybe_enabled_at_call_time:
        return True
    enabled_line = facts.module_enable_line
    if enabled_line is not None and (ctx.functions or enabled_line < _absolute_line(node, ctx)):
        return True
    outermost = ctx.functions[0] if ctx.functions else None
    if getattr(outermost, "name", None) in facts.x64_callees:
        return True  # called inside `with jax.enable_x64(...)`
    return _in_x64_context(ctx)


def _wide_dtype_defaults(
    function: ast.FunctionDef | ast.AsyncFunctionDef, ctx: RuleContext
) -> Iterator[ast.expr]:
    """64-bit dtype defaults of parameters that the function passes, never rebound, as the
    dtype of a JAX call."""
    resolver = ctx.resolvers[-1]
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    )
    pairs += [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    wide = {arg.arg: default for arg, default in pairs if is_wide(default, resolver)}
    if not wide:
        return
    used: set[str] = set()
    for node in walk_nodes(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            wide.pop(node.id, None)  # rebound: the default may not reach JAX
        elif isinstance(node, ast.Call):
            qualname = resolver.qualname(node.func) or ""
            if qualname.startswith(ARRAY_MODULES) and qualname not in STATIC_RESULTS:
                dtype = dtype_argument(node, qualname)
                if isinstance(dtype, ast.Name):
                    used.add(dtype.id)
    for name, default in wide.items():
        if name in used:
            yield default


class Float64WithoutX64(Rule):
    code = "JAX901"
    name = "float64-without-x64"
    summary = "A 64-bit dtype asked of JAX while `jax_enable_x64` is off"
    severity = Severity.WARNING
    what_it_does = """
        Flags a 64-bit dtype (`jnp.float64`, `"float64"`, `np.int64`, `complex128`, ...)
        passed as `dtype=` to a JAX function, to `.astype()` of a JAX array, or a
        `jnp.float64(...)` scalar (aliases too: `jnp.int_`, `jnp.float_`, `np.intp`, ...),
        or as the default of a parameter that the function passes as a JAX dtype
        (`def init(key, dtype=jnp.float_)`), when nothing enables 64-bit mode: no
        `jax.config.update("jax_enable_x64", True)` earlier in the module or in another
        module of its package or a script beside the package that imports it (a script
        that imports it, for a folder of scripts; a value read at run time, like a package
        setting that defaults to on, counts as on), not inside `with jax.enable_x64(True):`,
        no `JAX_ENABLE_X64` in the project's test or
        tool configuration (pytest `env`, `tox.ini`, `pytest.ini`, `setup.cfg`, a
        `conftest.py`), and no `enable-x64 = true` (or `x64 = true`) under `[tool.jax-lsp]`.
        Also flags NumPy data the code asks to be `float64` (`np.float64(x)`,
        `np.linspace(0, 1, 5, dtype=np.float64)`, `np.array(v, dtype=float)`,
        `a.astype(np.float64)`, or a name only bound to one of them) converted by
        `jnp.asarray` / `jnp.array` with no `dtype`. NumPy's implicit float64 default
        (`jnp.asarray(np.random.randn(n))`, in every data loader) is not flagged.
        Modules that read the flag (`jax.config.jax_enable_x64`, `jax.config.read(...)`,
        `jax.config.x64_enabled`: library code adapting to it) and test files are left alone.
    """
    why_bad = """
        By default JAX computes in 32 bits: the request is silently truncated to
        `float32`/`int32`, with only a `UserWarning` ("Explicitly requested dtype float64 is
        not available"). Code written for double precision then loses accuracy without an
        error. Enable x64 at startup (`jax.config.update("jax_enable_x64", True)` right after
        the imports, or `JAX_ENABLE_X64=1`), or ask for a 32-bit dtype.
    """
    fix_safety = """
        Two fixes, both unsafe. The first, as the JAX guide advises, inserts
        `jax.config.update("jax_enable_x64", True)` right after the imports, before any JAX
        computation (with an `import jax` when the module has none): the author who wrote
        `float64` asked for 64 bits, and gets them; but the default dtypes of the whole
        program change (`jnp.array(1.0)` becomes `float64`, `jnp.arange(3)` `int64`), and of
        every program importing the module. The alternative asks for the 32-bit dtype
        instead (`jnp.float64` -> `jnp.float32`, `"int64"` -> `"int32"`, `"f8"` -> `"f4"`):
        the values stay what JAX computes today, but the request for 64 bits is gone, and
        where x64 is switched on from outside the code (`JAX_ENABLE_X64=1` in the shell or
        CI) the values change. Neither is applied by `--fix` or fix-all, even with
        `--unsafe-fixes`: with two choices they pick none and list the finding with both
        (choose in an editor). For converted NumPy `float64` data only the (unsafe) x64
        switch is offered, which `--unsafe-fixes` applies.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    node_types = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            x = jnp.zeros(3, dtype=jnp.float64)  # error
            """,
            check="assert x.dtype == jnp.float32  # silently 32-bit",
            fixed="""
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)

            x = jnp.zeros(3, dtype=jnp.float64)
            """,
            fixed_check=(
                "try:\n"
                "    assert x.dtype == jnp.float64\n"
                "finally:\n"
                '    jax.config.update("jax_enable_x64", False)  # keep the tests 32-bit\n'
            ),
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            def sample(key):
                return jax.random.uniform(key, (3,), dtype=np.float64)  # error

            def widen(x):
                return jnp.asarray(x).astype("float64")  # error

            u = sample(jax.random.key(0))
            w = widen([1.0, 2.0])
            """,
            check="assert u.dtype == jnp.float32 and w.dtype == jnp.float32",
            fixed="""
            import jax
            import jax.numpy as jnp
            import numpy as np
            jax.config.update("jax_enable_x64", True)

            def sample(key):
                return jax.random.uniform(key, (3,), dtype=np.float64)

            def widen(x):
                return jnp.asarray(x).astype("float64")

            u = sample(jax.random.key(0))
            w = widen([1.0, 2.0])
            """,
            fixed_check=(
                "try:\n"
                "    assert u.dtype == jnp.float64 and w.dtype == jnp.float64\n"
                "finally:\n"
                '    jax.config.update("jax_enable_x64", False)  # keep the tests 32-bit\n'
            ),
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def init(key, shape, dtype=jnp.float_):  # error
                return jax.random.normal(key, shape, dtype=dtype)

            counts = jnp.asarray([1, 2], jnp.int_)  # error
            w = init(jax.random.key(0), (2,))
            """,
            check="assert w.dtype == jnp.float32 and counts.dtype == jnp.int32",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            grid = jnp.asarray(np.linspace(0, 1, 5, dtype=np.float64))  # error

            def standardise(n):
                host = np.random.randn(n).astype(np.float64)
                return jnp.array(host)  # error

            z = standardise(4)
            """,
            check="assert grid.dtype == jnp.float32 and z.dtype == jnp.float32",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            with jax.enable_x64(True):
                x = jnp.zeros(3, dtype=jnp.float64)
            """,
            check="assert x.dtype == jnp.float64",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            jax.config.update("jax_enable_x64", True)

            x = jnp.zeros(3, dtype=jnp.float64)
            """,
            runnable=False,  # would switch x64 on for the whole test process
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            host = np.zeros(3, dtype=np.float64)  # NumPy keeps 64 bits
            device = jnp.asarray(host, dtype=jnp.float32)
            """,
            check="assert host.dtype == np.float64 and device.dtype == jnp.float32",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            batch = jnp.asarray(np.random.randn(8, 3))  # NumPy's default, not a request
            """,
            check="assert batch.dtype == jnp.float32",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        if not isinstance(node, ast.Call):
            args = node.args  # type: ignore[attr-defined]
            if not args.defaults and not args.kw_defaults:
                return ()  # most functions have no default to look at
            return self._defaults(node, ctx)  # type: ignore[arg-type]
        # Not a generator: most calls ask for no 64-bit dtype, and leave here without the
        # cost of making one.
        requested = self._requested(node, ctx)
        converted = self._converted_float64(node, ctx)
        if requested is None and converted is None:
            return ()
        return self._call(node, requested, converted, ctx)

    def _call(
        self,
        node: ast.Call,
        requested: ast.expr | None,
        converted: ast.expr | None,
        ctx: RuleContext,
    ) -> Iterator[Finding]:
        if requested is not None and not x64_enabled_at(node, ctx):
            yield self._finding(node, requested, ctx)
        if converted is not None and not x64_enabled_at(node, ctx):
            fix = enable_x64_fix(_absolute_line(node, ctx), ctx)
            yield ctx.finding(
                self,
                converted,
                "NumPy `float64` data becomes `float32` here, silently: 64-bit mode is "
                'off. To keep 64 bits, call `jax.config.update("jax_enable_x64", True)` '
                "at startup or set JAX_ENABLE_X64=1; otherwise pass `dtype=jnp.float32` "
                "to say so",
                fix=fix,
            )

    def _defaults(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: RuleContext
    ) -> Iterator[Finding]:
        # `def init(key, dtype=jnp.float64)`: the body, run later, asks JAX for the default.
        for default in _wide_dtype_defaults(node, ctx):
            if not x64_enabled_at(node, ctx) and ctx.model.x64.module_enable_line is None:
                yield self._finding(node, default, ctx)

    def _finding(self, node: ast.AST, requested: ast.expr, ctx: RuleContext) -> Finding:
        dtype = wide_dtype(requested, ctx.resolvers[-1])
        narrow = dtype.replace("64", "32").replace("complex128", "complex64")
        fixes = x64_fixes(requested, _absolute_line(node, ctx), ctx)
        return ctx.finding(
            self,
            requested,
            f"`{dtype}` is silently truncated to `{narrow}` (with a UserWarning): 64-bit mode "
            'is off. To get 64 bits, call `jax.config.update("jax_enable_x64", True)` at '
            f"startup or set JAX_ENABLE_X64=1; otherwise ask for `{narrow}`",
            fix=fixes[0],
            alternatives=fixes[1],
        )

    @staticmethod
    def _converted_float64(node: ast.Call, ctx: RuleContext) -> ast.expr | None:
        """The NumPy float64 data `jnp.asarray(data)` / `jnp.array(data)` converts, with no
        dtype given, when the model knows its dtype."""
        qualname = ctx.qualname(node.func)
        if qualname not in ("jax.numpy.asarray", "jax.numpy.array") or not node.args:
            return None
        if dtype_argument(node, qualname) is not None:
            return None
        bindings = scope_bindings(ctx.functions[-1] if ctx.functions else None)

        data = node.args[0]

        def is_numpy(expr: ast.expr) -> bool:
            return ctx.kind(expr) is Kind.NUMPY

        return data if is_numpy_float64(data, ctx.resolvers[-1], bindings, is_numpy) else None

    @staticmethod
    def _requested(node: ast.Call, ctx: RuleContext) -> ast.expr | None:
        """The 64-bit dtype expression this call asks JAX for, if any."""
        resolver = ctx.resolvers[-1]
        func = node.func
        qualname = ctx.qualname(func) or ""
        if qualname.startswith("jax.numpy.") and is_wide(func, resolver):
            return func  # jnp.float64(1.0)
        if isinstance(func, ast.Attribute) and func.attr == "astype" and not qualname:
            # The dtype first: the kind interprets the whole function, for few `astype` calls
            # that ask for 64 bits.
            if node.args and is_wide(node.args[0], resolver) and ctx.kind(func.value).is_jax:
                return node.args[0]
            return None
        if not qualname.startswith(ARRAY_MODULES) or qualname in STATIC_RESULTS:
            return None
        dtype = dtype_argument(node, qualname)
        return dtype if dtype is not None and is_wide(dtype, resolver) else None


class LateX64Enable(Rule):
    code = "JAX902"
    name = "late-x64-enable"
    summary = "`jax_enable_x64` switched after JAX arrays were created at module level"
    severity = Severity.WARNING
    what_it_does = """
        Flags a module-level `jax.config.update("jax_enable_x64", ...)` that comes after
        module-level code created JAX arrays.
    """
    why_bad = """
        Arrays created before the switch keep their 32-bit dtype, and functions already
        traced keep their compiled 32-bit versions, while arrays created afterwards are 64-bit:
        the program mixes precisions depending on import order. Switch the flag first thing,
        right after the imports.
    """
    fix_safety = """
        Moves the statement right after the imports. Unsafe: the arrays created above it change
        dtype.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    node_types = (ast.Call,)
    call_names = frozenset(["update"])  # `jax.config.update`
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            weights = jnp.ones(3)
            jax.config.update("jax_enable_x64", True)  # error
            bias = jnp.ones(3)
            """,
            check=(
                "try:\n"
                "    assert weights.dtype == jnp.float32 and bias.dtype == jnp.float64\n"
                "finally:\n"
                '    jax.config.update("jax_enable_x64", False)  # keep the tests 32-bit\n'
            ),
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            jax.config.update("jax_enable_x64", True)

            weights = jnp.ones(3)
            bias = jnp.ones(3)
            """,
            runnable=False,  # would switch x64 on for the whole test process
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def main():
                jax.config.update("jax_enable_x64", True)
                return jnp.ones(3)
            """,
            check="assert callable(main)",
        ),
    )

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        if ctx.functions or not is_x64_update(node, ctx.resolvers[-1]):
            return
        facts = ctx.model.x64
        line = _absolute_line(node, ctx)
        if facts.first_array_line is None or facts.first_array_line >= line:
            return
        yield ctx.finding(
            self,
            node,
            f"JAX arrays were already created above (line {facts.first_array_line + 1}): they "
            "keep their old dtype, and functions already compiled keep their old precision. "
            "Set `jax_enable_x64` first thing, right after the imports",
            fix=move_x64_fix(node, ctx),
        )


class UnsafeCast(Rule):
    code = "JAX903"
    name = "unsafe-cast"
    summary = "Floats cast to an integer dtype: out-of-range values saturate"
    severity = Severity.INFO
    what_it_does = """
        Points out `.astype(<integer dtype>)` and `jnp.asarray(..., dtype=<integer dtype>)`
        applied to values known to be floating point (float literals, arrays made with a
        float `dtype=`, `jax.random.normal`, `jnp.linspace`, true division, `jnp.nan`, NumPy
        float data handed to JAX such as `jnp.array(np.array(v, dtype=np.float32))` or
        `np.random.randn(n)`, names bound to such values, ...), and float values written into
        an integer array with `x.at[i].set(...)` (or `.add`, `.multiply`, ...), which casts
        them to its dtype.
    """
    why_bad = """
        JAX (XLA) saturates out-of-range float-to-integer casts: `300.0` becomes 255 as
        `uint8`, `-1.5` becomes 0, NaN becomes 0, `1e10` becomes `INT32_MAX`, where NumPy wraps
        around or gives `INT_MIN` (with a RuntimeWarning). Code ported from NumPy can change
        results silently. Clip (and handle NaN) explicitly when values may fall outside the
        target range: `jnp.clip(x, 0, 255).astype(jnp.uint8)`.
    """
    node_types = (ast.Call,)
    # `x.at[i].set(v)` and the other updates, `x.astype(t)`, `jnp.asarray` / `jnp.array`.
    call_names = AT_UPDATES | {"astype", "asarray", "array"}
    invalid = (
        Example(
            """
            import jax.numpy as jnp

            pixels = jnp.array([300.0, -1.5, 128.0])
            as_bytes = pixels.astype(jnp.uint8)  # error
            """,
            check="assert as_bytes.tolist() == [255, 0, 128]  # saturated, NumPy would wrap",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            noise = jax.random.normal(jax.random.key(0), (4,)) * 1e12
            counts = jnp.asarray(noise, dtype=jnp.int32)  # error
            """,
            check="assert set(counts.tolist()) <= {2147483647, -2147483648}  # clamped",
        ),
        Example(
            """
            import jax.numpy as jnp

            counts = jnp.zeros(3, dtype=int)
            counts = counts.at[0].set(jnp.nan)  # error
            weights = jnp.array([0.5, 1e10], dtype=jnp.float32)
            scaled = weights.astype(jnp.int32)  # error
            """,
            check="assert counts.tolist()[0] == 0 and scaled.tolist() == [0, 2147483647]",
        ),
    )
    valid = (
        Example(
            """
            import jax.numpy as jnp

            pixels = jnp.array([300.0, -1.5, 128.0])
            as_bytes = jnp.clip(pixels, 0, 255).astype(jnp.uint8)
            """,
            check="assert as_bytes.tolist() == [255, 0, 128]",
        ),
        Example(
            """
            import jax.numpy as jnp

            counts = jnp.arange(4)
            small = counts.astype(jnp.uint8)  # integers: wraps like NumPy
            """,
            check="assert small.tolist() == [0, 1, 2, 3]",
        ),
        Example(
            """
            import jax.numpy as jnp

            counts = jnp.zeros(3, dtype=int)
            counts = counts.at[0].set(7)  # an integer into an integer array
            totals = jnp.zeros(3).at[0].set(jnp.nan)  # a float array keeps NaN
            """,
            check="assert counts.tolist()[0] == 7 and bool(jnp.isnan(totals[0]))",
        ),
    )

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        resolver = ctx.resolvers[-1]
        func = node.func
        qualname = ctx.qualname(func)
        # The scope's bindings are looked up only for a call that passes the tests below.
        scope = ctx.functions[-1] if ctx.functions else None

        updated = at_update_target(node)
        if updated is not None and qualname is None:
            # `ints.at[i].set(jnp.nan)`: the value is cast to the array's integer dtype.
            bindings = scope_bindings(scope)
            value = node.args[0] if node.args else None
            value = next((k.value for k in node.keywords if k.arg == "values"), value)
            oracle = FloatOracle(resolver, bindings, ctx.model.float_globals)
            ints = IntArrayOracle(resolver, bindings, ctx.model.int_array_globals)
            if value is not None and oracle.is_float(value) and ints.is_int_array(updated):
                yield ctx.finding(
                    self,
                    node,
                    f"Floats written into an integer array are cast to its dtype: NaN becomes "
                    f"0 and out-of-range values clamp (NumPy raises for NaN). Make "
                    f"`{ctx.segment(updated)}` a float array, or round and clip the value",
                )
            return
        if isinstance(func, ast.Attribute) and func.attr == "astype" and qualname is None:
            source, dtype = func.value, (node.args[0] if node.args else None)
            # An integer dtype first: the kind interprets the whole function.
            if dtype is None or not is_integer(dtype, resolver) or not ctx.kind(source).is_jax:
                return
        elif qualname in ("jax.numpy.asarray", "jax.numpy.array") and node.args:
            source, dtype = node.args[0], dtype_argument(node, qualname)
        else:
            return
        if dtype is None or not is_integer(dtype, resolver):
            return
        oracle = FloatOracle(resolver, scope_bindings(scope), ctx.model.float_globals)
        if not oracle.is_float(source):
            return
        target = short_dtype(dtype, resolver)
        yield ctx.finding(
            self,
            node,
            f"Float to `{target}` saturates in JAX: out-of-range values clamp to the limits of "
            f"`{target}` and NaN becomes 0, where NumPy wraps. Clip first if values may fall "
            "outside the range",
        )


RULES: tuple[type[Rule], ...] = (Float64WithoutX64, LateX64Enable, UnsafeCast)
