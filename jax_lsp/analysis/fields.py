"""Boolean fields: which fields of the module's classes hold boolean arrays, from how the
objects are built (`Batch(x, jnp.array([True, False]))`, `State(mask=x > 0)`) or declared
(`valid: Bool[Array, "n"]`). A field counts when its declaration says so, or when every call
of the class in the module passes it a boolean array (and there is at least one call)."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import per_member, per_member_of, walk_nodes
from jax_lsp.analysis.summary import ClassRecord, FunctionRecord, UnitSummary


@dataclass
class _Site:
    """Where a construction stands, for `is_boolean` (names bound in its function)."""

    resolver: Resolver
    functions: list[ast.AST] = field(default_factory=list)

    def qualname(self, node: ast.AST) -> str | None:
        return self.resolver.qualname(node)


def declared_fields(node: ast.ClassDef) -> list[tuple[str, ast.expr]]:
    """The annotated fields of a class body in order, with their annotations."""
    return [
        (statement.target.id, statement.annotation)
        for statement in node.body
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
    ]


def constructor_fields(node: ast.ClassDef) -> list[tuple[str, ast.expr]]:
    """The annotated fields a generated constructor takes, in order (a dataclass's, a
    NamedTuple's, an `eqx.Module`'s parameters): not those declared `field(init=False)`."""
    return [
        (statement.target.id, statement.annotation)
        for statement in node.body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and not _init_false(statement.value)
    ]


def parameter_attributes(
    node: ast.ClassDef, init: ast.FunctionDef | ast.AsyncFunctionDef
) -> tuple[tuple[str, str], ...]:
    """(attribute, parameter) for each attribute the class's `__init__` stores a parameter in
    as it is (`self.q = q`, `self.a, self.b = a, b`): statements of its own body (not under
    a branch), the parameter never rebound, the attribute assigned nowhere else in the class
    (a method may change it) and not a name of the class body (a property, a method)."""
    positional = [*init.args.posonlyargs, *init.args.args]
    if not positional:
        return ()
    me = positional[0].arg
    params = {arg.arg for arg in [*positional[1:], *init.args.kwonlyargs]}
    params -= _member_writes(init).bound
    stored: list[tuple[str, str]] = []
    for statement in init.body:
        for target, value in _assigned_pairs(statement):
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == me
                and isinstance(value, ast.Name)
                and value.id in params
            ):
                stored.append((target.attr, value.id))
    if not stored:
        return ()
    once = _assigned_once(node)
    return tuple((attribute, parameter) for attribute, parameter in stored if attribute in once)


def reassigned_fields(node: ast.ClassDef) -> frozenset[str]:
    """Attribute names some method of the class assigns (`self.n = int(self.n)` in a
    `__post_init__`): a generated constructor's field may not keep what it was given."""
    return frozenset(name for writes in _class_writes(node) for name in writes.attributes)


@dataclass(frozen=True, slots=True)
class _Writes:
    """What a subtree writes: the attribute names it assigns (once per assignment), the
    names it binds, and whether it names `setattr`."""

    attributes: tuple[str, ...]
    bound: frozenset[str]
    names_setattr: bool


# By member of a class body: an edit in a class re-parses the edited member alone, and the
# module's flow asks for the class's constructor on every edit.
_MEMBER_WRITES: weakref.WeakKeyDictionary[ast.AST, _Writes] = weakref.WeakKeyDictionary()


def _member_writes(member: ast.stmt) -> _Writes:
    return per_member_of([member], _MEMBER_WRITES, _writes)[0]


def _writes(node: ast.AST) -> _Writes:
    attributes: list[str] = []
    bound: set[str] = set()
    names_setattr = False
    for n in walk_nodes(node):
        kind = type(n)  # exact types: the parser makes no subclasses
        if kind is ast.Attribute:
            if type(n.ctx) is not ast.Load:  # type: ignore[attr-defined]
                attributes.append(n.attr)  # type: ignore[attr-defined]
        elif kind is ast.Name:
            names_setattr = names_setattr or n.id == "setattr"  # type: ignore[attr-defined]
            if type(n.ctx) is not ast.Load:  # type: ignore[attr-defined]
                bound.add(n.id)  # type: ignore[attr-defined]
    return _Writes(tuple(attributes), frozenset(bound), names_setattr)


def _class_writes(node: ast.ClassDef) -> list[_Writes]:
    """The writes of the whole class: of each member of its body (memoised on the member)
    and of its header (decorators, bases, keywords, type parameters)."""
    header: list[ast.AST] = [
        *node.decorator_list,
        *node.bases,
        *node.keywords,
        *getattr(node, "type_params", ()),
    ]
    return [*per_member(node, _MEMBER_WRITES, _writes), *map(_writes, header)]


def _assigned_pairs(statement: ast.stmt) -> list[tuple[ast.expr, ast.expr]]:
    if isinstance(statement, ast.AnnAssign) and statement.value is not None:
        return [(statement.target, statement.value)]
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return []
    target, value = statement.targets[0], statement.value
    if (
        isinstance(target, ast.Tuple)
        and isinstance(value, ast.Tuple)
        and len(target.elts) == len(value.elts)
    ):
        return list(zip(target.elts, value.elts, strict=True))
    return [(target, value)]


def _assigned_once(node: ast.ClassDef) -> frozenset[str]:
    """Attribute names assigned exactly once in the class and not bound in its body; none
    when it calls `setattr` (any name may be set)."""
    counts: dict[str, int] = {}
    for writes in _class_writes(node):
        if writes.names_setattr:
            return frozenset()
        for name in writes.attributes:
            counts[name] = counts.get(name, 0) + 1
    in_body = {
        statement.name
        for statement in node.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    for statement in node.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            in_body |= {target.id for target in targets if isinstance(target, ast.Name)}
    return frozenset(name for name, count in counts.items() if count == 1 and name not in in_body)


def _init_false(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Call) and any(
        keyword.arg == "init"
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is False
        for keyword in value.keywords
    )


def _declared_boolean(annotation: ast.expr, resolver: Resolver) -> bool:
    """`Bool[Array, "n"]` (jaxtyping)."""
    return (
        isinstance(annotation, ast.Subscript)
        and resolver.qualname(annotation.value) == "jaxtyping.Bool"
    )


def boolean_fields(
    classes: Mapping[str, ClassRecord], summaries: Iterable[UnitSummary], resolver: Resolver
) -> dict[str, frozenset[str]]:
    """class name -> its fields known to hold boolean arrays."""
    declared = {name: declared_fields(record.node) for name, record in classes.items()}
    # Calls map to fields only where the fields are the constructor's parameters: no
    # `__init__` of its own, no base class of the module adding fields before them.
    fields = {
        name: found
        for name, record in classes.items()
        if (found := constructor_fields(record.node))
        and not _defines_init(record.node)
        and not any(isinstance(b, ast.Name) and b.id in classes for b in record.node.bases)
    }
    # class -> field -> boolean at every call seen so far
    seen: dict[str, dict[str, bool]] = {name: {} for name in declared}
    for summary in summaries:
        for call in summary.calls:
            node = call.node
            if not isinstance(node.func, ast.Name) or node.func.id not in fields:
                continue
            names = [name for name, _ in fields[node.func.id]]
            passed = _passed(node, names)
            site = _Site(resolver, [call.caller] if call.caller is not None else [])
            verdicts = seen[node.func.id]
            for name in names:
                value = passed.get(name) if passed is not None else None
                boolean = value is not None and is_boolean(value, site)
                verdicts[name] = verdicts.get(name, True) and boolean
    found: dict[str, frozenset[str]] = {}
    for class_name, annotated in declared.items():
        names = {name for name, annotation in annotated if _declared_boolean(annotation, resolver)}
        names |= {name for name, boolean in seen[class_name].items() if boolean}
        if names:
            found[class_name] = frozenset(names)
    return found


def boolean_entries(
    functions: Mapping[str, FunctionRecord], summaries: Iterable[UnitSummary], resolver: Resolver
) -> dict[str, dict[str, frozenset[str]]]:
    """Module function -> parameter -> the keys under which every call of the function in
    the module passes a boolean array in a dict display (`loss(x, {"mask": x > 0})`), for
    functions called by name at least once."""
    verdicts: dict[str, dict[str, dict[str, bool]]] = {}
    for summary in summaries:
        for call in summary.calls:
            node = call.node
            if not isinstance(node.func, ast.Name):
                continue
            record = functions.get(node.func.id)
            if record is None or record.parent is not None or record.class_name is not None:
                continue
            if isinstance(record.node, ast.Lambda):
                continue
            names = [arg.arg for arg in [*record.node.args.posonlyargs, *record.node.args.args]]
            passed = _passed(node, names)
            seen = verdicts.setdefault(record.path, {})
            if passed is None:  # `*args`: which parameter gets what is unknown
                verdicts[record.path] = {name: {} for name in names}
                continue
            site = _Site(resolver, [call.caller] if call.caller is not None else [])
            for name in {*names, *passed}:
                entries = _boolean_display_entries(passed.get(name), site)
                before = seen.get(name)
                seen[name] = (
                    entries
                    if before is None
                    else {key: before[key] and entries[key] for key in before.keys() & entries}
                )
    return {
        path: found
        for path, parameters in verdicts.items()
        if (
            found := {
                name: keys
                for name, entries in parameters.items()
                if (keys := frozenset(key for key, boolean in entries.items() if boolean))
            }
        )
    }


def _boolean_display_entries(value: ast.expr | None, site: _Site) -> dict[str, bool]:
    """A dict display's string keys, each with whether its value is a boolean array."""
    if not isinstance(value, ast.Dict) or None in value.keys:
        return {}
    return {
        key.value: is_boolean(entry, site)
        for key, entry in zip(value.keys, value.values, strict=True)
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    }


def _defines_init(node: ast.ClassDef) -> bool:
    return any(
        isinstance(statement, ast.FunctionDef) and statement.name == "__init__"
        for statement in node.body
    )


def _passed(call: ast.Call, names: list[str]) -> dict[str, ast.expr] | None:
    """The argument each field gets (by position, then keyword); None when `*args` or
    `**kwargs` hide which."""
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    passed = dict(zip(names, call.args, strict=False))
    passed.update({kw.arg: kw.value for kw in call.keywords if kw.arg is not None})
    return passed
