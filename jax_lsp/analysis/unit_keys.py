"""The cache keys of a unit's findings: everything a rule may read about the unit beyond
its text (`unit_key`), kept from the last model of the document while no module fact it
reads changed for it (`UNIT_KEY_INPUTS` declares each such fact, see `key_inputs`)."""

from __future__ import annotations

import ast
import os
import re
from bisect import bisect_right
from collections.abc import Callable
from functools import cached_property
from typing import NamedTuple

from jax_lsp.analysis.document import Unit, UnitSource, first_line
from jax_lsp.analysis.key_inputs import (
    KeyInput,
    KeyRecord,
    by_name,
    by_node,
    by_reader,
    by_start,
    every_unit,
    kept_keys,
)
from jax_lsp.analysis.model_parts import evaluated_text, intern_key
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.shapes import LITERAL_INDEX
from jax_lsp.analysis.summary import FunctionNode, UnitSummary
from jax_lsp.analysis.values import Function

# The test suite sets this: every unit key kept from the last model is compared with one
# built afresh, so that a fact a key reads and `UNIT_KEY_INPUTS` misses fails loudly.
_VERIFY_KEPT_KEYS = bool(os.environ.get("JAX_LSP_VERIFY_KEPT_KEYS"))

# Substrings of every spelling of a 64-bit dtype ("float64", "complex128", "f8", "double")
# and of the x64 flag: all literals, each looked for with `in` (a third of the instructions of
# one regular expression of the six alternatives, asked of each new unit text).
_X64_MARKERS = ("64", "128", "double", "8'", '8"', "c16")

# The aliases that name no width (`jnp.float_`, `np.intp`, `jnp.uint`: `analysis.dtypes`),
# looked for as substrings first, then as words (`print_` is no `int_`).
_X64_ALIASES = ("float_", "complex_", "int_", "uint", "intp", "longlong")

_X64_ALIAS_WORDS = re.compile(r"\b(?:float_|complex_|int_|uint|u?intp|u?longlong)\b")


class KeyMarkers(NamedTuple):
    """Which conditional module facts a unit's key reads, judged from its text: only units
    that may need one pay for it."""

    x64: bool  # may name a 64-bit dtype or the flag (64-bit rules read facts at absolute lines)
    attribute_writes: bool  # a static `self` or a jitted bound method `jit(self.f)` (JAX402)
    top_level_index: bool  # its top-level code may index with a literal (JAX301 reads shapes)


class UnitKey(NamedTuple):
    """Everything a rule may read about a unit beyond its text: equal keys, equal findings."""

    x64: tuple
    attribute_writes: tuple
    shapes: object
    module_facts: int
    globals: object
    reaching: object
    module_key_reuses: object
    returns: object
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
        self.method_keys: dict[FunctionNode, tuple] = {}

    def named_functions(self, source: UnitSource) -> tuple[str, ...]:
        """The module-level names bound to module functions that the unit's text holds."""
        key = ("named-functions", self._function_names_key)
        named = source.memo.get(key)
        if named is None:
            # A name among the text's words may be called. Memoised on the unit: a scan of
            # every unit for every name on each edit cost the editor its speed; the words'
            # intersection costs the unit's size, not the module's (a search of the text for
            # each of a thousand names, in each of a thousand units, was quadratic).
            named = source.memo[key] = tuple(sorted(source.words() & self.function_units.keys()))
        return named

    def named_function_units(self, source: UnitSource) -> tuple:
        """`_returns_key` with the unit's own functions: for a fact kept across parses."""
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
        key = ("globals-used", self.model.module_globals.globals_key)
        found = source.memo.get(key)
        if found is None:
            values = self.model.module_globals.global_values
            words = source.words()
            used = sorted(words & values.keys()) if len(words) < len(values) else None
            if used is None:
                used = sorted(name for name in values if name in words)
            found = source.memo[key] = intern_key(tuple([(name, values[name]) for name in used]))
        return found

    @cached_property
    def _function_names_key(self) -> int:
        return intern_key(tuple(self.function_units))

    @cached_property
    def function_units(self) -> dict[str, tuple[str, int, int]]:
        """Module-level names bound to module functions (`def f`, `step = jax.jit(f)`): the
        function's path, the hash of the text of the unit that defines it and the key of the
        globals that text mentions."""
        found = {}
        for name, value in self.model.module_globals.global_values.items():
            if type(value) is Function and value.path is not None:
                record = self.model.functions.get(value.path)
                if record is not None:
                    source = self.model._source_of[record.node]
                    # The function's return summary depends on its unit's text and on the
                    # globals that text mentions (`return_value`).
                    found[name] = (value.path, hash(source.text), self.unit_globals_key(source))
        return found

    def _module_reuse_key(self, unit: Unit) -> tuple:
        reuses = self.model.key_facts.module_key_reuses.get(unit.start_line)
        if not reuses:
            return ()
        return tuple(
            (
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

    def _callee_facts_key(self) -> tuple:
        """Facts about module functions that rules read at call sites in any unit."""
        if self._callee_key is None:
            self._callee_key = (
                tuple(sorted(self.model.key_facts.key_helpers.items())),
                tuple(sorted(self.model.key_facts.key_summaries.items())),
                tuple(sorted(self.model.key_facts.key_makers.items())),
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
            # The last model's key of the same parse at the same line, while no module fact
            # it read changed for it (`key_inputs`); else built.
            key = self._kept_keys.get(place)
            if key is None:
                key = self.compute_unit_key(unit)
            elif _VERIFY_KEPT_KEYS and key != self.compute_unit_key(unit):
                raise AssertionError(f"unit key kept stale (unit at line {unit.start_line + 1})")
            self._unit_keys[place] = key
            self.key_record.keys[place] = (unit.source, key)
        return key

    @cached_property
    def key_record(self) -> KeyRecord:
        """This model's views of the unit keys' inputs, handed to the next model's."""
        return KeyRecord({item.name: item.view(self.model) for item in UNIT_KEY_INPUTS})

    @cached_property
    def _kept_keys(self) -> dict[tuple[int, int], UnitKey]:
        """The last model's unit keys that hold for this one (see `unit_key`)."""
        record = self.key_record
        previous = self.model.document.lineage.hand_over("unit-keys", record)
        return kept_keys(previous, record, UNIT_KEY_INPUTS, self.model)  # type: ignore[arg-type]

    def _key_markers(self, source: UnitSource) -> KeyMarkers:
        """Which conditional module facts a unit's key reads (`KeyMarkers`)."""
        markers = source.memo.get("key-markers")
        if markers is None:
            text = source.text
            markers = source.memo["key-markers"] = KeyMarkers(
                x64=any(marker in text for marker in _X64_MARKERS)
                or (
                    any(alias in text for alias in _X64_ALIASES)
                    and bool(_X64_ALIAS_WORDS.search(text))
                ),
                attribute_writes="static_arg" in text or ("(self." in text and "jit" in text),
                top_level_index=_may_index_at_top(source),
            )
        return markers

    def _any_unit_marked(self, marker: str) -> bool:
        return any(
            getattr(self._key_markers(unit.source), marker)
            for unit in self.model.document.units
            if unit.tree is not None
        )

    def compute_unit_key(self, unit: Unit) -> UnitKey:
        summary = self.model._summary(unit.source)
        markers = self._key_markers(unit.source)
        objects = self.model.objects
        return UnitKey(
            x64=(self.model.x64, unit.start_line) if markers.x64 else (),
            attribute_writes=(
                (objects.attribute_writes, objects.other_class_texts(unit.source))
                if markers.attribute_writes
                else ()
            ),
            shapes=(
                self.model.module_globals.shapes_by_unit.get(unit.start_line)
                if markers.top_level_index
                else ()
            ),
            module_facts=self.module_facts_key,
            globals=self.unit_globals_key(unit.source),
            reaching=self.model.module_globals.reaching_key(unit.source),
            module_key_reuses=self._module_reuse_key(unit),
            returns=self.model.scopes.returns_key(unit.source),
            functions=self._functions_key(summary, unit.start_line) if summary.functions else (),
            lambdas=self._lambdas_key(summary, unit.start_line) if summary.lambdas else (),
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

    def _functions_key(self, summary: UnitSummary, unit_start: int) -> tuple:
        """What unit_key holds of each function of a unit, in one pass over them (asked of
        every unit on each edit): its trace, the Ref parameters and loop carries it
        receives, the defaults its callers pass, its objects, and why it is traced."""
        context_of, object_params = self.model.scopes.context_of, self.model.objects.object_params
        self_object, explanation_key = (
            self.model.objects.self_object,
            self.model.scopes.explanation_key,
        )
        object_methods, trace = self.model.tracing.module_object_methods, self.model.tracing.trace
        ref_params = self.model.scopes.ref_params or None
        carry_values = self.model.scopes.carry_values if self.model.scopes.loop_bodies else None
        passed_defaults = self.model.scopes.defaults_by_function or None
        entries = []
        for record in summary.functions:
            node = record.node
            info = context_of(node)
            # Most functions are traced by nothing: their objects and explanation are empty
            # (object_params and explanation_key say so for a node not in the trace), and
            # self_object is asked only of a method with no trace around it.
            traced = node in trace
            entries.append(
                (
                    info,
                    ref_params.get(node) if ref_params is not None else None,
                    carry_values(node) if carry_values is not None else (),
                    passed_defaults.get(node) if passed_defaults is not None else None,
                    object_params(node) if traced else (),
                    self_object(node) if info is None else (),
                    node in object_methods,
                    explanation_key(node, unit_start) if traced else (),
                    self.model.scopes.method_returns_key(node) if traced else (),
                )
            )
        return tuple(entries)

    def _lambdas_key(self, summary: UnitSummary, unit_start: int) -> tuple:
        """How each lambda of a unit is traced, and why."""
        trace = self.model.tracing.trace
        return tuple(
            [
                (trace.get(node), self.model.scopes.explanation_key(node, unit_start))
                for node in summary.lambdas
            ]
        )

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


def _traced_facts(model: ModelView) -> dict:
    """What unit keys read of each traced function beyond its trace: its objects, its
    explanation (every site's unit start kept: equal here, equal as any unit shows it) and
    the methods whose returns it reads."""
    return {
        node: (
            model.objects.object_params(node),
            model.scopes.explanation_key(node, -1),
            () if isinstance(node, ast.Lambda) else model.scopes.method_returns_key(node),
        )
        for node in model.tracing.trace
    }


def _module_reuse_keys(model: ModelView) -> dict[int, tuple]:
    """What unit keys read of the key reuses in module-level code, by the unit's first line."""
    reuses = model.key_facts.module_key_reuses
    return {
        unit.start_line: model.unit_keys._module_reuse_key(unit)
        for unit in model.document.units
        if unit.start_line in reuses
    }


def _marked(marker: str) -> Callable[[ModelView, UnitSource], bool]:
    return lambda model, source: getattr(model.unit_keys._key_markers(source), marker)


def _words(model: ModelView, source: UnitSource) -> frozenset[str]:
    return source.words()


# Every module fact `ModelView._compute_unit_key` reads, with the units its change reaches
# (`key_inputs`): an unchanged unit keeps the last model's key while none reaches it. A new
# fact a key reads is one entry here (a per-function fact: a view by node, `by_node`).
UNIT_KEY_INPUTS = (
    KeyInput(
        "module",
        lambda m: (
            m.unit_keys.module_facts_key,
            m.module_globals.globals_key,
            m.module_globals.reaching_sites,
        ),
        every_unit,
    ),
    KeyInput(
        "x64",
        lambda m: m.x64 if m.unit_keys._any_unit_marked("x64") else None,
        by_reader(_marked("x64")),
    ),
    KeyInput(
        "attribute-writes",
        lambda m: (
            (m.objects.attribute_writes, tuple([source.text for source in m.objects.class_sources]))
            if m.unit_keys._any_unit_marked("attribute_writes")
            else None
        ),
        by_reader(_marked("attribute_writes")),
    ),
    KeyInput(
        "shapes",
        lambda m: (
            m.module_globals.shapes_by_unit
            if m.unit_keys._any_unit_marked("top_level_index")
            else {}
        ),
        by_start,
    ),
    KeyInput("module-key-reuses", _module_reuse_keys, by_start),
    # A unit's text names the functions it reads the returns of: also one no longer defined.
    KeyInput("function-units", lambda m: m.unit_keys.function_units, by_name(_words)),
    KeyInput("trace", lambda m: m.tracing.trace, by_node),
    KeyInput("traced-facts", _traced_facts, by_node),
    KeyInput("ref-params", lambda m: m.scopes.ref_params, by_node),
    KeyInput("passed-defaults", lambda m: m.scopes.defaults_by_function, by_node),
    KeyInput(
        "carries",
        lambda m: {node: m.scopes.carry_values(node) for node in m.scopes.loop_bodies},
        by_node,
    ),
    KeyInput("object-methods", lambda m: frozenset(m.tracing.module_object_methods), by_node),
    KeyInput(
        "plain-objects",
        lambda m: {name: m.objects.plain_object(name) for name in m.classes},
        by_name(_words),  # a method's class is named in its unit's text
    ),
)


def _may_index_at_top(source: UnitSource) -> bool:
    """May the unit's top-level code (not a function body) index with a literal?"""
    text = evaluated_text(source)
    return "take(" in text or bool(LITERAL_INDEX.search(text))
