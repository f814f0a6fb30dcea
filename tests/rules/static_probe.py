"""Which parameters of `jax.numpy` / `jax.lax` / `jax.random` / `jax.nn` must be static,
measured by calling JAX: the source of jax_lsp/diagnostics/static_parameters.py.

For every function in `CALLS` (a working call, argument by argument) each parameter holding a
Python int, bool or a tuple of ints is given a traced value instead (a tracer for the int, or
for the first int of the tuple) inside `jax.jit`. A parameter is static when JAX then raises a
concretization error while the same call with the Python value runs. Which rule reports it
follows RULES.md: shapes, lengths and slices are JAX803 (`SHAPE_PARAMETERS`), the rest
(axes, flags, offsets) JAX703.

Regenerate the table after a JAX upgrade with `python -m tests.rules.static_probe --write`;
tests/rules/test_static_table.py fails while the checked-in table and JAX disagree.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Table = dict[str, tuple[tuple[str, int | None, str, str], ...]]
TABLE_PATH = Path(__file__).parents[2] / "jax_lsp" / "diagnostics" / "static_parameters.py"


class Array:
    """A placeholder for an array argument, made when the probe runs (JAX imported lazily)."""

    def __init__(self, *shape: int, dtype: str = "float32", key: bool = False) -> None:
        self.shape, self.dtype, self.key = shape, dtype, key

    def make(self) -> Any:
        import jax
        import jax.numpy as jnp

        if self.key:
            return jax.random.key(0)
        return jnp.ones(self.shape, self.dtype)


class Code:
    """A function argument given as source text: evaluated for the probe's calls, written as
    is into the snippets the tests analyse."""

    def __init__(self, text: str) -> None:
        self.text = text

    def make(self) -> Any:
        return eval(self.text)  # the probe's own constant text, never user input


M = Array(2, 3)  # a matrix
V = Array(4)  # a vector
I = Array(4, dtype="int32")  # noqa: E741 (an integer vector)
K = Array(key=True)  # a PRNG key

_REDUCTIONS = [
    "sum", "prod", "mean", "max", "min", "amax", "amin", "any", "all", "nansum", "nanmean",
    "nanmax", "nanmin", "nanprod", "ptp", "count_nonzero",
]  # fmt: skip
_STATISTICS = ["std", "var", "nanstd", "nanvar"]
_ARG_REDUCTIONS = ["argmax", "argmin", "nanargmax", "nanargmin"]
_CUMULATIVE = ["cumsum", "cumprod", "nancumsum", "nancumprod"]
_SHAPE_FILLED = ["zeros", "ones", "empty"]
_LIKE = ["zeros_like", "ones_like", "empty_like"]
_SPLITS = ["split", "array_split"]
_RANDOM_SHAPED = [
    "normal", "uniform", "bernoulli", "cauchy", "exponential", "gumbel", "laplace", "logistic",
    "rademacher",
]  # fmt: skip

# One working call per function: argument name -> sample value.
CALLS: dict[str, dict[str, Any]] = {
    **{f"jax.numpy.{name}": {"a": M, "axis": 0, "keepdims": True} for name in _REDUCTIONS},
    **{
        f"jax.numpy.{name}": {"a": M, "axis": 0, "ddof": 0, "keepdims": True}
        for name in _STATISTICS
    },
    **{f"jax.numpy.{name}": {"a": M, "axis": 0, "keepdims": True} for name in _ARG_REDUCTIONS},
    **{f"jax.numpy.{name}": {"a": M, "axis": 0} for name in _CUMULATIVE},
    "jax.numpy.median": {"a": M, "axis": 0, "keepdims": True},
    "jax.numpy.average": {"a": M, "axis": 0, "keepdims": True},
    **{f"jax.numpy.{name}": {"shape": (2, 3)} for name in _SHAPE_FILLED},
    "jax.numpy.full": {"shape": (2, 3), "fill_value": 1.0},
    **{f"jax.numpy.{name}": {"a": M, "shape": (2, 3)} for name in _LIKE[:2]},
    "jax.numpy.empty_like": {"prototype": M, "shape": (2, 3)},
    "jax.numpy.full_like": {"a": M, "fill_value": 1.0, "shape": (2, 3)},
    "jax.numpy.eye": {"N": 3, "M": 4, "k": 1},
    "jax.numpy.identity": {"n": 3},
    "jax.numpy.tri": {"N": 3, "M": 4, "k": 1},
    "jax.numpy.tril": {"m": M, "k": 1},
    "jax.numpy.triu": {"m": M, "k": 1},
    "jax.numpy.tril_indices": {"n": 3, "k": 0, "m": 3},
    "jax.numpy.triu_indices": {"n": 3, "k": 0, "m": 3},
    "jax.numpy.diag_indices": {"n": 3, "ndim": 2},
    "jax.numpy.indices": {"dimensions": (2, 3)},
    "jax.numpy.vander": {"x": V, "N": 3, "increasing": True},
    "jax.numpy.arange": {"start": 1, "stop": 5, "step": 1},
    "jax.numpy.linspace": {"start": 0.0, "stop": 1.0, "num": 5, "endpoint": True, "axis": 0},
    "jax.numpy.logspace": {"start": 0.0, "stop": 1.0, "num": 5, "endpoint": True, "axis": 0},
    "jax.numpy.geomspace": {"start": 1.0, "stop": 2.0, "num": 5, "endpoint": True, "axis": 0},
    "jax.numpy.reshape": {"a": M, "shape": (3, 2)},
    "jax.numpy.resize": {"a": M, "new_shape": (3, 3)},
    "jax.numpy.broadcast_to": {"array": V, "shape": (2, 4)},
    "jax.numpy.repeat": {"a": V, "repeats": 2, "axis": 0},
    "jax.numpy.tile": {"A": V, "reps": (2, 1)},
    **{f"jax.numpy.{name}": {"ary": V, "indices_or_sections": 2, "axis": 0} for name in _SPLITS},
    "jax.numpy.hsplit": {"ary": M, "indices_or_sections": 3},
    "jax.numpy.vsplit": {"ary": M, "indices_or_sections": 2},
    "jax.numpy.pad": {"array": M, "pad_width": ((1, 1), (0, 0))},
    "jax.numpy.expand_dims": {"a": M, "axis": 0},
    "jax.numpy.squeeze": {"a": Array(1, 3), "axis": 0},
    "jax.numpy.swapaxes": {"a": M, "axis1": 0, "axis2": 1},
    "jax.numpy.moveaxis": {"a": M, "source": 0, "destination": 1},
    "jax.numpy.transpose": {"a": M, "axes": (1, 0)},
    "jax.numpy.flip": {"m": M, "axis": 0},
    "jax.numpy.roll": {"a": M, "shift": 1, "axis": 0},
    "jax.numpy.rot90": {"m": M, "k": 1, "axes": (0, 1)},
    "jax.numpy.diag": {"v": V, "k": 1},
    "jax.numpy.diagonal": {"a": M, "offset": 1, "axis1": 0, "axis2": 1},
    "jax.numpy.trace": {"a": M, "offset": 1, "axis1": 0, "axis2": 1},
    "jax.numpy.concatenate": {"arrays": (M, M), "axis": 0},
    "jax.numpy.stack": {"arrays": (M, M), "axis": 0},
    "jax.numpy.take": {"a": M, "indices": I, "axis": 1},
    "jax.numpy.take_along_axis": {"arr": M, "indices": Array(2, 3, dtype="int32"), "axis": 1},
    "jax.numpy.sort": {"a": M, "axis": 0},
    "jax.numpy.argsort": {"a": M, "axis": 0},
    "jax.numpy.partition": {"a": V, "kth": 1, "axis": 0},
    "jax.numpy.argpartition": {"a": V, "kth": 1, "axis": 0},
    "jax.numpy.diff": {"a": M, "n": 1, "axis": 0},
    "jax.numpy.gradient": {"f": M, "axis": 0},
    "jax.numpy.cross": {"a": Array(3), "b": Array(3), "axis": 0},
    "jax.numpy.tensordot": {"a": M, "b": Array(3, 2), "axes": 1},
    "jax.numpy.trapezoid": {"y": M, "axis": 0},
    "jax.numpy.bincount": {"x": I, "length": 4},
    "jax.numpy.histogram": {"a": V, "bins": 3},
    "jax.numpy.unravel_index": {"indices": I, "shape": (2, 3)},
    "jax.numpy.ravel_multi_index": {"multi_index": (I, I), "dims": (5, 5), "mode": "clip"},
    "jax.numpy.polyfit": {"x": V, "y": V, "deg": 1},
    "jax.numpy.fft.fft": {"a": V, "n": 4, "axis": 0},
    "jax.numpy.fft.ifft": {"a": V, "n": 4, "axis": 0},
    "jax.numpy.fft.rfft": {"a": V, "n": 4, "axis": 0},
    "jax.numpy.fft.irfft": {"a": V, "n": 4, "axis": 0},
    "jax.numpy.fft.fftfreq": {"n": 4, "d": 1.0},
    "jax.numpy.fft.rfftfreq": {"n": 4, "d": 1.0},
    "jax.numpy.linalg.norm": {"x": M, "ord": 2, "axis": 1, "keepdims": True},
    "jax.numpy.linalg.matrix_power": {"a": Array(2, 2), "n": 2},
    "jax.lax.full": {"shape": (2, 3), "fill_value": 1.0},
    "jax.lax.full_like": {"x": M, "fill_value": 1.0, "shape": (2, 3)},
    "jax.lax.iota": {"dtype": "int32", "size": 4},
    "jax.lax.broadcast": {"operand": V, "sizes": (2,)},
    "jax.lax.broadcast_in_dim": {"operand": V, "shape": (2, 4), "broadcast_dimensions": (1,)},
    "jax.lax.reshape": {"operand": M, "new_sizes": (3, 2)},
    "jax.lax.dynamic_slice": {"operand": V, "start_indices": (1,), "slice_sizes": (2,)},
    "jax.lax.dynamic_slice_in_dim": {"operand": V, "start_index": 1, "slice_size": 2, "axis": 0},
    "jax.lax.dynamic_index_in_dim": {"operand": M, "index": 1, "axis": 1, "keepdims": True},
    "jax.lax.slice": {"operand": V, "start_indices": (1,), "limit_indices": (3,), "strides": (1,)},
    "jax.lax.slice_in_dim": {
        "operand": V,
        "start_index": 1,
        "limit_index": 3,
        "stride": 1,
        "axis": 0,
    },
    "jax.lax.index_in_dim": {"operand": M, "index": 1, "axis": 0, "keepdims": True},
    "jax.lax.pad": {"operand": V, "padding_value": 0.0, "padding_config": ((1, 1, 0),)},
    "jax.lax.top_k": {"operand": V, "k": 2},
    # a loop with no xs: its trip count is the `length` argument
    "jax.lax.scan": {
        "f": Code("lambda carry, x: (carry, x)"),
        "init": Array(2),
        "xs": None,
        "length": 3,
    },
    "jax.lax.expand_dims": {"array": V, "dimensions": (0,)},
    "jax.lax.squeeze": {"array": Array(1, 3), "dimensions": (0,)},
    "jax.lax.transpose": {"operand": M, "permutation": (1, 0)},
    "jax.lax.rev": {"operand": M, "dimensions": (0,)},
    "jax.lax.concatenate": {"operands": (M, M), "dimension": 0},
    "jax.lax.argmax": {"operand": M, "axis": 0, "index_dtype": "int32"},
    "jax.lax.argmin": {"operand": M, "axis": 0, "index_dtype": "int32"},
    "jax.lax.cumsum": {"operand": M, "axis": 0, "reverse": True},
    "jax.lax.cumprod": {"operand": M, "axis": 0, "reverse": True},
    "jax.lax.cummax": {"operand": M, "axis": 0, "reverse": True},
    "jax.lax.sort": {"operand": M, "dimension": 0, "is_stable": True, "num_keys": 1},
    "jax.lax.collapse": {"operand": M, "start_dimension": 0, "stop_dimension": 2},
    **{f"jax.random.{name}": {"key": K, "shape": (2, 3)} for name in _RANDOM_SHAPED},
    "jax.random.randint": {"key": K, "shape": (2, 3), "minval": 0, "maxval": 5},
    "jax.random.truncated_normal": {"key": K, "lower": -1.0, "upper": 1.0, "shape": (2, 3)},
    "jax.random.gamma": {"key": K, "a": 1.0, "shape": (2, 3)},
    "jax.random.beta": {"key": K, "a": 1.0, "b": 1.0, "shape": (2, 3)},
    "jax.random.poisson": {"key": K, "lam": 1.0, "shape": (2, 3)},
    "jax.random.categorical": {"key": K, "logits": M, "axis": 1, "shape": (2,)},
    "jax.random.choice": {"key": K, "a": V, "shape": (2,), "replace": True, "axis": 0},
    "jax.random.permutation": {"key": K, "x": V, "axis": 0, "independent": False},
    "jax.random.split": {"key": K, "num": 3},
    "jax.random.orthogonal": {"key": K, "n": 3, "shape": (2,)},
    "jax.random.ball": {"key": K, "d": 3, "p": 2, "shape": (2,)},
    "jax.random.dirichlet": {"key": K, "alpha": Array(3), "shape": (2,)},
    "jax.random.multivariate_normal": {
        "key": K,
        "mean": Array(2),
        "cov": Array(2, 2),
        "shape": (3,),
    },
    "jax.nn.one_hot": {"x": I, "num_classes": 5, "axis": -1},
    "jax.nn.softmax": {"x": M, "axis": 0},
    "jax.nn.log_softmax": {"x": M, "axis": 0},
    "jax.nn.logsumexp": {"a": M, "axis": 0, "keepdims": True},
    "jax.nn.standardize": {"x": M, "axis": 0},
    "jax.nn.glu": {"x": Array(2, 4), "axis": 1},
}

# Parameters that give a shape, a length, a size or slice bounds: JAX803 (RULES.md). The
# others that must be static (axes, flags, diagonal offsets) are JAX703.
SHAPE_PARAMETERS = frozenset(
    {
        "shape", "new_shape", "new_sizes", "sizes", "slice_sizes", "slice_size", "dimensions",
        "N", "M", "n", "num", "start", "stop", "step", "repeats", "reps",
        "indices_or_sections", "pad_width", "padding_config", "length", "bins", "dims",
        "num_classes", "size", "start_indices", "limit_indices", "strides", "start_index",
        "limit_index", "stride", "d", "deg",
    }
)  # fmt: skip
# ... except where the same name is no size: `n` of `matrix_power` is an exponent, `n` of
# `diff` a count of differences (both change the result's shape), `dimensions` of the lax
# axis functions are axes.
_NOT_SHAPE = {
    ("jax.numpy.linalg.matrix_power", "n"),
    ("jax.lax.expand_dims", "dimensions"),
    ("jax.lax.squeeze", "dimensions"),
    ("jax.lax.rev", "dimensions"),
    ("jax.lax.broadcast_in_dim", "broadcast_dimensions"),
    ("jax.random.ball", "p"),
}
_SHAPE_ALSO = {("jax.lax.top_k", "k"), ("jax.numpy.diff", "n")}


def function(qualname: str) -> Callable[..., Any]:
    module, _, name = qualname.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _materialize(value: Any) -> Any:
    if isinstance(value, Array | Code):
        return value.make()
    if isinstance(value, tuple) and any(isinstance(v, Array) for v in value):
        return tuple(_materialize(v) for v in value)
    return value


def _call(target: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    """`target` called with `arguments`, positional-only ones by position."""
    signature = inspect.signature(target)
    positional = [
        arguments[name]
        for name, parameter in signature.parameters.items()
        if parameter.kind is parameter.POSITIONAL_ONLY and name in arguments
    ]
    keywords = {k: v for k, v in arguments.items() if signature.parameters[k].kind != 0}
    return target(*positional, **keywords)


def _first_int_replaced(value: Any, tracer: Any) -> tuple[Any, bool]:
    """`value` with its first int (depth first) replaced by `tracer`; False if it has none."""
    if isinstance(value, bool):
        return value, False
    if isinstance(value, int):
        return tracer, True
    if isinstance(value, tuple):
        items = list(value)
        for index, item in enumerate(items):
            items[index], done = _first_int_replaced(item, tracer)
            if done:
                return tuple(items), True
    return value, False


def _is_concretization(error: Exception) -> bool:
    import jax

    if isinstance(error, jax.errors.ConcretizationTypeError):
        return True
    message = str(error)
    return isinstance(error, TypeError | IndexError | ValueError) and any(
        phrase in message
        for phrase in (
            "concrete",
            "Tracer",
            "interpreted as an integer",
            "static",
            "must be an int",
        )
    )


def probe_parameter(qualname: str, name: str) -> str | None:
    """The exception JAX raises when `name` of `qualname` is traced; None if it traces.

    Raises AssertionError when the working call itself fails (a wrong entry in CALLS)."""
    target = function(qualname)
    arguments = {key: _materialize(value) for key, value in CALLS[qualname].items()}
    return _probe(lambda values: _call(target, values), arguments, name, qualname)


def probe_method(qualname: str, name: str) -> str | None:
    """As `probe_parameter`, for the array method of the same name (`x.sum(axis=...)`)."""
    arguments = {key: _materialize(value) for key, value in CALLS[qualname].items()}
    receiver_name = next(iter(arguments))
    receiver = arguments.pop(receiver_name)
    method = qualname.rpartition(".")[2]
    return _probe(lambda values: getattr(receiver, method)(**values), arguments, name, qualname)


def _probe(
    call: Callable[[dict[str, Any]], Any], arguments: dict[str, Any], name: str, label: str
) -> str | None:
    import jax
    import jax.numpy as jnp

    jax.eval_shape(lambda: call(arguments))  # the control: static values work
    sample = arguments[name]
    if isinstance(sample, bool):
        traced_input = jnp.asarray(sample)

        def traced_call(tracer):
            return call({**arguments, name: tracer})
    else:
        if not _first_int_replaced(sample, None)[1]:
            return None
        traced_input = jnp.asarray(_first_leaf(sample))

        def traced_call(tracer):
            return call({**arguments, name: _first_int_replaced(sample, tracer)[0]})

    try:
        jax.eval_shape(traced_call, traced_input)
    except Exception as error:  # any failure is recorded, then classified
        if _is_concretization(error):
            return _error_name(error)
        raise AssertionError(f"{label}({name}=<traced>) failed otherwise: {error!r}") from None
    return None


def _first_leaf(value: Any) -> int:
    if isinstance(value, tuple):
        for item in value:
            if isinstance(item, int | tuple) and not isinstance(item, bool):
                found = _first_int_replaced(item, None)
                if found[1]:
                    return _first_leaf(item)
    return value


def _error_name(error: Exception) -> str:
    import jax

    for name in ("TracerIntegerConversionError", "TracerBoolConversionError"):
        if isinstance(error, getattr(jax.errors, name)):
            return name
    if isinstance(error, jax.errors.ConcretizationTypeError):
        return "ConcretizationTypeError"
    return type(error).__name__


def probed_parameters(qualname: str) -> list[str]:
    """The parameters of the call in CALLS that can hold a traced value."""
    return [
        name
        for name, value in CALLS[qualname].items()
        if isinstance(value, bool | int) or _first_int_replaced(value, None)[1]
    ]


def code_of(qualname: str, name: str) -> str:
    if (qualname, name) in _SHAPE_ALSO:
        return "JAX803"
    return "JAX803" if name in SHAPE_PARAMETERS and (qualname, name) not in _NOT_SHAPE else "JAX703"


def measure_one(qualname: str) -> tuple[tuple[str, int | None, str, str], ...]:
    """(parameter, position or None when keyword-only, code, error) per static parameter of
    `qualname`, measured on the installed JAX."""
    signature = inspect.signature(function(qualname))
    positions = {
        name: index
        for index, (name, parameter) in enumerate(signature.parameters.items())
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    }
    entries = []
    for name in probed_parameters(qualname):
        error = probe_parameter(qualname, name)
        if error is not None:
            entries.append((name, positions.get(name), code_of(qualname, name), error))
    return tuple(entries)


def measure() -> Table:
    """qualname -> its static parameters (`measure_one`), for every function of CALLS."""
    return {q: entries for q in sorted(CALLS) if (entries := measure_one(q))}


def method_names() -> list[str]:
    """`jax.numpy` functions of CALLS that are also array methods taking the same arguments
    after the array (`x.sum(axis=0)`): their static parameters are probed on the method."""
    import jax

    return sorted(
        qualname.rpartition(".")[2]
        for qualname in CALLS
        if qualname.count(".") == 2
        and qualname.startswith("jax.numpy.")
        and hasattr(jax.Array, qualname.rpartition(".")[2])
        and qualname.rpartition(".")[2] not in ("reshape", "repeat")  # varargs: see shapes.py
    )


def measure_methods() -> Table:
    """method name -> static parameters, as `measure` (positions count after the array)."""
    import jax

    table: dict[str, tuple[tuple[str, int | None, str, str], ...]] = {}
    for method in method_names():
        qualname = f"jax.numpy.{method}"
        signature = inspect.signature(getattr(jax.Array, method))
        names = [n for n in signature.parameters if n != "self"]
        parameters = signature.parameters
        entries = []
        for name in probed_parameters(qualname):
            if name not in parameters:
                continue
            error = probe_method(qualname, name)
            if error is not None:
                keyword_only = parameters[name].kind is parameters[name].KEYWORD_ONLY
                position = None if keyword_only else names.index(name)
                entries.append((name, position, code_of(qualname, name), error))
        if entries:
            table[method] = tuple(entries)
    return table


def render(table: Table, methods: Table) -> str:
    import jax

    lines = [
        '"""Parameters that must be static Python values under `jax.jit`, per function.',
        "",
        f"Generated by tests/rules/static_probe.py from jax {jax.__version__}: do not edit.",
        "Each entry: (parameter, position or None when keyword-only, rule code, the",
        "exception JAX raises when the parameter holds a traced value).",
        '"""',
        "",
        "STATIC_PARAMETERS: dict[str, tuple[tuple[str, int | None, str, str], ...]] = {",
    ]
    for qualname, entries in table.items():
        lines.append(f"    {qualname!r}: (")
        lines.extend(f"        {entry!r}," for entry in entries)
        lines.append("    ),")
    lines.append("}")
    lines.append("")
    lines.append(
        "# Array methods (`x.sum(axis=...)`): positions count the arguments after the array."
    )
    lines.append("METHOD_PARAMETERS: dict[str, tuple[tuple[str, int | None, str, str], ...]] = {")
    for method, entries in methods.items():
        lines.append(f"    {method!r}: (")
        lines.extend(f"        {entry!r}," for entry in entries)
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines).replace("'", '"') + "\n"


if __name__ == "__main__":
    text = render(measure(), measure_methods())
    if "--write" in sys.argv:
        TABLE_PATH.write_text(text)
    else:
        print(text)
