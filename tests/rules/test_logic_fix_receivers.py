"""JAX702's fix depends on where the value of `not x` / `a and b` goes, checked under real JAX.

Into JAX (`jnp.where(not (x > 0), ...)`) a `jnp.logical_*` array is right. Into a callee that
needs a Python bool (flax's `Dropout(deterministic=not training)`, a helper that branches on
its argument) that array fails the same way, so the only fix is to make the operand static.
The helper below stands in for flax, which the test extra does not install.
"""

from __future__ import annotations

import textwrap

import jax
import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics.control_flow import PythonLogicOnTraced
from jax_lsp.engine import analyze
from jax_lsp.findings import Applicability
from tests.runtime import run_snippet

_HELPER = """
import jax
import jax.numpy as jnp

def dropout(x, deterministic):
    if deterministic:  # flax's Dropout branches on `deterministic` in Python like this
        return x
    return x * 0.5
"""


def _findings(text: str):
    return analyze(Document(text), (PythonLogicOnTraced,)).findings


def _fixed(source: str) -> str:
    text, applied = fix_text(source, _findings, unsafe=True)
    assert applied == 1
    assert _findings(text) == []
    return text


def _program(body: str) -> str:
    return textwrap.dedent(_HELPER).lstrip() + textwrap.dedent(body)


@pytest.mark.parametrize(
    "body",
    [
        """
        @jax.jit
        def forward(x, training):
            return dropout(x, deterministic=not training)

        out = forward(jnp.ones(2), False)
        """,
        """
        @jax.jit
        def forward(x, training):
            keep = not training
            return dropout(x, keep)

        out = forward(jnp.ones(2), False)
        """,
    ],
    ids=["keyword", "through-a-name"],
)
def test_value_for_a_python_callee_is_made_static_and_runs(body):
    source = _program(body)
    assert isinstance(run_snippet(source).error, jax.errors.TracerBoolConversionError)
    # The former fix: the callee still gets a traced array and fails the same way.
    with_array = source.replace("not training", "jnp.logical_not(training)")
    assert isinstance(run_snippet(with_array).error, jax.errors.TracerBoolConversionError)

    (finding,) = _findings(source)
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
    assert "`dropout` takes the result as a Python value" in finding.message
    text = _fixed(source)
    assert '@partial(jax.jit, static_argnames=("training",))' in text
    assert "logical_not" not in text
    outcome = run_snippet(text, check="assert out.tolist() == [1.0, 1.0]")
    assert outcome.error is None, outcome.error


def test_value_for_a_python_callee_reached_through_calls_gets_no_array_fix():
    source = _program(
        """
        class Block:
            def __call__(self, x, training):
                return dropout(x, deterministic=not training)

        @jax.jit
        def forward(x, training):
            return Block()(x, training)

        out = forward(jnp.ones(2), False)
        """
    )
    (finding,) = _findings(source)
    # `training` is not a parameter of the jitted function here: no edit can make it static.
    assert finding.fix is None and finding.alternatives == ()
    assert "make the operand static" in finding.message
    assert fix_text(source, _findings, unsafe=True) == (source, 0)


def test_value_for_jax_keeps_the_logical_rewrite_and_runs():
    source = _program(
        """
        @jax.jit
        def negatives_only(x):
            return jnp.where(not (x > 0), x, 0.0)

        out = jax.vmap(negatives_only)(jnp.array([-1.0, 2.0]))
        """
    )
    assert isinstance(run_snippet(source).error, jax.errors.TracerBoolConversionError)
    (finding,) = _findings(source)
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE
    text = _fixed(source)
    assert "jnp.where(jnp.logical_not(x > 0), x, 0.0)" in text
    outcome = run_snippet(text, check="assert out.tolist() == [-1.0, 0.0]")
    assert outcome.error is None, outcome.error
