"""Classes as constructors: a class that stores what it is given (a dataclass, a PyTree class
of declared fields, an `__init__` storing its parameters), and the object a call of it builds."""

from __future__ import annotations

import ast
import weakref

from jax_lsp.analysis.fields import constructor_fields, parameter_attributes, reassigned_fields
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import positional_params
from jax_lsp.analysis.pytrees import FIELD_PYTREE_BASES, FIELD_PYTREE_DECORATORS
from jax_lsp.analysis.values import (
    Constructor,
    Container,
    Instance,
    Object,
    Value,
    any_traced,
    merge_values_all,
)


def class_constructor(node: ast.ClassDef, resolver: Resolver) -> Constructor | None:
    """The class as a constructor storing what it is given: a class whose constructor is
    generated from its declared fields (a dataclass, a NamedTuple, a flax struct, an
    `eqx.Module`, a registered dataclass; no `__init__` or `tree_flatten` of its own), or
    whose `__init__` stores parameters in attributes (`parameter_attributes`)."""
    found = _CLASS_CONSTRUCTORS.get(node)
    if found is None:
        found = _CLASS_CONSTRUCTORS[node] = _constructor_of_body(node)
    constructor, if_generated = found
    if if_generated and not _generated_constructor(node, resolver):
        return None
    return constructor


# What `class_constructor` reads of a class's subtree, memoised on its node: the module's flow runs
# each class statement again on every edit, and an edit elsewhere keeps the class's node.
# (constructor, whether it holds only if the class's constructor is generated); the imports
# that decide the latter are read on each call.
_CLASS_CONSTRUCTORS: weakref.WeakKeyDictionary[ast.ClassDef, tuple[Constructor | None, bool]] = (
    weakref.WeakKeyDictionary()
)


def _constructor_of_body(node: ast.ClassDef) -> tuple[Constructor | None, bool]:
    methods = {
        statement.name: statement
        for statement in node.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    if methods.keys() & _REDIRECTED_ATTRIBUTES:
        return None, False  # attributes may not be where `__init__` puts them
    init = methods.get("__init__")
    if isinstance(init, ast.FunctionDef):
        stored = parameter_attributes(node, init)
        if not stored:
            return None, False
        positional = positional_params(init)[1:]
        keyword_only = tuple(arg.arg for arg in init.args.kwonlyargs)
        with_default = positional[len(positional) - len(init.args.defaults) :]
        with_default += [
            arg.arg
            for arg, default in zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True)
            if default is not None
        ]
        constructor = Constructor(
            node.name, tuple(positional), keyword_only, frozenset(with_default), stored
        )
        return constructor, False
    if init is not None or "tree_flatten" in methods:
        return None, False
    fields = tuple(name for name, _ in constructor_fields(node))
    if not fields:
        return None, False
    reassigned = reassigned_fields(node)
    if reassigned.isdisjoint(fields):
        return Constructor(node.name, fields), True
    kept = tuple((name, name) for name in fields if name not in reassigned)
    return Constructor(node.name, fields, attributes=kept), True


# Methods that make an attribute read or write go elsewhere than the instance's dict.
_REDIRECTED_ATTRIBUTES = frozenset({"__new__", "__setattr__", "__getattr__", "__getattribute__"})
_DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass"})


def _generated_constructor(node: ast.ClassDef, resolver: Resolver) -> bool:
    """A class whose constructor takes its declared fields: a dataclass, or a PyTree class
    flattening them."""
    if any(resolver.qualname(base) in FIELD_PYTREE_BASES for base in node.bases):
        return True
    decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
    return any(
        resolver.qualname(d) in FIELD_PYTREE_DECORATORS
        or resolver.qualname(d) in _DATACLASS_DECORATORS
        for d in decorators
    )


def constructed_object(
    constructor: Constructor, node: ast.Call, args: list[Value], keywords: dict[str | None, Value]
) -> Value:
    """`Outputs(loss, aux)`, `Term(q=q)` of a class storing what it is given: given a
    tracer, an object whose attributes hold what was passed for them (not itself a traced
    value: `if outputs:` is Python's truth of an object or tuple); else nothing is known.
    Unpacked arguments (`*a`, `**d`) give the parameters only they can fill an element."""
    starred = next((i for i, arg in enumerate(node.args) if isinstance(arg, ast.Starred)), None)
    explicit = len(node.args) if starred is None else starred
    given = dict(zip(constructor.fields, args[:explicit], strict=False))
    named = constructor.fields + constructor.keyword_only
    given.update({name: value for name, value in keywords.items() if name in named})
    star = args[starred] if starred is not None and starred < len(args) else None
    mapping = keywords.get(None)
    for index, name in enumerate(named):
        if name in given:
            continue
        # Who may fill it: the starred sequence (a position from it on), the unpacked
        # mapping (by name), or its default; a value only where no default may.
        candidates = []
        if star is not None and index < len(constructor.fields):
            candidates.append(_unpacked_item(star, None))
        if mapping is not None:
            candidates.append(_unpacked_item(mapping, name))
        if candidates and name not in constructor.defaults:
            given[name] = merge_values_all(candidates)
    if not any_traced(list(given.values())) and not any(
        type(value) is Instance for value in given.values()
    ):
        return Kind.UNKNOWN
    if constructor.attributes is not None:
        given = {
            attribute: given[parameter]
            for attribute, parameter in constructor.attributes
            if parameter in given
        }
    return Object(constructor.class_name, tuple(sorted(given.items())))


def _unpacked_item(value: Value, key: str | None) -> Value:
    """What `*value` gives a position, or `**value` the parameter `key`: its item where
    known, a tracer for a traced value (the arguments of a traced function, each a
    tracer)."""
    if type(value) is Container:
        return value.item(key) if key is not None and value.keys is not None else value.element()
    return Kind.TRACED if value is Kind.TRACED else Kind.UNKNOWN
