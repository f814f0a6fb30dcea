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
    "derived-results-compared": """
        def test_same_samples():
            key = jax.random.PRNGKey(0)
            whole = sample_a(key, 4)
            total_whole = whole.sum()
            part = sample_b(key, 4)
            first_half, second_half = part[:2], part[2:]
            total_parts = first_half.sum() + second_half.sum()
            np.testing.assert_allclose(total_whole, total_parts, rtol=1e-5)
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
    "both-feed-one-computation": """
        def test_kernel():
            key = jax.random.PRNGKey(0)
            x1 = sample_a(key, 4)
            x2 = sample_b(key, 4)
            np.testing.assert_allclose(np.dot(x1, x2), np.dot(x2, x1))
        """,
    "input-drawn-then-init-with-the-key": """
        def test_init():
            key = jax.random.PRNGKey(0)
            x = sample_a(key, 4)
            params = sample_b(key, 4) + x
            jax.tree.map(np.testing.assert_allclose, params + x, x + params)
        """,
    "derived-from-both": """
        def test_noise():
            key = jax.random.PRNGKey(0)
            signal = sample_a(key, 4)
            noise = sample_b(key, 4)
            noisy = signal + noise
            np.testing.assert_allclose(noisy - signal, noise)
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
