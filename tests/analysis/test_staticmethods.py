"""A staticmethod takes no `self`: its first parameter is traced like any other, whether a
transformation decorates it or traced code calls it as `Class.method(x)`. Each program runs
under real JAX: what is flagged raises."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

DECORATED = """
import jax
import jax.numpy as jnp


class Act:
    @staticmethod
    @jax.jit
    def hard(x):
        if x > 1.0:
            return x
        return -x


out = Act.hard(jnp.float32(2.0))
"""
CALLED = """
import jax
import jax.numpy as jnp


class Act:
    @staticmethod
    def hard(x):
        if x > 1.0:
            return x
        return -x


@jax.jit
def layer(x):
    return {call}(x)


out = layer(jnp.float32(2.0))
"""


@pytest.mark.parametrize(
    ("source", "line"),
    [(DECORATED, 9), (CALLED.replace("{call}", "Act.hard"), 8)],
    ids=["decorated", "called"],
)
def test_staticmethod_first_parameter_is_traced(source: str, line: int):
    source = textwrap.dedent(source)
    assert [(f.span.start.line, f.code) for f in findings_of(source)] == [(line, "JAX701")]
    assert type(run_snippet(source).error).__name__ == "TracerBoolConversionError"


def test_method_self_stays_untraced_for_a_plain_class():
    source = textwrap.dedent(
        """
        import jax


        class Scale:
            def __init__(self, k):
                self.k = k

            def apply(self, x):
                if self:  # an ordinary object: truthy, never a tracer
                    return x * self.k
                return x


        scale = Scale(2.0)


        @jax.jit
        def f(x):
            return scale.apply(x)


        out = f(1.0)
        """
    )
    assert findings_of(source) == []
    assert run_snippet(source).error is None
