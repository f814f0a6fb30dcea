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

from jax_lsp.analysis.nodes import all_params, child_nodes, scope_nodes
from jax_lsp.compat import TRY_STATEMENTS

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


def _guarded_name(test: ast.expr) -> str | None:
    """`G` for a test true only while `G` is unset: `G is None`, `not G`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand.id if isinstance(test.operand, ast.Name) else None
    return _compared_to_none(test, ast.Is)


def _compared_to_none(test: ast.expr, operator: type[ast.cmpop]) -> str | None:
    """`G` for `G is None` (operator `ast.Is`) or `G is not None` (`ast.IsNot`)."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], operator)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return test.left.id
    return None


def _leaves_once_set(statement: ast.stmt) -> str | None:
    """`G` for `if G: return` / `if G is not None: return`: what follows runs only while `G`
    is unset."""
    if not (
        isinstance(statement, ast.If)
        and not statement.orelse
        and statement.body
        and isinstance(statement.body[-1], ast.Return | ast.Raise)
    ):
        return None
    test = statement.test
    if isinstance(test, ast.Name):
        return test.id
    return _compared_to_none(test, ast.IsNot)


def once_initialized(function: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str]) -> set[str]:
    """The `global` names among `names` the function sets only once, in a lazy
    initialisation: every store of them runs under a guard on a name `G` the guarded code
    sets itself (`if _model is None: _model = build()`; `if _ready: return` before
    `_scale = 2.0; _ready = True`). Once set, the guard keeps them from changing again."""
    stores: list[tuple[str, frozenset[str]]] = []  # (name, guards active at the store)

    def block(statements: list[ast.stmt], guards: frozenset[str]) -> None:
        for statement in statements:
            visit(statement, guards)
            left = _leaves_once_set(statement)
            if left is not None:
                guards = guards | {left}

    def visit(node: ast.AST, guards: frozenset[str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            return
        if isinstance(node, ast.If):
            visit(node.test, guards)
            guard = _guarded_name(node.test)
            block(node.body, guards | {guard} if guard else guards)
            block(node.orelse, guards)
            return
        if isinstance(node, ast.Name) and type(node.ctx) is not ast.Load and node.id in names:
            stores.append((node.id, guards))
        else:
            mutated = mutated_name(node)
            if mutated in names:
                stores.append((mutated, guards))
        for child in child_nodes(node):  # markers (Load, Add, ...) store nothing
            if isinstance(child, ast.stmt):
                block([child], guards)
            else:
                visit(child, guards)

    block(function.body, frozenset())
    closing = {name for name, guards in stores if name in guards}  # `G` set under its guard
    return {
        name
        for name in names
        if any(stored == name for stored, _ in stores)
        and all(guards & closing for stored, guards in stores if stored == name)
    }


# Statements whose bodies run at most once each time the statement runs.
_ONCE_BLOCKS = (ast.If, ast.With, ast.AsyncWith, *TRY_STATEMENTS)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _loaded_names(nodes: list[ast.AST]) -> set[str]:
    """Names read in `nodes`, the bodies of functions and classes they define left out (those
    do not run there); lambdas and comprehensions count (called or run at once, maybe)."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                found.add(node.id)
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                defaults = [*node.args.defaults, *node.args.kw_defaults]
                stack.extend(default for default in defaults if default is not None)
            continue
        stack.extend(child_nodes(node))
    return found


def _stores(nodes: list[ast.AST], names: set[str]) -> set[str]:
    """The names among `names` that `nodes` bind, delete or mutate (nested functions, classes
    and lambdas left out)."""
    found: set[str] = set()
    for node in scope_nodes(nodes):  # type: ignore[arg-type]
        if type(node) is ast.Name:
            if type(node.ctx) is not ast.Load and node.id in names:
                found.add(node.id)
        elif (mutated := mutated_name(node)) in names:
            found.add(mutated)  # type: ignore[arg-type]
    return found


def set_up_writes(
    function: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str]
) -> dict[str, frozenset[str]]:
    """The names among `names` that the function writes only as set-up, each with the names
    read before its writes: every write of it is outside any loop of the body, so that one
    run of the function writes it at most once in each place (`LR = args.lr` in `main`).
    Whether a trace can come between the writes and a later call is the module's to tell:
    nothing of the module read before them, and the function run once (`ModuleState`)."""
    read: set[str] = set()
    before: dict[str, frozenset[str]] = {}
    looped: set[str] = set()

    def block(statements: list[ast.stmt]) -> None:
        for statement in statements:
            if isinstance(statement, _LOOPS) or not isinstance(statement, _ONCE_BLOCKS):
                heads: list[ast.AST] = [statement]
            elif isinstance(statement, ast.If):
                heads = [statement.test]
            elif isinstance(statement, ast.With | ast.AsyncWith):
                heads = list(statement.items)
            else:
                heads = []
            read.update(_loaded_names(heads))
            stored = _stores(heads, names)
            if isinstance(statement, _LOOPS):
                looped.update(stored)
            for name in stored:
                before[name] = before.get(name, frozenset()) | frozenset(read)
            if isinstance(statement, ast.If):
                block(statement.body)
                block(statement.orelse)
            elif isinstance(statement, ast.With | ast.AsyncWith):
                block(statement.body)
            elif isinstance(statement, TRY_STATEMENTS):
                block(statement.body)
                for handler in statement.handlers:
                    read.update(_loaded_names([handler.type] if handler.type else []))
                    block(handler.body)
                block(statement.orelse)
                block(statement.finalbody)

    block(function.body)
    return {name: found for name, found in before.items() if name not in looped}


class _Scope:
    """A function body being walked (`recording`), or a region that owns nothing: the module,
    a class body, a lambda, a function's decorators and signature."""

    __slots__ = ("declared", "free", "function", "local", "nested", "recording")

    def __init__(
        self,
        recording: bool,
        params: tuple[str, ...] = (),
        function: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
    ) -> None:
        self.recording = recording
        self.local: set[str] = set(params)
        self.declared: set[str] = set()
        self.free: set[str] = set()  # candidates, and the settled writes of nested scopes
        self.nested: set[str] = set()  # the settled writes of nested scopes alone
        self.function = function

    def writes(self) -> set[str]:
        if not self.recording:
            return self.free
        found = {name for name in self.free if name in self.declared or name not in self.local}
        declared = found & self.declared
        if declared and self.function is not None:
            # A lazy initialisation sets its globals once: not a change a trace can miss.
            found -= once_initialized(self.function, declared)
        return found


class FreeWrites:
    def __init__(self) -> None:
        self._scopes = [_Scope(False)]
        # (name, top-level function, names read before its writes): written only as set-up
        # (`set_up_writes`), left out of `result`.
        self._set_up: list[tuple[str, str, frozenset[str]]] = []

    @property
    def result(self) -> frozenset[str]:
        """The unit's free writes, once the walk is over."""
        return frozenset(self._scopes[0].free)

    @property
    def set_up(self) -> tuple[tuple[str, str, frozenset[str]], ...]:
        """The names the unit's top-level functions write only as set-up (`set_up_writes`):
        (name, function, names read before its writes), once the walk is over."""
        return tuple(self._set_up)

    def enter_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._scopes.append(_Scope(True, tuple(all_params(node)), node))

    def enter_opaque(self) -> None:
        self._scopes.append(_Scope(False))

    def leave(self, name: str | None = None) -> None:
        """Leave the innermost scope; `name` is the def or class it binds in its parent."""
        done = self._scopes.pop()
        parent = self._scopes[-1]
        writes = done.writes()
        own = writes - done.nested
        if own and len(self._scopes) == 1 and done.function is not None and name is not None:
            # A top-level function: its set-up writes are the module's to judge.
            for written, read in set_up_writes(done.function, own).items():
                self._set_up.append((written, name, read))
                writes.discard(written)
        parent.free |= writes
        parent.nested |= writes
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
