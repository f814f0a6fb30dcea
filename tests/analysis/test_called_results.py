"""Results of calls the model cannot see into, inside traced code: a module called on traced
values (`model(x)` under `nnx.jit` / `eqx.filter_jit`, linen `apply`), and callables made by a
library (an optax schedule). Each program runs under real JAX: what is flagged raises, what
stays clean runs."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

MODULE_HEAD = """
{imports}


class {name}({base}):
{members}

    def __call__(self, x):
        return {result}


model = {name}({arguments})
x = jnp.ones((2, 3))
"""


def _module_head(imports: str, name: str, base: str, members: str, arguments: str) -> str:
    parts = {"imports": imports, "name": name, "base": base, "arguments": arguments}
    head = MODULE_HEAD.replace("{members}", textwrap.indent(textwrap.dedent(members), "    "))
    for key, value in parts.items():
        head = head.replace("{" + key + "}", value)
    return head


NNX_HEAD = _module_head(
    "import jax.numpy as jnp\nfrom flax import nnx",
    "Model",
    "nnx.Module",
    """
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 3, rngs=rngs)""",
    "nnx.Rngs(0)",
)
EQX_HEAD = _module_head(
    "import jax, jax.numpy as jnp\nimport equinox as eqx",
    "MLP",
    "eqx.Module",
    "w: jax.Array",
    "jnp.eye(3)",
)

LINEN_HEAD = """
import jax, jax.numpy as jnp, optax
import flax.linen as nn
from flax.training import train_state


class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(3)(x)


net = Net()
params = net.init(jax.random.PRNGKey(0), jnp.ones((2, 3)))
state = train_state.TrainState.create(apply_fn=net.apply, params=params, tx=optax.sgd(0.1))
x = jnp.ones((2, 3))
"""


def _program(head: str, result: str, body: str) -> str:
    return textwrap.dedent(head).replace("{result}", result) + textwrap.dedent(body)


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source)]


def _line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines()) if text in line)  # 0-based


# -- a module called on traced values gives an array ----------------------------------------
NNX_ASSIGN = """
@nnx.jit
def f(model, x):
    out = model(x)
    out[:, 0] = 0.0
    return out


f(model, x)
"""
EQX_MASK = """
@eqx.filter_jit
def f(model: MLP, x):
    out = model(x)
    return out[out > 0].sum()


f(model, x)
"""
EQX_ASSIGN = """
@eqx.filter_jit
def f(model: eqx.Module, x):
    out = model(x)
    out[..., 0] = 0.0
    return out


f(model, x)
"""
LINEN_APPLY = """
@jax.jit
def f(params, x):
    out = net.apply(params, x)
    out[:, 0] = 0.0
    return out


f(params, x)
"""
INVALID = [
    pytest.param(NNX_HEAD, "self.linear(x)", NNX_ASSIGN, "out[:, 0]", "JAX201", id="nnx-jit"),
    pytest.param(EQX_HEAD, "x @ self.w", EQX_MASK, "out[out", "JAX801", id="eqx-class"),
    pytest.param(EQX_HEAD, "x @ self.w", EQX_ASSIGN, "out[..., 0]", "JAX201", id="eqx-module"),
    pytest.param(LINEN_HEAD, "", LINEN_APPLY, "out[:, 0]", "JAX201", id="linen-apply"),
]
_ERRORS = {"JAX201": "TypeError", "JAX801": "NonConcreteBooleanIndexError"}


@pytest.mark.parametrize(("head", "result", "body", "line_text", "code"), INVALID)
def test_a_module_output_used_as_a_jax_array_is_found_and_raises(
    head: str, result: str, body: str, line_text: str, code: str
):
    source = _program(head, result, body)
    assert _codes(source) == [(_line_of(source, line_text), code)]
    assert type(run_snippet(source).error).__name__ == _ERRORS[code]


# -- ... but a module returning a container gives that container -----------------------------
CONTAINER_OUTPUTS = [
    pytest.param(NNX_HEAD, "[self.linear(x), x]", "out[0] = out[0] * 2.0", id="nnx-list"),
    pytest.param(NNX_HEAD, '{"logits": self.linear(x)}', 'out["logits"] = 0.0', id="nnx-dict"),
    pytest.param(EQX_HEAD, '{"y": x @ self.w}', 'out["y"] = out["y"] + 1.0', id="eqx-dict"),
]


@pytest.mark.parametrize(("head", "result", "line"), CONTAINER_OUTPUTS)
def test_item_assignment_on_a_module_output_container_is_clean_and_runs(
    head: str, result: str, line: str
):
    transform = "nnx.jit" if head is NNX_HEAD else "eqx.filter_jit"
    body = f"""
    @{transform}
    def f(model: {"MLP" if head is EQX_HEAD else "Model"}, x):
        out = model(x)
        {line}
        return out


    f(model, x)
    """
    source = _program(head, result, body)
    assert _codes(source) == []
    assert run_snippet(source).error is None


def test_a_static_function_given_to_a_filtered_jit_is_not_a_module():
    # `fn` may be any Python function (eqx.filter_jit keeps it static): its result is not
    # known to be an array, so indexing it the way a tuple is indexed stays clean.
    source = _program(
        EQX_HEAD,
        "x @ self.w",
        """
        @eqx.filter_jit
        def f(fn, x):
            out = fn(x)
            return out[0] + 1


        f(lambda v: (v, v), x)
        """,
    )
    assert _codes(source) == []
    assert run_snippet(source).error is None


# -- callables made by a library ----------------------------------------------------------
SCHEDULE = """
import jax, optax

schedule = optax.{make}


@jax.jit
def f(step):
    return float(schedule(step))


f(3)
"""


@pytest.mark.parametrize(
    "make",
    [
        "exponential_decay(0.1, transition_steps=10, decay_rate=0.9)",
        "warmup_cosine_decay_schedule(0.0, 0.1, 10, 100)",
        "schedules.linear_schedule(0.1, 0.0, 100)",
    ],
)
def test_float_of_a_schedule_of_a_traced_step_is_found_and_raises(make: str):
    source = SCHEDULE.replace("{make}", make)
    assert _codes(source) == [(8, "JAX703")]
    assert type(run_snippet(source).error).__name__ == "ConcretizationTypeError"


def test_a_constant_schedule_gives_its_python_value_and_runs():
    source = SCHEDULE.replace("{make}", "constant_schedule(0.1)")
    assert _codes(source) == []
    assert run_snippet(source).error is None


def test_a_schedule_called_outside_any_trace_is_clean_and_runs():
    source = SCHEDULE.replace("{make}", "exponential_decay(0.1, 10, 0.9)").replace("@jax.jit\n", "")
    assert _codes(source) == []
    assert run_snippet(source).error is None


def test_an_initializer_made_by_jax_nn_gives_a_traced_array_under_jit():
    source = textwrap.dedent(
        """
        import jax

        init = jax.nn.initializers.normal(0.1)


        @jax.jit
        def f(key):
            w = init(key, (3,))
            w[0] = 0.0
            return w


        f(jax.random.PRNGKey(0))
        """
    )
    assert _codes(source) == [(9, "JAX201")]
    assert type(run_snippet(source).error).__name__ == "TypeError"


def test_a_function_static_under_nnx_jit_is_no_module():
    # Only a graph node reaches nnx.jit as an argument, unless it is static: then any callable.
    source = _program(
        NNX_HEAD,
        "self.linear(x)",
        """
        import functools


        @functools.partial(nnx.jit, static_argnames="make")
        def f(model, x, make):
            if make:
                x = make(x)
            return model(x)


        f(model, x, jnp.tanh)
        """,
    )
    assert _codes(source) == []
    assert run_snippet(source).error is None


# -- a call the model resolves to a method of the module gives what the method returns ------
TRAIN_STATE_PRINT = """
@jax.jit
def train_step(state, x):
    def loss_fn(params):
        preds = state.apply_fn(params, x)
        print(preds)
        return jnp.mean(preds**2)

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


train_step(state, x)
"""


def test_a_print_of_what_a_train_states_apply_fn_returns_is_found_and_prints_a_tracer():
    # `state.apply_fn` runs `Net.__call__`, whose `nn.Dense(3)(x)` is an array: a tracer here.
    source = _program(LINEN_HEAD, "", TRAIN_STATE_PRINT)
    assert _codes(source) == [(_line_of(source, "print(preds)"), "JAX101")]
    outcome = run_snippet(source)
    assert outcome.error is None and "Tracer" in outcome.stdout


SHAPE_HELPER = """
import jax
import jax.numpy as jnp


class Grid:
    def width(self, x):
        return x.shape[-1]

    def step(self, x):
        n = self.width(x)
        print("width", n)
        return jnp.ones(n) + x


grid = Grid()
out = jax.jit(grid.step)(jnp.ones(3))
"""


def test_a_method_returning_a_shape_gives_a_python_value_and_the_print_is_clean():
    assert _codes(SHAPE_HELPER) == []
    outcome = run_snippet(SHAPE_HELPER)
    assert outcome.error is None and "width 3" in outcome.stdout
