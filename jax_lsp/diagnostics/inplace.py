"""In-place updates of JAX arrays (JAX201-JAX203): JAX arrays are immutable."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import replace

from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.dtypes import FloatOracle, scope_bindings
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.names import stored_names
from jax_lsp.analysis.shapes import ArrayShape
from jax_lsp.analysis.updates import at_update, unread_loop_updates, unread_self_updates
from jax_lsp.codeactions.at_update import assign_result_fix, at_update_fix, masked_update_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext, Spelled
from jax_lsp.diagnostics.traced_values import is_traced
from jax_lsp.findings import Applicability, Finding, Severity

_AUG_METHODS: dict[type[ast.operator], str] = {
    ast.Add: "add",
    ast.Sub: "subtract",
    ast.Mult: "multiply",
    ast.Div: "divide",
    ast.Pow: "power",
}
_MIN_MAX = {"jax.numpy.minimum": "min", "jax.numpy.maximum": "max"}
_NOT_JAX = (Kind.NUMPY, Kind.STATIC, Kind.SEQUENCE, Kind.ITERATOR)


def min_max_update(node: ast.Assign, ctx: RuleContext) -> str | None:
    """ "min"/"max" for `x[i] = jnp.minimum(x[i], v)` / `jnp.maximum`, else None."""
    target, value = node.targets[0], node.value
    if not (
        len(node.targets) == 1
        and isinstance(target, ast.Subscript)
        and isinstance(value, ast.Call)
        and len(value.args) == 2
        and not value.keywords
        and ctx.segment(value.args[0]) == ctx.segment(target)
    ):
        return None
    return _MIN_MAX.get(ctx.qualname(value.func) or "")


class IndexAssign(Rule):
    code = "JAX201"
    name = "index-assign"
    summary = "Item assignment `x[idx] = v` on a JAX array"
    severity = Severity.ERROR
    what_it_does = """
        Flags item assignment (`x[idx] = v`, and an item among the targets of an unpacking
        assignment: `x[0], x[1] = x[1], x[0]`) to a value known to be a JAX array.
    """
    why_bad = """
        JAX arrays are immutable: `x[idx] = v` raises `TypeError: JAX arrays are immutable and
        do not support in-place item assignment`, inside `jax.jit` and out. The functional
        equivalent `x.at[idx].set(v)` returns an updated copy (which XLA updates in place when
        it can).
    """
    fix_safety = """
        Rewrites the statement to `x = x.at[idx].set(v)`. Safe for a plain name. For a field
        of an object whose class the module defines, the field is written the way the class
        allows, unsafe (another reference to the object keeps the old value):
        `p = p._replace(vel=...)` for a NamedTuple, `p = dataclasses.replace(p, vel=...)` for a
        frozen dataclass, `p = p.replace(vel=...)` for a `flax.struct` class,
        `p = eqx.tree_at(lambda m: m.vel, p, ...)` for an `eqx.Module`, `p.vel = ...` for a
        plain class or mutable dataclass. No fix when the class is not known, for `self` of a
        frozen class (rebinding `self` reaches no caller), for a name the function does not
        bind (assigning it would make it local), or for a
        deeper target (`x[i][j]`, `a.b.c[i]`). In traced code a traced boolean mask fails in
        `.at[mask]` as in `x[mask]`: `x[mask] = v` becomes `x = jnp.where(mask, v, x)`, safe for a
        number `v` (a literal, `jnp.inf`, `jnp.nan`), unsafe for an array (NumPy puts `values[:k]`
        at the masked places, which `where` cannot do). Unsafe in a module that names `make_mesh` or
        `AxisType`, or imports a name from a module of the project that does (its mesh, or an array
        placed on one, may come in through it): on a mesh with explicit axes (`jax.make_mesh`'s
        default in recent JAX), `.at[idx].set(v)` raises unless given `out_sharding=`, so whether
        the fix runs depends on how the array's mesh was made. Unsafe too when code after it in the
        same scope already does `x = x.at[idx]...` at the same index, as for JAX202. The
        `jnp.where` rewrite is safe only for a mask known to have the array's shape (`x > 0`,
        `~jnp.isnan(x)`, a name bound once to one): a mask of rows would be broadcast along the
        last axis. Unsafe, and its title says so, when the array is a parameter that nothing in
        the function reads afterwards (`def record(buf, i, v): buf[i] = v`): the update was
        meant for the caller's array, which rebinding the name leaves unchanged, so the
        TypeError would become an update silently lost. Unsafe, too, in a function traced only
        because traced code calls it, when the array is a JAX array only through what the
        callers pass (a parameter, or a value computed from one): an untraced caller may pass a
        NumPy array, which has no `.at` (and which `jnp.where` would turn into a JAX array). An
        array the function makes with `jnp`, or a parameter of the jitted function itself, is
        a JAX array whoever calls: safe.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    node_types = (ast.Assign,)
    invalid = (
        Example(
            """
            import jax.numpy as jnp

            x = jnp.zeros((3, 3))
            x[1, :] = 1.0  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            x = jnp.zeros((3, 3))
            x = x.at[1, :].set(1.0)
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def swap(x):
                x[0], x[1] = x[1], x[0]  # error
                return x

            swap(jnp.arange(3.0))
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax

            @jax.jit
            def reset_first(x):
                x[0] = 0.0  # error
                return x

            reset_first(jax.numpy.ones(3))
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def init(key):
                return {"w": jax.random.normal(key, (3, 3)), "b": jnp.zeros(3)}

            params = init(jax.random.PRNGKey(0))
            params["b"][0] = 1.0  # error
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def relu(x):
                x[x < 0] = 0.0  # error
                return x

            relu(jnp.array([-1.0, 2.0]))
            """,
            raises="TypeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def relu(x):
                x = jnp.where(x < 0, 0.0, x)
                return x

            relu(jnp.array([-1.0, 2.0]))
            """,
            fixed_check="assert relu(jnp.array([-1.0, 2.0])).tolist() == [0.0, 2.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def causal_scores(q, k):
                scores = q @ k.T
                mask = jnp.triu(jnp.ones(scores.shape, dtype=bool), k=1)
                scores[mask] = -jnp.inf  # error
                return scores

            causal_scores(jnp.ones((3, 2)), jnp.ones((3, 2)))
            """,
            raises="TypeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def causal_scores(q, k):
                scores = q @ k.T
                mask = jnp.triu(jnp.ones(scores.shape, dtype=bool), k=1)
                scores = jnp.where(mask, -jnp.inf, scores)
                return scores

            causal_scores(jnp.ones((3, 2)), jnp.ones((3, 2)))
            """,
            fixed_check=(
                "s = causal_scores(jnp.ones((3, 2)), jnp.ones((3, 2)))\n"
                "assert s[0, 1] == -jnp.inf and s[1, 0] == 2.0"
            ),
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def zero_first(x):  # untraced callers may pass NumPy arrays: the fix is unsafe
                x[0] = 0.0  # error
                return x

            @jax.jit
            def step(params):
                return zero_first(params)

            step(jnp.ones(2))
            """,
            raises="TypeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            def zero_first(x):  # untraced callers may pass NumPy arrays: the fix is unsafe
                x = x.at[0].set(0.0)
                return x

            @jax.jit
            def step(params):
                return zero_first(params)

            step(jnp.ones(2))
            """,
            fixed_check="assert step(jnp.ones(2)).tolist() == [0.0, 1.0]",
        ),
        Example(
            """
            import jax.numpy as jnp

            x = jnp.zeros(3)
            x.at[0] = 1.0  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            x = jnp.zeros(3)
            x = x.at[0].set(1.0)
            """,
        ),
        Example(
            """
            import jax.numpy as jnp

            class Buffer:
                def __init__(self, n):
                    self.data = jnp.zeros(n)
                    self.pos = 0

                def push(self, v):
                    self.data[self.pos] = v  # error
                    self.pos += 1

            Buffer(4).push(1.0)
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax.numpy as jnp
            from flax import nnx

            class Mask(nnx.Module):
                def __init__(self):
                    self.keep = nnx.Variable(jnp.ones(4))

                def drop(self, i):
                    v = self.keep.value  # the variable's array
                    v[i] = 0.0  # error

            Mask().drop(1)
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def scale(p):
                return p * 0.5

            def zero_first(g):
                g[0] = 0.0  # error
                return g

            @jax.jit
            def update(params):
                grads = scale(params)  # a helper's result: what it makes of the tracer
                return params - zero_first(grads)

            update(jnp.ones(3))
            """,
            raises="TypeError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            def advance(state):
                return {"step": state["step"] + 1, "total": state["total"] * 2}

            def body(state):
                new = advance(state)
                for key in new.keys() & state.keys():
                    state[key] = new[key]  # the loop state is a dict
                return state

            def more(state):
                return state["step"] < 3

            out = jax.lax.while_loop(more, body, {"step": 0, "total": jnp.ones(2)})
            """,
            check="assert int(out['step']) == 3 and out['total'].tolist() == [8.0, 8.0]",
        ),
        Example(
            """
            import jax.numpy as jnp

            x = jnp.zeros((3, 3))
            x = x.at[1, :].set(1.0)
            """,
            check="assert (x[1] == 1.0).all() and (x[0] == 0.0).all()",
        ),
        Example(
            """
            import numpy as np

            x = np.zeros(3)
            x[0] = 1  # NumPy arrays are mutable
            """,
            check="assert x[0] == 1",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            class Buffer:
                def __init__(self, n):
                    self.data = jnp.zeros(n)
                    self.pos = 0

                def push(self, v):
                    self.data = self.data.at[self.pos].set(v)
                    self.pos += 1

            buffer = Buffer(4)
            buffer.push(1.0)
            buffer.data = np.zeros(4)  # from here on a NumPy array
            buffer.data[0] = 2.0
            """,
            check="assert buffer.data[0] == 2.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax import lax

            @jax.jit
            def newton_sqrt(a):
                def body(carry):
                    carry["x"] = 0.5 * (carry["x"] + a / carry["x"])  # a dict, not an array
                    carry["i"] = carry["i"] + 1
                    return carry

                return lax.while_loop(lambda c: c["i"] < 20, body, {"x": a, "i": 0})["x"]

            root = newton_sqrt(jnp.array(2.0))
            """,
            check="assert abs(float(root) - 2.0**0.5) < 1e-5",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def ema_update(ref, x):
                ref[...] = 0.9 * ref[...] + 0.1 * x  # a jax.Ref accepts item assignment

            average = jax.new_ref(jnp.zeros(2))
            ema_update(average, jnp.ones(2))
            """,
            check="assert abs(float(average[...][0]) - 0.1) < 1e-6",
        ),
        Example(
            """
            import jax
            import numpy as np

            @jax.jit
            def first_zeroed(x):
                if isinstance(x, np.ndarray):  # never a tracer: NumPy code
                    x[0] = 0
                return x * 2

            out = first_zeroed(np.ones(3))
            """,
            check="assert float(out[0]) == 2.0",
        ),
    )

    def check(self, node: ast.Assign, ctx: RuleContext) -> Iterable[Finding]:
        # Not a generator: most assignments bind names, and leave here without making one.
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                return self._subscripts(node, ctx)
            if isinstance(target, ast.Tuple | ast.List):
                return self._unpacked(node, ctx)
        return ()

    def _unpacked(self, node: ast.Assign, ctx: RuleContext) -> Iterator[Finding]:
        """`x[0], x[1] = x[1], x[0]`: assigning an item raises as `x[0] = v` does; one finding
        an array, at its first item (no fix: later updates would read what earlier ones
        left)."""
        items: dict[str, list[ast.Subscript]] = {}
        for target in _unpacked_items(node.targets):
            if ctx.kind(target.value).is_jax:
                items.setdefault(ctx.segment(target.value), []).append(target)
        for name, assigned in items.items():
            remedy = f"Use `{name} = {name}.at[...].set(...)`"
            if len(assigned) > 1:
                remedy += (
                    f" (all at once: `{name} = {name}.at[jnp.array([i, j])]"
                    f".set(jnp.array([a, b]))`)"
                )
            yield ctx.finding(
                self,
                assigned[0],
                f"`{name}` is a JAX array, which is immutable: item assignment raises "
                f"TypeError. {remedy}",
            )

    def _subscripts(self, node: ast.Assign, ctx: RuleContext) -> Iterator[Finding]:
        for target in node.targets:
            helper = _at_helper_of(target, ctx)
            if helper is not None:  # `x.at[0] = v`: `.at` half learned
                yield self._assigned_helper(node, target, helper, ctx)
                continue
            if isinstance(target, ast.Subscript) and ctx.kind(target.value).is_jax:
                if min_max_update(node, ctx) or _used_as_dict(target.value, ctx):
                    continue  # JAX202's pattern; a dict (a pytree's node), not an array
                fix = None
                mask = _traced_mask(target, ctx)
                if len(node.targets) == 1 and mask is not None:
                    new = ctx.segment(node.value)
                    fix = masked_update_fix(ctx, node, target.value, mask, new, node.value)
                elif len(node.targets) == 1:
                    fix = at_update_fix(ctx, node, target, "set", ctx.segment(node.value))
                name = ctx.segment(target.value)
                remedy = f"Use `{name} = {name}.at[...].set(...)`"
                yield ctx.finding(
                    self,
                    target,
                    f"`{name}` is a JAX array, which is immutable: item assignment raises "
                    f"TypeError. {_masked_remedy(name, mask, ctx) if mask else remedy}",
                    fix=fix,
                )

    def _assigned_helper(
        self, node: ast.Assign, target: ast.Subscript, array: ast.expr, ctx: RuleContext
    ) -> Finding:
        # The fix reads as if `x[0] = v` had been written: `x = x.at[0].set(v)`.
        item = ast.Subscript(value=array, slice=target.slice, ctx=ast.Store())
        fix = None
        if len(node.targets) == 1:
            fix = at_update_fix(ctx, node, item, "set", ctx.segment(node.value))
        name = ctx.segment(array)
        return ctx.finding(
            self,
            target,
            f"`{name}.at[...]` is an update helper, not an item of `{name}`: assigning to it "
            f"raises TypeError. Use `{name} = {name}.at[...].set(...)`",
            fix=fix,
        )


def _unpacked_items(targets: list[ast.expr]) -> Iterator[ast.Subscript]:
    """The items (`x[i]`) an unpacking assignment's tuple or list targets assign."""
    for target in targets:
        if isinstance(target, ast.Starred):
            target = target.value
        if isinstance(target, ast.Tuple | ast.List):
            yield from _unpacked_items(target.elts)
        elif isinstance(target, ast.Subscript):
            yield target


# Methods of a dict no JAX array has: a value they are called on is a mapping (a pytree
# state of `lax.while_loop` read with `state.keys()`).
_DICT_ONLY_METHODS = frozenset(["keys", "items", "values", "get", "update", "setdefault"])


def _used_as_dict(value: ast.expr, ctx: RuleContext) -> bool:
    """`value` is a name the enclosing function calls a dict-only method on."""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(value, ast.Name) or function is None:
        return False
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _DICT_ONLY_METHODS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == value.id
        for node in ast.walk(function)
    )


def _at_helper_of(target: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """`x` of an assignment target `x.at[i]` when `x` is a JAX array, else None."""
    if not isinstance(target, ast.Subscript):
        return None
    helper = target.value
    if isinstance(helper, ast.Attribute) and helper.attr == "at" and ctx.kind(helper.value).is_jax:
        return helper.value
    return None


class IndexAugAssign(Rule):
    code = "JAX202"
    name = "index-augassign"
    summary = "Augmented item assignment `x[idx] += v` on a JAX array"
    severity = Severity.ERROR
    what_it_does = """
        Flags augmented item assignment (`x[idx] += v`, `-=`, `*=`, `/=`, `**=`, ...) and
        `x[idx] = jnp.minimum(x[idx], v)` / `jnp.maximum` on a JAX array.
    """
    why_bad = """
        `x[idx] += v` reads `x[idx]`, then assigns the item back, which JAX arrays do not
        support: it raises `TypeError`. `x.at[idx].add(v)` (and `subtract`, `multiply`,
        `divide`, `power`, `min`, `max`) computes the update functionally. Note that with
        repeated indices `.at[].add` accumulates every update, where NumPy keeps only one.
    """
    fix_safety = """
        Rewrites to `x = x.at[idx].add(v)` (or the matching method). Safe for a plain name;
        a field of an object as for JAX201. Unsafe when the index may repeat a position (an
        integer array, or an index of unknown shape such as a traced parameter): NumPy's
        `x[idx] += 1` with `idx = [0, 0, 1]` adds once per distinct position, `.at[idx].add(1)`
        once per occurrence (and `.at[idx].min` takes every value where NumPy keeps the last
        write). Ints, slices, `...`, `None`, a boolean mask, the items of a 1-D array and
        tuples of those reach each position once: safe. `/=` is safe only on an array known to hold
        floats: NumPy's `ints[i] /= 2` keeps the integer dtype, `.at[i].divide(2)` makes the
        whole array float. With a traced boolean mask in traced code,
        `x = jnp.where(mask, x + v, x)`, as for JAX201. Unsafe, as for JAX201, when `x` is a
        parameter that nothing in the function reads afterwards (`def bump(counts, i):
        counts[i] += 1`: the caller's array stays unchanged), and when it is a JAX array only
        through what the callers of a function traced through calls pass, as for JAX201 (an
        untraced caller may pass a NumPy array). Unsafe in a module that may build a
        mesh with explicit axes, as for JAX201, and when code after it in the same scope
        already does `x = x.at[idx]...` at the same index (a notebook's next cell doing the
        update right after this one raised): fixed, the update would happen twice.
        Operators without an `.at` method (`//=`, `%=`, `@=`, bitwise) are flagged without
        a fix.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    node_types = (ast.AugAssign, ast.Assign)
    invalid = (
        Example(
            """
            import jax.numpy as jnp

            x = jnp.arange(5.0)
            x[1] += 5.0  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            x = jnp.arange(5.0)
            x = x.at[1].add(5.0)
            """,
        ),
        Example(
            """
            import jax.numpy as jnp

            x = jnp.arange(5.0)
            x[2] = jnp.minimum(x[2], 1.0)  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            x = jnp.arange(5.0)
            x = x.at[2].min(1.0)
            """,
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            v = np.arange(10)
            v[2:4] += 1  # a NumPy array: fine
            v = jnp.arange(10)  # top-level code runs in order: `v` is now a JAX array
            v[2:4] += 1  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp
            import numpy as np

            v = np.arange(10)
            v[2:4] += 1  # a NumPy array: fine
            v = jnp.arange(10)  # top-level code runs in order: `v` is now a JAX array
            v = v.at[2:4].add(1)
            """,
        ),
        Example(
            """
            import jax.numpy as jnp
            from flax import nnx

            class Counter(nnx.Module):
                def __init__(self):
                    self.hist = nnx.Variable(jnp.zeros(4))

                def __call__(self, i):
                    self.hist.value[i] += 1  # error
                    return self.hist.value

            Counter()(1)
            """,
            raises="TypeError",
        ),
    )
    valid = (
        Example(
            """
            import jax.numpy as jnp

            x = jnp.arange(5.0)
            x = x.at[1].add(5.0)
            """,
            check="assert float(x[1]) == 6.0",
        ),
        Example(
            """
            import jax.numpy as jnp
            from flax import nnx

            class Counter(nnx.Module):
                def __init__(self):
                    self.hist = nnx.Variable(jnp.zeros(4))

                def __call__(self, i):
                    self.hist[i] += 1  # the variable rewrites it with `.at`
                    return self.hist.value

            @nnx.jit
            def count(counter, i):
                return counter(i)

            counter = Counter()
            count(counter, 1)
            """,
            check="assert float(counter.hist.value[1]) == 1.0",
        ),
        Example(
            """
            import jax.numpy as jnp

            x = jnp.arange(3.0)
            x += 1.0  # rebinding the whole array is fine
            """,
            check="assert float(x[0]) == 1.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            counts = jax.new_ref(jnp.zeros(3, jnp.int32))

            @jax.jit
            def record(labels):
                for c in range(3):
                    counts[c] += jnp.sum(labels == c).astype(jnp.int32)

            record(jnp.array([0, 1, 1]))
            """,
            check="assert counts[...].tolist() == [1, 2, 0]",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            v = jnp.arange(10)
            v = np.array(v)  # a writable NumPy copy from here on
            v[2:4] += 1
            """,
            check="assert v.tolist()[2:4] == [3, 4]",
        ),
    )

    def check(self, node: ast.AugAssign | ast.Assign, ctx: RuleContext) -> Iterable[Finding]:
        # Not a generator: most (augmented) assignments bind names, and leave here without
        # making one.
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        if not isinstance(target, ast.Subscript):
            return ()
        if isinstance(node, ast.Assign):
            return self._min_max(node, ctx)
        return self._augmented(node, target, ctx)

    def _augmented(
        self, node: ast.AugAssign, target: ast.Subscript, ctx: RuleContext
    ) -> Iterator[Finding]:
        if not ctx.kind(target.value).is_jax:
            return
        method = _AUG_METHODS.get(type(node.op))
        fix = at_update_fix(ctx, node, target, method, ctx.segment(node.value)) if method else None
        mask = _traced_mask(target, ctx)
        if mask is not None:  # `.at[mask]` raises in traced code as `x[mask]` does
            fix = None
            operator = _OPERATORS.get(type(node.op))
            if operator is not None:
                array, value = ctx.segment(target.value), ctx.segment(node.value)
                new = f"{array} {operator} {_operand(node.value, value)}"
                fix = masked_update_fix(ctx, node, target.value, mask, new, node.value)
        if fix is not None and method == "divide" and not _known_float(target.value, ctx):
            # NumPy's `ints[i] /= 2` keeps the integer dtype (the quotient is cast back);
            # `.at[i].divide` makes the whole array float.
            fix = replace(fix, applicability=Applicability.UNSAFE)
        if fix is not None and mask is None and not _distinct_positions(target.slice, ctx):
            fix = replace(fix, applicability=Applicability.UNSAFE)
        name = ctx.segment(target.value)
        remedy = f"Use `{name} = {name}.at[...].{method}(...)`" if method else "Compute a new array"
        if mask is not None:
            remedy = _masked_remedy(name, mask, ctx)
        yield ctx.finding(
            self,
            target,
            f"`{name}` is a JAX array, which is immutable: augmented item assignment raises "
            f"TypeError. {remedy}",
            fix=fix,
        )

    def _min_max(self, node: ast.Assign, ctx: RuleContext) -> Iterator[Finding]:
        method = min_max_update(node, ctx)
        target = node.targets[0]
        if method is None or not ctx.kind(target.value).is_jax:
            return
        fix = at_update_fix(ctx, node, target, method, ctx.segment(node.value.args[1]))
        if fix is not None and not _distinct_positions(target.slice, ctx):
            fix = replace(fix, applicability=Applicability.UNSAFE)
        name = ctx.segment(target.value)
        yield ctx.finding(
            self,
            target,
            f"`{name}` is a JAX array, which is immutable: item assignment raises TypeError. "
            f"Use `{name} = {name}.at[...].{method}(...)`",
            fix=fix,
        )


_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
}


def _operand(node: ast.expr, text: str) -> str:
    """`text` as the right operand of a binary operator (parenthesised unless atomic)."""
    atomic = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call)
    return text if isinstance(node, atomic) else f"({text})"


def _masked_remedy(name: str, mask: ast.expr, ctx: RuleContext) -> str:
    """What to write for an update at a traced boolean mask, where `.at[mask]` fails too."""
    return (
        f"Use `{name} = jnp.where({ctx.segment(mask)}, ..., {name})`: under a trace a boolean "
        "mask raises NonConcreteBooleanIndexError in `.at[...]` too"
    )


def _traced_mask(target: ast.Subscript, ctx: RuleContext) -> ast.expr | None:
    """The index of `x[mask] = v` when it is a traced boolean array alone, in traced code,
    where `.at[mask]` fails as `x[mask]` does (NonConcreteBooleanIndexError)."""
    index = target.slice
    if ctx.abstract and is_traced(ctx, index) and is_boolean(index, ctx):
        return index
    return None


def _distinct_positions(index: ast.expr, ctx: RuleContext) -> bool:
    """Does the index reach each position of the array at most once? An integer array may
    repeat one (`idx = [0, 0, 1]`): NumPy's `x[idx] += 1` then adds once per distinct
    position (the items are read, added to, and written back), `.at[idx].add(1)` once per
    occurrence. Ints, slices, `...`, `None`, a boolean mask and tuples of those cannot."""
    if isinstance(index, ast.Tuple):
        return all(_distinct_positions(part, ctx) for part in index.elts)
    if isinstance(index, ast.Slice):
        return True
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub | ast.UAdd):
        index = index.operand
    if isinstance(index, ast.Constant):
        return index.value is None or index.value is Ellipsis or type(index.value) is int
    return ctx.kind(index) is Kind.STATIC or is_boolean(index, ctx) or _vector_item(index, ctx)


def _vector_item(index: ast.expr, ctx: RuleContext) -> bool:
    """Is `index` the variable of a top-level loop over a 1-D array (`for l in labels`): a
    scalar each pass?"""
    if ctx.functions or not isinstance(index, ast.Name):
        return False
    loop = next(
        (
            node
            for node in reversed(ctx.ancestors)
            if isinstance(node, ast.For)
            and isinstance(node.target, ast.Name)
            and node.target.id == index.id
        ),
        None,
    )
    if loop is None or not isinstance(loop.iter, ast.Name):
        return False
    if any(index.id in stored_names(statement) for statement in loop.body):
        return False  # rebound inside the loop
    if loop.iter.id not in ctx.model.stable_globals:
        return False  # rebound: which binding the loop reads is not known here
    known = ctx.model.module_shapes(ctx.unit_start).get(loop.iter.id)
    return isinstance(known, ArrayShape) and len(known.shape) == 1 and not known.pieces


def _known_float(array: ast.expr, ctx: RuleContext) -> bool:
    """Is `array` known to hold floats (its dtype stays the same through a division)?"""
    bindings = scope_bindings(ctx.functions[-1] if ctx.functions else None)
    floats = ctx.model.float_array_globals
    return FloatOracle(ctx.resolvers[-1], bindings, floats, default_dtype=True).is_float(array)


def _displayed(statement: ast.Expr, ctx: RuleContext) -> bool:
    """Is `statement` a notebook cell's last expression, whose value the cell displays
    (IPython's `last_expr`) rather than discards?"""
    if ctx.functions or not isinstance(ctx.parent, ast.Module):
        return False
    return ctx.unit_start + statement.lineno - 1 in ctx.model.displayed_expressions


class DiscardedUpdate(Rule):
    code = "JAX203"
    name = "discarded-update"
    summary = "An `.at[...]` update whose result is thrown away"
    severity = Severity.WARNING
    what_it_does = """
        Flags a statement `x.at[idx].set(v)` (any `.at` update) whose result is unused, and a
        function's `x = x.at[idx].set(v)` of a parameter that nothing reads afterwards (not
        returned, not used later, not even by a later pass of the loop but to update itself).
        An array the function makes itself and leaves unused is dead code, not flagged. A
        notebook cell's last expression is not flagged either: the cell displays its value
        (`w.at[0].set(5.0)` alone in a cell shows the updated copy), unless a `;` ends it. Also
        flags `x -= v` (any augmented assignment) on a loop variable holding a JAX array
        (`for param, grad in zip(params, grads)`) that nothing reads afterwards.
    """
    why_bad = """
        `.at[idx].set(v)` does not modify `x`: it returns a new array. Used as a statement, the
        update is silently lost and `x` keeps its old values. Rebinding a parameter to the
        updated copy changes nothing for the caller either: a function meant to update its
        argument "in place" must return the new array. Likewise `param -= lr * grad` in a
        loop over a list of JAX arrays rebinds the loop variable; the list keeps the old
        arrays (with NumPy arrays it would update them in place).
    """
    fix_safety = """
        Assigns the result back: `x = x.at[idx].set(v)`. Safe for a plain name; a field of an
        object as for JAX201 (`p = p._replace(vel=p.vel.at[i].set(v))` for a NamedTuple).
        Unsafe when code after it in the same scope already does `x = x.at[idx]...` at the
        same index (a notebook's next cell doing the update right): assigned, the update
        would happen twice. Unsafe, as for JAX201, when `x` is a parameter that nothing in the
        function reads afterwards: the caller's array stays unchanged.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    node_types = (ast.Expr, ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.AsyncFor)
    # A function's updates lost to a rebinding are `.at[...]` updates.
    prefilter = Spelled((".at[",), on=(ast.FunctionDef, ast.AsyncFunctionDef))
    invalid = (
        Example(
            """
            import jax.numpy as jnp

            x = jnp.zeros(3)
            x.at[0].set(1.0)  # error
            """,
            check="assert float(x[0]) == 0.0  # the update was lost",
            fixed="""
            import jax.numpy as jnp

            x = jnp.zeros(3)
            x = x.at[0].set(1.0)
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def double_all(a):
                for i in range(a.size):
                    a = a.at[i].set(2 * a[i])  # error

            x = jnp.arange(3.0)
            double_all(x)
            """,
            check="assert x.tolist() == [0.0, 1.0, 2.0]  # the caller's array is unchanged",
        ),
        Example(
            """
            import jax.numpy as jnp

            params = [jnp.ones(2), jnp.ones(3)]
            grads = [jnp.ones(2), jnp.ones(3)]
            for param, grad in zip(params, grads):
                param -= 0.5 * grad  # error
            """,
            check="assert params[0].tolist() == [1.0, 1.0]  # the list is unchanged",
        ),
    )
    valid = (
        Example(
            """
            import jax.numpy as jnp

            x = jnp.zeros(3)
            x = x.at[0].set(1.0)
            """,
            check="assert float(x[0]) == 1.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def double_all(a):
                for i in range(a.size):
                    a = a.at[i].set(2 * a[i])
                return a

            x = double_all(jnp.arange(3.0))
            """,
            check="assert x.tolist() == [0.0, 2.0, 4.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def reset(walls):
                # A mask the function makes and then leaves unused: dead code, no caller
                # expects it updated.
                mask = jnp.zeros(4)
                mask = mask.at[walls].set(1.0)
                return walls.sum()

            total = reset(jnp.array([1, 2]))
            """,
            check="assert int(total) == 3",
        ),
        Example(
            """
            import jax.numpy as jnp

            params = [jnp.ones(2), jnp.ones(3)]
            grads = [jnp.ones(2), jnp.ones(3)]
            params = [param - 0.5 * grad for param, grad in zip(params, grads)]
            """,
            check="assert params[0].tolist() == [0.5, 0.5]",
        ),
        Example(
            """
            import numpy as np

            params = [np.ones(2), np.ones(3)]
            grads = [np.ones(2), np.ones(3)]
            for param, grad in zip(params, grads):
                param -= 0.5 * grad  # NumPy: in place, in the list
            """,
            check="assert params[0].tolist() == [0.5, 0.5]",
        ),
    )

    def check(
        self,
        node: ast.Expr | ast.FunctionDef | ast.AsyncFunctionDef | ast.For | ast.AsyncFor,
        ctx: RuleContext,
    ) -> Iterator[Finding]:
        if isinstance(node, ast.For | ast.AsyncFor):
            yield from self._unread_loop_variables(node, ctx)
            return
        if not isinstance(node, ast.Expr):
            yield from self._unread(node, ctx)
            return
        call = node.value
        update = at_update(call)
        if update is None:
            return
        array = update[0]
        if ctx.kind(array) in _NOT_JAX or _displayed(node, ctx):
            return
        yield ctx.finding(
            self,
            call,
            f"The result of `.at[...].{call.func.attr}()` is discarded: the update is "
            f"out-of-place and `{ctx.segment(array)}` is unchanged",
            fix=assign_result_fix(ctx, node, array),
        )

    def _unread(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: RuleContext
    ) -> Iterator[Finding]:
        for statement in unread_self_updates(node):
            name = statement.targets[0]
            if ctx.kind(name) in _NOT_JAX:
                continue
            yield ctx.finding(
                self,
                statement.value,
                f"`{ctx.segment(name)}` is rebound to the updated copy, but nothing reads it "
                f"afterwards: `{node.name}` neither returns nor uses it, so the update is lost. "
                f"Return the new array (`return {ctx.segment(name)}`) and use it where it is "
                f"called",
            )

    def _unread_loop_variables(
        self, node: ast.For | ast.AsyncFor, ctx: RuleContext
    ) -> Iterator[Finding]:
        function = ctx.functions[-1] if ctx.functions else None
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            scope_body = function.body
        else:
            scope_body = [node]  # module level: the loop's own statements
        for statement in unread_loop_updates(node, scope_body):
            name = statement.target
            if not ctx.kind(name).is_jax:
                continue  # a NumPy array is updated in place; a Python number is no element
            yield ctx.finding(
                self,
                statement,
                f"`{ctx.segment(statement)}` rebinds the loop variable `{ctx.segment(name)}` "
                f"to a new array (JAX arrays are immutable): the element iterated over is "
                f"unchanged and nothing reads `{ctx.segment(name)}` afterwards, so the update "
                f"is lost. Build the updated values instead (a list comprehension, or "
                f"`jax.tree.map`)",
            )


RULES: tuple[type[Rule], ...] = (IndexAssign, IndexAugAssign, DiscardedUpdate)
