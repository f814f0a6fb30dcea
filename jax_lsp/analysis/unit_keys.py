"""The cache keys of a unit's findings: what rules may read about the unit beyond its text
and unrecorded, from the facts declared `keyed` (`jax_lsp.analysis.reads`; the facts they
read recorded are checked on their own). A key is built by reading the model through a
recording view (`recorded.RecordingView`), and kept from the last model of the document while
the unit's parse and first line are the same and every question it asked answers the same."""

from __future__ import annotations

import ast
from bisect import bisect_right
from collections.abc import KeysView, Mapping
from typing import NamedTuple

from jax_lsp.analysis import recorded
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.document import Unit, UnitSource, first_line
from jax_lsp.analysis.model_parts import intern_key
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.recorded import ReadLog, Recheck, RecordingView, whole
from jax_lsp.analysis.scope_facts import context_from_enclosing
from jax_lsp.analysis.summary import FunctionNode, UnitSummary
from jax_lsp.analysis.unit_memo import Keyed, per_unit
from jax_lsp.analysis.values import Function, Value


class UnitKey(NamedTuple):
    """What a rule may read about a unit beyond its text and its recorded reads: equal keys
    and recorded reads answering the same, equal findings."""

    module_facts: int
    globals: object
    reaching: object
    module_key_reuses: object
    functions: tuple  # one entry per function of the unit, in the summary's order
    lambdas: tuple  # one entry per lambda of the unit

    def unit_wide(self) -> UnitKey:
        """The parts that are not per function or lambda (each method of a class shares them)."""
        return self._replace(functions=(), lambdas=())


class UnitKeys(ModelFact):
    """Each unit's cache key (see the module docstring)."""

    def __init__(self, model: ModelView) -> None:
        super().__init__(model)
        self._callee_key: tuple | None = None
        # unit_key's answers by (id of the unit's parse, first line): see `unit_key`.
        self._unit_keys: dict[tuple[int, int], UnitKey] = {}
        # The same with each key's parse (kept alive, so that no other parse takes its id
        # while the record stands) and the reads it was built from: handed to the next model.
        self._record: dict[tuple[int, int], tuple[UnitSource, UnitKey, ReadLog]] = {}
        # The checks of recorded reads against this model (the last model's keys', the
        # findings' kept on the units), shared by them all.
        self.recheck = Recheck(self.model)
        self.method_keys: dict[FunctionNode, tuple] = {}

    def for_copy(self, model: ModelView) -> UnitKeys:
        fact = super().for_copy(model)
        fact.recheck = Recheck(fact.model)  # the copy's own facts: this one may go first
        return fact

    def named_functions(self, source: UnitSource) -> tuple[str, ...]:
        """The module-level names bound to module functions that the unit's text holds."""
        return _named_functions(source, self._function_names)

    @cached_property
    def _function_names(self) -> Keyed[KeysView[str]]:
        return Keyed(self.function_units.keys(), self.function_names_key)

    def named_function_units(self, source: UnitSource) -> tuple:
        """The module functions the unit's text names (`named_functions`), its own included,
        with their `function_units` entries: for a fact kept across parses."""
        defined = self.function_units
        return tuple([(name, defined[name]) for name in self.named_functions(source)])

    def unit_globals_key(self, source: UnitSource) -> int:
        """The values of the module-level names a unit's text mentions, interned.

        The value interpreter reads a global only by a name written in the code it runs (a
        `Name` load, the head of a dotted name), so a unit's scopes and top-level code, and
        the return summaries of its functions, depend on these globals and no others.
        Everything keyed on this rather than on all globals survives a new module-level
        statement that binds a name the unit does not mention."""
        # Memoised on the unit while all globals are the same (an edit inside a function).
        return _unit_globals_key(source, self.model.module_globals.keyed_values)

    def unit_globals(self, source: UnitSource) -> Keyed[Mapping[str, Value]]:
        """The module's globals as the unit's code reads them (by the names its text
        mentions), for per-unit computations: keyed by `unit_globals_key`."""
        return Keyed(self.model.module_globals.global_values, self.unit_globals_key(source))

    @cached_property
    def function_names_key(self) -> int:
        """The names of `function_units`, interned."""
        return intern_key(tuple(self.function_units))

    @cached_property
    def function_units(self) -> dict[str, tuple[str, int, int]]:
        """Module-level names bound to module functions (`def f`, `step = jax.jit(f)`): the
        function's path, the hash of the text of the unit that defines it and the key of the
        globals that text mentions."""
        found = {}
        functions, source_of = self.model.functions, self.model._source_of
        # The names bound to functions: the last version's while the globals are the same
        # dict (an edit inside a function), not a pass over every global at each edit.
        lineage = self.model.document.lineage
        for name, path in lineage.reuse(_function_globals, self.model.module_globals.global_values):
            record = functions.get(path)
            if record is not None:
                source = source_of[record.node]
                # The function's return summary depends on its unit's text and on the globals
                # that text mentions (`return_value`).
                found[name] = (path, hash(source.text), self.unit_globals_key(source))
        return found

    @cached_property
    def module_reuse_keys(self) -> dict[int, tuple]:
        """What unit keys hold of the key reuses in module-level code, by the unit's first
        line."""
        reuses = self.model.key_facts.module_key_reuses
        if not reuses:  # most modules: no pass over the units
            return {}
        return {
            unit.start_line: self._module_reuse_key(unit, reuses[unit.start_line])
            for unit in self.model.document.units
            if unit.start_line in reuses
        }

    @staticmethod
    def _module_reuse_key(unit: Unit, reuses: tuple) -> tuple:
        own = {r.call for r in reuses}
        return tuple(
            (
                # the reuses of the unit met on the ways to it (JAX's checker stops at one)
                tuple(sorted(_positions(way & own) for way in r.after)),
                r.call.lineno,
                r.call.col_offset,
                r.name,
                ast.unparse(r.first.func),
                r.across_iterations,
                # the first use is shown (and fixed) where it sits, perhaps in another unit:
                # there in document coordinates (the fix's edits and the related place)
                r.first_unit if r.first_unit != unit.start_line else None,
                r.first.lineno,
                r.first.col_offset,
            )
            for r in reuses
        )

    @cached_property
    def traced_facts(self) -> dict:
        """What unit keys read of each traced function beyond its trace: its objects, its
        explanation (every site's unit start kept: `_explanation_in` makes it the one a unit
        shows) and the methods whose returns it reads."""
        objects, scopes, records = self.model.objects, self.model.scopes, self.model.records
        return {
            node: (
                objects.object_params(node),
                scopes.explanation_key(node, -1),
                # a lambda's only when it is a function of the summary (`f = lambda x: ...`)
                ()
                if isinstance(node, ast.Lambda) and node not in records
                else scopes.method_returns_key(node),
            )
            for node in self.model.tracing.trace
        }

    @cached_property
    def plain_objects(self) -> dict:
        """The plain object of each class (`ObjectFacts.plain_object`): what the `self` of
        its methods that nothing traces holds."""
        objects = self.model.objects
        return {name: objects.plain_object(name) for name in self.model.classes}

    @cached_property
    def carries(self) -> dict:
        """The carries of the loop bodies, by function node."""
        scopes = self.model.scopes
        return {node: scopes.carry_values(node) for node in scopes.loop_bodies}

    def _callee_facts_key(self) -> tuple:
        """Facts about module functions that rules read at call sites in any unit."""
        if self._callee_key is None:
            self._callee_key = (
                tuple(sorted(self.model.key_facts.key_helpers.items())),
                tuple(sorted(self.model.key_facts.key_summaries.items())),
                tuple(sorted(self.model.key_facts.key_makers.items())),
                tuple(sorted(self.model.key_facts.quiet_linen_makers)),
                tuple(
                    sorted(self.model.staging.static_signatures.items(), key=lambda item: item[0])
                ),
            )
        return self._callee_key

    def unit_key(self, unit: Unit) -> UnitKey:
        """Everything a rule may read about this unit beyond its text."""
        # Memoised for the copies `of` makes of this model, whose units are these very parses.
        place = (id(unit.source), unit.start_line)
        key = self._unit_keys.get(place)
        if key is None:
            # The last model's key of the same parse at the same line, while every question
            # it asked answers the same; else built.
            kept = self._kept_keys.get(place)
            if kept is not None and kept[0] is unit.source and self.recheck.holds(kept[2]):
                key, log = kept[1], kept[2]
                if recorded.VERIFY_REUSE and key != self.compute_unit_key(unit, ReadLog()):
                    line = unit.start_line + 1
                    raise AssertionError(f"unit key kept stale (unit at line {line})")
            else:
                log = ReadLog()
                key = self.compute_unit_key(unit, log)
            self._unit_keys[place] = key
            self._record[place] = (unit.source, key, log)
        return key

    def key_reads(self, unit: Unit) -> ReadLog:
        """What `unit_key(unit)` read (asked after it)."""
        return self._record[(id(unit.source), unit.start_line)][2]

    def adopt(self, unit: Unit, key: UnitKey, reads: ReadLog) -> None:
        """Take `key` as `unit`'s, built on an earlier model from `reads`, which the caller
        found to hold on this one (`unit_key` would have kept it)."""
        if recorded.VERIFY_REUSE and key != self.compute_unit_key(unit, ReadLog()):
            raise AssertionError(f"unit key kept stale (unit at line {unit.start_line + 1})")
        place = (id(unit.source), unit.start_line)
        self._kept_keys  # noqa: B018  (the last model's records handed on, this one's taken)
        self._unit_keys[place] = key
        self._record[place] = (unit.source, key, reads)

    @cached_property
    def _kept_keys(self) -> dict[tuple[int, int], tuple[UnitSource, UnitKey, ReadLog]]:
        """The last model's keys, each with its parse and reads (see `unit_key`)."""
        return self.model.document.lineage.hand_over(UnitKeys.unit_key, self._record) or {}

    def compute_unit_key(self, unit: Unit, log: ReadLog) -> UnitKey:
        """The key of `unit`, every module fact it reads recorded in `log`."""
        facts = RecordingView(self.model, log, self.recheck)
        source, start = unit.source, unit.start_line
        summary = self.model._summary(source)  # the unit's parse, read under the imports
        keys = facts.unit_keys
        return UnitKey(
            module_facts=keys.module_facts_key,
            # Memoised on the unit by the key of all globals: read as that key.
            globals=self.unit_globals_key(source) if facts.module_globals.globals_key else 0,
            # The latest earlier binding of each name bound twice at the top level.
            reaching=(
                self.model.module_globals.reaching_key(source)
                if whole(facts.module_globals.reaching_sites)
                else 0
            ),
            module_key_reuses=keys.module_reuse_keys.get(start, ()),
            functions=self._functions_key(facts, summary, start) if summary.functions else (),
            lambdas=self._lambdas_key(facts, summary, start) if summary.lambdas else (),
        )

    def member_keys(self, unit: Unit) -> dict[ast.stmt, tuple]:
        """For a unit that is a class (the common case of a long unit): each method's part of
        `unit_key`, to keep its findings while another method of the class is edited. The
        unit-wide facts, then the per-function and per-lambda facts of the functions and
        lambdas the method holds (decorators and defaults included). Class-level statements
        other than methods get none: they are walked with the class."""
        tree = unit.tree
        if tree is None or len(tree.body) != 1 or type(tree.body[0]) is not ast.ClassDef:
            return {}
        methods = [
            member
            for member in tree.body[0].body
            if type(member) is ast.FunctionDef or type(member) is ast.AsyncFunctionDef
        ]
        if not methods:
            return {}
        key = self.unit_key(unit)
        summary = self.model._summary(unit.source)
        starts = [first_line(method) for method in methods]
        functions: list[list] = [[] for _ in methods]
        lambdas: list[list] = [[] for _ in methods]
        for nodes, entries, own in (
            ([record.node for record in summary.functions], key.functions, functions),
            (summary.lambdas, key.lambdas, lambdas),
        ):
            for node, entry in zip(nodes, entries, strict=True):
                index = bisect_right(starts, node.lineno) - 1
                if index >= 0 and node.lineno <= methods[index].end_lineno:  # type: ignore[operator]
                    own[index].append(entry)
        shared = key.unit_wide()
        return {
            method: (shared, tuple(functions[i]), tuple(lambdas[i]))
            for i, method in enumerate(methods)
        }

    def _functions_key(self, facts: RecordingView, summary: UnitSummary, unit_start: int) -> tuple:
        """What unit_key holds of each function of a unit, in one pass over them (asked of
        every unit that is keyed anew): its trace, the Ref parameters and loop carries it
        receives, the defaults its callers pass, its objects, and why it is traced."""
        trace, traced_facts = facts.tracing.trace, facts.unit_keys.traced_facts
        ref_params, passed_defaults = facts.scopes.ref_params, facts.scopes.defaults_by_function
        carries, plain_objects = facts.unit_keys.carries, facts.unit_keys.plain_objects
        object_methods = facts.tracing.module_object_methods
        enclosing_chain = self.model.enclosing_chain
        entries = []
        for record in summary.functions:
            node = record.node
            info = _context_in(trace, node, enclosing_chain)
            traced = traced_facts.get(node)
            objects, explanation, method_returns = traced if traced is not None else ((), (), ())
            entries.append(
                (
                    info,
                    ref_params.get(node),
                    carries.get(node, ()),
                    passed_defaults.get(node),
                    objects,
                    # the `self` of a method with no trace around it: an object of its class
                    plain_objects.get(record.class_name)
                    if info is None and record.class_name and record.parent is None
                    else (),
                    node in object_methods,
                    _explanation_in(explanation, unit_start),
                    method_returns,
                )
            )
        return tuple(entries)

    def _lambdas_key(self, facts: RecordingView, summary: UnitSummary, unit_start: int) -> tuple:
        """How each lambda of a unit is traced, and why."""
        trace, traced_facts = facts.tracing.trace, facts.unit_keys.traced_facts
        entries = []
        for node in summary.lambdas:
            traced = traced_facts.get(node)
            explanation = _explanation_in(traced[1], unit_start) if traced is not None else ()
            entries.append((trace.get(node), explanation))
        return tuple(entries)

    @cached_property
    def module_facts_key(self) -> int:
        """The facts of unit_key that are the same for every unit, interned once per model.

        Not here: the facts rules ask by name (globals, mutable and stable globals, hash
        facts, module state, float globals), whose answers are recorded as the rules read
        them (`jax_lsp.analysis.reads`), and the values of globals, held per unit
        (`unit_globals_key`)."""
        return intern_key(
            (
                self._callee_facts_key(),
                self.model.alias_key,
                self.model.import_line,
                self.model._class_facts_key,
                self.model.may_make_explicit_meshes,
            )
        )


def _context_in(trace, node: FunctionNode, enclosing_chain) -> object:
    """`ScopeFacts.context_of(node)` asked of `trace` (a recorded view): the node's trace,
    or the nearest traced function's around it."""
    info = trace.get(node)
    if info is not None:
        return info
    return context_from_enclosing(trace, enclosing_chain(node))


def _explanation_in(explanation: tuple, unit_start: int) -> tuple:
    """`ScopeFacts.explanation_key(node, unit_start)` from its form with every site's unit
    start kept: a site of the unit itself moves with it."""
    return tuple(
        [step if step[3] != unit_start else (*step[:3], None, *step[4:]) for step in explanation]
    )


@per_unit
def _named_functions(source: UnitSource, names: Keyed[KeysView[str]]) -> tuple[str, ...]:
    # A name among the text's words may be called. Memoised on the unit: a scan of every unit
    # for every name on each edit cost the editor its speed; the words' intersection costs
    # the unit's size, not the module's (a search of the text for each of a thousand names,
    # in each of a thousand units, was quadratic).
    return tuple(sorted(source.words() & names.value))


@per_unit
def _unit_globals_key(source: UnitSource, module_globals: Keyed[Mapping[str, Value]]) -> int:
    values = module_globals.value
    words = source.words()
    used = sorted(words & values.keys()) if len(words) < len(values) else None
    if used is None:
        used = sorted(name for name in values if name in words)
    return intern_key(tuple([(name, values[name]) for name in used]))


def _function_globals(global_values: Mapping[str, Value]) -> tuple[tuple[str, str], ...]:
    """The module-level names bound to a function of the module, with its path."""
    return tuple(
        [
            (name, value.path)
            for name, value in global_values.items()
            if type(value) is Function and value.path is not None
        ]
    )


def _positions(calls: frozenset[ast.Call] | set[ast.Call]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((call.lineno, call.col_offset) for call in calls))
