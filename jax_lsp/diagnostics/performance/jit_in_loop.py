"""JAX1001 (jit-in-loop): a jitted function or eager `lax` loop made anew in a loop or on
every call compiles each time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from jax_lsp.analysis.hashing import (
    dominating_binding,
    identity_hashed,
    instance_of,
    static_arguments,
)
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.names import (
    assigned_name,
    binds_locally,
    names_reached,
    rebinds,
    stored_names,
)
from jax_lsp.analysis.nodes import all_params, child_nodes, contains, passes_keyword, walk_nodes
from jax_lsp.analysis.paths import is_test_path
from jax_lsp.analysis.summary import FunctionNode, transform_of
from jax_lsp.analysis.traced import string_list_default_params
from jax_lsp.analysis.transforms import TransformSpec
from jax_lsp.codeactions.hoist_jit import hoist_jit_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.performance._common import static_signature
from jax_lsp.findings import Applicability, Finding, Fix, Severity

_JITS = frozenset({"jit", "eqx.filter_jit", "nnx.jit"})


# Transformations that return a new function object on every call (measured: `jax.jit` of
# each, made three times, traces three times, `shard_map` of a module function too);
# `jax.checkpoint` returns a cached one.
_FRESH_WRAPPERS = frozenset(
    {"grad", "value_and_grad", "vmap", "jacfwd", "jacrev", "hessian", "shard_map"}
)


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


_LOOPS = (ast.For, ast.AsyncFor, ast.While, *_COMPREHENSIONS)


def _local_loops(ctx: RuleContext) -> list[ast.AST]:
    """Loops (and comprehensions) around the node inside the innermost function."""
    loops: list[ast.AST] = []
    for node in reversed(ctx.ancestors):
        if isinstance(node, _FUNCTIONS):
            break
        if isinstance(node, ast.ExceptHandler):
            break  # runs when an iteration fails (a retry), not on every iteration
        if isinstance(node, _LOOPS):
            loops.append(node)
    return loops


def _defined_in(name: str, scope: ast.AST) -> FunctionNode | None:
    """A def named `name` directly in `scope`'s body (any depth of compound statements)."""
    stack = list(child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
        if not isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            stack.extend(child_nodes(node))
    return None


def _uses(name: str, scope: ast.AST) -> list[ast.Name]:
    return [
        node
        for node in walk_nodes(scope)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    ]


def _only_called_once_outside_loops(name: str, function: ast.AST) -> bool:
    """`name` is used only as the callee of one call, not in a loop: never reused."""
    uses = _uses(name, function)
    if len(uses) != 1:
        return False
    use = uses[0]
    parents = {
        child: parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)
    }
    parent = parents.get(use)
    if not (isinstance(parent, ast.Call) and parent.func is use):
        return False
    node = parent
    while node is not function:
        node = parents[node]
        if isinstance(node, (*_LOOPS, *_FUNCTIONS)) and node is not function:
            return False  # called in a loop, or from a closure that may run many times
    return True


# Shared parts of the JAX1001 examples (each example stays a whole runnable program).
_SCHEDULED_STEP = """
            import functools

            import jax

            traces = []

            class Schedule:
                def __init__(self, rate):
                    self.rate = rate

            @functools.partial(jax.jit, static_argnums=0)
            def step(schedule, x):
                traces.append(1)
                return x * schedule.rate
"""


_TRACED_DOUBLE = """
            import jax
            import jax.numpy as jnp

            traces = []

            def double(v):
                traces.append(1)  # runs once per trace
                return v * 2
"""


_EQX_DOUBLE = """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            traces = []

            def double(v):
                return v * 2
"""


_EQX_APPLY = """
            @eqx.filter_jit
            def apply(model, x):
                traces.append(1)
                return model.forward(model.weight * x)

            for _ in range(3):
                apply(Scaler(), jnp.ones(2))
"""


# What `transform_of` finds: the transformation and the keywords it is given.
FoundTransform = tuple[TransformSpec, dict[str, ast.expr]]


class JitInLoop(Rule):
    code = "JAX1001"
    name = "jit-in-loop"
    summary = (
        "`jax.jit` (`pmap`, `eqx.filter_jit`, `nnx.jit`) or an eager `lax` loop or branch of a "
        "lambda or closure created in a loop or on every call"
    )
    severity = Severity.WARNING
    what_it_does = """
        Flags `jax.jit(lambda ...)` and `jax.jit(inner)` (or `@jax.jit` on a nested `def`)
        where the function is created anew inside a loop body, or inside a function that jits
        it and calls it once (so every call of the function pays a compilation); the same for
        `jax.jit(jax.grad(f))` (`value_and_grad`, `vmap`, `jacfwd`, `jacrev`, `hessian`) and
        `jax.jit(functools.partial(f, ...))`, whose wrapper is a new object each time (also
        when `f` is a lambda or a nested `def` defined once per call: the wrapper made in the
        loop is new each iteration). A
        module-level `jax.jit(f)`, and `jax.jit(f)` of a module-level `f`, are not flagged:
        JAX caches compilations on the function object. Factories that return the jitted
        function are not flagged either, nor is anything inside a function decorated with
        `jax.jit` (`eqx.filter_jit`, `nnx.jit`, `pmap`): its body runs only while it is
        traced, once per compilation, and the inner jit is traced into it. Also flags
        `jax.jit(obj.method)` of a bound method in a loop (a new bound-method object on
        every access), `self.f = jax.jit(g)` in
        `__init__` of an `eqx.Module` (a new wrapper in every instance's static structure),
        and a static argument that hashes by identity (an optax transformation, a
        `functools.partial`, a lambda, an instance of a plain class) built anew in the loop
        around the jitted call, from values the loop does not change.

        The same holds for every transformation that compiles: `jax.pmap`, `pjit`,
        `eqx.filter_jit`, `eqx.filter_pmap` and `nnx.jit` of a lambda or a nested function
        (measured: made three times, each traces three times), and `jax.jit` of a
        `jax.shard_map(...)` made in the loop (a new wrapper each time, even of a module-level
        function). And `lax.cond`, `switch`, `while_loop`, `fori_loop`, `scan` and `map`
        called where nothing traces, given a lambda or a nested function made anew each time:
        outside `jit` each call traces the functions (cached on the function objects) and
        compiles the primitive, so a fresh lambda traces and compiles on every call (measured:
        three calls, three traces; the same module-level functions, one). These are flagged
        only where the module's own calls show the code running eagerly, again and again: in
        a loop of top-level code, or in a module function whose calls, followed up to
        top-level code or `main` through no trace, are in a loop or several (a function
        another module may call, under its jit, is not judged). Inside a jitted function they
        run once per compilation and are not flagged. A `pmap` made on every call of a
        function (not in a loop) is flagged on the same evidence only: it is mostly found in
        set-up and synchronisation helpers that run a few times.

        Not flagged: a jit with `out_shardings` called where it is made and never stored
        (`jax.jit(init, out_shardings=s)(rng, x)`, a sharded initialisation), and a jit
        created in a module function that runs once by the module's own calls (called once,
        outside loops, from top-level code or from `main` or another function that runs once,
        such as `train_and_evaluate` called from `main`).
    """
    why_bad = """
        JAX caches a compiled function on the Python function object it was given. A lambda
        or a nested `def` is a new object each time its definition runs, so `jax.jit` traces
        and compiles it again every iteration (or every call): the cost of compilation, often
        far above the computation itself, is paid over and over. An eager `lax.cond` or
        `lax.fori_loop` caches the same way, on the functions it is given. Create the jitted
        function (or the branch and body functions) once, outside the loop or at module
        level, and pass the changing values as arguments.
    """
    fix_safety = """
        For `jax.jit(lambda ...)`, or a jit of a transformation made on the spot
        (`jax.jit(jax.grad(loss))`), in a `for`/`while` body that reads no name the loop binds
        (its target or anything assigned in its body): `step = jax.jit(lambda ...)` directly
        in the loop body moves above the loop; another such jit in a loop not nested
        in another one (`x = jax.jit(lambda v: ...)(x)`) is bound to a fresh name
        (`jitted`) above the loop and used through it. Unsafe: the jitted function is created
        even when the loop runs zero times, and a lambda reading a global that some call in
        the loop rebinds would see its value at the first trace only. Nested `def`s get no
        fix.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def double(v):
                traces.append(1)  # runs once per trace
                return v * 2

            x = jnp.ones(3)
            for step in range(3):
                x = jax.jit(lambda v: double(v))(x)  # error
            """,
            check="assert len(traces) == 3  # traced and compiled on every iteration",
            fixed="""
            import jax
            import jax.numpy as jnp

            traces = []

            def double(v):
                traces.append(1)  # runs once per trace
                return v * 2

            x = jnp.ones(3)
            jitted = jax.jit(lambda v: double(v))
            for step in range(3):
                x = jitted(x)
            """,
            fixed_check="assert len(traces) == 1 and x.tolist() == [8.0, 8.0, 8.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def scaled(v, scale):
                traces.append(1)  # runs once per trace
                return v * scale

            x = jnp.ones(3)
            for scale in [1.0, 2.0, 3.0]:  # numbers: one jitted function could take them
                y = jax.jit(lambda v: scaled(v, scale))(x)  # error
            """,
            check="assert len(traces) == 3 and y.tolist() == [3.0, 3.0, 3.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def sgd(p, g, lr):
                traces.append(1)  # runs once per trace
                return p - lr * g

            def train(params, batches, lr):
                for batch in batches:
                    # one update per batch
                    update = jax.jit(lambda p, g: sgd(p, g, lr))  # error
                    params = update(params, batch)
                return params

            params = train(jnp.ones(2), [jnp.ones(2)] * 3, 0.5)
            """,
            check="assert len(traces) == 3",
            fixed="""
            import jax
            import jax.numpy as jnp

            traces = []

            def sgd(p, g, lr):
                traces.append(1)  # runs once per trace
                return p - lr * g

            def train(params, batches, lr):
                update = jax.jit(lambda p, g: sgd(p, g, lr))
                for batch in batches:
                    # one update per batch
                    params = update(params, batch)
                return params

            params = train(jnp.ones(2), [jnp.ones(2)] * 3, 0.5)
            """,
            fixed_check="assert len(traces) == 1 and params.tolist() == [-0.5, -0.5]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def scaled_norm(x, scale):
                def norm(v):
                    traces.append(1)
                    return jnp.linalg.norm(v) * scale

                return jax.jit(norm)(x)  # error

            for _ in range(3):
                scaled_norm(jnp.ones(3), 2.0)
            """,
            check="assert len(traces) == 3  # a new closure, a new compilation, every call",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def apply_twice(x):
                @jax.jit  # error
                def double(v):
                    traces.append(1)
                    return v * 2

                return double(x)

            for _ in range(3):
                apply_twice(jnp.ones(3))
            """,
            check="assert len(traces) == 3",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def doubled(x):
                @jax.jit  # error
                def run():  # takes nothing, but x could be its argument
                    traces.append(1)
                    return x * 2

                return run()

            for _ in range(3):
                doubled(jnp.ones(3))
            """,
            check="assert len(traces) == 3  # x is baked in: a new compilation every call",
        ),
        Example(
            """
            import jax

            traces = []

            class Model:
                def forward(self, x):
                    traces.append(1)
                    return x * 2

            model = Model()
            for step in range(3):
                jax.jit(model.forward)(1.0)  # error
            """,
            check="assert len(traces) == 3  # a new bound method, a new compilation, each time",
        ),
        Example(
            _SCHEDULED_STEP
            + """

            for _ in range(3):
                schedule = Schedule(0.5)
                step(schedule, 1.0)  # error
            """,
            check="assert len(traces) == 3",
        ),
        Example(
            _EQX_DOUBLE
            + """

            class Scaler(eqx.Module):
                weight: jax.Array
                forward: object

                def __init__(self):
                    self.weight = jnp.ones(2)
                    self.forward = jax.jit(double)  # error

            """
            + _EQX_APPLY,
            check="assert len(traces) == 3  # retraced for every new instance",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def loss(w, x):
                traces.append(1)  # runs once per trace
                return jnp.sum((w * x) ** 2)

            def gradient(w, x):
                # grad makes a new function object on every call: jit caches nothing
                return jax.jit(jax.grad(loss))(w, x)  # error

            for scale in (1.0, 2.0, 3.0):
                g = gradient(jnp.ones(3) * scale, jnp.ones(3))
            """,
            check="assert len(traces) == 3",
        ),
        Example(
            _TRACED_DOUBLE
            + """

            for _ in range(3):
                y = jax.pmap(lambda v: double(v))(jnp.ones((1, 3)))  # error
            """,
            check="assert len(traces) == 3  # pmap caches on the function object too",
        ),
        Example(
            _TRACED_DOUBLE
            + """
            from jax.sharding import PartitionSpec

            mesh = jax.make_mesh((1,), ("batch",))
            specs = dict(mesh=mesh, in_specs=PartitionSpec(), out_specs=PartitionSpec())
            for _ in range(3):
                # shard_map makes a new function each time, even of a module-level function
                y = jax.jit(jax.shard_map(double, **specs))(jnp.ones(4))  # error
            """,
            check="assert len(traces) == 3",
        ),
        Example(
            _TRACED_DOUBLE
            + """

            x = jnp.ones(3)
            for step in range(3):  # no jit around: each call traces and compiles the loop
                x = jax.lax.fori_loop(0, 2, lambda i, v: double(v), x)  # error
            """,
            check="assert len(traces) == 3 and x.tolist() == [64.0] * 3",
        ),
        Example(
            _TRACED_DOUBLE
            + """

            def grow(x):
                return jax.lax.cond(  # error
                    x.sum() > 0, lambda v: double(v), lambda v: v, x
                )

            for _ in range(3):
                y = grow(jnp.ones(3))
            """,
            check="assert len(traces) == 3  # a new lambda, a new trace, on every call",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def double(v):
                return v * 2

            x = jnp.ones(3)
            for step in range(3):
                x = double(x)
            """,
            check="assert double._cache_size() == 1",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def make_update(lr):
                @jax.jit
                def update(params, grads):
                    return params - lr * grads

                return update  # a factory: called once, the result reused

            update = make_update(0.1)
            params = jnp.ones(3)
            for _ in range(3):
                params = update(params, jnp.ones(3))
            """,
            check="assert update._cache_size() == 1",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def double(v):
                return v * 2

            def run(x, steps):
                step = jax.jit(lambda v: double(v))  # created once per run, reused below
                for _ in range(steps):
                    x = step(x)
                return x, step

            result, step = run(jnp.ones(3), 3)
            """,
            check="assert step._cache_size() == 1",
        ),
        Example(
            """
            import jax

            class Model:
                def forward(self, x):
                    return x * 2

            model = Model()
            forward = jax.jit(model.forward)  # jitted once, reused
            for step in range(3):
                forward(1.0)
            """,
            check="assert forward._cache_size() == 1",
        ),
        Example(
            _SCHEDULED_STEP
            + """

            schedule = Schedule(0.5)  # built once
            for _ in range(3):
                step(schedule, 1.0)
            for rate in (0.1, 0.2):
                step(Schedule(rate), 1.0)  # a different schedule each time: compiled for each
            """,
            check="assert len(traces) == 3",
        ),
        Example(
            _EQX_DOUBLE
            + """

            jitted_double = jax.jit(double)

            class Scaler(eqx.Module):
                weight: jax.Array
                forward: object

                def __init__(self):
                    self.weight = jnp.ones(2)
                    self.forward = jitted_double  # created once, shared by every instance

            """
            + _EQX_APPLY,
            check="assert len(traces) == 1",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def check_dtypes(wide):
                dtypes = [jnp.float32]
                if wide:
                    dtypes += [jnp.int32]
                made = []
                for dtype in dtypes:  # another setting each time: compiled for each anyway

                    def zeros():
                        return jnp.zeros((2, 3), dtype)

                    made.append(jax.jit(zeros)().dtype)
                return made

            made = check_dtypes(wide=True)
            for fields in (("mean",), ("mean", "max")):
                stats = jax.jit(lambda x: {f: getattr(jnp, f)(x) for f in fields})(jnp.ones(4))
            """,
            check="assert [str(d) for d in made] == ['float32', 'int32'] and len(stats) == 2",
        ),
        Example(
            """
            import unittest

            import jax
            import jax.numpy as jnp

            class ScaleTest(unittest.TestCase):
                def _check_scaled(self, scale):  # a helper of test cases: runs once a test
                    @jax.jit
                    def scaled(x):
                        return x * scale

                    self.assertEqual(float(scaled(jnp.ones(()))), scale)

                def test_double(self):
                    self._check_scaled(2.0)

            result = ScaleTest("test_double").run()
            """,
            check="assert result.wasSuccessful() and result.testsRun == 1",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax.sharding import SingleDeviceSharding

            def init_sharded(make, shape):
                def create():  # takes nothing: its inputs are closed over
                    return make(shape)

                where = SingleDeviceSharding(jax.devices()[0])
                return jax.jit(create, out_shardings=where)()  # created where it belongs

            weights = init_sharded(jnp.ones, (2, 3))
            """,
            check="assert weights.shape == (2, 3) and len(weights.sharding.device_set) == 1",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax.sharding import SingleDeviceSharding

            def mock_batch(specs, where):
                @jax.jit
                def create():  # takes nothing: the specs fix its shapes, `where` its placement
                    batch = {name: jnp.zeros(shape) for name, shape in specs.items()}
                    return jax.lax.with_sharding_constraint(batch, where)

                return create()  # created where it belongs

            batch = mock_batch({"x": (2, 3)}, SingleDeviceSharding(jax.devices()[0]))
            """,
            check="assert batch['x'].shape == (2, 3) and len(batch['x'].sharding.device_set) == 1",
        ),
        Example(
            """
            import functools

            import jax
            import jax.numpy as jnp

            traces = []

            def loss(w, x, power):
                traces.append(1)  # runs once per trace
                return jnp.sum((w * x) ** power)

            grad_loss = jax.jit(jax.grad(loss), static_argnums=2)  # made once

            def gradient(w, x):
                return grad_loss(w, x, 2)

            for scale in (1.0, 2.0, 3.0):
                g = gradient(jnp.ones(3) * scale, jnp.ones(3))
            # one compilation per power, each made for its own iteration
            cubes = [jax.jit(functools.partial(loss, power=p))(g, g) for p in (1, 3)]
            """,
            check="assert len(traces) == 3",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            traces = []

            def double(v):
                traces.append(1)  # runs once per trace
                return v * 2

            @jax.jit
            def smooth(x):
                # runs only while `smooth` is traced: each inner jit is traced into it,
                # once per compilation of `smooth`, not on every call
                x = jax.jit(jax.vmap(double))(x)
                for _ in range(2):
                    x = jax.jit(lambda v: (v + jnp.roll(v, 1, axis=-1)) / 2)(x)
                return x

            for _ in range(3):
                y = smooth(jnp.ones((2, 3)))
            """,
            check="assert len(traces) == 1 and smooth._cache_size() == 1",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def evaluate(params, batch):
                @jax.jit
                def loss(p, b):
                    return ((p * b) ** 2).sum()

                return loss(params, batch)

            def train_and_evaluate(steps):
                params = jnp.ones(3)
                return evaluate(params, jnp.ones(3) * steps)  # called once per process

            def main():
                return train_and_evaluate(2)

            result = main()
            """,
            check="assert float(result) == 12.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax.sharding import SingleDeviceSharding

            def create_state(model_scale, rng, x):
                def init(rng, x):
                    return jax.random.normal(rng, x.shape) * model_scale

                where = SingleDeviceSharding(jax.devices()[0])
                # a sharded initialisation: made, run where it belongs, and dropped
                return jax.jit(init, out_shardings=where)(rng, x)

            state = create_state(0.1, jax.random.key(0), jnp.ones(3))
            """,
            check="assert state.shape == (3,)",
        ),
        Example(
            _TRACED_DOUBLE
            + """

            def keep(v):
                return v

            @jax.jit
            def grow_jitted(x):
                # traced: the lambdas are traced once, with `grow_jitted`
                return jax.lax.cond(x.sum() > 0, lambda v: double(v), lambda v: v, x)

            def grow(x):
                return jax.lax.cond(x.sum() > 0, double, keep, x)  # module functions: cached

            for _ in range(3):
                y = grow(jnp.ones(3))
                z = grow_jitted(jnp.ones(3))
            """,
            check="assert len(traces) == 2",
        ),
    )

    def __init__(self) -> None:
        # Whether the code of a function runs only while a jit traces, by the innermost
        # function around the walker (its enclosing ones and imports are then the same).
        self._compiled: dict[ast.AST | None, bool] = {}

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        # Not a generator: most calls are neither a jit nor inside a loop, and leave on the
        # cheap tests here without the cost of making one.
        innermost = ctx.functions[-1] if ctx.functions else None
        inside = self._compiled.get(innermost)
        if inside is None:
            inside = self._compiled[innermost] = _inside_compiled(ctx)
        if inside:
            return ()  # runs only while the enclosing jit traces: once per compilation
        if not isinstance(node, ast.Call):
            return self._decorated(node, ctx)
        # A jit made here (`_jit_call`, `_jit_in_module_init`), or a static argument built in
        # a loop (`_rebuilt_static`): nothing else is looked at.
        found = transform_of(node.func, ctx.resolvers[-1])
        if found is not None and found[0].label in _CONTROL_FLOW:
            return self._control_flow(node, found, ctx)
        jit = found if found is not None and found[0].label in _COMPILING else None
        if jit is None and not ctx.loops:
            return ()
        return self._call(node, jit, ctx)

    def _control_flow(
        self, node: ast.Call, found: FoundTransform, ctx: RuleContext
    ) -> Iterator[Finding]:
        """`lax.cond(p, lambda ...)` (a loop, a branch) where nothing traces: it traces and
        compiles its functions on every call, cached on the function objects. Flagged when
        they are made anew each time it runs, and the code is known to run eagerly again
        and again: top-level code in a loop, or a module function the module calls (outside
        any trace) in a loop or from several places."""
        if ctx.trace is not None:
            return  # traced: it runs once per compilation of the trace around it
        loops = _local_loops(ctx)
        function = ctx.functions[-1] if ctx.functions else None
        made = _made_functions(node, found[0], loops, function, ctx)
        if not made:
            return
        label = f"`{found[0].label}`"
        what, per_iteration = made[0]
        if per_iteration:
            if function is not None and not _known_untraced(function, ctx):
                return
            where = "inside a loop"
        else:
            if function is None or not _runs_repeatedly(function, ctx):
                return
            where = f"on every call of `{ctx.model.records[function].path}`, which runs repeatedly"
        yield ctx.finding(
            self,
            node,
            f"{label} outside `jit` with {what} created {where}: outside a trace it traces "
            "and compiles its functions on every call, cached on the function objects, and "
            "these are new each time. Define them once (at module level, above the loop) and "
            "pass changing values as operands, or jit the function that calls it",
        )

    def _call(
        self, node: ast.Call, jit: FoundTransform | None, ctx: RuleContext
    ) -> Iterator[Finding]:
        """A call that is a jit (`jit`, its transformation), or any call inside a loop."""
        if jit is not None and node.args:
            yield from self._jit_call(node, jit, ctx)
        if ctx.loops:
            yield from self._rebuilt_static(node, ctx)
        parent = ctx.parent
        in_assignment = isinstance(parent, ast.Assign) and parent.value is node
        if jit is not None and in_assignment and ctx.functions:
            yield from self._jit_in_module_init(parent, ctx)

    def _jit_call(
        self, node: ast.Call, found: FoundTransform, ctx: RuleContext
    ) -> Iterator[Finding]:
        """`jax.jit(f, ...)`, `found` its transformation (`check` tested it is a jit)."""
        target, wrapper = _transformed_closure(node.args[0], ctx)
        function = ctx.functions[-1] if ctx.functions else None
        loops = _local_loops(ctx)
        function_node = None
        if isinstance(target, ast.Lambda):
            what = "a lambda"
            function_node = target
            if _specialised_per_iteration(target, loops, ctx):
                return
        elif isinstance(target, ast.Name):
            inner = _defined_in(target.id, loops[-1]) if loops else None
            if inner is None and function is not None:
                inner = _defined_in(target.id, function)
                if inner is not None and loops and wrapper is None:
                    return  # defined once per call, jitted in a loop: one compilation per call
            if inner is None or _specialised_per_iteration(inner, loops, ctx):
                return
            function_node = inner
            what = f"the nested function `{target.id}`"
        elif isinstance(target, ast.Attribute) and loops and _bound_method(target, node, ctx):
            what = f"the bound method `{ctx.segment(target)}` (a new object on every access)"
        elif isinstance(target, ast.Call) and (made := _fresh_wrapper(target, ctx)) is not None:
            if _reads_loop_names(target, loops):
                return  # each iteration wraps another function: each needs its compilation
            what = f"`{made}(...)`"
        else:
            return
        if wrapper is not None:
            what = f"`{wrapper}` of {what}"
        if loops:
            # A lambda, or a transformation made afresh (`jax.grad(loss)`) of names the loop
            # does not bind: the same function every iteration, which can be made once.
            hoistable = isinstance(target, ast.Lambda | ast.Call) and wrapper is None
            fix = hoist_jit_fix(node, loops, ctx) if hoistable else None
            yield self._finding(
                node, ctx, f"{_spelled(found)} of {what} created inside a loop", fix
            )
        elif (
            function is not None
            and not _runs_once(function, ctx)
            and (found[0].label in _JITS or _runs_repeatedly(function, ctx))
            and not _sharded_creation(node, found[1], function_node, _invoked_at_once(node, ctx))
            and self._single_use(node, ctx)
        ):
            yield self._finding(node, ctx, f"{_spelled(found)} of {what} created on every call")

    def _rebuilt_static(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        """A static argument that hashes by identity, built anew in the loop around the call:
        each iteration misses the cache and compiles again."""
        if not ctx.loops:
            return
        loops = _local_loops(ctx)
        if not loops:
            return
        signature = static_signature(node, ctx)
        if signature is None:
            return
        identity = ctx.model.hash_facts.identity_classes
        for value, where in static_arguments(node, signature):
            built = value
            if isinstance(value, ast.Name):
                binding = dominating_binding(value.id, [*ctx.ancestors, node, value])
                if binding is None or binding.value is None or binding.index is not None:
                    continue
                if not any(contains(loop, binding.statement) for loop in loops):
                    continue
                built = binding.value
            what = identity_hashed(built, ctx.resolvers[-1], identity)
            if what is None or _reads_loop_names(built, loops):
                continue  # a value the loop changes: each iteration needs its own compilation
            yield ctx.finding(
                self,
                value,
                f"{what[0].upper()}{what[1:]}, built anew on every iteration, is a static "
                f"argument ({where}) of a jitted function: it hashes by identity, so every "
                "iteration misses the compilation cache and JAX traces and compiles again. "
                "Build it once, before the loop",
            )

    def _jit_in_module_init(self, node: ast.Assign, ctx: RuleContext) -> Iterator[Finding]:
        """`self.f = jax.jit(g)` in `__init__` of an `eqx.Module`: a new wrapper per instance
        in the module's static structure (`check` has tested that the value is a jit)."""
        function = ctx.functions[-1] if ctx.functions else None
        if getattr(function, "name", None) != "__init__" or not node.value.args:  # type: ignore[attr-defined]
            return
        if not any(
            isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
            for t in node.targets
        ):
            return
        record = ctx.model.records.get(function)
        cls = ctx.model.classes.get(record.class_name) if record and record.class_name else None
        if cls is None or not any(base in _PYTREE_MODULES for base in cls.bases):
            return
        yield ctx.finding(
            self,
            node.value,
            f"`jax.jit` in `__init__` of `{cls.name}` stores a new jitted wrapper in every "
            "instance: the wrapper is part of the module's static structure and compares by "
            "identity, so each new instance makes the jitted functions that take the module "
            "trace and compile again. Jit the function once at module level and store that "
            "(or store the plain function: the outer jit compiles it anyway)",
        )

    def _decorated(self, node: ast.FunctionDef, ctx: RuleContext) -> Iterator[Finding]:
        found = next(
            (
                (d, transform)
                for d in node.decorator_list
                if (transform := transform_of(d, ctx.resolvers[-1]))
                and transform[0].label in _COMPILING
            ),
            None,
        )
        if found is None or not ctx.functions:
            return
        decorator, (spec, keywords) = found
        function = ctx.functions[-1]
        message = f"{_spelled((spec, keywords))} of the nested function `{node.name}`"
        loops = _local_loops(ctx)
        if loops:
            if not _specialised_per_iteration(node, loops, ctx):
                yield self._finding(decorator, ctx, f"{message} defined inside a loop")
        elif (
            not _runs_once(function, ctx)
            and (spec.label in _JITS or _runs_repeatedly(function, ctx))
            and not _sharded_creation(decorator, keywords, node)
            and _only_called_once_outside_loops(node.name, function)
        ):
            yield self._finding(decorator, ctx, f"{message} created on every call")

    @staticmethod
    def _single_use(node: ast.Call, ctx: RuleContext) -> bool:
        """The jitted result is called right away, or bound to a name called once."""
        parent = ctx.parent
        if isinstance(parent, ast.Call) and parent.func is node:
            return True
        name = assigned_name(parent)
        if name is not None:
            return _only_called_once_outside_loops(name, ctx.functions[-1])
        return False

    def _finding(
        self, node: ast.AST, ctx: RuleContext, what: str, fix: Fix | None = None
    ) -> Finding:
        return ctx.finding(
            self,
            node,
            f"{what}: a new function object each time, so JAX traces and compiles it again "
            "every time. Create the jitted function once (outside the loop, at module level) "
            "and pass changing values as arguments",
            fix=fix,
        )


# Bases whose instances are pytrees with the non-array attributes as static structure.
_PYTREE_MODULES = frozenset({"equinox.Module"})


def _bound_method(target: ast.Attribute, call: ast.Call, ctx: RuleContext) -> bool:
    """`obj.method` where `obj` is `self` or an instance of a class of this module that
    defines `method` (not a staticmethod): a new bound-method object on each access."""
    receiver = target.value
    if not isinstance(receiver, ast.Name):
        return False
    class_name = None
    if receiver.id == "self":
        for function in reversed(ctx.functions):
            record = ctx.model.records.get(function)
            if record is not None and record.class_name:
                class_name = record.class_name
                break
    else:
        binding = dominating_binding(receiver.id, [*ctx.ancestors, call, target])
        if binding is not None and binding.module_level:
            class_name = ctx.model.hash_facts.instances.get(receiver.id)
        elif binding is not None:
            class_name = instance_of(binding, ctx.model.classes)
    if class_name is None:
        return False
    return target.attr in ctx.model.hash_facts.methods.get(class_name, frozenset())


def _specialised_per_iteration(function: FunctionNode, loops: list[ast.AST], ctx: RuleContext):
    """The jitted function reads the target of a loop over a Python sequence (a literal, or
    a list or tuple built here), and the target is no JAX array: each iteration is another
    setting (a dtype, field names, a flag) that the function is specialised on, so it needs
    a compilation per iteration wherever the jit is created, and no argument can carry it."""
    for loop in loops:
        if isinstance(loop, ast.For | ast.AsyncFor):
            pairs = [(loop.target, loop.iter)]
            read = names_reached(function, loop.body)
        elif isinstance(loop, _COMPREHENSIONS):
            pairs = [(generator.target, generator.iter) for generator in loop.generators]
            read = {n.id for n in walk_nodes(function) if isinstance(n, ast.Name)}
        else:
            continue
        for target, iterable in [pair for pair in pairs for pair in _items_of(*pair, ctx)]:
            literal = isinstance(iterable, ast.List | ast.Tuple | ast.Set)
            sequence = literal or (
                isinstance(iterable, ast.Name)
                and (
                    ctx.kind(iterable) is Kind.SEQUENCE
                    or _names_listed_default(
                        iterable.id, ctx.functions[-1] if ctx.functions else None
                    )
                )
            )
            if not sequence or (literal and all(map(_is_number, iterable.elts))):
                # `for scale in [1.0, 2.0]`: numbers can be passed as traced arguments to one
                # jitted function made outside the loop; each iteration need not compile.
                continue
            names = [n for n in walk_nodes(target) if isinstance(n, ast.Name) and n.id in read]
            if any(not ctx.kind(name).is_jax for name in names):
                return True
    return False


def _items_of(
    target: ast.expr, iterable: ast.expr, ctx: RuleContext
) -> list[tuple[ast.expr, ast.expr]]:
    """The sequences a loop walks and the targets their items go to: `enumerate(items)` walks
    `items` into the second target (the first is a count), `zip(a, b)` each into its own."""
    if (
        isinstance(iterable, ast.Call)
        and isinstance(target, ast.Tuple)
        and not iterable.keywords
        and not any(isinstance(arg, ast.Starred) for arg in iterable.args)
    ):
        qualname = ctx.qualname(iterable.func)
        if qualname == "builtins.enumerate" and len(iterable.args) == 1 and len(target.elts) == 2:
            return [(target.elts[1], iterable.args[0])]
        if qualname == "builtins.zip" and len(iterable.args) == len(target.elts):
            return list(zip(target.elts, iterable.args, strict=True))
    return [(target, iterable)]


def _names_listed_default(name: str, function: FunctionNode | None) -> bool:
    """`name` is a parameter of `function` whose default lists strings, never rebound."""
    return (
        function is not None
        and name in string_list_default_params(function)
        and not rebinds(name, function)
    )


def _is_number(node: ast.expr) -> bool:
    """A numeric literal (`2`, `-0.5`), not a bool."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float | complex)
        and not isinstance(node.value, bool)
    )


def _sharded_creation(
    jit: ast.expr,
    keywords: dict[str, ast.expr],
    function: FunctionNode | None,
    invoked_at_once: bool = False,
) -> bool:
    """`jax.jit(make, out_shardings=...)()` of a function without parameters, or a jitted
    function without parameters that places what it makes with `with_sharding_constraint`:
    the way JAX creates arrays directly where they belong (sharded initialisation). Everything
    it uses is closed over (specs, shardings), so it is made for each call by design; no
    argument could carry its inputs. The same for a jit with `out_shardings` called where it
    is made and never stored (`jax.jit(init, out_shardings=s)(rng, x)`): a sharded
    initialisation, run once per setup."""
    placed = "out_shardings" in keywords or (
        isinstance(jit, ast.Call) and passes_keyword(jit, "out_shardings")
    )
    if placed and invoked_at_once:
        return True  # `jax.jit(init, out_shardings=...)(rng, x)`: made, run, dropped
    if function is None or all_params(function):
        return False
    return placed or any(_places_by_sharding(node) for node in walk_nodes(function))


# `lax` loops and branches: outside a trace each call traces its functions (cached on the
# function objects) and compiles the primitive (measured: a lambda made on each of three calls
# traces and compiles three times; a module function once).
_CONTROL_FLOW = frozenset(
    {"lax.cond", "lax.switch", "lax.while_loop", "lax.fori_loop", "lax.scan", "lax.map"}
)


def _given_functions(node: ast.Call, spec: TransformSpec) -> list[ast.expr]:
    """The functions a `lax` call is given (switch: the elements of its branch sequence)."""
    given = [node.args[i] for i in spec.function_positions if i < len(node.args)]
    given += [kw.value for kw in node.keywords if kw.arg in spec.function_keywords]
    branches = None
    if spec.branches_position is not None and spec.branches_position < len(node.args):
        branches = node.args[spec.branches_position]
    branches = next((kw.value for kw in node.keywords if kw.arg == "branches"), branches)
    if isinstance(branches, ast.List | ast.Tuple):
        given += branches.elts
    return given


def _made_functions(
    node: ast.Call,
    spec: TransformSpec,
    loops: list[ast.AST],
    function: FunctionNode | None,
    ctx: RuleContext,
) -> list[tuple[str, bool]]:
    """The functions given to a `lax` call that are made where it runs: how the message names
    each, and whether it is made on each iteration of a loop around the call (else once per
    call of the enclosing function), those made per iteration first."""
    made = []
    for given in _given_functions(node, spec):
        if isinstance(given, ast.Lambda):
            if _specialised_per_iteration(given, loops, ctx):
                continue
            if loops:
                made.append(("a lambda", True))
            elif function is not None:
                made.append(("a lambda", False))
        elif isinstance(given, ast.Name):
            inner = _defined_in(given.id, loops[-1]) if loops else None
            if inner is not None:
                if not _specialised_per_iteration(inner, loops, ctx):
                    made.append((f"the nested function `{given.id}`", True))
            elif function is not None and _defined_in(given.id, function) is not None:
                made.append((f"the nested function `{given.id}`", False))
    return sorted(made, key=lambda pair: not pair[1])


def _runs_repeatedly(function: ast.AST, ctx: RuleContext) -> bool:
    """The module's own calls run `function` (a top-level function) again and again. Asked of
    `pmap` made on every call: used mostly in set-up and synchronisation helpers run a few
    times, it is flagged only on this evidence."""
    record = ctx.model.records.get(function)
    return record is not None and ctx.model.function_runs(record.path) == "repeatedly"


def _known_untraced(function: FunctionNode, ctx: RuleContext) -> bool:
    """The module calls `function` (a top-level function) only where nothing traces, so a
    loop in it runs eagerly."""
    record = ctx.model.records.get(function)
    return record is not None and ctx.model.function_runs(record.path) is not None


def _invoked_at_once(node: ast.Call, ctx: RuleContext) -> bool:
    """`jax.jit(f, ...)(args)`: the jitted function is called where it is made, never kept."""
    parent = ctx.parent
    return isinstance(parent, ast.Call) and parent.func is node


def _places_by_sharding(node: ast.AST) -> bool:
    """A call of `with_sharding_constraint`: JAX's (`jax.lax.`) or a library's wrapper of it,
    which keeps the name (kauldron's `sharding.with_sharding_constraint`)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "with_sharding_constraint"


def _fresh_wrapper(call: ast.Call, ctx: RuleContext) -> str | None:
    """How the code spells a transformation or `functools.partial` call that makes a new
    function object each time it runs (`jax.grad(f)`, `partial(f, scale=2)`), when all it
    wraps is the same every time: a function of the module (or imported) and values no local
    name gives. A wrapper of a closure or of the call's own values is made for that call by
    design (it could not be created once)."""
    found = transform_of(call.func, ctx.resolvers[-1])
    fresh = found is not None and found[0].label in _FRESH_WRAPPERS
    if not (fresh or ctx.qualname(call.func) == "functools.partial") or not call.args:
        return None
    wrapped = call.args[0]
    if not isinstance(wrapped, ast.Name):
        return None
    if wrapped.id not in ctx.model.functions and ctx.qualname(wrapped) is None:
        return None
    read = [n.id for n in walk_nodes(call) if isinstance(n, ast.Name)]
    if any(binds_locally(name, function) for function in ctx.functions for name in read):
        return None
    return ctx.segment(call.func)


def _transformed_closure(target: ast.expr, ctx: RuleContext) -> tuple[ast.expr, str | None]:
    """`jax.jit(jax.grad(inner))`: a transformation of a lambda or of a local function is as
    new as the closure it wraps, so it is judged as `jax.jit(inner)` is. Gives the wrapped
    function and how the code spells the transformation (None when `target` is no such
    wrapper)."""
    if not isinstance(target, ast.Call) or not target.args:
        return target, None
    found = transform_of(target.func, ctx.resolvers[-1])
    if found is None or found[0].label not in _FRESH_WRAPPERS:
        return target, None
    wrapped = target.args[0]
    local = isinstance(wrapped, ast.Name) and any(
        binds_locally(wrapped.id, function) for function in ctx.functions
    )
    if isinstance(wrapped, ast.Lambda) or local:
        return wrapped, ctx.segment(target.func)
    return target, None


def _reads_loop_names(value: ast.expr, loops: list[ast.AST]) -> bool:
    """`value` reads a name some enclosing loop binds (its target or its body)."""
    read = {n.id for n in walk_nodes(value) if isinstance(n, ast.Name)}
    return any(read & stored_names(loop) for loop in loops)


# Transformations that compile what they trace and cache the compilation on the function
# object they were given (measured: `pmap`, `eqx.filter_jit`, `nnx.jit` and `pjit` of a
# lambda made three times trace three times): the body of a function they decorate runs only
# when they trace it, not on every call.
_COMPILING = _JITS | {"pmap", "eqx.filter_pmap"}


def _spelled(found: FoundTransform) -> str:
    """How a message names the transformation: `jax.jit`, `jax.pmap`, `eqx.filter_jit`."""
    label = found[0].label
    return f"`jax.{label}`" if "." not in label else f"`{label}`"


def _inside_compiled(ctx: RuleContext) -> bool:
    """The walker stands in a function decorated with `jax.jit` (or in a function nested in
    one): that code runs only while the jit traces, once per compilation, and a jit created
    there is traced inline into the enclosing computation instead of compiled on its own."""
    resolver = ctx.resolvers[-1]
    return any(
        (found := transform_of(decorator, resolver)) is not None and found[0].label in _COMPILING
        for function in ctx.functions
        for decorator in getattr(function, "decorator_list", ())
    )


def _runs_once(function: ast.AST, ctx: RuleContext) -> bool:
    """`main()`, test functions, test files, the methods of test cases (a shared base class
    of tests may live outside a test file) and the module functions whose calls in the module
    run them once run once: a jit created there is not recreated."""
    name = getattr(function, "name", "")
    if name == "main" or name.startswith("test") or is_test_path(ctx.model.document.path):
        return True
    record = ctx.model.records.get(function)
    if record is not None and record.parent is None and not record.class_name:
        # Called once, outside loops, from top-level code or from a function that runs once
        # (`train_and_evaluate` from `main`): the jit it creates is compiled once.
        return ctx.model.function_runs(record.path) == "once"
    cls = ctx.model.classes.get(record.class_name) if record and record.class_name else None
    return cls is not None and any(base.endswith("TestCase") for base in cls.bases)
