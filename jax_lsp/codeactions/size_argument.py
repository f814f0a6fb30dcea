"""JAX802's fixes: a size-dependent call in traced code (`jnp.nonzero(x)`, `jnp.unique(x)`,
`x.nonzero()`) given a static size, the element count of its input, and a padding value; or,
where the code only takes the result's length, that length computed without the call.

The padding changes what the result means downstream, so the fix is offered only where it
gives the intended result (JAX 0.10, checked in tests/codeactions/test_size_argument.py):
- The index functions (`nonzero`, one-argument `where`, `argwhere`, `flatnonzero`) are padded
  with an out-of-range index, the element count: `.at[idx].set/add/...` drop its updates. A
  read `x[idx]` would clamp it to the last element (and -1, or JAX's default 0, would read a
  real one), so there is no fix where the result is read as an index.
- `len(...)`, `.shape[0]` and `.size` of the result would count the padding: taken on the call
  itself, they become `jnp.count_nonzero(c)` (the index functions) or
  `jnp.count_nonzero(jnp.unique_counts(x, size=n).counts)` (`unique`); taken on a name the
  result is bound to, there is no fix.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.nodes import argument_of, contains, passes_keyword
from jax_lsp.codeactions.call_arguments import append_arguments
from jax_lsp.codeactions.site import FixSite, Located, node_edit
from jax_lsp.findings import Applicability, Fix

# Index functions: their output holds indices (a tuple of index arrays for the first two).
_INDEX_TUPLES = ("jax.numpy.nonzero", "jax.numpy.where")
_INDEX_ARRAYS = ("jax.numpy.argwhere", "jax.numpy.flatnonzero")
_INDEX_FUNCTIONS = (*_INDEX_TUPLES, *_INDEX_ARRAYS)
_SELECTIONS = ("jax.numpy.compress", "jax.numpy.extract")  # padded with 0, JAX's default
_UNIQUE = ("jax.numpy.unique", "jax.numpy.unique_values")
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
    """The call given `size=` (and `fill_value=`), or its result's length counted without it;
    None where neither is known to give the intended result."""
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
    result, parents = _result(node, qualname, ctx)
    length = _length_taken(result, parents)
    if length is not None:
        return _count_fix(node, qualname, length, size, method, ctx)
    if qualname in _INDEX_FUNCTIONS and _read_as_index(node, ctx.ancestors):
        return None  # padding read as an index clamps to the last element
    names = _bound_names(result, parents)
    if names and _uses_spoiled(names, qualname, ctx):
        return None
    added = [f"size={size}"]
    if not passes_keyword(node, "fill_value"):
        if qualname in _INDEX_FUNCTIONS:
            added.append(f"fill_value={size}")
        elif qualname in _SELECTIONS:
            added.append("fill_value=0")
    text = ", ".join(added)
    edit = append_arguments(node, text, ctx)
    if edit is None:
        return None
    return Fix(f"Pass `{text}` ({_padding(qualname, text, size)})", (edit,), Applicability.UNSAFE)


def _padding(qualname: str, text: str, size: str) -> str:
    """What the fix title says the result now holds beyond the real entries."""
    if qualname in _INDEX_FUNCTIONS and f"fill_value={size}" in text:
        return f"pads with the out-of-range index `{size}`: `.at[...]` updates skip it"
    if qualname in _INDEX_FUNCTIONS:
        return f"always {size} entries"
    if qualname in _SELECTIONS:
        return f"always {size} entries, padded with 0"
    return f"always {size} entries, padded with the smallest value found"


def _result(node: ast.Call, qualname: str, ctx: FixSite) -> tuple[ast.expr, list[ast.AST]]:
    """The expression holding the call's result as the code uses it (`jnp.nonzero(c)[0]` for
    the index tuples), and its ancestors, innermost first."""
    parents = list(reversed(ctx.ancestors))
    result: ast.expr = node
    if (
        qualname in _INDEX_TUPLES
        and parents
        and isinstance(parents[0], ast.Subscript)
        and parents[0].value is node
        and isinstance(parents[0].slice, ast.Constant)
    ):
        result = parents.pop(0)
    return result, parents


def _length_taken(result: ast.expr, parents: list[ast.AST]) -> ast.expr | None:
    """`len(result)`, `result.shape[0]` or `result.size`: the expression taking its length."""
    if not parents:
        return None
    parent = parents[0]
    if (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id == "len"
        and parent.args == [result]
    ):
        return parent
    if isinstance(parent, ast.Attribute) and parent.attr == "size":
        return parent
    if isinstance(parent, ast.Attribute) and parent.attr == "shape" and len(parents) > 1:
        above = parents[1]
        if (
            isinstance(above, ast.Subscript)
            and isinstance(above.slice, ast.Constant)
            and above.slice.value in (0, -1)
        ):
            return above
    return None


def _count_fix(
    node: ast.Call, qualname: str, length: ast.expr, size: str, method: bool, ctx: FixSite
) -> Fix | None:
    """The result's length counted without padding: `jnp.count_nonzero(c)` for the index
    functions, the nonzero counts of `jnp.unique_counts(x, size=n)` for `unique`."""
    if method or not isinstance(node.func, ast.Attribute) or node.keywords:
        return None
    prefix = ctx.segment(node.func.value)
    if qualname in _INDEX_FUNCTIONS and len(node.args) == 1:
        count = f"{prefix}.count_nonzero({ctx.segment(node.args[0])})"
    elif qualname in _UNIQUE and len(node.args) == 1:
        counts = f"{prefix}.unique_counts({ctx.segment(node.args[0])}, size={size}).counts"
        count = f"{prefix}.count_nonzero({counts})"
    else:
        return None
    return Fix(f"Count with `{count}`", (node_edit(ctx, length, count),), Applicability.UNSAFE)


def _read_as_index(node: ast.AST, ancestors: list[ast.AST]) -> bool:
    """Is `node` inside the index of a read `x[...]` (not of an `x.at[...]` update)?"""
    for position, ancestor in enumerate(reversed(ancestors)):
        if isinstance(ancestor, ast.stmt):
            return False
        if isinstance(ancestor, ast.Subscript) and contains(ancestor.slice, node):
            above = (
                ancestors[len(ancestors) - position - 2] if position + 2 <= len(ancestors) else None
            )
            return not _is_update(ancestor, above)
    return False


def _is_update(subscript: ast.Subscript, parent: ast.AST | None) -> bool:
    """`x.at[idx].set(...)` and the other updates (not `.get`)."""
    return (
        isinstance(subscript.value, ast.Attribute)
        and subscript.value.attr == "at"
        and isinstance(parent, ast.Attribute)
        and parent.attr != "get"
    )


def _bound_names(result: ast.expr, parents: list[ast.AST]) -> list[str]:
    """The names `name = result` or `a, b = result` binds."""
    if not parents or not isinstance(parents[0], ast.Assign) or parents[0].value is not result:
        return []
    names = []
    for target in parents[0].targets:
        elements = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
        names += [e.id for e in elements if isinstance(e, ast.Name)]
    return names


def _uses_spoiled(names: list[str], qualname: str, ctx: FixSite) -> bool:
    """Does the scope take the length of a name bound to the result, or (index functions)
    read with it as an index? Either would see the padding."""
    scope = ctx.functions[-1] if ctx.functions else ctx.ancestors[0]
    parents: dict[ast.AST, ast.AST] = {}
    for parent in ast.walk(scope):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    for found in ast.walk(scope):
        if not (isinstance(found, ast.Name) and found.id in names):
            continue
        chain = [found]
        while chain[-1] in parents and not isinstance(chain[-1], ast.stmt):
            chain.append(parents[chain[-1]])
        used = found
        if isinstance(chain[1], ast.Subscript) and chain[1].value is found:
            used = chain[1]  # `nz[0]`
        above = chain[chain.index(used) + 1 :]
        if _length_taken(used, above) is not None:
            return True
        if qualname in _INDEX_FUNCTIONS and _read_as_index(found, list(reversed(chain[1:]))):
            return True
    return False


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
