"""Which parameters a trace gives tracers: those the calls of what a transformation makes
fill (the rest keep their defaults, Python values, and what a `partial` binds), never a
parameter a decorator keeps static (`static_argnames`, a `jax.custom_vjp`'s
`nondiff_argnums`: a tracer there fails at the call). Single-module programs run under JAX;
the projects are the reductions of real packages' code, which ran under JAX too."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.analysis.test_imported_values import codes_of
from tests.conftest import findings_of
from tests.runtime import run_snippet

POOL = """
def _infer_shape(x, size, channel_axis=-1):
    if isinstance(size, int):
        if channel_axis and channel_axis < 0:
            channel_axis = x.ndim + channel_axis
        return (1,) + tuple(size if d != channel_axis else 1 for d in range(1, x.ndim))
    return tuple(size)


def avg_pool(value, window_shape, strides, channel_axis=-1):
    window_shape = _infer_shape(value, window_shape, channel_axis)
    strides = _infer_shape(value, strides, channel_axis)
    return jax.lax.reduce_window(value, 0.0, jax.lax.add, window_shape, strides, "VALID")


def dropout(rng, rate, x, broadcast_dims=()):
    shape = list(x.shape)
    for dim in broadcast_dims:
        shape[dim] = 1
    keep = jax.random.bernoulli(rng, 1.0 - rate, shape)
    return jnp.where(keep, x / (1.0 - rate), 0)


def padded(x, n=-3):
    return jnp.zeros(-n) + x
"""

POOL_TEST = """
import functools

import jax
import jax.numpy as jnp
import numpy as np

from ops import avg_pool, dropout, padded


def test_pool():
    x = np.ones((2, 3, 10, 6, 2), np.float32)
    pool = functools.partial(avg_pool, window_shape=[2, 2, 1], strides=[2, 2, 1])
    return jax.vmap(jax.vmap(pool))(x)


def test_dropout(key):
    return jax.jit(dropout)(key, 0.25, jnp.ones(3))


def test_padded(n):
    return jax.jit(padded)(1.0, n)  # a tracer given: a true finding
"""


def test_parameters_a_cross_module_transformation_leaves_at_their_defaults(tmp_path: Path):
    ops = "import jax\nimport jax.numpy as jnp\n" + POOL
    files = {"ops.py": ops, "ops_test.py": POOL_TEST}
    assert codes_of(tmp_path, files, "ops.py") == [("JAX803", 27)]
    program = textwrap.dedent(ops) + textwrap.dedent(POOL_TEST).replace("from ops import", "#")
    check = "test_pool(); test_dropout(jax.random.key(0)); assert padded(1.0).shape == (3,)"
    assert run_snippet(program, check).error is None
    failing = run_snippet(program, "test_padded(-3)").error
    assert type(failing).__name__ == "TypeError"


PARTIAL_KWARGS = """
import functools

import jax
import jax.numpy as jnp


def solve(x, rank=-1, **kwargs):
    if rank > 0:
        return x * rank
    return x * kwargs.get("threshold", 1.0)


def _align(rng, x, y, epsilon, **kwargs):
    return solve(x + y, **kwargs)


align = jax.jit(
    functools.partial(_align, threshold=1e-3, max_iterations=10), static_argnames=["epsilon"]
)
out = align(jax.random.key(0), jnp.ones(2), jnp.ones(2), 0.1)
"""


STORED = """

class Loader:
    def __init__(self):
        self._align_fn = jax.jit(functools.partial(_align, threshold=1e-3))

    def next(self, x):
        return self._align_fn(jax.random.key(0), x, x, 0.1)


out = Loader().next(jnp.ones(2))
"""


def test_keywords_a_partial_binds_are_python_values_in_the_kwargs_passed_on():
    source = textwrap.dedent(PARTIAL_KWARGS)
    assert findings_of(source) == []
    assert run_snippet(source).error is None
    # Stored on the object, called by its methods.
    stored = source + textwrap.dedent(STORED)
    assert findings_of(stored) == []
    assert run_snippet(stored).error is None
    # A call giving `rank` a tracer through the `**kwargs`: a true finding.
    passed = stored.replace("x, x, 0.1)", "x, x, 0.1, rank=x.sum())")
    assert [(f.span.start.line + 1, f.code) for f in findings_of(passed)] == [(9, "JAX701")]
    error = run_snippet(passed).error
    assert type(error).__name__ == "TracerBoolConversionError"


DECLARED_STATIC = """
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def power(x, n):
    if n > 1:  # a Python value: a tracer fails at the call
        return x**n
    return x


def power_fwd(x, n):
    return power(x, n), x


def power_bwd(n, x, g):
    return (g * n * x ** (n - 1),)


power.defvjp(power_fwd, power_bwd)


@partial(jax.jit, static_argnames="n")
def padded(x, n):
    return jnp.zeros(n) + x


@jax.jit
def outer(x, m):
    return padded(x, m)
"""


def test_a_tracer_passed_where_a_decorator_keeps_a_parameter_static_fails_at_the_call():
    source = textwrap.dedent(DECLARED_STATIC)
    # Inside `power` and `padded` nothing: the calls fail first (the jitted one is flagged).
    assert [(f.span.start.line + 1, f.code) for f in findings_of(source)] == [(33, "JAX1002")]
    vjp = run_snippet(source, "jax.jit(jax.grad(power))(2.0, 3)").error
    assert type(vjp).__name__ == "UnexpectedTracerError"
    jitted = run_snippet(source, "outer(1.0, 3)").error
    assert type(jitted).__name__ == "ValueError" and "Non-hashable static" in str(jitted)
    assert run_snippet(source, "assert float(jax.grad(power)(2.0, 3)) == 12.0").error is None


FOCK = """
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("n_particles", "shape"))
def random_states(n_particles, key, shape):
    keys = jax.random.split(key, n_particles)
    return jnp.zeros((*shape, n_particles)), keys
"""

HOMOGENEOUS = """
from functools import partial

import jax

from fock import random_states


@partial(jax.jit, static_argnames=("batches",))
def random_state(constraint, key, batches):
    return random_states(constraint.sum_value - 1, key, (batches,))
"""


def test_a_static_parameter_of_a_jitted_function_stays_static_whatever_an_importer_passes(
    tmp_path: Path,
):
    files = {"fock.py": FOCK, "homogeneous.py": HOMOGENEOUS}
    assert codes_of(tmp_path, files, "fock.py") == []


HOST_CALLBACKS = """
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def rollout(actions):
    spec = jax.ShapeDtypeStruct((3,), jnp.float32)

    def _step(actions):  # run on the host: a concrete array, NumPy converts it
        actions = jax.lax.collapse(actions, 0, 1)
        return np.asarray(actions).astype(np.float32) * 2

    def _step2(actions):  # a second one, through a second partial
        return np.asarray(jnp.asarray(actions)) * 2

    def _traced(actions):
        return np.asarray(actions)  # called in the trace: a true finding

    a = jax.pure_callback(_step, spec, actions)
    b = partial(jax.pure_callback, _step, spec, vmap_method="expand_dims")(actions)
    c = partial(jax.pure_callback, _step2, spec)(actions)
    return a + b + c
"""


def test_a_function_handed_to_a_host_callback_runs_outside_the_trace():
    source = textwrap.dedent(HOST_CALLBACKS)
    assert findings_of(source) == []
    check = "assert rollout(jnp.ones(3)).tolist() == [6.0, 6.0, 6.0]"
    assert run_snippet(source, check).error is None
    called = source.replace("return a + b + c", "return a + b + c + _traced(actions)")
    assert [(f.span.start.line + 1, f.code) for f in findings_of(called)] == [(21, "JAX703")]
    error = run_snippet(called, "rollout(jnp.ones(3))").error
    assert type(error).__name__ == "TracerArrayConversionError"
