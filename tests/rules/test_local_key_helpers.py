"""JAX602 through the functions a function defines (or jits) for itself: a training step
nested in `train`, given the same key on every iteration, draws the same numbers each time
(its dropout mask too, through flax's `apply(..., rngs=)`)."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics.random import PrngKeyReuse
from jax_lsp.engine import analyze


def _flagged_lines(source: str) -> list[str]:
    source = textwrap.dedent(source)
    lines = source.split("\n")
    findings = analyze(Document(source), (PrngKeyReuse,)).findings
    return [lines[f.span.start.line].strip() for f in findings]


NESTED_LINEN_STEP = """
import flax.linen as nn
import jax
import optax


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x, *, train: bool):
        x = nn.Dense(8)(x)
        return nn.Dropout(0.5, deterministic=not train)(x)


def train(x, n_steps, seed=0):
    model = Classifier()
    params_rng, dropout_rng = jax.random.split(jax.random.PRNGKey(seed))
    params = model.init(params_rng, x, train=False)["params"]

    @jax.jit
    def step(params, dropout_rng):
        def loss_fn(params):
            out = model.apply({"params": params}, x, train=True, rngs={"dropout": dropout_rng})
            return out.mean()

        return jax.grad(loss_fn)(params)

    for i in range(n_steps):
        params = step(params, {given})
    return params
"""


def test_nested_linen_step_given_one_dropout_key_every_iteration():
    pytest.importorskip("flax")
    flagged = _flagged_lines(NESTED_LINEN_STEP.replace("{given}", "dropout_rng"))
    assert flagged == ["params = step(params, dropout_rng)"]


def test_nested_linen_step_given_a_folded_key_is_clean():
    pytest.importorskip("flax")
    given = "jax.random.fold_in(dropout_rng, i)"
    assert _flagged_lines(NESTED_LINEN_STEP.replace("{given}", given)) == []


def test_a_local_jit_of_a_drawing_helper_and_the_helper_itself_in_loops():
    source = """
    import jax


    def draw(key, x):
        return x + jax.random.normal(key, x.shape)


    def train(x, key):
        step = jax.jit(draw)
        for i in range(10):
            x = step(key, x)
        for i in range(10):
            x = draw(key, x)
        return x
    """
    assert _flagged_lines(source) == ["x = step(key, x)", "x = draw(key, x)"]


def test_a_module_level_jit_of_a_drawing_helper_in_a_loop():
    source = """
    import jax


    def draw(key, x):
        return x + jax.random.normal(key, x.shape)


    jitted_draw = jax.jit(draw)


    def train(x, key):
        for i in range(10):
            x = jitted_draw(key, x)
        return x


    def train_folded(x, key):
        for i in range(10):
            x = jitted_draw(jax.random.fold_in(key, i), x)
        return x
    """
    assert _flagged_lines(source) == ["x = jitted_draw(key, x)"]


CLEAN = {
    "a nested step that draws nothing hides the module's drawing helper": """
        def shadow(x, key):
            def step(x, k):
                return x * 2

            for i in range(3):
                x = step(x, key)
            return x
    """,
    "a nested step that splits and hands back the new key": """
        def carried(x, key):
            def step(x, k):
                k, sub = jax.random.split(k)
                return x + jax.random.normal(sub, x.shape), k

            for i in range(3):
                x, key = step(x, key)
            return x
    """,
    "a nested step reading its key only when training, called with train=False": """
        def evaluate(x, key):
            def forward(x, k, train):
                if train:
                    x = x + jax.random.normal(k, x.shape)
                return x

            for i in range(3):
                x = forward(x, key, False)
            return x
    """,
    "a name bound twice is not followed": """
        def twice(x, key, fast):
            step = jax.jit(step)
            if fast:
                step = lambda k, x: x
            for i in range(3):
                x = step(key, x)
            return x
    """,
}


@pytest.mark.parametrize("name", list(CLEAN))
def test_local_functions_that_use_no_key_again_are_clean(name):
    header = """
    import jax


    def step(x, key):
        return x + jax.random.normal(key, x.shape)

    """
    source = textwrap.dedent(header) + textwrap.dedent(CLEAN[name])
    compile(source, name, "exec")
    assert _flagged_lines(source) == []
