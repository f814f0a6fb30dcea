"""Functions JAX traces that are named far from the transformation: a module-level list of
`lax.switch` branches, ... Each flagged program raises (or misbehaves) under real JAX; each
clean counterpart runs."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source)]


def _error_name(source: str) -> str | None:
    error = run_snippet(textwrap.dedent(source)).error
    return None if error is None else type(error).__name__


SWITCH_BRANCHES = """
import jax
import jax.numpy as jnp
from jax.lax import switch


def inside(x):
    return jnp.where(0.0 < x < 1.0, x, 0.0)


outside = lambda x: jnp.where(x > 1.0, x, 0.0)
branches = [inside, outside]


def pick(i, x):
    return switch(i, branches, x)


out = jax.grad(pick, argnums=1)(0, 0.5)
"""


def test_branches_named_by_a_module_level_list_are_traced():
    assert _codes(SWITCH_BRANCHES) == [(7, "JAX702")]
    assert _error_name(SWITCH_BRANCHES) == "TracerBoolConversionError"


def test_a_parameter_named_like_the_module_list_is_not_it():
    # `pick` is given its own branches: the module's list is not what it switches over.
    shadowed = SWITCH_BRANCHES.replace("def pick(i, x):", "def pick(i, x, branches=(abs, abs)):")
    assert _codes(shadowed) == []
    assert _error_name(shadowed) is None


def test_a_list_rebound_to_something_else_is_not_followed():
    rebound = SWITCH_BRANCHES.replace(
        "branches = [inside, outside]\n",
        "branches = [inside, outside]\nbranches = tuple(b for b in (abs, abs))\n",
    )
    assert _codes(rebound) == []
    assert _error_name(rebound) is None


REBUILT_KEY = """
from functools import partial

import jax
import jax.numpy as jnp
from jax import random


class Perturb:
    def body(self, i, total, x):
        noise = random.normal(random.key(0), x.shape)
        return total + noise

    def run(self, x):
        def loop(x):
            step = partial(self.body, x=x)
            return jax.lax.fori_loop(0, 3, step, jnp.zeros_like(x))

        return loop(x)


out = Perturb().run(jnp.zeros(4))
"""


def test_a_key_built_from_a_constant_seed_in_a_loop_body_is_the_same_every_iteration():
    # The body is reached from a closure of a method (`self.body` there is the method).
    assert _codes(REBUILT_KEY) == [(10, "JAX602")]
    outcome = run_snippet(textwrap.dedent(REBUILT_KEY))
    one = run_snippet("import jax\nn = jax.random.normal(jax.random.key(0), (4,))\n")
    assert (outcome.namespace["out"] == 3 * one.namespace["n"]).all()  # the same draw 3 times


def test_a_key_folded_with_the_step_is_new_every_iteration():
    folded = REBUILT_KEY.replace(
        "def body(self, i, total, x):\n        noise = random.normal(random.key(0), x.shape)",
        "def body(self, i, total, x):\n"
        "        noise = random.normal(random.fold_in(random.key(0), i), x.shape)",
    )
    assert folded != REBUILT_KEY
    assert _codes(folded) == []
    outcome = run_snippet(textwrap.dedent(folded))
    one = run_snippet("import jax\nn = jax.random.normal(jax.random.key(0), (4,))\n")
    assert not (outcome.namespace["out"] == 3 * one.namespace["n"]).all()


OPTAX_SCHEDULE = """
import jax
import jax.numpy as jnp
import optax


def make_schedule(top):
    def schedule(step):
        if step < top:
            return 0.1
        return 0.01

    return schedule


learning_rate = make_schedule(10)
tx = optax.sgd(learning_rate)
params = jnp.ones(3)
opt_state = tx.init(params)


@jax.jit
def train_step(params, opt_state):
    grads = jax.grad(lambda p: jnp.sum(p**2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state)
"""


def test_a_schedule_optax_calls_in_a_jitted_update_is_traced():
    # The schedule is what a factory of the module returns, and optax calls it with the
    # traced step count inside the jitted step.
    assert _codes(OPTAX_SCHEDULE) == [(8, "JAX701")]
    assert _error_name(OPTAX_SCHEDULE) == "TracerBoolConversionError"


def test_a_schedule_of_an_eager_update_is_not_traced():
    eager = OPTAX_SCHEDULE.replace("@jax.jit\n", "")
    assert _codes(eager) == []
    assert _error_name(eager) is None


def test_a_schedule_with_jnp_where_is_clean_under_jit():
    where = OPTAX_SCHEDULE.replace(
        "        if step < top:\n            return 0.1\n        return 0.01\n",
        "        return jnp.where(step < top, 0.1, 0.01)\n",
    )
    assert where != OPTAX_SCHEDULE
    assert _codes(where) == []
    assert _error_name(where) is None


def test_a_function_a_factory_returns_is_traced_where_it_is_jitted():
    jitted = (
        "import jax\n\n\ndef make_step(limit):\n    def step(x):\n        if x > limit:\n"
        "            return x\n        return -x\n\n    return step\n\n\n"
        "step = make_step(1.0)\nout = jax.jit(step)(2.0)\n"
    )
    assert _codes(jitted) == [(5, "JAX701")]
    assert _error_name(jitted) == "TracerBoolConversionError"
    assert _codes(jitted.replace("jax.jit(step)(2.0)", "step(2.0)")) == []


NNX_LAMBDA = """
import jax.numpy as jnp
from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 1, rngs=rngs)

    def __call__(self, x):
        if x.sum() > 0:
            return self.linear(x)
        return -self.linear(x)


m = Model(nnx.Rngs(0))
{jitted}
"""
NNX_LAMBDAS = {
    "closure": "f = nnx.jit(lambda x: m(x))\nout = f(jnp.ones((2, 3)))",
    "argument": "f = nnx.jit(lambda m, x: m(x))\nout = f(m, jnp.ones((2, 3)))",
}


@pytest.mark.parametrize("jitted", NNX_LAMBDAS)
def test_a_module_called_in_an_nnx_jitted_lambda_runs_traced(jitted: str):
    source = NNX_LAMBDA.replace("{jitted}", NNX_LAMBDAS[jitted])
    assert _codes(source) == [(10, "JAX701")]
    assert _error_name(source) == "TracerBoolConversionError"
    where = source.replace(
        "        if x.sum() > 0:\n            return self.linear(x)\n"
        "        return -self.linear(x)",
        "        return jnp.where(x.sum() > 0, 1.0, -1.0) * self.linear(x)",
    )
    assert where != source
    assert _codes(where) == []
    assert _error_name(where) is None


NNX_CLOSURE = """
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
        self.grads = nnx.grad(lambda m: jnp.mean(m(jnp.ones((4, 3))) ** 2))(model)

        @jax.jit
        def update(scale):
            self.optimizer.update(self.model, jax.tree.map(lambda g: g * scale, self.grads))

        self.update = update


trainer = Trainer(nnx.Linear(3, 1, rngs=nnx.Rngs(0)))
trainer.update(1.0)
"""
NNX_PASSED_IN = """
import jax
import jax.numpy as jnp
import optax
from flax import nnx


model = nnx.Linear(3, 1, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)


@nnx.jit
def update(model, optimizer, x):
    grads = nnx.grad(lambda m: jnp.mean(m(x) ** 2))(model)
    optimizer.update(model, grads)


update(model, optimizer, jnp.ones((4, 3)))
"""


def test_an_nnx_optimizer_a_jitted_closure_updates_is_flagged():
    assert _codes(NNX_CLOSURE) == [(15, "JAX103")]
    error = run_snippet(textwrap.dedent(NNX_CLOSURE)).error
    assert error is not None and "trace level" in str(error)


def test_an_nnx_optimizer_passed_in_is_clean():
    assert _codes(NNX_PASSED_IN) == []
    assert _error_name(NNX_PASSED_IN) is None
    # The same update closing over the module-level objects raises.
    closed = NNX_PASSED_IN.replace("def update(model, optimizer, x):", "def update(x):")
    closed = closed.replace("update(model, optimizer, jnp.ones", "update(jnp.ones")
    # Two faults: `nnx.grad` given the outer model (it raises first, "cannot extract graph
    # node from different trace level") and the outer optimizer's update.
    assert _codes(closed) == [(13, "JAX103"), (14, "JAX103")]
    error = run_snippet(textwrap.dedent(closed)).error
    assert error is not None and "extract graph node from different trace level" in str(error)


EQX_UNANNOTATED = """
import equinox as eqx
import jax
import jax.numpy as jnp


class Linear(eqx.Module):
    weight: jax.Array

    def __init__(self, key):
        self.weight = jax.random.normal(key, (3, 1))

    def __call__(self, x):
        return x @ self.weight


@eqx.filter_jit
def loss(model, x, y):
    err = jax.vmap(model)(x) - y
    if err.mean() > 0:
        return err.mean()
    return -err.mean()
"""
EQX_CALL = "\nout = loss(Linear(jax.random.key(0)), jnp.ones((4, 3)), jnp.zeros((4, 1)))\n"


def test_an_operand_of_a_vmapped_module_under_filter_jit_is_traced():
    # No annotation and no call in the module: `jax.vmap(model)(x)` maps over `x`, an array,
    # whose leaves `eqx.filter_jit` traces.
    assert _codes(EQX_UNANNOTATED) == [(19, "JAX701")]
    assert _error_name(EQX_UNANNOTATED + EQX_CALL) == "TracerBoolConversionError"


def test_a_parameter_never_used_as_an_array_stays_static_under_filter_jit():
    scaled = EQX_UNANNOTATED.replace("def loss(model, x, y):", "def loss(model, x, y, sign=1):")
    scaled = scaled.replace("    if err.mean() > 0:", "    if sign > 0:")
    assert _codes(scaled) == []
    assert _error_name(scaled + EQX_CALL) is None
