"""The rule runner: `analyze` runs the enabled rules over a document, one walk per unit,
findings cached per unit. The walk visits every node once and hands it to the rules registered
for its type. A rule that raises is reported once and skipped for that unit; the other rules
still report. The faces reach it through the engine (`jax_lsp.engine`), which chooses the rules
and facts for a file.
"""

from __future__ import annotations

import ast
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from jax_lsp.analysis.crossing import IncomingTrace
from jax_lsp.analysis.document import Document, SyntaxProblem, Unit, first_line
from jax_lsp.analysis.external import CallSite, ExternalFacts
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel, local_imports
from jax_lsp.analysis.nodes import (
    CHILD_GETTERS,
    LEAF_NODE_TYPES,
    MARKED_CHILD_GETTERS,
    MARKER_NODE_TYPES,
    child_nodes,
)
from jax_lsp.analysis.reads import MethodReads, UnitReads
from jax_lsp.analysis.recorded import ReadLog, Recheck
from jax_lsp.analysis.text import RecordedLines
from jax_lsp.codeactions.noqa import noqa_codes, noqa_line
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import Rule, RuleContext
from jax_lsp.findings import Finding, Severity, shift_finding

log = logging.getLogger(__name__)

_FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOP_TYPES = (ast.For, ast.AsyncFor, ast.While)
_SCOPE_TYPES = frozenset((*_FUNCTION_TYPES, ast.Lambda, *_LOOP_TYPES))
_DEFINITION_TYPES = frozenset((*_FUNCTION_TYPES, ast.Lambda))
# The nodes whose visit may enter a scope (and change the rules' table) or a class's methods.
_SCOPE_OR_CLASS_TYPES = frozenset((*_SCOPE_TYPES, ast.ClassDef))
# A test and diagnostic aid: JAX_LSP_FAIL_RULE=JAX201[,JAX202] makes those rules raise on
# every node they check, to see how a broken rule is isolated and reported end to end.
_FAIL_RULES = frozenset(
    code.strip().upper() for code in os.environ.get("JAX_LSP_FAIL_RULE", "").split(",") if code
)


@dataclass(frozen=True)
class RuleFailure:
    code: str
    line: int
    error: str


@dataclass
class Analysis:
    findings: list[Finding]
    problems: list[SyntaxProblem]
    failures: list[RuleFailure] = field(default_factory=list)
    model: ModuleModel | None = None  # its `document` is the text as parsed
    # What the engine could not answer about imported functions and the face may ask jedi,
    # by `workspace.AnswerKey`.
    questions: dict[tuple, CallSite] = field(default_factory=dict)

    @property
    def document(self) -> Document | None:
        return self.model.document if self.model is not None else None


class _MethodFindings(NamedTuple):
    """A method's part of its class's walk, kept with the walk (`_UnitFindings.methods`) for
    the next version's parse, spliced from this one when another method of the class is
    edited (`UnitSource.spliced_from`: it shares this method's node): under its part of the
    unit key (`ModuleModel.member_keys`), its findings, the module facts its rules read, and
    the kinds the class body's flow gave them (definition-time parts: decorators, defaults)."""

    key: tuple
    findings: list[Finding]
    reads: ReadLog
    lines_read: frozenset[int]
    class_kinds: tuple[tuple[ast.AST, Kind | None], ...]


class _UnitFindings(NamedTuple):
    """A unit's walk, kept on its parse: its findings and failures (unit-relative lines), the
    module facts its rules read (reused only while they answer the same), the lines of the
    unit's text they read (reused for a text changed elsewhere), and its class's methods'
    parts that may be reused on their own (by the method's node; none when findings are not
    kept)."""

    findings: list[Finding]
    failures: list[RuleFailure]
    reads: ReadLog
    lines_read: set[int]
    methods: Mapping[ast.stmt, _MethodFindings]


# No method's findings kept.
_NO_METHODS: Mapping[ast.stmt, _MethodFindings] = MappingProxyType({})


class _UnitOutcome(NamedTuple):
    """A unit's findings as one analysis took them, handed to the next analysis of the
    document: for the same parse at the same line and text, they hold while `reads` does, the
    questions of the unit's key and of its rules in one log (each unit of a keystroke that left
    it alone costs one check, not a key and a look-up in its memo)."""

    source: object  # the unit's parse (`UnitSource`), compared by identity
    changed_text: str | None
    key: object  # the unit's key (`UnitKey`), and what building it read
    key_reads: ReadLog
    findings: _UnitFindings
    reads: ReadLog


class _Outcomes(dict):
    """The units' outcomes of one analysis, by the id of the unit's parse and its first line,
    under the rules they were found with."""

    __slots__ = ("rules",)

    def __init__(self, rules: tuple) -> None:
        super().__init__()
        self.rules = rules


class _RecordingKinds:
    """The unit's top-level kinds as one method's rules see them: the answers that may
    depend on other members of the class are noted (every answer outside a function body,
    where the class body's flow decides; any kind found inside one)."""

    __slots__ = ("_ctx", "_inner", "noted")

    def __init__(self, inner: _LazyKinds, ctx: RuleContext) -> None:
        self._inner = inner
        self._ctx = ctx
        self.noted: list[tuple[ast.AST, Kind | None]] = []

    def get(self, node: ast.AST) -> Kind | None:
        kind = self._inner.get(node)
        if kind is not None or not self._ctx.functions:
            self.noted.append((node, kind))
        return kind


class _LazyKinds:
    """A scope's kinds, interpreted when a rule first asks: most scopes are never asked (rules
    look at traced code, or at a few node shapes), and interpreting them is the walk's cost."""

    __slots__ = ("_interpret", "_kinds")

    def __init__(self, interpret: Callable[[], Mapping[ast.AST, Kind]]) -> None:
        self._interpret = interpret
        self._kinds: Mapping[ast.AST, Kind] | None = None

    def get(self, node: ast.AST) -> Kind | None:
        if self._kinds is None:
            self._kinds = self._interpret()
        return self._kinds.get(node)


# Which rules run, by the innermost trace: none, traced (grad-like), abstract (jit-like).
_ALLOWED_RULES: dict[str | None, tuple[str | None, ...]] = {
    None: (None,),
    "traced": (None, "traced"),
    "abstract": (None, "traced", "abstract"),
}


def _dispatch(rules: Sequence[type[Rule]], chosen: Callable[[type[Rule]], bool]) -> _Table:
    table: dict[type[ast.AST], list[tuple[str, int]]] = {}
    for index, rule in enumerate(rules):
        if chosen(rule):
            for node_type in rule.node_types:
                table.setdefault(node_type, []).append((rule.code, index))
    return {node_type: tuple(entries) for node_type, entries in table.items()}


# Node type -> the rules that look at it: their codes and places in the analysis's list of rules.
_Table = dict[type[ast.AST], tuple[tuple[str, int], ...]]
# A table's rules on `Call` nodes by the name a call ends with (`Rule.call_names`), or on
# `Attribute` nodes by the attribute's name (`Rule.attribute_names`), for the names some rule
# declares; and the rules that take every such node, for any other name.
_NameTable = tuple[dict[str, tuple[tuple[str, int], ...]], tuple[tuple[str, int], ...]]


def _name_table(rules: Sequence[type[Rule]], table: _Table, node_type: type[ast.AST]) -> _NameTable:
    entries = table.get(node_type, ())
    declaration = "call_names" if node_type is ast.Call else "attribute_names"
    declared = [getattr(rules[index], declaration) for _, index in entries]
    every = tuple(entry for entry, names in zip(entries, declared, strict=True) if names is None)
    by_name = {
        name: tuple(
            entry
            for entry, names in zip(entries, declared, strict=True)
            if names is None or name in names
        )
        for name in frozenset().union(*(names for names in declared if names is not None))
    }
    return by_name, every


def _called_name(func: ast.expr, resolver: Resolver) -> str | None:
    """The name a call's function ends with, as `Rule.call_names` means it: the last part of
    what the imports resolve it to, else as spelled; None for a callee that is no name."""
    qualname = resolver.qualname(func)
    if qualname is not None:
        return qualname.rpartition(".")[2]
    if type(func) is ast.Attribute:
        return func.attr  # type: ignore[attr-defined]
    if type(func) is ast.Name:
        return func.id  # type: ignore[attr-defined]
    return None


@lru_cache(maxsize=64)
def _rule_layout(rules: tuple[type[Rule], ...]) -> _RuleLayout:
    """The tables of a choice of rules: the same for every analysis under the same settings
    (a keystroke's analysis used to build them anew)."""
    return _RuleLayout(rules)


class _RuleLayout:
    """The rules by node type, one table per kind of code (outside traced code, most rules
    have nothing to say and are not called at all), and how to walk for them."""

    def __init__(self, rules: tuple[type[Rule], ...]) -> None:
        self.by_scope = {
            scope: _dispatch(rules, lambda r, allowed=allowed: r.needs_trace in allowed)
            for scope, allowed in _ALLOWED_RULES.items()
        }
        self.by_scope["eager"] = _dispatch(
            rules, lambda r: r.needs_trace is None or r.fails_in_eager_shard_map
        )
        self.calls_by_scope = {
            scope: _name_table(rules, table, ast.Call) for scope, table in self.by_scope.items()
        }
        self.attributes_by_scope = {
            scope: _name_table(rules, table, ast.Attribute)
            for scope, table in self.by_scope.items()
        }
        # Marker nodes (Load, Add, ...) are skipped unless a rule asks for them.
        wants_markers = not MARKER_NODE_TYPES.isdisjoint(self.by_scope["abstract"])
        self.getters = MARKED_CHILD_GETTERS if wants_markers else CHILD_GETTERS
        # Childless once markers are skipped: visited only when a rule asks for them.
        self.leaves = frozenset() if wants_markers else LEAF_NODE_TYPES


class _RuleTables:
    """The layout of the analysis's rules and their instances' `check` (made per analysis:
    some keep state for one analysis; bound once here, not looked up again at each of the
    walk's nodes), shared by every unit's walk."""

    def __init__(self, rules: Sequence[type[Rule]], instances: Sequence[Rule]) -> None:
        layout = _rule_layout(tuple(rules))
        self.checks = [_prefiltered(instance) for instance in instances]
        self.by_scope = layout.by_scope
        self.calls_by_scope = layout.calls_by_scope
        self.attributes_by_scope = layout.attributes_by_scope
        self.getters = layout.getters
        self.leaves = layout.leaves


def _prefiltered(rule: Rule) -> Callable[[ast.AST, RuleContext], Iterable[Finding]]:
    """The rule's `check`, called only on the nodes its pre-filters (`Rule.prefilter`) let
    through: elsewhere it can find nothing."""
    check, prefilter = rule.check, rule.prefilter
    if prefilter is None:
        return check
    filters = prefilter if isinstance(prefilter, tuple) else (prefilter,)
    if len(filters) == 1:
        spelled_in, on = filters[0].spelled_in, filters[0].on

        def filtered(node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
            if (on is None or type(node) in on) and not spelled_in(node, ctx):
                return ()
            return check(node, ctx)

        return filtered

    tests = [(spelled.on, spelled.spelled_in) for spelled in filters]

    def filtered_by_all(node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        for on, spelled_in in tests:
            if (on is None or type(node) in on) and not spelled_in(node, ctx):
                return ()
        return check(node, ctx)

    return filtered_by_all


class _Walker:
    def __init__(
        self,
        model: ModuleModel,
        unit: Unit,
        tables: _RuleTables,
        record_reads: bool = True,
        methods: Mapping[ast.stmt, tuple] | None = None,
        recheck: Recheck | None = None,
        earlier: Mapping[ast.stmt, _MethodFindings] = _NO_METHODS,
    ) -> None:
        self.model = model
        self.unit = unit
        # The class's methods and their keys, whose findings are kept and reused (none when
        # findings are not reused), the findings kept for them by the walk of the parse this
        # one was spliced from, and those kept by this walk; the checks of kept reads against
        # this model.
        self.methods = methods or {}
        self.earlier = earlier
        self.kept_methods: Mapping[ast.stmt, _MethodFindings] = {} if methods else _NO_METHODS
        self.recheck = recheck if recheck is not None else Recheck(model)
        # The rules see the module facts through a view that records what they read, when the
        # findings may be reused (their reuse is checked on the recorded answers).
        self.reads = ReadLog()
        view = UnitReads(model, self.reads if record_reads else None, self.recheck, unit.start_line)
        # The unit's own text (not its parse's when only comments changed), lines read noted.
        self.lines = RecordedLines(unit.text.split("\n"))
        self.ctx = RuleContext(view, self.lines)  # type: ignore[arg-type]
        self.ctx.unit_start = unit.start_line
        self.ctx.unit_text = unit.text
        self._tables = tables.by_scope
        self._call_tables = tables.calls_by_scope
        self._attribute_tables = tables.attributes_by_scope
        self._checks = tables.checks
        self.dispatch = self._tables[None]
        self.call_dispatch = self._call_tables[None]
        self.attribute_dispatch = self._attribute_tables[None]
        self.getters = tables.getters
        self.leaves = tables.leaves
        self.findings: list[Finding] = []
        self.failures: list[RuleFailure] = []
        self.broken: set[str] = set()

    def run(self) -> None:
        # Through the rules' view, which records what the kinds read of other units (the
        # functions' returns). No closure over the walker: no cycle.
        view, source = self.ctx.model, self.unit.source
        self.ctx.kind_maps.append(_LazyKinds(lambda: view.module_kinds(source)))
        self.visit(self.unit.tree)

    def visit(self, node: ast.AST) -> None:
        node_type = type(node)
        dispatch = self.dispatch
        rules = dispatch.get(node_type)
        if rules:
            if node_type is ast.Call:
                # Only the rules that may act on a call of this name (most calls: few rules).
                by_name, every = self.call_dispatch
                if by_name:
                    func = node.func  # type: ignore[attr-defined]
                    called = _called_name(func, self.ctx.resolvers[-1])
                    rules = by_name.get(called, every) if called is not None else every
            elif node_type is ast.Attribute:
                # Only the rules that may act on an attribute of this name (most: none).
                by_name, every = self.attribute_dispatch
                if by_name:
                    rules = by_name.get(node.attr, every)  # type: ignore[attr-defined]
            if rules:
                self._check(node, rules)
        if node_type in _SCOPE_OR_CLASS_TYPES:
            self._visit_scope(node)
            return
        # Most nodes: no scope entered, and the table stays the same through the children.
        # The children's getter read here, not through a call per node.
        getter = self.getters[node_type]
        if getter is None:
            return
        try:
            children = getter(node)
        except AttributeError:  # a node built by hand without all its fields (no markers)
            children = child_nodes(node)
        if not children:
            return
        ancestors = self.ctx.ancestors
        ancestors.append(node)
        leaves = self.leaves
        for child in children:
            # A leaf no rule here looks at needs no visit (nor a place among the ancestors).
            if type(child) not in leaves or type(child) in dispatch:
                self.visit(child)
        ancestors.pop()

    def _visit_scope(self, node: ast.AST) -> None:
        """The children of a definition, loop or class: a scope may change the table."""
        ancestors = self.ctx.ancestors
        children = self._children(node)
        if type(node) in _DEFINITION_TYPES:
            # Decorators, defaults and annotations run once, where the function is defined:
            # in the enclosing scope, not in the function's (traced) body.
            ancestors.append(node)
            for child in _evaluated_at_definition(node):  # type: ignore[arg-type]
                self.visit(child)
            ancestors.pop()
            children = node.body if type(node) is not ast.Lambda else (node.body,)  # type: ignore[attr-defined]
        entered = type(node) in _SCOPE_TYPES and self._enter(node)
        methods = self.methods if type(node) is ast.ClassDef and len(ancestors) == 1 else None
        ancestors.append(node)
        leaves = self.leaves
        for child in children:
            if methods and child in methods:
                self._visit_method(child, methods[child])  # type: ignore[arg-type]
            # A leaf no rule here looks at needs no visit (nor a place among the ancestors).
            elif type(child) not in leaves or type(child) in self.dispatch:
                self.visit(child)
        ancestors.pop()
        if entered:
            self._leave(node)

    def _children(self, node: ast.AST) -> list[ast.AST]:
        getter = self.getters[type(node)]
        if getter is None:
            return []
        try:
            return getter(node)
        except AttributeError:  # a node built by hand without all its fields (no markers)
            return child_nodes(node)

    def _visit_method(self, method: ast.stmt, key: tuple) -> None:
        """Visit a method of the unit's class, or take its kept findings: kept under the same
        key, when the module facts its rules read answer the same and so do the class body's
        kinds. Its own findings are kept only if its rules read nothing beyond the method
        (no fact that reaches other members, no line outside it) and none failed."""
        ctx = self.ctx
        class_kinds = ctx.kind_maps[0]
        kept = self.earlier.get(method)
        if (
            kept is not None
            and kept.key == key
            and self.recheck.holds(kept.reads, self.unit.start_line)
            and all(class_kinds.get(node) == kind for node, kind in kept.class_kinds)
        ):
            self.findings.extend(kept.findings)
            self.reads.update(kept.reads)
            self.lines.read.update(kept.lines_read)
            self.kept_methods[method] = kept  # type: ignore[index]
            return
        unit_view, unit_lines = ctx.model, ctx.lines
        reads = ReadLog()
        own_class = ctx.ancestors[-1].name  # type: ignore[attr-defined]
        view = MethodReads(self.model, reads, own_class, self.recheck, self.unit.start_line)
        lines = RecordedLines(unit_lines.plain)
        recording = _RecordingKinds(class_kinds, ctx)  # type: ignore[arg-type]
        ctx.model, ctx.lines, ctx.kind_maps[0] = view, lines, recording  # type: ignore[assignment]
        found = len(self.findings)
        try:
            self.visit(method)
        finally:
            ctx.model, ctx.lines, ctx.kind_maps[0] = unit_view, unit_lines, class_kinds
        self.reads.update(reads)
        self.lines.read.update(lines.read)
        first, last = first_line(method) - 1, method.end_lineno - 1  # type: ignore[operator]
        if (
            not self.failures  # a broken rule is skipped for the rest of the unit
            and not view.reached
            and all(first <= line <= last for line in lines.read)
        ):
            self.kept_methods[method] = _MethodFindings(  # type: ignore[index]
                key, self.findings[found:], reads, frozenset(lines.read), tuple(recording.noted)
            )

    def _check(self, node: ast.AST, rules: tuple[tuple[str, int], ...]) -> None:
        broken, ctx, extend, checks = self.broken, self.ctx, self.findings.extend, self._checks
        for code, index in rules:
            if broken and code in broken:
                continue
            try:
                extend(checks[index](node, ctx))
            except Exception as error:  # a rule bug must not cost the other rules' findings
                broken.add(code)
                line = getattr(node, "lineno", 1) - 1 + self.unit.start_line
                self.failures.append(RuleFailure(code, line, f"{type(error).__name__}: {error}"))
                # Reported by the caller (CLI line, LSP logMessage); the traceback for --log-file.
                log.info("rule %s failed at line %d", code, line + 1, exc_info=True)

    def _enter(self, node: ast.AST) -> bool:
        ctx = self.ctx
        if isinstance(node, _FUNCTION_TYPES):
            ctx.functions.append(node)
            ctx.traces.append(self.model.context_of(node))
            view = ctx.model  # the method's own view within a method (see `run`)
            ctx.kind_maps.append(_LazyKinds(lambda: view.scope_kinds(node).kinds))
            ctx.resolvers.append(ctx.resolvers[-1].child(local_imports(node), frozenset()))
            self._retable()
            return True
        if isinstance(node, ast.Lambda):
            ctx.functions.append(node)
            info = self.model.trace.get(node) or ctx.trace
            ctx.traces.append(info)
            self._retable()
            return True
        if isinstance(node, _LOOP_TYPES):
            ctx.loops.append(node)
            return True
        return False

    def _leave(self, node: ast.AST) -> None:
        ctx = self.ctx
        if isinstance(node, _FUNCTION_TYPES):
            ctx.functions.pop()
            ctx.traces.pop()
            ctx.kind_maps.pop()
            ctx.resolvers.pop()
        elif isinstance(node, ast.Lambda):
            ctx.functions.pop()
            ctx.traces.pop()
        else:
            ctx.loops.pop()
            return
        self._retable()

    def _retable(self) -> None:
        trace = self.ctx.trace
        if trace is None:
            scope = None
        elif trace.eager:
            scope = "eager"
        else:
            scope = "abstract" if trace.abstract else "traced"
        self.dispatch = self._tables[scope]
        self.call_dispatch = self._call_tables[scope]
        self.attribute_dispatch = self._attribute_tables[scope]


def _evaluated_at_definition(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
    """The parts of a definition evaluated when it runs: decorators, default values,
    annotations (unless postponed, they are evaluated too)."""
    args = node.args
    yield from getattr(node, "decorator_list", ())
    yield from args.defaults
    yield from (default for default in args.kw_defaults if default is not None)
    for arg in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
        if arg is not None and arg.annotation is not None:
            yield arg.annotation
    returns = getattr(node, "returns", None)
    if returns is not None:
        yield returns


def _outside_repairs(findings: list[Finding], repaired: frozenset[int]) -> list[Finding]:
    """The findings that do not start on a line the parse repaired (`if lr` read as `if lr:
    pass`): what is found there is about text the user is still typing, and would come and
    go with each keystroke (`if lr` flagged, `if lr >` not, `if lr > 0` again)."""
    if not repaired:
        return findings
    return [finding for finding in findings if finding.span.start.line not in repaired]


def _fail_on_purpose(node: ast.AST, ctx: RuleContext) -> list[Finding]:
    raise RuntimeError("failing on purpose (JAX_LSP_FAIL_RULE)")


def is_suppressed(finding: Finding, document: Document) -> bool:
    start = finding.span.start.line
    lines = document.lines
    if start >= len(lines):
        return False
    line = noqa_line(lines, start, document.unit_lines(start))
    codes = noqa_codes(lines[line])
    return codes is not None and (not codes or finding.code in codes)


def analyze(
    document: Document,
    rules: Sequence[type[Rule]] = ALL_RULES,
    severities: Mapping[str, Severity] | None = None,
    x64: bool = False,
    external: Mapping[str, ExternalFacts] | None = None,
    reuse_findings: bool = True,
    incoming: tuple[IncomingTrace, ...] = (),
) -> Analysis:
    """Findings of `rules` on `document`, sorted by position, `# noqa` honoured.

    `x64`: the project runs with `jax_enable_x64` on (Settings.enable_x64).
    `external`: facts about functions imported from other workspace modules
    (`jax_lsp.analysis.infer`), by call spelling.
    `reuse_findings`: keep each unit's findings under its key (`ModuleModel.unit_key`) and
    reuse them while the key holds. False for a text analysed once (a one-shot `check`):
    the key would cost module facts no rule may read, for findings nobody asks again.
    `incoming`: the traces the project's other modules give the document's functions
    (`Workspace.incoming`).
    """
    if reuse_findings:
        # What this analysis finds is handed to the next version's: its model keeps what only
        # that version reuses (set before the model is built, which makes the summaries).
        document.lineage.analysed_again = True
    model = ModuleModel.of(document, x64, external, incoming)
    # Instances per analysis: some rules keep state for one analysis (JAX102 reports a global
    # once per function, scope caches keyed by node).
    instances = [rule() for rule in rules]
    for instance in instances:
        if instance.code in _FAIL_RULES:
            instance.check = _fail_on_purpose  # type: ignore[method-assign]
    # The classes, not only their codes: a rule bound to a setting (`Rule.configured`) is
    # another class when the setting changes.
    rules_key = tuple(rules)
    tables: _RuleTables | None = None  # built when a unit is not in the cache
    recheck = model.unit_keys.recheck  # the cached units' reads checked on this model
    unit_keys = model.unit_keys
    # The last analysis's outcomes, by unit (under other rules: none), and this one's.
    outcomes = _Outcomes(rules_key)
    last = document.lineage.hand_over(analyze, outcomes) if reuse_findings else None
    if last is None or last.rules != rules_key:
        last = {}
    findings: list[Finding] = []
    failures: list[RuleFailure] = []
    for unit in document.units:
        if unit.tree is None:
            continue
        place = (id(unit.source), unit.start_line)
        kept = last.get(place)
        if (
            kept is not None
            and kept.source is unit.source
            and kept.changed_text == unit.changed_text
            and recheck.holds(kept.reads, unit.start_line)
        ):
            unit_keys.adopt(unit, kept.key, kept.key_reads)
            outcomes[place] = kept
            if kept.findings.findings:  # most units have none
                findings.extend(shift_finding(f, unit.start_line) for f in kept.findings.findings)
            continue
        key = (rules_key, model.unit_key(unit)) if reuse_findings else None
        cached = _cached_findings(unit, key)
        # Reused only while every module fact the rules read answers the same (recorded.py).
        if cached is None or not recheck.holds(cached.reads, unit.start_line):
            tables = tables or _RuleTables(rules, instances)
            # A class edited in one method: the others' findings are kept (a clean parse
            # only: a repaired one shares no node with the last).
            methods = (
                model.member_keys(unit)
                if key is not None and unit.changed_text is None and not unit.source.problem
                else None
            )
            earlier = _earlier_methods(unit, last) if methods else _NO_METHODS
            walker = _Walker(model, unit, tables, key is not None, methods, recheck, earlier)
            walker.run()
            # Failures carry absolute lines; recompute them if the unit moves.
            found = _outside_repairs(walker.findings, unit.source.blanked_lines)
            cached = _UnitFindings(
                found, walker.failures, walker.reads, walker.lines.read, walker.kept_methods
            )
            if key is not None and not walker.failures:
                own = key if unit.changed_text is None else (*key, unit.changed_text)
                unit.source.memo.keep(cached, analyze, *own)
        if key is not None and not cached.failures:
            key_reads = unit_keys.key_reads(unit)
            reads = ReadLog.joined([key_reads, cached.reads])
            outcomes[place] = _UnitOutcome(
                unit.source, unit.changed_text, key[1], key_reads, cached, reads
            )
        failures.extend(cached.failures)
        findings.extend(shift_finding(f, unit.start_line) for f in cached.findings)
    findings = [f for f in findings if not is_suppressed(f, document)]
    if severities:
        findings = [
            replace(f, severity=severities[f.code]) if f.code in severities else f for f in findings
        ]
    findings.sort(key=lambda f: (f.span.start, f.code))
    return Analysis(findings, document.problems, failures, model)


def _earlier_methods(
    unit: Unit, last: Mapping[tuple, _UnitOutcome]
) -> Mapping[ast.stmt, _MethodFindings]:
    """The methods' findings the last analysis kept for the class of `unit`: of its own parse
    (walked again, its reads having changed elsewhere), or else of the parse it was spliced
    from (an edit inside one of the class's members, which left its first line in place)."""
    source = unit.source
    kept = last.get((id(source), unit.start_line))
    if kept is None or kept.source is not source:
        spliced_from = source.spliced_from
        source = spliced_from() if spliced_from is not None else None
        kept = last.get((id(source), unit.start_line)) if source is not None else None
    if kept is None or kept.source is not source:
        return _NO_METHODS
    return kept.findings.methods


def _cached_findings(unit: Unit, key: tuple | None) -> _UnitFindings | None:
    """The findings kept for `unit` under `key`. A unit whose text differs from its parse's
    in comments only (`Unit.changed_text`) has its own entry, or else takes its parse's when the
    rules read none of the changed lines: what they quote or rewrite came from the others."""
    if key is None:
        return None
    memo = unit.source.memo
    if unit.changed_text is None:
        return memo.kept(analyze, *key)  # type: ignore[return-value]
    cached = memo.kept(analyze, *key, unit.changed_text)
    if cached is None:
        cached = memo.kept(analyze, *key)
        if cached is not None and not unit.changed_lines().isdisjoint(cached.lines_read):
            return None
    return cached
