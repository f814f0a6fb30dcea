"""The unsafe "make it static" fix (JAX701/JAX703/JAX803) is not offered for a parameter that a
differentiating transformation differentiates: it receives tracers that carry tangents, and a
static argument must be hashable, so JAX raises `ValueError: Non-hashable static arguments`."""

from __future__ import annotations

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.engine import analyze
from tests.codeactions.helpers import applied, source
from tests.runtime import run_snippet

STATIC_TITLE = "static (`static_argnames`)"

# `safe_sqrt` is differentiated through the lambda that calls it with its own argument.
THROUGH_LAMBDA = source(
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def safe_sqrt(x):
        if x > 0:
            return jnp.sqrt(x)
        return 0.0


    out = jax.grad(lambda x: safe_sqrt(2.0 * x))(2.0)
    """
)
# `power(x, n)`: argnums=0, so `n` (not `x`) may be made static.
SECOND_NOT_DIFFERENTIATED = source(
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def power(x, n):
        if n > 1:
            return x**n
        if x > 0:
            return x
        return -x


    out = jax.value_and_grad(power)(2.0, 3)
    """
)


def _fix_titles(text: str) -> dict[int, list[str]]:
    found = {}
    for finding in analyze(Document(text)).findings:
        fixes = [finding.fix] if finding.fix else []
        found[finding.span.start.line] = [fix.title for fix in [*fixes, *finding.alternatives]]
    return found


def _static_fix(text: str, line: int):
    finding = next(f for f in analyze(Document(text)).findings if f.span.start.line == line)
    fixes = [finding.fix] if finding.fix else []
    return next(fix for fix in [*fixes, *finding.alternatives] if STATIC_TITLE in fix.title)


def test_no_static_fix_for_a_parameter_differentiated_through_a_lambda():
    titles = _fix_titles(THROUGH_LAMBDA)
    assert list(titles) == [6]  # `if x > 0:`: JAX701
    assert titles[6] and not any(STATIC_TITLE in title for title in titles[6])


def test_static_fix_offered_when_nothing_differentiates_the_parameter():
    called = THROUGH_LAMBDA.replace("jax.grad(lambda x: safe_sqrt(2.0 * x))(2.0)", "safe_sqrt(2.0)")
    fixed = applied(called, _static_fix(called, 6))
    assert run_snippet(fixed, "assert abs(float(out) - 2.0**0.5) < 1e-6").error is None


def test_the_static_fix_would_break_a_differentiated_parameter():
    pytest.importorskip("jax")
    called = THROUGH_LAMBDA.replace("jax.grad(lambda x: safe_sqrt(2.0 * x))(2.0)", "safe_sqrt(2.0)")
    broken = applied(called, _static_fix(called, 6)).replace(
        "safe_sqrt(2.0)\n", "jax.grad(lambda x: safe_sqrt(2.0 * x))(2.0)\n"
    )
    error = run_snippet(broken).error
    assert isinstance(error, ValueError) and "Non-hashable static arguments" in str(error)


def test_only_the_argnums_parameters_are_differentiated():
    titles = _fix_titles(SECOND_NOT_DIFFERENTIATED)
    assert any(STATIC_TITLE in title for title in titles[6])  # `if n > 1:`
    assert not any(STATIC_TITLE in title for title in titles[8])  # `if x > 0:`
    fixed = applied(SECOND_NOT_DIFFERENTIATED, _static_fix(SECOND_NOT_DIFFERENTIATED, 6))
    assert (
        run_snippet(fixed.replace("    if x > 0:\n        return x\n    return -x\n", "")).error
        is None
    )
