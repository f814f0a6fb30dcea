"""What the model follows into traced code beyond direct calls, in one module and across the
modules of a project: a transformation of a parameter that holds a model, a value carried
through a loop of layers, an optimizer made in another module, a function given as an
argument. Each shape is checked in a single file and split over modules."""

from __future__ import annotations

import textwrap

from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from tests.analysis.test_project_traces import check, codes, write


def single(text: str) -> list[tuple[int, str]]:
    analysis = check_source(textwrap.dedent(text).lstrip("\n"), "module.py", Settings())
    return [(f.span.start.line + 1, f.code) for f in analysis.findings]


def traced_params(text: str, name: str) -> frozenset[str] | None:
    analysis = check_source(textwrap.dedent(text).lstrip("\n"), "module.py", Settings())
    return _traced(analysis, name)


def _traced(analysis, name: str) -> frozenset[str] | None:
    for node, info in analysis.model.trace.items():
        if getattr(node, "name", None) == name:
            return info.traced_params
    return None


# -- a transformation applied to a parameter holding a model ------------------------------
NET = """
    import equinox as eqx
    import jax
    import numpy as np


    class Net(eqx.Module):
        linear: eqx.nn.Linear

        def __init__(self, key):
            self.linear = eqx.nn.Linear(3, 1, key=key)

        def __call__(self, x):
            x = x / np.linalg.norm(x)
            return self.linear(x)[0]
"""

STEP = """
    @eqx.filter_jit
    def make_step(model, x, y):
        def loss_fn(m):
            pred = eqx.filter_vmap(m)(x)
            return jnp.mean((pred - y) ** 2)

        return eqx.filter_value_and_grad(loss_fn)(model)


    def main():
        model = Net(jax.random.key(0))
        return make_step(model, jnp.ones((4, 3)), jnp.ones(4))
"""


def test_a_transformed_parameter_holding_a_model_runs_its_call():
    text = NET + "\n\n    import jax.numpy as jnp\n" + STEP
    assert (13, "JAX703") in single(text)


def test_a_transformed_parameter_given_nothing_known_traces_nothing():
    text = (
        NET + "\n\n    import jax.numpy as jnp\n" + STEP.replace("Net(jax.random.key(0))", "load()")
    )
    assert single(text) == []


def test_a_transformed_parameter_holding_an_imported_model(tmp_path):
    imports = "\n    import equinox as eqx\n    import jax\n    import jax.numpy as jnp\n\n"
    write(
        tmp_path,
        {"net.py": NET, "train.py": imports + "    from net import Net\n" + STEP},
    )
    assert codes(tmp_path, "net.py") == [(13, "JAX703")]
    assert codes(tmp_path, "train.py") == []


# -- a value carried through a loop of layers ---------------------------------------------
LOOP = """
    import jax
    import jax.numpy as jnp


    def scale(h):
        if jnp.any(h > 1.0):
            return h / 2
        return h


    def apply_all(layers, x):
        for layer in layers:
            x = layer(x)
        return scale(x)


    @jax.jit
    def step(x):
        for _ in range(3):
            x = jnp.tanh(x)
            x = scale(x)
        return x
"""


def test_a_tracer_on_the_first_pass_through_a_loop_stays_traced():
    # `scale(x)` gets a tracer on the first pass, what `scale` returned on the later ones.
    assert traced_params(LOOP, "scale") == frozenset({"h"})


def test_the_merged_value_after_the_loop_is_unchanged():
    text = """
        import jax


        def helper(x):
            return x


        @jax.jit
        def step(x):
            for _ in range(3):
                x = unknown(x)
            return helper(x)
    """
    # `x` after the loop may be what `unknown` made: the loop's first pass says nothing of it.
    assert traced_params(text, "helper") == frozenset()


LAYERS = """
    import jax.numpy as jnp
    from flax import nnx


    class Residual(nnx.Module):
        def __init__(self, dim, rngs: nnx.Rngs):
            self.linear = nnx.Linear(dim, dim, rngs=rngs)

        def __call__(self, x):
            if jnp.isnan(x).any():
                raise FloatingPointError("NaN")
            return x + self.linear(x)
"""

STACK = """
    class Stack(nnx.Module):
        def __init__(self, dim, rngs: nnx.Rngs):
            self.layers = nnx.List([Residual(dim, rngs) for _ in range(3)])

        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x


    @nnx.jit
    def forward(model, x):
        return model(x)


    forward(Stack(4, nnx.Rngs(0)), jnp.ones((2, 4)))
"""


def test_a_list_of_imported_layers_is_called_with_the_carried_tracer(tmp_path):
    stack = "\n    import jax.numpy as jnp\n    from flax import nnx\n\n"
    stack += "    from layers import Residual\n"
    write(tmp_path, {"layers.py": LAYERS, "stack.py": stack + STACK})
    assert codes(tmp_path, "layers.py") == [(10, "JAX701")]
    assert _traced(check(tmp_path, "layers.py"), "__call__") == frozenset({"x"})


# -- an optimizer made in another module --------------------------------------------------
TRANSFORMS = """
    import jax.numpy as jnp
    import optax


    def scale_by_norm():
        def init_fn(params):
            return optax.EmptyState()

        def update_fn(updates, state, params=None):
            norm = float(jnp.linalg.norm(updates))
            return updates / (norm + 1.0), state

        return optax.GradientTransformation(init_fn, update_fn)


    def make_optimizer(lr):
        return optax.chain(scale_by_norm(), optax.sgd(lr))
"""

TRAIN = """
    import jax
    import optax

    from transforms import make_optimizer

    tx = make_optimizer(0.1)


    @jax.jit
    def step(params, grads, opt_state):
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state
"""


def test_an_update_function_runs_where_the_optimizer_is_updated():
    text = TRANSFORMS + TRAIN.replace("from transforms import make_optimizer", "")
    assert single(text) == [(10, "JAX703")]


def test_an_optimizer_made_by_an_imported_function_traces_its_update_there(tmp_path):
    write(tmp_path, {"transforms.py": TRANSFORMS, "train.py": TRAIN})
    analysis = check(tmp_path, "transforms.py")
    assert [(f.span.start.line + 1, f.code) for f in analysis.findings] == [(10, "JAX703")]
    assert "in `step` in train.py" in analysis.findings[0].message
    assert codes(tmp_path, "train.py") == []


def test_an_optimizer_updated_outside_any_trace_traces_nothing(tmp_path):
    write(tmp_path, {"transforms.py": TRANSFORMS, "train.py": TRAIN.replace("@jax.jit\n", "")})
    assert codes(tmp_path, "transforms.py") == []


# -- a function given as an argument ------------------------------------------------------
LAYER = """
    import jax


    def dense(w, x, activation=jax.nn.relu):
        y = activation(x @ w)
        print("activations", y)
        return y
"""

MODEL = """
    import jax

    from layer import dense


    @jax.jit
    def forward(w, x):
        return dense(w, dense(w, x), activation=lambda h: h)
"""


def test_a_parameter_given_array_functions_computes_a_tracer():
    assert single(LAYER + MODEL.replace("from layer import dense", "")) == [(6, "JAX101")]


def test_a_parameter_given_another_function_computes_nothing_known():
    text = LAYER + MODEL.replace("from layer import dense", "").replace("lambda h: h", "str")
    assert single(text) == []


def test_a_parameter_given_array_functions_by_another_module(tmp_path):
    write(tmp_path, {"layer.py": LAYER, "model.py": MODEL})
    assert codes(tmp_path, "layer.py") == [(6, "JAX101")]
    # A default of no array function, left alone by a call: nothing known of the result.
    write(tmp_path, {"layer.py": LAYER.replace("jax.nn.relu", "None")})
    assert codes(tmp_path, "layer.py") == []
