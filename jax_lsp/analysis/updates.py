"""Functional updates an array name gets from itself: `x = x.at[i].add(v)`.

An in-place update the fixes rewrite (`x[i] += v`, or a discarded `x.at[i].add(v)`) may have
been performed again, later, in its functional form: a notebook whose cell raised (or did
nothing) and whose next cell does the update right. Rewriting the first then performs it
twice, so the fixes ask whether code after them updates the same name at the same index.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from jax_lsp.analysis.document import UnitSource

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
        for child in ast.iter_child_nodes(statement):
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


def top_level_self_updates(source: UnitSource) -> tuple[tuple[str, int, str], ...]:
    """(name, unit-relative 0-based line, index key) of each self-update the unit's top-level
    code makes, memoised on the parse."""
    found = source.memo.get("self_updates")
    if found is None:
        found = ()
        if source.tree is not None and ".at[" in source.text:
            found = tuple(
                (update[0], statement.lineno - 1, update[1])
                for statement in scope_statements(source.tree.body)
                if (update := self_update(statement)) is not None
            )
        source.memo["self_updates"] = found
    return found
