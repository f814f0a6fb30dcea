"""JAX501's table of functions that reject lists, checked against the installed JAX."""

from __future__ import annotations

import importlib

import pytest

from jax_lsp.diagnostics.inputs import JOINS, MEASURED_BY_HAND
from jax_lsp.diagnostics.sequence_table import REJECTS_SEQUENCES as GENERATED
from tests.rules import sequence_probe

pytestmark = pytest.mark.slow  # the table checked call by call against the installed JAX

jnp = pytest.importorskip("jax.numpy")


def _function(qualname: str):
    module, _, name = qualname.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _arguments(qualname: str, positions: tuple[int, ...]) -> list:
    """A working call: arrays at the checked positions, then the required non-array ones."""
    if qualname == "jax.numpy.einsum":
        return ["i,i->", jnp.ones(2), jnp.ones(2)]
    if qualname == "jax.numpy.take":
        return [jnp.ones(2), jnp.array([0, 1])]
    return [jnp.ones(2) for _ in range(max(positions) + 1)]


CASES = [(q, p) for q, positions in sorted(MEASURED_BY_HAND.items()) for p in positions]


@pytest.mark.parametrize(("qualname", "position"), CASES, ids=[f"{q}-{p}" for q, p in CASES])
def test_function_listed_by_hand_rejects_a_list(qualname: str, position: int):
    positions = MEASURED_BY_HAND[qualname]
    args = _arguments(qualname, positions)
    # Control: the same call with arrays works.
    _function(qualname)(*args)
    sample = args[position]
    args[position] = sample.tolist() if hasattr(sample, "tolist") else sample
    with pytest.raises(TypeError):
        _function(qualname)(*args)


CANDIDATES = sequence_probe.candidates()


@pytest.mark.parametrize(("qualname", "target"), CANDIDATES, ids=[q for q, _ in CANDIDATES])
def test_generated_table_matches_installed_jax(qualname, target):
    """Every public function's positions that reject lists, as JAX raises today (regenerate
    with `python -m tests.rules.sequence_probe --write` when this fails after an upgrade)."""
    assert sequence_probe.rejected_positions(target) == GENERATED.get(qualname, ())


@pytest.mark.parametrize("qualname", sorted(JOINS))
def test_join_rejects_lists_but_accepts_arrays_and_scalars(qualname: str):
    join = _function(qualname)
    join([jnp.ones(2), jnp.zeros(2)])
    join((jnp.ones(2), jnp.zeros(2)))
    with pytest.raises(TypeError):
        join([[1.0, 2.0], [3.0, 4.0]])


def test_conversions_and_scalar_stack_accept_lists():
    assert jnp.array([1, 2]).shape == (2,)
    assert jnp.asarray([1, 2]).shape == (2,)
    assert jnp.stack([1.0, 2.0]).shape == (2,)
