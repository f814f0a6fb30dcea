"""Objects of the module's classes: what each attribute of a PyTree instance holds, and which
class the instances passed around a module belong to.

A PyTree instance passed through a transformation is flattened into leaves: its array fields
become tracers, its static fields (`eqx.field(static=True)`, `struct.field(pytree_node=False)`,
the aux data `tree_flatten` returns) stay Python values. Attributes assigned `jax.new_ref(...)`
hold refs. Everything here reads one class's own text (and the import aliases).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from jax_lsp.analysis.flow import NEW_REF, annotation_kind
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.values import REF, Value

# Field specifiers and the keyword (and value) that makes a field static; None: always static.
_STATIC_SPECIFIERS: dict[str, tuple[str, bool] | None] = {
    "equinox.field": ("static", True),
    "equinox.static_field": None,
    "flax.struct.field": ("pytree_node", False),
    "chex.field": ("pytree_node", False),
}
_DATACLASS_FIELD = "dataclasses.field"


def field_values(node: ast.ClassDef, resolver: Resolver) -> dict[str, Value]:
    """The value of each known attribute of a traced instance of the class: array fields
    are traced, static fields and aux data Python values, refs refs."""
    found: dict[str, Value] = {}
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        name = statement.target.id
        if statement.value is not None and _declares_static(statement.value, resolver):
            found[name] = Kind.STATIC
        elif annotation_kind(statement.annotation, resolver) is Kind.ARRAY:
            found[name] = Kind.TRACED
    flatten = _method(node, "tree_flatten")
    if flatten is not None:
        children, aux = _flattened(flatten)
        found.update({name: Kind.TRACED for name in children if name not in found})
        found.update({name: Kind.STATIC for name in aux})
    found.update({name: REF for name in _ref_attributes(node, resolver)})
    return found


def _declares_static(value: ast.expr, resolver: Resolver) -> bool:
    """`eqx.field(static=True)`, `struct.field(pytree_node=False)`, `eqx.static_field()`,
    `dataclasses.field(metadata={"static": True})`."""
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
        metadata = keywords.get("metadata")
        if isinstance(metadata, ast.Dict):
            for key, item in zip(metadata.keys, metadata.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "static":
                    return isinstance(item, ast.Constant) and item.value is True
    return False


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
