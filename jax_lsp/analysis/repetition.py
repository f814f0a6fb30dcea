"""How often a module function runs, from the calls the module makes of it.

A jit (or a `lax` loop outside jit) of a closure made inside a function compiles once per call
of that function: a bug when the function runs again and again, none when it runs once per
process (`train_and_evaluate` called once from `main`). The module's own calls tell, followed
up to top-level code or `main`: a function called once from there (directly or through
functions that run once) outside any loop runs once; one called in a loop, or from several
places, runs repeatedly. A function the module also names without calling it (`app.run(main)`,
a callback), or calls from traced code, from a method, or from a function whose own runs are
unknown (another module may call it under its jit), or never calls, is unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from enum import Enum

from jax_lsp.analysis.nodes import child_nodes, walk_nodes

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, *_COMPREHENSIONS)


class Runs(Enum):
    ONCE = "once"
    REPEATEDLY = "repeatedly"


def calls_in_loops(scope: ast.AST) -> frozenset[int]:
    """The ids of the calls inside a loop of `scope`'s own code (nested functions and
    classes left out: they run when called)."""
    found: set[int] = set()
    stack: list[tuple[ast.AST, bool]] = [(child, False) for child in child_nodes(scope)]
    while stack:
        node, looped = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            continue
        if looped and isinstance(node, ast.Call):
            found.add(id(node))
        inner = looped or isinstance(node, _LOOPS)
        stack.extend((child, inner) for child in child_nodes(node))
    return frozenset(found)


def names_loaded(trees: Iterable[ast.AST], name: str) -> Iterator[ast.Name]:
    for tree in trees:
        for node in walk_nodes(tree):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                yield node


# One call of the function: the function making it (None: top-level code), the call, and the
# scope whose loops the call may stand in (the caller, or the unit's tree).
CallOf = tuple["ast.AST | None", ast.Call, ast.AST]


def runs(
    name: str,
    calls_of: Callable[[str], list[CallOf]],
    loaded: Callable[[str], int],
    caller_name: Callable[[ast.AST], str | None],
    traced: Callable[[ast.AST], bool],
    seen: frozenset[str] = frozenset(),
) -> Runs | None:
    """How often the module function `name` runs, by its calls in the module."""
    if name == "main":
        return Runs.ONCE
    calls = calls_of(name)
    if not calls or name in seen or loaded(name) != len(calls):
        return None  # never called here, recursive, or handed on as a value
    outcome = Runs.ONCE if len(calls) == 1 else Runs.REPEATEDLY
    for caller, call, scope in calls:
        if caller is not None:
            if traced(caller):
                return None  # runs while a trace runs: as often as that compiles
            called_from = caller_name(caller)
            if called_from is None:
                return None  # a method or a nested function: its calls are not followed
            # Known only when the caller's own runs are (top-level code at the end of the
            # chain): a caller other modules call may run under their jit.
            through = runs(called_from, calls_of, loaded, caller_name, traced, seen | {name})
            if through is None:
                return None
            if through is Runs.REPEATEDLY:
                outcome = Runs.REPEATEDLY
        if id(call) in calls_in_loops(scope):
            outcome = Runs.REPEATEDLY
    return outcome
