"""JAX701's `jnp.where` rewrite of a Python `if` is safe only when both values are known to
have one shape: `where` broadcasts them, where the `if` gave one of them as it was. Run under
JAX: the safe rewrites compute what the original computes without jit; a rewrite over values
of two shapes is unsafe (broadcast or ValueError), says so, and `check --fix` leaves it out."""

from __future__ import annotations

import numpy
import pytest

from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.config import Settings
from jax_lsp.engine import check_source, fix_source
from tests.codeactions.helpers import source
from tests.runtime import run_snippet

INPUTS = "[jnp.array([1.0, -2.0, 0.5]), jnp.array([-1.0, -2.0, 0.5]), jnp.array([3.0, 2.0, 1.0])]"


def _fix(text: str):
    (finding,) = [f for f in check_source(text, "a.py", Settings()).findings if f.code == "JAX701"]
    assert finding.fix is not None
    return finding.fix


def _results(text: str, eager: bool) -> list:
    """`f` of each input, as lists: with jit off for the original (what its author meant)."""
    call = f"results = [jnp.asarray(f(v)).tolist() for v in {INPUTS}]"
    check = f"with jax.disable_jit():\n    {call}" if eager else call
    outcome = run_snippet(text, check)
    assert outcome.error is None, f"{outcome.error!r}\n{text}"
    return outcome.namespace["results"]


def _program(body: str) -> str:
    return source(
        """
        import jax
        import jax.numpy as jnp


        @jax.jit
        def f(x, lo=0.0):
        """
    ) + "".join(f"    {line}\n" for line in source(body).splitlines())


TRIAL = """
import jax
@jax.jit
def f(x):
    if x.sum() > 0: y = x{index}
    else: y = x
    return y
"""


@pytest.mark.parametrize(("index", "error"), [("[0]", None), ("[:2]", ValueError)])
def test_values_of_two_shapes_get_an_unsafe_fix_saying_so(index: str, error):
    text = source(TRIAL.format(index=index))
    fix = _fix(text)
    assert not fix.is_safe
    assert "both values must have one shape" in fix.title
    # What the rewrite does: the element broadcast to the vector's shape, or a ValueError.
    fixed = apply_edits(text, fix.edits)
    outcome = run_snippet(fixed, "y = f(jax.numpy.ones(3))")
    if error is None:
        assert outcome.error is None and outcome.namespace["y"].shape == (3,)
    else:
        assert isinstance(outcome.error, error), outcome.error


@pytest.mark.parametrize("index", ["[0]", "[:2]"])
def test_check_fix_leaves_the_program_as_it_is(index: str):
    text = source(TRIAL.format(index=index))
    assert fix_source(text, "a.py", Settings()) == (text, 0)


ALIKE = {
    "an elementwise function of the other": """
        if x.sum() > 0:
            y = x * 2 + jnp.sin(x)
        else:
            y = -x
        return y
        """,
    "one element read at two places": """
        y = x[0] * 2 if x[1] > 0 else -x[0]
        return y
        """,
    "the tested values hold one element": """
        if x[0] > lo:
            y = jnp.maximum(x[0], 0.5)
        else:
            y = lo
        return y
        """,
    "numbers both": """
        if x.sum() > 0:
            return 1.0
        return -1.0
        """,
    "a fill of the array's shape": """
        y = jnp.zeros_like(x) if x.sum() > 0 else jnp.clip(x, 0.0, 1.0)
        return y
        """,
    "an update of the value": """
        y = x * 3
        if x.sum() > 0:
            y = y - 1
        return y
        """,
}


@pytest.mark.parametrize("body", ALIKE.values(), ids=ALIKE.keys())
def test_values_of_one_shape_keep_a_safe_fix_that_computes_the_same(body: str):
    text = _program(body)
    fix = _fix(text)
    assert fix.is_safe, fix.title
    fixed, applied = fix_source(text, "a.py", Settings())
    assert applied == 1 and "where(" in fixed
    assert numpy.allclose(_results(fixed, eager=False), _results(text, eager=True))


UNALIKE = {
    "an element and the array": "y = x[0] if x.sum() > 0 else x",
    "a transpose": "y = x.T if x.sum() > 0 else x",
    "a product of arrays": "y = x @ x if x.sum() > 0 else x",
    "a number and an array of unknown shape": "y = 0.0 if x.sum() > 0 else x",
    "two arrays of unknown shapes": "y = x if x.sum() > 0 else lo",
    "a boolean and a number": "y = x > 0 if x.sum() > 0 else x",
    "indices of a mask": "y = jnp.where(x > 0)[0] if x.sum() > 0 else x",
    "an attribute that may be an array": "y = x.size if x.sum() > 0 else x",
    "one pair of a tuple": "y, z = (x[0], x) if x.sum() > 0 else (x[1], x[2:])",
}


@pytest.mark.parametrize("line", UNALIKE.values(), ids=UNALIKE.keys())
def test_values_not_known_to_have_one_shape_make_the_fix_unsafe(line: str):
    fix = _fix(_program(f"{line}\nreturn y"))
    assert not fix.is_safe
    assert "one shape" in fix.title


MASKED = """
import jax
import jax.numpy as jnp


@jax.jit
def clear(x, keep):
    x[{mask}] = 0.0
    return x
"""


def _masked_fix(mask: str):
    text = source(MASKED.format(mask=mask))
    (finding,) = [f for f in check_source(text, "a.py", Settings()).findings if f.code == "JAX201"]
    return text, finding.fix


def test_a_mask_of_the_array_shape_is_selected_by_a_safe_where():
    text, fix = _masked_fix("x > 1")
    assert fix.is_safe
    fixed = apply_edits(text, fix.edits)
    check = "out = clear(jnp.array([[0.5, 2.0], [3.0, 1.0]]), None).tolist()"
    outcome = run_snippet(fixed, check)
    assert outcome.error is None and outcome.namespace["out"] == [[0.5, 0.0], [0.0, 1.0]]


def test_a_mask_of_rows_would_be_broadcast_along_columns_so_the_fix_is_unsafe():
    text, fix = _masked_fix("keep > 0")
    assert not fix.is_safe
    assert "the mask must have `x`'s shape" in fix.title
    # NumPy clears the second row; `where` lines the mask up with the columns instead.
    fixed = apply_edits(text, fix.edits)
    check = "out = clear(jnp.ones((2, 2)), jnp.array([0, 1])).tolist()"
    outcome = run_snippet(fixed, check)
    assert outcome.error is None and outcome.namespace["out"] == [[1.0, 0.0], [1.0, 0.0]]
    rows = numpy.ones((2, 2))
    rows[numpy.array([0, 1]) > 0] = 0.0
    assert rows.tolist() == [[1.0, 1.0], [0.0, 0.0]]
