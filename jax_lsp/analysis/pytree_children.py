"""Children of a registered PyTree class that hold Python values a trace needs concrete.

A class registered with `register_pytree_node_class` (its `tree_flatten`),
`register_pytree_node(Cls, flatten, unflatten)` or `register_dataclass(..., data_fields=...)`
says which attributes are children: under `jax.jit` (`vmap`, `grad`) each child becomes a
tracer. An attribute that holds a Python int or bool and that a method of the class uses where
a concrete value is needed (`if self.rank > 0:`, `range(self.n)`, a slice bound, a shape)
then fails; a str, a callable or an object of a plain class is no JAX type at all, and the
transformation rejects it when it flattens the instance. What an attribute holds is known
from `__init__` (a parameter's annotation or default, a literal, a function) or from the
class's field annotations. A float child, an int used in arithmetic only, and a None child
(an empty subtree: it stays None) are fine and not listed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

_TREE_UTIL = "jax.tree_util"
_CLASS_DECORATORS = frozenset(
    {f"{_TREE_UTIL}.register_pytree_node_class", f"{_TREE_UTIL}.register_pytree_with_keys_class"}
)
_NODE_REGISTRATIONS = frozenset({f"{_TREE_UTIL}.register_pytree_node"})
_DATACLASS_REGISTRATION = f"{_TREE_UTIL}.register_dataclass"
_CALLABLE_ANNOTATIONS = frozenset({"typing.Callable", "collections.abc.Callable"})
_OPTIONAL = frozenset({"typing.Optional"})
# Functions whose arguments must be concrete: a tracer there raises.
_CONCRETE_CALLS = frozenset({"builtins.range", "builtins.int", "builtins.bool", "operator.index"})
_SHAPE_CALLS = frozenset(
    {f"jax.numpy.{name}" for name in ("zeros", "ones", "empty", "full", "eye", "arange", "tri")}
)
# Methods that JAX or Python calls outside a trace: their uses do not matter.
_UNTRACED_METHODS = frozenset(
    {"__init__", "tree_flatten", "tree_unflatten", "__repr__", "__str__", "__hash__", "__eq__"}
)

Qualname = Callable[[ast.AST], "str | None"]


@dataclass(frozen=True)
class StaticChild:
    """One child attribute that should be aux data: where it is listed, what it holds, and
    the use that needs it concrete (None when the transformation rejects the leaf itself)."""

    attribute: str
    class_name: str
    holds: str
    needs_concrete: str | None
    listed: ast.expr  # the child expression, or the string in `data_fields`
    # How the registration lists the children, for the fix.
    form: str  # "flatten" (a flatten function returning a tuple) or "data_fields"
    flatten: ast.FunctionDef | ast.Lambda | None = None
    unflatten: ast.FunctionDef | ast.Lambda | None = None
    registration: ast.Call | None = None  # the `register_dataclass` call with `data_fields`


def static_children(
    classes: dict[str, ast.ClassDef],
    module_calls: Iterable[tuple[str, ast.Call]],
    function: Callable[[str], ast.AST | None],
    qualname: Qualname,
) -> dict[ast.AST, tuple[StaticChild, ...]]:
    """The listed children to move to the aux data, by the node a rule visits there: the
    class (decorator forms: its `tree_flatten`, its decorator's `data_fields`), or the
    module-level registration call. `function`: the module function of a name, if any."""
    found: dict[ast.AST, tuple[StaticChild, ...]] = {}
    registrations = [
        call for target, call in module_calls if target.startswith(f"{_TREE_UTIL}.register")
    ]
    registered = {
        call.args[0].id
        for call in registrations
        if call.args and isinstance(call.args[0], ast.Name)
    }
    plain_found: list[set[str]] = []

    def plain() -> set[str]:
        # Found when a class or a registration lists children (asked at every edit, most
        # modules register none: their classes' decorators are not read twice).
        if not plain_found:
            plain_found.append(
                {
                    name
                    for name, node in classes.items()
                    if name not in registered and _plain_class(node, qualname)
                }
            )
        return plain_found[0]

    for name, node in classes.items():
        children: list[StaticChild] = []
        for decorator in node.decorator_list:
            called = decorator.func if isinstance(decorator, ast.Call) else decorator
            target = qualname(called)
            if target in _CLASS_DECORATORS:
                flatten = _method(node, "tree_flatten")
                unflatten = _method(node, "tree_unflatten")
                if flatten is not None:
                    children += _from_flatten(node, name, flatten, unflatten, plain(), qualname)
            elif isinstance(decorator, ast.Call):
                registration = _dataclass_registration(decorator, qualname)
                if registration is not None:
                    children += _from_data_fields(node, name, registration, plain(), qualname)
        if children:
            found[node] = tuple(children)
    for call in registrations:
        if not call.args or not isinstance(call.args[0], ast.Name):
            continue
        node = classes.get(call.args[0].id)
        if node is None:
            continue
        target = qualname(call.func)
        children = []
        if target in _NODE_REGISTRATIONS and len(call.args) >= 3:
            flatten = _function(call.args[1], function)
            unflatten = _function(call.args[2], function)
            if flatten is not None:
                children = _from_flatten(node, node.name, flatten, unflatten, plain(), qualname)
        elif target == _DATACLASS_REGISTRATION:
            children = _from_data_fields(node, node.name, call, plain(), qualname)
        if children:
            found[call] = tuple(children)
    return found


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next(
        (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == name),
        None,
    )


def _function(
    node: ast.expr, function: Callable[[str], ast.AST | None]
) -> ast.FunctionDef | ast.Lambda | None:
    """The function a registration names: a module function, or a lambda written there."""
    if isinstance(node, ast.Lambda):
        return node
    if isinstance(node, ast.Name):
        found = function(node.id)
        return found if isinstance(found, ast.FunctionDef) else None
    return None


def _dataclass_registration(decorator: ast.Call, qualname: Qualname) -> ast.Call | None:
    """`@partial(register_dataclass, data_fields=...)` or `@register_dataclass(data_fields=...)`:
    the call holding `data_fields`."""
    target = qualname(decorator.func)
    if target == "functools.partial" and decorator.args:
        target = qualname(decorator.args[0])
    if target != _DATACLASS_REGISTRATION:
        return None
    return decorator


def _plain_class(node: ast.ClassDef, qualname: Qualname) -> bool:
    """A class with no base and no decorator but `dataclass`: its instances are no JAX type
    (unless a module-level call registers it, which the caller rules out)."""
    if node.bases or node.keywords:
        return False
    return all(
        qualname(d.func if isinstance(d, ast.Call) else d) == "dataclasses.dataclass"
        for d in node.decorator_list
    )


def returned_children(
    function: ast.FunctionDef | ast.Lambda,
) -> list[ast.Tuple | ast.List] | None:
    """The children literal of every `return children, aux` of a flatten function (a literal,
    or a name bound once to one), or None when one return does not say."""
    bound: dict[str, list[ast.expr]] = {}
    returns: list[ast.Return | ast.Lambda] = []
    if isinstance(function, ast.Lambda):
        returns.append(function)
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.Return):
            returns.append(node)
    found = []
    for statement in returns:
        value = statement.body if isinstance(statement, ast.Lambda) else statement.value
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            return None
        children = value.elts[0]
        if isinstance(children, ast.Name):
            values = bound.get(children.id, [])
            children = values[0] if len(values) == 1 else None
        if not isinstance(children, ast.Tuple | ast.List):
            return None
        found.append(children)
    return found or None


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, nested functions and classes left out."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))


def _from_flatten(
    cls: ast.ClassDef,
    class_name: str,
    flatten: ast.FunctionDef | ast.Lambda,
    unflatten: ast.FunctionDef | ast.Lambda | None,
    plain: set[str],
    qualname: Qualname,
) -> list[StaticChild]:
    params = flatten.args.posonlyargs + flatten.args.args
    if not params:
        return []
    instance = params[0].arg
    literals = returned_children(flatten)
    if literals is None:
        return []
    holdings = _holdings(cls, plain, qualname)
    uses = _concrete_uses(cls, qualname)
    found = []
    for literal in literals:
        for element in literal.elts:
            if not (
                isinstance(element, ast.Attribute)
                and isinstance(element.value, ast.Name)
                and element.value.id == instance
            ):
                continue
            child = _child(element.attr, class_name, element, holdings, uses)
            if child is not None:
                found.append(
                    StaticChild(**child, form="flatten", flatten=flatten, unflatten=unflatten)
                )
    return found


def _from_data_fields(
    cls: ast.ClassDef,
    class_name: str,
    registration: ast.Call,
    plain: set[str],
    qualname: Qualname,
) -> list[StaticChild]:
    fields = next((k.value for k in registration.keywords if k.arg == "data_fields"), None)
    if not isinstance(fields, ast.List | ast.Tuple):
        return []
    holdings = _holdings(cls, plain, qualname)
    uses = _concrete_uses(cls, qualname)
    found = []
    for element in fields.elts:
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            continue
        child = _child(element.value, class_name, element, holdings, uses)
        if child is not None:
            found.append(StaticChild(**child, form="data_fields", registration=registration))
    return found


def _child(
    attribute: str,
    class_name: str,
    listed: ast.expr,
    holdings: dict[str, tuple[str, bool]],
    uses: dict[str, str],
) -> dict | None:
    held = holdings.get(attribute)
    if held is None:
        return None
    holds, rejected = held
    if rejected:
        return dict(
            attribute=attribute,
            class_name=class_name,
            holds=holds,
            needs_concrete=None,
            listed=listed,
        )
    use = uses.get(attribute)
    if use is None:
        return None  # an int or bool used in arithmetic only: a tracer serves
    return dict(
        attribute=attribute, class_name=class_name, holds=holds, needs_concrete=use, listed=listed
    )


def _holdings(
    cls: ast.ClassDef, plain: set[str], qualname: Qualname
) -> dict[str, tuple[str, bool]]:
    """What each attribute is known to hold, and whether a transformation rejects it as a leaf
    (True: a str, a callable, a plain object) or traces it (False: an int or a bool). An
    attribute given two different kinds of value is left out."""
    found: dict[str, tuple[str, bool] | None] = {}

    def note(attribute: str, held: tuple[str, bool] | None) -> None:
        if held is None or found.get(attribute, held) != held:
            found[attribute] = None
        else:
            found[attribute] = held

    for statement in cls.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            note(statement.target.id, _annotated(statement.annotation, plain, qualname))
    init = _method(cls, "__init__")
    if init is not None:
        params = {
            arg.arg: arg for arg in init.args.posonlyargs + init.args.args + init.args.kwonlyargs
        }
        defaults = dict(
            zip(
                [a.arg for a in (init.args.posonlyargs + init.args.args)][
                    -len(init.args.defaults) or len(params) :
                ],
                init.args.defaults,
                strict=False,
            )
        )
        defaults.update(
            {
                arg.arg: default
                for arg, default in zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True)
                if default is not None
            }
        )
        self_name = params and (init.args.posonlyargs + init.args.args)[0].arg
        for node in _own_nodes(init):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target = node.targets[0]
            if not (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == self_name
            ):
                continue
            value = node.value
            held = None
            if isinstance(value, ast.Name) and value.id in params:
                arg = params[value.id]
                if arg.annotation is not None:
                    held = _annotated(arg.annotation, plain, qualname)
                elif value.id in defaults:
                    held = _literal(defaults[value.id], plain, qualname)
            else:
                held = _literal(value, plain, qualname)
            note(target.attr, held)
    return {attribute: held for attribute, held in found.items() if held is not None}


def _annotated(
    annotation: ast.expr, plain: set[str], qualname: Qualname
) -> tuple[str, bool] | None:
    if isinstance(annotation, ast.Subscript):
        outer = qualname(annotation.value)
        if outer in _CALLABLE_ANNOTATIONS:
            return ("a callable", True)
        if outer in _OPTIONAL:
            return _annotated(annotation.slice, plain, qualname)
        return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        # `int | None`: None is an empty subtree, the int is the child that matters.
        sides = [annotation.left, annotation.right]
        kept = [s for s in sides if not (isinstance(s, ast.Constant) and s.value is None)]
        return _annotated(kept[0], plain, qualname) if len(kept) == 1 else None
    if isinstance(annotation, ast.Name) and annotation.id in plain:
        return (f"a `{annotation.id}` object", True)
    target = qualname(annotation)
    if target in _CALLABLE_ANNOTATIONS:
        return ("a callable", True)
    return {
        "builtins.int": ("a Python int", False),
        "builtins.bool": ("a Python bool", False),
        "builtins.str": ("a str", True),
    }.get(target or "")


def _literal(value: ast.expr, plain: set[str], qualname: Qualname) -> tuple[str, bool] | None:
    if isinstance(value, ast.Constant):
        if isinstance(value.value, bool):
            return ("a Python bool", False)
        if isinstance(value.value, int):
            return ("a Python int", False)
        if isinstance(value.value, str):
            return ("a str", True)
        return None
    if isinstance(value, ast.Lambda):
        return ("a callable", True)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in plain:
        return (f"a `{value.func.id}` object", True)
    target = qualname(value) if isinstance(value, ast.Attribute) else None
    if (
        target
        and target.startswith(("jax.nn.", "jax.numpy."))
        and target.rpartition(".")[2][:1].islower()
    ):
        return ("a callable", True)
    return None


def _concrete_uses(cls: ast.ClassDef, qualname: Qualname) -> dict[str, str]:
    """Attributes of `self` that a method uses where a tracer fails, with the first such use
    (its text): a Python condition, `range`/`int`/`bool`, a slice bound, an array shape."""
    found: dict[str, str] = {}
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or method.name in _UNTRACED_METHODS:
            continue
        params = method.args.posonlyargs + method.args.args
        if not params or any(
            isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
            for d in method.decorator_list
        ):
            continue
        instance = params[0].arg
        for node in _own_nodes(method):
            for needed, shown in _needs_concrete(node, qualname):
                for attribute in _instance_attributes(needed, instance):
                    found.setdefault(attribute, shown)
    return found


def _needs_concrete(node: ast.AST, qualname: Qualname) -> Iterator[tuple[ast.expr, str]]:
    """Expressions `node` needs concrete, with the text to show."""
    if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
        test = node.test
        keyword = {ast.If: "if", ast.While: "while", ast.Assert: "assert"}.get(type(node))
        shown = f"{keyword} {ast.unparse(test)}" if keyword else ast.unparse(node)
        for part in _truth_operands(test):
            yield part, shown
    elif isinstance(node, ast.Slice):
        for bound in (node.lower, node.upper, node.step):
            if bound is not None:
                yield bound, f"[{ast.unparse(node)}]"
    elif isinstance(node, ast.Call) and node.args:
        target = qualname(node.func)
        if target in _CONCRETE_CALLS or target in _SHAPE_CALLS:
            yield node.args[0], ast.unparse(node)
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "reshape":
            for arg in node.args:
                yield arg, ast.unparse(node)


def _truth_operands(test: ast.expr) -> Iterator[ast.expr]:
    """The parts of a condition whose truth Python asks: `a > 0`, `flag`, `not flag` (not an
    `is None` test, which a tracer answers)."""
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            yield from _truth_operands(value)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _truth_operands(test.operand)
    elif isinstance(test, ast.Compare):
        if not any(isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in test.ops):
            yield test
    else:
        yield test


def _instance_attributes(node: ast.expr, instance: str) -> Iterator[str]:
    """`self.x` read in an expression, through arithmetic, comparisons and tuples only."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == instance
    ):
        yield node.attr
    elif isinstance(node, ast.BinOp):
        yield from _instance_attributes(node.left, instance)
        yield from _instance_attributes(node.right, instance)
    elif isinstance(node, ast.UnaryOp):
        yield from _instance_attributes(node.operand, instance)
    elif isinstance(node, ast.Compare):
        for part in (node.left, *node.comparators):
            yield from _instance_attributes(part, instance)
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            yield from _instance_attributes(element, instance)
