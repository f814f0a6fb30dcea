"""Shapes that depend on traced values (JAX801-JAX803).

Under abstract tracing (jit, vmap, lax control flow) every array shape must be known before
any value is: boolean-mask indexing, size-dependent functions and shapes or slices computed
from traced numbers all fail while tracing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace

from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.names import assigned_name
from jax_lsp.analysis.nodes import argument_of, passes_keyword, walk_nodes
from jax_lsp.analysis.reductions import IDENTITIES, REDUCTION_FUNCTIONS
from jax_lsp.codeactions.site import given_by_callers
from jax_lsp.codeactions.size_argument import size_fix
from jax_lsp.codeactions.static_argnames import (
    parameter_names,
    static_argnames_deferred,
    static_argnames_fix,
)
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.static_arguments import traced_part, traced_static_argument
from jax_lsp.diagnostics.traced_values import Misuse, is_traced
from jax_lsp.findings import Applicability, Codemod, Finding, Severity


def _index_parts(index: ast.expr) -> list[ast.expr]:
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def _is_at(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "at"


class BooleanMaskInTraced(Rule):
    code = "JAX801"
    needs_trace = "abstract"
    name = "boolean-mask-in-traced"
    summary = "`x[mask]` with a boolean array index in traced code"
    severity = Severity.ERROR
    what_it_does = """
        Flags indexing a JAX array with a traced boolean array (`x[x > 0]`, `x[~jnp.isnan(x)]`,
        `x[mask]` where `mask` is such an expression, `x.at[mask].set(v)`) inside `jax.jit`,
        `jax.vmap` or `lax` control flow; also a parameter that a call running the traced
        function gives a boolean array (`loss(x, mask)` with `mask = np.ones(n, dtype=bool)`,
        or unpacked from what a helper returns, in this module or another), and an entry of a
        dict parameter such a call fills with one (`x[batch["mask"]]`, the batch a data
        loader builds with a NumPy comparison), and an array cast with `.astype(bool)`.
    """
    why_bad = """
        The result of `x[mask]` has as many elements as `mask` has `True` values, which is
        unknown while tracing: JAX raises `jax.errors.NonConcreteBooleanIndexError` ("Array
        boolean indices must be concrete"). It works eagerly, so the error appears only under
        `jit`/`vmap`. Keep the shape and mask the values instead: `jnp.where(mask, x, 0.0)`
        feeding the reduction (the identity of the reduction: sum 0, prod 1, max -inf,
        min +inf), a `where=` argument (`jnp.sum(x, where=mask)`), or for a mean
        `jnp.sum(jnp.where(mask, x, 0.0)) / mask.sum()`. For updates, `jnp.where(mask, v, x)`.
    """
    fix_safety = """
        For a reduction of the masked array (`x[mask].sum()`, `jnp.sum(x[mask])`, prod, max,
        min, any, all, mean, and `y = x[mask]` followed by one `y.sum()`), rewrites it to
        `jnp.where(mask, x, identity)` reduced (mean: a masked sum over `mask.sum()`), or to
        the reduction's own `where=` argument. Safe when the mask is visibly elementwise in `x`
        (`x > 0`, `~jnp.isnan(x)`); unsafe otherwise, and always for max/min (an empty mask
        gives -inf/inf where eager code raises), and in a function traced only because traced
        code calls it when `x` is a JAX array only through what the callers pass (an untraced
        caller's NumPy array would come back a JAX array, in 32 bits). A bare `y = x[mask]`
        gets no fix.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.Subscript,)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positive_sum(x):
                return x[x > 0].sum()  # error

            result = positive_sum(jnp.array([-1.0, 2.0, -3.0, 4.0]))
            """,
            raises="jax.errors.NonConcreteBooleanIndexError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positive_sum(x):
                return jnp.where(x > 0, x, 0).sum()

            result = positive_sum(jnp.array([-1.0, 2.0, -3.0, 4.0]))
            """,
            fixed_check="assert float(result) == 6.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def nan_mean(x):
                valid = ~jnp.isnan(x)
                return x[valid].mean()  # error

            result = nan_mean(jnp.array([1.0, jnp.nan, 3.0]))
            """,
            raises="jax.errors.NonConcreteBooleanIndexError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def nan_mean(x):
                valid = ~jnp.isnan(x)
                return jnp.where(valid, x, 0).sum() / valid.sum()

            result = nan_mean(jnp.array([1.0, jnp.nan, 3.0]))
            """,
            fixed_check="assert float(result) == 2.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def clip_negative(x):
                return x.at[x < 0].set(0.0)  # error

            clip_negative(jnp.array([-1.0, 2.0]))
            """,
            raises="jax.errors.NonConcreteBooleanIndexError",
        ),
        Example(
            """
            import jax
            import numpy as np

            @jax.jit
            def masked_mean(x, keep):
                return x[keep].mean()  # error

            def evaluate():
                x = np.arange(4.0)
                keep = np.ones(4, dtype=bool)
                return masked_mean(x, keep)

            result = evaluate()
            """,
            raises="jax.errors.NonConcreteBooleanIndexError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def masked_mean(x, batch):
                keep = batch["mask"].astype(bool)
                return x[keep].mean()  # error

            result = masked_mean(jnp.arange(4.0), {"mask": jnp.array([1, 0, 1, 1])})
            """,
            raises="jax.errors.NonConcreteBooleanIndexError",
        ),
        Example(
            """
            import jax
            import numpy as np

            @jax.jit
            def masked_mean(x, batch):
                return x[batch["mask"]].mean()  # error

            def load(n):
                lengths = np.array([2, 3])
                return {"mask": np.arange(n)[None, :] < lengths[:, None]}

            result = masked_mean(np.ones((2, 4)), load(4))
            """,
            raises="jax.errors.NonConcreteBooleanIndexError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def nan_mean(x):
                valid = ~jnp.isnan(x)
                return jnp.sum(jnp.where(valid, x, 0.0)) / valid.sum()

            result = nan_mean(jnp.array([1.0, jnp.nan, 3.0]))
            """,
            check="assert float(result) == 2.0",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            def positive_sum(x):
                return x[x > 0].sum()  # eager: fine

            eager = positive_sum(jnp.array([-1.0, 2.0]))
            table = np.arange(4.0)
            host = table[table > 1]
            kept = table[np.array([1, 0, 1, 1]).astype(bool)]
            """,
            check="assert float(eager) == 2.0 and host.tolist() == [2.0, 3.0]\n"
            "assert kept.tolist() == [0.0, 2.0, 3.0]",
        ),
        Example(
            """
            import jax
            import numpy as np

            @jax.jit
            def picked_sum(x, rows):
                return x[rows].sum()

            def evaluate():
                x = np.arange(4.0)
                rows = np.nonzero(x > 1)[0]  # integer positions: a fixed count
                return picked_sum(x, rows)

            result = evaluate()
            """,
            check="assert float(result) == 5.0",
        ),
    )

    def check(self, node: ast.Subscript, ctx: RuleContext) -> Iterator[Finding]:
        if not (ctx.abstract and isinstance(node.ctx, ast.Load)):
            return
        if not ctx.kind(node.value).is_jax:
            return
        for part in _index_parts(node.slice):
            if is_traced(ctx, part) and is_boolean(part, ctx):
                break
        else:
            return
        mask = ctx.segment(part)
        reduction = None if _is_at(node.value) else _reduction_of(node, ctx)
        if _is_at(node.value):
            remedy = f"Use `jnp.where({mask}, new_values, {ctx.segment(node.value.value)})`"
        else:
            fill = _masked_fill(reduction, ctx)
            remedy = (
                f"Use `jnp.where({mask}, {ctx.segment(node.value)}, {fill})` feeding the "
                f"reduction, or a `where={mask}` argument"
            )
        yield ctx.finding(
            self,
            node,
            f"Indexing with the traced boolean mask `{mask}` raises "
            f"NonConcreteBooleanIndexError in {ctx.where_traced}: the result's shape depends "
            f"on the mask's values. {remedy}",
            deferred=(
                (ctx.deferred(Codemod.WHERE_MASK, reduction, given_by_callers(ctx, node.value)),)
                if reduction
                else ()
            ),
        )


def _reduction_of(subscript: ast.Subscript, ctx: RuleContext) -> ast.Call | None:
    """The reduction call consuming `x[mask]` (`x[mask].sum()`, `jnp.sum(x[mask])`, or a later
    `y.sum()` after `y = x[mask]`), where the where-mask codemod starts; None if there is none."""
    parent = ctx.parent
    if isinstance(parent, ast.Call) and subscript in parent.args:
        return parent
    if isinstance(parent, ast.Attribute) and len(ctx.ancestors) > 1:
        grandparent = ctx.ancestors[-2]
        if isinstance(grandparent, ast.Call) and grandparent.func is parent:
            return grandparent
    name = assigned_name(parent)
    if name is not None and ctx.functions:
        for node in walk_nodes(ctx.functions[-1]):
            if isinstance(node, ast.Call) and _reads_name(node, name):
                return node
    return None


def _masked_fill(reduction: ast.Call | None, ctx: RuleContext) -> str:
    """What the masked-out elements hold so that the reduction consuming them ignores them:
    its identity (prod 1, max -inf, ...); 0.0 for a sum, a mean's masked sum, or a use that
    is no known reduction."""
    name = None
    if reduction is not None:
        func = reduction.func
        if isinstance(func, ast.Attribute) and not reduction.args:
            name = func.attr
        else:
            name = REDUCTION_FUNCTIONS.get(ctx.qualname(func) or "")
    identity = IDENTITIES.get(name or "", "0")
    return "0.0" if identity == "0" else identity.format(np="jnp")


def _reads_name(call: ast.Call, name: str) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id == name
    return len(call.args) == 1 and isinstance(call.args[0], ast.Name) and call.args[0].id == name


# jax.numpy functions whose output size depends on values, and the position of the argument
# that makes it so.
_SIZE_DEPENDENT: dict[str, tuple[int, ...]] = {
    **{
        f"jax.numpy.{name}": (0,)
        for name in [
            "nonzero",
            "argwhere",
            "flatnonzero",
            "unique",
            "unique_values",
            "unique_counts",
            "unique_all",
            "unique_inverse",
            "compress",
            "extract",
        ]
    },
    **{f"jax.numpy.{name}": (0, 1) for name in ["union1d", "intersect1d", "setdiff1d"]},
}
# compress/extract convert the condition to a Python bool (measured).
_BOOL_CONVERTING = frozenset({"jax.numpy.compress", "jax.numpy.extract"})


class SizeDependentOp(Rule):
    code = "JAX802"
    needs_trace = "abstract"
    name = "size-dependent-op"
    summary = "`jnp.nonzero`, one-argument `jnp.where`, `unique`, ... without `size=` when traced"
    severity = Severity.ERROR
    what_it_does = """
        Flags `jnp.nonzero`, one-argument `jnp.where`, `jnp.argwhere`, `jnp.flatnonzero`,
        `jnp.unique` (and `unique_values`/`unique_counts`/`unique_all`/`unique_inverse`),
        `jnp.union1d`, `jnp.intersect1d`, `jnp.setdiff1d`, `jnp.compress`, `jnp.extract` and
        `x.nonzero()` on traced values without a `size=` argument, inside `jax.jit`,
        `jax.vmap` or `lax` control flow. Under `jax.jit` and `lax` control flow a
        `jax.numpy` call is staged: given a NumPy array or Python values
        (`jnp.unique(np_array)`, a `functools.partial` argument) it computes on a tracer all
        the same, and is flagged too (`jax.vmap` is treated alike). Under
        `with jax.ensure_compile_time_eval():` only values computed from tracers are traced:
        what the block makes from Python values is concrete.
    """
    why_bad = """
        Their output length depends on the input's values, which are unknown while tracing:
        JAX raises `jax.errors.ConcretizationTypeError` ("The size argument of jnp.nonzero
        must be statically specified"); `jnp.compress` and `jnp.extract` raise its subclass
        `jax.errors.TracerBoolConversionError`. Pass a static upper bound, `size=n`, and
        `fill_value=` for the padding.
    """
    fix_safety = """
        Adds `size=` with the input's static element count (`x.size`, written from the
        argument: `jnp.nonzero(x > 0)` gets `size=x.size`; `union1d(a, b)` gets
        `size=a.size + b.size`; `compress`/`extract` the size of the array they select from),
        an upper bound of the output length. `fill_value=` pads the rest: the index functions
        (`nonzero`, one-argument `where`, `argwhere`, `flatnonzero`) with that count, an
        index out of range on every axis, so `x.at[idx].set(v)` (and `add`, ...) drop the
        padded updates; `compress`/`extract` with `0` (JAX's own default, written out);
        `unique`, `unique_*` and the set operations get no `fill_value` (JAX pads with the
        smallest value found). The fix title says what the padding is. Where the code takes
        the result's length (`len(...)`, `.shape[0]`, `.size`), on the call itself or on a
        name bound to it, the fix writes the true count there instead:
        `jnp.count_nonzero(c)` for the index functions,
        `jnp.count_nonzero(jnp.unique_counts(x, size=x.size).counts)` for `unique` (for a
        bound name, only while what the count reads is bound once and the length is taken
        after the call). No fix where the padding would give a wrong answer: the result read
        as an index (`x[idx]` clamps the padded index to the last element; -1 or 0 would read
        a real element), reduced (`.mean()`), its whole shape taken or iterated over, or
        returned to a caller in the module that counts its entries (`len(f(x))`). Unsafe:
        the output now always has `size` entries. No fix with `axis=` or `*args`.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    node_types = (ast.Call,)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positive_positions(x):
                return jnp.nonzero(x > 0)  # error

            (positions,) = positive_positions(jnp.array([-1.0, 2.0, 0.0, 4.0]))
            """,
            raises="jax.errors.ConcretizationTypeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positive_positions(x):
                return jnp.nonzero(x > 0, size=x.size, fill_value=x.size)

            (positions,) = positive_positions(jnp.array([-1.0, 2.0, 0.0, 4.0]))
            """,
            fixed_check="assert positions.tolist() == [1, 3, 4, 4]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def labels(x):
                return jnp.unique(x)  # error

            found = labels(jnp.array([1, 2, 2]))
            """,
            raises="jax.errors.ConcretizationTypeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def labels(x):
                return jnp.unique(x, size=x.size)

            found = labels(jnp.array([1, 2, 2]))
            """,
            fixed_check="assert found.tolist() == [1, 2, 1]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positives(x):
                return jnp.extract(x > 0, x)  # error

            kept = positives(jnp.array([-1.0, 2.0]))
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positives(x):
                return jnp.extract(x > 0, x, size=x.size, fill_value=0)

            kept = positives(jnp.array([-1.0, 2.0]))
            """,
            fixed_check="assert kept.tolist() == [2.0, 0.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def first_hit(x):
                (hits,) = jnp.where(x > 0)  # error
                return hits[0]

            jax.vmap(first_hit)(jnp.ones((2, 3)))
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            @jax.jit
            def shifted_by_distinct_rows(x):
                # JAX computes on the Python constants at once: concrete, not traced.
                with jax.ensure_compile_time_eval():
                    rows = jnp.repeat(jnp.eye(3), np.array([1, 2, 1]), axis=0)
                    distinct = jnp.unique(rows, axis=0)
                return x + distinct.shape[0]

            out = shifted_by_distinct_rows(jnp.zeros(2))
            """,
            check="assert out.tolist() == [3.0, 3.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positive_positions(x):
                return jnp.nonzero(x > 0, size=x.shape[0], fill_value=-1)

            (positions,) = positive_positions(jnp.array([-1.0, 2.0, 0.0, 4.0]))
            """,
            check="assert positions.tolist() == [1, 3, -1, -1]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def relu(x):
                return jnp.where(x > 0, x, 0.0)

            def labels(x):
                return jnp.unique(x)  # eager: fine

            out, found = relu(jnp.array([-1.0, 2.0])), labels(jnp.array([1, 2, 2]))
            """,
            check="assert out.tolist() == [0.0, 2.0] and found.tolist() == [1, 2]",
        ),
    )

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.abstract or passes_keyword(node, "size"):
            return
        name = self._size_dependent(node, ctx)
        if name is None:
            return
        error = (
            "TracerBoolConversionError" if name in _BOOL_CONVERTING else "ConcretizationTypeError"
        )
        short = name.replace("jax.numpy.", "jnp.")
        subject = (
            "on a traced value"
            if any(is_traced(ctx, argument) for argument in node.args)
            else "(staged here: even a NumPy or Python constant input is traced)"
        )
        yield ctx.finding(
            self,
            node,
            f"`{short}` {subject} without `size=` raises {error} in "
            f"{ctx.where_traced}: its output size depends on the values. Pass a static "
            f"`size=...` (and `fill_value=...` for the padding)",
            fix=size_fix(node, name, ctx),
        )

    def _size_dependent(self, node: ast.Call, ctx: RuleContext) -> str | None:
        """The function's qualified name when this call is size-dependent on a traced value.
        A `jax.numpy` call whose result is traced here is staged out, so it works on tracers
        even when given NumPy or Python constants (`jnp.unique(np_array)` under `jit` raises
        too); under `jax.ensure_compile_time_eval()` its result is concrete."""
        func = node.func
        qualname = ctx.qualname(func)
        if qualname is None:
            is_method = isinstance(func, ast.Attribute) and func.attr == "nonzero"
            if is_method and is_traced(ctx, func.value) and not node.args:
                return "jax.numpy.nonzero"
            return None
        if qualname == "jax.numpy.where":
            one_argument = len(node.args) == 1 and all(
                kw.arg in ("size", "fill_value") for kw in node.keywords
            )
            traced = one_argument and (is_traced(ctx, node) or is_traced(ctx, node.args[0]))
            return qualname if traced else None
        positions = _SIZE_DEPENDENT.get(qualname)
        if positions is None:
            return None
        if is_traced(ctx, node) or any(
            is_traced(ctx, argument_of(node, position)) for position in positions
        ):
            return qualname
        return None


class TracedShape(Rule):
    code = "JAX803"
    needs_trace = "abstract"
    name = "traced-shape"
    summary = "A shape, length or slice built from a traced value"
    severity = Severity.ERROR
    what_it_does = """
        Flags shapes and sizes computed from traced values inside `jax.jit`, `jax.vmap` or
        `lax` control flow: the shape, length and slice parameters of `jax.numpy`, `jax.lax`,
        `jax.random` and `jax.nn` functions (`jnp.zeros(n)` / `ones` / `full` / `eye` /
        `tri`, `jnp.arange(n)`, `jnp.linspace(a, b, n)`, `x.reshape(n, -1)`,
        `jnp.broadcast_to`, `jnp.repeat(x, r)` without `total_repeat_length`, `jnp.split`
        sections, `jnp.pad` widths, `lax.full`, `lax.dynamic_slice` sizes, `lax.top_k`'s
        `k`, `jax.random.normal(key, (n, 3))`, ...), and slices `x[:n]` / `x[i:i + 2]`. The
        parameters come from a table measured on JAX (each one raises when traced). A traced
        value counts inside a tuple (`(n, 3)`), through arithmetic (`n * 2`, `x.sum()`) and
        through `int()`.
    """
    why_bad = """
        Array shapes must be concrete while tracing. `jnp.zeros(n)`, `reshape`, `lax.full`
        and the `jax.random` samplers raise `TypeError` ("Shapes must be 1D sequences of
        concrete values of integer type"), `jnp.arange(n)`, `linspace` and `jnp.repeat`
        raise `jax.errors.ConcretizationTypeError` (or a subclass of it), and
        `x[:n]` raises `IndexError` ("Slice entries must be static integers"). Mark the size
        argument static (`static_argnames`), derive it from `x.shape`, pass
        `total_repeat_length=` to `repeat`, or slice a fixed size with
        `lax.dynamic_slice(x, (i,), (size,))`.
    """
    fix_safety = """
        When the traced value is a parameter (or arithmetic on parameters and an array's
        shape: `start + width`, `n - x.shape[0]`) of a function jitted by its own decorator,
        and each parameter looks like a Python setting (annotated `int`/`bool`/`str`/`float`,
        or never indexed nor used through an attribute), adds them to `static_argnames`:
        extends the `static_argnames=` literal of `@partial(jax.jit, ...)` / `@jax.jit(...)`
        (`"n"` to `("n", "m")`), or turns `@jax.jit` into `@partial(jax.jit,
        static_argnames=("n",))`, importing `partial` if needed. Unsafe: callers must pass
        hashable Python values, and each new value compiles again. A module-level function
        jitted by a statement of its own (`f = jax.jit(f)`) gets the keyword there instead
        (built when the fix is asked for). No fix when `static_argnums=` is given, for nested
        functions jitted by a call, for several jits of the function, for other
        transformations, or for a parameter that `jax.grad` (or `value_and_grad`, `jacrev`,
        ...) differentiates, directly or through a call: it receives tracers, and JAX raises
        `ValueError: Non-hashable static arguments`.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.Call, ast.Subscript)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def padded(x, n):
                return jnp.concatenate([x, jnp.zeros(n)])  # error

            out = padded(jnp.ones(3), 2)
            """,
            raises="TypeError",
            fixed="""
            import jax
            import jax.numpy as jnp
            from functools import partial

            @partial(jax.jit, static_argnames=("n",))
            def padded(x, n):
                return jnp.concatenate([x, jnp.zeros(n)])

            out = padded(jnp.ones(3), 2)
            """,
            fixed_check="assert out.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def pad_to(x, n):
                return jnp.concatenate([x, jnp.zeros(n - x.shape[0])])  # error

            out = pad_to(jnp.ones(3), 5)
            """,
            raises="TypeError",
            # `x.shape[0]` is a Python int under jit: only `n` needs to be static.
            fixed="""
            import jax
            import jax.numpy as jnp
            from functools import partial

            @partial(jax.jit, static_argnames=("n",))
            def pad_to(x, n):
                return jnp.concatenate([x, jnp.zeros(n - x.shape[0])])

            out = pad_to(jnp.ones(3), 5)
            """,
            fixed_check="assert out.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax.tree_util import tree_map

            def grid(sizes):
                if not isinstance(sizes, tuple):
                    sizes = (sizes,)
                return tree_map(axis, sizes)  # calls `axis` with each size

            def axis(n):
                return jnp.arange(n)  # error

            @jax.jit
            def coordinates(n):
                return grid((n, n))  # a tuple of tracers

            coordinates(4)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def positions(n):
                return jnp.arange(n)  # error

            positions(5)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import jax

            @jax.jit
            def count_up(start, steps):
                def step(carry, _):
                    return carry + 1, carry

                # the trip count of a scan over no xs is a length: static too
                return jax.lax.scan(step, start, None, length=steps)  # error

            count_up(0, 3)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def split_heads(x, heads):
                return x.reshape(heads, -1)  # error

            split_heads(jnp.ones(8), 2)
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit(static_argnames="m")
            def prefix(x, n, m=1):
                return x[:n] * m  # error

            out = prefix(jnp.arange(5.0), 2)
            """,
            raises="IndexError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit(static_argnames=("m", "n"))
            def prefix(x, n, m=1):
                return x[:n] * m

            out = prefix(jnp.arange(5.0), 2)
            """,
            fixed_check="assert out.tolist() == [0.0, 1.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def stretch(x, times):
                return jnp.repeat(x, times)  # error

            stretch(jnp.arange(3.0), 2)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import jax
            from jax import lax

            def pad_rows(first_row, pad_to_length):
                width = first_row.shape[0]
                return lax.full((pad_to_length, width), 0.0)  # error

            jax.jit(pad_rows)(jax.numpy.ones(2), 4)
            """,
            raises="TypeError",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnums=1)
            def draw(key, m, lengths):
                return jax.random.randint(key, (jnp.sum(lengths), m), 0, m)  # error

            draw(jax.random.key(0), 3, jnp.array([1, 2]))
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def grid(x, steps):
                return x * jnp.linspace(0.0, 1.0, steps)  # error

            grid(2.0, 5)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
        Example(
            """
            import haiku as hk
            import jax
            import jax.numpy as jnp

            class Decoder(hk.Module):
                def __call__(self, z):
                    side = jnp.sqrt(16).astype(jnp.int32)  # jax.numpy: a tracer under jit
                    return hk.Linear(64)(z).reshape(-1, side, side, 4)  # error

            decoder = hk.transform(lambda z: Decoder()(z))
            params = decoder.init(jax.random.key(0), jnp.ones((2, 8)))
            jax.jit(decoder.apply)(params, None, jnp.ones((2, 8)))
            """,
            raises="TypeError",
        ),
        Example(
            """
            import haiku as hk
            import jax
            import jax.numpy as jnp

            class Pool(hk.Module):
                def __call__(self, lengths):
                    return jnp.arange(lengths.max())  # error

            def make_net():  # the object it returns is the one jitted below
                def forward(lengths):
                    return Pool()(lengths)

                return hk.without_apply_rng(hk.transform(forward))

            net = make_net()
            lengths = jnp.array([3, 7])
            jax.jit(net.apply)(net.init(jax.random.key(0), lengths), lengths)
            """,
            raises="jax.errors.ConcretizationTypeError",
        ),
    )
    valid = (
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnames=("n", "heads"))
            def padded_heads(x, n, heads):
                rows = x.shape[0] + n
                y = jnp.concatenate([x, jnp.zeros(n)])[: rows - 1]
                return y.reshape(heads, -1), jnp.arange(len(x)), jnp.zeros(x.shape)

            heads, idx, z = padded_heads(jnp.ones(5), n=3, heads=7)
            """,
            check="assert heads.shape == (7, 1) and idx.shape == (5,) and z.shape == (5,)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def repeated(pair):
                value, times = pair
                return value * jnp.ones(times)  # `times` is the Python int 3

            @jax.jit
            def triple(x):
                return repeated((x, 3))  # a tracer and a Python int

            out = triple(2.0)
            """,
            check="assert out.tolist() == [2.0, 2.0, 2.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax import lax

            @jax.jit
            def window(x, i):
                return lax.dynamic_slice(x, (i,), (2,)), jnp.repeat(x, 2)

            win, rep = window(jnp.arange(5.0), 1)
            """,
            check="assert win.tolist() == [1.0, 2.0] and rep.shape == (10,)",
        ),
        Example(
            """
            from functools import partial

            import jax

            @partial(jax.jit, static_argnames=("steps",))
            def count_up(start, steps):
                def step(carry, _):
                    return carry + 1, carry

                # a static length, or one read from a shape
                counted = jax.lax.scan(step, start, None, length=steps)
                return counted, jax.lax.scan(step, start, None, length=start.shape[0])

            (last, seen), _ = count_up(jax.numpy.zeros(2), steps=3)
            """,
            check="assert seen.shape == (3, 2) and float(last[0]) == 3.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def sample(key, x, times):
                noise = jax.random.normal(key, x.shape)  # a shape read from x is static
                grid = jnp.linspace(0.0, 1.0, x.shape[0])
                return jnp.repeat(x + noise * grid, times, total_repeat_length=2 * x.size)

            out = sample(jax.random.key(0), jnp.ones(3), 2)
            """,
            check="assert out.shape == (6,)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Sampler:
                def __init__(self, logits):
                    self.logits = logits

                def sample(self, keys, n):
                    # `n` is unmapped (`None`): vmap passes the Python int through.
                    draw = jax.vmap(self._draw_one, in_axes=(0, None, None))
                    return draw(keys, n, self.logits)

                @staticmethod  # no `self`: vmap's first axis is `key`'s
                def _draw_one(key, n, logits):
                    return jax.random.categorical(key, logits, shape=(n,))

            out = Sampler(jnp.zeros(3)).sample(jax.random.split(jax.random.key(0), 2), 4)
            """,
            check="assert out.shape == (2, 4)",
        ),
    )

    def check(self, node: ast.Call | ast.Subscript, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.abstract:
            return
        misuse = (
            self._slice(node, ctx) if isinstance(node, ast.Subscript) else self._call(node, ctx)
        )
        if misuse is not None:
            finding = misuse.finding(
                self,
                node,
                ctx,
                "built from",
                "shapes must be concrete while tracing",
                fix=static_argnames_fix(parameter_names([misuse.traced], ctx), ctx),
            )
            yield replace(finding, deferred=static_argnames_deferred([misuse.traced], ctx))

    def _slice(self, node: ast.Subscript, ctx: RuleContext) -> Misuse | None:
        if not (isinstance(node.ctx, ast.Load) and ctx.kind(node.value).is_jax):
            return None
        for part in _index_parts(node.slice):
            if isinstance(part, ast.Slice):
                bounds = (part.lower, part.upper, part.step)
                traced = next((b for b in bounds if is_traced(ctx, b)), None)
                if traced is not None:
                    return Misuse(traced, "A slice", "IndexError", _SLICE_REMEDY)
        return None

    def _call(self, node: ast.Call, ctx: RuleContext) -> Misuse | None:
        func = node.func
        if ctx.qualname(func) is None and isinstance(func, ast.Attribute):
            if not is_traced(ctx, func.value):
                return None
            if func.attr == "reshape":
                if node.keywords:
                    return None
                shape = node.args[0] if len(node.args) == 1 else ast.Tuple(elts=node.args)
                traced = traced_part(shape, ctx)
                return _misuse(traced, "A `reshape`", "TypeError", _STATIC_REMEDY)
            if func.attr == "repeat":
                if passes_keyword(node, "total_repeat_length"):
                    return None
                traced = traced_part(argument_of(node, 0, "repeats"), ctx)
                what = "`repeat` with a repeat count"
                return _misuse(traced, what, "ConcretizationTypeError", _REPEAT_REMEDY)
        found = traced_static_argument(node, ctx, self.code)
        if found is None:
            return None
        what = f"The `{found.parameter}` of {found.function}"
        remedy = _REPEAT_REMEDY if found.parameter == "repeats" else _STATIC_REMEDY
        return Misuse(found.traced, what, found.error, remedy)


_STATIC_REMEDY = "Make it static (`static_argnames`) or derive it from `x.shape`"
_SLICE_REMEDY = (
    "Slice a fixed size with `lax.dynamic_slice`, or make the bound static (`static_argnames`)"
)
_REPEAT_REMEDY = "Pass `total_repeat_length=` or make the count static (`static_argnames`)"


def _misuse(traced: ast.expr | None, what: str, error: str, remedy: str) -> Misuse | None:
    return Misuse(traced, what, error, remedy) if traced is not None else None


RULES: tuple[type[Rule], ...] = (BooleanMaskInTraced, SizeDependentOp, TracedShape)
