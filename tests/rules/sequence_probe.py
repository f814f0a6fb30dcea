"""Which positional arguments of `jax.numpy` (and `jax.numpy.linalg`, `jax.nn`) functions
reject a Python list, measured by calling JAX: the source of
jax_lsp/diagnostics/sequence_table.py (JAX501).

Every public function is called with 1, 2 and 3 float arrays; for each arity that works, each
argument in turn is given as a list instead. A position rejects lists when JAX then raises
its own `TypeError: <name> requires ndarray or scalar arguments`.

Regenerate after a JAX upgrade: `python -m tests.rules.sequence_probe --write`;
tests/rules/test_inputs_table.py fails while the checked-in table and JAX disagree.
"""

from __future__ import annotations

import inspect
import itertools
import warnings
from pathlib import Path
from typing import Any

from tests.rules import probing

TABLE_PATH = Path(__file__).parents[2] / "jax_lsp" / "diagnostics" / "sequence_table.py"
MODULES = ("jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.nn")
_MESSAGE = "requires ndarray or scalar arguments"
# Functions never probed: they convert lists on purpose, or take no array at all.
_SKIPPED = frozenset({"array", "asarray", "from_dlpack", "frombuffer", "fromstring", "load"})
# Values tried after a leading array for functions whose other required parameters are a
# shape, a count or an axis (`broadcast_to(x, (2, 2))`, `tile(x, 2)`, `roll(x, 1)`): calls with
# arrays only never run for them.
_NON_ARRAY_TAILS = ((2, 2), 1, 0)


def candidates() -> list[tuple[str, Any]]:
    """(qualname, function) for the public functions of MODULES."""
    import importlib

    found = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in sorted(dir(module)):
            value = getattr(module, name)
            if name.startswith("_") or name in _SKIPPED or inspect.isclass(value):
                continue
            if not callable(value) or inspect.ismodule(value):
                continue
            found.append((f"{module_name}.{name}", value))
    return found


def _rejects(target: Any, args: list[Any], position: int) -> bool:
    """Does `target` raise JAX's list TypeError with a list at `position`?"""
    listed = list(args)
    listed[position] = args[position].tolist()
    try:
        target(*listed)
    except TypeError as error:
        return _MESSAGE in str(error)
    except Exception:  # any other failure: not the list check
        return False
    return False


def _joins(target: Any, args: list[Any], position: int) -> bool:
    """Does `target` take a list of arrays at `position` (`jnp.stack([a, b])`)? Such a
    position rejects only a list of lists (JOINS in inputs.py), not a list."""
    listed = list(args)
    listed[position] = list(args[position])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            target(*listed)
    except Exception:  # a list of arrays is rejected too
        return False
    return True


def _required_positional(target: Any) -> int | None:
    """How many positional parameters `target` requires (None when it has no signature)."""
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in positional and p.default is inspect.Parameter.empty for p in parameters)


def _leading_array_rejects(target: Any, make_array: Any, rejects: Any) -> bool:
    """Does the array of a call `target(array, <shape/count/axis>...)` reject a list? Only
    for one or two required parameters after the array, with the first tail that runs."""
    required = _required_positional(target)
    if required is None or not 2 <= required <= 3:
        return False
    for tail in itertools.product(_NON_ARRAY_TAILS, repeat=required - 1):
        args = [make_array(), *tail]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                target(*args)
        except Exception:  # this tail does not fit the function
            continue
        return rejects(target, args, 0)
    return False


def rejected_positions(target: Any) -> tuple[int, ...]:
    import jax.numpy as jnp

    def rejects(target: Any, args: list[Any], position: int) -> bool:
        return _rejects(target, args, position) and not _joins(target, args, position)

    def make_array() -> Any:
        return jnp.array([[0.5, 0.25], [0.125, 0.75]])

    positions = set(probing.failing_positions(target, make_array, rejects))
    if _leading_array_rejects(target, make_array, rejects):
        positions.add(0)
    return tuple(sorted(positions))


def measure() -> probing.PositionTable:
    return probing.measure(candidates(), rejected_positions)


def render(table: probing.PositionTable) -> str:
    import jax

    docstring = [
        "Positional arguments that reject a Python list or tuple, per function (JAX501).",
        "",
        f"Generated by tests/rules/sequence_probe.py from jax {jax.__version__}: do not edit.",
    ]
    return probing.render(docstring, "REJECTS_SEQUENCES", table)


if __name__ == "__main__":
    probing.main(lambda: render(measure()), TABLE_PATH)
