"""Functional updates an array name gets from itself: `x = x.at[i].add(v)`.

An in-place update the fixes rewrite (`x[i] += v`, or a discarded `x.at[i].add(v)`) may have
been performed again, later, in its functional form: a notebook whose cell raised (or did
nothing) and whose next cell does the update right. Rewriting the first then performs it
twice, so the fixes ask whether code after them updates the same name at the same index.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterable, Iterator
from typing import TypeVar

from jax_lsp.analysis.document import UnitSource
from jax_lsp.analysis.nodes import all_params, child_nodes, walk_once
from jax_lsp.analysis.unit_memo import per_unit

# An update statement: `x = x.at[i].set(v)` (Assign) or `x += v` (AugAssign).
Update = TypeVar("Update", bound=ast.stmt)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# The `.at[index]` methods that give an updated copy of the array (`get` reads).
UPDATE_METHODS = frozenset(
    ["set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"]
)


def at_update(value: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """(array, index) of `array.at[index].method(...)` with an update method, else None."""
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in UPDATE_METHODS
    ):
        return None
    indexed = value.func.value
    if not (isinstance(indexed, ast.Subscript) and isinstance(indexed.value, ast.Attribute)):
        return None
    if indexed.value.attr != "at":
        return None
    return indexed.value.value, indexed.slice


def index_key(index: ast.expr) -> str:
    """The index as code, whatever its place and spacing."""
    return ast.dump(index)


def self_update(statement: ast.stmt) -> tuple[str, str] | None:
    """(name, index key) of `name = name.at[index].method(...)`."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    update = at_update(statement.value)
    if not isinstance(target, ast.Name) or update is None:
        return None
    array, index = update
    if not (isinstance(array, ast.Name) and array.id == target.id):
        return None
    return target.id, index_key(index)


def scope_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a scope's body, nested blocks included, not those of the functions
    and classes it defines."""
    stack = list(body)
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, _SCOPES):
            continue
        for child in child_nodes(statement):
            if isinstance(child, ast.stmt):
                stack.append(child)
            elif isinstance(child, ast.excepthandler | ast.match_case):
                stack.extend(child.body)


def updated_after(body: Iterable[ast.stmt], name: str, key: str, line: int) -> bool:
    """Whether a statement of the scope `body` starting after `line` (1-based, as the nodes
    count) is `name = name.at[<the index of key>]...`."""
    return any(
        statement.lineno > line and self_update(statement) == (name, key)
        for statement in scope_statements(body)
    )


@per_unit
def top_level_self_updates(source: UnitSource) -> tuple[tuple[str, int, str], ...]:
    """(name, unit-relative 0-based line, index key) of each self-update the unit's top-level
    code makes, memoised on the parse."""
    if source.tree is None or ".at[" not in source.text:
        return ()
    return tuple(
        (update[0], statement.lineno - 1, update[1])
        for statement in scope_statements(source.tree.body)
        if (update := self_update(statement)) is not None
    )


# Calls whose arguments are output, not computation: a counter shown by a trace-time log.
_OUTPUT_CALLS = frozenset(["print", "debug", "info", "warning", "warn", "error", "log"])


def state_path(expr: ast.expr) -> str | None:
    """`count` for a name, `self.n` for an attribute of a name: a place state is kept."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return f"{expr.value.id}.{expr.attr}"
    return None


def _stepped(statement: ast.stmt) -> str | None:
    """The state `statement` computes from its own value: `n += 1`, `self.n = self.n + 1`."""
    if isinstance(statement, ast.AugAssign):
        return state_path(statement.target)
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        path = state_path(statement.targets[0])
        if path is not None and path in _paths_read(statement.value):
            return path
    return None


def _paths_read(expr: ast.AST) -> set[str]:
    return {
        path
        for node in walk_once(expr)
        if isinstance(node, ast.Name | ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and (path := state_path(node)) is not None
    }


def _is_output(statement: ast.stmt) -> bool:
    """`print(...)` or a logging call (`logger.info(...)`) as a statement of its own."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in _OUTPUT_CALLS


# Memoised by function node: rules ask it for every store in a function.
_STEPPED_AND_READ: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = weakref.WeakKeyDictionary()


def stepped_and_read(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
) -> frozenset[str]:
    """The state a function's body steps from its own value (`n += 1`, `g = g + 1`) and reads
    again beyond that step, outside a print or a log: a counter whose value the function's
    result depends on (`return self.n`), not one that only counts (a trace counter). None for
    a lambda (its body is one expression)."""
    found = _STEPPED_AND_READ.get(function)
    if found is None:
        body = function.body
        found = _STEPPED_AND_READ[function] = (
            _stepped_and_read(body) if isinstance(body, list) else frozenset()
        )
    return found


def _stepped_and_read(body: Iterable[ast.stmt]) -> frozenset[str]:
    statements = [s for s in scope_statements(body) if not isinstance(s, _SCOPES)]
    steps = {path for statement in statements if (path := _stepped(statement)) is not None}
    if not steps:
        return frozenset()
    read: set[str] = set()
    for statement in statements:
        if _is_output(statement):
            continue
        stepped = _stepped(statement)
        for child in child_nodes(statement):
            if isinstance(child, ast.expr):
                read |= _paths_read(child) - {stepped}
    return frozenset(steps & read)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def unread_self_updates(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Assign]:
    """The self-updates `x = x.at[i].set(v)` of a local name of `function` whose results
    nothing reads: no load of `x` that may run after one of them (later in the function, or
    anywhere in a loop holding one, but a `for` loop's iterable: evaluated once, before) lies
    outside these updates. The function returns without the updated array, so the update is
    lost. Only a parameter bound by nothing else counts: the caller handed its array in and
    may expect it updated, while an array the function made itself and never reads is dead
    code, not an update anyone waits for. Names a nested scope reads, or declared global or
    nonlocal, are left out."""
    params = set(all_params(function))
    updates: dict[str, list[ast.Assign]] = {}
    for statement in scope_statements(function.body):
        if (found := self_update(statement)) is not None and found[0] in params:
            updates.setdefault(found[0], []).append(statement)
    updates = {
        name: statements
        for name, statements in updates.items()
        if not _bound_elsewhere(function, name, statements)
    }
    return _unread(updates, function)


def _bound_elsewhere(function: ast.AST, name: str, updates: list[ast.Assign]) -> bool:
    """Does `function` bind `name` other than by `updates` (its self-updates)?"""
    inside = {id(node) for statement in updates for node in ast.walk(statement)}
    return any(
        isinstance(node, ast.Name)
        and node.id == name
        and isinstance(node.ctx, ast.Store)
        and id(node) not in inside
        for node in ast.walk(function)
    )


def _shared_names(function: ast.AST) -> set[str]:
    """Names declared global or nonlocal in `function`, or used by a scope nested in it."""
    shared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Global | ast.Nonlocal):
            shared.update(node.names)
        elif node is not function and isinstance(node, _SCOPES):
            shared.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return shared


def _loads(function: ast.AST, name: str) -> Iterator[ast.expr]:
    """The reads of `name` in `function` (an augmented assignment reads its target too)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Store):
            yield node
        elif (
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == name
        ):
            yield node.target


def _loops_holding(function: ast.AST, statements: list[ast.stmt]) -> list[ast.stmt]:
    """The loops of `function` whose body holds one of `statements`."""
    wanted = {id(statement) for statement in statements}
    return [
        loop
        for loop in ast.walk(function)
        if isinstance(loop, _LOOPS)
        and any(
            id(node) in wanted
            for part in (loop.body, loop.orelse)
            for s in part
            for node in ast.walk(s)
        )
    ]


def _may_run_after(load: ast.expr, first: tuple[int, int], loops: list[ast.stmt]) -> bool:
    if (load.lineno, load.col_offset) > first:
        return True
    for loop in loops:
        if isinstance(loop, ast.For | ast.AsyncFor) and _within(load, loop.iter):
            continue  # the iterable is evaluated once, before the first pass
        if _within(load, loop):
            return True
    return False


def _within(node: ast.AST, outer: ast.AST) -> bool:
    return any(sub is node for sub in ast.walk(outer))


def unread_loop_updates(
    loop: ast.For | ast.AsyncFor, scope_body: list[ast.stmt]
) -> list[ast.AugAssign]:
    """The augmented assignments `x += v` to a variable `x` of `loop`'s target whose new
    value nothing reads: no load of `x` in `scope_body` (the body of the function holding
    `loop`, or the loop alone at module level) that may run after one of them and before
    the next pass binds `x` again (later in the loop or after it; anywhere in a loop around
    it, or in one within it holding the update). On a JAX array `+=` rebinds the name to a
    new array and leaves the iterated element unchanged, so the update is lost (a NumPy
    array is updated in place, in its list)."""
    bound = {node.id for node in ast.walk(loop.target) if isinstance(node, ast.Name)}
    updates: dict[str, list[ast.AugAssign]] = {}
    for statement in scope_statements(loop.body):
        if (
            isinstance(statement, ast.AugAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id in bound
        ):
            updates.setdefault(statement.target.id, []).append(statement)
    # The loop's own next pass binds `x` before anything in it reads it again.
    return _unread(updates, ast.Module(body=scope_body, type_ignores=[]), rebinding=loop)


def _unread(
    updates: dict[str, list[Update]], scope: ast.AST, rebinding: ast.stmt | None = None
) -> list[Update]:
    """The statements of `updates` (per name) that `unread_after` finds unread in `scope`."""
    unread: list[Update] = []
    for name, statements in updates.items():
        if unread_after(scope, name, statements, rebinding):
            unread += statements
    return unread


def unread_after(
    scope: ast.AST, name: str, statements: list[Update], rebinding: ast.stmt | None = None
) -> bool:
    """Does no load of `name` in `scope` outside `statements` (its updates) read it after the
    first of them (later, or anywhere in a loop holding one but `rebinding`, the loop that
    binds the name again before each pass)? A name declared global or nonlocal, or used by a
    nested scope (which may read it whenever it is called), is read."""
    if name in _shared_names(scope):
        return False
    inside = {id(node) for statement in statements for node in ast.walk(statement)}
    loops = [found for found in _loops_holding(scope, statements) if found is not rebinding]
    first = min((s.lineno, s.col_offset) for s in statements)
    return not any(
        id(load) not in inside and _may_run_after(load, first, loops)
        for load in _loads(scope, name)
    )
