"""What flax nnx's transformations trace, as the code lens shows it: they take arguments as
`jax.*` does (a Python number given `nnx.jit` is a tracer, unlike `eqx.filter_jit`), and only
a module's plain attributes stay static. The rows run under the real library in
`tests/rules/framework_programs/` (`nnx_jit_number`, `nnx_vmap_number`, ...)."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.config import Settings
from jax_lsp.engine import check_source, traced_functions


def _lens(text: str) -> dict[str, str]:
    analysis = check_source(textwrap.dedent(text), "lens.py", Settings())
    return {function.name: function.summary() for function in traced_functions(analysis)}


@pytest.mark.parametrize(
    ("transform", "summary"),
    [
        ("nnx.jit(f)", "nnx.jit · traced: x, limit"),
        ("nnx.jit(f, static_argnames='limit')", "nnx.jit · traced: x · static: limit"),
        ("nnx.remat(f)", "nnx.remat · traced: x, limit"),
        ("nnx.vmap(f, in_axes=(0, None))", "nnx.vmap · traced: x"),
        ("nnx.vmap(f)", "nnx.vmap · traced: x, limit"),
        ("nnx.scan(f, in_axes=(nnx.Carry, None))", "nnx.scan · traced: x, limit"),
        ("nnx.grad(f)", "nnx.grad · traced: x"),
        ("nnx.value_and_grad(f, argnums=1)", "nnx.value_and_grad · traced: limit"),
        ("eqx.filter_jit(f)", "eqx.filter_jit · traced: x"),
    ],
)
def test_the_lens_names_what_each_transformation_traces(transform: str, summary: str):
    text = f"""
    import equinox as eqx
    import jax.numpy as jnp
    from flax import nnx

    def f(x, limit):
        return x * limit

    out = {transform}(jnp.ones(3), 1.0)
    """
    assert _lens(text)["f"] == summary


def test_a_number_through_a_helper_under_nnx_jit_is_flagged_and_module_attributes_are_not():
    text = """
    import jax.numpy as jnp
    from flax import nnx

    def scale(h, factor):
        if factor > 1:
            return h * factor
        return h

    class Net(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(3, 3, rngs=rngs)
            self.depth = 2

        def __call__(self, x):
            if self.depth > 1:
                x = x + 1
            return self.lin(x)

    @nnx.jit
    def step(model, x, factor):
        if model.depth > 1:
            x = x * 2
        return scale(model(x), factor)

    step(Net(nnx.Rngs(0)), jnp.ones(3), 2.0)
    """
    analysis = check_source(textwrap.dedent(text), "helper.py", Settings())
    assert [(f.code, f.span.start.line) for f in analysis.findings] == [("JAX701", 5)]
