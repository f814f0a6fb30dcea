"""Causes of the ninth held-out list's false findings (bench/triage-heldout9.csv), each on a
small program run under real JAX: a Python int returned through `eqx.filter_jit` (quantax), a
jit per item of an enumerated sequence of settings (jinns) or remade in an exception handler
(mbirjax), and a notebook cell run again with new settings (MuJoCo Playground). Beside each,
the nearby program that is still flagged, with what JAX shows for it. (The long literal
mbirjax ships is tested with the document splitter, in tests/analysis/test_document.py.)"""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

jax = pytest.importorskip("jax")
pytest.importorskip("equinox")


def _codes(source: str) -> list[str]:
    return [finding.code for finding in findings_of(textwrap.dedent(source))]


# -- a Python int returned through eqx.filter_jit --------------------------------------------

SIZED_HEAD = """
import equinox as eqx
import jax
import jax.numpy as jnp


@{decorator}
def half_batch(x):
    return len(x) // 2


@eqx.filter_jit
def head(x, size):
    if x.shape[0] != size:
        x = jax.lax.slice_in_dim(x, 0, size)
    return x


def run(x):
    size = half_batch(x)
    return head(x, size)


result = run(jnp.arange(6.0))
"""


def test_a_python_int_returned_by_filter_jit_stays_static():
    # equinox returns the outputs that are not arrays as they are: `size` is an int, and the
    # second filter_jit keeps an int argument static.
    source = SIZED_HEAD.format(decorator="eqx.filter_jit")
    outcome = run_snippet(source, "assert result.shape == (3,)")
    assert outcome.error is None
    assert _codes(source) == []


def test_the_same_int_returned_by_jax_jit_is_an_array_and_still_flagged():
    source = SIZED_HEAD.format(decorator="jax.jit")
    outcome = run_snippet(source)
    assert isinstance(outcome.error, jax.errors.TracerBoolConversionError)
    assert _codes(source) == ["JAX701", "JAX803"]


# -- jits made in a loop, each for its own item, or again after a failure ---------------------

PER_SETTING = """
import jax
import jax.numpy as jnp

traces = []


def compile_each(names):
    settings = tuple((name, getattr(jnp, name)) for name in names)
    compiled = {{}}
    for index, (name, function) in enumerate(settings):

        def apply(x):
            traces.append(index)
            return {body}

        compiled[name] = jax.jit(apply).lower(jnp.ones(3)).compile()
    return compiled


compiled = compile_each(["sin", "cos", "exp"])
result = compiled["cos"](jnp.zeros(3))
"""


def test_a_jit_per_item_of_an_enumerated_sequence_of_settings_is_not_flagged():
    # jinns: one AOT compilation per equation parameter, each closing over its own optimiser.
    source = PER_SETTING.format(body="function(x)")
    outcome = run_snippet(source, "assert len(traces) == 3 and float(result[0]) == 1.0")
    assert outcome.error is None
    assert _codes(source) == []


def test_the_same_jit_not_reading_the_item_is_still_flagged():
    # The same function each iteration, compiled three times: once would do.
    source = PER_SETTING.format(body="jnp.sin(x)")
    outcome = run_snippet(source, "assert len(traces) == 3")
    assert outcome.error is None
    assert _codes(source) == ["JAX1001"]


RETRIED = """
import jax
import jax.numpy as jnp

traces = []


def double_all(data, batch):
    def double(x):
        traces.append(x.shape)
        return x * 2

    batched = jax.jit(jax.vmap(double))
    out = []
    start = 0
    while start < len(data):
        try:
            if batch > 2:
                raise MemoryError("RESOURCE_EXHAUSTED")  # as a device out of memory does
            out.append(batched(data[start : start + batch]))
            start += batch
        except MemoryError:
            batch //= 2{retry}
            continue
    return jnp.concatenate(out)


result = double_all(jnp.arange(8.0), 8)
"""


def test_a_jit_made_again_in_an_exception_handler_is_not_flagged():
    # mbirjax: the batch halved and the function jitted again for the new shape on OOM.
    retry = "\n            batched = jax.jit(jax.vmap(double))  # the new shape compiles anyway"
    source = RETRIED.format(retry=retry)
    outcome = run_snippet(source, "assert len(traces) == 1 and float(result[-1]) == 14.0")
    assert outcome.error is None
    assert _codes(source) == []


def test_a_jit_made_on_every_iteration_is_still_flagged():
    source = RETRIED.format(retry="").replace(
        "            out.append(batched(",
        "            batched = jax.jit(jax.vmap(double))\n            out.append(batched(",
    )
    outcome = run_snippet(source, "assert len(traces) == 4  # one shape, four compilations")
    assert outcome.error is None
    assert _codes(source) == ["JAX1001"]


# -- a notebook cell run again with new settings -----------------------------------------------

DEFINITIONS = """
def step(carry, _):
    return carry * scale, carry


@jax.jit
def rollout(x):
    return jax.lax.scan(step, x, None, length=3)[1]
"""

STEP_ONLY = DEFINITIONS.split("@jax.jit")[0]

ROLLOUT = """
trajectory = rollout(jnp.ones(()))
runs.append(trajectory.tolist())
"""

PROGRAM = """
import jax
import jax.numpy as jnp

runs = []
scale = 2.0
{first_cell}
scale = 3.0
{second_cell}
"""


def test_functions_defined_again_after_the_change_are_not_stale():
    # playground's vision notebook: the rollout cell is run again with new settings, its
    # functions defined anew (a new jit) before they are called.
    cell = DEFINITIONS + ROLLOUT
    source = PROGRAM.format(first_cell=cell, second_cell=cell)
    outcome = run_snippet(source, "assert runs == [[1.0, 2.0, 4.0], [1.0, 3.0, 9.0]]")
    assert outcome.error is None
    assert _codes(source) == []


@pytest.mark.parametrize("again", ["", STEP_ONLY], ids=["nothing-again", "step-again"])
def test_a_jit_made_before_the_change_and_called_after_it_is_still_flagged(again):
    # Without a new `rollout`, the old jit's cache keeps the old `step` and the old scale.
    source = PROGRAM.format(first_cell=DEFINITIONS + ROLLOUT, second_cell=again + ROLLOUT)
    outcome = run_snippet(source, "assert runs == [[1.0, 2.0, 4.0], [1.0, 2.0, 4.0]]  # stale")
    assert outcome.error is None
    assert _codes(source) == ["JAX102"]
