"""The module model: every fact the rules read, rebuilt from per-unit summaries.

Per unit, the expensive parts (summary, kinds of each scope) are memoised on the unit's
parsed source, keyed by the module facts they depend on. An edit inside one function
re-analyses that function; the module facts are recombined from cached pieces.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from jax_lsp.analysis.attributes import assigned_attributes
from jax_lsp.analysis.document import Document, Unit, UnitSource
from jax_lsp.analysis.dtypes import FloatOracle, IntArrayOracle, assigned_values
from jax_lsp.analysis.flow import FlowInterpreter, ScopeContext, annotation_kind
from jax_lsp.analysis.imports import Resolver, import_bindings, local_imports
from jax_lsp.analysis.infer import ExternalFacts, facts_key
from jax_lsp.analysis.jitted import StaticSignature, unit_signatures
from jax_lsp.analysis.keys import (
    KeyFlow,
    Reuse,
    classify_call,
    consumed_params,
    consumer_key,
    helper_key,
    may_draw,
)
from jax_lsp.analysis.kinds import Kind, merge
from jax_lsp.analysis.module_state import ModuleState
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.paths import is_test_path
from jax_lsp.analysis.summary import (
    Application,
    ClassRecord,
    FunctionNode,
    FunctionRecord,
    FunctionRef,
    UnitSummary,
    summarize,
)
from jax_lsp.analysis.text import identifiers
from jax_lsp.analysis.traced import TraceInfo, all_params, call_site_params, trace_info_for
from jax_lsp.analysis.x64 import (
    X64Facts,
    combine_x64_facts,
    may_mention_x64,
    project_enables_x64,
    statement_facts,
)

_MAX_FIXPOINT_ROUNDS = 20
# Substrings of every spelling of a 64-bit dtype ("float64", "complex128", "f8", "double")
# and of the x64 flag.
_X64_MARKERS = re.compile(r"64|128|double|8'|8\"|c16")
_INTERNED: dict[tuple, int] = {}


def intern_key(value: tuple) -> int:
    """A small int standing for a large hashable tuple, so memo keys hash in O(1)."""
    return _INTERNED.setdefault(value, len(_INTERNED))


@dataclass
class ScopeKinds:
    """Kinds of the expressions of one scope, and its final name kinds (the closure of nested
    functions)."""

    kinds: dict[ast.AST, Kind]
    final_env: dict[str, Kind]


@dataclass
class ModuleModel:
    document: Document
    # The project enables 64-bit mode (config `enable-x64`, JAX_ENABLE_X64 in the environment).
    x64_setting: bool = False
    # Facts about functions imported from other workspace modules, by call spelling
    # (`make_state`, `ops.step`): see `jax_lsp.analysis.infer`. None: no such facts.
    external: Mapping[str, ExternalFacts] | None = None
    resolver: Resolver = field(init=False)
    alias_key: int = field(init=False)
    summaries: list[UnitSummary] = field(init=False)
    functions: dict[str, FunctionRecord] = field(init=False)
    records: dict[FunctionNode, FunctionRecord] = field(init=False)
    classes: dict[str, ClassRecord] = field(init=False)
    global_kinds: dict[str, Kind] = field(init=False)
    globals_key: int = field(init=False)
    trace: dict[ast.AST, TraceInfo] = field(init=False)
    # Module-level names rebound, written through `global`, or mutated in place.
    mutable_globals: frozenset[str] = field(init=False)
    import_line: int = field(init=False)  # where an added import goes (0-based, absolute)
    # Module-level names bound once, by a top-level `name = value`, and never rebound or
    # mutated: their value expression (in document order), and a cache key for them.
    stable_globals: dict[str, ast.expr] = field(init=False)
    stable_globals_key: int = field(init=False)
    # Classes of the module passed to some module-level call (maybe a PyTree registration).
    classes_passed_to_calls: frozenset[str] = field(init=False)
    _source_of: dict[ast.AST, UnitSource] = field(init=False, repr=False)
    _x64: X64Facts | None = field(init=False, default=None, repr=False)
    _key_helpers: dict[str, frozenset[str]] | None = field(init=False, default=None, repr=False)
    _float_globals: frozenset[str] | None = field(init=False, default=None, repr=False)
    _signatures: dict[str, StaticSignature] | None = field(init=False, default=None, repr=False)
    _callee_key: tuple | None = field(init=False, default=None, repr=False)
    _module_reuses: dict[int, tuple[Reuse, ...]] | None = field(
        init=False, default=None, repr=False
    )
    _contexts: dict[ast.AST, TraceInfo | None] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        units = [unit for unit in self.document.units if unit.tree is not None]
        imports = tuple([_unit_import_bindings(unit.source) for unit in units])
        bindings, self.alias_key = self.document.lineage.reuse(
            "aliases", (imports, self.external), lambda: _aliases(imports, self.external)
        )
        # A resolver of its own: it memoises answers by node, which must go with this model.
        self.resolver = Resolver(bindings)
        self.summaries = [self._summary(unit.source) for unit in units]
        self.functions, self.records, self.classes, self._source_of = {}, {}, {}, {}
        for unit, summary in zip(units, self.summaries, strict=True):
            for record in summary.functions:
                self.functions[record.path] = record
                self.records[record.node] = record
                self._source_of[record.node] = unit.source
            for record in summary.classes:
                self.classes[record.name] = record
        self.import_line = _import_insertion_line(self.document)
        self._contexts = {}  # memo of context_of; cleared whenever the trace changes
        self.classes_passed_to_calls = frozenset(
            name
            for summary in self.summaries
            for name in summary.module_call_arguments
            if name in self.classes
        )
        self._compute_globals(units)
        self._compute_trace(units)
        # What makes a class a PyTree may sit in another statement (JAX401/JAX402).
        self._class_facts_key = intern_key(
            (
                tuple(sorted(self.classes_passed_to_calls)),
                tuple(sorted((c.name, c.decorators, c.bases) for c in self.classes.values())),
            )
        )

    # -- summaries and globals ------------------------------------------------------------
    def _summary(self, source: UnitSource) -> UnitSummary:
        key = ("summary", self.alias_key)
        if key not in source.memo:
            source.memo[key] = summarize(source.tree, self.resolver)
        return source.memo[key]

    def _compute_globals(self, units: list[Unit]) -> None:
        counts: dict[str, int] = {}
        global_writes: set[str] = set()
        mutated: set[str] = set()
        for summary in self.summaries:
            for name in summary.top_level_bindings:
                counts[name] = counts.get(name, 0) + 1
            global_writes |= summary.global_writes
            mutated |= summary.mutated_names
        # Each unit's bindings depend on the kinds of the names bound before it: a fold.
        _, kinds = self.document.lineage.fold(
            "global-kinds",
            self.alias_key,
            [unit.source for unit in units],
            self._top_level_bindings,
            _merge_bindings,
        )
        self.global_kinds = kinds
        self.globals_key = self.document.lineage.reuse(
            "globals-key",
            kinds,
            lambda: intern_key(tuple(sorted((n, k.value) for n, k in kinds.items()))),
        )
        rebound = {name for name, count in counts.items() if count > 1}
        self.mutable_globals = frozenset((rebound | global_writes | mutated) & counts.keys())
        self._compute_stable_globals(units, counts)

    def _compute_stable_globals(self, units: list[Unit], counts: dict[str, int]) -> None:
        values: dict[str, ast.expr] = {}
        key = []
        for unit in units:
            for name, value in _single_assignments(unit.source):
                if counts.get(name) != 1 or name in self.mutable_globals:
                    continue
                values[name] = value
                key.append((name, hash(unit.source.text)))
        self.stable_globals = values
        self.stable_globals_key = intern_key(tuple(key))

    def _top_level_bindings(self, source: UnitSource, known: dict[str, Kind]) -> dict[str, Kind]:
        loads = source.memo.get("loads")
        if loads is None:
            # Every identifier-like word of the text: a superset of the names the unit reads,
            # found far faster than by walking its tree (extra words only narrow the memo key).
            loads = source.memo["loads"] = identifiers(_evaluated_text(source))
        used = frozenset((name, known[name]) for name in loads & known.keys())
        key = ("bindings", self.alias_key, used)
        if key not in source.memo:
            interpreter = FlowInterpreter(
                ScopeContext(
                    self.resolver,
                    False,
                    {n: known[n] for n in loads if n in known},
                    external=self.external or {},
                ),
                {},
            )
            interpreter.run_block(source.tree.body)
            source.memo[key] = {
                name: kind for name, kind in interpreter.env.items() if not name.startswith("<")
            }
        return source.memo[key]

    @cached_property
    def module_state(self) -> ModuleState:
        """Which module-level names are containers, and which change after a trace."""
        return ModuleState(self)

    @cached_property
    def _module_state_key(self) -> int:
        return intern_key(self.module_state.key)

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
                    self._contexts.clear()
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
                    self._contexts.clear()
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
        if node not in self._contexts:
            self._contexts[node] = self._context_of(node)
        return self._contexts[node]

    def _context_of(self, node: FunctionNode) -> TraceInfo | None:
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
            self._lambda_traces(source),
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
        context = ScopeContext(
            resolver, bool(info and info.abstract), outer, self._lambda_params, self.external or {}
        )
        kinds: dict[ast.AST, Kind] = {}
        interpreter = FlowInterpreter(context, kinds)
        final = interpreter.run_function(node, params)
        result = ScopeKinds(kinds, final)
        source.memo[key] = result
        return result

    def _lambda_traces(self, source: UnitSource) -> tuple[TraceInfo | None, ...]:
        """How each lambda of the unit is traced: part of the keys of its cached kinds."""
        trace = self.trace
        return tuple([trace.get(node) for node in self._summary(source).lambdas])

    def module_kinds(self, source: UnitSource) -> dict[ast.AST, Kind]:
        """Kinds of a unit's top-level statements (outside any function)."""
        key = (
            "module-scope",
            self.alias_key,
            self.globals_key,
            self._lambda_traces(source),
        )
        if key not in source.memo:
            kinds: dict[ast.AST, Kind] = {}
            context = ScopeContext(
                self.resolver, False, self.global_kinds, self._lambda_params, self.external or {}
            )
            interpreter = FlowInterpreter(context, kinds)
            interpreter.run_block(source.tree.body)
            source.memo[key] = kinds
        return source.memo[key]

    @property
    def x64(self) -> X64Facts:
        """Where 64-bit mode is enabled, the imports end, the first array is made (lazy)."""
        if self._x64 is None:
            statements = []
            for unit in self.document.units:
                if unit.tree is None:
                    continue
                key = ("x64", self.alias_key)
                if key not in unit.source.memo:
                    mentions = may_mention_x64(unit.source.text, self.resolver)
                    unit.source.memo[key] = [
                        (s.lineno - 1, statement_facts(s, self.resolver, mentions))
                        for s in unit.tree.body
                    ]
                statements += [(unit.start_line + at, f) for at, f in unit.source.memo[key]]
            # Test suites commonly enable x64 in a conftest or through flags we cannot see;
            # another module of the package or the test configuration may switch it on.
            path = self.document.path
            enabled = self.x64_setting or is_test_path(path) or project_enables_x64(path)
            self._x64 = combine_x64_facts(statements, enabled)
        return self._x64

    @property
    def key_helpers(self) -> dict[str, frozenset[str]]:
        """Module functions -> the parameters whose key they consume (sample with or split),
        themselves or through other such functions of the module."""
        if self._key_helpers is None:
            helpers: dict[str, frozenset[str]] = {}
            for unit in self.document.units:
                if unit.tree is None:
                    continue
                key = ("key-helpers", self.alias_key)
                if key not in unit.source.memo:
                    unit.source.memo[key] = self._unit_key_helpers(unit.source)
                helpers.update(unit.source.memo[key])
            self._key_helpers = self._helpers_through_calls(helpers)
        return self._key_helpers

    def _unit_key_helpers(self, source: UnitSource) -> dict[str, frozenset[str]]:
        if not may_draw(source.text, self.resolver):
            return {}
        lines = source.text.split("\n")
        helpers = {}
        for record in self._summary(source).functions:
            node = record.node
            if isinstance(node, ast.Lambda) or not all_params(node):
                continue
            # Only a function whose own text can name a sampler passes a key to one.
            if not may_draw("\n".join(lines[node.lineno - 1 : node.end_lineno]), self.resolver):
                continue
            if drawn := consumed_params(node, lambda call: consumer_key(call, self.resolver)):
                helpers[record.path] = drawn
        return helpers

    def _helpers_through_calls(
        self, helpers: dict[str, frozenset[str]]
    ) -> dict[str, frozenset[str]]:
        """Add the functions that hand a parameter to a key helper (a few rounds: helpers of
        helpers; deeper chains are rare and each round walks the candidates again)."""
        if not helpers:
            return helpers
        helpers = dict(helpers)
        functions = self.functions

        def classify(call: ast.Call):
            return consumer_key(call, self.resolver) or helper_key(call, functions, helpers)

        for _ in range(3):
            added = False
            for name, record in functions.items():
                node = record.node
                if "." in name or isinstance(node, ast.Lambda) or not all_params(node):
                    continue
                # Only a function whose text names a helper can call one.
                source = self._source_of[node]
                if "lines" not in source.memo:
                    source.memo["lines"] = source.text.split("\n")
                text = "\n".join(source.memo["lines"][node.lineno - 1 : node.end_lineno])
                if not any(helper in text for helper in helpers):
                    continue
                drawn = consumed_params(node, classify) | helpers.get(name, frozenset())
                if drawn != helpers.get(name, frozenset()):
                    helpers[name] = drawn
                    added = True
            if not added:
                break
        return helpers

    @cached_property
    def assigned_attributes(self) -> frozenset[str]:
        """Attribute names the module assigns outside constructors (`obj.attr = ...`)."""
        names: set[str] = set()
        for unit in self.document.units:
            if unit.tree is None:
                continue
            if "assigned-attributes" not in unit.source.memo:
                unit.source.memo["assigned-attributes"] = assigned_attributes(unit.tree)
            names |= unit.source.memo["assigned-attributes"]
        return frozenset(names)

    @cached_property
    def int_array_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which is an integer JAX array."""
        oracle = IntArrayOracle(self.resolver, self._top_level_values().get)
        return frozenset(n for n in self._top_level_values() if oracle.is_int_array(ast.Name(n)))

    def _top_level_values(self) -> dict[str, list[ast.expr]]:
        assigned: dict[str, list[ast.expr]] = {}
        for unit in self.document.units:
            if unit.tree is None:
                continue
            if "assigned" not in unit.source.memo:
                unit.source.memo["assigned"] = _top_level_assignments(unit.tree)
            for name, values in unit.source.memo["assigned"].items():
                assigned.setdefault(name, []).extend(values)
        return assigned

    @property
    def float_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which is a known float value."""
        if self._float_globals is None:
            assigned = self._top_level_values()

            def bindings(name: str) -> list[ast.expr] | None:
                return assigned.get(name)

            def compute() -> frozenset[str]:
                oracle = FloatOracle(self.resolver, bindings)
                return frozenset(
                    name
                    for name in assigned
                    if name not in self.mutable_globals and oracle.is_float(ast.Name(name))
                )

            # Equal assignments (the same nodes: unchanged units) give the same answer.
            inputs = (self.alias_key, self.mutable_globals, assigned)
            self._float_globals = self.document.lineage.reuse("float-globals", inputs, compute)
        return self._float_globals

    @property
    def static_signatures(self) -> dict[str, StaticSignature]:
        """Module-level names bound to jitted callables with static arguments."""
        if self._signatures is None:
            signatures: dict[str, StaticSignature] = {}

            def resolve(name: str) -> FunctionNode | None:
                record = self.functions.get(name)
                return record.node if record is not None else None

            for unit in self.document.units:
                if unit.tree is None:
                    continue
                key = ("static-signatures", self.alias_key)
                if key not in unit.source.memo:
                    unit.source.memo[key] = unit_signatures(unit.tree, self.resolver, resolve)
                signatures.update(unit.source.memo[key])
            for name, facts in (self.external or {}).items():
                if facts.static is not None and "." not in name:
                    signatures.setdefault(name, facts.static)  # imported jitted functions
            rebound = self.mutable_globals
            self._signatures = {k: v for k, v in signatures.items() if k not in rebound}
        return self._signatures

    @property
    def module_key_reuses(self) -> dict[int, tuple[Reuse, ...]]:
        """PRNG key reuses in module-level code (a script's top-level statements), by the
        first line of the unit holding the second use."""
        if self._module_reuses is None:
            reuses: dict[int, tuple[Reuse, ...]] = {}
            if self.resolver.binds_module("jax"):
                flow = KeyFlow(lambda call: classify_call(call, self.resolver, self))
                state: dict = {}
                helpers = tuple(self.key_helpers)
                for unit in self.document.units:
                    text = unit.source.text
                    # A unit that neither samples nor names a tracked key or a key helper
                    # cannot change what matters of the state: skip it.
                    if unit.tree is None or not (
                        may_draw(text, self.resolver)
                        or (state and any(name in text for name in state))
                        or (helpers and any(name in text for name in helpers))
                    ):
                        continue
                    found = flow.run(unit.tree.body, state, unit.start_line)
                    if found:
                        reuses[unit.start_line] = tuple(found)
            self._module_reuses = reuses
        return self._module_reuses

    def _module_reuse_key(self, unit: Unit) -> tuple:
        reuses = self.module_key_reuses.get(unit.start_line)
        if not reuses:
            return ()
        return tuple(
            (
                r.call.lineno,
                r.call.col_offset,
                r.key.id,
                ast.unparse(r.first.func),
                r.across_iterations,
                # the first use is shown (and fixed) where it sits, perhaps in another unit
                r.first_unit + r.first.lineno - unit.start_line,
                r.first.col_offset,
            )
            for r in reuses
        )

    def _callee_facts_key(self) -> tuple:
        """Facts about module functions that rules read at call sites in any unit."""
        if self._callee_key is None:
            self._callee_key = (
                tuple(sorted(self.key_helpers.items())),
                tuple(sorted(self.static_signatures.items(), key=lambda item: item[0])),
            )
        return self._callee_key

    def unit_key(self, unit: Unit) -> tuple:
        """Everything a rule may read about this unit beyond its text."""
        summary = self._summary(unit.source)
        # 64-bit rules read module facts at absolute lines: only units that may name a 64-bit
        # dtype or the flag pay for it.
        markers = unit.source.memo.get("key-markers")
        if markers is None:
            text = unit.source.text
            markers = unit.source.memo["key-markers"] = (
                bool(_X64_MARKERS.search(text)),
                "astype" in text or "dtype" in text or ".at[" in text,
                "static_arg" in text,  # a static `self` (JAX402) reads attribute writes
            )
        x64 = (self.x64, unit.start_line) if markers[0] else ()
        casts = (self.float_globals, self.int_array_globals) if markers[1] else ()
        attributes = self.assigned_attributes if markers[2] else ()
        context_of = self.context_of
        return (
            x64,
            casts,
            attributes,
            self._module_facts_key,
            self._module_reuse_key(unit),
            tuple([context_of(record.node) for record in summary.functions]),
            self._lambda_traces(unit.source),
        )

    @cached_property
    def _module_facts_key(self) -> int:
        """The facts of unit_key that are the same for every unit, interned once per model."""
        return intern_key(
            (
                self._callee_facts_key(),
                self.alias_key,
                self.globals_key,
                self.mutable_globals,
                self.import_line,
                self._class_facts_key,
                self.stable_globals_key,
                self._module_state_key,
            )
        )

    def functions_in(self, source: UnitSource) -> Iterator[FunctionRecord]:
        yield from self._summary(source).functions


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _evaluated_text(source: UnitSource) -> str:
    """The text whose names a unit's top-level code reads: for a lone def or class, only its
    decorators and signature (or bases), since the body runs later (or is a scope of its own
    for the interpreter); the whole text otherwise."""
    body = source.tree.body
    if len(body) == 1 and isinstance(body[0], _DEFINITIONS):
        header_lines = body[0].body[0].lineno - 1  # decorators and signature, unit-relative
        if header_lines >= body[0].lineno:  # the body starts on a line of its own
            return "\n".join(source.text.split("\n", header_lines)[:header_lines])
    return source.text


def _single_assignments(source: UnitSource) -> list[tuple[str, ast.expr]]:
    """(name, value) of a unit's top-level `name = value` and `name: T = value` statements."""
    found = source.memo.get("single-assignments")
    if found is None:
        found = source.memo["single-assignments"] = []
        for statement in source.tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value = statement.targets[0], statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                target, value = statement.target, statement.value
            else:
                continue
            if isinstance(target, ast.Name):
                found.append((target.id, value))
    return found


def _unit_import_bindings(source: UnitSource) -> dict[str, str]:
    found = source.memo.get("imports")
    if found is None:
        found = source.memo["imports"] = import_bindings(source.tree.body)
    return found


def _aliases(
    imports: tuple[dict[str, str], ...], external: Mapping[str, ExternalFacts] | None
) -> tuple[dict[str, str], int]:
    """The module's import bindings, and their cache key (with the imported names' facts)."""
    bindings: dict[str, str] = {}
    for unit_bindings in imports:
        bindings.update(unit_bindings)
    # Imported names' facts belong with the import aliases: every cache keyed by what names
    # stand for is keyed by both.
    return bindings, intern_key((tuple(sorted(bindings.items())), facts_key(external)))


def _merge_bindings(kinds: dict[str, Kind], bound: dict[str, Kind]) -> None:
    for name, kind in bound.items():
        kinds[name] = merge(kinds[name], kind) if name in kinds else kind


def _top_level_assignments(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """Values assigned to each name by a unit's top-level assignments."""
    names = {
        n.id
        for statement in tree.body
        if isinstance(statement, ast.Assign | ast.AnnAssign)
        for n in walk_nodes(statement)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return {name: assigned_values(name, tree) or [] for name in names}


def _is_preamble(statement: ast.stmt) -> bool:
    """Docstrings and imports: what new imports go after."""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return True
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _import_insertion_line(document: Document) -> int:
    """The line after the module's leading docstring and imports, where a new import goes."""
    line = 0
    for unit in document.units:
        if unit.tree is None or not unit.tree.body:
            continue
        if not all(_is_preamble(statement) for statement in unit.tree.body):
            break
        line = unit.start_line + unit.tree.body[-1].end_lineno
    return line
