"""Names that a unit's functions write without owning them, gathered during the summary walk.

A function writes a name it does not own when it assigns it after `global` or `nonlocal`, or
mutates it (`x.append(v)`, `x[k] = v`, `x.attr = v`) while it is not local. Module facts need
these names: a jitted function reading such a global sees a value that changes behind its back.

The summary walk visits every node once; it reports what this module needs through the
methods below, and each function's writes are settled when the walk leaves it. Only a
function's body counts: its decorators, defaults and annotations run in the enclosing scope,
and lambdas and class bodies own no names here (a method's writes still reach the module).
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.nodes import all_params

# Methods that change their object in place: `x.append(v)` mutates `x`.
MUTATING_METHODS = frozenset(
    (
        *("append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault"),
        *("add", "discard", "popitem", "sort", "reverse"),
    )
)


def mutated_name(node: ast.AST) -> str | None:
    """`x` for `x.append(...)`-style calls and `x[k] = v` / `x.attr = v` stores."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MUTATING_METHODS
        and isinstance(node.func.value, ast.Name)
    ):
        return node.func.value.id
    if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store):
        base = node.value
        while isinstance(base, ast.Subscript | ast.Attribute):
            base = base.value
        return base.id if isinstance(base, ast.Name) else None
    return None


class _Scope:
    """A function body being walked (`recording`), or a region that owns nothing: the module,
    a class body, a lambda, a function's decorators and signature."""

    __slots__ = ("declared", "free", "local", "recording")

    def __init__(self, recording: bool, params: tuple[str, ...] = ()) -> None:
        self.recording = recording
        self.local: set[str] = set(params)
        self.declared: set[str] = set()
        self.free: set[str] = set()  # candidates, and the settled writes of nested scopes

    def writes(self) -> set[str]:
        if not self.recording:
            return self.free
        return {name for name in self.free if name in self.declared or name not in self.local}


class FreeWrites:
    def __init__(self) -> None:
        self._scopes = [_Scope(False)]

    @property
    def result(self) -> frozenset[str]:
        """The unit's free writes, once the walk is over."""
        return frozenset(self._scopes[0].free)

    def enter_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._scopes.append(_Scope(True, tuple(all_params(node))))

    def enter_opaque(self) -> None:
        self._scopes.append(_Scope(False))

    def leave(self, name: str | None = None) -> None:
        """Leave the innermost scope; `name` is the def or class it binds in its parent."""
        done = self._scopes.pop()
        parent = self._scopes[-1]
        parent.free |= done.writes()
        if name is not None and parent.recording:
            parent.local.add(name)

    def settled(self) -> frozenset[str]:
        """The writes settled so far into the innermost scope (a class body's, between two
        of its methods)."""
        return frozenset(self._scopes[-1].free)

    def settle(self, names: frozenset[str]) -> None:
        """Add writes settled by a walk replayed instead of made (see `settled`)."""
        self._scopes[-1].free |= names

    def name(self, node: ast.Name) -> None:
        scope = self._scopes[-1]
        if scope.recording and type(node.ctx) is not ast.Load:
            scope.local.add(node.id)
            scope.free.add(node.id)  # kept only if declared global (see _Scope.writes)

    def declare(self, names: list[str]) -> None:
        scope = self._scopes[-1]
        if scope.recording:
            scope.declared.update(names)

    def mutated(self, name: str | None) -> None:
        """`name` is mutated here (`mutated_name` of a call or a store)."""
        scope = self._scopes[-1]
        if scope.recording and name is not None and name not in ("self", "cls"):
            scope.free.add(name)
