"""Is an expression a boolean array? Comparisons, `~mask`, `a & b`, `jnp.isnan(x)`, ... and
local names bound only to such expressions in the same function. Read by rules (JAX702,
JAX801) and by the `jnp.logical_*` fix, which is safe only on boolean operands."""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass
from typing import Protocol

from jax_lsp.analysis.dtypes import DTYPE_POSITION, dtype_argument
from jax_lsp.analysis.nodes import all_params, walk_nodes

# The `jax.numpy` function each logic operator becomes (`not` is "logical_not").
LOGIC_FUNCTIONS = {ast.And: "logical_and", ast.Or: "logical_or"}


def is_logic(node: ast.AST) -> bool:
    """`a and b`, `a or b`, `not a`: Python tests an operand's truth."""
    return isinstance(node, ast.BoolOp) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


class Scope(Protocol):
    """Where an expression stands: its enclosing functions and its names' meaning."""

    functions: list[ast.AST]  # enclosing FunctionDef/Lambda nodes, innermost last

    def qualname(self, node: ast.AST) -> str | None: ...

    # A scope that knows the objects its names hold may also answer
    # `boolean_attribute(node: ast.Attribute) -> bool`: `obj.field` holds a boolean array;
    # `boolean_entry(parameter, key) -> bool`: every caller's dict holds one there;
    # `boolean_parameter(name) -> bool`: a run of the function gives the parameter one; and
    # `returned_boolean(call, place) -> bool`: the function called returns one (place -1),
    # or one at `place` of the tuple it returns; `module_binding(name) -> ast.expr | None`:
    # the value a name bound once at module level holds.


# jax.numpy functions whose result is a boolean array.
BOOLEAN_FUNCTIONS = frozenset(
    f"jax.numpy.{name}"
    for name in [
        "isnan",
        "isfinite",
        "isinf",
        "isneginf",
        "isposinf",
        "isclose",
        "signbit",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "equal",
        "not_equal",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "isin",
        "all",  # reductions to a boolean array
        "any",
        "allclose",
        "array_equal",
        "array_equiv",
    ]
)
# Functions that rearrange their first argument's elements and keep its dtype: of a boolean
# array, a boolean array (`jnp.triu(jnp.ones((n, n), dtype=bool), k=1)`, a causal mask);
# measured for jax.numpy and NumPy.
_REARRANGING = frozenset(
    f"{module}.{name}"
    for module in ("jax.numpy", "numpy")
    for name in [
        *("triu", "tril", "transpose", "ravel", "flip", "fliplr", "flipud", "squeeze"),
        *("atleast_1d", "atleast_2d", "atleast_3d", "rot90", "expand_dims", "broadcast_to"),
        *("reshape", "roll", "tile", "repeat", "swapaxes", "moveaxis"),
    ]
)
# Methods of a JAX array that reduce it to a boolean array (`jnp.isnan(x).any()`).
_BOOLEAN_METHODS = frozenset(("all", "any"))
_MAX_NAME_DEPTH = 3
# Array constructors (NumPy's too: a NumPy mask passed to a transformation becomes a traced
# boolean array); `array`/`asarray` of boolean literals are boolean without a dtype.
_CONSTRUCTORS = frozenset(
    name.replace(prefix, module, 1)
    for prefix in ["jax.numpy."]
    for name in DTYPE_POSITION
    if name.startswith(prefix)
    for module in ["jax.numpy.", "numpy."]
)
_BOOLEAN_DTYPES = frozenset(
    ["builtins.bool", "jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_", "numpy.bool"]
)


def is_boolean(node: ast.expr, ctx: Scope, depth: int = 0) -> bool:
    """A boolean-valued expression (as far as the text shows; unsure means False)."""
    if isinstance(node, ast.Compare):
        return not any(isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in node.ops)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.Invert):
        return is_boolean(node.operand, ctx, depth)
    if isinstance(node, ast.BoolOp):
        return all(is_boolean(value, ctx, depth) for value in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr | ast.BitXor):
        return is_boolean(node.left, ctx, depth) and is_boolean(node.right, ctx, depth)
    if isinstance(node, ast.Call):
        qualname = ctx.qualname(node.func)
        return (
            qualname in BOOLEAN_FUNCTIONS
            or _returned_boolean(node, -1, ctx)
            or _boolean_array(node, qualname, ctx)
            or _boolean_reduction(node, ctx)
            or _cast_to_boolean(node, ctx)
            or (
                qualname in _REARRANGING
                and bool(node.args)
                and not isinstance(node.args[0], ast.Starred)
                and is_boolean(node.args[0], ctx, depth)
            )
        )
    if isinstance(node, ast.Attribute):
        boolean_attribute = getattr(ctx, "boolean_attribute", None)
        return boolean_attribute is not None and boolean_attribute(node)
    if isinstance(node, ast.Name) and depth < _MAX_NAME_DEPTH:
        if _unbound_parameter(node.id, ctx):
            boolean_parameter = getattr(ctx, "boolean_parameter", None)
            return boolean_parameter is not None and boolean_parameter(node.id)
        values = _local_bindings(node.id, ctx)
        return bool(values) and all(
            _returned_boolean(value.call, value.place, ctx)
            if type(value) is Unpacked
            else is_boolean(value, ctx, depth + 1)
            for value in values
        )
    if isinstance(node, ast.Subscript) and depth < _MAX_NAME_DEPTH:
        entries = _dict_entries(node, ctx)
        if entries:
            return all(is_boolean(entry, ctx, depth + 1) for entry in entries)
        boolean_entry = getattr(ctx, "boolean_entry", None)
        return (
            boolean_entry is not None
            and _parameter_entry(node, ctx)
            and boolean_entry(node.value.id, node.slice.value)
        )
    return False


def _returned_boolean(call: ast.Call, place: int, ctx: Scope) -> bool:
    returned_boolean = getattr(ctx, "returned_boolean", None)
    return returned_boolean is not None and returned_boolean(call, place)


def _unbound_parameter(name: str, ctx: Scope) -> bool:
    """`name` is a parameter of the enclosing function, which never rebinds it."""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return any(arg.arg == name for arg in parameters) and name not in _bindings(function).rebound


def _parameter_entry(node: ast.Subscript, ctx: Scope) -> bool:
    """`batch["mask"]` of a parameter `batch` the enclosing function never rebinds and
    whose items it never writes: the entry a caller's dict gives."""
    function = ctx.functions[-1] if ctx.functions else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if not (
        isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return False
    name = node.value.id
    arguments = function.args
    if not any(arg.arg == name for arg in [*arguments.posonlyargs, *arguments.args]):
        return False
    stored = any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        for n in walk_nodes(function)
    )
    return not stored and not _items_written(name, function)


def _dict_entries(node: ast.Subscript, ctx: Scope) -> list[ast.expr]:
    """`batch["mask"]` where every binding of the local `batch` is a dict display holding
    the key `"mask"`, and no item of `batch` is stored or deleted in the function: the
    values the displays give that key ([] when unsure)."""
    key = node.slice
    if not (
        isinstance(node.value, ast.Name)
        and isinstance(key, ast.Constant)
        and isinstance(key.value, str)
    ):
        return []
    name = node.value.id
    values = _local_bindings(name, ctx)
    entries: list[ast.expr] = []
    for value in values:
        if not isinstance(value, ast.Dict) or None in value.keys:
            return []  # not a display, or `**other` unpacked into it
        found = [
            entry
            for entry_key, entry in zip(value.keys, value.values, strict=True)
            if isinstance(entry_key, ast.Constant) and entry_key.value == key.value
        ]
        if not found:
            return []
        entries.append(found[-1])
    if entries and _items_written(name, ctx.functions[-1]):
        return []
    return entries


def _items_written(name: str, function: ast.AST) -> bool:
    """Does the function store or delete an item of `name`, or call a method of it (`update`,
    `setdefault`, ...) that may change its items?"""
    for node in walk_nodes(function):
        if (
            isinstance(node, ast.Subscript)
            and not isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
            and node.func.attr not in ("get", "keys", "values", "items", "copy")
        ):
            return True
    return False


def _boolean_array(call: ast.Call, qualname: str | None, ctx: Scope) -> bool:
    """`jnp.array([True, False])`, `jnp.zeros(n, dtype=bool)`, `np.ones(3, jnp.bool_)`."""
    if qualname not in _CONSTRUCTORS:
        return False
    dtype = dtype_argument(call, "jax.numpy." + qualname.rpartition(".")[2])
    if dtype is not None:
        if isinstance(dtype, ast.Constant):
            return dtype.value == "bool"
        return ctx.qualname(dtype) in _BOOLEAN_DTYPES
    if qualname.endswith(("array", "asarray")) and call.args:
        return _boolean_literals(call.args[0])
    return False


def _boolean_literals(node: ast.expr) -> bool:
    """A (nested) list or tuple of `True`/`False` only."""
    if isinstance(node, ast.Constant):
        return type(node.value) is bool
    if isinstance(node, ast.List | ast.Tuple):
        return bool(node.elts) and all(_boolean_literals(element) for element in node.elts)
    return False


def _boolean_reduction(call: ast.Call, ctx: Scope) -> bool:
    """`.any()`/`.all()` of what a jax.numpy call returns (an array, whatever its dtype)."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in _BOOLEAN_METHODS
        and isinstance(func.value, ast.Call)
        and (ctx.qualname(func.value.func) or "").startswith("jax.numpy.")
    )


def _cast_to_boolean(call: ast.Call, ctx: Scope) -> bool:
    """`x.astype(bool)`, `x.astype(jnp.bool_)`, `x.astype(dtype="bool")`: an array's cast to
    booleans is a boolean array (NumPy's and JAX's alike)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "astype"):
        return False
    dtype = call.args[0] if call.args else None
    if dtype is None:
        dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
    if isinstance(dtype, ast.Constant):
        return dtype.value == "bool"
    return dtype is not None and ctx.qualname(dtype) in _BOOLEAN_DTYPES


@dataclass(frozen=True)
class Unpacked:
    """`name` bound by unpacking what a call returns (`x, y, mask = load(...)`): the item at
    `place` of its result."""

    call: ast.Call
    place: int


def bound_values(name: str, ctx: Scope) -> list[ast.expr | Unpacked]:
    """`_local_bindings`: every value bound to `name` where `ctx` stands ([] when unsure)."""
    return _local_bindings(name, ctx)


def items_written(name: str, function: ast.AST) -> bool:
    """`_items_written`: does the function store an item of `name` or call a method of it
    that may change its items?"""
    return _items_written(name, function)


def _local_bindings(name: str, ctx: Scope) -> list[ast.expr | Unpacked]:
    """Every value bound to `name` in the enclosing function, or [] when any binding is not a
    plain `name = value` or the unpacking of a call's result into names (loop targets,
    other unpacking, parameters, augmented assignment)."""
    function = ctx.functions[-1] if ctx.functions else None
    module_binding = getattr(ctx, "module_binding", None)
    if function is not None:
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return []
        bindings = _bindings(function)
        if module_binding is None or name in bindings.rebound or name in all_params(function):
            return bindings.values.get(name, [])
    elif module_binding is None:
        return []
    # A name the function never binds, or code at module level: the module's binding, where
    # the scope knows the names bound once there.
    value = module_binding(name)
    return [value] if value is not None else []


@dataclass(frozen=True)
class _Bindings:
    """A function's plain bindings (`_local_bindings`), by name, and the names it stores or
    deletes anywhere."""

    values: dict[str, list[ast.expr | Unpacked]]
    rebound: frozenset[str]


# Per-function memo (trees are immutable once parsed); weak keys so a forgotten tree takes
# its entry with it.
_BINDINGS: weakref.WeakKeyDictionary[ast.AST, _Bindings] = weakref.WeakKeyDictionary()


def _bindings(function: ast.FunctionDef | ast.AsyncFunctionDef) -> _Bindings:
    found = _BINDINGS.get(function)
    if found is not None:
        return found
    stores: dict[str, int] = {}
    rebound: set[str] = set()
    values: dict[str, list[ast.expr | Unpacked]] = {}
    for node in walk_nodes(function):
        if type(node) is ast.Name:
            if type(node.ctx) is ast.Store:
                stores[node.id] = stores.get(node.id, 0) + 1
            if type(node.ctx) is not ast.Load:
                rebound.add(node.id)
        elif type(node) is ast.Assign:
            named = set()
            for target in node.targets:
                if type(target) is ast.Name and target.id not in named:
                    named.add(target.id)
                    values.setdefault(target.id, []).append(node.value)
                elif (
                    type(target) is ast.Tuple
                    and type(node.value) is ast.Call
                    and all(type(item) is ast.Name for item in target.elts)
                ):
                    for place, item in enumerate(target.elts):
                        unpacked = Unpacked(node.value, place)
                        values.setdefault(item.id, []).append(unpacked)  # type: ignore[attr-defined]
        elif type(node) is ast.AnnAssign or type(node) is ast.NamedExpr:
            target, value = node.target, node.value
            if type(target) is ast.Name and value is not None:
                values.setdefault(target.id, []).append(value)
    arguments = function.args
    parameters = {
        arg.arg for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    }
    found = _BINDINGS[function] = _Bindings(
        {
            name: bound
            for name, bound in values.items()
            if name not in parameters and len(bound) == stores.get(name, 0)
        },
        frozenset(rebound),
    )
    return found
