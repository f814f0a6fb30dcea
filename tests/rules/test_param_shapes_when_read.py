"""JAX301 asks the shapes the module's calls give a top-level function's parameters only once
the walk reads one (`ShapeTracker.given_when_read`): each way a parameter's shape reaches an
index still counts, and a branch that rebinds it still merges as before."""

from __future__ import annotations

import textwrap

from jax_lsp.analysis.document import Document
from jax_lsp.engine import analyze

# (Each function's text makes a shape of its own: the rule's prefilter wants one.)


def _lines(source: str) -> list[int]:
    findings = analyze(Document(textwrap.dedent(source))).findings
    return [f.span.start.line + 1 for f in findings if f.code == "JAX301"]


def test_a_parameter_indexed_and_passed_on() -> None:
    source = """
        import jax.numpy as jnp

        def tail(x, y):
            z = x * 2.0
            w = jnp.zeros(3)
            return x[11], z[12], jnp.take(y, 9), y.take(1), w[0]

        out = tail(jnp.arange(10.0), jnp.zeros(4))
        """
    assert _lines(source) == [7, 7, 7]


def test_a_parameter_the_calls_disagree_on() -> None:
    source = """
        import jax.numpy as jnp

        def tail(x):
            w = jnp.zeros(3)
            return x[11], w[0]

        a = tail(jnp.arange(10.0))
        b = tail(jnp.arange(20.0))
        """
    assert _lines(source) == []


def test_a_branch_rebinding_a_parameter_to_its_own_shape() -> None:
    # Both branches leave `x` with ten elements: the parameter's shape (asked at the merge)
    # equals the one the branch binds.
    source = """
        import jax.numpy as jnp

        def tail(x, flip):
            if flip:
                x = jnp.zeros(10)
            return x[11]

        out = tail(jnp.arange(10.0), True)
        """
    assert _lines(source) == [7]
    assert _lines(source.replace("jnp.zeros(10)", "jnp.zeros(20)")) == []


def test_a_parameter_rebound_before_it_is_read() -> None:
    source = """
        import jax.numpy as jnp

        def tail(x):
            y = x[1:]
            x = jnp.zeros(20)
            return x[11], y

        out = tail(jnp.arange(10.0))
        """
    assert _lines(source) == []
    assert _lines(source.replace("jnp.zeros(20)", "jnp.zeros(5)")) == [7]
