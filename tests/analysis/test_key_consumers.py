"""What consumes a PRNG key (analysis.keys): flax's `rngs`, and closures a function uses."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.keys import consumed_params, consumer_key
from jax_lsp.analysis.model import ModuleModel

_HEADER = "import jax\nimport flax.linen as nn\nfrom flax import nnx\n"


def _call(expression: str) -> tuple[ast.Call, ModuleModel]:
    model = ModuleModel(Document(_HEADER + expression + "\n"))
    call = model.document.units[-1].tree.body[0].value
    assert isinstance(call, ast.Call)
    return call, model


@pytest.mark.parametrize(
    ("expression", "key"),
    [
        ("nnx.Rngs(key)", "key"),
        ("nnx.Rngs(dropout=key)", "key"),
        ("nnx.Rngs(0)", None),  # a seed
        ("nnx.Rngs(params=0, dropout=key)", "key"),
        ("model.apply(variables, x, rngs={'dropout': key})", "key"),
        ("model.apply(variables, x)", None),
        ("model.apply(variables, x, rngs=streams)", None),  # a dict we cannot read
        ("jax.random.normal(key, (2,))", "key"),
        ("jax.random.fold_in(key, 1)", None),
    ],
)
def test_consumer_key_names_the_key_flax_draws_from(expression, key):
    call, model = _call(expression)
    found = consumer_key(call, model.resolver)
    assert (ast.unparse(found) if found is not None else None) == key


def _consumed(source: str) -> frozenset[str]:
    model = ModuleModel(Document(textwrap.dedent(source)))
    function = model.functions["step"].node
    return consumed_params(function, lambda call: consumer_key(call, model.resolver))


def test_a_closure_drawing_from_a_parameter_consumes_it_when_the_body_uses_it():
    source = """
        import jax

        def step(params, key):
            def loss_fn(p):
                return model.apply(p, x, rngs={"dropout": key}).sum()

            return jax.grad(loss_fn)(params)
        """
    assert _consumed(source) == {"key"}


@pytest.mark.parametrize(
    "body",
    [
        # never used: nothing draws
        "def loss_fn(p):\n    return jax.random.normal(key, p.shape)\nreturn params",
        # rebound before: the closure draws from another key
        "key = jax.random.fold_in(key, 1)\n"
        "def loss_fn(p):\n    return jax.random.normal(key, p.shape)\nreturn loss_fn(params)",
    ],
)
def test_a_closure_unused_or_drawing_from_a_rebound_name_consumes_no_parameter(body):
    source = "import jax\n\ndef step(params, key):\n" + textwrap.indent(body, "    ") + "\n"
    assert _consumed(source) == frozenset()
