"""Objects of the module's classes: what each attribute of a PyTree instance holds, and which
class the instances passed around a module belong to.

A PyTree instance passed through a transformation is flattened into leaves: its array fields
become tracers, its static fields (`eqx.field(static=True)`, `struct.field(pytree_node=False)`,
the aux data `tree_flatten` returns) stay Python values. Attributes assigned `jax.new_ref(...)`
hold refs. Everything here reads one class's own text (and the import aliases).
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterable

from jax_lsp.analysis.flow import ARRAYS, NEW_REF, annotation_container, annotation_kind
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import ARRAY_LAYERS, NNX_VARIABLES, Kind
from jax_lsp.analysis.nodes import per_member, walk_nodes, walk_statements
from jax_lsp.analysis.values import DERIVED, REF, Container, Function, Object, Value

# Field specifiers and the keyword (and value) that makes a field static; None: always static.
_STATIC_SPECIFIERS: dict[str, tuple[str, bool] | None] = {
    "equinox.field": ("static", True),
    "equinox.static_field": None,
    "flax.struct.field": ("pytree_node", False),
    "chex.field": ("pytree_node", False),
}
_DATACLASS_FIELD = "dataclasses.field"


def field_values(
    node: ast.ClassDef, resolver: Resolver, every_leaf: bool = False
) -> dict[str, Value]:
    """The value of each known attribute of a traced instance of the class: array fields
    are traced, static fields and aux data Python values, refs refs.

    `every_leaf`: the instance went through a transformation that traces every leaf
    (`jax.jit`) and the class flattens each declared field (a NamedTuple, a registered
    dataclass, an `eqx.Module`): a field that is not static holds tracers whatever its
    annotation (`step: int` is a traced int), a container of them, or a subtree of them."""
    found: dict[str, Value] = {}
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        name = statement.target.id
        if statement.value is not None and _declares_static(statement.value, resolver):
            found[name] = Kind.STATIC
        elif annotation_kind(statement.annotation, resolver) is Kind.ARRAY:
            found[name] = Kind.TRACED
        elif every_leaf and not _is_class_variable(statement.annotation, resolver):
            found[name] = _leaf_field(statement.annotation, resolver)
    flatten = _method(node, "tree_flatten")
    if flatten is not None:
        children, aux = _flattened(flatten)
        found.update({name: Kind.TRACED for name in children if name not in found})
        found.update({name: Kind.STATIC for name in aux})
    found.update({name: REF for name in _ref_attributes(node, resolver)})
    for name in _layer_attributes(node, resolver):
        if found.get(name) is not Kind.STATIC:
            found[name] = LAYER
    for name, variable in _array_variables(node, resolver):
        found.setdefault(name, Object(variable, (("value", Kind.TRACED),)))
    return found


def _array_variables(node: ast.ClassDef, resolver: Resolver) -> Iterable[tuple[str, str]]:
    """(attribute, variable class) of the attributes every assignment in the methods makes an
    nnx variable of a `jax.numpy` array (`self.hist = nnx.Variable(jnp.zeros(4))`): traced
    with its module, the variable's `.value` is a tracer."""
    assigned, unknown = self_assignments(node)
    for name, values in assigned.items():
        variables = {
            resolver.qualname(value.func)
            for _, value in values
            if isinstance(value, ast.Call)
            and value.args
            and isinstance(value.args[0], ast.Call)
            and (resolver.qualname(value.args[0].func) or "").startswith("jax.numpy.")
        }
        if name not in unknown and len(variables) == 1 and len(values) == 1:
            variable = variables.pop()
            if variable in NNX_VARIABLES:
                yield name, variable


# A library layer returning one array (`nnx.Linear`, `eqx.nn.Linear`): called, it computes a
# JAX array from its input, a tracer in traced code.
LAYER = Function(None, ARRAYS)


def _layer_attributes(node: ast.ClassDef, resolver: Resolver) -> Iterable[str]:
    """Attributes holding a library layer (`ARRAY_LAYERS`): a field annotated with one
    (`lin: eqx.nn.Linear`), or one every assignment in the methods makes (`self.lin =
    nnx.Linear(2, 2, rngs=rngs)`)."""
    for statement in node.body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and resolver.qualname(statement.annotation) in ARRAY_LAYERS
        ):
            yield statement.target.id
    assigned, unknown = self_assignments(node)
    for name, values in assigned.items():
        if name not in unknown and all(
            isinstance(value, ast.Call) and resolver.qualname(value.func) in ARRAY_LAYERS
            for _, value in values
        ):
            yield name


# Annotations of a Python number: as a pytree leaf through `jax.jit`, a tracer.
_NUMBERS = frozenset(["builtins.int", "builtins.float", "builtins.bool", "builtins.complex"])
_CLASS_VARIABLES = frozenset(["typing.ClassVar", "typing.Final", "dataclasses.InitVar"])


def _leaf_field(annotation: ast.expr, resolver: Resolver) -> Value:
    """What a non-static field holds inside `jax.jit`: a traced number, a container of
    tracers (`tuple`, `dict[str, Array]`), or, annotated otherwise (`Any`, `optax.OptState`,
    `Array | None`), a subtree of tracers whose shape is unknown: traced once computed with."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return DERIVED
    if resolver.qualname(annotation) in _NUMBERS:
        return Kind.TRACED
    if resolver.qualname(annotation) == "builtins.str":
        return Kind.UNKNOWN  # no JAX type: jit would raise before the body runs
    form = annotation_container(annotation, resolver)
    if form is not None:
        return Container(form, leaf=Kind.TRACED)
    return DERIVED


def _is_class_variable(annotation: ast.expr, resolver: Resolver) -> bool:
    """`ClassVar[int]`: an attribute of the class, no field."""
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return resolver.qualname(head) in _CLASS_VARIABLES


def _declares_static(value: ast.expr, resolver: Resolver) -> bool:
    """`eqx.field(static=True)`, `struct.field(pytree_node=False)`, `eqx.static_field()`,
    `dataclasses.field(metadata={"static": True})` (or `metadata=dict(static=True)`)."""
    if not isinstance(value, ast.Call):
        return False
    qualname = resolver.qualname(value.func) or ""
    keywords = {keyword.arg: keyword.value for keyword in value.keywords if keyword.arg}
    if qualname in _STATIC_SPECIFIERS:
        marker = _STATIC_SPECIFIERS[qualname]
        if marker is None:
            return True
        given = keywords.get(marker[0])
        return isinstance(given, ast.Constant) and given.value is marker[1]
    if qualname == _DATACLASS_FIELD:
        item = _metadata_entries(keywords.get("metadata"), resolver).get("static")
        return isinstance(item, ast.Constant) and item.value is True
    return False


def _metadata_entries(metadata: ast.expr | None, resolver: Resolver) -> dict[str, ast.expr]:
    """The string keys of a field's metadata, written `{"static": True}` or, as JAX's own
    `register_dataclass` docs write it, `dict(static=True)`."""
    if isinstance(metadata, ast.Dict):
        return {
            key.value: item
            for key, item in zip(metadata.keys, metadata.values, strict=True)
            if isinstance(key, ast.Constant) and isinstance(key.value, str)
        }
    if (
        isinstance(metadata, ast.Call)
        and resolver.qualname(metadata.func) == "builtins.dict"
        and not metadata.args
    ):
        return {keyword.arg: keyword.value for keyword in metadata.keywords if keyword.arg}
    return {}


def _method(node: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == name:
            return statement
    return None


def _self_attributes(expr: ast.expr | None) -> list[str]:
    """`self.a` -> [a]; `(self.a, self.b)` / `[self.a]` -> [a, b]."""
    elements = expr.elts if isinstance(expr, ast.Tuple | ast.List) else [expr]
    return [
        element.attr
        for element in elements
        if isinstance(element, ast.Attribute)
        and isinstance(element.value, ast.Name)
        and element.value.id == "self"
    ]


def _flattened(method: ast.FunctionDef) -> tuple[list[str], list[str]]:
    """The attributes `tree_flatten` returns as children and as aux data:
    `return (self.a, self.b), (self.n,)`, also through names assigned in its body."""
    assigned: dict[str, ast.expr] = {}
    for statement in method.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            assigned[statement.targets[0].id] = statement.value
    returned = next(
        (s.value for s in reversed(method.body) if isinstance(s, ast.Return) and s.value), None
    )
    if not (isinstance(returned, ast.Tuple) and len(returned.elts) == 2):
        return [], []
    parts = [
        assigned.get(part.id) if isinstance(part, ast.Name) else part for part in returned.elts
    ]
    return _self_attributes(parts[0]), _self_attributes(parts[1])


def _ref_attributes(node: ast.ClassDef, resolver: Resolver) -> Iterable[str]:
    """Attributes some method assigns `jax.new_ref(...)`: `self.ref[...] = v` is legal."""
    for statement in node.body:
        if not isinstance(statement, ast.FunctionDef):
            continue
        for inner in walk_nodes(statement):
            if not (
                isinstance(inner, ast.Assign)
                and isinstance(inner.value, ast.Call)
                and resolver.qualname(inner.value.func) in NEW_REF
            ):
                continue
            yield from _self_attributes(ast.Tuple(inner.targets))


_NOT_METHODS = frozenset({"staticmethod", "classmethod"})
# Statements and clauses that bind a target some other way than by a value we can read.
_OTHER_BINDINGS = (ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.Delete)


Method = ast.FunctionDef | ast.AsyncFunctionDef


def self_assignments(
    node: ast.ClassDef, text: str | None = None
) -> tuple[dict[str, list[tuple[Method, ast.expr]]], frozenset[str]]:
    """What the class's methods assign to attributes of their `self`: by attribute, each
    (method, value expression); and the attributes whose value cannot be read (assigned by
    unpacking, augmented, through `setattr`, or named in the class body: a class attribute,
    a method or a property), "*" for all of them (`setattr(self, name, v)`).

    `text`, the class's source: when it shows no `setattr`/`delattr` call and no attribute
    bound by a `for` clause, only statements can assign attributes, and the walk skips every
    expression (the class is walked again on each edit of any of its methods)."""
    statements_only = text is not None and not _may_bind_in_expression(text)
    assigned: dict[str, list[tuple[Method, ast.expr]]] = {}
    unknown: set[str] = set()
    # Member by member: an edit in a class shares the other members' nodes with the last parse.
    facts = per_member(
        node,
        _MEMBER_ASSIGNMENTS[statements_only],
        lambda member: _member_assignments(member, statements_only),
    )
    for member, (member_assigned, member_unknown) in zip(node.body, facts, strict=True):
        for name, values in member_assigned.items():
            assigned.setdefault(name, []).extend((member, value) for value in values)
        unknown |= member_unknown
    return assigned, frozenset(unknown)


# A member's values by the attribute they are assigned to (the member, a method, assigns them:
# paired with it on the way out, as an entry holding its own key would never go).
_Assignments = tuple[dict[str, list[ast.expr]], frozenset[str]]
# Each member's assignments, by whether only statements were walked.
_MEMBER_ASSIGNMENTS: dict[bool, weakref.WeakKeyDictionary[ast.AST, _Assignments]] = {
    True: weakref.WeakKeyDictionary(),
    False: weakref.WeakKeyDictionary(),
}


def _member_assignments(statement: ast.stmt, statements_only: bool) -> _Assignments:
    """What one member of a class body assigns to `self` (see `self_assignments`)."""
    assigned: dict[str, list[ast.expr]] = {}
    unknown: set[str] = set()
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        unknown.add(statement.name)
        if any(_decorator_name(d) in _NOT_METHODS for d in statement.decorator_list):
            return assigned, frozenset(unknown)
        positional = [*statement.args.posonlyargs, *statement.args.args]
        if positional:
            inner = walk_statements(statement) if statements_only else walk_nodes(statement)
            _method_writes(inner, positional[0].arg, assigned, unknown)
    else:
        for inner in walk_nodes(statement):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                unknown.add(inner.id)
    return assigned, frozenset(unknown)


def _decorator_name(decorator: ast.expr) -> str | None:
    return decorator.id if isinstance(decorator, ast.Name) else None


# Expressions that can bind an attribute: a `setattr`/`delattr` call, a comprehension's
# `for obj.attr in` (a superset: any `for` with a dotted target, and any mention of the calls).
_DOTTED_FOR = re.compile(r"for\s+[^\n]*?\w\.\w+[^\n]*?\bin\b")


def _may_bind_in_expression(text: str) -> bool:
    """Does `text` say `setattr`/`delattr`, or `for` followed on its line by a dotted name
    and `in` (as `\\bfor\\s+...\\bin\\b` finds)? The `for`s are found by substring and
    matched in place: a search with a leading `\\b` tried every character of a class's text."""
    if "setattr" in text or "delattr" in text:
        return True
    at = text.find("for")
    while at >= 0:
        before = text[at - 1] if at else " "
        if not (before.isalnum() or before == "_") and _DOTTED_FOR.match(text, at):
            return True
        at = text.find("for", at + 3)
    return False


def _method_writes(nodes: list[ast.AST], me: str, assigned: dict, unknown: set[str]) -> None:
    def is_self(expr: ast.expr) -> bool:
        return isinstance(expr, ast.Name) and expr.id == me

    for inner in nodes:
        if isinstance(inner, ast.Assign):
            for target in inner.targets:
                if isinstance(target, ast.Attribute) and is_self(target.value):
                    assigned.setdefault(target.attr, []).append(inner.value)
                elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
                    for element in walk_nodes(target):
                        if isinstance(element, ast.Attribute) and is_self(element.value):
                            unknown.add(element.attr)
        elif isinstance(inner, ast.AnnAssign | ast.AugAssign):
            target = inner.target
            if isinstance(target, ast.Attribute) and is_self(target.value):
                if isinstance(inner, ast.AnnAssign) and inner.value is not None:
                    assigned.setdefault(target.attr, []).append(inner.value)
                else:
                    unknown.add(target.attr)
        elif isinstance(inner, _OTHER_BINDINGS):
            if isinstance(inner, ast.Delete):
                targets = inner.targets
            elif isinstance(inner, ast.withitem):
                targets = [inner.optional_vars] if inner.optional_vars else []
            else:
                targets = [inner.target]
            for element in (e for target in targets for e in walk_nodes(target)):
                if isinstance(element, ast.Attribute) and is_self(element.value):
                    unknown.add(element.attr)
        elif (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and inner.func.id in ("setattr", "delattr")
            and inner.args
            and is_self(inner.args[0])
        ):
            name = inner.args[1] if len(inner.args) > 1 else None
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                unknown.add(name.value)
            else:
                unknown.add("*")
