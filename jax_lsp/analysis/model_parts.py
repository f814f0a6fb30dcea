"""Pieces several of the model's fact modules share: the interned cache keys, the kinds
of a scope's names, how an object's class is read from its construction."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from jax_lsp.analysis.document import UnitSource
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.summary import Application
from jax_lsp.analysis.values import Value

_INTERNED: dict[tuple, int] = {}


def intern_key(value: tuple) -> int:
    """A small int standing for a large hashable tuple, so memo keys hash in O(1)."""
    return _INTERNED.setdefault(value, len(_INTERNED))


@dataclass
class ScopeKinds:
    """Kinds of the expressions of one scope, and its final name kinds (the closure of nested
    functions)."""

    kinds: dict[ast.AST, Kind]
    final_env: dict[str, Value]
    values: dict[ast.AST, Value] = field(default_factory=dict)  # richer than their Kind
    # The calls and lambdas of branches no trace of the scope takes (`passed_values`).
    unreached: frozenset[ast.AST] = frozenset()
    # What the interpretation asked of the module functions' return summaries, its own scope
    # and those around it (`ReturnsAsked.read`): what its kinds read of other units.
    returns_read: tuple = ()


class ModuleKinds(dict):
    """Kinds of a unit's top-level statements, with the return summaries their
    interpretation asked (`ReturnsAsked.read`)."""

    __slots__ = ("returns_read",)


class ReturnsAsked:
    """The return summaries of module functions (`ScopeFacts.return_value`, plain or given
    tracers) as an interpretation asks them, each question noted with its answer: what the
    kinds it finds read of the units defining those functions, which rules reading the kinds
    record (`reads.Keyed.carries_returns`) instead of keying on those units' texts."""

    __slots__ = ("_plain", "_traced", "asked")

    def __init__(self, plain: Callable, traced: Callable | None = None) -> None:
        self._plain, self._traced = plain, traced
        self.asked: dict[tuple[str, bool], object] = {}

    def plain(self, path: str):
        value = self._plain(path)
        self.asked[(path, False)] = value
        return value

    def traced(self, path: str):
        value = self._traced(path)  # type: ignore[misc]
        self.asked[(path, True)] = value
        return value

    def read(self) -> tuple:
        return tuple(self.asked.items())


DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def evaluated_text(source: UnitSource) -> str:
    """The text whose names a unit's top-level code reads: for a lone def or class, only its
    decorators and signature (or bases), since the body runs later (or is a scope of its own
    for the interpreter); the whole text otherwise."""
    body = source.tree.body
    if len(body) == 1 and isinstance(body[0], DEFINITIONS):
        header_lines = body[0].body[0].lineno - 1  # decorators and signature, unit-relative
        if header_lines >= body[0].lineno:  # the body starts on a line of its own
            return "\n".join(source.text.split("\n", header_lines)[:header_lines])
    return source.text


def attribute_constructors(node: ast.ClassDef) -> list[tuple[str, str]]:
    """(attribute, class name) of a class body's `attr: Cls` fields and its methods'
    `self.attr = Cls(...)` assignments; (`attr[]`, class name) of a list of instances of one
    class (`self.layers = nnx.List([Block(...) for _ in range(n)])`)."""
    found = []
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if isinstance(statement.annotation, ast.Name):
                found.append((statement.target.id, statement.annotation.id))
        elif isinstance(statement, ast.FunctionDef):
            for inner in walk_nodes(statement):
                if not isinstance(inner, ast.Assign):
                    continue
                if isinstance(inner.value, ast.Call) and isinstance(inner.value.func, ast.Name):
                    held, suffix = inner.value.func.id, ""
                elif (element := element_constructor(inner.value)) is not None:
                    held, suffix = element, ELEMENTS
                else:
                    continue
                for target in inner.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        found.append((target.attr + suffix, held))
    return found


# The suffix of an attribute's name in `attribute_classes` for the class of its elements.
ELEMENTS = "[]"


# Calls that hold the list they are given: `list(...)`, `tuple(...)`, `nnx.List([...])`.
_LIST_HOLDERS = frozenset({"list", "tuple", "List"})


def element_constructor(value: ast.expr) -> str | None:
    """The class every element of a list built here is an instance of: `[A(...), A(...)]`,
    `[A(...) for _ in range(n)]`, either held by `list`, `tuple` or `nnx.List`."""
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
        func = value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name in _LIST_HOLDERS:
            value = value.args[0]
    if isinstance(value, ast.ListComp | ast.GeneratorExp):
        elements = [value.elt]
    elif isinstance(value, ast.List | ast.Tuple) and value.elts:
        elements = value.elts
    else:
        return None
    built = {
        element.func.id
        for element in elements
        if isinstance(element, ast.Call) and isinstance(element.func, ast.Name)
    }
    if len(built) != 1 or not all(isinstance(e, ast.Call) for e in elements):
        return None
    return next(iter(built))


def bound_method_alias(tree: ast.Module, application: Application) -> str | None:
    """`update = jax.jit(opt.update)` at module level: the name bound to the transformed
    method of an object (calls of the name pass the arguments after `self`)."""
    if application.enclosing is not None or application.call is not None:
        return None
    if "." not in application.target.name:
        return None
    return next(
        (
            statement.targets[0].id
            for statement in tree.body
            if type(statement) is ast.Assign
            and statement.value is application.node
            and len(statement.targets) == 1
            and type(statement.targets[0]) is ast.Name
        ),
        None,
    )
