"""The unsafe "make it static" fix (JAX701/JAX703/JAX803) is not offered for a parameter that a
call of the module passes a JAX or NumPy array or a tracer: a static argument must be hashable,
so the call would raise `TypeError: unhashable type`. Python values still get it."""

from __future__ import annotations

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.engine import analyze
from tests.codeactions.helpers import applied, source
from tests.runtime import run_snippet

STATIC_TITLE = "static (`static_argnames`)"

RELU = source(
    """
    import jax
    import jax.numpy as jnp
    import numpy as np


    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0


    CALL
    """
)
IF_LINE = 7

ARRAY_CALLS = {
    "a JAX array literal": "out = relu(jnp.float32(3.0))",
    "a name bound to a JAX array": "x0 = jnp.ones(())\nout = relu(x0)",
    "a NumPy array": "out = relu(np.ones(()))",
    "a tracer of another jitted function": (
        "out = jax.jit(lambda v: v)(1.0)\n\n\n@jax.jit\ndef outer(v):\n    return relu(v)"
    ),
    "a keyword argument": "out = relu(x=jnp.float32(3.0))",
}


def _program(call: str) -> str:
    return RELU.replace("CALL", call)


def _fixes(text: str, line: int = IF_LINE):
    finding = next(f for f in analyze(Document(text)).findings if f.span.start.line == line)
    return [*([finding.fix] if finding.fix else []), *finding.alternatives]


def _static_fix(text: str):
    return next((fix for fix in _fixes(text) if STATIC_TITLE in fix.title), None)


@pytest.mark.parametrize("call", ARRAY_CALLS.values(), ids=list(ARRAY_CALLS))
def test_no_static_fix_where_a_call_passes_an_array(call):
    fixes = _fixes(_program(call))
    assert fixes, "the safe `jnp.where` fix is still offered"
    assert not any(STATIC_TITLE in fix.title for fix in fixes)


def test_static_fix_offered_for_a_python_value_and_runs():
    text = _program("out = relu(3.0)")
    fixed = applied(text, _static_fix(text))
    assert '@partial(jax.jit, static_argnames=("x",))' in fixed
    assert run_snippet(fixed, "assert float(out) == 3.0").error is None


@pytest.mark.parametrize("call", [ARRAY_CALLS["a JAX array literal"], ARRAY_CALLS["a NumPy array"]])
def test_the_static_fix_would_break_a_call_passing_an_array(call):
    """What not offering it spares: the fix made for `relu(3.0)`, with the array call."""
    pytest.importorskip("jax")
    python_value = _program("out = relu(3.0)")
    broken = applied(python_value, _static_fix(python_value)).replace("out = relu(3.0)", call)
    error = run_snippet(broken).error
    assert isinstance(error, TypeError | ValueError) and "hashable" in str(error)


def test_one_array_call_among_python_calls_is_enough():
    text = _program("a = relu(3.0)\nb = relu(jnp.ones(()))")
    assert _static_fix(text) is None


# A function jitted by a statement of its own: the deferred fix extends that `jax.jit(...)`
# call. Calls through the name it binds pass their arguments to the function.
SCALE = source(
    """
    import jax
    import jax.numpy as jnp


    def scale(x, n):
        if n > 0:
            return x * n
        return x


    CALLS
    """
)
SCALE_IF_LINE = 5

JITTED_ARRAY_CALLS = {
    "rebound to its own name": "scale = jax.jit(scale)\nout = scale(jnp.ones(2), jnp.array(2))",
    "bound to another name": "fast = jax.jit(scale)\nout = fast(jnp.ones(2), jnp.array(2))",
    "called from a function": (
        "fast = jax.jit(scale)\n\n\ndef main():\n    return fast(jnp.ones(2), n=jnp.array(2))"
    ),
    "called where it is made": "out = jax.jit(scale)(jnp.ones(2), jnp.array(2))",
}


def _built_fixes(text: str, line: int):
    finding = next(f for f in analyze(Document(text)).findings if f.span.start.line == line)
    built = with_deferred_fixes(finding, text)
    return [*([built.fix] if built.fix else []), *built.alternatives]


@pytest.mark.parametrize("calls", JITTED_ARRAY_CALLS.values(), ids=list(JITTED_ARRAY_CALLS))
def test_no_static_fix_where_a_call_through_jit_passes_an_array(calls):
    fixes = _built_fixes(SCALE.replace("CALLS", calls), SCALE_IF_LINE)
    assert not any(STATIC_TITLE in fix.title for fix in fixes)


@pytest.mark.parametrize("bound", ["scale", "fast"])
def test_static_fix_through_jit_offered_for_a_python_value_and_runs(bound):
    text = SCALE.replace("CALLS", f"{bound} = jax.jit(scale)\nout = {bound}(jnp.ones(2), 2)")
    (fix,) = [f for f in _built_fixes(text, SCALE_IF_LINE) if STATIC_TITLE in f.title]
    fixed = applied(text, fix)
    assert f'{bound} = jax.jit(scale, static_argnames=("n",))' in fixed
    pytest.importorskip("jax")
    assert run_snippet(fixed, "assert out.tolist() == [2.0, 2.0]").error is None
