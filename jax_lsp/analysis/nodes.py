"""Fast walks over `ast` trees for the analysis passes.

Every pass over a tree (summaries, module state, the rule walk) asks each node for its
children. `ast.iter_child_nodes` is a generator that inspects every field of every node, and
over a third of a tree's nodes are childless markers (Load, Add, Eq, ...) no pass looks at.
`child_nodes` returns the others from a small function made once per node type, which reads
exactly the fields that can hold child nodes: several times faster.
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import TypeVar

T = TypeVar("T")

# Childless marker nodes (Load, Add, Eq, And, ...): over a third of a tree's nodes, and of no
# interest to the walks, which skip them.
MARKER_NODE_TYPES = frozenset(
    subclass
    for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for subclass in base.__subclasses__()
)
# Nodes without children worth visiting (a Name's only child is its Load or Store marker).
LEAF_NODE_TYPES = frozenset((ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue))

# Field types (in the grammar each node class documents) that never hold a child worth visiting.
_LEAF_TYPES = frozenset(
    (
        "identifier",
        "string",
        "int",
        "constant",
        "expr_context",
        "operator",
        "unaryop",
        "cmpop",
        "boolop",
    )
)
# List fields whose items may be None: `{**rest}` keys, keyword-only parameters without default.
_HOLED_LISTS = frozenset((("Dict", "keys"), ("arguments", "kw_defaults")))
_FIELD = re.compile(r"(\w+)([*?]?) (\w+)")

ChildGetter = Callable[[ast.AST], list[ast.AST]]


class _Getters(dict[type, ChildGetter | None]):
    """Node type -> its children's getter, made on first sight; None for a type whose nodes
    never have children worth visiting (Name, Constant: about half the nodes of a tree), so
    walks skip them without a call."""

    def __missing__(self, node_type: type) -> ChildGetter | None:
        getter = self[node_type] = _make_getter(node_type)
        return getter


_GETTERS = _Getters()
# The table itself, for the walks that visit node by node (summaries, rules): reading it saves
# `child_nodes`' call per node. A getter raises AttributeError on a node built by hand without
# all its fields, which `child_nodes` then answers.
CHILD_GETTERS: dict[type, ChildGetter | None] = _GETTERS


class _MarkedGetters(dict[type, ChildGetter | None]):
    """`CHILD_GETTERS` with the marker nodes kept: every node type has the same getter."""

    def __missing__(self, node_type: type) -> ChildGetter | None:
        getter = self[node_type] = _all_children
        return getter


def _all_children(node: ast.AST) -> list[ast.AST]:
    return list(ast.iter_child_nodes(node))


# For a walk where some rule looks at markers (Load, Add, ...): `ast.iter_child_nodes`.
MARKED_CHILD_GETTERS: dict[type, ChildGetter | None] = _MarkedGetters()


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` without marker nodes, as a list, in field order."""
    getter = _GETTERS[type(node)]
    if getter is None:
        return []
    try:
        return getter(node)
    except AttributeError:  # a node built by hand without all its fields
        return _generic_children(node)


# The last walks made, by the root's id (with the root, which keeps the id its own): the
# model's facts, the key flow and the rules walk the same function one after another (its
# bound names, its calls, its assignments...), about a third of all nodes walked in `check`.
# Trees are never changed once parsed (an edit builds new nodes), so a walk stays true for
# as long as its root lives; bounded, the oldest walk dropped first.
_RECENT_WALKS: dict[int, tuple[ast.AST, list[ast.AST]]] = {}
_RECENT_WALKS_KEPT = 64
# A batch analysing each text once keeps more (`keep_more_walks`): with 64, four walks in ten
# were of roots walked before, the facts of a module asking for its units far apart.
_WALKS_KEPT = {False: 64, True: 256}


def keep_more_walks(on: bool) -> None:
    """Keep more recent walks (on: for a batch analysing each text once, whose memory is
    freed with the process), or the default few: the walks are the same either way."""
    global _RECENT_WALKS_KEPT
    _RECENT_WALKS_KEPT = _WALKS_KEPT[on]


def walk_nodes(node: ast.AST) -> list[ast.AST]:
    """`ast.walk(node)` (breadth first) without marker nodes, as a list: three times faster.
    For walks that look at no Load, Store, operator or comparison node (`node.ctx` is still
    there to read). The list may be shared with other callers: read it, never change it."""
    recent = _RECENT_WALKS.get(id(node))
    if recent is not None and recent[0] is node:
        return recent[1]
    nodes = _walk(node)
    while len(_RECENT_WALKS) >= _RECENT_WALKS_KEPT:  # more than one after `keep_more_walks`
        del _RECENT_WALKS[next(iter(_RECENT_WALKS))]
    _RECENT_WALKS[id(node)] = (node, nodes)
    return nodes


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def scope_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a scope's statements, not inside nested functions or classes (their
    definitions themselves are included)."""
    stack: list[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(child_nodes(node)))


def scope_statements(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """What `scope_nodes` yields of the statements (with the handlers, cases and `with`
    items between them), in its order, without visiting an expression: none holds a
    statement."""
    stack: list[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(block_children(node)))


def walk_once(node: ast.AST) -> list[ast.AST]:
    """`walk_nodes` of a root no other pass walks (an expression, a lambda's body): not kept
    among the recent walks, whose room is for the functions and units walked again."""
    return _walk(node)


def forget_walks() -> None:
    """Drop the kept walks (and the trees they hold): with the parse caches."""
    _RECENT_WALKS.clear()


def _walk(node: ast.AST) -> list[ast.AST]:
    nodes = [node]
    getters = _GETTERS
    # `child_nodes` spelled out: the walk's nodes are most of all the calls made for children.
    for current in nodes:  # the list grows while it is read
        getter = getters[type(current)]
        if getter is None:
            continue
        try:
            nodes += getter(current)
        except AttributeError:  # a node built by hand without all its fields
            nodes += _generic_children(current)
    return nodes


def contains(root: ast.AST, node: ast.AST | None) -> bool:
    """Is `node` (this very node) `root` or under it?"""
    return node is not None and any(child is node for child in walk_nodes(root))


def lone_class(tree: ast.AST) -> ast.ClassDef | None:
    """The class a unit's tree holds when it holds one class and nothing else."""
    if isinstance(tree, ast.Module) and len(tree.body) == 1:
        only = tree.body[0]
        return only if isinstance(only, ast.ClassDef) else None
    return None


def class_header(node: ast.ClassDef) -> list[ast.expr]:
    """What a class statement evaluates besides its body: decorators, bases, keywords."""
    return [*node.decorator_list, *node.bases, *(keyword.value for keyword in node.keywords)]


def per_member(
    node: ast.ClassDef, memo: weakref.WeakKeyDictionary[ast.AST, T], fact: Callable[[ast.stmt], T]
) -> list[T]:
    """`fact(member)` for each statement of the class body, memoised on the member's node.

    For pure functions of a member's subtree: an edit inside a class re-parses only the
    edited members and shares the other members' nodes with the last parse
    (`document._splice_member`), so each keystroke computes the fact of the edited member
    alone, not of the whole class. Weak keys: a forgotten tree takes its entries along."""
    return per_member_of(node.body, memo, fact)


def per_member_of(
    members: list[ast.stmt],
    memo: weakref.WeakKeyDictionary[ast.AST, T],
    fact: Callable[[ast.stmt], T],
) -> list[T]:
    """`per_member` for some statements of a class body."""
    found = []
    for member in members:
        value = memo.get(member)
        if value is None:
            value = memo[member] = fact(member)
        found.append(value)
    return found


_BLOCK_NODES = (ast.stmt, ast.excepthandler, ast.match_case, ast.withitem)


def walk_statements(node: ast.AST) -> list[ast.AST]:
    """The statements under `node` (nested blocks and definitions included), with the
    handlers, cases and `with` items between them: what `walk_nodes` meets of them, in the
    order it meets them (breadth first in field order), without visiting any expression."""
    found: list[ast.AST] = [node]
    for current in found:  # the list grows while it is read
        found.extend(block_children(current))
    return found


def block_children(node: ast.AST) -> list[ast.AST]:
    """The statements, handlers, cases and `with` items directly under `node`."""
    fields = _BLOCK_FIELDS.get(type(node))
    if fields is None:
        fields = _BLOCK_FIELDS[type(node)] = _block_fields(type(node))
    if fields is _UNKNOWN_FIELDS:
        return _any_block_children(node)
    found: list[ast.AST] = []
    for field in fields:  # only the fields that hold blocks: most statements have none
        value = getattr(node, field, None)
        if value:
            found += value
    return found


# The fields of each node type that hold statements, handlers, cases or `with` items.
_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {}
_BLOCK_TYPES = frozenset(("stmt", "excepthandler", "match_case", "withitem"))
_UNKNOWN_FIELDS = ("?",)  # a node type without a grammar line: its values are inspected


def _block_fields(node_type: type) -> tuple[str, ...]:
    fields = _grammar_fields(node_type)
    if fields is None or [name for _, _, name in fields] != list(node_type._fields):
        return _UNKNOWN_FIELDS
    return tuple(name for kind, many, name in fields if many == "*" and kind in _BLOCK_TYPES)


def _any_block_children(node: ast.AST) -> list[ast.AST]:
    found: list[ast.AST] = []
    for field in node._fields:
        value = getattr(node, field, None)
        if type(value) is list and value and isinstance(value[0], _BLOCK_NODES):
            found.extend(value)
    return found


def own_returns(node: ast.FunctionDef, may_yield: bool = True) -> list[ast.expr | None] | None:
    """The values of a function's own `return` statements (None for a bare `return`); None
    for a generator. `may_yield`: its text may say `yield` (else only statements are
    visited: a return is one)."""
    found: list[ast.expr | None] = []
    pending: list[ast.AST] = list(node.body)
    children = child_nodes if may_yield else block_children
    while pending:
        current = pending.pop()
        kind = type(current)  # exact types: the parser makes no subclasses
        if kind is ast.Return:
            found.append(current.value)  # type: ignore[attr-defined]
        elif kind is ast.Yield or kind is ast.YieldFrom:
            return None
        elif kind in _OWN_SCOPES:
            continue
        pending.extend(children(current))
    return found


_OWN_SCOPES = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))


# A parameter's name (`map` over an argument list reads them without a comprehension's call).
_PARAM_NAME = attrgetter("arg")


def positional_params(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    args = node.args
    return [*map(_PARAM_NAME, args.posonlyargs), *map(_PARAM_NAME, args.args)]


def is_staticmethod(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    """Decorated `@staticmethod`: reached through an instance, it takes no `self`."""
    return not isinstance(node, ast.Lambda) and any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
    )


def is_classmethod(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    """Decorated `@classmethod`: called through its class, the class is its first argument."""
    return not isinstance(node, ast.Lambda) and any(
        isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list
    )


def has_params(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    """Does the function take any parameter (`all_params` not empty)?"""
    args = node.args
    return bool(args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg)


def all_params(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    args = node.args
    names = [*map(_PARAM_NAME, args.posonlyargs), *map(_PARAM_NAME, args.args)]
    names += map(_PARAM_NAME, args.kwonlyargs)
    if args.vararg is not None:
        names.append(args.vararg.arg)
    if args.kwarg is not None:
        names.append(args.kwarg.arg)
    return names


def _make_getter(node_type: type) -> ChildGetter | None:
    """A function listing a node's children, compiled from the grammar line its class
    documents (`Call(expr func, expr* args, keyword* keywords)` gives
    `return [node.func, *node.args, *node.keywords]`); None when no field can hold one."""
    fields = _grammar_fields(node_type)
    if fields is None or [name for _, _, name in fields] != list(node_type._fields):
        return _generic_children  # an unexpected grammar line: inspect values at run time
    # The fields as items of a list display while none may be None (one display is several
    # times cheaper than appending field by field); an optional field or a list with holes
    # breaks the display into statements.
    lines = ["def children(node):"]
    display: list[str] = []
    started = False

    def flush() -> None:
        nonlocal started
        if display:
            lines.append(f"    out {'+=' if started else '='} [{', '.join(display)}]")
            display.clear()
        elif not started:
            lines.append("    out = []")
        started = True

    for field_type, quantity, name in fields:
        if field_type in _LEAF_TYPES:
            continue
        if quantity == "*" and (node_type.__name__, name) in _HOLED_LISTS:
            flush()
            lines.append(f"    out += [item for item in node.{name} if item is not None]")
        elif quantity == "*":
            display.append(f"*node.{name}")
        elif quantity == "?":
            flush()
            lines += [f"    if node.{name} is not None:", f"        out.append(node.{name})"]
        else:
            display.append(f"node.{name}")
    if not started and not display:
        return None
    if not started:
        lines.append(f"    return [{', '.join(display)}]")
    else:
        flush()
        lines.append("    return out")
    namespace: dict[str, ChildGetter] = {}
    exec("\n".join(lines), namespace)  # our own code, built from the grammar line
    return namespace["children"]


def _grammar_fields(node_type: type) -> list[tuple[str, str, str]] | None:
    """(type, quantity, name) of each field, from a doc line such as
    `Call(expr func, expr* args, keyword* keywords)`; None when there is no such line."""
    doc = (node_type.__doc__ or "").strip().split("\n")[0]
    prefix = f"{node_type.__name__}("
    if not doc.startswith(prefix) or not doc.endswith(")"):
        return None if node_type._fields else []
    inner = doc[len(prefix) : -1].strip()
    if not inner:
        return []
    fields = []
    for part in inner.split(","):
        match = _FIELD.fullmatch(part.strip())
        if match is None:
            return None
        fields.append((match.group(1), match.group(2), match.group(3)))
    return fields


def _generic_children(node: ast.AST) -> list[ast.AST]:
    children = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST) and type(item) not in MARKER_NODE_TYPES:
                    children.append(item)
        elif isinstance(value, ast.AST) and type(value) not in MARKER_NODE_TYPES:
            children.append(value)
    return children


def argument_of(call: ast.Call, position: int, *names: str) -> ast.expr | None:
    """The argument passed at `position` or by one of `names`."""
    positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    if len(positional) == len(call.args) and position < len(positional):
        return positional[position]
    return next((kw.value for kw in call.keywords if kw.arg in names), None)


def passes_keyword(call: ast.Call, name: str) -> bool:
    """`name=` is passed (and not as `name=None`), or may be, through `**kwargs`."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return True
        if keyword.arg == name:
            return not (isinstance(keyword.value, ast.Constant) and keyword.value.value is None)
    return False


def is_none(expr: ast.expr) -> bool:
    """The literal `None`."""
    return isinstance(expr, ast.Constant) and expr.value is None


def is_text(expr: ast.expr) -> bool:
    """A string literal, f-string, or text-making call: `+`/`%` on it build text."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.BinOp):
        return is_text(expr.left)
    return isinstance(expr, ast.Call) and (
        (isinstance(expr.func, ast.Name) and expr.func.id in ("str", "repr", "format"))
        or (isinstance(expr.func, ast.Attribute) and expr.func.attr == "format")
    )


def runs_at_least_once(iterable: ast.expr) -> bool:
    """`range(3)`, `range(1, 4)`: a loop over it runs its body at least once."""
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and 1 <= len(iterable.args) <= 2
        and not iterable.keywords
        and all(isinstance(a, ast.Constant) and type(a.value) is int for a in iterable.args)
    ):
        return False
    bounds = [a.value for a in iterable.args]
    return (bounds[0] > 0) if len(bounds) == 1 else bounds[0] < bounds[1]


def rebound_names(node: ast.AST) -> frozenset[str]:
    """Names that code inside `node` (nested functions included) binds, deletes or declares
    `global`/`nonlocal`: a parameter among them may not hold what the call gave."""
    found: set[str] = set()
    for child in walk_nodes(node):
        if type(child) is ast.Name and type(child.ctx) is not ast.Load:
            found.add(child.id)
        elif type(child) is ast.Global or type(child) is ast.Nonlocal:
            found.update(child.names)
        elif type(child) is ast.alias:
            found.add((child.asname or child.name).split(".")[0])
        elif child is not node and isinstance(child, NAMED_BINDINGS) and child.name:
            found.add(child.name)  # `def p`, `class p`, `except E as p`, `case p` / `[*p]`
    return frozenset(found)


# Statements and patterns that bind the name they carry (`def p`, `except E as p`, `case p`).
NAMED_BINDINGS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.ExceptHandler,
    ast.MatchAs,
    ast.MatchStar,
)


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None
