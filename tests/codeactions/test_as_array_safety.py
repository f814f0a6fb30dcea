"""JAX501's `jnp.asarray(...)` wrap: safe for a list of Python numbers alone in the call; unsafe
beside a JAX array (run under JAX: a bfloat16 array is widened to float32 by the wrapped list,
where Python numbers keep its dtype) and for a list holding arrays (shapes may not agree)."""

from __future__ import annotations

import pytest

from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from tests.runtime import run_snippet

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"


def _fix(source: str):
    (finding,) = [
        f for f in check_source(source, "a.py", Settings()).findings if f.code == "JAX501"
    ]
    assert finding.fix is not None
    return finding.fix


def test_a_list_of_numbers_alone_is_safe():
    source = HEADER + "total = jnp.sum([1.0, 2.0, -3])\n"
    fix = _fix(source)
    assert fix.is_safe
    outcome = run_snippet(apply_edits(source, fix.edits), "assert float(total) == 0.0")
    assert outcome.error is None, outcome.error


def test_beside_a_traced_array_the_wrap_may_widen_its_dtype():
    source = HEADER + (
        "@jax.jit\ndef clip_low(x):\n    return jnp.maximum(x, [0.0, 1.0])\n\n\n"
        "y = clip_low(jnp.ones(2, jnp.bfloat16))\n"
    )
    fix = _fix(source)
    assert not fix.is_safe
    outcome = run_snippet(apply_edits(source, fix.edits), "assert y.dtype == jnp.float32")
    assert outcome.error is None, outcome.error  # numbers would have kept bfloat16:
    kept = run_snippet(HEADER + "y = jnp.maximum(jnp.ones(2, jnp.bfloat16), 0.0)")
    assert kept.namespace["y"].dtype == kept.namespace["jnp"].bfloat16


@pytest.mark.parametrize("element", ["x", "x * 2"])
def test_a_list_holding_a_traced_array_is_unsafe(element: str):
    source = HEADER + (
        f"@jax.jit\ndef total(x):\n    return jnp.sum([{element}, 1.0])\n\n\n"
        "t = total(jnp.ones(3))\n"
    )
    fix = _fix(source)
    assert not fix.is_safe
    outcome = run_snippet(apply_edits(source, fix.edits))
    assert isinstance(outcome.error, TypeError)  # a vector and a number make no array
