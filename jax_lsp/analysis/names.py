"""Which names a function binds itself (parameters, assignments, nested defs), hiding the
module-level or imported name of the same spelling."""

from __future__ import annotations

import ast
import weakref
from functools import lru_cache

from jax_lsp.analysis.nodes import child_nodes, lone_class, walk_nodes
from jax_lsp.analysis.summary import FunctionNode
from jax_lsp.analysis.traced import all_params


@lru_cache(maxsize=4096)  # keyed by node identity; trees are immutable once parsed
def local_names(function: FunctionNode) -> frozenset[str]:
    """Parameters, assigned names and nested defs anywhere in `function`."""
    names = set(all_params(function))
    for node in walk_nodes(function):
        kind = type(node)  # exact types: the parser makes no subclasses
        if kind is ast.Name:
            if type(node.ctx) is ast.Store:
                names.add(node.id)
        elif (kind is ast.FunctionDef or kind is ast.AsyncFunctionDef) and node is not function:
            names.add(node.name)
    return frozenset(names)


def binds_locally(name: str, function: FunctionNode) -> bool:
    return name in local_names(function)


# Per-node memos (trees are immutable once parsed and shared by every document holding the
# same text); weak keys so a forgotten tree takes its entries with it.
_STORED: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = weakref.WeakKeyDictionary()
_SCOPE_NAMES: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = weakref.WeakKeyDictionary()
_DECLARED: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = weakref.WeakKeyDictionary()
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def stored_names(node: ast.AST) -> frozenset[str]:
    """Names bound anywhere in `node` (not inside nested scopes; a def binds its own name).

    Memoised per statement, so asking again for an enclosing statement costs one union per
    child statement instead of a walk of everything under it.
    """
    if not isinstance(node, ast.stmt):
        return _collect_stored(node)
    cached = _STORED.get(node)
    if cached is None:
        cached = _STORED[node] = _collect_stored(node)
    return cached


def _collect_stored(root: ast.AST) -> frozenset[str]:
    if isinstance(root, _DEFINITIONS):
        return frozenset((root.name,))
    names: set[str] = set()
    stack = [root]
    while stack:
        current = stack.pop()
        kind = type(current)  # exact types: the parser makes no subclasses
        if kind in _STATEMENTS and current is not root:
            names |= stored_names(current)
            continue
        if kind is ast.Name:
            if isinstance(current.ctx, ast.Store | ast.Del):  # type: ignore[attr-defined]
                names.add(current.id)  # type: ignore[attr-defined]
            continue  # only a context under it
        if kind is ast.alias:
            names.add((current.asname or current.name).split(".")[0])  # type: ignore[attr-defined]
        elif kind is ast.ExceptHandler and current.name:  # type: ignore[attr-defined]
            names.add(current.name)  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            names.update(current.names)  # type: ignore[attr-defined]
        elif (kind is ast.MatchAs or kind is ast.MatchStar) and current.name:  # type: ignore[attr-defined]
            names.add(current.name)  # type: ignore[attr-defined]
        elif kind is ast.Lambda:
            continue
        stack.extend(child_nodes(current))
    return frozenset(names)


# Every statement type (`ast.stmt`'s subclasses: the parser makes no others).
_STATEMENTS = frozenset(ast.stmt.__subclasses__())


def scope_bound_names(function: FunctionNode) -> frozenset[str]:
    """Parameters and names bound in the function's own body: they hide module-level names."""
    cached = _SCOPE_NAMES.get(function)
    if cached is None:
        names = set(all_params(function))
        body = function.body if isinstance(function.body, list) else [function.body]
        for statement in body:
            names |= stored_names(statement)
        cached = _SCOPE_NAMES[function] = frozenset(names)
    return cached


def declared_elsewhere(scope: ast.AST) -> frozenset[str]:
    """Names that `global`/`nonlocal` anywhere under `scope` let another scope rebind."""
    cached = _DECLARED.get(scope)
    if cached is None:
        cls = lone_class(scope)
        if cls is not None:  # member by member: an edit in a class shares the others' nodes
            cached = frozenset().union(*(declared_elsewhere(member) for member in cls.body))
        else:
            names: set[str] = set()
            for node in walk_nodes(scope):
                if isinstance(node, ast.Global | ast.Nonlocal):
                    names.update(node.names)
            cached = frozenset(names)
        _DECLARED[scope] = cached
    return cached


def assigned_name(statement: ast.AST | None) -> str | None:
    """The name of a plain single-target assignment `name = value`, else None."""
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return statement.targets[0].id
    return None


def rebinds(name: str, function: FunctionNode) -> bool:
    """The function's body assigns `name` (its parameters are bound on entry)."""
    body = function.body if isinstance(function.body, list) else []
    return any(name in stored_names(statement) for statement in body)


def names_reached(function: FunctionNode, body: list[ast.stmt]) -> frozenset[str]:
    """The names `function` reads, with those they are computed from in `body` (the block
    around it, a loop body): a name `body` assigns brings the names its value reads, a def
    of `body` the names it reads (`propagate` calls `transform`, built from the loop's item)."""
    sources: dict[str, list[ast.AST]] = {}
    pending_statements = list(body)
    while pending_statements:
        statement = pending_statements.pop()
        if isinstance(statement, _DEFINITIONS):
            sources.setdefault(statement.name, []).append(statement)
            continue
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in walk_nodes(target):
                    if isinstance(node, ast.Name) and statement.value is not None:
                        sources.setdefault(node.id, []).append(statement.value)
        pending_statements.extend(c for c in child_nodes(statement) if isinstance(c, ast.stmt))
    reached: set[str] = set()
    pending = [n.id for n in walk_nodes(function) if isinstance(n, ast.Name)]
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached.add(name)
        for source in sources.get(name, ()):
            if source is not function:
                pending.extend(n.id for n in walk_nodes(source) if isinstance(n, ast.Name))
    return frozenset(reached)
