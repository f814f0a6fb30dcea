"""Two value-model facts, each program run under real JAX:

* a PyTree class of the module whose constructor is generated from its fields (a NamedTuple,
  an `eqx.Module` without `__init__`), called with tracers, builds an object holding them;
* a lambda bound at module level (`f = lambda ...`, `hk.transform(lambda x: Net()(x))`)
  runs in the trace of the code that calls it by its name, and so do the functions it calls.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet


def _codes(source: str) -> list[tuple[int, str]]:
    """(0-based line, code) of each finding but JAX903's information on casts."""
    return [(f.span.start.line, f.code) for f in findings_of(source) if f.code != "JAX903"]


NAMED_TUPLE = """
from typing import NamedTuple
import jax, jax.numpy as jnp


class Stats(NamedTuple):
    mean: jax.Array
    count: int


@jax.jit
def summarize(x):
    stats = Stats({mean}, 3)
    print(stats)
    return x
"""


def test_a_named_tuple_built_from_tracers_holds_them():
    source = textwrap.dedent(NAMED_TUPLE).replace("{mean}", "jnp.mean(x)")
    assert _codes(source) == [(13, "JAX101")]
    outcome = run_snippet(source + "summarize(jnp.ones(3))\n")
    assert "Tracer" in outcome.stdout


def test_the_truth_of_a_built_object_is_python_truth_not_a_tracer_conversion():
    # A NamedTuple is a tuple, an object is true: `if stats:` never converts a tracer.
    source = textwrap.dedent(NAMED_TUPLE).replace("{mean}", "jnp.mean(x)")
    source = source.replace(
        "    print(stats)\n", "    if stats and len(stats) == 2:\n        x = x + stats.mean\n"
    )
    assert _codes(source) == []
    assert run_snippet(source + "summarize(jnp.ones(3))\n").error is None


def test_a_named_tuple_built_from_python_values_holds_no_tracer():
    source = textwrap.dedent(NAMED_TUPLE).replace("{mean}", "0.5")
    assert _codes(source) == []
    outcome = run_snippet(source + "summarize(jnp.ones(3))\n")
    assert "Stats(mean=0.5, count=3)" in outcome.stdout


EQX_FIELDS = """
import equinox as eqx
import jax, jax.numpy as jnp


class Moments(eqx.Module):
    mean: jax.Array
    var: jax.Array
{init}

@jax.jit
def moments(x):
    m = Moments(jnp.mean(x), jnp.var(x))
    print(m)
    return x
"""


def test_an_equinox_module_built_from_its_fields_holds_the_tracers():
    source = textwrap.dedent(EQX_FIELDS).replace("{init}", "")
    assert _codes(source) == [(13, "JAX101")]
    outcome = run_snippet(source + "moments(jnp.ones(3))\n")
    assert "Moments(mean=f32[], var=f32[])" in outcome.stdout  # the tracers' types, no values


def test_a_class_with_its_own_init_is_not_taken_for_its_fields():
    # Its `__init__` may keep anything of what it is given: nothing is assumed.
    init = """
    def __init__(self, mean, var):
        self.mean = 0.0
        self.var = 1.0
"""
    source = textwrap.dedent(EQX_FIELDS).replace("{init}", init)
    assert _codes(source) == []
    outcome = run_snippet(source + "moments(jnp.ones(3))\n")
    assert "Tracer" not in outcome.stdout and "mean=0.0" in outcome.stdout


MODULE_LAMBDA = """
import jax, jax.numpy as jnp

total = lambda v: int(jnp.sum(v))


@jax.jit
def f(x):
    return x * total(x)
"""


def test_a_module_level_lambda_called_from_jit_runs_traced():
    source = textwrap.dedent(MODULE_LAMBDA)
    assert _codes(source) == [(3, "JAX703")]
    outcome = run_snippet(source + "f(jnp.ones(3))\n")
    assert type(outcome.error).__name__ == "ConcretizationTypeError"


def test_a_module_level_lambda_called_outside_any_trace_is_clean():
    source = textwrap.dedent(MODULE_LAMBDA).replace("@jax.jit\n", "")
    assert _codes(source) == []
    assert run_snippet(source + "f(jnp.ones(3))\n").error is None


HAIKU = """
import haiku as hk
import jax, jax.numpy as jnp


class Decoder(hk.Module):
    def __call__(self, z):
        side = jnp.sqrt(16).astype(jnp.int32)
        return hk.Linear(64)(z).reshape(-1, side, side, 4)


decoder = hk.transform(lambda z: Decoder()(z))
params = decoder.init(jax.random.key(0), jnp.ones((2, 8)))
"""


@pytest.mark.parametrize(
    "tail",
    [
        "jax.jit(decoder.apply)(params, None, jnp.ones((2, 8)))\n",
        "jax.jit(lambda p, z: decoder.apply(p, None, z))(params, jnp.ones((2, 8)))\n",
        "@jax.jit\ndef loss(p, z):\n    return decoder.apply(p, None, z).sum()\n\n"
        "loss(params, jnp.ones((2, 8)))\n",
    ],
)
def test_a_haiku_transformed_lambda_runs_its_modules_in_the_trace(tail: str):
    source = textwrap.dedent(HAIKU) + tail
    assert _codes(source) == [(8, "JAX803")]
    outcome = run_snippet(source)
    assert isinstance(outcome.error, TypeError)


def test_a_haiku_transformed_lambda_applied_eagerly_is_clean():
    source = textwrap.dedent(HAIKU) + "decoder.apply(params, None, jnp.ones((2, 8)))\n"
    assert _codes(source) == []
    assert run_snippet(source).error is None
