"""JAX701 on `any()` / `all()` / `sorted()` of a traced array: each program runs under real
JAX, and what is flagged raises while what stays clean runs."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

PROGRAM = """
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def f(x: jax.Array, table):
    y = x * 2.0
    return {body}


out = f(jnp.array([1.0, 2.0]), {"b": 1.0, "a": 2.0})
"""

FLAGGED = [
    ("jnp.where(any(y <= 0), 0.0, 1.0)", True),
    ("jnp.where(all(y > 0), 0.0, 1.0)", True),
    ("sorted(y)[0]", True),
    ("jnp.where(not any(y > 0), 0.0, 1.0)", False),  # `not` tests the result: no rewrite
    ("1.0 if all(x > 0) else 0.0", False),
    ("sorted(x)[0]", True),  # a parameter annotated as an array
]
CLEAN = [
    "jnp.where(jnp.any(y <= 0), 0.0, 1.0)",
    "y + any(np.ones(3) > 0) + all([True, False])",
    "y + sum(table[k] for k in sorted(table))",  # a dict parameter: its keys are iterated
    "y + sorted(y, key=lambda v: 0)[0]",  # `key=` compares the key's results
]


def _source(body: str) -> str:
    return textwrap.dedent(PROGRAM).replace("{body}", body)


@pytest.mark.parametrize(("body", "rewritten"), FLAGGED)
def test_builtin_iterating_a_traced_array_is_found_and_raises(body: str, rewritten: bool):
    source = _source(body)
    findings = [f for f in findings_of(source) if f.code == "JAX701"]
    assert [f.span.start.line for f in findings] == [9]
    assert (findings[0].fix is not None) is rewritten
    error = run_snippet(source).error
    assert type(error).__name__ == "TracerBoolConversionError"


@pytest.mark.parametrize("body", CLEAN)
def test_builtin_on_python_or_numpy_values_is_clean_and_runs(body: str):
    source = _source(body)
    assert [f.code for f in findings_of(source)] == []
    assert run_snippet(source).error is None
