"""Transformations that fill a jitted function's static positions with tracers
(`ModuleModel.tracers_at_static`), checked against what JAX does with the same code."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.model import ModuleModel

_JITTED = """
from functools import partial

import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnames=("scale", "shift"))
def affine(x, scale, shift):
    return x * scale + shift

def plain(x, scale, shift):
    return x * scale + shift

rebound = jax.jit(plain, static_argnums=(1, 2))
rows = jnp.ones((3, 2))
"""


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # partial binds the first two positions: the mapped rows land in `shift`.
        ("jax.vmap(partial(affine, 2.0, 1.0))(rows)", {"shift"}),
        # jit traces every positional argument, the static ones of `affine` included.
        ("jax.jit(affine)(rows, 2.0, 1.0)", {"scale", "shift"}),
        ("jax.jit(partial(rebound, rows))(2.0, 1.0)", {"scale", "shift"}),
        ("jax.grad(partial(affine, 2.0, 1.0))(3.0)", {"shift"}),
        # Bound by keyword, unmapped, or kept static by the outer jit: Python values there.
        ("jax.vmap(partial(affine, scale=2.0, shift=1.0))(rows)", set()),
        ("jax.vmap(affine, in_axes=(0, None, None))(rows, 2.0, 1.0)", set()),
        ("jax.jit(affine, static_argnums=(1, 2))(rows, 2.0, 1.0)", set()),
        ("jax.grad(affine)(3.0, 2.0, 1.0)", set()),
        # A function jitted without static arguments takes tracers anywhere.
        ("jax.vmap(partial(plain, 2.0, 1.0))(rows)", set()),
    ],
)
def test_static_positions_given_tracers_agree_with_jax(expression: str, expected: set[str]):
    source = textwrap.dedent(_JITTED) + f"result = {expression}\n"
    model = ModuleModel(Document(source))
    tree = ast.parse(source)
    transformation = tree.body[-1].value.func  # the call that transforms the function
    found = model.tracers_at_static.get(_same_node(model, transformation))
    assert (set(found[1]) if found else set()) == expected
    namespace: dict = {}
    if expected:
        with pytest.raises(ValueError, match="Non-hashable static arguments"):
            exec(compile(source, "<case>", "exec"), namespace)
    else:
        exec(compile(source, "<case>", "exec"), namespace)


def _same_node(model: ModuleModel, node: ast.AST) -> ast.AST | None:
    """The model's node spelled as `node` (parsed separately)."""
    spelled = ast.unparse(node)
    return next((n for n in model.tracers_at_static if ast.unparse(n) == spelled), None)
