"""JAX201 on the items an unpacking assignment assigns (`x[0], x[1] = x[1], x[0]`): each raises
TypeError on a JAX array as `x[0] = v` does; NumPy arrays and lists are left alone."""

from __future__ import annotations

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from tests.runtime import run_snippet

TEXT = """
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def swap(x):
    x[0], x[1] = x[1], x[0]
    return x


def eager_swap():
    y = jnp.arange(3.0)
    y[0], y[2] = y[2], y[0]
    return y


@jax.jit
def unpack_into(x, v):
    x[0], n = v, 3
    return x, n


def numpy_swap():
    z = np.arange(3.0)
    z[0], z[2] = z[2], z[0]
    items = [1, 2]
    items[0], items[1] = items[1], items[0]
    return z, items
"""


def test_each_array_is_flagged_once_at_its_first_item():
    findings = analyze(Document(TEXT), (RULES_BY_CODE["JAX201"],)).findings
    assert [(f.span.start.line, f.span.start.column) for f in findings] == [
        (8, 4),
        (14, 4),
        (20, 4),
    ]
    assert "all at once" in findings[0].message and "all at once" not in findings[2].message
    assert all(f.fix is None for f in findings)


def test_what_jax_does():
    check = """
for call in (lambda: swap(jnp.arange(4.0)), eager_swap, lambda: unpack_into(jnp.zeros(2), 1.0)):
    try:
        call()
    except TypeError:
        continue
    raise AssertionError("ran")
z, items = numpy_swap()
assert z.tolist() == [2.0, 1.0, 0.0] and items == [2, 1]
"""
    assert run_snippet(TEXT, check).error is None
