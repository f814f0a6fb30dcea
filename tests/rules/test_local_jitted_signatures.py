"""Static positions of a jitted function defined inside another function's body
(`ModuleModel.local_static_signatures`): JAX1002 at calls of it there, and through the
enclosing function's parameters given unhashable values by its callers (heldout-bugs8's
mcx58). Each case runs under JAX: flagged exactly where JAX raises ValueError."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from tests.runtime import run_snippet

_HEADER = """
from functools import partial

import jax
import jax.numpy as jnp
"""

# The helper jits a nested function whose second parameter is static, and passes its own
# parameter there unchanged (mcx58's shape).
_HELPER = """
def helper(x, sizes):
    @partial(jax.jit, static_argnums=(1,))
    def run(x, sizes):
        return x * len(sizes)

    return run(x, sizes)
"""

_BOUND = """
def helper(x, sizes):
    def body(x, sizes):
        return x * len(sizes)

    run = jax.jit(body, static_argnames="sizes")
    return run(x, sizes=sizes)
"""


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        # A caller gives the helper a JAX array, a list, a NumPy array: unhashable statics.
        (_HELPER + "out = helper(jnp.ones(2), jnp.array([0.1, 0.2]))\n", True),
        (_HELPER + "out = helper(jnp.ones(2), [0.1, 0.2])\n", True),
        (_BOUND + "out = helper(jnp.ones(2), [0.1, 0.2])\n", True),
        # A tuple is hashable: correct code.
        (_HELPER + "out = helper(jnp.ones(2), (0.1, 0.2))\n", False),
        (_BOUND + "out = helper(jnp.ones(2), (0.1, 0.2))\n", False),
        # The nested function is jitted without static arguments: the array is traced.
        (
            _HELPER.replace("@partial(jax.jit, static_argnums=(1,))", "@jax.jit").replace(
                "len(sizes)", "sizes.sum()"
            )
            + "out = helper(jnp.ones(2), jnp.array([0.1, 0.2]))\n",
            False,
        ),
    ],
)
def test_parameter_passed_on_to_a_local_static_position(source: str, flagged: bool):
    text = textwrap.dedent(_HEADER) + source
    findings = analyze(Document(text), (RULES_BY_CODE["JAX1002"],)).findings
    assert bool(findings) is flagged, [f.message for f in findings]
    outcome = run_snippet(text)
    if flagged:
        assert isinstance(outcome.error, ValueError), outcome.error
        assert "hashable" in str(outcome.error)
    else:
        assert outcome.error is None, outcome.error


def test_literal_at_a_local_static_position():
    text = textwrap.dedent(_HEADER) + textwrap.dedent(
        """
        def total(x):
            @partial(jax.jit, static_argnums=1)
            def reduce(x, axes):
                return x.sum(axes)

            return reduce(x, [0])

        out = total(jnp.ones((2, 2)))
        """
    )
    findings = analyze(Document(text), (RULES_BY_CODE["JAX1002"],)).findings
    line = text.splitlines().index("    return reduce(x, [0])")
    assert [f.span.start.line for f in findings] == [line]
    assert isinstance(run_snippet(text).error, ValueError)


@pytest.mark.parametrize(
    "local",
    [
        # Bound twice in the body: which definition a call runs is not one.
        "    @partial(jax.jit, static_argnums=1)\n    def reduce(x, axes):\n"
        "        return x.sum(axes)\n\n    if flag:\n        reduce = jnp.sum\n",
        # A parameter of the enclosing function.
        "",
    ],
)
def test_unknown_local_binding_stays_quiet(local: str):
    params = "x, flag" if local else "x, reduce"
    text = textwrap.dedent(_HEADER) + f"def total({params}):\n{local}    return reduce(x, [0])\n"
    assert analyze(Document(text), (RULES_BY_CODE["JAX1002"],)).findings == []


def test_local_name_shadows_a_module_signature():
    """A module-level jitted `run` with static arguments says nothing of a function's own
    `run` (plain here): its calls there are no static positions."""
    text = textwrap.dedent(_HEADER) + textwrap.dedent(
        """
        @partial(jax.jit, static_argnums=1)
        def run(x, axes):
            return x.sum(axes)

        def helper(x, axes):
            def run(x, axes):
                return x.sum(axes)

            return run(x, axes)

        out = helper(jnp.ones((2, 2)), [0])
        """
    )
    assert analyze(Document(text), (RULES_BY_CODE["JAX1002"],)).findings == []
    assert run_snippet(text).error is None
