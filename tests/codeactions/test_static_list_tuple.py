"""JAX1002's list -> tuple at the caller: safe only where the jitted function uses the value as
a tuple is used alike; the fixed programs run under JAX."""

from __future__ import annotations

import jax
import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import source
from tests.runtime import run_snippet

RULES = (RULES_BY_CODE["JAX1002"],)


def _findings(text: str):
    return analyze(Document(text), RULES).findings


PROGRAM = """
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("dims",))
def f(x, dims):
    BODY


out = f(jnp.ones(6), [2, 3])
"""


def _program(body: str) -> str:
    return PROGRAM.replace("BODY", body.replace("\n", "\n    "))


def _unjitted(text: str):
    """What the original computes with the list as written, jit disabled (the intent)."""
    with jax.disable_jit():
        outcome = run_snippet(text)
    assert outcome.error is None, outcome.error
    return outcome.namespace["out"].tolist()


@pytest.mark.parametrize(
    "body",
    [
        "return jnp.reshape(x, dims)",
        "return x.reshape(dims)",
        "return jnp.zeros(dims) + x.reshape(dims)",
        "return x.reshape(6, 1).sum(axis=dims[0] - 2)",
        "n = 1\nfor d in dims:\n    n *= d\nreturn x[:n] * len(dims)",
        "return x * (3 in dims) + sum(dims) + max(dims)",
        "a, b = dims\nreturn x.reshape(a, b)",
        "return x[: len(dims[:-1])] * sum(m * n for m, n in zip(dims[:-1], dims[1:]))",
    ],
)
def test_safe_where_a_tuple_does_the_same(body):
    text = _program(body)
    (finding,) = _findings(text)
    assert finding.fix.applicability is Applicability.SAFE
    assert isinstance(run_snippet(text).error, ValueError)  # unhashable static argument
    fixed, count = fix_text(text, _findings)
    assert count == 1 and "f(jnp.ones(6), (2, 3))" in fixed
    outcome = run_snippet(fixed)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert outcome.namespace["out"].tolist() == _unjitted(text)


@pytest.mark.parametrize(
    "body",
    [
        "dims = dims + [1]\nreturn jnp.reshape(x, dims)",  # TypeError with a tuple
        "dims.sort()\nreturn jnp.reshape(x, dims)",  # AttributeError
        "return x.reshape(6, 1)[dims]",  # a list indexes rows, a tuple one element
        "return x * (dims == [2, 3])",  # False with a tuple
        "return helper(x, dims)",  # code the fix does not read
        "return x.reshape(6, 1)[dims[:1]]",  # a slice of a tuple is a tuple: one element
    ],
)
def test_unsafe_where_the_function_may_use_a_list(body):
    text = _program(body)
    (finding,) = _findings(text)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_text(text, _findings) == (text, 0)  # fix-all leaves it


def test_the_trial_functions_are_left_to_the_user():
    text = source(
        """
        from functools import partial

        import jax
        import jax.numpy as jnp


        @partial(jax.jit, static_argnames=("dims",))
        def grow(x, dims):
            dims = dims + [1]
            return jnp.reshape(x, dims)


        @partial(jax.jit, static_argnames=("axes",))
        def total(x, axes):
            axes.sort()
            return x.sum(axis=axes[0])


        grown = grow(jnp.ones(6), [2, 3])
        summed = total(jnp.ones((2, 3)), [1, 0])
        """
    )
    assert [f.fix.applicability for f in _findings(text)] == [Applicability.UNSAFE] * 2
    assert fix_text(text, _findings)[1] == 0


def test_a_function_jitted_apart_and_one_not_seen():
    text = source(
        """
        import jax
        import jax.numpy as jnp


        def shaped(x, dims):
            return jnp.reshape(x, dims)


        shaped_jit = jax.jit(shaped, static_argnums=1)
        out = shaped_jit(jnp.ones(6), [2, 3])
        also = jax.jit(shaped, static_argnums=1)(jnp.ones(6), [3, 2])
        """
    )
    assert [f.fix.applicability for f in _findings(text)] == [Applicability.SAFE] * 2
    fixed, _ = fix_text(text, _findings)
    outcome = run_snippet(fixed)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert outcome.namespace["also"].shape == (3, 2)
