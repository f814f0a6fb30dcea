"""JAX802's fix: a size-dependent call in traced code (`jnp.nonzero(x)`, `jnp.unique(x)`,
`x.nonzero()`) given a static size, the element count of its input, and a padding value:
`size=x.size, fill_value=-1`. Unsafe: the result is padded to that size."""

from __future__ import annotations

import ast

from jax_lsp.analysis.nodes import argument_of, passes_keyword
from jax_lsp.codeactions.call_arguments import append_arguments
from jax_lsp.codeactions.site import FixSite, Located
from jax_lsp.findings import Applicability, Fix

# Padding per function (see JAX802's fix safety): -1 is no valid index; None leaves JAX's default
# (the smallest value found) for unique and the set operations.
_INDEX_FUNCTIONS = ("nonzero", "where", "argwhere", "flatnonzero")
_FILL_VALUES: dict[str, str | None] = {
    **{f"jax.numpy.{name}": "-1" for name in _INDEX_FUNCTIONS},
    "jax.numpy.compress": "0",
    "jax.numpy.extract": "0",
}
# The argument(s) whose element count bounds the output: (position, keyword names).
_BOUNDING_ARGUMENT: dict[str, tuple[tuple[int, tuple[str, ...]], ...]] = {
    "jax.numpy.compress": ((1, ("a",)),),
    "jax.numpy.extract": ((1, ("arr",)),),
    "jax.numpy.union1d": ((0, ("ar1",)), (1, ("ar2",))),
    "jax.numpy.intersect1d": ((0, ("ar1",)),),
    "jax.numpy.setdiff1d": ((0, ("ar1",)),),
}
_AXIS_POSITION = {"jax.numpy.unique": 4, "jax.numpy.compress": 2}
_FIRST_ARGUMENT = ((0, ("a", "ar", "x", "condition")),)


def size_fix(node: ast.Call, qualname: str, ctx: FixSite) -> Fix | None:
    """`size=<input's element count>, fill_value=<padding>` added to a size-dependent call."""
    if passes_keyword(node, "axis") or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if len(node.args) > _AXIS_POSITION.get(qualname, len(node.args)):
        return None
    method = ctx.qualname(node.func) is None
    if method:
        sources = [node.func.value]
    else:
        bounding = _BOUNDING_ARGUMENT.get(qualname, _FIRST_ARGUMENT)
        sources = [argument_of(node, position, *names) for position, names in bounding]
        if None in sources:
            return None
    size = " + ".join(_element_count(source, ctx) for source in sources)
    added = [f"size={size}"]
    fill = _FILL_VALUES.get(qualname)
    if fill is not None and not passes_keyword(node, "fill_value"):
        added.append(f"fill_value={fill}")
    text = ", ".join(added)
    edit = append_arguments(node, text, ctx)
    if edit is None:
        return None
    return Fix(f"Pass `{text}`", (edit,), Applicability.UNSAFE)


def _element_count(node: ast.expr, ctx: Located) -> str:
    """Source text of the static element count of `node`: `x.size` for `x`, `x > 0`, `-x`."""
    base = _elementwise_base(node)
    text = ctx.segment(base)
    if isinstance(base, ast.Name | ast.Attribute | ast.Subscript | ast.Call):
        return f"{text}.size"
    return f"({text}).size"


def _elementwise_base(node: ast.expr) -> ast.expr:
    """The array an elementwise expression with constants keeps the shape of (`x` in
    `x > 0`, `~x`, `2 * x`), or `node` itself."""
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return _elementwise_base(node.operand)
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        left, right = node.left, node.comparators[0]
    elif isinstance(node, ast.BinOp):
        left, right = node.left, node.right
    else:
        return node
    if isinstance(right, ast.Constant):
        return _elementwise_base(left)
    if isinstance(left, ast.Constant):
        return _elementwise_base(right)
    return node
