"""Rules registered on a `jax.custom_vjp` / `jax.custom_jvp` function (`f.defvjp(fwd, bwd)`,
`@f.defjvp`) are traced where the function is traced abstractly; under `grad` alone `bwd` sees
concrete residuals. `nondiff_argnums` arrive as Python values. Each program runs under JAX."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

VJP = """
from functools import partial

import jax
import jax.numpy as jnp


@jax.custom_vjp
def safe_log(x):
    return jnp.log(x)


def safe_log_fwd(x):
    return jnp.log(x), x


def safe_log_bwd(x, g):
    if x < 1e-6:
        return (g * 1e6,)
    return (g / x,)


safe_log.defvjp(safe_log_fwd, safe_log_bwd)
out = {call}(2.0)
"""
JVP = """
import jax
import jax.numpy as jnp


@jax.custom_jvp
def softplus(x):
    return jnp.log1p(jnp.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    print("tangent is", t)
    return softplus(x), jax.nn.sigmoid(x) * t


out = jax.jit(jax.grad(softplus))(1.0)
"""
NONDIFF = """
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def power(x, n):
    return x**n


def power_fwd(x, n):
    if n > 1:  # a Python value
        return x**n, x
    return x, x


def power_bwd(n, x, g):
    if n == 0:  # a Python value
        return (jnp.zeros_like(g),)
    return (g * n * x ** (n - 1),)


power.defvjp(power_fwd, power_bwd)
out = jax.jit(jax.grad(power), static_argnums=1)(2.0, 3)
"""


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source)]


@pytest.mark.parametrize("call", ["jax.jit(jax.grad(safe_log))", "jax.vmap(jax.grad(safe_log))"])
def test_bwd_rule_branching_under_an_abstract_trace_is_found_and_raises(call: str):
    source = textwrap.dedent(VJP).replace("{call}", call)
    if "vmap" in call:
        source = source.replace("(2.0)", "(jnp.array([2.0, 3.0]))")
    assert _codes(source) == [(17, "JAX701")]
    assert type(run_snippet(source).error).__name__ == "TracerBoolConversionError"


def test_bwd_rule_under_grad_alone_sees_concrete_values():
    source = textwrap.dedent(VJP).replace("{call}", "jax.grad(safe_log)")
    assert _codes(source) == []
    outcome = run_snippet(source, "assert float(out) == 0.5")
    assert outcome.error is None


def test_print_in_a_jvp_rule_under_jit_prints_a_tracer():
    source = textwrap.dedent(JVP)
    assert _codes(source) == [(13, "JAX101")]
    outcome = run_snippet(source)
    assert outcome.error is None and "Trace" in outcome.stdout


def test_nondiff_arguments_reach_the_rules_as_python_values():
    source = textwrap.dedent(NONDIFF)
    assert _codes(source) == []
    assert run_snippet(source, "assert float(out) == 12.0").error is None


STEP = """
@{decorator}
def step(x):
    return {body}


out = {outer}(2.0)
"""


@pytest.mark.parametrize(
    ("decorator", "body", "outer"),
    [
        ("jax.jit", "jax.grad(safe_log)(x)", "step"),  # a gradient taken in jitted code
        ("jax.jit", "safe_log(x)", "jax.grad(step)"),  # the gradient of a jitted function
    ],
)
def test_bwd_rule_of_a_gradient_taken_with_jit_is_traced(decorator: str, body: str, outer: str):
    step = STEP.format(decorator=decorator, body=body, outer=outer)
    source = textwrap.dedent(VJP).replace("out = {call}(2.0)\n", step)
    assert _codes(source) == [(17, "JAX701")]
    assert type(run_snippet(source).error).__name__ == "TracerBoolConversionError"


def test_bwd_rule_is_not_traced_by_a_loop_that_runs_the_function_alone():
    # `lax.while_loop` cannot be reverse-differentiated: it runs `safe_log` itself, never
    # its rules; the eager gradient runs `bwd` on concrete values.
    loop = "jax.lax.while_loop(lambda c: c < 1.0, lambda c: c + safe_log(c), 0.5)\n"
    source = textwrap.dedent(VJP).replace("out = {call}(2.0)", loop)
    source += "grads = jax.grad(safe_log)(2.0)\n"
    assert _codes(source) == []
    assert run_snippet(source, "assert float(grads) == 0.5").error is None
