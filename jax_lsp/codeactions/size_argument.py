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
  itself or on a name the result is bound to, they become `jnp.count_nonzero(c)` (the index
  functions) or `jnp.count_nonzero(jnp.unique_counts(x, size=n).counts)` (`unique`), the true
  count. Any other way of counting the entries (the whole shape, a reduction, an iteration, a
  caller of the module taking the length of the returned result) gets no fix.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.lengths import ancestors_of, entries_counted, length_taken, parent_map
from jax_lsp.analysis.nodes import all_params, argument_of, contains, passes_keyword, walk_nodes
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
    """The call given `size=` (and `fill_value=`), with every length taken of its result
    counted without the padding; None where that is not known to give the intended result."""
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
    length = length_taken(result, parents)
    if length is not None:
        return _count_fix(node, qualname, length, size, method, ctx)
    if qualname in _INDEX_FUNCTIONS and _read_as_index(node, ctx.ancestors):
        return None  # padding read as an index clamps to the last element
    if entries_counted(result, parents):
        return None  # its shape, a reduction over it: the padding counts
    names, holds_tuple = _bound_names(result, parents)
    lengths = _lengths_of_bound(names, holds_tuple, qualname, ctx) if names else []
    if lengths is None:
        return None
    if _returned(result, parents, names, ctx):
        return None  # a caller counts its entries, padding included
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
    if lengths:
        count = _count_text(node, qualname, size, method, ctx)
        if count is None or not _count_stable(node, lengths, ctx):
            return None
        edits = (edit, *(node_edit(ctx, taken, count) for taken in lengths))
        return Fix(f"Pass `{text}` and count with `{count}`", edits, Applicability.UNSAFE)
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


def _count_fix(
    node: ast.Call, qualname: str, length: ast.expr, size: str, method: bool, ctx: FixSite
) -> Fix | None:
    """The result's length counted without padding: `jnp.count_nonzero(c)` for the index
    functions, the nonzero counts of `jnp.unique_counts(x, size=n)` for `unique`."""
    count = _count_text(node, qualname, size, method, ctx)
    if count is None:
        return None
    return Fix(f"Count with `{count}`", (node_edit(ctx, length, count),), Applicability.UNSAFE)


def _count_text(node: ast.Call, qualname: str, size: str, method: bool, ctx: FixSite) -> str | None:
    """How many real entries the call's result has, computed without it."""
    if method or not isinstance(node.func, ast.Attribute) or node.keywords:
        return None
    prefix = ctx.segment(node.func.value)
    if qualname in _INDEX_FUNCTIONS and len(node.args) == 1:
        return f"{prefix}.count_nonzero({ctx.segment(node.args[0])})"
    if qualname in _UNIQUE and len(node.args) == 1:
        counts = f"{prefix}.unique_counts({ctx.segment(node.args[0])}, size={size}).counts"
        return f"{prefix}.count_nonzero({counts})"
    return None


def _count_stable(node: ast.Call, lengths: list[ast.expr], ctx: FixSite) -> bool:
    """Does the count, written where each length was taken, read what the call read: every
    name of the call's argument bound once in the scope (a parameter, or one assignment), and
    every length taken after the call, outside nested functions?"""
    scope = ctx.functions[-1] if ctx.functions else None
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    read = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
    bindings = dict.fromkeys(read, 0)
    for parameter in all_params(scope):
        if parameter in bindings:
            bindings[parameter] += 1
    nested = []
    for found in walk_nodes(scope):
        if (
            isinstance(found, ast.Name)
            and found.id in bindings
            and not isinstance(found.ctx, ast.Load)
        ):
            bindings[found.id] += 1
        elif found is not scope and isinstance(
            found, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        ):
            nested.append(found)
    if any(count > 1 for count in bindings.values()):
        return False
    after = (node.end_lineno, node.end_col_offset)
    return all(
        (taken.lineno, taken.col_offset) > after
        and not any(contains(function, taken) for function in nested)
        for taken in lengths
    )


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


def _bound_names(result: ast.expr, parents: list[ast.AST]) -> tuple[list[str], bool]:
    """The names `name = result` or `a, b = result` binds, and whether a lone name holds the
    whole tuple of index arrays (`nz = jnp.nonzero(c)`: its arrays are `nz[0]`, ...)."""
    if not parents or not isinstance(parents[0], ast.Assign) or parents[0].value is not result:
        return [], False
    names = []
    holds_tuple = False
    for target in parents[0].targets:
        if isinstance(target, ast.Tuple | ast.List):
            names += [e.id for e in target.elts if isinstance(e, ast.Name)]
        elif isinstance(target, ast.Name):
            names.append(target.id)
            holds_tuple = isinstance(result, ast.Call)
    return names, holds_tuple


def _lengths_of_bound(
    names: list[str], holds_tuple: bool, qualname: str, ctx: FixSite
) -> list[ast.expr] | None:
    """The lengths taken of the arrays bound to `names` (`len(idx)`, `idx.shape[0]`,
    `nz[0].size`), which a count can replace; None where the padding would reach the answer
    otherwise: the array read with as an index, its shape or a reduction over it, or
    `.size` of `argwhere`'s two-dimensional result."""
    holds_tuple = holds_tuple and qualname in _INDEX_TUPLES
    scope = ctx.functions[-1] if ctx.functions else ctx.ancestors[0]
    parents = parent_map(scope)
    lengths: list[ast.expr] = []
    for found in ast.walk(scope):
        if not (isinstance(found, ast.Name) and found.id in names):
            continue
        if not isinstance(found.ctx, ast.Load):
            continue
        chain = ancestors_of(found, parents)
        used: ast.expr = found
        if chain and isinstance(chain[0], ast.Subscript) and chain[0].value is found:
            used = chain[0]  # `nz[0]`
            chain = chain[1:]
        elif holds_tuple:
            continue  # the tuple itself: its length is the number of dimensions
        taken = length_taken(used, chain)
        if taken is not None:
            if qualname == "jax.numpy.argwhere" and isinstance(taken, ast.Attribute):
                return None  # `.size` of rows x dimensions
            lengths.append(taken)
        elif entries_counted(used, chain) or (
            qualname in _INDEX_FUNCTIONS and _read_as_index(found, list(reversed(chain)))
        ):
            return None
    return lengths


def _returned(result: ast.expr, parents: list[ast.AST], names: list[str], ctx: FixSite) -> bool:
    """Is the result returned (itself, in a tuple, or through a name bound to it) to callers
    of the module that count its entries (`len(f(x))`)?"""
    scope = ctx.functions[-1] if ctx.functions else None
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    returned = [
        value
        for found in walk_nodes(scope)
        if isinstance(found, ast.Return) and (value := found.value) is not None
    ]
    escapes = any(
        value is result
        or (isinstance(value, ast.Tuple) and result in value.elts)
        or (isinstance(value, ast.Name) and value.id in names)
        or (
            isinstance(value, ast.Tuple)
            and any(isinstance(e, ast.Name) and e.id in names for e in value.elts)
        )
        for value in returned
    )
    return escapes and ctx.model.result_counted(scope)


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
