"""Where a PyTree rewrite puts each attribute, from what the values assigned to it are.

Arrays, containers of arrays and registered PyTrees are children: JAX traces them. Python
settings (ints, strings, bools, shapes, dtypes), containers of those, functions and objects of
plain classes are aux data: hashed, compared, and kept as Python values inside the trace (a
function or a plain object among the children is the "Error interpreting argument ... as an
abstract array" TypeError; a list of ints among them becomes tracers, which no shape takes). A
Python float fits either. The values are read through the analysis' kinds: at the assignment,
through a local name's one binding, and for `self.a = a` in `__init__` at the calls that
construct the class (or the default). What none of these shows is not known (None): the fix
guesses then, and says so by being unsafe.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.codeactions.source import ModuleSource

# Decorators that make a class a PyTree.
REGISTERED_DECORATORS = frozenset(
    {
        "jax.tree_util.register_pytree_node_class",
        "jax.tree_util.register_pytree_with_keys_class",
        "jax.tree_util.register_dataclass",
        "jax.tree_util.register_static",
        "flax.struct.dataclass",
        "chex.dataclass",
    }
)
# Calls whose result is a function (a transformed or partially applied one).
_FUNCTION_FACTORIES = frozenset(
    {"functools.partial", "jax.jit", "jax.vmap", "jax.pmap", "jax.grad", "jax.value_and_grad"}
    | {"jax.checkpoint", "jax.remat", "jax.jacfwd", "jax.jacrev", "jax.hessian"}
)
_SETTING_CALLS = frozenset({"builtins.int", "builtins.str", "builtins.bool", "builtins.len"})
_CONTAINER_CALLS = frozenset({"builtins.dict", "builtins.list"})
_STATIC_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})
_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_MAX_DEPTH = 4  # how many names a value is followed through


class Placement(enum.Enum):
    CHILD = "child"  # traced: arrays, containers of arrays, registered PyTrees
    AUX = "aux"  # a Python value: settings, functions, classes
    NEUTRAL = "neutral"  # None: fits either
    SCALAR = "scalar"  # a Python float: traced, or aux where Python control flow reads it
    SETTINGS = "settings"  # a list, dict or set of Python settings: aux, and unhashable


@dataclass(frozen=True)
class HeldObject:
    """An object of a class of the module that is not a PyTree (aux data)."""

    class_name: str
    holds_arrays: bool


Placed = Placement | HeldObject | None  # None: not known


def merge(placed: Iterable[Placed]) -> Placed:
    """One placement for every value an attribute is given."""
    found = [p for p in placed if p is not Placement.NEUTRAL]
    if not found:
        return Placement.NEUTRAL
    if Placement.CHILD in found:
        return Placement.CHILD
    if None in found:
        # A number here, a value not known there: only a leaf takes both a float and an array.
        return (
            Placement.CHILD
            if Placement.SCALAR in found and set(found) <= {None, Placement.SCALAR}
            else None
        )
    if all(p is Placement.SCALAR for p in found):
        return Placement.SCALAR
    if Placement.SETTINGS in found:
        return Placement.SETTINGS
    held = [p for p in found if isinstance(p, HeldObject)]
    return held[0] if held else Placement.AUX


def _container(parts: list[Placed], hashable: bool) -> Placed:
    """A container is a child when it holds arrays, aux data when it holds Python settings
    only (a list of sizes), and not known when empty or holding what is not known."""
    if not parts:
        return None  # filled later, with what is not seen here
    placed = merge(parts)
    if placed is Placement.SCALAR:
        return Placement.CHILD  # floats: leaves JAX traces
    if placed is Placement.AUX and not hashable:
        return Placement.SETTINGS
    return placed


class ValuePlacement:
    """Placements of the attributes of the module's classes."""

    def __init__(self, module: ModuleSource) -> None:
        self.module = module
        self.model = ModuleModel(module.document)
        self.resolver = self.model.resolver
        trees = [unit.tree for unit in module.document.units if unit.tree is not None]
        self.statements = [statement for tree in trees for statement in tree.body]
        self.classes = {s.name: s for s in self.statements if isinstance(s, ast.ClassDef)}
        self.functions = {s.name for s in self.statements if isinstance(s, _FunctionNode)}
        self._kinds: dict[ast.AST, Kind] | None = None

    # -- kinds ------------------------------------------------------------------------------
    @property
    def kinds(self) -> Mapping[ast.AST, Kind]:
        """The kinds of every scope of the module (for values at construction sites)."""
        if self._kinds is None:
            self._kinds = {}
            for unit in self.module.document.units:
                if unit.tree is not None:
                    self._kinds.update(self.model.module_kinds(unit.source))
            for node in self.model.records:
                self._kinds.update(self.model.scope_kinds(node).kinds)
        return self._kinds

    def _method_kinds(self, method: _FunctionNode) -> Mapping[ast.AST, Kind]:
        return self.model.scope_kinds(method).kinds if method in self.model.records else {}

    # -- classes ----------------------------------------------------------------------------
    def is_registered(self, node: ast.ClassDef) -> bool:
        decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
        return (
            any(self.resolver.qualname(d) in REGISTERED_DECORATORS for d in decorators)
            or node.name in self.model.classes_passed_to_calls
        )

    def of_class(self, node: ast.ClassDef) -> dict[str, Placed]:
        """Attribute -> placement, over every `self.a = value` of the class's methods."""
        found: dict[str, list[Placed]] = {}
        for method, attribute, value in _self_assignments(node):
            place = self._place(value, self._method_kinds(method), method, node, 0)
            found.setdefault(attribute, []).append(place)
        return {name: merge(places) for name, places in found.items()}

    def array_attributes(self, node: ast.ClassDef) -> set[str]:
        """Attributes some method assigns an array (a JAX or NumPy value): unhashable."""
        found = set()
        for method, attribute, value in _self_assignments(node):
            kind = self._method_kinds(method).get(value, Kind.UNKNOWN)
            if kind.is_jax or kind is Kind.NUMPY:
                found.add(attribute)
        return found

    def _holds_arrays(self, node: ast.ClassDef) -> bool:
        for method, _, value in _self_assignments(node):
            kinds = self._method_kinds(method)
            if any(kinds.get(part, Kind.UNKNOWN).is_jax for part in ast.walk(value)):
                return True
        return False

    # -- values -----------------------------------------------------------------------------
    def _place(
        self,
        value: ast.expr,
        kinds: Mapping[ast.AST, Kind],
        scope: _FunctionNode | None,
        owner: ast.ClassDef | None,
        depth: int,
    ) -> Placed:
        kind = kinds.get(value, Kind.UNKNOWN)
        if isinstance(value, ast.Constant):
            if value.value is None:
                return Placement.NEUTRAL
            return Placement.SCALAR if isinstance(value.value, float | complex) else Placement.AUX
        if kind.is_jax or kind is Kind.NUMPY:
            return Placement.CHILD
        if isinstance(value, ast.Lambda):
            return Placement.AUX
        parts = _container_parts(value)
        if parts is not None:
            placed = [self._place(p, kinds, scope, owner, depth) for p in parts]
            return _container(placed, isinstance(value, ast.Tuple))
        if isinstance(value, ast.BinOp):
            parts = [value.left, value.right]
            return merge(self._place(p, kinds, scope, owner, depth) for p in parts)
        if isinstance(value, ast.Subscript) and _is_static_attribute(value.value):
            return Placement.AUX  # x.shape[0]
        if _is_static_attribute(value):
            return Placement.AUX
        if isinstance(value, ast.Call):
            placed = self._place_call(value, kinds, scope, owner, depth)
            if placed is not None:
                return placed
        elif isinstance(value, ast.Name):
            placed = self._place_name(value, scope, owner, depth)
            if placed is not None:
                return placed
        elif isinstance(value, ast.Attribute) and self.resolver.qualname(value):
            return Placement.AUX  # a member of a module: a function, a dtype, a constant
        return Placement.AUX if kind is Kind.STATIC else None

    def _place_call(
        self,
        call: ast.Call,
        kinds: Mapping[ast.AST, Kind],
        scope: _FunctionNode | None,
        owner: ast.ClassDef | None,
        depth: int,
    ) -> Placed:
        func = call.func
        if isinstance(func, ast.Name) and func.id in self.classes:
            cls = self.classes[func.id]
            if self.is_registered(cls):
                return Placement.CHILD
            return HeldObject(cls.name, self._holds_arrays(cls))
        qualname = self.resolver.qualname(func) or ""
        if qualname in _FUNCTION_FACTORIES or qualname in _SETTING_CALLS:
            return Placement.AUX
        if qualname in _CONTAINER_CALLS and not any(k.arg is None for k in call.keywords):
            if not call.args:  # dict(w=..., b=...), or an empty container
                parts = [k.value for k in call.keywords]
                placed = [self._place(p, kinds, scope, owner, depth) for p in parts]
                return _container(placed, hashable=False)
            if len(call.args) == 1 and not call.keywords:  # list(ws): what ws holds
                placed = self._place(call.args[0], kinds, scope, owner, depth)
                return Placement.SETTINGS if placed is Placement.AUX else placed
        return None

    def _place_name(
        self,
        name: ast.Name,
        scope: _FunctionNode | None,
        owner: ast.ClassDef | None,
        depth: int,
    ) -> Placed:
        if depth >= _MAX_DEPTH:
            return None
        if scope is None:  # module level: a name bound once
            bound = self.model.stable_globals.get(name.id)
            if bound is not None:
                return self._place(bound, self.kinds, None, None, depth + 1)
            if name.id in self.functions or name.id in self.classes:
                return Placement.AUX
            return None
        if name.id in _parameters(scope):
            if scope.args.vararg is not None and name.id == scope.args.vararg.arg:
                return None
            if scope.args.kwarg is not None and name.id == scope.args.kwarg.arg:
                if owner is not None and scope.name == "__init__":
                    return _container(self._extra_keywords(owner, scope, depth), hashable=False)
                return None
            if owner is not None and scope.name == "__init__":
                return merge(self._arguments(owner, scope, name.id, depth))
            return None
        bindings = [
            node.value
            for node in ast.walk(scope)
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name.id
        ]
        if len(bindings) == 1:
            kinds = self._method_kinds(scope)
            return self._place(bindings[0], kinds, scope, owner, depth + 1)
        if name.id in self.functions or name.id in self.classes:
            return Placement.AUX
        return None

    def _arguments(
        self, owner: ast.ClassDef, init: _FunctionNode, parameter: str, depth: int
    ) -> list[Placed]:
        """Placements of what the module's calls of the class pass for `parameter`."""
        positional = [a.arg for a in [*init.args.posonlyargs, *init.args.args][1:]]
        default = _default(init, parameter)
        found: list[Placed] = []
        for statement, call in self._constructions(owner):
            passed = _passed(call, positional, parameter)
            if passed is None:
                return [None]  # *args / **kwargs: unknown
            if passed is _MISSING:
                if default is None:
                    return [None]
                found.append(self._place(default, {}, None, None, depth + 1))
            else:
                scope = _enclosing_function(statement, call)
                found.append(self._place(passed, self.kinds, scope, None, depth + 1))
        if not found:
            return [None if default is None else self._place(default, {}, None, None, depth + 1)]
        return found

    def _extra_keywords(self, owner: ast.ClassDef, init: _FunctionNode, depth: int) -> list[Placed]:
        """Placements of the keywords the module's calls of the class pass into `**kwargs`."""
        named = _parameters(init)
        found: list[Placed] = []
        for statement, call in self._constructions(owner):
            scope = _enclosing_function(statement, call)
            for keyword in call.keywords:
                if keyword.arg is None:
                    return [None]  # `**more`: not known
                if keyword.arg not in named:
                    found.append(self._place(keyword.value, self.kinds, scope, None, depth + 1))
        return found

    def _constructions(self, owner: ast.ClassDef) -> Iterator[tuple[ast.stmt, ast.Call]]:
        """The module's calls of the class by its name (`Owner(...)`), with their statement."""
        for statement in self.statements:
            for call in ast.walk(statement):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == owner.name
                ):
                    yield statement, call


_MISSING = ast.Constant(value=None)  # a parameter a call does not pass


def _container_parts(value: ast.expr) -> list[ast.expr] | None:
    """The values a literal or comprehension container holds (None: not a container)."""
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return list(value.elts)
    if isinstance(value, ast.Dict):
        return None if None in value.keys else list(value.values)  # `**more`: not known
    if isinstance(value, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        return [value.elt]
    if isinstance(value, ast.DictComp):
        return [value.value]
    return None


def _passed(call: ast.Call, positional: list[str], parameter: str) -> ast.expr | None:
    """The argument `call` passes for `parameter`, _MISSING, or None when unknowable."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    if parameter in positional and positional.index(parameter) < len(call.args):
        return call.args[positional.index(parameter)]
    return _MISSING


def _default(function: _FunctionNode, parameter: str) -> ast.expr | None:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(
        positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
    ):
        if arg.arg == parameter:
            return default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if arg.arg == parameter:
            return default
    return None


def _parameters(function: _FunctionNode) -> set[str]:
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return names | {a.arg for a in (args.vararg, args.kwarg) if a is not None}


def _enclosing_function(statement: ast.stmt, target: ast.AST) -> _FunctionNode | None:
    """The innermost function of `statement` that holds `target` (None: module level)."""
    stack: list[tuple[ast.AST, _FunctionNode | None]] = [(statement, None)]
    while stack:
        node, function = stack.pop()
        if node is target:
            return function
        inner = node if isinstance(node, _FunctionNode) else function
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return None


def _is_static_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in _STATIC_ATTRIBUTES


def _self_assignments(node: ast.ClassDef):
    """(method, attribute, value) for each `self.a = value` / `self.a: T = value`."""
    for method in node.body:
        if not isinstance(method, _FunctionNode):
            continue
        positional = [*method.args.posonlyargs, *method.args.args]
        if not positional:
            continue
        self_name = positional[0].arg
        for statement in ast.walk(method):
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets, value = [statement.target], statement.value
            else:
                continue
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == self_name
                ):
                    yield method, target.attr, value
