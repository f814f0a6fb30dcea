"""Causes of the ninth held-out list's false findings (bench/triage-heldout9.csv), each on a
small program run under real JAX: a Python int returned through `eqx.filter_jit` (quantax).
Beside each, the nearby program that is still flagged, with the failure JAX shows for it."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

jax = pytest.importorskip("jax")
pytest.importorskip("equinox")


def _codes(source: str) -> list[str]:
    return [finding.code for finding in findings_of(textwrap.dedent(source))]


# -- a Python int returned through eqx.filter_jit --------------------------------------------

SIZED_HEAD = """
import equinox as eqx
import jax
import jax.numpy as jnp


@{decorator}
def half_batch(x):
    return len(x) // 2


@eqx.filter_jit
def head(x, size):
    if x.shape[0] != size:
        x = jax.lax.slice_in_dim(x, 0, size)
    return x


def run(x):
    size = half_batch(x)
    return head(x, size)


result = run(jnp.arange(6.0))
"""


def test_a_python_int_returned_by_filter_jit_stays_static():
    # equinox returns the outputs that are not arrays as they are: `size` is an int, and the
    # second filter_jit keeps an int argument static.
    source = SIZED_HEAD.format(decorator="eqx.filter_jit")
    outcome = run_snippet(source, "assert result.shape == (3,)")
    assert outcome.error is None
    assert _codes(source) == []


def test_the_same_int_returned_by_jax_jit_is_an_array_and_still_flagged():
    source = SIZED_HEAD.format(decorator="jax.jit")
    outcome = run_snippet(source)
    assert isinstance(outcome.error, jax.errors.TracerBoolConversionError)
    assert _codes(source) == ["JAX701", "JAX803"]
