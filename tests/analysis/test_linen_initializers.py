"""A linen module's parameter initializers, given to `self.param`, run in every trace of the
method calling it: a traced `init` runs them, and `apply` (jitted or not) traces them with
`jax.eval_shape` to check the parameters' shapes; each on a traced key and the arguments
`self.param` passes. An eager `init` alone runs them on concrete values. Each program runs
under real JAX: the flagged ones raise, the clean ones run."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

jax = pytest.importorskip("jax")
pytest.importorskip("flax")

_MODULE = """
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np


def host_normal(key, shape):
    return jnp.asarray(np.asarray(jax.random.normal(key, shape)))  # the key's draw on the host


def counted(key, shape):
    size = int(jnp.prod(jnp.array(shape)))  # a JAX array of the static shape
    return jnp.zeros(size).reshape(shape)


def numpy_ones(key, shape):
    return jnp.asarray(np.ones(shape, np.float32))  # NumPy of the static shape only


class Dense(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        kernel = self.param("kernel", {initializer}, (x.shape[-1], self.features))
        return x @ kernel


key = jax.random.PRNGKey(0)
x = jnp.ones((2, 3))
model = Dense(4)
"""

CASES = [
    ("jitted-init-host-key", "host_normal", "jax.jit(model.init)(key, x)", ["JAX703"], True),
    (
        "init-in-jitted-function",
        "counted",
        "jax.jit(lambda k, v: model.init(k, v))(key, x)",
        ["JAX703"],
        True,
    ),
    ("jitted-init-numpy-shape", "numpy_ones", "jax.jit(model.init)(key, x)", [], False),
    # apply checks the parameter's shape with `jax.eval_shape` of the initializer: traced.
    (
        "jitted-apply-eager-init",
        "host_normal",
        "jax.jit(model.apply)(model.init(key, x), x)",
        ["JAX703"],
        True,
    ),
    ("eager-init-only", "host_normal", "model.init(key, x)", [], False),
]


@pytest.mark.parametrize(
    ("initializer", "run", "codes", "raises"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_initializers_are_traced_where_init_is(initializer, run, codes, raises):
    source = textwrap.dedent(_MODULE.format(initializer=initializer)) + f"result = {run}\n"
    found = findings_of(source)
    assert [finding.code for finding in found] == codes
    if codes:  # in the initializer the module gives `self.param`
        line = source.splitlines()[found[0].line]
        assert line.lstrip().startswith(("return jnp.asarray", "size = int"))
    outcome = run_snippet(source)
    assert (outcome.error is not None) == raises, outcome.error
