"""Literal shapes of arrays, tracked statement by statement in one scope (`x = jnp.arange(10)`,
`jnp.zeros((3, 3))`, `x.reshape(5, -1)`, `jnp.split(x, 5)`), and across a module's top-level
statements (a script or a notebook rebinding `x = jnp.array(x)`).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.names import stored_names
from jax_lsp.analysis.text import contains_word

# Only literal integer indices (or names bound to them) are judged out of bounds, so text with
# no digit inside brackets (nor a `take(` call, nor such a binding) has none.
LITERAL_INDEX = re.compile(r"\[[^\]]*\d")
# An `=` followed by an int literal; `has_int_binding` looks behind it for the bound name.
_ASSIGNED_INT = re.compile(r"=\s*-?\d")

_FILLED = {"zeros", "ones", "empty", "full"}
_LIKE = {"zeros_like", "ones_like", "empty_like", "full_like"}
_FLOAT_DTYPES = ("float", "bfloat16", "complex")
# Every function `ShapeTracker._call_shape` reads a shape from (the `_like` ones need another).
_SHAPE_MAKERS = frozenset(
    {"arange", *_FILLED, "linspace", "eye", "identity", "array", "asarray", "normal", "uniform"}
    | {"split", "PRNGKey", "stack"}
)


@dataclass(frozen=True)
class ArrayShape:
    shape: tuple[int, ...]
    floating: bool  # known to hold floats (a NaN fill value fits)
    # A Python list of `shape[0]` arrays of shape `shape[1:]` (`jnp.split`): indexing it
    # raises IndexError, so only `jnp.array(...)` of it gives an array of `shape`.
    pieces: bool = False
    # An array of PRNG keys (`jax.random.split(key, n)`): a clamped read gives a key again.
    keys: bool = False


def broadcast(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape two arrays broadcast to (`(10,) * (4, 10)`: `(4, 10)`), aligned from the
    last axis: each pair of sizes equal, or one of them 1. None when they do not broadcast."""
    if first == second:
        return first
    width = max(len(first), len(second))
    first, second = (1,) * (width - len(first)) + first, (1,) * (width - len(second)) + second
    shape = []
    for a, b in zip(first, second, strict=True):
        if a != b and 1 not in (a, b):
            return None
        shape.append(b if a == 1 else a)
    return tuple(shape)


# -- literal evaluation ----------------------------------------------------------------------
# Names bound to int literals where an expression is evaluated (`N = 100`), if any are known.
Integers = Mapping[str, int]
_NO_INTEGERS: Integers = MappingProxyType({})


def literal_int(expr: ast.expr | None, integers: Integers = _NO_INTEGERS) -> int | None:
    number = _number(expr, integers)
    return number if isinstance(number, int) else None


_INT_ARITHMETIC = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__}


def _number(expr: ast.expr | None, integers: Integers = _NO_INTEGERS) -> int | float | None:
    if isinstance(expr, ast.Name):
        return integers.get(expr.id)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _number(expr.operand, integers)
        return -inner if inner is not None else None
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float):
        return expr.value
    if isinstance(expr, ast.BinOp) and type(expr.op) in _INT_ARITHMETIC:
        left, right = _number(expr.left, integers), _number(expr.right, integers)
        if type(left) is int and type(right) is int:  # `500 * 32 * 32`, `N - 1`
            return _INT_ARITHMETIC[type(expr.op)](left, right)
    return None


def _shape_literal(expr: ast.expr | None, integers: Integers) -> tuple[int, ...] | None:
    if isinstance(expr, ast.Tuple | ast.List):
        dims = [literal_int(element, integers) for element in expr.elts]
        if all(d is not None and d >= 0 for d in dims):
            return tuple(dims)
        return None
    size = literal_int(expr, integers)
    return (size,) if size is not None and size >= 0 else None


def _nested_shape(expr: ast.expr) -> tuple[tuple[int, ...], bool] | None:
    """Shape and float-ness of a rectangular nested list of number literals."""
    if not isinstance(expr, ast.List | ast.Tuple):
        number = _number(expr)
        return None if number is None else ((), isinstance(number, float))
    parts = [_nested_shape(element) for element in expr.elts]
    if not parts or any(p is None for p in parts) or len({p[0] for p in parts}) != 1:
        return None
    return (len(parts), *parts[0][0]), any(p[1] for p in parts)


def _dtype_floating(call: ast.Call, resolver: Resolver, default: bool) -> bool | None:
    """Is the `dtype=` of a creation call a float type (None: can't tell)?"""
    dtype = next((kw.value for kw in call.keywords if kw.arg == "dtype"), None)
    if dtype is None:
        return default
    name = resolver.qualname(dtype) or ""
    if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        name = dtype.value
    leaf = name.rpartition(".")[2]
    if not leaf:
        return None
    return leaf.startswith(_FLOAT_DTYPES)


def _arange_length(call: ast.Call) -> tuple[int, bool] | None:
    if len(call.args) > 3 or any(kw.arg != "dtype" for kw in call.keywords):
        return None
    numbers = [_number(arg) for arg in call.args]
    if not numbers or any(n is None for n in numbers):
        return None
    start, stop, step = (0, numbers[0], 1) if len(numbers) == 1 else (*numbers[:2], 1)
    if len(numbers) == 3:
        step = numbers[2]
    if step == 0:
        return None
    return max(0, math.ceil((stop - start) / step)), any(isinstance(n, float) for n in numbers)


# Float constants of the array modules and `math` (`jnp.pi * x` keeps the shape of `x`).
_FLOAT_CONSTANTS = frozenset(
    f"{module}.{name}" for module in ("jax.numpy", "numpy", "math") for name in ("pi", "e")
)
# `jax.numpy` functions of one array that apply elementwise: the result has its shape, and
# holds floats except for those that keep the dtype (`jnp.abs` of ints gives ints).
_KEEPS_DTYPE = frozenset(
    {"abs", "absolute", "negative", "positive", "square", "sign", "conj", "conjugate"}
)
_ELEMENTWISE = _KEEPS_DTYPE | {
    *("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh"),
    *("arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10"),
    *("log1p", "sqrt", "cbrt", "sinc", "deg2rad", "rad2deg", "radians", "degrees"),
}

# Calls that return their first argument's array as it is: placed on a device, cut from the
# gradient, or waited for (`x = jax.device_put(x)` keeps x's shape and dtype).
_SAME_ARRAY = frozenset({"jax.device_put", "jax.lax.stop_gradient", "jax.block_until_ready"})


class _AskedWhenRead:
    """What `ShapeTracker.env` holds for a name whose shape is asked only when read
    (`ShapeTracker.given_when_read`)."""


ASKED_WHEN_READ = _AskedWhenRead()


class ShapeTracker:
    """Literal shapes of the names of one scope, updated statement by statement."""

    def __init__(self, resolver: Resolver, untracked: frozenset[str]) -> None:
        self.resolver = resolver
        self.untracked = untracked  # names another scope may rebind (global/nonlocal)
        self.env: dict[str, ArrayShape | _AskedWhenRead] = {}
        self.integers: dict[str, int] = {}  # names bound to an int literal (`chunks = 5`)
        self._given: Callable[[], Mapping[str, ArrayShape]] | None = None
        self._given_shapes: Mapping[str, ArrayShape] | None = None

    def given_when_read(
        self, names: list[str], shapes: Callable[[], Mapping[str, ArrayShape]]
    ) -> None:
        """Start the scope with `names` (its parameters) holding the shapes `shapes()` gives
        (none for a name it leaves out), asked once one of them is read before being bound
        again: most scopes read none, and the answer walks the module's calls."""
        self._given, self._given_shapes = shapes, None
        for name in names:
            self.env[name] = ASKED_WHEN_READ

    def known(self, value: ArrayShape | _AskedWhenRead | None, name: str) -> ArrayShape | None:
        """`value`, held in `env` for `name`, as a shape (or None)."""
        if value is not ASKED_WHEN_READ:
            return value  # type: ignore[return-value]
        if self._given_shapes is None:
            self._given_shapes = self._given() if self._given is not None else {}
        return self._given_shapes.get(name)

    def integer(self, expr: ast.expr | None) -> int | None:
        return literal_int(expr, self.integers)

    def shape_of(self, expr: ast.expr) -> ArrayShape | None:
        known = self._shape_of(expr)
        return None if known is not None and known.pieces else known

    def _shape_of(self, expr: ast.expr) -> ArrayShape | None:
        """The shape of `expr`, or of the pieces it lists (ArrayShape.pieces)."""
        if isinstance(expr, ast.Name):
            known = self.env.get(expr.id)
            return self.known(known, expr.id) if known is ASKED_WHEN_READ else known  # type: ignore[return-value]
        if isinstance(expr, ast.BinOp) and not isinstance(expr.op, ast.MatMult):
            # An array combined with a number, or with an array of its shape, keeps its shape.
            for array, other in ((expr.left, expr.right), (expr.right, expr.left)):
                known = self.shape_of(array)
                if known is None:
                    continue
                number = self._scalar(other)
                partner = None if number is not None else self.shape_of(other)
                shape = known.shape if partner is None else broadcast(known.shape, partner.shape)
                if shape is None or (number is None and partner is None):
                    continue
                floating = (
                    known.floating
                    or isinstance(number, float)
                    or (partner is not None and partner.floating)
                    or isinstance(expr.op, ast.Div)
                )
                return ArrayShape(shape, floating)
            return None
        if isinstance(expr, ast.Call):
            return self._call_shape(expr)
        return None

    def _scalar(self, expr: ast.expr) -> int | float | None:
        """A Python number `expr` is known to be: a literal, a name bound to an int literal,
        or a float constant (`jnp.pi`)."""
        number = _number(expr, self.integers)
        if number is None and (self.resolver.qualname(expr) or "") in _FLOAT_CONSTANTS:
            return math.nan  # a float, whichever
        return number

    def _call_shape(self, call: ast.Call) -> ArrayShape | None:
        qualname = self.resolver.qualname(call.func) or ""
        module, _, function = qualname.rpartition(".")
        if module == "jax.numpy" and function in _ELEMENTWISE:
            known = self.shape_of(call.args[0]) if len(call.args) == 1 else None
            if known is None or call.keywords:
                return None
            return ArrayShape(known.shape, known.floating or function not in _KEEPS_DTYPE)
        if not qualname and isinstance(call.func, ast.Attribute) and call.func.attr == "reshape":
            return self._reshaped(call)
        if qualname in ("jax.numpy.split", "jax.numpy.array_split"):
            return self._split(call)
        if qualname in _SAME_ARRAY and call.args:
            return self.shape_of(call.args[0])
        if qualname in ("jax.numpy.array", "jax.numpy.asarray", "jax.numpy.stack"):
            listed = self._shape_of(call.args[0]) if len(call.args) == 1 else None
            if listed is not None and listed.pieces and not call.keywords:
                return ArrayShape(listed.shape, listed.floating)
            stacked = self._stacked(call)
            if stacked is not None:
                return stacked
        if qualname in ("jax.random.split", "jax.random.PRNGKey"):
            return self._keys(call, function)
        if module == "jax.random" and function in ("normal", "uniform") and len(call.args) >= 2:
            shape = _shape_literal(call.args[1], self.integers)
            floating = _dtype_floating(call, self.resolver, True)
            return ArrayShape(shape, floating) if shape is not None and floating else None
        if module != "jax.numpy":
            return None
        if function == "arange":
            found = _arange_length(call)
            if found is None:
                return None
            floating = _dtype_floating(call, self.resolver, found[1])
            return ArrayShape((found[0],), bool(floating))
        if function in _FILLED and call.args:
            shape = _shape_literal(call.args[0], self.integers)
            if shape is None:
                return None
            default = function != "full" or isinstance(_number(call_argument(call, 1)), float)
            return ArrayShape(shape, bool(_dtype_floating(call, self.resolver, default)))
        if function == "linspace" and 2 <= len(call.args) <= 3:
            num = call_argument(call, 2)
            num = next((kw.value for kw in call.keywords if kw.arg == "num"), num)
            size = 50 if num is None else self.integer(num)
            if (
                size is None
                or size < 0
                or any(k.arg not in ("num", "dtype") for k in call.keywords)
            ):
                return None
            return ArrayShape((size,), bool(_dtype_floating(call, self.resolver, True)))
        if function in ("eye", "identity") and call.args:
            rows, columns = (
                self.integer(call.args[0]),
                self.integer(call_argument(call, 1)) if function == "eye" else None,
            )
            if rows is None or rows < 0 or (len(call.args) > 1 and columns is None):
                return None
            floating = bool(_dtype_floating(call, self.resolver, True))
            return ArrayShape((rows, rows if columns is None else columns), floating)
        if function in ("array", "asarray") and len(call.args) == 1:
            nested = _nested_shape(call.args[0])
            if nested is None or not nested[0]:
                return None
            return ArrayShape(nested[0], bool(_dtype_floating(call, self.resolver, nested[1])))
        if function in _LIKE and call.args:
            like = self.shape_of(call.args[0])
            if like is None or any(kw.arg in ("shape", "dtype") for kw in call.keywords):
                return None
            return like
        return None

    def _stacked(self, call: ast.Call) -> ArrayShape | None:
        """`jnp.stack([a, b])`, `jnp.array((a, b, c))`: a list or tuple of arrays of one known
        shape gives an array of that many of them (the number of elements is the leading
        dimension)."""
        listed = call.args[0] if len(call.args) == 1 else None
        if not isinstance(listed, ast.List | ast.Tuple) or not listed.elts or call.keywords:
            return None
        shapes = [self.shape_of(element) for element in listed.elts]
        first = shapes[0]
        if first is None or any(s is None or s.shape != first.shape for s in shapes):
            return None
        floating = any(s.floating for s in shapes if s is not None)
        keys = all(s.keys for s in shapes if s is not None)
        return ArrayShape((len(shapes), *first.shape), floating, keys=keys)

    def _keys(self, call: ast.Call, function: str) -> ArrayShape | None:
        """`split(key)`: 2 keys; `split(key, n)`: n; `split(key, (a, b))`: shape (a, b). A
        raw `PRNGKey(seed)` is an array of 2 words. (A raw key's split has a trailing axis of
        2 words, a typed key's none: the leading axes are those of the keys either way.)"""
        if function == "PRNGKey":
            return ArrayShape((2,), False) if len(call.args) == 1 and not call.keywords else None
        if not call.args or any(kw.arg != "num" for kw in call.keywords):
            return None
        num = call_argument(call, 1)
        num = next((kw.value for kw in call.keywords if kw.arg == "num"), num)
        if num is None:
            return ArrayShape((2,), False, keys=True)
        count = self.integer(num)
        shape = (count,) if count is not None else _shape_literal(num, self.integers)
        if shape is None or any(size < 0 for size in shape):
            return None
        return ArrayShape(shape, False, keys=True)

    def _reshaped(self, call: ast.Call) -> ArrayShape | None:
        """`x.reshape(500, 32, 32)` / `x.reshape((5, -1))` of a known `x`."""
        known = self.shape_of(call.func.value)
        if known is None or call.keywords or not call.args:
            return None
        dims_node = call.args[0] if len(call.args) == 1 else ast.Tuple(elts=call.args)
        elements = dims_node.elts if isinstance(dims_node, ast.Tuple | ast.List) else [dims_node]
        dims = [self.integer(element) for element in elements]
        if any(d is None or d < -1 for d in dims) or dims.count(-1) > 1:
            return None
        size, rest = math.prod(known.shape), math.prod(d for d in dims if d != -1)
        if -1 in dims:
            if rest == 0 or size % rest:
                return None
            dims[dims.index(-1)] = size // rest
        return ArrayShape(tuple(dims), known.floating) if math.prod(dims) == size else None

    def _split(self, call: ast.Call) -> ArrayShape | None:
        """`jnp.split(x, 5)`: a list of 5 equal pieces (only along the first axis)."""
        known = self.shape_of(call.args[0]) if call.args else None
        sections = self.integer(call_argument(call, 1))
        if known is None or not known.shape or sections is None or sections <= 0:
            return None
        if len(call.args) != 2 or call.keywords or known.shape[0] % sections:
            return None
        piece = (sections, known.shape[0] // sections, *known.shape[1:])
        return ArrayShape(piece, known.floating, pieces=True)

    # -- statements ---------------------------------------------------------------------
    def bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            shape = self._shape_of(value) if value is not None else None
            number = self.integer(value) if value is not None else None
            if number is None or target.id in self.untracked:
                self.integers.pop(target.id, None)
            else:
                self.integers[target.id] = number
            if shape is None or target.id in self.untracked:
                self.env.pop(target.id, None)
            else:
                self.env[target.id] = shape
        else:
            for name in stored_names(target):
                self.env.pop(name, None)
                self.integers.pop(name, None)

    def forget(self, nodes: list[ast.AST]) -> None:
        if not self.env and not self.integers:
            return  # nothing known to forget (the names are not gathered)
        for node in nodes:
            for name in stored_names(node):
                self.env.pop(name, None)
                self.integers.pop(name, None)


def call_argument(call: ast.Call, index: int) -> ast.expr | None:
    return call.args[index] if index < len(call.args) else None


def has_int_binding(text: str) -> bool:
    r"""Does the text bind a name to an int literal (`N = 100`), which an index may name
    instead (`x[N]`)? What `\b\w+\s*=\s*-?\d` finds, twenty times faster: that pattern has
    no literal to skip to, so the regex engine tried it at every position of every scope's
    text. Here each `=` before an int is found by its literal, and a word character is looked
    for behind the blanks before it (`==`, `+=` and `<=` have none)."""
    for match in _ASSIGNED_INT.finditer(text):
        at = match.start() - 1
        while at >= 0 and text[at].isspace():
            at -= 1
        if at >= 0 and (text[at].isalnum() or text[at] == "_"):  # `\w`, as `re` defines it
            return True
    return False


def may_index_literally(text: str) -> bool:
    """Can code with this text index with a literal integer (`x[11]`, `jnp.take(x, 11)`), or
    with a name it binds to one (`N = 100`, then `x[N]`)?"""
    return "take(" in text or bool(LITERAL_INDEX.search(text)) or has_int_binding(text)


def may_make_shape(text: str, resolver: Resolver) -> bool:
    """Does this text name a constructor `ShapeTracker` knows, or an alias `resolver` (the
    enclosing scope's) binds to one? Every known shape starts from such a call; the scope's
    own imports name the constructor in its text."""
    if any(contains_word(text, word) for word in _SHAPE_MAKERS):
        return True
    return any(
        contains_word(text, name)
        for name, value in resolver.bindings_items()
        if value.rpartition(".")[2] in _SHAPE_MAKERS
    )


# A module-level name's known value between top-level statements: a shape or an int literal.
KnownValue = ArrayShape | int


def run_top_level(
    statements: list[ast.stmt], known: dict[str, KnownValue], resolver: Resolver
) -> dict[str, KnownValue | None]:
    """What a unit's top-level statements leave known, starting from `known`: the value of
    each name they bind (None: no longer known). Single assignments bind, as in one scope;
    any other statement (a loop, a branch, a `try`) forgets the names it may bind."""
    tracker = ShapeTracker(resolver, frozenset())
    for name, value in known.items():
        if type(value) is int:
            tracker.integers[name] = value
        else:
            tracker.env[name] = value
    bound: set[str] = set()
    for statement in statements:
        bound |= stored_names(statement)
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                tracker.bind(target, statement.value if len(statement.targets) == 1 else None)
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            tracker.bind(statement.target, statement.value)
        else:
            tracker.forget([statement])
    return {name: tracker.env.get(name, tracker.integers.get(name)) for name in bound}
