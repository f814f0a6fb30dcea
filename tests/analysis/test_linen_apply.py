"""A flax linen module run through `apply` or `init`: its `__call__` (or `method=`) runs
traced, and a library layer called on a traced array (`nn.Dense(3)(x)`) gives a traced array.
Each program is run under real JAX: what is flagged raises, what stays clean runs."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

HEAD = """
import jax, jax.numpy as jnp, numpy as np
import flax.linen as nn


class Head(nn.Module):
    @nn.compact
    def __call__(self, x):
        return {call}

    def encode(self, x):
        if x.sum() > 0:
            return x
        return -x


model = Head()
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))
"""

JITTED_APPLY = "jax.jit(model.apply)(params, jnp.ones((2, 4)))\n"
# `init` runs `__call__` too, on the arguments after the PRNG keys.
JITTED_INIT = "jax.jit(model.init)(jax.random.PRNGKey(1), jnp.ones((2, 4)))\n"
INIT_IN_JIT = """
@jax.jit
def fresh(key, x):
    return model.init(key, x)


fresh(jax.random.PRNGKey(1), jnp.ones((2, 4)))
"""
APPLY_IN_JIT = """
@jax.jit
def predict(params, x):
    return model.apply(params, x)


predict(params, jnp.ones((2, 4)))
"""
TRAIN_STATE = """
import optax
from flax.training import train_state

state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(0.1))


@jax.jit
def step(state, x):
    return state.apply_fn(state.params, x)


step(state, jnp.ones((2, 4)))
"""
METHOD = """
@jax.jit
def encode(params, x):
    return model.apply(params, x, method={method})


encode(params, jnp.ones((2, 4)))
"""


def _program(call: str, tail: str) -> str:
    return textwrap.dedent(HEAD).replace("{call}", call) + textwrap.dedent(tail)


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source)]


@pytest.mark.parametrize(
    "tail", [JITTED_APPLY, APPLY_IN_JIT, TRAIN_STATE, JITTED_INIT, INIT_IN_JIT]
)
@pytest.mark.parametrize("call", ["np.exp(nn.Dense(3)(x))", "np.exp(nn.relu(x))"])
def test_numpy_on_a_layer_output_in_an_applied_call_is_found_and_raises(call: str, tail: str):
    source = _program(call, tail)
    assert _codes(source) == [(8, "JAX703")]
    outcome = run_snippet(source)
    assert type(outcome.error).__name__ == "TracerArrayConversionError"


@pytest.mark.parametrize(
    "tail", [JITTED_APPLY, APPLY_IN_JIT, TRAIN_STATE, JITTED_INIT, INIT_IN_JIT]
)
def test_jnp_on_a_layer_output_is_clean_and_runs(tail: str):
    source = _program("jnp.exp(nn.Dense(3)(x))", tail)
    assert _codes(source) == []
    assert run_snippet(source).error is None


@pytest.mark.parametrize("method", ['"encode"', "Head.encode"])
def test_apply_with_method_traces_that_method_not_call(method: str):
    # `__call__` holds a NumPy call that would raise if it ran: with `method=` it does not.
    source = _program("np.exp(nn.Dense(3)(x))", METHOD.replace("{method}", method))
    assert _codes(source) == [(11, "JAX701")]
    outcome = run_snippet(source)
    assert type(outcome.error).__name__ == "TracerBoolConversionError"


def test_init_with_method_traces_that_method_not_call():
    tail = METHOD.replace("model.apply(params, x", "model.init(params, x").replace(
        "encode(params, jnp.ones((2, 4)))", "encode(jax.random.PRNGKey(1), jnp.ones((2, 4)))"
    )
    source = _program("np.exp(nn.Dense(3)(x))", tail.replace("{method}", '"encode"'))
    assert _codes(source) == [(11, "JAX701")]
    assert type(run_snippet(source).error).__name__ == "TracerBoolConversionError"


def test_apply_with_a_method_given_as_a_function_is_not_followed():
    method = "lambda module, x: module.encode(x)"
    source = _program("np.exp(nn.Dense(3)(x))", METHOD.replace("{method}", method))
    assert _codes(source) == []


def test_numpy_layer_output_outside_any_trace_is_clean_and_runs():
    source = _program("np.exp(nn.Dense(3)(x))", "model.apply(params, jnp.ones((2, 4)))\n")
    assert _codes(source) == []
    assert run_snippet(source).error is None
