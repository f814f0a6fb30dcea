"""Functions JAX traces that are named far from the transformation: a module-level list of
`lax.switch` branches, ... Each flagged program raises (or misbehaves) under real JAX; each
clean counterpart runs."""

from __future__ import annotations

import textwrap

from tests.conftest import findings_of
from tests.runtime import run_snippet


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source)]


def _error_name(source: str) -> str | None:
    error = run_snippet(textwrap.dedent(source)).error
    return None if error is None else type(error).__name__


SWITCH_BRANCHES = """
import jax
import jax.numpy as jnp
from jax.lax import switch


def inside(x):
    return jnp.where(0.0 < x < 1.0, x, 0.0)


outside = lambda x: jnp.where(x > 1.0, x, 0.0)
branches = [inside, outside]


def pick(i, x):
    return switch(i, branches, x)


out = jax.grad(pick, argnums=1)(0, 0.5)
"""


def test_branches_named_by_a_module_level_list_are_traced():
    assert _codes(SWITCH_BRANCHES) == [(7, "JAX702")]
    assert _error_name(SWITCH_BRANCHES) == "TracerBoolConversionError"


def test_a_parameter_named_like_the_module_list_is_not_it():
    # `pick` is given its own branches: the module's list is not what it switches over.
    shadowed = SWITCH_BRANCHES.replace("def pick(i, x):", "def pick(i, x, branches=(abs, abs)):")
    assert _codes(shadowed) == []
    assert _error_name(shadowed) is None


def test_a_list_rebound_to_something_else_is_not_followed():
    rebound = SWITCH_BRANCHES.replace(
        "branches = [inside, outside]\n",
        "branches = [inside, outside]\nbranches = tuple(b for b in (abs, abs))\n",
    )
    assert _codes(rebound) == []
    assert _error_name(rebound) is None


REBUILT_KEY = """
from functools import partial

import jax
import jax.numpy as jnp
from jax import random


class Perturb:
    def body(self, i, total, x):
        noise = random.normal(random.key(0), x.shape)
        return total + noise

    def run(self, x):
        def loop(x):
            step = partial(self.body, x=x)
            return jax.lax.fori_loop(0, 3, step, jnp.zeros_like(x))

        return loop(x)


out = Perturb().run(jnp.zeros(4))
"""


def test_a_key_built_from_a_constant_seed_in_a_loop_body_is_the_same_every_iteration():
    # The body is reached from a closure of a method (`self.body` there is the method).
    assert _codes(REBUILT_KEY) == [(10, "JAX602")]
    outcome = run_snippet(textwrap.dedent(REBUILT_KEY))
    one = run_snippet("import jax\nn = jax.random.normal(jax.random.key(0), (4,))\n")
    assert (outcome.namespace["out"] == 3 * one.namespace["n"]).all()  # the same draw 3 times


def test_a_key_folded_with_the_step_is_new_every_iteration():
    folded = REBUILT_KEY.replace(
        "def body(self, i, total, x):\n        noise = random.normal(random.key(0), x.shape)",
        "def body(self, i, total, x):\n"
        "        noise = random.normal(random.fold_in(random.key(0), i), x.shape)",
    )
    assert folded != REBUILT_KEY
    assert _codes(folded) == []
    outcome = run_snippet(textwrap.dedent(folded))
    one = run_snippet("import jax\nn = jax.random.normal(jax.random.key(0), (4,))\n")
    assert not (outcome.namespace["out"] == 3 * one.namespace["n"]).all()
