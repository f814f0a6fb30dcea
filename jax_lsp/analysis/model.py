"""The module model: every fact the rules read, rebuilt from per-unit summaries.

Per unit, the expensive parts (summary, kinds of each scope) are memoised on the unit's
parsed source, keyed by the module facts they depend on. An edit inside one function
re-analyses that function; the module facts are recombined from cached pieces.
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

from jax_lsp.analysis.document import Document, Unit, UnitSource
from jax_lsp.analysis.flow import FlowInterpreter, ScopeContext, annotation_kind
from jax_lsp.analysis.imports import Resolver, import_bindings
from jax_lsp.analysis.kinds import Kind, merge
from jax_lsp.analysis.summary import (
    Application,
    ClassRecord,
    FunctionNode,
    FunctionRecord,
    FunctionRef,
    UnitSummary,
    summarize,
)
from jax_lsp.analysis.traced import TraceInfo, all_params, call_site_params, trace_info_for

_MAX_FIXPOINT_ROUNDS = 20
_WORD = re.compile(r"[^\W\d]\w*")
_LOCAL_IMPORTS: weakref.WeakKeyDictionary[ast.AST, dict[str, str]] = weakref.WeakKeyDictionary()


@dataclass
class ScopeKinds:
    """Kinds of the expressions of one scope, and its final name kinds (the closure of nested
    functions)."""

    kinds: dict[ast.AST, Kind]
    final_env: dict[str, Kind]


@dataclass
class ModuleModel:
    document: Document
    resolver: Resolver = field(init=False)
    alias_key: tuple = field(init=False)
    summaries: list[UnitSummary] = field(init=False)
    functions: dict[str, FunctionRecord] = field(init=False)
    records: dict[FunctionNode, FunctionRecord] = field(init=False)
    classes: dict[str, ClassRecord] = field(init=False)
    global_kinds: dict[str, Kind] = field(init=False)
    globals_key: tuple = field(init=False)
    trace: dict[ast.AST, TraceInfo] = field(init=False)
    # Module-level names rebound, written through `global`, or mutated in place.
    mutable_globals: frozenset[str] = field(init=False)
    _source_of: dict[ast.AST, UnitSource] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        units = [unit for unit in self.document.units if unit.tree is not None]
        bindings: dict[str, str] = {}
        for unit in units:
            bindings.update(import_bindings(unit.tree.body))
        self.resolver = Resolver(bindings)
        self.alias_key = tuple(sorted(bindings.items()))
        self.summaries = [self._summary(unit.source) for unit in units]
        self.functions, self.records, self.classes, self._source_of = {}, {}, {}, {}
        for unit, summary in zip(units, self.summaries, strict=True):
            for record in summary.functions:
                self.functions[record.path] = record
                self.records[record.node] = record
                self._source_of[record.node] = unit.source
            for record in summary.classes:
                self.classes[record.name] = record
        self._compute_globals(units)
        self._compute_trace(units)

    # -- summaries and globals ------------------------------------------------------------
    def _summary(self, source: UnitSource) -> UnitSummary:
        key = ("summary", self.alias_key)
        if key not in source.memo:
            source.memo[key] = summarize(source.tree, self.resolver)
        return source.memo[key]

    def _compute_globals(self, units: list[Unit]) -> None:
        kinds: dict[str, Kind] = {}
        counts: dict[str, int] = {}
        global_writes: set[str] = set()
        mutated: set[str] = set()
        for unit, summary in zip(units, self.summaries, strict=True):
            for name, kind in self._top_level_bindings(unit.source, kinds).items():
                kinds[name] = merge(kinds[name], kind) if name in kinds else kind
            for name in summary.top_level_bindings:
                counts[name] = counts.get(name, 0) + 1
            global_writes |= summary.global_writes
            mutated |= summary.mutated_names
        self.global_kinds = kinds
        self.globals_key = tuple(sorted((name, kind.value) for name, kind in kinds.items()))
        rebound = {name for name, count in counts.items() if count > 1}
        self.mutable_globals = frozenset((rebound | global_writes | mutated) & counts.keys())

    def _top_level_bindings(self, source: UnitSource, known: dict[str, Kind]) -> dict[str, Kind]:
        loads = source.memo.get("loads")
        if loads is None:
            # Every identifier-like word of the text: a superset of the names the unit reads,
            # found far faster than by walking its tree (extra words only narrow the memo key).
            loads = source.memo["loads"] = frozenset(_WORD.findall(source.text))
        used = tuple(sorted((name, known[name].value) for name in loads if name in known))
        key = ("bindings", self.alias_key, used)
        if key not in source.memo:
            interpreter = FlowInterpreter(
                ScopeContext(self.resolver, False, {n: known[n] for n in loads if n in known}),
                {},
            )
            interpreter.run_block(source.tree.body)
            source.memo[key] = {
                name: kind for name, kind in interpreter.env.items() if not name.startswith("<")
            }
        return source.memo[key]

    # -- traced functions -----------------------------------------------------------------
    def resolve(self, ref: FunctionRef) -> FunctionNode | None:
        if ref.node is not None:
            return ref.node
        for scope in reversed(ref.scopes):
            record = self.functions.get(f"{scope}.{ref.name}")
            if record is not None:
                return record.node
        record = self.functions.get(ref.name)
        return record.node if record is not None else None

    def _is_array_annotation(self, annotation: ast.expr | None) -> bool:
        return annotation_kind(annotation, self.resolver) is Kind.ARRAY

    def _compute_trace(self, units: list[Unit]) -> None:
        trace: dict[ast.AST, TraceInfo] = {}
        applications: list[Application] = [a for s in self.summaries for a in s.applications]
        # Applications inside a function only trace when that function runs; inside traced
        # code they inherit its abstractness (jax.grad inside jax.jit traces abstractly).
        for application in applications:
            target = self.resolve(application.target)
            if target is None:
                continue
            info = trace_info_for(application, target, self._is_array_annotation)
            trace[target] = trace[target].merged(info) if target in trace else info
            if isinstance(target, ast.Lambda):
                self._source_of.setdefault(target, self._source_of.get(application.enclosing))
        self.trace = trace
        calls_by_caller: dict[ast.AST | None, list] = {}
        for summary in self.summaries:
            for call in summary.calls:
                calls_by_caller.setdefault(call.caller, []).append(call)
        apps_by_enclosing: dict[ast.AST | None, list[Application]] = {}
        for application in applications:
            apps_by_enclosing.setdefault(application.enclosing, []).append(application)

        pending = list(trace)
        rounds = 0
        while pending and rounds < _MAX_FIXPOINT_ROUNDS * max(len(trace), 1):
            rounds += 1
            node = pending.pop()
            info = self.trace[node]
            if isinstance(node, ast.Lambda):
                continue  # lambda bodies are analysed with their enclosing function
            kinds = self.scope_kinds(node).kinds
            for application in apps_by_enclosing.get(node, []):
                target = self.resolve(application.target)
                if target is not None and info.abstract and not self.trace[target].abstract:
                    old = self.trace[target]
                    self.trace[target] = TraceInfo(
                        old.via, True, old.traced_params, old.static_params, old.direct
                    )
                    pending.append(target)
            for call in calls_by_caller.get(node, []):
                callee = self.resolve(call.callee)
                if callee is None or callee is node or isinstance(callee, ast.Lambda):
                    continue
                record = self.records.get(callee)
                method = bool(record and record.class_name and "." in call.callee.name)
                traced = call_site_params(callee, call.node, kinds, method)
                new = TraceInfo(
                    f"called from {self.records[node].path}",
                    info.abstract,
                    traced,
                    frozenset(),
                    False,
                )
                old = self.trace.get(callee)
                combined = old.merged(new) if old else new
                if combined != old:
                    self.trace[callee] = combined
                    pending.append(callee)

    # -- kinds ----------------------------------------------------------------------------
    def enclosing_chain(self, node: ast.AST) -> list[FunctionNode]:
        chain = []
        record = self.records.get(node)
        while record is not None and record.parent is not None:
            chain.append(record.parent)
            record = self.records.get(record.parent)
        return list(reversed(chain))

    def context_of(self, node: FunctionNode) -> TraceInfo | None:
        """The trace of a function, or of the nearest traced function enclosing it."""
        if node in self.trace:
            return self.trace[node]
        for outer in reversed(self.enclosing_chain(node)):
            if outer in self.trace:
                info = self.trace[outer]
                return TraceInfo(info.via, info.abstract, frozenset(), frozenset(), False)
        return None

    def _lambda_params(self, node: ast.Lambda) -> dict[str, Kind] | None:
        info = self.trace.get(node)
        if info is None:
            return None
        return {name: Kind.TRACED for name in info.traced_params}

    def scope_kinds(self, node: FunctionNode) -> ScopeKinds:
        chain = [*self.enclosing_chain(node), node]
        source = self._source_of[node]
        key = (
            "scope",
            self.alias_key,
            self.globals_key,
            tuple((fn, self.context_of(fn)) for fn in chain),
            tuple(self.trace.get(n) for n in self._lambdas_in(source)),
        )
        if key in source.memo:
            return source.memo[key]
        outer = dict(self.global_kinds)
        if len(chain) > 1:
            outer.update(self.scope_kinds(chain[-2]).final_env)
        info = self.context_of(node)
        params: dict[str, Kind] = {}
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            declared = annotation_kind(arg.annotation, self.resolver)
            params[arg.arg] = declared or Kind.UNKNOWN
        for name in all_params(node):
            params.setdefault(name, Kind.UNKNOWN)
            if info and name in info.traced_params:
                params[name] = Kind.TRACED
            elif info and name in info.static_params:
                params[name] = Kind.STATIC
        resolver = self.resolver.child(local_imports(node), frozenset(params))
        context = ScopeContext(resolver, bool(info and info.abstract), outer, self._lambda_params)
        kinds: dict[ast.AST, Kind] = {}
        interpreter = FlowInterpreter(context, kinds)
        final = interpreter.run_function(node, params)
        result = ScopeKinds(kinds, final)
        source.memo[key] = result
        return result

    def _lambdas_in(self, source: UnitSource) -> tuple[ast.Lambda, ...]:
        return tuple(self._summary(source).lambdas)

    def module_kinds(self, source: UnitSource) -> dict[ast.AST, Kind]:
        """Kinds of a unit's top-level statements (outside any function)."""
        key = (
            "module-scope",
            self.alias_key,
            self.globals_key,
            tuple(self.trace.get(n) for n in self._lambdas_in(source)),
        )
        if key not in source.memo:
            kinds: dict[ast.AST, Kind] = {}
            context = ScopeContext(self.resolver, False, self.global_kinds, self._lambda_params)
            interpreter = FlowInterpreter(context, kinds)
            interpreter.run_block(source.tree.body)
            source.memo[key] = kinds
        return source.memo[key]

    def unit_key(self, unit: Unit) -> tuple:
        """Everything a rule may read about this unit beyond its text."""
        summary = self._summary(unit.source)
        return (
            self.alias_key,
            self.globals_key,
            self.mutable_globals,
            tuple(self.context_of(record.node) for record in summary.functions),
            tuple(self.trace.get(n) for n in self._lambdas_in(unit.source)),
            tuple(sorted(self.classes)),
        )

    def functions_in(self, source: UnitSource) -> Iterator[FunctionRecord]:
        yield from self._summary(source).functions


def local_imports(node: FunctionNode) -> dict[str, str]:
    """Names bound by imports anywhere inside a function (memoised: asked per walk)."""
    if isinstance(node, ast.Lambda):
        return {}
    bindings = _LOCAL_IMPORTS.get(node)
    if bindings is None:
        statements = [
            n for n in _nested_statements(node) if isinstance(n, ast.Import | ast.ImportFrom)
        ]
        statements.sort(key=lambda n: (n.lineno, n.col_offset))  # source order: later ones win
        bindings = _LOCAL_IMPORTS[node] = import_bindings(statements) if statements else {}
    return bindings


def _nested_statements(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.stmt]:
    """Every statement under `node`, without visiting expressions (imports are statements)."""
    stack: list[ast.stmt] = list(node.body)
    while stack:
        statement = stack.pop()
        yield statement
        for name in ("body", "orelse", "finalbody"):
            stack.extend(getattr(statement, name, ()))
        for clause in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
            stack.extend(clause.body)
