"""What a framework traces when the model and the training step live in different modules:
a linen module's `__call__` run by a TrainState's `apply_fn`, by `apply` of an instance made
inline (`Net().apply`), with a flag the jitted step passes over its default. Each project is
checked as the editor checks one file and as `check` settles the project; each fails so
under the real library."""

from __future__ import annotations

import textwrap

import jax

from tests.analysis.test_boolean_args import check_codes
from tests.analysis.test_project_traces import codes, write
from tests.runtime import run_snippet

CNN = """
    import flax.linen as nn


    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            if x.max() > 10:
                x = x / 10
            return nn.Dense(2)(x)
"""

TRAIN_STATE = """
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training.train_state import TrainState

    from model import CNN


    @jax.jit
    def train_step(state, x):
        def loss_fn(p):
            return state.apply_fn({"params": p}, x).sum()

        grads = jax.grad(loss_fn)(state.params)
        return state.apply_gradients(grads=grads)


    params = CNN().init(jax.random.key(0), jnp.ones(3))["params"]
    state = TrainState.create(apply_fn=CNN().apply, params=params, tx=optax.sgd(0.1))
    train_step(state, jnp.ones(3))
"""


def test_a_train_state_given_the_apply_of_an_imported_module_made_inline(tmp_path):
    write(tmp_path, {"model.py": CNN, "train.py": TRAIN_STATE})
    assert codes(tmp_path, "model.py") == [(7, "JAX701")]
    assert check_codes(tmp_path) == [("model.py", 7, "JAX701")]


def test_a_train_state_given_the_apply_of_an_imported_module_bound_to_a_name(tmp_path):
    train = TRAIN_STATE.replace(
        "state = TrainState.create(apply_fn=CNN().apply",
        "model = CNN()\n    state = TrainState.create(apply_fn=model.apply",
    )
    write(tmp_path, {"model.py": CNN, "train.py": train})
    assert codes(tmp_path, "model.py") == [(7, "JAX701")]
    assert check_codes(tmp_path) == [("model.py", 7, "JAX701")]


NET_WITH_FLAG = """
    import flax.linen as nn


    class Net(nn.Module):
        @nn.compact
        def __call__(self, x, flag: bool = True):
            if not flag:
                x = -x
            return nn.Dense(2)(x)
"""

STEP_PASSING_FLAG = """
    import jax
    import jax.numpy as jnp

    from model import Net

    model = Net()


    @jax.jit
    def step(params, x, f):
        return model.apply(params, x, f)


    params = model.init(jax.random.key(0), jnp.ones(3))
    step(params, jnp.ones(3), False)
"""


def test_a_flag_a_jitted_step_of_another_module_passes_over_its_default(tmp_path):
    write(tmp_path, {"model.py": NET_WITH_FLAG, "train.py": STEP_PASSING_FLAG})
    assert codes(tmp_path, "model.py") == [(7, "JAX701")]
    assert check_codes(tmp_path) == [("model.py", 7, "JAX701")]


def test_a_flag_left_at_its_default_by_the_other_module_stays_a_python_bool(tmp_path):
    train = STEP_PASSING_FLAG.replace("def step(params, x, f):", "def step(params, x):")
    train = train.replace("model.apply(params, x, f)", "model.apply(params, x)")
    train = train.replace("jnp.ones(3), False)", "jnp.ones(3))")
    write(tmp_path, {"model.py": NET_WITH_FLAG, "train.py": train})
    assert codes(tmp_path, "model.py") == []
    assert check_codes(tmp_path) == []


DENSE = """
    import flax.linen as nn


    class Dense(nn.Module):
        @nn.compact
        def __call__(self, x):
            print("x", x)
            return nn.Dense(2)(x)
"""

RUN_INLINE = """
    import jax
    import jax.numpy as jnp

    from dense import Dense


    @jax.jit
    def run(params, x):
        return Dense().apply(params, x)


    params = Dense().init(jax.random.key(0), jnp.ones(3))
    run(params, jnp.ones(3))
"""


def test_apply_of_an_imported_module_made_inline_under_jit(tmp_path):
    write(tmp_path, {"dense.py": DENSE, "run.py": RUN_INLINE})
    assert codes(tmp_path, "dense.py") == [(7, "JAX101")]
    assert check_codes(tmp_path) == [("dense.py", 7, "JAX101")]


HAIKU_NET = """
    import haiku as hk
    import jax.numpy as jnp


    class Net(hk.Module):
        def __call__(self, x):
            h = hk.Linear(3)(x)
            if jnp.mean(h) > 0:
                h = -h
            return h


    def forward(x):
        return Net()(x)
"""

HAIKU_TRAIN = """
    import haiku as hk
    import jax
    import jax.numpy as jnp

    from net import forward

    model = hk.transform(forward)


    @jax.jit
    def step(params, x):
        return model.apply(params, None, x)


    params = model.init(jax.random.key(0), jnp.ones(3))
    step(params, jnp.ones(3))
"""


def test_haiku_transform_of_a_forward_function_imported_from_another_module(tmp_path):
    write(tmp_path, {"net.py": HAIKU_NET, "train.py": HAIKU_TRAIN})
    assert codes(tmp_path, "net.py") == [(8, "JAX701")]
    assert check_codes(tmp_path) == [("net.py", 8, "JAX701")]


def test_haiku_apply_jitted_directly_of_an_imported_forward_function(tmp_path):
    train = HAIKU_TRAIN.replace(
        "@jax.jit\n    def step(params, x):\n        return model.apply(params, None, x)",
        "step = jax.jit(lambda params, x: model.apply(params, None, x))",
    )
    train = train.replace(
        "step(params, jnp.ones(3))", "jax.jit(model.apply)(params, None, jnp.ones(3))"
    )
    write(tmp_path, {"net.py": HAIKU_NET, "train.py": train})
    assert codes(tmp_path, "net.py") == [(8, "JAX701")]
    assert check_codes(tmp_path) == [("net.py", 8, "JAX701")]


GRID = """
    import jax
    import jax.numpy as jnp


    class Grid:
        def __init__(self):
            self.size = 4

        def step(self, state, action):
            if state.sum() > action:
                state = state - 1
            return state


    step = jax.jit(Grid().step)
    step(jnp.ones(3), 1)
"""


DENSE_HERE = """
    import flax.linen as nn
    import jax
    import jax.numpy as jnp


    class Dense(nn.Module):
        @nn.compact
        def __call__(self, x):
            print("x", x)
            return nn.Dense(2)(x)


    @jax.jit
    def run(params, x):
        return Dense().apply(params, x)


    params = Dense().init(jax.random.key(0), jnp.ones(3))
    run(params, jnp.ones(3))
"""


def test_a_method_of_an_instance_made_inline_is_traced_bound_to_it(tmp_path):
    write(tmp_path, {"grid.py": GRID, "dense.py": DENSE_HERE})
    assert codes(tmp_path, "grid.py") == [(10, "JAX701")]
    assert codes(tmp_path, "dense.py") == [(9, "JAX101")]


GATE = """
    import flax.linen as nn


    class Gate(nn.Module):
        features: int

        @nn.compact
        def __call__(self, x):
            h = nn.Dense(self.features)(x)
            if h.mean() > 0:
                return h
            return -h
"""

GATED_NET = """
    import flax.linen as nn

    from layers import Gate


    class GatedNet(nn.Module):
        def setup(self):
            self.gate = Gate(3)

        def __call__(self, x):
            return self.gate(x)
"""

GATED_MAIN = """
    import jax
    import jax.numpy as jnp

    from net import GatedNet


    def main():
        net = GatedNet()
        x = jnp.ones((2, 4))
        variables = net.init(jax.random.key(0), x)
        return jax.jit(net.apply)(variables, x)
"""


def test_a_sublayer_its_setup_stores_runs_in_the_trace_of_the_module(tmp_path):
    """`self.gate = Gate(3)` in `setup`, then `self.gate(x)` in `__call__`: jitting the
    outer module's `apply` traces the imported layer's `__call__` (and under flax raises
    TracerBoolConversionError there)."""
    write(tmp_path, {"layers.py": GATE, "net.py": GATED_NET, "main.py": GATED_MAIN})
    assert codes(tmp_path, "layers.py") == [(10, "JAX701")]
    assert check_codes(tmp_path) == [("layers.py", 10, "JAX701")]
    imports = ("from layers import Gate", "from net import GatedNet")
    texts = [textwrap.dedent(text) for text in (GATE, GATED_NET, GATED_MAIN)]
    program = "\n".join(t.replace(imports[0], "").replace(imports[1], "") for t in texts)
    outcome = run_snippet(program + "\nmain()\n")
    assert isinstance(outcome.error, jax.errors.TracerBoolConversionError)


SCALER = """
    import equinox as eqx
    import jax


    class Scaler(eqx.Module):
        weight: jax.Array

        def __init__(self, key):
            self.weight = jax.random.normal(key, (3,))

        def __call__(self, x):
            y = self.weight * x
            if y.sum() > 0:
                return y
            return -y
"""

FILTERED_LOSS = """
    import equinox as eqx


    @eqx.filter_jit
    def loss(model, x):
        return model(x).sum()
"""

SCALER_MAIN = """
    import jax
    import jax.numpy as jnp

    from scaler import Scaler
    from steps import loss


    def main():
        model = Scaler(jax.random.key(0))
        return loss(model, jnp.ones(3))
"""


def test_an_equinox_module_passed_to_a_filter_jit_of_another_module(tmp_path):
    """`main` passes a `Scaler` (an `eqx.Module` of a third module) to `loss`, which
    `eqx.filter_jit` traces in `steps`: the module's array leaves are traced, so its
    `__call__` runs in the trace (and under equinox raises TracerBoolConversionError)."""
    files = {"scaler.py": SCALER, "steps.py": FILTERED_LOSS, "main.py": SCALER_MAIN}
    write(tmp_path, files)
    assert codes(tmp_path, "scaler.py") == [(13, "JAX701")]
    assert check_codes(tmp_path) == [("scaler.py", 13, "JAX701")]
    imports = ("from scaler import Scaler", "from steps import loss")
    texts = [textwrap.dedent(text) for text in files.values()]
    program = "\n".join(t.replace(imports[0], "").replace(imports[1], "") for t in texts)
    outcome = run_snippet(program + "\nmain()\n")
    assert isinstance(outcome.error, jax.errors.TracerBoolConversionError)
