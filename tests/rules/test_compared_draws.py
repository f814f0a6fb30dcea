"""JAX602 and tests that give one key to two implementations and compare their results: the
same numbers are the point, so the reuse is by intent (JAX's checker would still reject it,
as it rejects every reuse). Draws whose results no assertion compares stay flagged."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

HEAD = """
import jax
import numpy as np


def sample_a(key, n):
    return jax.random.normal(key, (n,))


def sample_b(key, n):
    return jax.random.normal(key, (n,)) * 1.0

"""

COMPARED = {
    "assert-allclose": """
        def test_same_samples():
            key = jax.random.PRNGKey(0)
            expected = sample_a(key, 4)
            actual = sample_b(key, 4)
            np.testing.assert_allclose(expected, actual)
        """,
    "assert-statement-tuple": """
        def test_same_samples():
            key = jax.random.PRNGKey(0)
            expected, = [sample_a(key, 4)]
            actual = sample_b(key, 4)
            assert np.allclose(expected, actual)
        """,
}

NOT_COMPARED = {
    "each-against-a-constant": """
        def test_samples():
            key = jax.random.PRNGKey(0)
            first = sample_a(key, 4)
            second = sample_b(key, 4)
            np.testing.assert_allclose(first, 0.0, atol=5.0)
            np.testing.assert_allclose(second, 0.0, atol=5.0)
        """,
    "no-assertion": """
        def noisy_pair():
            key = jax.random.PRNGKey(0)
            first = sample_a(key, 4)
            second = sample_b(key, 4)
            return first + second
        """,
}


def _codes(body: str) -> list[str]:
    return [f.code for f in findings_of(HEAD + textwrap.dedent(body), ("JAX602",))]


@pytest.mark.parametrize("body", COMPARED.values(), ids=COMPARED)
def test_two_implementations_compared_on_one_key_are_not_flagged(body):
    assert _codes(body) == []
    outcome = run_snippet(HEAD + textwrap.dedent(body) + "\ntest_same_samples()\n")
    assert outcome.error is None  # the same key gives both the same numbers: the test passes


@pytest.mark.parametrize("body", NOT_COMPARED.values(), ids=NOT_COMPARED)
def test_draws_not_compared_with_each_other_stay_flagged(body):
    assert _codes(body) == ["JAX602"]
