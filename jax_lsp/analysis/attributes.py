"""Attribute writes after construction: which attribute names a module assigns outside the
constructors (`obj.attr = ...`, `self.attr += ...`, `setattr(obj, "attr", ...)`), and which
attributes of `self` a method reads, itself or through the methods it calls on `self`.

A static `self` under jit is stale only when an attribute the compiled method reads changes
after the object is built (JAX402)."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import NamedTuple

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import (
    all_params,
    block_children,
    child_nodes,
    lone_class,
    per_member,
    walk_nodes,
)
from jax_lsp.analysis.summary import transform_of
from jax_lsp.analysis.updates import scope_statements

CONSTRUCTORS = frozenset(["__init__", "__post_init__", "__new__", "__setstate__"])
ANY_ATTRIBUTE = "*"  # `setattr(obj, name, ...)` with a name we cannot read


class FreshWrite(NamedTuple):
    """An attribute written on an object the enclosing function made itself and bound to a
    local name it binds nowhere else: `lp = object.__new__(JaddleLP)` (`certain`: an
    instance of that class) or `m = Model(...)` (an instance of `Model` if the name is a
    class and not a factory). Only an object of that class (or of a subclass) changes."""

    attribute: str
    class_name: str
    certain: bool


# Where a local name holds an object its function made: the class it names, and whether the
# object surely is an instance of it (`object.__new__(C)`) or only if `C` is a class (`C()`).
_Fresh = Mapping[str, tuple[str, bool]]
_NO_FRESH: _Fresh = {}
_Function = ast.FunctionDef | ast.AsyncFunctionDef
# A walk's state at a node: (node, skipped: inside a constructor, the enclosing method's self,
# the enclosing function)
_WalkState = tuple[ast.AST, bool, str | None, _Function | None]
# Each member's writes of a lone class, by whether expressions were walked too.
_MEMBER_WRITES: dict[bool, weakref.WeakKeyDictionary[ast.AST, frozenset[str | FreshWrite]]] = {
    True: weakref.WeakKeyDictionary(),
    False: weakref.WeakKeyDictionary(),
}


def assigned_attributes(tree: ast.AST, text: str | None = None) -> frozenset[str]:
    """Attribute names assigned in `tree` to objects other than a method's own `self`
    (`model.rate = 0.1`), outside constructors, whatever object holds them. A method's
    writes to its `self` belong to its class: JAX402 reads those from the class and its
    ancestors."""
    return frozenset(
        write.attribute if type(write) is FreshWrite else write
        for write in attribute_writes(tree, text)
    )


def attribute_writes(tree: ast.AST, text: str | None = None) -> frozenset[str | FreshWrite]:
    """The writes `assigned_attributes` names, those to an object the function just made
    (`FreshWrite`) apart: they change objects of that class only.

    `text`, the tree's source: when it does not say `setattr`, only statements assign
    attributes, and no expression is visited."""
    expressions = text is None or "setattr" in text
    children = child_nodes if expressions else block_children
    cls = lone_class(tree)
    if cls is not None:  # member by member: an edit in a class shares the others' nodes
        members = per_member(
            cls,
            _MEMBER_WRITES[expressions],
            lambda member: _writes_from([_member_state(member, False)], children),
        )
        return frozenset().union(*members)
    return _writes_from([(tree, False, None, None)], children)


def _member_state(statement: ast.stmt, skipped: bool) -> _WalkState:
    """Where the walk stands at a statement of a class body: a method's writes to its first
    parameter are its own, a constructor's are skipped."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        first = statement.args.args[0].arg if statement.args.args else None
        return statement, statement.name in CONSTRUCTORS, first, statement
    return statement, skipped, None, None


def _writes_from(
    stack: list[_WalkState], children: Callable[[ast.AST], list[ast.AST]]
) -> frozenset[str | FreshWrite]:
    names: set[str | FreshWrite] = set()
    made: dict[_Function, _Fresh] = {}  # each function's fresh objects, found when needed

    def fresh(function: _Function | None) -> _Fresh:
        if function is None:
            return _NO_FRESH
        if function not in made:
            made[function] = _fresh_objects(function)
        return made[function]

    while stack:
        node, skipped, me, function = stack.pop()
        if isinstance(node, ast.ClassDef):
            stack.extend(_member_state(statement, skipped) for statement in node.body)
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node
        if not skipped:
            names.update(_written(node, me, partial(fresh, function)))
        stack.extend((child, skipped, me, function) for child in children(node))
    return frozenset(names)


def _written(node: ast.AST, me: str | None, fresh: Callable[[], _Fresh]) -> list[str | FreshWrite]:
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = [t for target in node.targets for t in _unpacked(target)]
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    elif _is_setattr(node) and not _is_name(node.args[0], me):
        name = node.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return [_write(node.args[0], name.value, fresh)]
        return [ANY_ATTRIBUTE]
    return [
        _write(t.value, t.attr, fresh)
        for t in targets
        if isinstance(t, ast.Attribute) and not _is_name(t.value, me)
    ]


def _write(receiver: ast.expr, attribute: str, fresh: Callable[[], _Fresh]) -> str | FreshWrite:
    made = fresh().get(receiver.id) if isinstance(receiver, ast.Name) else None
    return attribute if made is None else FreshWrite(attribute, *made)


def _fresh_objects(function: _Function) -> _Fresh:
    """Local names the function binds once, by `name = object.__new__(C)` (or
    `C.__new__(C)`) or `name = C(...)`: the object it made, whose class is `C`. A name bound
    again, a parameter or a name declared global or nonlocal may hold another object."""
    stores: dict[str, int] = {}
    declared: set[str] = set(all_params(function))
    made: dict[str, tuple[str, bool]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and (found := _made_object(node.value)) is not None
        ):
            made[node.targets[0].id] = found
    if not made:
        return _NO_FRESH
    return {
        name: found
        for name, found in made.items()
        if stores.get(name) == 1 and name not in declared
    }


def _made_object(value: ast.expr) -> tuple[str, bool] | None:
    """`object.__new__(C)` / `C.__new__(C)` (surely a `C`) or `C(...)` (a `C` if `C` is a
    class): the class name, and whether the object surely is an instance of it."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Name):
        return func.id, False
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "__new__"
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Name)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("object", value.args[0].id)
    ):
        return value.args[0].id, True
    return None


def _is_name(node: ast.expr, name: str | None) -> bool:
    return name is not None and isinstance(node, ast.Name) and node.id == name


def _is_setattr(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "setattr"
        and len(node.args) >= 2
    )


def _unpacked(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        return [t for element in target.elts for t in _unpacked(element)]
    return [target]


_DEFINED: weakref.WeakKeyDictionary[ast.ClassDef, frozenset[str]] = weakref.WeakKeyDictionary()


def defined_attributes(cls: ast.ClassDef) -> frozenset[str]:
    """The attributes a class definition provides itself: the names its body binds (fields,
    methods, properties, class attributes) and those its methods assign on their first
    parameter (`self.x = ...`, `self.x: T = ...`, `setattr(self, "x", ...)`)."""
    found = _DEFINED.get(cls)
    if found is None:
        names: set[str] = set()
        for statement in cls.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(statement.name)
            for target in _targets_of(statement):
                names.update(n.id for n in walk_nodes(target) if isinstance(n, ast.Name))
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                params = all_params(statement)
                if params:
                    names.update(_assigned_on(statement, params[0]))
        found = _DEFINED[cls] = frozenset(names)
    return found


def _targets_of(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, ast.AnnAssign | ast.AugAssign):
        return [statement.target]
    return []


def _assigned_on(function: _Function, me: str) -> Iterator[str]:
    """Attribute names `function` stores on its parameter `me`, anywhere in its body."""
    for node in walk_nodes(function):
        if (
            isinstance(node, ast.Attribute)
            and type(node.ctx) is ast.Store
            and _is_name(node.value, me)
        ):
            yield node.attr
        elif (
            _is_setattr(node)
            and _is_name(node.args[0], me)
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            yield node.args[1].value


def construction_helpers(classes: list[ast.ClassDef]) -> frozenset[str]:
    """Private methods (`_precompute`) that only the constructors of these classes (a class
    and its ancestors) call through `self`, directly or through one another: they run while
    the object is built, so what they assign is set at construction. A private name is, by
    Python's convention, not called from outside the class."""
    methods = {
        statement.name: statement
        for cls in classes
        for statement in cls.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.args.args
    }
    callers: dict[str, set[str]] = {}  # method -> the methods that name it on their `self`
    for name, method in methods.items():
        me = method.args.args[0].arg
        for node in walk_nodes(method):
            if (
                isinstance(node, ast.Attribute)
                and _is_name(node.value, me)
                and node.attr in methods
            ):
                callers.setdefault(node.attr, set()).add(name)
    building = set(CONSTRUCTORS)
    grown = True
    while grown:
        found = {
            name
            for name, names in callers.items()
            if name.startswith("_") and name not in building and names <= building
        }
        building |= found
        grown = bool(found)
    return frozenset(building - CONSTRUCTORS)


def self_reads(
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    find_method: Callable[[str], ast.FunctionDef | ast.AsyncFunctionDef | None],
) -> frozenset[str]:
    """Attributes of `self` (the first parameter) the method reads, itself or through the
    methods and properties of its class it reaches through `self` (`find_method(name)`)."""
    reads: set[str] = set()
    seen: set[int] = set()
    pending = [method]
    while pending:
        current = pending.pop()
        if id(current) in seen or not current.args.args:
            continue
        seen.add(id(current))
        me = current.args.args[0].arg
        # A memoising property reached through `self` gives the same value before and after
        # it fills its cache: what it memoises is not read, what it computes it from is.
        cached = memoised_attributes(current) if current is not method else frozenset()
        for node in walk_nodes(current):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == me
                and node.attr not in cached
            ):
                reads.add(node.attr)
                called = find_method(node.attr)
                if called is not None:
                    pending.append(called)
    return frozenset(reads)


_MEMOISED: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = weakref.WeakKeyDictionary()


def memoised_attributes(function: _Function) -> frozenset[str]:
    """Attributes of `self` the method only fills once, as a cache: every assignment of
    `self.a` sits under `if not hasattr(self, "a"):` or `if self.a is None:`."""
    found = _MEMOISED.get(function)
    if found is None:
        params = all_params(function)
        guarded: set[str] = set()
        unguarded: set[str] = set()
        if params:
            _cache_fills(function, params[0], frozenset(), guarded, unguarded)
        found = _MEMOISED[function] = frozenset(guarded - unguarded)
    return found


def _cache_fills(
    node: ast.AST, me: str, unset: frozenset[str], guarded: set[str], unguarded: set[str]
) -> None:
    for child in child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue  # its own scope: runs later, if at all
        if isinstance(child, ast.If):
            tested = _unset_attribute(child.test, me)
            _cache_fills(child.test, me, unset, guarded, unguarded)
            inside = unset if tested is None else unset | {tested}
            for statement in child.body:
                _cache_fills_statement(statement, me, inside, guarded, unguarded)
            for statement in child.orelse:
                _cache_fills_statement(statement, me, unset, guarded, unguarded)
            continue
        _cache_fills_statement(child, me, unset, guarded, unguarded)


def _cache_fills_statement(
    node: ast.AST, me: str, unset: frozenset[str], guarded: set[str], unguarded: set[str]
) -> None:
    if (
        isinstance(node, ast.Attribute)
        and type(node.ctx) is not ast.Load
        and _is_name(node.value, me)
    ):
        (guarded if node.attr in unset else unguarded).add(node.attr)
    _cache_fills(node, me, unset, guarded, unguarded)


def _unset_attribute(test: ast.expr, me: str) -> str | None:
    """`a` for `not hasattr(me, "a")` and `me.a is None`: a test that the cache is empty."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        call = test.operand
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "hasattr"
            and len(call.args) == 2
            and _is_name(call.args[0], me)
            and isinstance(call.args[1], ast.Constant)
            and isinstance(call.args[1].value, str)
        ):
            return call.args[1].value
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(test.left, ast.Attribute)
        and _is_name(test.left.value, me)
    ):
        return test.left.attr
    return None


def bound_method_transforms(
    scope: ast.AST, resolver: Resolver, labels: frozenset[str]
) -> Iterator[tuple[ast.Call, str]]:
    """Calls in `scope` that apply a transformation labelled in `labels` to a method of
    `self` (`jax.jit(self.step)`, `partial(jax.jit, ...)(self.step)`): each call and the
    method's name. The bound method's object is a constant of the compiled function."""
    for node in walk_nodes(scope):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        target = node.args[0]
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            continue
        found = transform_of(node.func, resolver)
        if found is not None and found[0].label in labels:
            yield node, target.attr


# What top-level code does to the link between names, class definitions and attribute writes,
# at a (unit-relative, 1-based) line: ("class", name, node) defines a class; ("bind", name,
# callee) binds a name, to a call of the class named `callee` or (None) to anything else;
# ("set", name, attribute) assigns an attribute of what the name holds.
InstanceEvent = tuple[str, str, ast.ClassDef | str | None, int]


def instance_events(tree: ast.Module) -> list[InstanceEvent]:
    """The class definitions, name bindings and attribute writes of a unit's top-level code,
    in order. Only a top-level statement binds a name to an instance or assigns one's
    attribute; a name bound in a loop, a branch, a `with` or by an import is bound to
    something unknown (not in a function or class body: those bind their own names)."""
    events: list[InstanceEvent] = []
    for statement in tree.body:
        line = statement.lineno
        if isinstance(statement, ast.ClassDef):
            events.append(("class", statement.name, statement, line))
            continue
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
            targets, value = [statement.target], statement.value
        else:
            events += (("bind", name, None, line) for name in _names_bound(statement))
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                callee = (
                    value.func.id
                    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    else None
                )
                events.append(("bind", target.id, callee, line))
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                events.append(("set", target.value.id, target.attr, line))
            else:
                events += (("bind", name, None, line) for name in _stored_names(target))
    return events


def _names_bound(statement: ast.stmt) -> Iterator[str]:
    """The module-level names a top-level statement other than an assignment binds."""
    for inner in scope_statements([statement]):
        if isinstance(inner, ast.Import | ast.ImportFrom):
            yield from ((alias.asname or alias.name).split(".")[0] for alias in inner.names)
        elif isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield inner.name
        else:
            for child in ast.iter_child_nodes(inner):
                if isinstance(child, ast.expr):
                    yield from _stored_names(child)


def _stored_names(expr: ast.expr) -> Iterator[str]:
    return (
        n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )


def attributes_set_per_class(
    events: Iterable[InstanceEvent],
) -> dict[ast.ClassDef, frozenset[str]]:
    """The attributes top-level code assigns to instances of each class definition, following
    the statements in order: `c = Model(...)` makes `c` an instance of the definition of
    `Model` standing at that point (a notebook may define `Model` again in a later cell), and
    `c.rate = 0.1` assigns `rate` of that definition's instance."""
    standing: dict[str, ast.ClassDef] = {}
    instance_of: dict[str, ast.ClassDef] = {}
    written: dict[ast.ClassDef, set[str]] = {}
    for kind, name, detail, _ in events:
        if kind == "class" and isinstance(detail, ast.ClassDef):
            standing[name] = detail
            instance_of.pop(name, None)
        elif kind == "bind":
            cls = standing.get(detail) if isinstance(detail, str) else None
            if cls is None:
                instance_of.pop(name, None)
            else:
                instance_of[name] = cls
        elif kind == "set" and name in instance_of and isinstance(detail, str):
            written.setdefault(instance_of[name], set()).add(detail)
    return {cls: frozenset(names) for cls, names in written.items()}
