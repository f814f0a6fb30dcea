"""Which positional arguments of NumPy functions turn a tracer into a NumPy value (and fail),
measured under `jax.jit`: the source of jax_lsp/diagnostics/numpy_table.py (JAX703).

Every public NumPy function (and scalar type), those of `numpy.linalg`, `numpy.fft` and
`numpy.ma` (with the masked array classes), and those of `scipy.special` and
`scipy.integrate`, is called with 1, 2 and 3 float arrays (a ufunc with all its inputs); for
each arity that works, each argument in turn is given as a tracer instead. A position
converts when JAX then raises a concretization error (`TracerArrayConversionError` from
`__array__`, `TracerIntegerConversionError` from `__index__`, ...). Functions that hand the
call to the array's own method (`np.sum(x)` calls `x.sum()`) trace, and are left out.

A tracer can also pass tracing and fail only when `jax.jit` compiles the call: `np.argsort(x)`
calls `x.argsort(kind=None, order=None, stable=None)`, which traces, but `stable=None` cannot
be lowered (a `TypeError`). `jax.eval_shape` never compiles, so those are measured apart, by
lowering a jitted call that returns the result (an unused result is dropped before lowering):
the second table, `FAILS_TO_COMPILE`.

Regenerate after a NumPy, SciPy or JAX upgrade: `python -m tests.rules.numpy_probe --write`;
tests/rules/test_numpy_table.py fails while the checked-in table and the libraries disagree.
"""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Any

from tests.rules import probing

TABLE_PATH = Path(__file__).parents[2] / "jax_lsp" / "diagnostics" / "numpy_table.py"
# Never probed: they read or write files, or print.
_SKIPPED = frozenset(
    {"load", "loadtxt", "save", "savetxt", "savez", "savez_compressed", "genfromtxt", "fromfile"}
    | {"info", "show_config", "show_runtime", "source", "disp", "test"}
)


def candidates() -> list[tuple[str, Any]]:
    import numpy as np
    import scipy.integrate
    import scipy.special

    found = []
    for name in sorted(dir(np)):
        value = getattr(np, name)
        if name.startswith("_") or name in _SKIPPED or inspect.ismodule(value):
            continue
        if inspect.isclass(value) and not issubclass(value, np.generic):
            continue
        if callable(value):
            found.append((f"numpy.{name}", value))
    # The submodules a NumPy user calls on arrays (`np.linalg.inv(a)`, `np.fft.fft(x)`,
    # `np.ma.masked_array(x, mask)`: the masked array classes build from their data).
    for module in (np.linalg, np.fft, np.ma):
        for name in sorted(module.__all__):
            value = getattr(module, name, None)
            if name in _SKIPPED or value is None or inspect.ismodule(value):
                continue
            if inspect.isclass(value) and not issubclass(value, np.ndarray):
                continue
            if callable(value):
                found.append((f"{module.__name__}.{name}", value))
    # The SciPy a NumPy user ports: special functions (ufuncs: they convert every input) and
    # the integrators of sampled data (`simpson`, `trapezoid`).
    for module in (scipy.special, scipy.integrate):
        for name in sorted(module.__all__):
            value = getattr(module, name)
            if inspect.ismodule(value) or inspect.isclass(value) or not callable(value):
                continue
            found.append((f"{module.__name__}.{name}", value))
    return found


def _fails_traced(target: Any, args: list[Any], position: int) -> bool:
    import jax

    def traced_call(tracer):
        values = list(args)
        values[position] = tracer
        target(*values)
        return 0

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jax.eval_shape(traced_call, args[position])
    except jax.errors.ConcretizationTypeError:
        return True
    except jax.errors.TracerArrayConversionError:
        return True
    except Exception:  # another failure: not a conversion of the tracer
        return False
    return False


def _fails_compiled(target: Any, args: list[Any], position: int) -> bool:
    """Does the call trace with a tracer at `position` but fail when jit lowers it?"""
    import jax

    def traced_call(tracer):
        values = list(args)
        values[position] = tracer
        out = target(*values)
        return out if isinstance(out, jax.core.Tracer) else 0  # keep the op in the program

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            traced = jax.jit(traced_call).trace(args[position])
        except Exception:  # fails while tracing: the first table's business, or not a tracer's
            return False
        try:
            traced.lower()
        except Exception:
            return True
    return False


def compile_failing_positions(target: Any) -> tuple[int, ...]:
    import numpy as np

    failing = probing.failing_positions(target, lambda: np.array([0.5, 0.25]), _fails_compiled)
    if not failing:  # almost every function: no need to measure its conversions
        return ()
    converting = set(converting_positions(target))
    return tuple(p for p in failing if p not in converting)


def converting_positions(target: Any) -> tuple[int, ...]:
    """Measured once per process: the test of each function and the compile table's (which
    leaves these positions out) may both ask."""
    import numpy as np

    measured = _CONVERTING.get(id(target))
    if measured is None:
        positions = probing.failing_positions(target, lambda: np.array([0.5, 0.25]), _fails_traced)
        measured = _CONVERTING[id(target)] = (target, positions)  # the target kept: its id too
    return measured[1]


_CONVERTING: dict[int, tuple[Any, tuple[int, ...]]] = {}


def measure() -> probing.PositionTable:
    return probing.measure(candidates(), converting_positions)


def measure_compiled() -> probing.PositionTable:
    return probing.measure(candidates(), compile_failing_positions)


def render(table: probing.PositionTable, compiled: probing.PositionTable) -> str:
    import jax
    import numpy as np
    import scipy

    docstring = [
        "Positional arguments of NumPy functions (and of `scipy.special` and `scipy.integrate`)",
        "that fail on a tracer, per function.",
        "",
        f"Generated by tests/rules/numpy_probe.py from numpy {np.__version__}, scipy",
        f"{scipy.__version__} and jax {jax.__version__}: do not edit.",
    ]
    first = probing.render(docstring, "CONVERTS_TRACERS", table)
    second = probing.render(["-"], "FAILS_TO_COMPILE", compiled).split('"""\n\n', 1)[1]
    comment = "\n# Positions where a tracer traces but `jax.jit` fails to compile the call.\n"
    return f"{first}{comment}{second}"


if __name__ == "__main__":
    probing.main(lambda: render(measure(), measure_compiled()), TABLE_PATH)
