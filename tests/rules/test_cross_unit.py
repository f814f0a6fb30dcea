"""Findings that depend on other top-level statements are recomputed when those change."""

from __future__ import annotations

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze


def _codes(text: str, code: str) -> list[tuple[int, str]]:
    findings = analyze(Document(text), (RULES_BY_CODE[code],)).findings
    return [(f.span.start.line, f.code) for f in findings]


def test_module_level_shape_change_updates_the_read():
    read = "import jax.numpy as jnp\nx = jnp.arange({n})\ny = x[11]\n"
    assert _codes(read.format(n=10), "JAX301") == [(2, "JAX301")]
    assert _codes(read.format(n=20), "JAX301") == []
    # The read sees the binding before it: a rebinding after it changes nothing, one before
    # it (in another statement) gives the read the new shape.
    assert _codes(read.format(n=10) + "x = jnp.arange(20)\n", "JAX301") == [(2, "JAX301")]
    rebound = read.format(n=10).replace("y = ", "x = jnp.arange(20)\ny = ")
    assert _codes(rebound, "JAX301") == []


def test_registration_in_another_statement_silences_jax401():
    source = (
        "import jax\n"
        "class Model:\n"
        "    def __init__(self, w):\n"
        "        self.w = w\n"
        "    @jax.jit\n"
        "    def apply(self, x):\n"
        "        return self.w * x\n"
    )
    assert _codes(source, "JAX401") == [(4, "JAX401")]
    registered = source + (
        "jax.tree_util.register_pytree_node(Model, lambda m: ((m.w,), None), "
        "lambda aux, c: Model(*c))\n"
    )
    assert _codes(registered, "JAX401") == []
    assert _codes(source + "custom_register(Model)\n", "JAX401") == []
