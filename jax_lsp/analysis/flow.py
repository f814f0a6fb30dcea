"""A small abstract interpreter: the Kind of every expression in one scope, in program order.

Straight-line code updates the kinds of names as it goes; branches are merged, loop bodies are
walked twice so loop-carried values settle. Nested functions are analysed separately, seeing
the final kinds of this scope as their closure.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import (
    ARRAY_ANNOTATIONS,
    ARRAY_FUNCTIONS,
    ARRAY_METHODS,
    ARRAY_MODULES,
    CONCRETIZING_METHODS,
    JAXTYPING_DTYPES,
    SAME_KIND_ATTRIBUTES,
    STATIC_ATTRIBUTES,
    STATIC_BUILTINS,
    STATIC_RESULTS,
    Kind,
    merge,
    merge_all,
)
from jax_lsp.analysis.nodes import child_nodes

if TYPE_CHECKING:
    from jax_lsp.analysis.infer import ExternalFacts

Env = dict[str, Kind]
_TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


@dataclass(frozen=True)
class ScopeContext:
    resolver: Resolver
    abstract: bool  # values created here are tracers (inside jit-like tracing)
    outer: Mapping[str, Kind]  # closure and module-level kinds, for names not bound here
    # Kinds for the parameters of a lambda that a transformation traces, by lambda node.
    lambda_params: Callable[[ast.Lambda], Mapping[str, Kind] | None] = lambda node: None
    # Facts about functions imported from other workspace modules, by call spelling.
    external: Mapping[str, ExternalFacts] = field(default_factory=dict)


def annotation_kind(annotation: ast.expr | None, resolver: Resolver) -> Kind | None:
    """ARRAY for `jax.Array`, `jnp.ndarray` and jaxtyping's `Float[Array, "n"]`."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript):
        qualname = resolver.qualname(annotation.value) or ""
        if qualname.startswith("jaxtyping.") and qualname.split(".")[-1] in JAXTYPING_DTYPES:
            inner = annotation.slice
            first = inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
            return annotation_kind(first, resolver)
        return None
    qualname = resolver.qualname(annotation)
    if qualname in ARRAY_ANNOTATIONS:
        return Kind.ARRAY
    if qualname and (qualname.startswith("numpy.") and qualname.endswith("ndarray")):
        return Kind.NUMPY
    return None


def _element_kind(kind: Kind) -> Kind:
    """The kind of one element when iterating or unpacking a value of `kind`."""
    if kind in (Kind.TRACED, Kind.ARRAY, Kind.NUMPY, Kind.STATIC):
        return kind
    return Kind.UNKNOWN


def _merge_envs(first: Env, second: Env) -> Env:
    merged = {}
    for name in first.keys() | second.keys():
        if name in first and name in second:
            merged[name] = merge(first[name], second[name])
        else:
            merged[name] = Kind.UNKNOWN
    return merged


def _terminates(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _TERMINATORS)


class FlowInterpreter:
    """Walks one scope's statements, recording `kinds[node]` for every expression."""

    def __init__(self, context: ScopeContext, kinds: dict[ast.AST, Kind]) -> None:
        self.context = context
        self.resolver = context.resolver
        self.kinds = kinds
        self.env: Env = {}
        self.nested: list[ast.AST] = []  # nested defs/classes, analysed by the caller

    # -- entry points -------------------------------------------------------------------
    def run_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, params: Env) -> Env:
        self.env = dict(params)
        self._visit_arguments(node.args)
        self.run_block(node.body)
        return self.env

    def run_block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    # -- statements -----------------------------------------------------------------------
    def statement(self, node: ast.stmt) -> None:
        handler = _STATEMENT_HANDLERS.get(type(node))
        if handler is not None:
            handler(self, node)
        else:
            for child in child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)
                elif isinstance(child, ast.stmt):
                    self.statement(child)

    def _stmt_Assign(self, node: ast.Assign) -> None:
        kind = self.eval(node.value)
        for target in node.targets:
            self.bind(target, kind, node.value)

    def _stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.eval(node.annotation)
        declared = annotation_kind(node.annotation, self.resolver)
        if node.value is not None:
            kind = self.eval(node.value)
            if declared is Kind.ARRAY and kind is Kind.TRACED:
                declared = Kind.TRACED
            self.bind(node.target, declared or kind, node.value)

    def _stmt_AugAssign(self, node: ast.AugAssign) -> None:
        kind = self._combine([self.eval(node.target), self.eval(node.value)])
        if isinstance(node.target, ast.Name):
            self.env[node.target.id] = kind

    def _stmt_If(self, node: ast.If) -> None:
        self.eval(node.test)
        before = dict(self.env)
        self.run_block(node.body)
        after_body = self.env
        self.env = dict(before)
        self.run_block(node.orelse)
        if _terminates(node.body):
            return
        if _terminates(node.orelse):
            self.env = after_body
            return
        self.env = _merge_envs(after_body, self.env)

    def _loop(self, body: list[ast.stmt], bind_target: Callable[[], None]) -> None:
        before = dict(self.env)
        bind_target()
        self.run_block(body)
        self.env = _merge_envs(before, self.env)
        bind_target()
        self.run_block(body)
        self.env = _merge_envs(before, self.env)

    def _stmt_For(self, node: ast.For | ast.AsyncFor) -> None:
        element = _element_kind(self.eval(node.iter))
        self._loop(node.body, lambda: self.bind(node.target, element, None))
        self.run_block(node.orelse)

    _stmt_AsyncFor = _stmt_For

    def _stmt_While(self, node: ast.While) -> None:
        self._loop(node.body, lambda: self.eval(node.test))
        self.run_block(node.orelse)

    def _stmt_Try(self, node: ast.Try) -> None:
        before = dict(self.env)
        self.run_block(node.body)
        self.run_block(node.orelse)
        after = self.env
        for handler in node.handlers:
            self.env = _merge_envs(before, after)
            if handler.type is not None:
                self.eval(handler.type)
            if handler.name:
                self.env[handler.name] = Kind.UNKNOWN
            self.run_block(handler.body)
            after = _merge_envs(after, self.env)
        self.env = after
        self.run_block(node.finalbody)

    _stmt_TryStar = _stmt_Try

    def _stmt_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, Kind.UNKNOWN, None)
        self.run_block(node.body)

    _stmt_AsyncWith = _stmt_With

    def _stmt_Match(self, node: ast.Match) -> None:
        self.eval(node.subject)
        before = dict(self.env)
        merged: Env | None = None
        for case in node.cases:
            self.env = dict(before)
            for name in _pattern_names(case.pattern):
                self.env[name] = Kind.UNKNOWN
            if case.guard is not None:
                self.eval(case.guard)
            self.run_block(case.body)
            merged = self.env if merged is None else _merge_envs(merged, self.env)
        self.env = _merge_envs(before, merged) if merged is not None else before

    def _stmt_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expr in node.decorator_list:
            self.eval(expr)
        self._visit_defaults(node.args)
        if node.returns is not None:
            self.eval(node.returns)
        self.env[node.name] = Kind.UNKNOWN
        self.nested.append(node)

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.eval(expr)
        self.env[node.name] = Kind.UNKNOWN
        self.nested.append(node)

    def _stmt_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            self.env.pop(name, None)

    _stmt_ImportFrom = _stmt_Import

    def _stmt_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.env.pop(target.id, None)
            else:
                self.eval(target)

    def _stmt_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self.env[name] = Kind.UNKNOWN

    _stmt_Nonlocal = _stmt_Global

    # -- binding --------------------------------------------------------------------------
    def bind(self, target: ast.expr, kind: Kind, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = kind
            self.kinds[target] = kind
        elif isinstance(target, ast.Tuple | ast.List):
            values = value.elts if isinstance(value, ast.Tuple | ast.List) else None
            if values is not None and len(values) == len(target.elts):
                pairs = zip(target.elts, values, strict=True)
                for element, element_value in pairs:
                    self.bind(element, self.kinds.get(element_value, Kind.UNKNOWN), None)
            else:
                for element in target.elts:
                    self.bind(element, _element_kind(kind), None)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, Kind.UNKNOWN, None)
        else:
            self.eval(target)

    def _visit_defaults(self, args: ast.arguments) -> None:
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.eval(default)

    def _visit_arguments(self, args: ast.arguments) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if arg.annotation is not None:
                self.eval(arg.annotation)

    # -- expressions ----------------------------------------------------------------------
    def eval(self, node: ast.expr) -> Kind:
        handler = _EXPRESSION_HANDLERS.get(type(node))
        if handler is not None:
            kind = handler(self, node)
        else:
            for child in child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)
                elif isinstance(child, ast.comprehension):
                    self._comprehension(child)
            kind = Kind.UNKNOWN
        self.kinds[node] = kind
        return kind

    def _combine(self, kinds: list[Kind]) -> Kind:
        """The kind of an arithmetic result of operands of these kinds."""
        if Kind.TRACED in kinds:
            return Kind.TRACED
        if Kind.ARRAY in kinds:
            return Kind.TRACED if self.context.abstract else Kind.ARRAY
        if all(kind is Kind.STATIC for kind in kinds):
            return Kind.STATIC
        if Kind.NUMPY in kinds and all(kind in (Kind.NUMPY, Kind.STATIC) for kind in kinds):
            return Kind.NUMPY
        return Kind.UNKNOWN

    def _array_result(self, argument_kinds: list[Kind]) -> Kind:
        if self.context.abstract or Kind.TRACED in argument_kinds:
            return Kind.TRACED
        return Kind.ARRAY

    def _expr_Constant(self, node: ast.Constant) -> Kind:
        return Kind.STATIC

    def _expr_JoinedStr(self, node: ast.JoinedStr) -> Kind:
        for value in node.values:
            self.eval(value)
        return Kind.STATIC

    def _expr_Name(self, node: ast.Name) -> Kind:
        if isinstance(node.ctx, ast.Store):
            return self.env.get(node.id, Kind.UNKNOWN)
        if node.id in self.env:
            return self.env[node.id]
        return self.context.outer.get(node.id, Kind.UNKNOWN)

    def _expr_BinOp(self, node: ast.BinOp) -> Kind:
        return self._combine([self.eval(node.left), self.eval(node.right)])

    def _expr_UnaryOp(self, node: ast.UnaryOp) -> Kind:
        operand = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return Kind.STATIC
        return self._combine([operand])

    def _expr_BoolOp(self, node: ast.BoolOp) -> Kind:
        return merge_all([self.eval(value) for value in node.values])

    def _expr_Compare(self, node: ast.Compare) -> Kind:
        kinds = [self.eval(node.left), *(self.eval(c) for c in node.comparators)]
        if all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
            return Kind.STATIC
        if any(isinstance(op, ast.In | ast.NotIn | ast.Is | ast.IsNot) for op in node.ops):
            return Kind.UNKNOWN
        return self._combine(kinds)

    def _expr_IfExp(self, node: ast.IfExp) -> Kind:
        self.eval(node.test)
        return merge(self.eval(node.body), self.eval(node.orelse))

    def _expr_NamedExpr(self, node: ast.NamedExpr) -> Kind:
        kind = self.eval(node.value)
        self.bind(node.target, kind, node.value)
        return kind

    def _expr_Tuple(self, node: ast.Tuple | ast.List) -> Kind:
        for element in node.elts:
            self.eval(element)
        return Kind.SEQUENCE if isinstance(node.ctx, ast.Load) else Kind.UNKNOWN

    _expr_List = _expr_Tuple

    def _expr_Slice(self, node: ast.Slice) -> Kind:
        parts = [self.eval(p) for p in (node.lower, node.upper, node.step) if p is not None]
        if Kind.TRACED in parts:
            return Kind.TRACED
        return Kind.STATIC if all(kind is Kind.STATIC for kind in parts) else Kind.UNKNOWN

    def _expr_Attribute(self, node: ast.Attribute) -> Kind:
        value = self.eval(node.value)
        if value.is_jax or value is Kind.NUMPY:
            if node.attr in STATIC_ATTRIBUTES:
                return Kind.STATIC
            if node.attr in SAME_KIND_ATTRIBUTES or node.attr == "at":
                return value
            return Kind.UNKNOWN
        if value is Kind.STATIC:
            return Kind.STATIC
        return Kind.UNKNOWN

    def _expr_Subscript(self, node: ast.Subscript) -> Kind:
        value = self.eval(node.value)
        index = self.eval(node.slice)
        if value.is_jax:
            return Kind.TRACED if self.context.abstract or value is Kind.TRACED else Kind.ARRAY
        if value is Kind.NUMPY:
            return Kind.NUMPY
        if value is Kind.STATIC and index is Kind.STATIC:
            return Kind.STATIC
        return Kind.UNKNOWN

    def _expr_Starred(self, node: ast.Starred) -> Kind:
        return self.eval(node.value)

    def _expr_Lambda(self, node: ast.Lambda) -> Kind:
        self._visit_defaults(node.args)
        saved = self.env
        params = self.context.lambda_params(node)
        self.env = dict(saved)
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            self.env[arg.arg] = (params or {}).get(arg.arg, Kind.UNKNOWN)
        for arg in (node.args.vararg, node.args.kwarg):
            if arg is not None:
                self.env[arg.arg] = Kind.UNKNOWN
        self.eval(node.body)
        self.env = saved
        return Kind.UNKNOWN

    def _comprehension(self, generator: ast.comprehension) -> None:
        element = _element_kind(self.eval(generator.iter))
        self.bind(generator.target, element, None)
        for condition in generator.ifs:
            self.eval(condition)

    def _expr_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> Kind:
        saved = self.env
        self.env = dict(saved)
        for generator in node.generators:
            self._comprehension(generator)
        self.eval(node.elt)
        self.env = saved
        if isinstance(node, ast.ListComp):
            return Kind.SEQUENCE
        return Kind.ITERATOR if isinstance(node, ast.GeneratorExp) else Kind.UNKNOWN

    _expr_SetComp = _expr_ListComp
    _expr_GeneratorExp = _expr_ListComp

    def _expr_DictComp(self, node: ast.DictComp) -> Kind:
        saved = self.env
        self.env = dict(saved)
        for generator in node.generators:
            self._comprehension(generator)
        self.eval(node.key)
        self.eval(node.value)
        self.env = saved
        return Kind.UNKNOWN

    def _expr_Call(self, node: ast.Call) -> Kind:
        func = node.func
        receiver = self.eval(func.value) if isinstance(func, ast.Attribute) else None
        if not isinstance(func, ast.Attribute):
            self.eval(func)
        args = [self.eval(arg) for arg in node.args]
        args += [self.eval(keyword.value) for keyword in node.keywords]
        if self.context.external and self._imported_returns_array(func):
            return self._array_result(args)
        qualname = self.resolver.qualname(func)
        if qualname:
            return self._call_kind(qualname, args)
        if receiver is not None and isinstance(func, ast.Attribute):
            self.kinds[func] = receiver
            return self._method_kind(receiver, func.attr)
        return Kind.UNKNOWN

    def _imported_returns_array(self, func: ast.expr) -> bool:
        """`make_state()` / `ops.make_state()`, imported from a module known to return arrays
        (and not rebound here)."""
        spelling = dotted_name(func)
        facts = self.context.external.get(spelling) if spelling else None
        if facts is None or not facts.returns_array:
            return False
        head = spelling.split(".")[0]
        return head not in self.env and head not in self.context.outer

    def _call_kind(self, qualname: str, args: list[Kind]) -> Kind:
        if qualname in STATIC_BUILTINS or qualname in STATIC_RESULTS:
            return Kind.STATIC
        if qualname in ("builtins.iter", "builtins.zip", "builtins.map", "builtins.enumerate"):
            return Kind.ITERATOR
        if qualname in ("builtins.list", "builtins.tuple", "builtins.sorted"):
            return Kind.SEQUENCE
        if qualname in ("builtins.abs", "builtins.round", "builtins.sum", "builtins.pow"):
            return Kind.TRACED if Kind.TRACED in args else Kind.UNKNOWN
        if qualname in ARRAY_FUNCTIONS or qualname.startswith(ARRAY_MODULES):
            return self._array_result(args)
        if qualname == "numpy" or qualname.startswith("numpy."):
            return Kind.NUMPY
        return Kind.UNKNOWN

    def _method_kind(self, receiver: Kind, method: str) -> Kind:
        if receiver.is_jax or receiver is Kind.NUMPY:
            if method in CONCRETIZING_METHODS:
                return Kind.STATIC
            if method in ARRAY_METHODS:
                if receiver is Kind.NUMPY:
                    return Kind.NUMPY
                return self._array_result([receiver])
        return Kind.UNKNOWN


def _handlers(prefix: str) -> dict[type, Callable]:
    """The interpreter's `_stmt_X` / `_expr_X` methods by node type (a lookup by name per
    node was a tenth of the interpreter's time)."""
    return {
        getattr(ast, name.removeprefix(prefix)): method
        for name, method in vars(FlowInterpreter).items()
        if name.startswith(prefix) and hasattr(ast, name.removeprefix(prefix))
    }


_STATEMENT_HANDLERS = _handlers("_stmt_")
_EXPRESSION_HANDLERS = _handlers("_expr_")


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _pattern_names(pattern: ast.pattern) -> list[str]:
    names = []
    for node in ast.walk(pattern):
        name = getattr(node, "name", None) or getattr(node, "rest", None)
        if isinstance(name, str):
            names.append(name)
    return names
