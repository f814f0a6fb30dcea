"""Indexing (JAX301): out-of-bounds constant indices are clamped or dropped, never raised.

The rule tracks the literal shapes of arrays built in one scope (`x = jnp.arange(10)`,
`jnp.zeros((3, 3))`) in program order. A name loses its shape as soon as it is rebound to
something else, bound in a loop, a `try` or only one branch, or declared global/nonlocal.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial

from jax_lsp.analysis.model import local_imports
from jax_lsp.analysis.names import declared_elsewhere, scope_bound_names
from jax_lsp.analysis.nodes import child_nodes, walk_nodes
from jax_lsp.analysis.shapes import (
    ArrayShape,
    Integers,
    ShapeTracker,
    call_argument,
    literal_int,
    may_index_literally,
    may_make_shape,
)
from jax_lsp.analysis.traced import all_params
from jax_lsp.analysis.updates import UPDATE_METHODS
from jax_lsp.codeactions.at_update import fill_read_fix
from jax_lsp.codeactions.key_count import split_count_fix
from jax_lsp.compat import TRY_STATEMENTS
from jax_lsp.diagnostics.base import Example, Rule, RuleContext, Spelled, prefiltered
from jax_lsp.findings import Applicability, Finding, Severity

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Statements whose blocks may run zero, one or several times, or be left half-way.
_BRANCHING = (ast.For, ast.AsyncFor, ast.While, *TRY_STATEMENTS, ast.Match)
_OTHER_SCOPES = (*_NESTED, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# -- the rule --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _OutOfBounds:
    index: int
    axis: int
    size: int


def _out_of_bounds(
    index: ast.expr, shape: tuple[int, ...], integers: Integers
) -> _OutOfBounds | None:
    """The first literal integer index (a name bound to one: `integers`) outside `shape`;
    None if all fit or it can't tell."""
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    if sum(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elements) > 1:
        return None
    axes: list[tuple[int, ast.expr]] = []
    axis = 0
    for position, element in enumerate(elements):
        if isinstance(element, ast.Constant) and element.value is Ellipsis:
            rest = [e for e in elements[position + 1 :] if not _is_none(e)]
            axis = len(shape) - len(rest)
            continue
        if _is_none(element):
            continue
        if isinstance(element, ast.Slice):
            axis += 1
            continue
        value = literal_int(element, integers)
        if value is None or (isinstance(element, ast.Constant) and type(element.value) is bool):
            return None  # an array or a name: it may consume several axes
        axes.append((axis, element))
        axis += 1
    if axis > len(shape):
        return None  # too many indices: JAX raises IndexError itself
    for axis, element in axes:
        value, size = literal_int(element, integers), shape[axis]
        if value >= size or value < -size:
            return _OutOfBounds(value, axis, size)
    return None


def _literal_indices_only(index: ast.expr, integers: Integers) -> bool:
    """Can `_out_of_bounds` find an index of `index` outside some shape: a literal integer
    among slices, `None`s and `...` only?"""
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    found = False
    for element in elements:
        if isinstance(element, ast.Slice) or (
            isinstance(element, ast.Constant) and (element.value is None or element.value is ...)
        ):
            continue
        if isinstance(element, ast.Constant) and type(element.value) is bool:
            return False
        if literal_int(element, integers) is None:
            return False
        found = True
    return found


def _same_shape(
    first: ArrayShape | object | None, second: ArrayShape | object, name: str, tracker: ShapeTracker
) -> bool:
    """Do two branches leave `name` with the same shape (`env` entries: one still to be
    asked is compared as its answer, unless both are)?"""
    if first is second:
        return True
    return tracker.known(first, name) == tracker.known(second, name)  # type: ignore[arg-type]


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


_TAKE = "jax.numpy.take"
# What an index, a walrus binding a name an index reads, or a `take` spells: text spelling
# none has nothing to judge (and its module facts are not asked). A scope's own import of
# `take` spells "take".
_SPELLED = Spelled(("[", ":=", "take"), bound_to=(_TAKE,))


def _top_level_code(node: ast.AST) -> bool:
    """A unit holding top-level statements, not only definitions."""
    return type(node) is ast.Module and not all(isinstance(s, _NESTED) for s in node.body)


def _indexes_outside_definitions(node: ast.AST, ctx: RuleContext) -> bool:
    """A unit of definitions only: their bodies are scopes of their own, and the unit's walk
    sees only their decorators, defaults and bases, which must hold an index."""
    if type(node) is not ast.Module or _top_level_code(node):
        return True
    return _headers_may_index(node, ctx)  # type: ignore[arg-type]


def _knows_an_int_at_top_level(node: ast.AST, ctx: RuleContext) -> bool:
    """Top-level code that sees a module-level name bound to an int (`x[N]`, `N` bound in
    another unit)."""
    return _top_level_code(node) and any(
        type(known) is int for known in ctx.model.module_shapes(ctx.unit_start).values()
    )


def _stable_shapes_named(node: ast.AST, ctx: RuleContext) -> Mapping[str, ArrayShape]:
    """The shapes of the module-level names bound once that the node's lines name."""
    return ctx.model.stable_shapes(ctx.code_text(node))


def _inherits_a_shape(node: ast.AST, ctx: RuleContext) -> bool:
    """The node names a module-level name of known shape, or is top-level code that sees
    one."""
    if _stable_shapes_named(node, ctx):
        return True
    return _top_level_code(node) and bool(ctx.model.module_shapes(ctx.unit_start))


# A literal index (or a name bound to an int) to judge, in a unit of definitions only where
# their headers may index; and an array whose shape is known: one made here from literals,
# or one inherited from module level.
_INDEXES_LITERALLY = Spelled(
    tests=(lambda text, resolver: may_index_literally(text),),
    found_by=_knows_an_int_at_top_level,
    given=_indexes_outside_definitions,
)
_KNOWS_A_SHAPE = Spelled(tests=(may_make_shape,), found_by=_inherits_a_shape)


class ConstantOutOfBounds(Rule):
    code = "JAX301"
    name = "constant-out-of-bounds"
    summary = "A literal index outside an array's statically known shape"
    severity = Severity.WARNING
    what_it_does = """
        Flags a literal integer index (`x[11]`, `x[3, 0]`, `x[-11]`, `x[N]` after `N = 100`,
        `x.at[5].set(v)`, `x.at[5].get()`, `jnp.take(x, 11)`, `x.take(11, axis=0)`, or `take`
        of an index array of literals, `x.take(jnp.array([4]), axis=0)`) outside the shape of
        an array whose shape is known from literals (`jnp.arange(10)`, `jnp.zeros((3, 3))`,
        `jnp.array([1, 2, 3])`, `.reshape(5, -1)` of a known shape, `jnp.array` of the
        `jnp.split(x, n)` pieces of one, elementwise `jnp` functions and arithmetic of one:
        `jnp.sin(jnp.pi * x)`, the keys of `jax.random.split(key)`, 2, and of
        `jax.random.split(key, n)`, n) earlier in the same scope, or bound once at module level and
        never rebound. A name rebound to anything else, or bound in a loop, a `try` or only
        one branch, loses its shape. Slices are not flagged: they clip
        as in NumPy.
    """
    why_bad = """
        JAX never raises on out-of-bounds indices. A read is clamped: `jnp.arange(10)[11]`
        returns 9, the last element, where NumPy raises `IndexError`; `jnp.take` fills
        the result with NaN (the smallest integer for integer arrays). An update out of bounds
        (`.at[11].set(v)`) is silently dropped, leaving the array unchanged. Either way the bug
        surfaces far away as a wrong number.
    """
    fix_safety = """
        For float arrays, offers `x.at[idx].get(mode="fill", fill_value=jnp.nan)`, which makes
        the mistake visible as NaN. Unsafe: it changes the value returned. Updates get no fix.
        For a read past the keys of `keys = jax.random.split(key)`, offers the split into as
        many keys as the function reads (`jax.random.split(key, 3)`), when `keys` is bound
        once in the function and every read of it is a literal index (`keys[2]`, not
        `keys[-1]`) or an unpack (`a, b, c = keys`). Unsafe: the key read past the end was
        the last key and becomes a new one, so what is drawn from it changes. Under JAX's
        default `jax_threefry_partitionable=True` (and with the `rbg` implementations),
        `jax.random.split(key, 3)[:2]` equals `jax.random.split(key)`: the keys read before
        keep their values. With that option off, every key changes.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)
    prefilter = (_SPELLED, _INDEXES_LITERALLY, _KNOWS_A_SHAPE)
    invalid = (
        Example(
            """
            import jax.numpy as jnp

            x = jnp.arange(10)
            last = x[11]  # error
            """,
            check="assert int(last) == 9  # NumPy would raise IndexError",
        ),
        Example(
            """
            import jax

            def noisy_pair(key):
                rngs = jax.random.split(key)
                return jax.random.normal(rngs[1]), jax.random.normal(rngs[2])  # error

            a, b = noisy_pair(jax.random.key(0))
            """,
            check="assert a == b  # rngs[2] is clamped to rngs[1]: the same key twice",
            fixed="""
            import jax

            def noisy_pair(key):
                rngs = jax.random.split(key, 3)
                return jax.random.normal(rngs[1]), jax.random.normal(rngs[2])

            a, b = noisy_pair(jax.random.key(0))
            """,
            fixed_check="assert a != b  # three keys: each draw has its own",
        ),
        Example(
            """
            import jax.numpy as jnp

            batches = jnp.arange(20.0).reshape(10, 2)
            batches = jnp.array(jnp.split(batches, 5))  # a script rebinding the name
            extra = batches[5]  # error
            """,
            check="assert batches.shape == (5, 2, 2) and float(extra[0, 0]) == 16.0",
        ),
        Example(
            """
            import jax.numpy as jnp

            def last_score():
                scores = jnp.arange(10)
                return scores[11]  # error

            value = last_score()
            """,
            check="assert int(value) == 9  # clamped to the last element, no IndexError",
        ),
        Example(
            """
            import jax.numpy as jnp

            def corner():
                grid = jnp.zeros((3, 3))
                grid = grid + 1.0
                return grid[3, 0]  # error

            value = corner()
            """,
            check="assert float(value) == 1.0  # row 3 does not exist; row 2 was read",
            fixed="""
            import jax.numpy as jnp

            def corner():
                grid = jnp.zeros((3, 3))
                grid = grid + 1.0
                return grid.at[3, 0].get(mode="fill", fill_value=jnp.nan)

            value = corner()
            """,
        ),
        Example(
            """
            import jax.numpy as jnp

            def set_bias():
                weights = jnp.ones(4)
                return weights.at[5].set(0.0)  # error

            weights = set_bias()
            """,
            check="assert weights.tolist() == [1.0, 1.0, 1.0, 1.0]  # the update was dropped",
        ),
        Example(
            """
            import jax.numpy as jnp

            def first():
                values = jnp.array([3, 1, 2])
                return values[-4]  # error

            value = first()
            """,
            check="assert int(value) == 3  # clamped to the first element",
        ),
        Example(
            """
            import jax.numpy as jnp

            def pick():
                scores = jnp.arange(10.0)
                return jnp.take(scores, 11), scores.take(-11)  # error

            value, other = pick()
            """,
            check="assert jnp.isnan(value) and jnp.isnan(other)  # filled with NaN, no error",
        ),
        Example(
            """
            import jax.numpy as jnp

            def batches():
                data = jnp.arange(5 * 4 * 2, dtype=jnp.float32).reshape(5, 4, -1)
                chunks = 5
                pieces = jnp.array(jnp.split(data, chunks))
                return pieces[5]  # error

            batch = batches()
            """,
            check="assert batch.shape == (1, 4, 2) and float(batch[0, 0, 0]) == 32.0",
        ),
        Example(
            """
            import jax.numpy as jnp

            params = jnp.ones(10)
            obs = jnp.ones((4, 10))
            network_output = params * obs  # broadcast: shape (4, 10)
            row = network_output[20]  # error
            """,
            check="assert row.shape == (10,)  # clamped to the last of the 4 rows",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def loss(params, obs):
                network_output = params * obs  # the calls below give shape (4, 10)
                return network_output[20].sum()  # error

            def update(params, obs):
                return params + jax.grad(loss)(params, obs)

            params = jnp.ones((10,))
            obs = jnp.ones((4, 10))
            updated = update(params, obs)
            """,
            check="assert updated.shape == (10,)  # row 20 was read as row 3: no error",
        ),
        Example(
            """
            import jax.numpy as jnp

            def views():
                left = jnp.zeros((3, 4))
                both = jnp.stack([left, jnp.ones((3, 4))])  # two arrays: shape (2, 3, 4)
                return both[2]  # error

            view = views()
            """,
            check="assert float(view.sum()) == 12.0  # clamped to the second view",
        ),
        Example(
            """
            import jax.numpy as jnp

            N = 100
            x = jnp.linspace(0.0, 1.0, N)
            psi = jnp.sin(jnp.pi * x) * x  # elementwise: the shape of `x`
            edge = psi[N]  # error
            """,
            check="assert float(edge) == float(psi[N - 1])  # clamped to the last point",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            def pick(row):
                return row[5]  # each row under vmap has 8 entries

            rows = jnp.ones((3, 8))
            picked = jax.vmap(pick)(rows)  # vmap strips the leading axis: not followed
            """,
            check="assert picked.shape == (3,)",
        ),
        Example(
            """
            import numpy as np

            stacked = np.stack([np.zeros(3), np.ones(3)])
            try:
                row = stacked[2]  # NumPy raises IndexError: not a JAX array
            except IndexError:
                row = None
            """,
            check="assert row is None",
        ),
        Example(
            """
            import jax.numpy as jnp

            N = 100
            x = jnp.linspace(0.0, 1.0, N)
            psi = jnp.sin(jnp.pi * x)
            edge = psi[N - 1]
            for N in (10, 20):  # rebound in a loop: no longer one known number
                middle = psi[N]
            """,
            check="assert abs(float(edge)) < 1e-6 and float(middle) > 0.5",
        ),
        Example(
            """
            import jax

            def three_draws(key):
                keys = jax.random.split(key, 3)  # as many keys as are read
                return [jax.random.normal(keys[i]) for i in range(3)], keys[-1]

            draws, last = three_draws(jax.random.key(0))
            """,
            check="assert len(set(float(d) for d in draws)) == 3",
        ),
        Example(
            """
            import jax.numpy as jnp

            def tail():
                scores = jnp.arange(10)
                return scores[9], scores[-10], scores[8:20]  # in bounds; slices clip

            last, first, window = tail()
            """,
            check="assert int(last) == 9 and int(first) == 0 and window.tolist() == [8, 9]",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            def padded(n):
                host = np.arange(10)
                scores = jnp.arange(10)
                scores = jnp.concatenate([scores, jnp.zeros(n)])  # shape no longer known
                return host[9], scores[11]

            host, value = padded(5)
            """,
            check="assert int(host) == 9 and float(value) == 0.0",
        ),
        Example(
            """
            import jax.numpy as jnp

            def explicit():
                values = jnp.arange(4.0)
                return values.at[5].get(mode="fill", fill_value=jnp.nan)

            value = explicit()
            """,
            check="assert jnp.isnan(value)",
        ),
        Example(
            """
            import jax.numpy as jnp

            def pieces():
                data = jnp.arange(12.0).reshape(3, -1)
                parts = jnp.split(data, 3)
                clipped = jnp.take(data, 7, mode="clip")
                return jnp.take(data, 11), data.take(2, axis=0), parts[2], clipped

            last, row, part, clipped = pieces()
            """,
            check="assert float(last) == 11.0 and row.shape == (4,) and part.shape == (1, 4)",
        ),
    )

    # The spellings the scope being checked gives a subscript, a `take` or a walrus.
    _walk_words: tuple[str, ...] = ()
    # The scope being checked (a module or a function).
    _scope: ast.AST | None = None

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        resolver = ctx.resolvers[-1]
        # Module-level names bound once and never rebound keep their shape everywhere, unless
        # a parameter or a local binding hides them; top-level code also sees the shapes and
        # ints carried across the top-level statements before it.
        inherited: dict[str, ArrayShape | int] = dict(_stable_shapes_named(node, ctx))
        given = None  # the shapes the module's calls give the parameters
        if _top_level_code(node):
            inherited.update(ctx.model.module_shapes(ctx.unit_start))
        if not isinstance(node, ast.Module):
            resolver = resolver.child(local_imports(node), frozenset(all_params(node)))
            for scope in [*ctx.model.enclosing_chain(node), node] if inherited else ():
                for name in scope_bound_names(scope):
                    inherited.pop(name, None)
            # Parameters every call of the module gives an array of one known shape (asked of
            # a function of the module's top level by its name).
            parent = ctx.ancestors[-1] if ctx.ancestors else None
            if isinstance(node, ast.FunctionDef) and isinstance(parent, ast.Module):
                given = partial(ctx.model.param_shapes, node.name)
        untracked = frozenset(self._declared_elsewhere(node, ctx))
        if isinstance(node, ast.Module):  # a function may rebind these through `global`
            untracked |= ctx.model.global_writes
        tracker = ShapeTracker(resolver, untracked)
        if given is not None:  # asked once a parameter's shape is read (the params hide
            tracker.given_when_read(all_params(node), given)  # the inherited names)
        # What an expression's lines must spell for its walk to find or change anything.
        self._walk_words = _SPELLED.words(resolver)
        self._scope = node
        for name, known in inherited.items():
            if type(known) is int:
                tracker.integers[name] = known
            else:
                tracker.env[name] = known
        return self._block(node.body, tracker, ctx)

    @prefiltered(Spelled(("global", "nonlocal")))
    def _declared_elsewhere(self, node: ast.AST, ctx: RuleContext) -> frozenset[str]:
        """The names the scope declares `global` or `nonlocal`: bound in another scope."""
        return declared_elsewhere(node)

    # -- walking one scope in program order ----------------------------------------------
    def _block(self, statements: list[ast.stmt], tracker: ShapeTracker, ctx: RuleContext):
        for statement in statements:
            yield from self._statement(statement, tracker, ctx)

    def _statement(self, node: ast.stmt, tracker: ShapeTracker, ctx: RuleContext):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for expr in [*node.decorator_list, *_defaults(node)]:
                yield from self._expression(expr, tracker, ctx)
            tracker.forget([node])
        elif isinstance(node, ast.Assign):
            yield from self._expression(node.value, tracker, ctx)
            for target in node.targets:
                yield from self._target(target, tracker, ctx)
                tracker.bind(target, node.value if len(node.targets) == 1 else None)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                yield from self._expression(node.value, tracker, ctx)
                tracker.bind(node.target, node.value)
        elif isinstance(node, ast.If):
            yield from self._expression(node.test, tracker, ctx)
            before, integers_before = dict(tracker.env), dict(tracker.integers)
            yield from self._block(node.body, tracker, ctx)
            after_body, tracker.env = tracker.env, dict(before)
            integers_after_body, tracker.integers = tracker.integers, integers_before
            yield from self._block(node.orelse, tracker, ctx)
            tracker.env = {
                name: shape
                for name, shape in tracker.env.items()
                if _same_shape(after_body.get(name), shape, name, tracker)
            }
            tracker.integers = {
                name: value
                for name, value in tracker.integers.items()
                if integers_after_body.get(name) == value
            }
        elif isinstance(node, _BRANCHING):
            # Anything bound inside may hold another value on the next pass or after a jump.
            tracker.forget([node])
            for child in child_nodes(node):
                if isinstance(child, ast.expr):
                    yield from self._expression(child, tracker, ctx)
            for block in _blocks(node):
                yield from self._block(block, tracker, ctx)
                tracker.forget(block)
        else:
            for child in child_nodes(node):
                if isinstance(child, ast.expr):
                    yield from self._expression(child, tracker, ctx)
                elif isinstance(child, ast.stmt):
                    yield from self._statement(child, tracker, ctx)
                elif isinstance(child, ast.withitem):
                    yield from self._expression(child.context_expr, tracker, ctx)
            tracker.forget([node])

    def _target(self, target: ast.expr, tracker: ShapeTracker, ctx: RuleContext):
        """Index expressions inside an assignment target (`y[x[11]] = ...`)."""
        if isinstance(target, ast.Subscript):
            yield from self._expression(target.value, tracker, ctx)
            yield from self._expression(target.slice, tracker, ctx)

    def _expression(self, expr: ast.expr, tracker: ShapeTracker, ctx: RuleContext):
        # Only a subscript, a `take` call or a walrus matters below, and each is spelled in
        # the expression's lines: most expressions are skipped on their text (a comment or a
        # string naming one only costs the walk).
        lines, first, last = ctx.code_lines, expr.lineno - 1, expr.end_lineno
        # Joined when several (no word holds a line break: they spell one where a line does).
        text = lines[first] if last == first + 1 else "\n".join(lines[first:last])  # type: ignore
        if not any(map(text.__contains__, self._walk_words)):
            return
        # (node, parent, grandparent): `x.at[i].set(v)` is recognised from `x.at[i]` upwards.
        stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None]] = [(expr, None, None)]
        while stack:
            node, parent, grandparent = stack.pop()
            if isinstance(node, _OTHER_SCOPES):
                continue  # other scopes (comprehension targets may shadow tracked names)
            if isinstance(node, ast.NamedExpr):
                tracker.bind(node.target, None)
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                finding = self._subscript(node, _at_method(node, parent, grandparent), tracker, ctx)
                if finding is not None:
                    yield finding
            elif isinstance(node, ast.Call):
                finding = self._take(node, tracker, ctx)
                if finding is not None:
                    yield finding
            children = child_nodes(node)  # no marker node holds an index
            stack.extend((child, node, parent) for child in reversed(children))

    def _subscript(
        self, node: ast.Subscript, update: str | None, tracker: ShapeTracker, ctx: RuleContext
    ) -> Finding | None:
        base = node.value
        array = base.value if update else base
        if not update and isinstance(base, ast.Attribute) and base.attr == "at":
            return None  # `.at[i]` with a mode=, or not followed by a call
        if not _literal_indices_only(node.slice, tracker.integers):
            return None  # nothing `_out_of_bounds` can judge, whatever the shape
        known = tracker.shape_of(array)
        if known is None:
            return None
        hit = _out_of_bounds(node.slice, known.shape, tracker.integers)
        if hit is None:
            return None
        name = ctx.segment(array)
        where = f"index {hit.index} is out of bounds for axis {hit.axis} with size {hit.size}"
        if update in (None, "get"):
            clamped = "the last" if hit.index >= 0 else "the first"
            if known.keys:
                return ctx.finding(
                    self,
                    node,
                    f"`{name}` holds {hit.size} PRNG keys along axis {hit.axis}: {where}. JAX "
                    f"does not raise: the read is clamped and returns {clamped} key, the same key "
                    f"as index {hit.size - 1 if hit.index >= 0 else 0}. Split into as many keys "
                    "as are read",
                    fix=split_count_fix(node, self._scope, ctx) if update is None else None,
                )
            return ctx.finding(
                self,
                node,
                f"`{name}` has shape {known.shape}: {where}. JAX does not raise: the read is "
                f"clamped and returns {clamped} element. Fix the index, or read with "
                f'`.at[...].get(mode="fill", fill_value=...)` to get a fill value instead',
                fix=fill_read_fix(node, array, ctx) if update is None and known.floating else None,
            )
        return ctx.finding(
            self,
            node,
            f"`{name}` has shape {known.shape}: {where}. JAX does not raise: the "
            f"`.at[...].{update}(...)` update is silently dropped and the array is unchanged",
        )

    def _take(self, call: ast.Call, tracker: ShapeTracker, ctx: RuleContext) -> Finding | None:
        """`jnp.take(x, 11)` / `x.take(11, axis=0)` with a literal index out of bounds."""
        func = call.func
        qualname = ctx.resolvers[-1].qualname(func)
        if qualname == "jax.numpy.take":
            array, rest = call_argument(call, 0), call.args[1:]
        elif qualname is None and isinstance(func, ast.Attribute) and func.attr == "take":
            array, rest = func.value, call.args
        else:
            return None
        known = tracker.shape_of(array) if array is not None else None
        if known is None or not rest or len(rest) > 2:
            return None
        keywords = {keyword.arg: keyword.value for keyword in call.keywords}
        if set(keywords) - {"axis"}:
            return None  # `mode=` / `fill_value=` say what out of bounds should do
        axis_node = rest[1] if len(rest) == 2 else keywords.get("axis")
        axis = literal_int(axis_node) if axis_node is not None else None
        if axis_node is not None and (
            axis is None or not -len(known.shape) <= axis < len(known.shape)
        ):
            return None
        shape = (math.prod(known.shape),) if axis is None else (known.shape[axis],)
        for index in rest[:1]:  # a list of indices is JAX501's (take rejects lists)
            values = _literal_indices(index, ctx)
            if values is None:
                return None
            for value in values:
                if -shape[0] <= value < shape[0]:
                    continue
                where = "the flattened array" if axis is None else f"axis {axis % len(known.shape)}"
                return ctx.finding(
                    self,
                    call,
                    f"`{ctx.segment(array)}` has shape {known.shape}: `take` index {value} is "
                    f"out of bounds for {where} with size {shape[0]}. JAX does not raise: "
                    f"`take` fills the result with NaN (the smallest integer for integer "
                    f"arrays). Fix the index",
                )
        return None


# Array constructors whose list of int literals is a literal index array (`jnp.array([4])`).
_INDEX_ARRAYS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray"})


def _literal_indices(index: ast.expr, ctx: RuleContext) -> list[int] | None:
    """The literal indices `index` holds: an int (`11`), or an array built from a list of int
    literals (`jnp.array([4, 1])`); None for anything else (a bool is no index)."""
    if isinstance(index, ast.Constant) and type(index.value) is bool:
        return None
    value = literal_int(index)
    if value is not None:
        return [value]
    if (
        not isinstance(index, ast.Call)
        or len(index.args) != 1
        or index.keywords
        or ctx.resolvers[-1].qualname(index.func) not in _INDEX_ARRAYS
        or not isinstance(index.args[0], ast.List | ast.Tuple)
        or not index.args[0].elts
    ):
        return None
    values = []
    for element in index.args[0].elts:
        if isinstance(element, ast.Constant) and type(element.value) is bool:
            return None
        found = literal_int(element)
        if found is None:
            return None
        values.append(found)
    return values


def _headers_may_index(unit: ast.Module, ctx: RuleContext) -> bool:
    """Do the decorators, defaults or bases of a unit's definitions hold a subscript or a
    call that may be a `take`? What the unit's own walk looks at of them (`_statement`)."""
    for definition in unit.body:
        for expr in [*definition.decorator_list, *_defaults(definition)]:  # type: ignore[attr-defined]
            for node in walk_nodes(expr):
                if type(node) is ast.Subscript:
                    return True
                if type(node) is ast.Call and (
                    (type(node.func) is ast.Attribute and node.func.attr == "take")
                    or ctx.resolvers[-1].qualname(node.func) == "jax.numpy.take"
                ):
                    return True
    return False


def _defaults(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(k.value for k in node.keywords)]
    args = node.args
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(node, ast.Match):
        return [case.body for case in node.cases]
    blocks = [node.body, node.orelse]
    if isinstance(node, TRY_STATEMENTS):
        blocks += [handler.body for handler in node.handlers] + [node.finalbody]
    return blocks


def _at_method(node: ast.Subscript, parent: ast.AST | None, grandparent: ast.AST | None):
    """The method of `x.at[idx].method(...)` when `node` is `x.at[idx]` and no mode= is given."""
    if not (
        isinstance(node.value, ast.Attribute)
        and node.value.attr == "at"
        and isinstance(parent, ast.Attribute)
        and isinstance(grandparent, ast.Call)
        and grandparent.func is parent
        and parent.attr in UPDATE_METHODS | {"get"}
    ):
        return None
    if any(keyword.arg == "mode" for keyword in grandparent.keywords):
        return None
    return parent.attr


RULES: tuple[type[Rule], ...] = (ConstantOutOfBounds,)
