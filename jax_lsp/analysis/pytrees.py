"""Which classes of a module are PyTrees: registered, decorated or derived so that JAX flattens
their instances into leaves (a traced instance's array fields are tracers)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

from jax_lsp.analysis.summary import PYTREE_REGISTRATIONS

if TYPE_CHECKING:
    from jax_lsp.analysis.summary import ClassRecord, UnitSummary

_TREE_UTIL = "jax.tree_util"
# Decorators and base classes that make a class a PyTree (or a registered static type).
PYTREE_DECORATORS = frozenset(
    [
        f"{_TREE_UTIL}.register_pytree_node_class",
        f"{_TREE_UTIL}.register_pytree_with_keys_class",
        f"{_TREE_UTIL}.register_dataclass",
        f"{_TREE_UTIL}.register_static",
        "flax.struct.dataclass",
        "chex.dataclass",
    ]
)
PYTREE_BASES = frozenset(
    [
        "equinox.Module",
        "flax.nnx.Module",
        "flax.nnx.Object",
        "flax.nnx.Pytree",
        "flax.linen.Module",
        "flax.struct.PyTreeNode",
        "typing.NamedTuple",
    ]
)
LINEN_MODULE = "flax.linen.Module"
# Classes whose instances flatten into one child per declared field (static fields aside):
# through `jax.jit` each such field holds tracers. Not `nnx` modules (plain attributes stay
# static), nor classes with a `tree_flatten` of their own (it says which are children).
FIELD_PYTREE_DECORATORS = frozenset(
    [f"{_TREE_UTIL}.register_dataclass", "flax.struct.dataclass", "chex.dataclass"]
)
FIELD_PYTREE_BASES = frozenset(["equinox.Module", "flax.struct.PyTreeNode", "typing.NamedTuple"])


# Field specifiers that only a PyTree dataclass reads (`struct.field(pytree_node=False)`): a
# class declaring fields with them is one, whatever base the model cannot see made it so
# (brax's `System(mjx.Model)`).
PYTREE_FIELD_SPECIFIERS = frozenset(
    ["equinox.field", "equinox.static_field", "flax.struct.field", "chex.field"]
)


def flattens_fields(record: ClassRecord, summaries: Iterable[UnitSummary] = ()) -> bool:
    """Is each declared field of the class a child when JAX flattens an instance? Also so
    for a class deriving from such a class of the module (`summaries`)."""
    if any(
        isinstance(statement, ast.FunctionDef) and statement.name == "tree_flatten"
        for statement in record.node.body
    ):
        return False
    if any(_lists_fields(decorator) for decorator in record.node.decorator_list):
        return False  # `partial(register_dataclass, meta_fields=[...])`: it says which
    if any(d in FIELD_PYTREE_DECORATORS for d in record.decorators) or any(
        base in FIELD_PYTREE_BASES for base in record.bases
    ):
        return True
    summaries = list(summaries)
    return any(flattens_fields(base, summaries) for base in _module_bases(record, summaries))


def is_registered_pytree(record: ClassRecord, summaries: Iterable[UnitSummary]) -> bool:
    """Is the class registered as a PyTree (or as a static type) in this module?"""
    if any(decorator in PYTREE_DECORATORS for decorator in record.decorators):
        return True
    if any(base in PYTREE_BASES for base in record.bases):
        return True
    if record.field_specifiers & PYTREE_FIELD_SPECIFIERS:
        return True
    summaries = list(summaries)
    if any(is_registered_pytree(base, summaries) for base in _module_bases(record, summaries)):
        return True
    registrations = [
        (index, call.lineno)
        for index, summary in enumerate(summaries)
        for qualname, call in summary.module_calls
        if qualname in PYTREE_REGISTRATIONS and names_class(call, record.name)
    ]
    if not registrations:
        return False
    definitions = sorted(
        (index, other.node.lineno, other is record)
        for index, summary in enumerate(summaries)
        for other in summary.classes
        if other.name == record.name
    )
    if len(definitions) < 2:
        return True
    # The name is bound to several classes (a notebook redefining one in a later cell): a
    # registration registers the definition the name holds when it runs, the latest before it.
    return any(_registers(record_at, definitions) for record_at in registrations)


def _registers(at: tuple[int, int], definitions: list[tuple[int, int, bool]]) -> bool:
    """Does a registration at `at` (unit index, line) register the definition flagged True?"""
    before = [is_record for index, line, is_record in definitions if (index, line) < at]
    return before[-1] if before else definitions[0][2]


def _module_bases(record: ClassRecord, summaries: list[UnitSummary]) -> list[ClassRecord]:
    """The classes of the module the class derives from: for each base named by a plain
    name, the last class of that name defined before it (a notebook may redefine one)."""
    position = _position(record, summaries)
    found = []
    for base in record.node.bases:
        if not isinstance(base, ast.Name) or base.id == record.name:
            continue
        earlier = [
            (_position(other, summaries), other)
            for summary in summaries
            for other in summary.classes
            if other.name == base.id and _position(other, summaries) < position
        ]
        if earlier:
            found.append(max(earlier, key=lambda pair: pair[0])[1])
    return found


def _position(record: ClassRecord, summaries: list[UnitSummary]) -> tuple[int, int]:
    """(unit index, line) of the class's definition."""
    for index, summary in enumerate(summaries):
        if any(other is record for other in summary.classes):
            return (index, record.node.lineno)
    return (len(summaries), record.node.lineno)


def names_class(call: ast.Call, name: str) -> bool:
    """Does the call pass the class `name` as its first argument?"""
    return bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == name


def _lists_fields(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        keyword.arg in ("data_fields", "meta_fields") for keyword in decorator.keywords
    )
