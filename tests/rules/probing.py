"""What the table probes share: calling a function with 1, 2 and 3 arrays (and a ufunc with as
many as it takes: `scipy.special.hyp2f1` takes 4), each position in turn given something
else, and writing the measured table as a Python module."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

PositionTable = dict[str, tuple[int, ...]]


def failing_positions(
    target: Any, make_array: Callable[[], Any], fails: Callable[[Any, list[Any], int], bool]
) -> tuple[int, ...]:
    """The positions where `fails(target, args, position)`, over the arities (1 to 3, and a
    ufunc's own number of inputs) at which `target` runs on arrays."""
    positions: set[int] = set()
    for arity in sorted({1, 2, 3, getattr(target, "nin", 1)}):
        args = [make_array() for _ in range(arity)]
        if runs(target, args):
            positions |= {p for p in range(arity) if fails(target, args, p)}
    return tuple(sorted(positions))


def runs(target: Any, args: list[Any]) -> bool:
    """Does `target(*args)` run (warnings silenced)?"""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            target(*args)
    except Exception:  # these arguments do not fit the function
        return False
    return True


def measure(
    candidates: Iterable[tuple[str, Any]], positions_of: Callable[[Any], tuple[int, ...]]
) -> PositionTable:
    return {q: positions for q, target in candidates if (positions := positions_of(target))}


def render(docstring: list[str], name: str, table: PositionTable) -> str:
    lines = [
        f'"""{docstring[0]}',
        *docstring[1:],
        '"""',
        "",
        f"{name}: dict[str, tuple[int, ...]] = {{",
        *(f'    "{qualname}": {positions!r},' for qualname, positions in table.items()),
        "}",
    ]
    return "\n".join(lines) + "\n"


def main(text: Callable[[], str], path: Path) -> None:
    """`--write` the table to `path`, or print it."""
    if "--write" in sys.argv:
        path.write_text(text())
    else:
        print(text())
