"""The function a transformation gives, as the flow sees it: `jax.jit(f)` returns what `f`
returns, as JAX arrays; `jax.grad(f, argnums=1)` its gradient with respect to an argument."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.transforms import GRADIENTS, TransformSpec
from jax_lsp.analysis.values import Function, Value

# Transformations whose result, called, returns what the function returns (as JAX arrays).
_PASSTHROUGH = frozenset(
    [
        "jit",
        "pmap",
        "checkpoint",
        "vmap",
        "shard_map",
        "eqx.filter_jit",
        "eqx.filter_vmap",
        "eqx.filter_pmap",
        "eqx.filter_checkpoint",
        "nnx.jit",
        "nnx.vmap",
        "nnx.remat",
    ]
)
# Equinox's filtered transformations return the outputs that are not arrays as they are (a
# Python int stays an int; `jax.jit` and `nnx.jit` return an array): their functions' label.
FILTERED_JIT = "filtered"
_KEEP_PYTHON_OUTPUTS = frozenset(
    ["eqx.filter_jit", "eqx.filter_vmap", "eqx.filter_pmap", "eqx.filter_checkpoint"]
)


def _argnums(node: ast.expr | None) -> int | tuple[int, ...] | None:
    """`argnums=1` / `argnums=(0, 2)` (default 0); None when not a literal."""
    if node is None:
        return 0
    elements = node.elts if isinstance(node, ast.Tuple) else None
    constants = [node] if elements is None else elements
    if not constants or not all(
        isinstance(c, ast.Constant) and type(c.value) is int for c in constants
    ):
        return None
    numbers = tuple(c.value for c in constants)
    return numbers if elements is not None else numbers[0]


def transformed_function(
    spec: TransformSpec, keywords: Mapping[str, ast.expr], target: Value
) -> Value:
    """The callable `jax.jit(f)`, `jax.grad(f, argnums=1)`, ... gives for the function `f`."""
    label = spec.label
    gradient = GRADIENTS.get(label)
    if gradient is not None:
        path = target.path if type(target) is Function and target.transform is None else None
        aux = keywords.get("has_aux")
        has_aux = isinstance(aux, ast.Constant) and aux.value is True
        return Function(path, gradient, _argnums(keywords.get("argnums")), has_aux)
    if label in _PASSTHROUGH:
        transform = FILTERED_JIT if label in _KEEP_PYTHON_OUTPUTS else "jit"
        if type(target) is Function:
            return target if target.transform else Function(target.path, transform)
        return Function(None, transform)
    return Kind.UNKNOWN
