"""The shapes a module's calls give the parameters of one of its functions: where every use of
a top-level function is a call (itself, or through a transformation that keeps the shapes of
its arguments: `jax.jit(update)(p, x)`, `jax.grad(loss)(p, x)`) and every call passes an
array of one known shape for a parameter (a module-level name of known shape, a constructor
with literal sizes, a parameter of a calling function known the same way), the parameter has
that shape in the function's body (a script's `loss(params, obs)`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.names import scope_bound_names
from jax_lsp.analysis.nodes import (
    CHILD_GETTERS,
    all_params,
    child_nodes,
    positional_params,
    walk_nodes,
)
from jax_lsp.analysis.shapes import ArrayShape, KnownValue, ShapeTracker

# Transformations whose function, called at once, sees its arguments with their own shapes.
_SHAPE_KEEPING = frozenset(
    {"jax.jit", "jax.grad", "jax.value_and_grad", "jax.checkpoint", "jax.remat"}
)

# A use of a function: (the call that gives its arguments, or None for any other use; the
# function whose body holds it, or None at module level; the first line of its unit).
_Use = tuple[ast.Call | None, ast.FunctionDef | None, int]


def unit_uses(
    tree: ast.Module, resolver: Resolver
) -> dict[str, list[tuple[ast.Call | None, ast.FunctionDef | None]]]:
    """Every use of each name in a unit's tree, as a call of it or another use (the calling
    call, or None; the function whose body holds it, or None at module level), uses inside a
    function binding the name itself included: `module_uses` leaves those out for the name
    asked (a function's bound names are gathered only where an asked name is used). One walk
    serves every name asked of the unit."""
    found: dict[str, list[tuple[ast.Call | None, ast.FunctionDef | None]]] = {}
    # Names a call is found to use as it is walked (called, or given to `jax.grad`), by node.
    calling: dict[ast.Name, ast.Call] = {}
    getters = CHILD_GETTERS
    # Scope by scope: the nodes under a function (its decorators and defaults too) are walked
    # with it as theirs, after the nodes around it.
    scopes: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while scopes:
        root, function = scopes.pop()
        nodes: list = [root]
        for node in nodes:  # the list grows while it is read
            node_type = type(node)
            if node_type is ast.Name:
                uses = found.get(node.id)
                if uses is None:
                    uses = found[node.id] = []
                uses.append((calling.get(node) if calling else None, function))
                continue
            if node_type is ast.Call:
                func = node.func
                if type(func) is ast.Name:
                    calling[func] = node
                elif (
                    type(func) is ast.Call
                    and len(func.args) == 1
                    and type(func.args[0]) is ast.Name
                    and not func.keywords
                    and resolver.qualname(func.func) in _SHAPE_KEEPING
                ):
                    calling[func.args[0]] = node  # `jax.grad(loss)(params, obs)`
            elif node_type in _FUNCTIONS and node is not root:
                scopes.append((node, node))
                continue
            getter = getters[node_type]
            if getter is None:
                continue
            try:
                nodes += getter(node)
            except AttributeError:  # a node built by hand without all its fields
                nodes += child_nodes(node)
    return found


def module_uses(
    name: str, found: list[tuple[ast.Call | None, ast.FunctionDef | None]]
) -> list[tuple[ast.Call | None, ast.FunctionDef | None]]:
    """The uses of `name` a unit's `unit_uses` found that are the module's: not those in a
    function binding the name itself, which uses its own."""
    return [
        (call, function)
        for call, function in found
        if function is None or name not in scope_bound_names(function)
    ]


_FUNCTIONS = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))


def param_shapes(
    function: ast.FunctionDef,
    functions: Mapping[str, ast.AST],
    uses: Callable[[str], list[_Use]],
    module_shapes: Callable[[int], Mapping[str, KnownValue]],
    resolver: Resolver,
    seen: frozenset[str] = frozenset(),
) -> dict[str, ArrayShape]:
    """The parameters of the top-level `function` every use of which gives an array of one
    known shape (see the module docstring). `functions`: the module's top-level functions by
    name; `uses`: the uses of a name (`unit_uses`, with each unit's first line);
    `module_shapes`: the module-level shapes the top-level code of the unit starting at a
    line sees."""
    name = function.name
    if name in seen or function.decorator_list or functions.get(name) is not function:
        return {}
    params = set(all_params(function))
    if not params:
        return {}  # nothing to give a shape: the uses are not looked for
    found = uses(name)
    if not found or any(call is None for call, _, _ in found):
        return {}
    positional = positional_params(function)
    agreed: dict[str, ArrayShape] | None = None
    for call, caller, start in found:
        given = _given(call, positional, params)
        if given is None:
            return {}
        shapes: dict[str, ArrayShape] = {}
        for param, argument in given.items():
            shape = _argument_shape(
                argument, caller, start, functions, uses, module_shapes, resolver, seen | {name}
            )
            if shape is not None:
                shapes[param] = shape
        if agreed is None:
            agreed = shapes
        else:
            agreed = {p: s for p, s in agreed.items() if shapes.get(p) == s}
        if not agreed:
            return {}
    return agreed or {}


def _given(call: ast.Call, positional: list[str], params: set[str]) -> dict[str, ast.expr] | None:
    """The call's arguments by parameter (None: a `*args` or `**kwargs` hides which)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    if len(call.args) > len(positional):
        return None
    given = dict(zip(positional, call.args, strict=False))
    given.update((k.arg, k.value) for k in call.keywords if k.arg in params)
    return given


def _argument_shape(
    argument: ast.expr,
    caller: ast.AST | None,
    start: int,
    functions: Mapping[str, ast.AST],
    uses: Callable[[str], list[_Use]],
    module_shapes: Callable[[int], Mapping[str, KnownValue]],
    resolver: Resolver,
    seen: frozenset[str],
) -> ArrayShape | None:
    if isinstance(argument, ast.Call):
        known = ShapeTracker(resolver, frozenset()).shape_of(argument)
        return known if known is not None and not known.keys else None
    if not isinstance(argument, ast.Name):
        return None
    if caller is None:
        known = module_shapes(start).get(argument.id)
        return known if isinstance(known, ArrayShape) and not known.keys else None
    if not isinstance(caller, ast.FunctionDef) or functions.get(caller.name) is not caller:
        return None  # a method, a nested function, a lambda: not followed
    if argument.id not in all_params(caller) or _rebinds(caller, argument.id):
        return None
    shapes = param_shapes(caller, functions, uses, module_shapes, resolver, seen)
    return shapes.get(argument.id)


def _rebinds(function: ast.FunctionDef, name: str) -> bool:
    """Does the function's body bind `name` again (beyond it being a parameter)?"""
    return any(
        isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
        for statement in function.body
        for node in walk_nodes(statement)
    ) or name in (scope_bound_names(function) - set(all_params(function)))
