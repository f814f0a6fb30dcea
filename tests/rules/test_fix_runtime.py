"""The new fixes under real JAX: each buggy program fails the documented way (or recompiles),
and the program `fix_text` makes of it (unsafe fixes included) runs and computes what its
author meant."""

from __future__ import annotations

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from tests.codeactions.helpers import main_fixes_only, source
from tests.runtime import exception_class, run_snippet

pytestmark = pytest.mark.slow  # fixed programs run under JAX

pytest.importorskip("jax")


def _gradients_as_eager(function: str, points: str, combine: str = "") -> str:
    """A check that jit's gradients of the fixed `function` at `points`, taken with
    `jax_debug_nans` on (which raises on a NaN anywhere in the backward pass), and its values
    are the eager original's (`eager_grads` / `eager_values`, made by `_eager`)."""
    return (
        "import numpy\n"
        "with jax.debug_nans(True):\n"
        f"    fixed_grads = [float(jax.grad(lambda v: {function}(v){combine})(v))"
        f" for v in {points}]\n"
        f"    fixed_values = [float(a) for v in {points} for a in jax.tree.leaves({function}(v))]\n"
        "assert numpy.allclose(fixed_grads, eager_grads), (fixed_grads, eager_grads)\n"
        "assert numpy.allclose(fixed_values, eager_values), (fixed_values, eager_values)"
    )


def _eager(function: str, points: str, combine: str = "") -> str:
    """The program's last lines: the un-jitted original's gradients and values at `points`
    (`combine` makes a tuple result a scalar to differentiate: `[0]`)."""
    return (
        f"eager_grads = [float(jax.grad(lambda v: {function}.__wrapped__(v){combine})(v)) "
        f"for v in {points}]\n"
        f"eager_values = [float(a) for v in {points} "
        f"for a in jax.tree.leaves({function}.__wrapped__(v))]\n"
    )


# (id, code, program, exception the buggy program raises or None, check of the buggy program,
#  check of the fixed program)
CASES = [
    (
        # A key built once in a default: every call drew the same numbers. Required now,
        # the callers pass keys of their own and draw different ones.
        "604-key-default-required",
        "JAX604",
        """
        import jax

        def noise(shape, key=jax.random.PRNGKey(0)):
            return jax.random.normal(key, shape)

        first = noise((3,), jax.random.key(1))
        second = noise((3,), jax.random.key(2))
        """,
        None,
        "assert (noise((3,)) == noise((3,))).all()",
        "failed = False\n"
        "try:\n"
        "    noise((3,))\n"
        "except TypeError:\n"
        "    failed = True\n"
        "assert failed and not (first == second).all()",
    ),
    (
        # Code written for an older JAX: every removed name gets its replacement, and the
        # program computes what it computed then.
        "1101-removed-names",
        "JAX1101",
        """
        import jax
        import jax.numpy as np
        from jax.experimental import optimizers

        params = {"w": np.arange(1.0, 4.0)}
        scaled = jax.tree_map(lambda p: p * 2, params)
        total = np.product(scaled["w"])
        marked = jax.ops.index_update(scaled["w"], jax.ops.index[0], -1.0)
        mask = np.in1d(np.arange(4), np.array([1, 3]))
        init, update, get_params = optimizers.sgd(0.5)
        """,
        "ImportError",
        None,
        "assert float(total) == 48.0 and marked.tolist() == [-1.0, 4.0, 6.0]\n"
        "assert mask.tolist() == [False, True, False, True]\n"
        "assert get_params(init(1.0)) == 1.0",
    ),
    (
        # An array handed to NumPy: the `jnp.` function takes it. Making `x` static (the fix
        # offered before) made JAX hash the array: ValueError/TypeError at the call.
        "703-numpy-function-becomes-jnp",
        "JAX703",
        """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def squash(x):
            return np.sum(x) + np.clip(x, 0.0, 1.0) + np.linalg.norm(x)

        out = squash(jnp.array([0.5, 2.0]))
        """,
        "jax.errors.TracerArrayConversionError",
        None,
        "import numpy\n"
        "assert numpy.allclose(out, [2.5 + 0.5 + 17**0.5 / 2, 2.5 + 1.0 + 17**0.5 / 2])",
    ),
    (
        "802-set-operations",
        "JAX802",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def sets(a, b):
            both = jnp.union1d(a, b)
            common = jnp.intersect1d(a, b)
            hits = jnp.argwhere(a > 2)
            return both, common, hits

        both, common, hits = sets(jnp.array([1, 2, 3]), jnp.array([3, 4]))
        """,
        "jax.errors.ConcretizationTypeError",
        None,
        # Padded to the static bound: unique values first, then the smallest value (sets) or
        # the element count, an index out of range (indices).
        "assert both.tolist() == [1, 2, 3, 4, 1]\n"
        "assert common.tolist() == [3, 3, 3]\n"
        "assert hits.tolist() == [[2], [3], [3]]",
    ),
    (
        # The safe rewrite keeps the gradient finite on both sides of the condition.
        "701-safe-where-keeps-gradients",
        "JAX701",
        """
        import jax

        @jax.jit
        def leaky(x):
            if x > 0:
                return x * 3.0
            return 0.5 * x

        grads = [float(jax.grad(leaky.__wrapped__)(v)) for v in (-1.0, 0.0, 2.0)]
        """,
        None,
        "assert grads == [0.5, 0.5, 3.0]",
        "assert grads == [0.5, 0.5, 3.0] and float(jax.grad(leaky)(-1.0)) == 0.5",
    ),
    (
        # A plain `jnp.where(x > 0, jnp.sqrt(x), 0.0)` has gradient NaN at x <= 0; the fix
        # guards sqrt's input ("double where"), so jit's gradients are the eager original's.
        "701-double-where-keeps-sqrt-gradients",
        "JAX701",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def safe_sqrt(x):
            if x > 0:
                return jnp.sqrt(x)
            return 0.0

        eager = [float(jax.grad(safe_sqrt.__wrapped__)(v)) for v in (-1.0, 0.0, 4.0)]
        """,
        None,
        "assert eager == [0.0, 0.0, 0.25]",
        "fixed = [float(jax.grad(safe_sqrt)(v)) for v in (-1.0, 0.0, 4.0)]\n"
        "values = [float(safe_sqrt(v)) for v in (-1.0, 0.0, 4.0)]\n"
        "assert fixed == [0.0, 0.0, 0.25] and values == [0.0, 0.0, 2.0]",
    ),
    (
        # The statement form: `y = 0.0; if x > 0: y = jnp.sqrt(x)`. A plain
        # `jnp.where(x > 0, jnp.sqrt(x), y)` has gradient NaN at 0 (jax_debug_nans raises).
        "701-assignment-guards-sqrt",
        "JAX701",
        source(
            """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def clipped_sqrt(x):
            y = 0.0
            if x > 0:
                y = jnp.sqrt(x)
            return y

        """
        )
        + _eager("clipped_sqrt", "(-1.0, 0.0, 4.0)"),
        None,
        "assert eager_grads == [0.0, 0.0, 0.25]",
        _gradients_as_eager("clipped_sqrt", "(-1.0, 0.0, 4.0)"),
    ),
    (
        "701-augmented-assignment-guards-log",
        "JAX701",
        source(
            """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def bonus(x):
            y = x * 2.0
            if x > 0:
                y += jnp.log(x)  # only for positive x
            return y

        """
        )
        + _eager("bonus", "(-1.0, 0.0, 2.0)"),
        None,
        "assert eager_grads == [2.0, 2.0, 2.5]",
        _gradients_as_eager("bonus", "(-1.0, 0.0, 2.0)"),
    ),
    (
        # A fractional power and a division by a value, in a conditional expression.
        "701-conditional-expression-guards-power-and-divisor",
        "JAX701",
        source(
            """
        import jax

        @jax.jit
        def root_over(x):
            return (x**0.5) / x if x > 0 else x * 0.0

        """
        )
        + _eager("root_over", "(-1.0, 0.0, 4.0)"),
        None,
        "assert eager_grads == [0.0, 0.0, -1 / 16]",
        _gradients_as_eager("root_over", "(-1.0, 0.0, 4.0)"),
    ),
    (
        # Tuples returned by both branches: one guarded `jnp.where` per element.
        "701-tuple-returns-guard-each-element",
        "JAX701",
        source(
            """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def log_and_flag(x):
            if x > 0:
                return jnp.log1p(x), 1
            return jnp.arcsin(x / 2.0), 0

        """
        )
        + _eager("log_and_flag", "(-1.0, 0.0, 3.0)", "[0]"),
        None,
        "import numpy\n"
        "assert numpy.allclose(eager_grads, [1 / 3**0.5, 0.5, 0.25])\n"
        "assert eager_values[1::2] == [0.0, 0.0, 1.0]",
        _gradients_as_eager("log_and_flag", "(-1.0, 0.0, 3.0)", "[0]"),
    ),
    (
        "701-select-equals-eager",
        "JAX701",
        """
        import jax
        import jax.numpy as jnp

        def clipped(x, lo):
            if x > lo:  # above
                y = jnp.sqrt(x - lo)
            else:
                # below
                y = lo * 0.0
            return y * 2 if y > 1 else y

        xs = jnp.array([-1.0, 0.5, 4.0, 9.0])
        eager = [float(clipped(x, 0.0)) for x in xs]
        out = jax.vmap(clipped, in_axes=(0, None))(xs, 0.0)
        """,
        "jax.errors.TracerBoolConversionError",
        None,
        "import numpy as np\n"
        "np.testing.assert_allclose(out, eager, rtol=1e-6)\n"
        "np.testing.assert_allclose(eager, [0.0, 0.5**0.5, 4.0, 6.0], rtol=1e-6)",
    ),
    (
        "701-if-without-else-keeps-the-value",
        "JAX701",
        """
        import jax
        import jax.numpy as jnp

        def step(y, c):
            if c > 0:
                y = y * 2
            return y

        out = jax.vmap(step)(jnp.array([1.0, 2.0, 3.0]), jnp.array([1, 0, 1]))
        """,
        "jax.errors.TracerBoolConversionError",
        None,
        "assert out.tolist() == [2.0, 2.0, 6.0]",
    ),
    (
        "701-lax-cond-runs-only-the-branch-taken",
        "JAX701",
        """
        import jax

        def noisy(x):
            jax.debug.print("computed {}", x)
            return x * 10

        @jax.jit
        def f(x):
            y = x
            if x > 0:
                y = noisy(x)
            return y

        out = f(-1.0)
        jax.effects_barrier()
        """,
        "jax.errors.TracerBoolConversionError",
        None,
        # jnp.where would have called `noisy` (and printed) for the branch not taken.
        'assert float(out) == -1.0 and "computed" not in _stdout\nassert float(f(2.0)) == 20.0',
    ),
    (
        "703-static-extends-existing-names",
        "JAX703",
        """
        from functools import partial

        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames="scale")
        def powers(x, n, scale):
            return jnp.stack([x**k for k in range(n)]) * scale

        out = powers(jnp.arange(3.0), 3, scale=2)
        """,
        "jax.errors.TracerIntegerConversionError",
        None,
        "assert out.tolist() == [[2.0, 2.0, 2.0], [0.0, 2.0, 4.0], [0.0, 2.0, 8.0]]\n"
        "assert powers._cache_size() == 1",
    ),
    (
        "803-static-decorator-call",
        "JAX803",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit(donate_argnums=())
        def window(x, start: int, width: int):
            return x[start : start + width]

        out = window(jnp.arange(6.0), 1, 3)
        """,
        "IndexError",
        None,
        "assert out.tolist() == [1.0, 2.0, 3.0]",
    ),
    (
        # An f-string with format specs: a tracer refuses any spec at trace time; the fix
        # keeps the specs for jax.debug.print, which formats the values as the f-string meant.
        "101-fstring-format-spec-kept",
        "JAX101",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def step(loss, count):
            print(f"step {count:>3d} loss: {loss:.4f} {loss=:.2e}")
            return loss * 2

        out = step(jnp.float32(1.23456), jnp.int32(7))
        jax.effects_barrier()
        """,
        "TypeError",
        None,
        'assert _stdout == "step   7 loss: 1.2346 loss=1.23e+00\\n", _stdout',
    ),
    (
        "1001-hoisted-compiles-once",
        "JAX1001",
        """
        import jax
        import jax.numpy as jnp

        traces = []

        def scaled(v, k):
            traces.append(1)
            return v * k

        def run(x, steps, k):
            for i in range(steps):
                step = jax.jit(
                    lambda v: scaled(v, k)  # the update
                )
                x = step(x) + i
            return x

        out = run(jnp.ones(2), 3, 2.0)
        """,
        None,
        "assert len(traces) == 3",
        "assert len(traces) == 1 and out.tolist() == [12.0, 12.0]",
    ),
    (
        "1001-hoisted-grad-compiles-once",
        "JAX1001",
        """
        import jax
        import jax.numpy as jnp

        traces = []

        def loss(w, x):
            traces.append(1)
            return jnp.sum((w * x) ** 2)

        w = jnp.ones(3)
        x = jnp.arange(3.0)
        for i in range(5):
            g = jax.jit(jax.grad(loss))(w, x)
            w = w - 0.1 * g
        """,
        None,
        "assert len(traces) == 5",
        "assert len(traces) == 1 and jnp.allclose(w, jnp.array([1.0, 0.32768, 0.00032]))",
    ),
    (
        # Two settings listed among the children of a hand-written PyTree: under jit the
        # flag and the depth were tracers. Moved to the aux data, the unflatten function puts
        # them back where they stood, and the layer computes what it computes eagerly.
        "403-settings-to-aux-data",
        "JAX403",
        """
        import jax
        import jax.numpy as jnp

        @jax.tree_util.register_pytree_node_class
        class Residual:
            def __init__(self, weight, training: bool, depth: int, bias):
                self.weight = weight
                self.training = training
                self.depth = depth
                self.bias = bias

            def __call__(self, x):
                for _ in range(self.depth):
                    x = x + jnp.tanh(x @ self.weight + self.bias)
                return x * 0.5 if self.training else x

            def tree_flatten(self):
                children = [self.weight, self.training, self.depth, self.bias]
                return children, {"name": "residual"}

            @classmethod
            def tree_unflatten(cls, aux_data, children):
                \"\"\"Rebuilt by JAX.\"\"\"
                weight, training, depth, bias = children
                assert aux_data == {"name": "residual"}
                return cls(weight, training, depth, bias)

        layer = Residual(jnp.eye(2) * 0.5, True, 2, jnp.ones(2))
        eager = layer(jnp.ones(2))
        """,
        "jax.errors.TracerIntegerConversionError",
        "jax.jit(lambda m, x: m(x))(layer, jnp.ones(2))",
        "assert jnp.allclose(jax.jit(lambda m, x: m(x))(layer, jnp.ones(2)), eager)\n"
        "assert jax.tree.leaves(layer)[0].shape == (2, 2) and len(jax.tree.leaves(layer)) == 2",
    ),
    (
        # A dataclass registered with its activation among the data fields: jit rejected the
        # function. Listed in meta_fields (added), it stays Python.
        "403-data-fields-to-meta-fields",
        "JAX403",
        """
        import dataclasses
        import functools
        from typing import Callable

        import jax
        import jax.numpy as jnp

        @functools.partial(jax.tree_util.register_dataclass, data_fields=("weight", "activation"))
        @dataclasses.dataclass
        class Block:
            weight: jax.Array
            activation: Callable

        block = Block(jnp.ones(2), jax.nn.relu)
        """,
        "TypeError",
        "jax.jit(lambda b, x: b.activation(x * b.weight))(block, -jnp.ones(2))",
        "y = jax.jit(lambda b, x: b.activation(x * b.weight))(block, -jnp.ones(2))\n"
        "assert y.tolist() == [0.0, 0.0] and len(jax.tree.leaves(block)) == 1",
    ),
]

# A program that counts each particle's neighbours in a jitted function: `size=` alone made
# every count the padded length (a mean of 50.0 where the eager program gives 5.32).
_NEIGHBOURS = """
import jax
import jax.numpy as jnp

@jax.jit
def neighbour_count(positions, i, cutoff):
    distances = jnp.linalg.norm(positions - positions[i], axis=1)
    close = (distances < cutoff) & (distances > 0)
    found = jnp.nonzero(close)[0]
    return found.shape[0]

positions = jax.random.uniform(jax.random.key(0), (50, 2)) * 5.0
counts = [int(neighbour_count(positions, i, 1.0)) for i in range(50)]
mean = sum(counts) / len(counts)
"""
CASES.append(
    (
        "802-neighbour-counts",
        "JAX802",
        _NEIGHBOURS,
        "jax.errors.ConcretizationTypeError",
        None,
        # The original program run eagerly gives what its author meant: the same counts.
        "eager = {}\n"
        "with jax.disable_jit():\n"
        f"    exec({_NEIGHBOURS!r}, eager)\n"
        "assert eager['counts'] == counts and mean == eager['mean'] != 50.0, (mean, eager['mean'])",
    )
)


@pytest.mark.parametrize(
    ("code", "program", "raises", "buggy_check", "fixed_check"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_fixed_program_runs_as_meant(code, program, raises, buggy_check, fixed_check):
    program = source(program)
    buggy = run_snippet(program, buggy_check)
    if raises:
        assert isinstance(buggy.error, exception_class(raises)), buggy.error
    else:
        assert buggy.error is None, buggy.error
    rules = (RULES_BY_CODE[code],)
    run = main_fixes_only(lambda t: analyze(Document(t), rules).findings)
    fixed, applied = fix_text(program, run, True)
    assert applied >= 1
    assert analyze(Document(fixed), rules).findings == []
    outcome = run_snippet(fixed, fixed_check)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
