"""How a fix can write a new value into the attribute of an object (`p.vel = ...` for
`p.vel[i] = v`): what the object's class allows, from the module's record of that class.

A NamedTuple, a frozen dataclass, a `flax.struct` class or an `eqx.Module` refuses attribute
assignment (AttributeError or FrozenInstanceError): the holder itself is rebound to a copy with
the field replaced. A plain class or a mutable dataclass takes the assignment. Any other holder
(a class the module does not define, a Flax module, an attribute chain) gets no rewrite: a
wrong fix is worse than none.
"""

from __future__ import annotations

import ast
import enum

from jax_lsp.analysis.fields import constructor_fields
from jax_lsp.analysis.names import scope_bound_names
from jax_lsp.analysis.nodes import positional_params
from jax_lsp.analysis.summary import ClassRecord
from jax_lsp.codeactions.import_edits import ensure_import
from jax_lsp.codeactions.site import FixSite
from jax_lsp.findings import Edit


class Holder(enum.Enum):
    MUTABLE = "mutable"  # plain class, dataclass without frozen=True
    NAMED_TUPLE = "namedtuple"  # p._replace(f=...)
    FROZEN_DATACLASS = "dataclass"  # dataclasses.replace(p, f=...)
    FLAX_STRUCT = "flax.struct"  # p.replace(f=...)
    EQUINOX = "equinox"  # eqx.tree_at(lambda m: m.f, p, ...)


_NAMED_TUPLE = "typing.NamedTuple"
_DATACLASS = "dataclasses.dataclass"
_CHEX_DATACLASS = "chex.dataclass"
_FLAX_STRUCT = ("flax.struct.dataclass", "flax.struct.PyTreeNode")
_EQUINOX_MODULE = "equinox.Module"
# Decorators that keep a dataclass what it is (registration only).
_REGISTRATIONS = ("jax.tree_util.register_dataclass", "jax.tree_util.register_pytree_node_class")
# Methods that make attribute assignment do something else than store the value.
_CUSTOM_SETTERS = ("__setattr__", "__slots__", "__getattr__")


def rebinding(ctx: FixSite, target: ast.expr, value: str) -> tuple[str, tuple[Edit, ...]] | None:
    """A statement giving `target` (a name or `holder.field`) the new `value` (source text),
    and the imports it needs; None when no such statement is known to be right here."""
    if isinstance(target, ast.Name):
        if not _rebindable(ctx, target.id):
            return None  # a free name: assigning it would make it local (UnboundLocalError)
        return f"{target.id} = {value}", ()
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return None  # `a.b.c`: what `a.b` is, is not known here
    holder, field = target.value.id, target.attr
    record = _holder_class(ctx, holder)
    kind = _holder_kind(ctx, record) if record is not None else None
    if kind is None or not _has_field(record, field, kind):
        return None
    if kind is Holder.MUTABLE:
        return f"{holder}.{field} = {value}", ()
    if _is_self(ctx, holder) or not _rebindable(ctx, holder):
        return None  # rebinding `self` (or a free name) would not update the caller's object
    if kind is Holder.NAMED_TUPLE:
        return f"{holder} = {holder}._replace({field}={value})", ()
    if kind is Holder.FLAX_STRUCT:
        return f"{holder} = {holder}.replace({field}={value})", ()
    module = "dataclasses" if kind is Holder.FROZEN_DATACLASS else "equinox"
    spelled = ensure_import(ctx, module)
    if spelled is None:
        return None
    prefix, edits = spelled
    if kind is Holder.FROZEN_DATACLASS:
        return f"{holder} = {prefix}.replace({holder}, {field}={value})", edits
    lambda_name = "m" if holder != "m" else "module"
    where = f"lambda {lambda_name}: {lambda_name}.{field}"
    return f"{holder} = {prefix}.tree_at({where}, {holder}, {value})", edits


def _rebindable(ctx: FixSite, name: str) -> bool:
    """Does assigning `name` here rebind the name the code reads (module level, a name the
    function binds itself, or one it declares global or nonlocal)?"""
    if not ctx.functions:
        return not any(isinstance(node, ast.ClassDef) for node in ctx.ancestors)
    function = ctx.functions[-1]
    if isinstance(function, ast.Lambda):
        return False
    if name in scope_bound_names(function):
        return True
    return any(
        isinstance(statement, ast.Global | ast.Nonlocal) and name in statement.names
        for statement in ast.walk(function)
    )


def _method_class(ctx: FixSite) -> str | None:
    """The class whose (instance) method the innermost function is."""
    if not ctx.functions:
        return None
    record = ctx.model.records.get(ctx.functions[-1])
    return record.class_name if record is not None else None


def _is_self(ctx: FixSite, name: str) -> bool:
    function = ctx.functions[-1] if ctx.functions else None
    if function is None or _method_class(ctx) is None or isinstance(function, ast.Lambda):
        return False
    params = positional_params(function)
    return bool(params) and params[0] == name


def _holder_class(ctx: FixSite, name: str) -> ClassRecord | None:
    """The class of the module the object named `name` is an instance of, when known."""
    classes = ctx.model.classes
    if not ctx.functions:
        class_name = ctx.model.instances.get(name)
    elif _is_self(ctx, name):
        class_name = _method_class(ctx)
        if _decorated_out(ctx.functions[-1]):
            return None  # a static or class method: its first parameter is no instance
    else:
        class_name = ctx.model.classes_in(ctx.functions[-1]).get(name)
    return classes.get(class_name) if class_name is not None else None


def _decorated_out(function: ast.AST) -> bool:
    decorators = getattr(function, "decorator_list", [])
    names = {d.id for d in decorators if isinstance(d, ast.Name)}
    return bool(names & {"staticmethod", "classmethod"})


def _holder_kind(ctx: FixSite, record: ClassRecord) -> Holder | None:
    """What assigning an attribute of an instance of the class does, when known."""
    resolver = ctx.model.resolver
    decorators: list[tuple[str | None, ast.expr]] = []
    for decorator in record.node.decorator_list:
        function = decorator.func if isinstance(decorator, ast.Call) else decorator
        decorators.append((resolver.qualname(function), decorator))
    names = [name for name, _ in decorators]
    bases = list(record.bases)
    if record.node.bases and len(bases) != len(record.node.bases):
        return None  # a base the resolver cannot name
    if any(body_name in _CUSTOM_SETTERS for body_name in _class_names(record.node)):
        return None
    if bases == [_NAMED_TUPLE] and not decorators:
        return Holder.NAMED_TUPLE
    if bases == [_EQUINOX_MODULE] and not decorators:
        return Holder.EQUINOX
    if bases == [_FLAX_STRUCT[1]] and not decorators:
        return Holder.FLAX_STRUCT
    if bases and bases != ["builtins.object"]:
        return None  # inherited behaviour this module's text does not show
    if names == [_FLAX_STRUCT[0]]:
        return Holder.FLAX_STRUCT
    if not decorators:
        return Holder.MUTABLE
    dataclass = [d for name, d in decorators if name in (_DATACLASS, _CHEX_DATACLASS)]
    if len(dataclass) != 1 or any(
        name not in (_DATACLASS, _CHEX_DATACLASS, *_REGISTRATIONS) for name in names
    ):
        return None
    frozen = _keyword(dataclass[0], "frozen")
    if frozen is None:
        return None  # frozen=<an expression>: not known
    return Holder.FROZEN_DATACLASS if frozen else Holder.MUTABLE


def _keyword(decorator: ast.expr, name: str) -> bool | None:
    """The constant a decorator call passes as `name` (False when it passes none)."""
    if not isinstance(decorator, ast.Call):
        return False
    for keyword in decorator.keywords:
        if keyword.arg == name:
            value = keyword.value
            return value.value if isinstance(value, ast.Constant) else None
        if keyword.arg is None:
            return None
    return False


def _class_names(node: ast.ClassDef) -> set[str]:
    """Names the class body binds: methods, properties, class attributes."""
    names: set[str] = set()
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names.update(t.id for t in statement.targets if isinstance(t, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
    return names


def _has_field(record: ClassRecord, field: str, kind: Holder) -> bool:
    """Can the rewrite for `kind` set `field`? A constructor field for the copying kinds; for
    a mutable class, any attribute that is not a method or property of the class."""
    if kind is Holder.MUTABLE:
        methods = {
            s.name
            for s in record.node.body
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        return field not in methods
    return field in {name for name, _ in constructor_fields(record.node)}
