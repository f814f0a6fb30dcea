"""Boolean mask to `jnp.where`: `x[mask].sum()` -> `jnp.where(mask, x, 0).sum()`.

Under `jax.jit`, `x[mask]` raises NonConcreteBooleanIndexError (its size depends on the mask's
values). A reduction of it has a static shape, though: replacing the dropped elements with the
reduction's identity, or passing the mask as the reduction's own `where=`, computes the same value.

Recognised, at the position of the reduction call (0-based line and code-point column, as `ast`
gives it):
- method form `x[mask].sum()` and function form `jnp.sum(x[mask])`, for sum, prod, max, min,
  any, all and mean, without further arguments;
- the guide's nansum shape, `y = x[mask]` followed by a single use `y.sum()` in the same function:
  the assignment goes and the reduction reads `x` and `mask` directly.
A bare `y = x[mask]` (no reduction) has no equivalent of static shape: no rewrite.

Safety: the rewrite is SAFE when the mask is visibly elementwise in `x` (`x > 0`, `~jnp.isnan(x)`,
or a local name assigned once to such an expression), so both have one shape; otherwise the mask
might select rows of a higher-rank `x`, where `jnp.where` would broadcast differently: UNSAFE.
max/min are always UNSAFE: the identity (-inf/inf) turns an integer result into a float, and an
empty mask gives -inf/inf where the eager code raises ValueError.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from jax_lsp.analysis.elementwise import ELEMENTWISE_FUNCTIONS
from jax_lsp.analysis.reductions import IDENTITIES, REDUCTION_FUNCTIONS
from jax_lsp.codeactions.source import ModuleSource, edit, minimal_edit
from jax_lsp.findings import Applicability, Edit, Fix

_NEEDS_INITIAL = frozenset({"max", "min"})
# Contexts where a division needs no parentheses around it.
_LOOSE_PARENTS = (
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.Return,
    ast.Expr,
    ast.keyword,
    ast.Call,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
)


@dataclass(frozen=True)
class _Match:
    """A reduction of a boolean-indexed array, located in the module."""

    call: ast.Call
    reduction: str
    method_form: bool
    masked: ast.expr  # the `x[mask]` subscript, or the name bound to it (nansum shape)
    subscript: ast.Subscript
    ancestors: list[ast.AST]
    offset: int  # unit start line
    binding: ast.Assign | None = None  # `y = x[mask]`, removed by the fix


def mask_reduction_fixes(source: str, line: int, column: int) -> tuple[Fix, ...]:
    """Fixes for the reduction call at (line, column): `jnp.where` first, then `where=`."""
    module = ModuleSource(source)
    match = _find(module, line, column)
    if match is None:
        return ()
    fixes = (_where_fix(module.fork(), match), _keyword_fix(module.fork(), match))
    return tuple(fix for fix in fixes if fix is not None)


def where_mask_fix(source: str, line: int, column: int) -> Fix | None:
    """The `jnp.where(mask, x, identity)` rewrite of the reduction call at (line, column)."""
    fixes = mask_reduction_fixes(source, line, column)
    return fixes[0] if fixes else None


# Recognition --------------------------------------------------------------------------------


def _find(module: ModuleSource, line: int, column: int) -> _Match | None:
    for node, ancestors, offset in module.nodes_at(line):
        if isinstance(node, ast.Call) and module.start(node, offset) == (line, column):
            match = _match(module, node, ancestors, offset)
            if match is not None:
                return match
    return None


def _match(
    module: ModuleSource, call: ast.Call, ancestors: list[ast.AST], offset: int
) -> _Match | None:
    if call.keywords:
        return None
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in IDENTITIES and not call.args:
        reduction, method_form, masked = func.attr, True, func.value
    elif len(call.args) == 1 and (module.resolver.qualname(func) or "") in REDUCTION_FUNCTIONS:
        reduction = REDUCTION_FUNCTIONS[module.resolver.qualname(func)]
        method_form, masked = False, call.args[0]
    else:
        return None
    if isinstance(masked, ast.Subscript) and _is_mask_index(masked.slice):
        return _Match(call, reduction, method_form, masked, masked, ancestors, offset)
    if isinstance(masked, ast.Name):
        binding = _single_use_binding(masked, ancestors)
        if binding is not None:
            subscript = binding.value
            return _Match(
                call, reduction, method_form, masked, subscript, ancestors, offset, binding
            )
    return None


def _is_mask_index(index: ast.expr) -> bool:
    """An index that can be a boolean array (not a slice, tuple, literal or `None`)."""
    return not isinstance(index, ast.Slice | ast.Tuple | ast.Constant | ast.Starred)


def _enclosing_function(ancestors: list[ast.AST]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in reversed(ancestors):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node
    return None


def _single_use_binding(name: ast.Name, ancestors: list[ast.AST]) -> ast.Assign | None:
    """`name = x[mask]`, when that is the name's only binding and this its only use."""
    function = _enclosing_function(ancestors)
    if function is None:
        return None
    uses = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name.id]
    stores = [n for n in uses if isinstance(n.ctx, ast.Store)]
    if len(uses) != 2 or len(stores) != 1:
        return None
    binding = _statement_binding(function, stores[0])
    if binding is None or binding.end_lineno >= name.lineno:
        return None
    subscript = binding.value
    if not (isinstance(subscript, ast.Subscript) and _is_mask_index(subscript.slice)):
        return None
    read = {n.id for n in ast.walk(subscript) if isinstance(n, ast.Name)}
    for node in ast.walk(function):
        rebound = isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in read
        if rebound and binding.end_lineno <= node.lineno <= name.lineno:
            return None  # `x` or `mask` changes between the binding and the reduction
    return binding


def _statement_binding(function: ast.AST, target: ast.Name) -> ast.Assign | None:
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and node.targets == [target]:
            return node
    return None


def _single_binding(function: ast.AST, name: str) -> ast.expr | None:
    """The value of `name = value` when that is the only binding of `name` in `function`."""
    stores = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
    ]
    binding = _statement_binding(function, stores[0]) if len(stores) == 1 else None
    return binding.value if binding is not None else None


def _elementwise_in(module: ModuleSource, mask: ast.expr, array: ast.expr, match: _Match) -> bool:
    """Whether `mask` visibly has the shape of `array` (built from it elementwise)."""
    if isinstance(mask, ast.Name):
        function = _enclosing_function(match.ancestors)
        value = _single_binding(function, mask.id) if function is not None else None
        return value is not None and _elementwise_in(module, value, array, match)
    if isinstance(mask, ast.Compare):
        operands = [mask.left, *mask.comparators]
    elif isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert):
        operands = [mask.operand]
    elif isinstance(mask, ast.BinOp) and isinstance(mask.op, ast.BitAnd | ast.BitOr | ast.BitXor):
        operands = [mask.left, mask.right]
    elif (
        isinstance(mask, ast.Call) and module.resolver.qualname(mask.func) in ELEMENTWISE_FUNCTIONS
    ):
        operands = list(mask.args)
    else:
        return False
    target = ast.dump(array)
    return any(ast.dump(operand) == target for operand in operands) or any(
        _elementwise_in(module, operand, array, match)
        for operand in operands
        if not isinstance(operand, ast.Constant | ast.Name)
    )


# Rewriting ----------------------------------------------------------------------------------


def _expression(text: str) -> cst.BaseExpression:
    """Parse an expression that may span lines, without the parentheses that allowed it."""
    node = cst.parse_expression(f"({text})")
    return node.with_changes(lpar=[], rpar=[])


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node`, parenthesised unless it binds as tightly as an attribute access."""
    if node.lpar or isinstance(node, cst.Name | cst.Attribute | cst.Call | cst.Subscript):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _call(func: str, *args: cst.BaseExpression, **keywords: cst.BaseExpression) -> cst.Call:
    arguments = [cst.Arg(arg) for arg in args]
    equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    arguments += [cst.Arg(v, keyword=cst.Name(k), equal=equal) for k, v in keywords.items()]
    return cst.Call(cst.parse_expression(func), arguments)


def _pieces(module: ModuleSource, match: _Match) -> tuple[cst.BaseExpression, cst.BaseExpression]:
    offset = match.offset
    array, mask = match.subscript.value, match.subscript.slice
    array_text = module.segment(module.start(array, offset), module.end(array, offset))
    mask_text = module.segment(module.start(mask, offset), module.end(mask, offset))
    return _expression(array_text), _expression(mask_text)


def _safety(module: ModuleSource, match: _Match) -> Applicability:
    if match.reduction in _NEEDS_INITIAL:
        return Applicability.UNSAFE
    subscript = match.subscript
    if _elementwise_in(module, subscript.slice, subscript.value, match):
        return Applicability.SAFE
    return Applicability.UNSAFE


def _replace(module: ModuleSource, match: _Match, node: ast.AST, new: str) -> list[Edit]:
    start, end = module.start(node, match.offset), module.end(node, match.offset)
    edits = [minimal_edit(start, module.segment(start, end), new)]
    if match.binding is not None:
        edits.append(_delete_statement(module, match.binding, match.offset))
    return list(module.with_imports(edits))


def _delete_statement(module: ModuleSource, statement: ast.stmt, offset: int) -> Edit:
    first = statement.lineno - 1 + offset
    last = statement.end_lineno - 1 + offset
    return edit((first, 0), (last + 1, 0), "")


def _where_fix(module: ModuleSource, match: _Match) -> Fix | None:
    array, mask = _pieces(module, match)
    np = module.alias("jax.numpy")
    identity = cst.parse_expression(IDENTITIES[match.reduction].format(np=np))
    where = _call(f"{np}.where", mask, array, identity)
    if match.reduction == "mean":
        if match.method_form:
            total = _call(f"{_code(where)}.sum")
            count = _call(f"{_code(_atom(mask))}.sum")
        else:
            total, count = _call(f"{np}.sum", where), _call(f"{np}.sum", mask)
        new = cst.BinaryOperation(total, cst.Divide(), count)
        if not isinstance(match.ancestors[-1], _LOOSE_PARENTS):
            new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        written = _code(new)
        edits = _replace(module, match, match.call, written)
    else:
        written = _code(where)
        edits = _replace(module, match, match.masked, written)
    # What the fix writes, with the user's mask, array and the reduction's identity.
    title = f"Replace the boolean mask with `{written}`"
    return Fix(title, tuple(edits), _safety(module, match))


def _keyword_fix(module: ModuleSource, match: _Match) -> Fix | None:
    array, mask = _pieces(module, match)
    keywords: dict[str, cst.BaseExpression] = {"where": mask}
    if match.reduction in _NEEDS_INITIAL:
        np = module.alias("jax.numpy")
        keywords["initial"] = cst.parse_expression(IDENTITIES[match.reduction].format(np=np))
    if match.method_form:
        call = _call(f"{_code(_atom(array))}.{match.reduction}", **keywords)
    else:
        func = match.call.func
        func_text = module.segment(module.start(func, match.offset), module.end(func, match.offset))
        call = _call(func_text, array, **keywords)
    edits = _replace(module, match, match.call, _code(call))
    title = f"Pass the boolean mask as `where=` to `{match.reduction}`"
    return Fix(title, tuple(edits), _safety(module, match))
