"""JAX301's fix for a read past the keys `jax.random.split` made (`keys =
jax.random.split(key)`, then `keys[2]`): split into as many keys as are read
(`jax.random.split(key, 3)`).

Only where every read of the keys can be counted: the split's result is bound once, to a
name of the function (no parameter, no other binding, no `global`/`nonlocal`, named by no
nested function or class), and each read of it is a non-negative literal index (`keys[2]`) or
an unpack into a tuple of names (`a, b = keys`, which must then unpack exactly as many). A
negative index (`keys[-1]`, the last key) would read another key once there are more; any
other read (`keys[i]`, `keys[1:]`, `len(keys)`, a call given `keys`) may depend on the count.

Unsafe: the key read past the end was the last key clamped, and becomes a key of its own, so
what is drawn from it changes (as meant). Under JAX's default `jax_threefry_partitionable`
(and with the `rbg` implementations) the first keys of `split(key, 3)` are the keys
`split(key)` gave, so the other draws are unchanged; with it off, every key changes.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.nodes import all_params, child_nodes
from jax_lsp.codeactions.site import FixSite, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span

_SPLIT = "jax.random.split"
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def split_count_fix(read: ast.Subscript, function: ast.AST, ctx: FixSite) -> Fix | None:
    """The split that made the keys `read` indexes past, given as many keys as `function`
    (the scope `read` is in) reads of them; None when a read cannot be counted (see the
    module's docstring)."""
    keys = read.value
    if not isinstance(keys, ast.Name) or not isinstance(
        function, ast.FunctionDef | ast.AsyncFunctionDef
    ):
        return None
    if keys.id in all_params(function):
        return None
    uses = _uses(function, keys.id)
    if uses is None:
        return None
    stores = [(node, parent) for node, parent in uses if not isinstance(node.ctx, ast.Load)]
    loads = [parent for node, parent in uses if isinstance(node.ctx, ast.Load)]
    if len(stores) != 1:
        return None
    ((target, statement),) = stores
    call = statement.value if isinstance(statement, ast.Assign) else None
    if (
        not isinstance(statement, ast.Assign)
        or statement.targets != [target]
        or not isinstance(call, ast.Call)
        or ctx.qualname(call.func) != _SPLIT
    ):
        return None
    count = _count(call)
    reads = [_keys_read(parent, keys.id) for parent in loads]
    counted = [read for read in reads if read is not None]
    if count is None or not counted or len(counted) != len(reads):
        return None
    needed = max(number for number, _ in counted)
    if needed <= count or any(exact and number != needed for number, exact in counted):
        return None
    edit = _count_edit(call, needed, ctx)
    key = ctx.segment(call.args[0])
    return Fix(
        f"Split `{key}` into {needed} keys, as many as are read (the key past the end "
        "changes: it was the last key)",
        (edit,),
        Applicability.UNSAFE,
    )


def _uses(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> list[tuple[ast.Name, ast.AST]] | None:
    """Each `Name` node of `name` in the function's own scope with its parent; None when a
    nested function or class names it too, or a statement declares it global or nonlocal."""
    found: list[tuple[ast.Name, ast.AST]] = []
    stack: list[tuple[ast.AST, ast.AST]] = [(statement, function) for statement in function.body]
    while stack:
        node, parent = stack.pop()
        if isinstance(node, _NESTED):
            if any(_names(inner, name) for inner in ast.walk(node)):
                return None
            continue
        if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return None
        if isinstance(node, ast.Name) and node.id == name:
            found.append((node, parent))
        stack.extend((child, node) for child in child_nodes(node))
    return found


def _names(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.arg):
        return node.arg == name
    if isinstance(node, ast.Global | ast.Nonlocal):
        return name in node.names
    return False


def _count(call: ast.Call) -> int | None:
    """How many keys `split(key)` / `split(key, 3)` / `split(key, num=3)` makes; None for a
    count not written as a number (a name, a shape)."""
    if len(call.args) not in (1, 2) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(keyword.arg != "num" for keyword in call.keywords):
        return None
    num = call.args[1] if len(call.args) == 2 else None
    num = next((keyword.value for keyword in call.keywords if keyword.arg == "num"), num)
    if num is None:
        return 2
    return _literal_count(num)


def _literal_count(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return node.value
    return None


def _keys_read(parent: ast.AST, name: str) -> tuple[int, bool] | None:
    """How many keys a read of `name` needs, and whether it needs exactly that many (an
    unpack): `keys[2]` needs 3, `a, b = keys` exactly 2; None for another read."""
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
        index = _literal_count(parent.slice)
        if isinstance(parent.value, ast.Name) and parent.value.id == name and index is not None:
            return index + 1, False
        return None
    if (
        isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Tuple | ast.List)
        and isinstance(parent.value, ast.Name)
        and parent.value.id == name
    ):
        elements = parent.targets[0].elts
        if any(isinstance(element, ast.Starred) for element in elements):
            return None
        return len(elements), True
    return None


def _count_edit(call: ast.Call, needed: int, ctx: FixSite) -> Edit:
    """The split's count written as `needed`: the literal replaced, or added after the key."""
    num = next((keyword.value for keyword in call.keywords if keyword.arg == "num"), None)
    if num is None and len(call.args) == 2:
        num = call.args[1]
    if num is not None:
        return node_edit(ctx, num, str(needed))
    end = ctx.span(call.args[0]).end
    return Edit(Span(end, end), f", {needed}")
