"""JAX701's fix: a Python branch that only selects a value becomes `jnp.where(cond, a, b)`.

Handled: `a if cond else b`; an `if`/`else` whose branches each only `return` a value, or only
assign the same names, one a statement; `if cond: return a` followed by `return b`; and `if
cond:` assigning names (`y = f(y)`, `y *= 2`) with no `else`, when each is bound before it (the
value if false is the name itself). Several names get one `jnp.where` each, in order (see
`_assignments` for when that order computes what the branches did); a condition that calls
something, or reads a name a `where` before the last assigns, is then computed once, first.
Tuples of one length (`return x, 1` / `return -x, 0`) select element by element. Where a value
can be NaN/inf or have an infinite derivative outside its branch (`sqrt`, `log`, `exp`,
division, fractional powers), its inputs are guarded ("double where"), so that `jax.grad` stays
finite. Both values are computed by `jnp.where`, so the fix is safe only when neither can have
a side effect, and when both are known to have one shape (`codeactions.broadcast`): `where`
broadcasts `x[0]` against `x` where the `if` gave the one element. A value that calls a
function (effectful or costly) is selected with `lax.cond(cond, lambda: a, lambda: b)`
instead, which runs only the branch taken (unsafe: both branches are traced, the condition
must be a scalar and both values of one type); several names with one `lax.cond` returning a
tuple, when no value reads a name its branch assigned above it (the lambdas see the names as
they were before the `if`). A branch that calls back into the function it is in (recursion)
gets no rewrite: tracing it recurses forever under either form. In a function traced through
its callers alone, a value (or the condition) that is a JAX array only as they call it makes
the fix unsafe: an untraced caller may pass NumPy or Python values, which the `if` keeps and
`jnp.where` turns into a JAX array.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize
from dataclasses import dataclass

from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.names import assigned_name
from jax_lsp.analysis.nodes import all_params
from jax_lsp.codeactions.broadcast import select_alike
from jax_lsp.codeactions.import_edits import module_prefix_and_edits
from jax_lsp.codeactions.site import FixSite, given_by_callers, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span

# Modules whose functions compute values without side effects (jnp.log, lax.select, ...).
_PURE_MODULES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.special.")
# Values `jnp.where` cannot stand for: containers and None change the result's structure.
_NOT_ARRAYS = (
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.Lambda,
    ast.Starred,
    ast.JoinedStr,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def branch_select_fix(
    node: ast.If | ast.IfExp,
    condition: tuple[str, tuple[Edit, ...], Applicability],
    ctx: FixSite,
) -> Fix | None:
    """The rewrite of `node` to `jnp.where`, given the condition's text (already rewritten
    for `and`/`or`/`not`), the edits that text needs and its safety; None if not a selection."""
    if isinstance(node, ast.IfExp):
        values = ((node.body, ctx.segment(node.body)), (node.orelse, ctx.segment(node.orelse)))
        selection = _Selection([(None, values)], node, node)
    elif _is_elif(node, ctx):
        return None
    else:
        selection = _statement_selection(node, ctx)
    if selection is None:
        return None
    assignments = selection.assignments
    pairs_of = [_selected_pairs(values, ctx) for _, values in assignments]
    if any(pairs is None for pairs in pairs_of):
        return None
    pairs = [pair for assigned in pairs_of for pair in assigned]
    every_value = [value for _, values in assignments for value in values]
    pure = all(_pure(value, ctx) for pair in pairs for value, _ in pair)
    calls = [n for value, _ in every_value for n in ast.walk(value) if isinstance(n, ast.Call)]
    lifted = not pure and bool(calls)
    if not (selection.apart if lifted else selection.in_order):
        return None
    if lifted and (
        any(_is_tuple(values) for _, values in assignments)
        or _recursive(calls, ctx)
        or _unliftable(every_value)
    ):
        return None
    module, alias, function = ("jax.lax", "lax", "cond") if lifted else _WHERE
    spelled = module_prefix_and_edits(ctx, module, alias)
    if spelled is None:
        return None
    prefix, import_edits = spelled
    condition_text, condition_edits, condition_safety = condition
    call = f"{prefix}.{function}({condition_text}, "
    smooth = guarded = False
    if lifted:
        statements = [_lifted(assignments, call)]
    else:
        statements = []
        tested_once = _pure(node.test, ctx)
        rebound = {target for target, _ in assignments[:-1]} & _reads(node.test)
        if len(assignments) > 1 and (rebound or not tested_once):
            # One `where` a name evaluates the condition once each: one that calls something
            # or reads a name an earlier `where` assigns is computed once, first, as the `if`
            # did.
            held = _unused_name("condition", ctx)
            if held is None:
                return None
            statements.append(f"{held} = {condition_text}")
            call, tested_once = f"{prefix}.{function}({held}, ", True
        smooth = all(_finite_gradient(value, ctx) for pair in pairs for value, _ in pair)
        # The guards repeat the condition: only one that evaluates without side effects.
        guards = None if smooth or not tested_once else _guards(pairs, call, ctx)
        guarded = guards is not None
        arguments = guards if guarded else [[text for _, text in pair] for pair in pairs]
        selected = iter(f"{call}{if_true}, {if_false})" for if_true, if_false in arguments)
        for (target, values), assigned in zip(assignments, pairs_of, strict=True):
            text = ", ".join(next(selected) for _ in assigned)
            if _is_tuple(values):
                text += "," if len(assigned) == 1 else ""
                text = f"({text})" if target is None else text
            statements.append(_statement(target, text))
    # `lax.cond` raises on branches of two shapes; `jnp.where` broadcasts them.
    alike = lifted or all(
        select_alike(if_true, if_false, node.test, ctx) for (if_true, _), (if_false, _) in pairs
    )
    safe = (
        pure
        and smooth
        and alike
        and condition_safety is Applicability.SAFE
        and not any(
            given_by_callers(ctx, value)
            for value in [node.test, *(value for pair in pairs for value, _ in pair)]
        )
    )
    safety = Applicability.SAFE if safe else Applicability.UNSAFE
    if isinstance(node, ast.IfExp):
        edit = node_edit(ctx, node, statements[0])
    else:
        edit = _statement_edit(selection.start, selection.end, statements, ctx)
        if edit is None:
            return None
    verb = "Select" if function == "where" else "Branch"
    title = f"{verb} with `{prefix}.{function}(...)`"
    if guarded:
        title += ", guarding the inputs of `sqrt`/`log`/division so gradients stay finite"
    elif function == "where" and not smooth:
        title += " (under `jax.grad`, NaN where the value not selected is not finite)"
    if not alike:
        title += " (both values must have one shape: `where` broadcasts them)"
    # The condition's rewrite may add the same import as the selection.
    imports = tuple(edit for edit in import_edits if edit not in condition_edits)
    return Fix(title, (edit, *condition_edits, *imports), safety)


def _unused_name(base: str, ctx: FixSite) -> str | None:
    """`base` (or `base_2`, ...) where the enclosing function names nothing so; None outside
    a function (a module-level name may be read from anywhere)."""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} | set(
        all_params(function)
    )
    return next(
        name
        for name in (base, *(f"{base}_{index}" for index in range(2, len(taken) + 3)))
        if name not in taken
    )


def _statement(target: str | None, text: str) -> str:
    """The selected `text` as the expression it replaces (no target), a `return` or an
    assignment."""
    if target is None:
        return text
    return f"return {text}" if target == "return" else f"{target} = {text}"


def _lifted(assignments, call: str) -> str:
    """`y = lax.cond(c, lambda: a, lambda: b)`; for several names one `lax.cond` returning a
    tuple (`y, z = lax.cond(c, lambda: (a, c), lambda: (b, d))`)."""
    if len(assignments) == 1:
        ((target, ((_, first), (_, second))),) = assignments
        return _statement(target, f"{call}lambda: {first}, lambda: {second})")
    targets = ", ".join(target for target, _ in assignments)
    branches = [
        "(" + ", ".join(values[taken][1] for _, values in assignments) + ")" for taken in (0, 1)
    ]
    return f"{targets} = {call}lambda: {branches[0]}, lambda: {branches[1]})"


_WHERE = ("jax.numpy", "jnp", "where")


def _guards(pairs, call: str, ctx: FixSite) -> list[list[str]] | None:
    """Each pair's two values guarded (see `_guarded`) for `call` (`jnp.where(cond, `);
    None when one cannot be."""
    guarded = [
        [
            _guarded(text, call, taken, ctx)
            for (_, text), taken in zip(pair, (True, False), strict=True)
        ]
        for pair in pairs
    ]
    return None if any(None in pair for pair in guarded) else guarded


def _value(node: ast.expr, ctx: FixSite) -> tuple[ast.expr, str]:
    return node, ctx.segment(node)


def _selected_pairs(values, ctx: FixSite):
    """The (value if true, value if false) pairs one `jnp.where` each selects: the two values,
    or the elements of two tuples of one length (`return x, 1` / `return -x, 0`); None when a
    value is not an array (a string, a list, a tuple of another length)."""
    (first, _), (second, _) = values
    if isinstance(first, ast.Tuple) and isinstance(second, ast.Tuple):
        if len(first.elts) != len(second.elts) or not first.elts:
            return None
        pairs = [
            (_value(a, ctx), _value(b, ctx)) for a, b in zip(first.elts, second.elts, strict=True)
        ]
    else:
        pairs = [values]
    if any(_not_an_array(value, ctx) for pair in pairs for value, _ in pair):
        return None
    return pairs


def _is_tuple(values) -> bool:
    return isinstance(values[0][0], ast.Tuple)


def _statement_selection(node: ast.If, ctx: FixSite) -> _Selection | None:
    """What an `if` statement that only selects values selects: both branches `return` a
    value (or the `if` returns and the statement after it does), or assign names (see
    `_assignments`); None otherwise."""
    then = node.body[0]
    if node.orelse:
        otherwise = node.orelse[0]
        if isinstance(otherwise, ast.If):
            return None  # elif chains
    else:
        otherwise = _next_statement(node, ctx)
    if isinstance(then, ast.Return) and isinstance(otherwise, ast.Return):
        if len(node.body) != 1 or len(node.orelse) > 1:
            return None
        if then.value is None or otherwise.value is None:
            return None
        values = (_value(then.value, ctx), _value(otherwise.value, ctx))
        return _Selection([("return", values)], node, otherwise)
    return _assignments(node, ctx)


@dataclass(frozen=True)
class _Selection:
    """What a branch selects: (target, ((value, its text) if true, (value, its text) if
    false)) in order, the target a name, "return", or None for a conditional expression; the
    first and last statement the rewrite replaces."""

    assignments: list[tuple[str | None, tuple[tuple[ast.expr, str], tuple[ast.expr, str]]]]
    start: ast.AST
    end: ast.AST
    # One `jnp.where` per name, in order, computes what the branches did.
    in_order: bool = True
    # Every value reads only what was bound before the `if`: one `lax.cond` returning them
    # all (each name once) computes what the branches did.
    apart: bool = True


def _assignments(node: ast.If, ctx: FixSite) -> _Selection | None:
    """Branches that only assign names, one name a statement (`y = v`, `y op= v`).

    Without an `else`, each name keeps its value if false and must be bound before the `if`;
    one `jnp.where(cond, v, y)` per statement, in order, computes what the branch did even
    where a value reads a name assigned above it (where the condition is false, every name
    still holds its old value). With an `else`, both branches assign the same names, each
    once, paired in the first branch's order; a value of the `else` must see the names the
    rewrite assigned before its `where` exactly as the `else` did (`in_order`): where the
    `else` assigned a name it reads only after it, or before, and the first branch in the
    other order, the rewrite gives it another value."""
    body = [_assigned(statement, ctx) for statement in node.body]
    if any(assigned is None for assigned in body):
        return None
    if not node.orelse:
        if not all(_bound_before(name, node, ctx) for name, _ in body):
            return None
        names = [name for name, _ in body]
        assignments = [
            (name, (value, (ast.Name(id=name, ctx=ast.Load()), name))) for name, value in body
        ]
        apart = len(set(names)) == len(names) and _reads_none_before(body)
        return _Selection(assignments, node, node, True, apart)
    otherwise = [_assigned(statement, ctx) for statement in node.orelse]
    if any(assigned is None for assigned in otherwise):
        return None
    names = [name for name, _ in body]
    other_names = [name for name, _ in otherwise]
    if len(set(names)) != len(names) or sorted(names) != sorted(other_names):
        return None
    values_otherwise = dict(otherwise)
    assignments = [(name, (value, values_otherwise[name])) for name, value in body]
    in_order = all(
        _reads(values_otherwise[name][0]) & set(names[:position])
        == _reads(values_otherwise[name][0]) & set(other_names[: other_names.index(name)])
        for position, name in enumerate(names)
    )
    apart = _reads_none_before(body) and _reads_none_before(otherwise)
    return _Selection(assignments, node, node.orelse[-1], in_order, apart)


def _reads(value: ast.expr) -> set[str]:
    return {
        n.id for n in ast.walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _reads_none_before(branch: list[tuple[str, tuple[ast.expr, str]]]) -> bool:
    """No value of the branch reads a name the branch assigned above it."""
    return not any(
        _reads(value) & {name for name, _ in branch[:position]}
        for position, (_, (value, _)) in enumerate(branch)
    )


# `y op= v` as the value `y op (v)`.
_OPERATORS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}
_ATOMS = (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript)


def _assigned(statement: ast.stmt, ctx: FixSite) -> tuple[str, tuple[ast.expr, str]] | None:
    """The name `y = value` / `y op= value` assigns, and the value (`y op (value)`) with its
    text; None for another statement."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        name = statement.target.id
        value = ctx.segment(statement.value)
        if not isinstance(statement.value, _ATOMS):
            value = f"({value})"
        text = f"{name} {_OPERATORS[type(statement.op)]} {value}"
        load = ast.Name(id=name, ctx=ast.Load())
        return name, (ast.BinOp(left=load, op=statement.op, right=statement.value), text)
    name = assigned_name(statement)
    if name is None:
        return None
    return name, _value(statement.value, ctx)


def _bound_before(name: str, node: ast.stmt, ctx: FixSite) -> bool:
    """Is `name` a parameter of the enclosing function, or stored before `node` in it?"""
    if not ctx.functions:
        return False
    function = ctx.functions[-1]
    if name in all_params(function):
        return True
    here = (node.lineno, node.col_offset)
    return any(
        isinstance(other, ast.Name)
        and isinstance(other.ctx, ast.Store)
        and other.id == name
        and (other.lineno, other.col_offset) < here
        for other in ast.walk(function)
    )


def _recursive(calls: list[ast.Call], ctx: FixSite) -> bool:
    """Does a call reach a function the branch is in (directly or through module functions)?
    Tracing such a branch calls it again while it is being traced, forever."""
    enclosing = {getattr(function, "name", None) for function in ctx.functions} - {None}
    defined = {
        statement.name: statement
        for unit in ctx.model.document.units
        for statement in (unit.tree.body if unit.tree else ())
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    pending = [_called_name(call) for call in calls]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name is None or name in seen:
            continue
        if name in enclosing:
            return True
        seen.add(name)
        if name in defined:
            body = ast.walk(defined[name])
            pending += [_called_name(n) for n in body if isinstance(n, ast.Call)]
    return False


def _called_name(call: ast.Call) -> str | None:
    """`f` of `f(...)`, `method` of `self.method(...)`."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _unliftable(values) -> bool:
    """A value that cannot move into a `lambda`: it binds a name or suspends the function."""
    barred = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)
    return any(isinstance(n, barred) for value, _ in values for n in ast.walk(value))


def _is_elif(node: ast.If, ctx: FixSite) -> bool:
    parent = ctx.parent
    return (
        isinstance(parent, ast.If)
        and parent.orelse == [node]
        and not ctx.segment(node).startswith("if")
    )


def _next_statement(node: ast.stmt, ctx: FixSite) -> ast.stmt | None:
    parent = ctx.parent
    for _, value in ast.iter_fields(parent) if parent is not None else ():
        if isinstance(value, list) and node in value:
            index = value.index(node)
            return value[index + 1] if index + 1 < len(value) else None
    return None


def _not_an_array(value: ast.expr, ctx: FixSite) -> bool:
    """A value `jnp.where` cannot select: a string, a Python container (a list of gradients
    stays a list), a function."""
    if isinstance(value, ast.Constant):
        return not isinstance(value.value, bool | int | float | complex)
    return isinstance(value, _NOT_ARRAYS) or ctx.kind(value) in (Kind.SEQUENCE, Kind.ITERATOR)


def _pure(node: ast.expr, ctx: FixSite) -> bool:
    """Evaluating `node` cannot have a side effect: names, constants, arithmetic, indexing
    and calls of jax.numpy / lax functions."""
    if isinstance(node, ast.Constant | ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _pure(node.value, ctx)
    if isinstance(node, ast.BinOp):
        return _pure(node.left, ctx) and _pure(node.right, ctx)
    if isinstance(node, ast.UnaryOp):
        return _pure(node.operand, ctx)
    if isinstance(node, ast.Compare):
        return all(_pure(part, ctx) for part in (node.left, *node.comparators))
    if isinstance(node, ast.BoolOp):
        return all(_pure(value, ctx) for value in node.values)
    if isinstance(node, ast.Subscript):
        return _pure(node.value, ctx) and _pure(node.slice, ctx)
    if isinstance(node, ast.Slice):
        return all(_pure(part, ctx) for part in (node.lower, node.upper, node.step) if part)
    if isinstance(node, ast.Tuple):
        return all(_pure(element, ctx) for element in node.elts)
    if isinstance(node, ast.Call):
        qualname = ctx.qualname(node.func) or ""
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        return qualname.startswith(_PURE_MODULES) and all(_pure(a, ctx) for a in arguments)
    return False


# Functions whose value and derivative are finite wherever their arguments are finite: a
# `jnp.where` over such values has a finite gradient on both sides of the condition.
_SMOOTH_FUNCTIONS = frozenset(
    {
        *(
            f"jax.numpy.{name}"
            for name in (
                *("abs", "absolute", "maximum", "minimum", "clip", "where", "sin", "cos"),
                *("tanh", "negative", "positive", "square", "zeros_like", "ones_like"),
                *("full_like", "sign", "real", "imag", "conj", "conjugate"),
                *("zeros", "ones", "full", "array", "asarray"),
            )
        ),
        *(f"jax.nn.{name}" for name in ("relu", "sigmoid", "softplus", "silu", "gelu")),
        *(f"jax.lax.{name}" for name in ("max", "min", "neg", "abs", "select")),
    }
)


def _finite_gradient(node: ast.expr, ctx: FixSite) -> bool:
    """Are `node`'s value and derivative finite wherever its inputs are finite? `jnp.where`
    differentiates both values and multiplies the one not selected by zero, and `0 * inf` and
    `0 * nan` are NaN: `jnp.where(x > 0, jnp.sqrt(x), 0.0)` has a NaN gradient at 0 and below.
    Names, numbers, `+`, `-`, `*`, division by a non-zero number, whole powers and a short
    list of smooth functions (`abs`, `maximum`, `clip`, `tanh`, ...) qualify; `sqrt`, `log`,
    division by a value and any other call do not."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool | int | float | complex)
    if isinstance(node, ast.Name | ast.Compare):
        return True  # a comparison has no gradient
    if isinstance(node, ast.Attribute):
        return _finite_gradient(node.value, ctx)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub | ast.UAdd) and _finite_gradient(node.operand, ctx)
    if isinstance(node, ast.BinOp):
        if not _finite_gradient(node.left, ctx):
            return False
        right = node.right
        if isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
            return _finite_gradient(right, ctx)
        number = right.value if isinstance(right, ast.Constant) else None
        if isinstance(node.op, ast.Div):
            return isinstance(number, int | float) and not isinstance(number, bool) and number != 0
        if isinstance(node.op, ast.Pow):
            return isinstance(number, int) and not isinstance(number, bool) and number >= 0
        return False
    if isinstance(node, ast.Subscript):
        return _finite_gradient(node.value, ctx) and _pure(node.slice, ctx)
    if isinstance(node, ast.Call):
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        return ctx.qualname(node.func) in _SMOOTH_FUNCTIONS and all(
            _finite_gradient(argument, ctx) for argument in arguments
        )
    return False


# Functions that are not finite or not differentiable somewhere, and a value inside their
# domain with a finite derivative: what their input becomes where its branch is not taken.
_GUARDS = {
    **{f"jax.numpy.{name}": "1.0" for name in ("sqrt", "log", "log2", "log10", "reciprocal")},
    **{f"jax.numpy.{name}": "0.0" for name in ("log1p", "arcsin", "arccos", "arctanh", "tan")},
    **{f"jax.numpy.{name}": "0.0" for name in ("exp", "exp2", "expm1")},  # overflow to inf
    "jax.numpy.cbrt": "1.0",
    "jax.numpy.arccosh": "2.0",
    **{f"jax.lax.{name}": "1.0" for name in ("sqrt", "rsqrt", "cbrt", "log")},
    **{f"jax.lax.{name}": "0.0" for name in ("log1p", "exp", "expm1", "tan")},
}
# Two-argument functions: which argument to guard, and its safe value. A base of 1.0 keeps
# `x ** p` and its derivatives in `x` and `p` finite (`1 ** p * log(1)` is 0).
_ARGUMENT_GUARDS = {
    **dict.fromkeys(("jax.numpy.power", "jax.numpy.float_power", "jax.lax.pow"), (0, "1.0")),
    **dict.fromkeys(("jax.numpy.divide", "jax.numpy.true_divide", "jax.lax.div"), (1, "1.0")),
}


def _guard_spans(node: ast.expr, ctx: FixSite) -> list[tuple[ast.expr, str]] | None:
    """The inputs to guard in `node` (each with its safe value) for its gradient to be finite
    everywhere: the argument of `sqrt`/`log`/`exp`/..., the divisor of `/` and the base of
    `**`, each itself smooth; None when some part cannot be guarded that way."""
    if _finite_gradient(node, ctx):
        return []
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _guard_spans(node.operand, ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
        left, right = _guard_spans(node.left, ctx), _guard_spans(node.right, ctx)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Pow):
        return _argument_guards(node.left, node.right, int(isinstance(node.op, ast.Div)), ctx)
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    qualname = ctx.qualname(node.func)
    if qualname in _GUARDS and len(node.args) == 1 and _finite_gradient(node.args[0], ctx):
        return [(node.args[0], _GUARDS[qualname])]
    if qualname in _ARGUMENT_GUARDS and len(node.args) == 2:
        guarded, safe = _ARGUMENT_GUARDS[qualname]
        return _argument_guards(*node.args, guarded, ctx, safe)
    return None


def _argument_guards(
    left: ast.expr, right: ast.expr, guarded: int, ctx: FixSite, safe: str = "1.0"
) -> list[tuple[ast.expr, str]] | None:
    """`left / right` guards `right` (guarded=1); `left ** right` guards `left` (guarded=0).
    The other operand may itself need guards (a numerator with a `log`); the guarded one is
    replaced whole where its branch is not taken, so it must be smooth itself."""
    operands = (left, right)
    other = _guard_spans(operands[1 - guarded], ctx)
    if other is None or not _finite_gradient(operands[guarded], ctx):
        return None
    if guarded == 0 and other:
        return None  # `x ** log(y)`: the exponent's guard and the base's would nest
    return [*other, (operands[guarded], safe)]


def _guarded(text: str, call: str, taken: bool, ctx: FixSite) -> str | None:
    """The "double where": `value`'s text with each input of a non-smooth part replaced, where
    its branch is not taken, by a safe value (`jnp.sqrt(jnp.where(x > 0, x, 1.0))`). The
    selected values are unchanged, and the branch not taken has a finite value and
    derivative, so `jax.grad` of the `jnp.where` is finite. Only for a value on one line.
    The text is parsed again, so that a value the fix composed (`y + (v)` for `y += v`) has
    positions too."""
    if "\n" in text:
        return None
    try:
        parsed = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    spans = _guard_spans(parsed, ctx)
    if spans is None:
        return None
    encoded = text.strip().encode()
    for node, safe in sorted(spans, key=lambda span: -span[0].col_offset):
        start, end = node.col_offset, node.end_col_offset
        inner = encoded[start:end].decode()
        chosen = f"{inner}, {safe}" if taken else f"{safe}, {inner}"
        replaced = f"{call}{chosen})".encode()
        encoded = encoded[:start] + replaced + encoded[end:]
    return encoded.decode()


def _statement_edit(
    start: ast.AST, end: ast.AST, statements: list[str], ctx: FixSite
) -> Edit | None:
    """An edit replacing the statements from `start` to the end of `end`'s line by
    `statements`, one a line, keeping their comments (one as a trailing comment of the first,
    several on lines of their own)."""
    first, last = start.lineno - 1, end.end_lineno - 1
    comments = _comments(ctx.lines[first : last + 1])
    if comments is None:
        return None
    start_column = ctx.span(start).start.column
    indent = ctx.lines[first][:start_column]
    if len(comments) == 1:
        statements = [f"{statements[0]}  {comments[0]}", *statements[1:]]
    elif comments:
        statements = [*comments, *statements]
    span = Span.of(first, start_column, last, len(ctx.lines[last]))
    return Edit(span, f"\n{indent}".join(statements))


def _comments(lines: list[str]) -> list[str] | None:
    """The comments in `lines` (a run of whole statements); None if they do not tokenize."""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(textwrap.dedent("\n".join(lines))).readline)
        return [token.string for token in tokens if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
