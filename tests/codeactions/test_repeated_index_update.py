"""JAX202's `x[idx] += v` -> `x = x.at[idx].add(v)`: the same numbers as NumPy's in-place
update only where the index reaches each position once. An integer array may repeat one:
NumPy adds once per distinct position, `.at[].add` once per occurrence, so that fix is unsafe.
Each fixed program runs under JAX beside the NumPy program the user wrote."""

from __future__ import annotations

import numpy as np
import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from jax_lsp.findings import Applicability
from tests.runtime import run_snippet

RULES = (RULES_BY_CODE["JAX202"],)

PROGRAM = """
import jax
import jax.numpy as jnp
import numpy as np

idx = np.array([0, 0, 2])
k = 1
x = jnp.arange(8.0).reshape(4, 2)
UPDATE
out = x
"""


def _findings(text: str):
    return analyze(Document(text), RULES).findings


def _numpy_result(update: str) -> list:
    """What the NumPy program computes (the user's intent)."""
    text = PROGRAM.replace("jnp.arange(8.0)", "np.arange(8.0)").replace("UPDATE", update)
    outcome = run_snippet(text)
    assert outcome.error is None, outcome.error
    return np.asarray(outcome.namespace["out"]).tolist()


@pytest.mark.parametrize(
    "update",
    [
        "x[1] += 1.0",
        "x[-1, 0] *= 3.0",
        "x[1:3] -= 1.0",
        "x[:, None] += 1.0",
        "x[...] += 2.0",
        "x[k] += 5.0",
        "x[x > 3] *= 2.0",  # a boolean mask: each position once
        "x[2] = jnp.minimum(x[2], 1.0)",
    ],
)
def test_safe_where_each_position_is_reached_once(update):
    text = PROGRAM.replace("UPDATE", update)
    (finding,) = _findings(text)
    assert finding.fix.applicability is Applicability.SAFE
    fixed, count = fix_text(text, _findings)
    assert count == 1 and ".at[" in fixed
    outcome = run_snippet(fixed)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert outcome.namespace["out"].tolist() == _numpy_result(update)


@pytest.mark.parametrize(
    "update",
    [
        "x[idx] += 1.0",
        "x[idx, 1] *= 3.0",
        "x[jnp.array([0, 0])] -= 1.0",
        "x[idx, 0] = jnp.minimum(x[idx, 0], jnp.array([-2.0, -1.0, 0.0]))",
    ],
)
def test_unsafe_where_an_integer_array_may_repeat_a_position(update):
    text = PROGRAM.replace("UPDATE", update)
    (finding,) = _findings(text)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_text(text, _findings) == (text, 0)  # fix-all leaves it
    fixed, _ = fix_text(text, _findings, unsafe=True)
    outcome = run_snippet(fixed)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    # Why (measured): the repeated position is updated twice, where NumPy updates it once.
    assert outcome.namespace["out"].tolist() != _numpy_result(update)


def test_a_traced_index_of_unknown_shape_is_unsafe():
    text = """
import jax
import jax.numpy as jnp


@jax.jit
def bump(x, idx):
    x[idx] += 1.0
    return x
"""
    (finding,) = _findings(text)
    assert finding.fix.applicability is Applicability.UNSAFE


def test_the_items_of_a_vector_are_scalars():
    text = """
import jax.numpy as jnp

labels = jnp.array([0, 2, 1, 2, 2])
counts = jnp.zeros(3, dtype=jnp.int32)
for label in labels:
    counts[label] += 1
"""
    (finding,) = _findings(text)
    assert finding.fix.applicability is Applicability.SAFE
    fixed, _ = fix_text(text, _findings)
    outcome = run_snippet(fixed)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert outcome.namespace["counts"].tolist() == [1, 1, 3]
    rows = text.replace("jnp.array([0, 2, 1, 2, 2])", "jnp.array([[0, 0], [2, 1]])")
    (finding,) = _findings(rows)
    assert finding.fix.applicability is Applicability.UNSAFE  # each item a pair: may repeat
