"""`ELEMENTWISE_FUNCTIONS`, the one table of functions applied element by element that the
`jnp.where` rewrites read (a mask built from `x` by one of them has `x`'s shape; a value
combined by one has the broadcast shape of its operands), checked against JAX: each keeps
the shape of one operand, and broadcasts two."""

from __future__ import annotations

import importlib

import jax.numpy as jnp
import pytest

from jax_lsp.analysis.elementwise import ELEMENTWISE_FUNCTIONS
from jax_lsp.codeactions.where_mask import mask_reduction_fixes
from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import position_of, source

COLUMN, ROW = jnp.ones((3, 1)), jnp.ones((1, 4))
# Those that take an operand of another kind than two arrays.
CALLS = {
    "jax.lax.integer_pow": lambda f: f(COLUMN, 2),
    "jax.lax.select": lambda f: f(COLUMN > 0, COLUMN, COLUMN),  # its cases are never broadcast
}


def _function(qualname: str):
    module, _, name = qualname.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("qualname", sorted(ELEMENTWISE_FUNCTIONS))
def test_each_gives_the_broadcast_shape_of_its_operands(qualname: str):
    function = _function(qualname)
    if qualname in CALLS:
        assert CALLS[qualname](function).shape == COLUMN.shape
        return
    try:
        result = function(COLUMN)
    except (TypeError, ValueError):  # it takes two operands
        result = function(COLUMN, ROW)
        assert result.shape == (3, 4)
    else:
        assert result.shape == COLUMN.shape


# Functions each of the two fixes knew as elementwise and the other did not.
@pytest.mark.parametrize("function", ["sin", "abs", "maximum", "signbit", "isposinf"])
def test_a_mask_built_elementwise_from_the_array_gives_a_safe_reduction(function: str):
    operands = "x, 0" if function == "maximum" else "x"
    text = source(f"import jax.numpy as jnp\n\ntotal = x[jnp.{function}({operands}) > 0].sum()\n")
    (fix, *_) = mask_reduction_fixes(text, *position_of(text, "x["))
    assert fix.applicability is Applicability.SAFE


MASKED_UPDATE = """import jax
import jax.numpy as jnp


@jax.jit
def clear(x):
    x[jnp.{function}(x)] = 0.0
    return x
"""


@pytest.mark.parametrize("function", ["signbit", "isposinf"])
def test_a_masked_update_by_a_mask_built_elementwise_is_safe(function: str):
    text = MASKED_UPDATE.format(function=function)
    (finding,) = [f for f in check_source(text, "a.py", Settings()).findings if f.code == "JAX201"]
    assert finding.fix is not None and finding.fix.is_safe, finding.fix
