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


def flattens_fields(record: ClassRecord) -> bool:
    """Is each declared field of the class a child when JAX flattens an instance?"""
    if any(
        isinstance(statement, ast.FunctionDef) and statement.name == "tree_flatten"
        for statement in record.node.body
    ):
        return False
    if any(_lists_fields(decorator) for decorator in record.node.decorator_list):
        return False  # `partial(register_dataclass, meta_fields=[...])`: it says which
    return any(d in FIELD_PYTREE_DECORATORS for d in record.decorators) or any(
        base in FIELD_PYTREE_BASES for base in record.bases
    )


def is_registered_pytree(record: ClassRecord, summaries: Iterable[UnitSummary]) -> bool:
    """Is the class registered as a PyTree (or as a static type) in this module?"""
    if any(decorator in PYTREE_DECORATORS for decorator in record.decorators):
        return True
    if any(base in PYTREE_BASES for base in record.bases):
        return True
    summaries = list(summaries)
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


def names_class(call: ast.Call, name: str) -> bool:
    """Does the call pass the class `name` as its first argument?"""
    return bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == name


def _lists_fields(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        keyword.arg in ("data_fields", "meta_fields") for keyword in decorator.keywords
    )
