"""Dtype facts for the dtype rules: which expressions name 64-bit or integer dtypes, and which
expressions are known to hold floating-point values."""

from __future__ import annotations

import ast
from collections.abc import Callable

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.traced import all_params

_WIDE = ("float64", "int64", "uint64", "complex128")
# Aliases of 64-bit types (checked against the installed JAX and NumPy: each is truncated to
# 32 bits, with a UserWarning, when x64 is off).
_WIDE_INT_ALIASES = ["jax.numpy.int_", "jax.numpy.uint", "numpy.int_", "numpy.uint"]
_WIDE_INT_ALIASES += ["numpy.intp", "numpy.uintp", "numpy.longlong", "numpy.ulonglong"]
WIDE_DTYPES = frozenset(
    [f"{module}.{name}" for module in ("jax.numpy", "numpy") for name in _WIDE]
    + _WIDE_INT_ALIASES
    + ["numpy.double", "numpy.cdouble", "jax.numpy.double", "jax.numpy.cdouble"]
    + ["jax.numpy.float_", "jax.numpy.complex_"]
)
WIDE_STRINGS = frozenset([*_WIDE, "f8", "i8", "u8", "c16", "double"])
_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
INT_DTYPES = frozenset(
    [f"{module}.{name}" for module in ("jax.numpy", "numpy") for name in _INTS]
    + ["builtins.int", *_WIDE_INT_ALIASES]
)
INT_STRINGS = frozenset([*_INTS, "int", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"])

_FLOATS = ("float16", "bfloat16", "float32", "float64")
FLOAT_DTYPES = frozenset(
    [f"{module}.{name}" for module in ("jax.numpy", "numpy") for name in _FLOATS]
    + ["builtins.float", "jax.numpy.float_", "jax.numpy.double", "numpy.double"]
)
FLOAT_STRINGS = frozenset([*_FLOATS, "float", "f2", "f4", "f8", "double"])

# Constructors taking the dtype as a positional argument, and its index.
DTYPE_POSITION = {
    "jax.numpy.array": 1,
    "jax.numpy.asarray": 1,
    "jax.numpy.zeros": 1,
    "jax.numpy.ones": 1,
    "jax.numpy.empty": 1,
    "jax.numpy.full": 2,
    "jax.numpy.zeros_like": 1,
    "jax.numpy.ones_like": 1,
    "jax.numpy.full_like": 2,
    "jax.numpy.eye": 3,
    "jax.numpy.identity": 1,
    "jax.numpy.linspace": 5,
    "jax.lax.convert_element_type": 1,
}
_SAMPLERS = ["normal", "uniform", "truncated_normal", "exponential", "gamma", "beta", "laplace"]
_FLOAT_MATH = [
    "sin",
    "cos",
    "tan",
    "tanh",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "linspace",
    "logspace",
    "mean",
    "std",
    "var",
    "sigmoid",
]
FLOAT_RESULTS = frozenset(
    [f"jax.random.{name}" for name in _SAMPLERS]
    + [f"jax.numpy.{name}" for name in _FLOAT_MATH]
    + ["jax.nn.sigmoid", "jax.nn.softmax", "jax.nn.tanh"]
)
_FLOAT_METHODS = frozenset(["reshape", "ravel", "flatten", "squeeze", "transpose", "sum", "mean"])
FLOAT_CONSTANTS = frozenset(
    f"{module}.{name}"
    for module in ("jax.numpy", "numpy", "math")
    for name in ("nan", "inf", "pi", "e")
)
# Constructors whose result is of JAX's default float dtype unless a `dtype` says otherwise.
_FLOAT_BY_DEFAULT = frozenset(
    f"jax.numpy.{name}" for name in ("zeros", "ones", "empty", "eye", "identity", "linspace")
)
# Constructors whose result has the dtype their `dtype` argument names.
_ARRAY_CONSTRUCTORS = frozenset(
    f"jax.numpy.{name}"
    for name in ("zeros", "ones", "empty", "full", "array", "asarray", "arange", "full_like")
) | frozenset(f"jax.numpy.{name}" for name in ("zeros_like", "ones_like", "empty_like"))
# NumPy samplers whose values are floats (`numpy.random.<name>` without a dtype parameter).
_NUMPY_FLOAT_SAMPLERS = frozenset(
    f"random.{name}"
    for name in ("rand", "randn", "random", "random_sample", "uniform", "normal", "standard_normal")
)
# `x.at[i].<method>(value)`: the result keeps the dtype of `x`, the value is cast to it.
AT_UPDATES = frozenset(["set", "add", "subtract", "multiply", "divide", "power", "min", "max"])
_MAX_DEPTH = 4


def dtype_argument(call: ast.Call, qualname: str) -> ast.expr | None:
    """The dtype a JAX constructor call asks for (keyword or known positional)."""
    for keyword in call.keywords:
        if keyword.arg == "dtype":
            return keyword.value
    position = DTYPE_POSITION.get(qualname)
    if position is not None and len(call.args) > position:
        argument = call.args[position]
        return None if isinstance(argument, ast.Starred) else argument
    return None


def dtype_name(expr: ast.expr, resolver: Resolver) -> str | None:
    """The dtype an expression names, as a qualname or a string, else None."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    return resolver.qualname(expr)


def is_wide(expr: ast.expr, resolver: Resolver) -> bool:
    name = dtype_name(expr, resolver)
    return name in WIDE_DTYPES or name in WIDE_STRINGS


def is_integer(expr: ast.expr, resolver: Resolver) -> bool:
    name = dtype_name(expr, resolver)
    return name in INT_DTYPES or name in INT_STRINGS


# The dtype behind an alias or a short string name.
_ALIASED = {
    "int_": "int64",
    "intp": "int64",
    "longlong": "int64",
    "i8": "int64",
    "uint": "uint64",
    "uintp": "uint64",
    "ulonglong": "uint64",
    "u8": "uint64",
    "float_": "float64",
    "double": "float64",
    "f8": "float64",
    "complex_": "complex128",
    "cdouble": "complex128",
    "c16": "complex128",
}


def short_dtype(expr: ast.expr, resolver: Resolver) -> str:
    name = dtype_name(expr, resolver) or "?"
    return "int" if name == "builtins.int" else name.rpartition(".")[2]


def wide_dtype(expr: ast.expr, resolver: Resolver) -> str:
    """The 64-bit dtype a wide dtype expression stands for (`jnp.int_` -> "int64")."""
    short = short_dtype(expr, resolver)
    return _ALIASED.get(short, short)


class FloatOracle:
    """Is an expression known to hold floating-point values? Unsure means no.

    `bindings(name)` gives the values a name is assigned in the scope (all of them; an empty
    list when it is bound some other way, None when the scope does not bind it), so a name is
    float when every assignment is. Names the scope does not bind are float when they are in
    `float_globals`.
    """

    def __init__(
        self,
        resolver: Resolver,
        bindings: Callable[[str], list[ast.expr] | None],
        float_globals: frozenset[str] = frozenset(),
        default_dtype: bool = False,
    ) -> None:
        self.resolver = resolver
        self.bindings = bindings
        self.float_globals = float_globals
        # Count `jnp.zeros(n)` and the like, float by JAX's default dtype: for questions of
        # dtype, not of values (their zeros and ones never saturate a cast).
        self.default_dtype = default_dtype

    def is_float(self, expr: ast.expr, depth: int = 0, assumed: frozenset = frozenset()) -> bool:
        if depth > _MAX_DEPTH:
            return False
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, float)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub | ast.UAdd):
            return self.is_float(expr.operand, depth + 1)
        if isinstance(expr, ast.List | ast.Tuple):
            return self._float_literals(expr)
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, ast.Div):
                return True  # true division gives floats, even of integers
            if isinstance(expr.op, ast.Add | ast.Sub | ast.Mult | ast.Pow):
                return self.is_float(expr.left, depth + 1) or self.is_float(expr.right, depth + 1)
            return False
        if isinstance(expr, ast.Name):
            if expr.id in assumed:
                return True  # `x = x.at[0].set(v)`: as the other bindings of x decide
            values = self.bindings(expr.id)
            if values is None:
                return expr.id in self.float_globals
            inner = assumed | {expr.id}
            return bool(values) and all(self.is_float(v, depth + 1, inner) for v in values)
        if isinstance(expr, ast.Subscript):
            return self.is_float(expr.value, depth + 1, assumed)
        if isinstance(expr, ast.Attribute):
            if self.resolver.qualname(expr) in FLOAT_CONSTANTS:
                return True  # jnp.nan, math.inf, ...
            return expr.attr in ("T", "real") and self.is_float(expr.value, depth + 1)
        if isinstance(expr, ast.Call):
            updated = at_update_target(expr)
            if updated is not None:  # an update keeps the dtype; a division makes floats
                divides = isinstance(expr.func, ast.Attribute) and expr.func.attr == "divide"
                return divides or self.is_float(updated, depth + 1, assumed)
            return self._call_is_float(expr, depth)
        return False

    def _float_literals(self, expr: ast.List | ast.Tuple) -> bool:
        values = []
        for element in expr.elts:
            if isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.USub):
                element = element.operand
            if not isinstance(element, ast.Constant) or isinstance(element.value, bool):
                return False
            values.append(element.value)
        return any(isinstance(v, float) for v in values) and all(
            isinstance(v, int | float) for v in values
        )

    def _call_is_float(self, call: ast.Call, depth: int) -> bool:
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _FLOAT_METHODS
            and self.resolver.qualname(func) is None
        ):
            return self.is_float(func.value, depth + 1)
        qualname = self.resolver.qualname(func) or ""
        if qualname == "builtins.float":
            return True
        if qualname in FLOAT_RESULTS:
            return dtype_argument(call, qualname) is None
        dtype = dtype_argument(call, qualname)
        if self.default_dtype and qualname in _FLOAT_BY_DEFAULT and dtype is None:
            return not any(isinstance(a, ast.Starred) for a in call.args) and all(
                k.arg is not None for k in call.keywords
            )
        if qualname in _ARRAY_CONSTRUCTORS and dtype is not None:
            return dtype_name(dtype, self.resolver) in FLOAT_DTYPES | FLOAT_STRINGS
        if qualname in ("jax.numpy.array", "jax.numpy.asarray") and call.args:
            return dtype is None and self.is_float(call.args[0], depth + 1)
        if qualname in FLOAT_DTYPES:
            return True  # `np.float32(3)`, `jnp.float32(x)`: a float scalar or array
        if qualname.startswith("numpy."):
            return self._numpy_call_is_float(call, qualname, depth)
        return False

    def _numpy_call_is_float(self, call: ast.Call, qualname: str, depth: int) -> bool:
        """NumPy data handed to JAX keeps its dtype (`jnp.array(np.array(v, np.float32))`):
        NumPy's constructors take `dtype` where jax.numpy's do, its samplers give floats."""
        name = qualname.removeprefix("numpy.")
        if name in _NUMPY_FLOAT_SAMPLERS:
            return True
        dtype = dtype_argument(call, f"jax.numpy.{name}")
        if f"jax.numpy.{name}" in _ARRAY_CONSTRUCTORS and dtype is not None:
            return dtype_name(dtype, self.resolver) in FLOAT_DTYPES | FLOAT_STRINGS
        if name in ("array", "asarray") and call.args:
            return dtype is None and self.is_float(call.args[0], depth + 1)
        if self.default_dtype and f"jax.numpy.{name}" in _FLOAT_BY_DEFAULT and dtype is None:
            return not any(isinstance(a, ast.Starred) for a in call.args) and all(
                k.arg is not None for k in call.keywords
            )
        return False


# NumPy functions whose result is float64 unless a dtype says otherwise, with the position of
# their dtype parameter (None: keyword only). Checked with NumPy 2.4: each gives float64.
_NUMPY_FLOAT64_DEFAULTS = {
    "numpy.zeros": 1,
    "numpy.ones": 1,
    "numpy.empty": 1,
    "numpy.identity": 1,
    "numpy.eye": 3,
    "numpy.linspace": 5,
    "numpy.logspace": 6,
    "numpy.geomspace": 5,
    "numpy.random.rand": None,
    "numpy.random.randn": None,
    "numpy.random.random": None,
    "numpy.random.random_sample": None,
    "numpy.random.uniform": None,
    "numpy.random.normal": None,
    "numpy.random.standard_normal": None,
}
_FLOAT64_NAMES = frozenset(
    {"numpy.float64", "numpy.double", "jax.numpy.float64", "jax.numpy.double", "builtins.float"}
    | {"float64", "f8", "double", "float"}
)


def is_numpy_float64(
    expr: ast.expr,
    resolver: Resolver,
    bindings: Callable[[str], list[ast.expr] | None],
    is_numpy: Callable[[ast.expr], bool],
    depth: int = 0,
) -> bool:
    """Is `expr` NumPy data the code asks to be float64 (`np.float64(x)`,
    `np.zeros(3, dtype=np.float64)`, `np.array(v, dtype=float)`, `a.astype(np.float64)` of NumPy
    data, a name only ever bound to one of them in the scope)? NumPy's implicit float64
    default does not count. `is_numpy(e)`: the value model says `e` is NumPy data. Unsure
    means no."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, ast.Name):
        values = bindings(expr.id)
        return bool(values) and all(
            is_numpy_float64(v, resolver, bindings, is_numpy, depth + 1) for v in values
        )
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    keywords = {k.arg: k.value for k in expr.keywords}
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "astype"
        and resolver.qualname(func) is None
    ):
        dtype = expr.args[0] if expr.args else keywords.get("dtype")
        return (
            dtype is not None
            and dtype_name(dtype, resolver) in _FLOAT64_NAMES
            and is_numpy(func.value)
        )
    qualname = resolver.qualname(func) or ""
    if qualname in ("numpy.float64", "numpy.double"):
        return True
    if qualname in ("numpy.array", "numpy.asarray"):
        dtype = keywords.get("dtype", expr.args[1] if len(expr.args) > 1 else None)
        return dtype is not None and dtype_name(dtype, resolver) in _FLOAT64_NAMES
    if qualname in _NUMPY_FLOAT64_DEFAULTS:
        position = _NUMPY_FLOAT64_DEFAULTS[qualname]
        dtype = keywords.get("dtype")
        if dtype is None and position is not None and len(expr.args) > position:
            dtype = expr.args[position]
        if any(isinstance(a, ast.Starred) for a in expr.args) or None in keywords:
            return False
        # Only data the user asked to be float64: NumPy's float64 default is everywhere
        # (`jnp.asarray(np.random.randn(n))` in every loader) and says nothing of intent.
        return dtype is not None and dtype_name(dtype, resolver) in _FLOAT64_NAMES
    return False


class IntArrayOracle:
    """Is an expression known to be a JAX array of an integer dtype? Unsure means no.

    `bindings` as for FloatOracle; names the scope does not bind are integer arrays when they
    are in `int_globals`. `x = x.at[i].set(v)` keeps the dtype of `x`."""

    def __init__(
        self,
        resolver: Resolver,
        bindings: Callable[[str], list[ast.expr] | None],
        int_globals: frozenset[str] = frozenset(),
    ) -> None:
        self.resolver = resolver
        self.bindings = bindings
        self.int_globals = int_globals

    def is_int_array(self, expr: ast.expr, depth: int = 0, assumed: frozenset = frozenset()):
        if depth > _MAX_DEPTH:
            return False
        if isinstance(expr, ast.Name):
            if expr.id in assumed:
                return True  # `x = x.at[0].set(v)`: as the other bindings of x decide
            values = self.bindings(expr.id)
            if values is None:
                return expr.id in self.int_globals
            inner = assumed | {expr.id}
            return bool(values) and all(self.is_int_array(v, depth + 1, inner) for v in values)
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        updated = at_update_target(expr)
        if updated is not None:
            return self.is_int_array(updated, depth + 1, assumed)
        if isinstance(func, ast.Attribute) and func.attr == "astype" and expr.args:
            return self.resolver.qualname(func) is None and is_integer(expr.args[0], self.resolver)
        qualname = self.resolver.qualname(func) or ""
        if qualname in _ARRAY_CONSTRUCTORS:
            dtype = dtype_argument(expr, qualname)
            return dtype is not None and is_integer(dtype, self.resolver)
        return False


def at_update_target(call: ast.Call) -> ast.expr | None:
    """`x` of `x.at[i].set(v)` (and the other `.at` updates), else None."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in AT_UPDATES):
        return None
    indexed = func.value
    if not isinstance(indexed, ast.Subscript):
        return None
    at = indexed.value
    if isinstance(at, ast.Attribute) and at.attr == "at":
        return at.value
    return None


def scope_bindings(scope: ast.AST | None) -> Callable[[str], list[ast.expr] | None]:
    """The oracles' `bindings` for code in `scope` (the innermost function; None at module
    level, where no name is bound by the scope and module facts answer)."""

    def bindings(name: str) -> list[ast.expr] | None:
        return assigned_values(name, scope) if scope is not None else None

    return bindings


def assigned_values(name: str, scope: ast.AST) -> list[ast.expr] | None:
    """Every value `name` is assigned in `scope` (a function or module tree): None if the
    scope never binds it, an empty list if it binds it other than by plain assignment."""
    if isinstance(scope, ast.Lambda):
        return []
    params = set() if isinstance(scope, ast.Module) else set(all_params(scope))
    if name in params:
        return []
    values: list[ast.expr] = []
    plain: set[int] = set()
    bound = False
    for node in walk_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    values.append(node.value)
                    plain.add(id(target))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id == name and node.value is not None:
                values.append(node.value)
                plain.add(id(node.target))
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            bound = True
            if id(node) not in plain:
                values.append(ast.Constant(None))  # a loop target, tuple unpacking, ...
    if not values and not bound:
        return None
    return values
