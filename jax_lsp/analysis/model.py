"""The module model: every fact the rules read, rebuilt from per-unit summaries.

Per unit, the expensive parts (summary, kinds of each scope) are memoised on the unit's
parsed source, keyed by the module facts they depend on. An edit inside one function
re-analyses that function; the module facts are recombined from cached pieces.
"""

from __future__ import annotations

import ast
import copy
import fnmatch
import math
import os
import re
import weakref
from bisect import bisect_right
from collections import ChainMap
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from types import MappingProxyType

from jax_lsp.analysis.attributes import (
    ANY_ATTRIBUTE,
    FreshWrite,
    InstanceEvent,
    attribute_writes,
    attributes_set_per_class,
    defined_attributes,
    instance_events,
)
from jax_lsp.analysis.crossing import (
    NO_FOREIGN,
    ForeignDefinitions,
    ForeignFunction,
    ForeignStep,
    IncomingTrace,
)
from jax_lsp.analysis.document import Document, Unit, UnitSource, first_line
from jax_lsp.analysis.dtypes import FloatOracle, IntArrayOracle, assigned_values
from jax_lsp.analysis.external import ExternalFacts, facts_key
from jax_lsp.analysis.fields import boolean_entries, boolean_fields
from jax_lsp.analysis.flow import (
    ARRAYS,
    NEW_REF,
    FlowInterpreter,
    ScopeContext,
    annotation_container,
    annotation_kind,
    dotted_name,
    plain_bindings,
)
from jax_lsp.analysis.hashing import (
    EMPTY_FACTS,
    ClassHashFacts,
    HashFacts,
    class_hash_facts,
    compute_hash_facts,
    parameter_passing_calls,
    staged_by_decorator,
    statement_bindings,
    wrapped_statics,
)
from jax_lsp.analysis.header import import_insertion_line
from jax_lsp.analysis.imports import Resolver, import_bindings, local_imports
from jax_lsp.analysis.jitted import StaticSignature, jit_call_signature, unit_signatures
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
from jax_lsp.analysis.keys import (
    LIBRARY_MAKER_ROOTS,
    KeyFlow,
    KeySummary,
    Reuse,
    classify_call,
    consumed_params,
    consumer_key,
    derived_helper_key,
    derived_params,
    drawn_free_names,
    drawn_self_attributes,
    external_key,
    global_key,
    helper_key,
    key_argument,
    library_key,
    library_makers,
    makes_random_initializer,
    may_draw,
    may_use_library_key,
    named_by_calls,
    object_key,
    opaque_global,
    path_root,
    returned_arguments,
    returned_keys,
)
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.lengths import ancestors_of, entries_counted, parent_map
from jax_lsp.analysis.module_state import ModuleState
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import (
    is_classmethod,
    is_none,
    is_staticmethod,
    own_returns,
    positional_params,
    rebound_names,
    walk_nodes,
)
from jax_lsp.analysis.objects import field_values, self_assignments
from jax_lsp.analysis.paths import is_test_path
from jax_lsp.analysis.pytree_children import StaticChild, static_children
from jax_lsp.analysis.pytrees import LINEN_MODULE, flattens_fields, is_registered_pytree
from jax_lsp.analysis.repetition import CallOf, names_loaded, runs
from jax_lsp.analysis.shapes import (
    LITERAL_INDEX,
    ArrayShape,
    KnownValue,
    ShapeTracker,
    run_top_level,
)
from jax_lsp.analysis.sharding import names_explicit_meshes
from jax_lsp.analysis.summary import (
    LINEN_RUNS,
    Application,
    CallSite,
    ClassRecord,
    FunctionNode,
    FunctionRecord,
    FunctionRef,
    UnitSummary,
    summarize,
)
from jax_lsp.analysis.text import document_span, identifiers
from jax_lsp.analysis.traced import (
    TraceInfo,
    TraceOrigin,
    TraceStep,
    all_params,
    array_defaults,
    array_function_params,
    array_used_params,
    call_site_containers,
    call_site_params,
    differentiated_params,
    imported_default_params,
    literal_default_params,
    literal_flag_params,
    passed_arguments,
    passed_params,
    python_value_params,
    static_parameters,
    trace_info_for,
    transform_name,
)
from jax_lsp.analysis.transforms import (
    CUSTOM_DERIVATIVES,
    CUSTOM_RULES,
    GRADIENTS,
    OPTAX_UPDATE_FUNCTION,
    PARTIAL,
    TRANSFORMS,
    TREE_MAPS,
    ParamPolicy,
)
from jax_lsp.analysis.unit_memo import reuse_reading
from jax_lsp.analysis.updates import top_level_self_updates
from jax_lsp.analysis.values import (
    REF,
    Container,
    Function,
    Instance,
    Object,
    Value,
    as_jax,
    contains_traced,
    kind_of,
    merge_values,
    merge_values_all,
)
from jax_lsp.analysis.wrappers import Wrappers
from jax_lsp.analysis.x64 import (
    X64Facts,
    combine_x64_facts,
    may_mention_x64,
    project_enables_x64,
    statement_facts,
)

# The test suite sets this: every unit key kept from the last model is compared with one
# built afresh, so that a fact a key reads and `UNIT_KEY_INPUTS` misses fails loudly.
_VERIFY_KEPT_KEYS = bool(os.environ.get("JAX_LSP_VERIFY_KEPT_KEYS"))

_MAX_FIXPOINT_ROUNDS = 20
_WRAPPED = ".__wrapped__"
# Library module classes: a parameter annotated with one holds a pytree of weights.
_LIBRARY_MODULES = frozenset({"equinox.Module", "flax.nnx.Module"})
_STATIC_KEYWORDS = ("static_argnums", "static_argnames")
_MAX_CLASS_ROUNDS = 4  # helpers passing an object on to helpers
_MAX_EXPLAINED = 5  # links of a "why is this traced?" chain
# Substrings of every spelling of a 64-bit dtype ("float64", "complex128", "f8", "double")
# and of the x64 flag: all literals, each looked for with `in` (a third of the instructions of
# one regular expression of the six alternatives, asked of each new unit text).
_X64_MARKERS = ("64", "128", "double", "8'", '8"', "c16")
# The aliases that name no width (`jnp.float_`, `np.intp`, `jnp.uint`: `analysis.dtypes`),
# looked for as substrings first, then as words (`print_` is no `int_`).
_X64_ALIASES = ("float_", "complex_", "int_", "uint", "intp", "longlong")
_X64_ALIAS_WORDS = re.compile(r"\b(?:float_|complex_|int_|uint|u?intp|u?longlong)\b")
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


# Decorators making a method a property: reading the attribute runs it.
_PROPERTY_DECORATORS = frozenset({"builtins.property", "functools.cached_property"})


def _item_call(name: str, read: ast.Subscript, caller: FunctionNode) -> CallSite | None:
    """`name[index]` as the call Python makes of it, `name.__getitem__(index)`; None for a
    slice (`name[1:]`: a slice object, which the model does not evaluate)."""
    if any(type(part) is ast.Slice for part in ast.walk(read.slice)):
        return None
    method = ast.copy_location(ast.Attribute(read.value, "__getitem__", ast.Load()), read)
    call = ast.copy_location(ast.Call(method, [read.slice], []), read)
    return CallSite(caller, FunctionRef(f"{name}.__getitem__", ()), call)


@dataclass
class ModuleModel:
    document: Document
    # The project enables 64-bit mode (config `enable-x64`, JAX_ENABLE_X64 in the environment).
    x64_setting: bool = False
    # Facts about functions imported from other workspace modules, by call spelling
    # (`make_state`, `ops.step`): see `jax_lsp.analysis.infer`. None: no such facts.
    external: Mapping[str, ExternalFacts] | None = None
    # Traces other modules of the project give this module's functions (their importers'
    # traced code calls or transforms them): see `jax_lsp.analysis.project`.
    incoming: tuple[IncomingTrace, ...] = ()
    resolver: Resolver = field(init=False)
    alias_key: int = field(init=False)
    # The top-level imports of every unit: local name -> qualified name (keyed by alias_key).
    import_bindings: dict[str, str] = field(init=False)
    summaries: list[UnitSummary] = field(init=False)
    functions: dict[str, FunctionRecord] = field(init=False)
    records: dict[FunctionNode, FunctionRecord] = field(init=False)
    classes: dict[str, ClassRecord] = field(init=False)
    global_kinds: dict[str, Kind] = field(init=False)
    global_values: dict[str, Value] = field(init=False)  # the same, with pytrees, refs, ...
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
    _key_summaries: dict[str, KeySummary] | None = field(init=False, default=None, repr=False)
    _float_globals: frozenset[str] | None = field(init=False, default=None, repr=False)
    _signatures: dict[str, StaticSignature] | None = field(init=False, default=None, repr=False)
    _callee_key: tuple | None = field(init=False, default=None, repr=False)
    _module_reuses: dict[int, tuple[Reuse, ...]] | None = field(
        init=False, default=None, repr=False
    )
    _bindings_key: int = field(init=False, repr=False)  # alias_key without external facts
    _generation: object = field(init=False, repr=False)
    _contexts: dict[ast.AST, TraceInfo | None] = field(init=False, repr=False)
    # While `outgoing_traces` runs: the definitions the imports name in other modules.
    _foreign: ForeignDefinitions = field(init=False, default=NO_FOREIGN, repr=False)
    # Memo of object_params (cleared with _contexts) and of the classes of each function's
    # parameters and locals.
    _objects: dict[ast.AST, tuple[tuple[str, Instance], ...]] = field(init=False, repr=False)
    _param_classes: dict[ast.AST, dict[str, str]] = field(init=False, repr=False)
    # Objects of each class seen outside any trace (see self_object), by class name.
    _plain_objects: dict[str, Object | None] = field(init=False, default_factory=dict, repr=False)
    _bound_in: dict[ast.AST, frozenset[str]] = field(init=False, default_factory=dict, repr=False)
    _rebound: dict[ast.AST, frozenset[str]] = field(init=False, default_factory=dict, repr=False)
    _carries: dict[ast.AST, tuple] = field(init=False, default_factory=dict, repr=False)
    # unit_key's answers by (id of the unit's parse, first line): see `unit_key`.
    _unit_keys: dict[tuple[int, int], tuple] = field(init=False, default_factory=dict, repr=False)
    _method_keys: dict[FunctionNode, tuple] = field(init=False, default_factory=dict, repr=False)
    # scope_kinds's answers by function once the trace is settled (None while it grows): every
    # part of their keys is then fixed for this model, and the rules ask again and again.
    _settled_scopes: dict[FunctionNode, ScopeKinds] | None = field(
        init=False, default=None, repr=False
    )
    # Module functions top-level code names: the hash of their unit's text (see _compute_globals).
    _top_callees: dict[str, int] = field(init=False, default_factory=dict, repr=False)

    @classmethod
    def of(
        cls,
        document: Document,
        x64_setting: bool = False,
        external: Mapping[str, ExternalFacts] | None = None,
        incoming: tuple[IncomingTrace, ...] = (),
    ) -> ModuleModel:
        """The model of `document`: the last model of its versions when this version holds
        the very same parses at the same lines (only comments changed, see
        `Unit.changed_text`), with the same settings and import line; a new one otherwise.
        Every fact of a model is a function of those (the units' trees and memos, their
        places, x64, the external facts, where imports go), so the old one's facts hold. Not
        of the document's path, which no fact reads (the copy takes the new document): `check`
        analyses a module under the path it was given, after a module importing it had its
        model built under the path the import resolved to (`ModuleFactsCache.parsed`)."""
        if external:
            # Facts a model reads nothing from are left out: a module whose imports tell it
            # nothing then has the model its importers build (no facts), and shares it.
            external = {name: facts for name, facts in external.items() if facts.read_by_models}
        previous = next(
            (
                earlier
                for earlier in document.lineage.models()
                if isinstance(earlier, ModuleModel)
                and earlier.x64_setting == x64_setting
                and (earlier.external or {}) == (external or {})  # None and {}: alike
                and earlier.incoming == incoming
            ),
            None,
        )
        if (
            previous is not None
            and _same_units(previous.document, document)
            and previous.import_line == import_insertion_line(document)
        ):
            model = copy.copy(previous)
            model.document = document
        else:
            model = cls(document, x64_setting, external, incoming)
        document.lineage.last_model = model
        return model

    def __post_init__(self) -> None:
        # This model's facts in the lineage's families (`Lineage.reuse_each`), shared by the
        # copies `of` makes of it.
        self._generation = object()
        units = [unit for unit in self.document.units if unit.tree is not None]
        imports = tuple([_unit_import_bindings(unit.source) for unit in units])
        bindings, self.alias_key, self._bindings_key = self.document.lineage.reuse(
            "aliases", (imports, self.external), lambda: _aliases(imports, self.external)
        )
        self.import_bindings = bindings
        # A resolver of its own: it memoises answers by node, which must go with this model.
        self.resolver = Resolver(bindings)
        self.summaries = [self._summary(unit.source) for unit in units]
        self.functions, self.records, self.classes, self._source_of = {}, {}, {}, {}
        self._method_classes: dict[FunctionNode, ClassRecord] = {}
        for unit, summary in zip(units, self.summaries, strict=True):
            for record in summary.functions:
                self.functions[record.path] = record
                self.records[record.node] = record
                self._source_of[record.node] = unit.source
            for record in summary.classes:
                self.classes[record.name] = record
                self._source_of[record.node] = unit.source
                for statement in record.node.body:
                    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                        self._method_classes[statement] = record
        self.import_line = import_insertion_line(self.document)
        self._contexts = {}  # memo of context_of; cleared whenever the trace changes
        self._objects, self._param_classes = {}, {}
        self.classes_passed_to_calls = frozenset(
            name
            for summary in self.summaries
            for name in summary.module_call_arguments
            if name in self.classes
        )
        self._compute_globals(units)
        self._compute_trace(units)
        self._carries.clear()  # shaped while the trace was still growing
        self._settled_scopes = {}
        # What makes a class a PyTree may sit in another statement (JAX401/JAX402); with a
        # name defined twice, which definition a registration registers depends on the order.
        self._class_facts_key = intern_key(
            (
                tuple(sorted(self.classes_passed_to_calls)),
                tuple(sorted((c.name, c.decorators, c.bases) for c in self.classes.values())),
                self._redefined_classes_order(),
            )
        )

    def class_of_method(self, node: FunctionNode, class_name: str) -> ClassRecord:
        """The class whose body defines the method `node` (a name defined twice holds
        several classes; `classes` keeps the last)."""
        return self._method_classes.get(node) or self.classes[class_name]

    def class_defined_twice(self, name: str) -> bool:
        """Does the module bind `name` to more than one class (a notebook redefining it in a
        later cell)? Then writes to an instance's attributes outside the class cannot be
        tied to one definition: the attribute facts know the attribute name only."""
        return name in self._classes_defined_twice

    @cached_property
    def _classes_defined_twice(self) -> frozenset[str]:
        counts: dict[str, int] = {}
        for summary in self.summaries:
            for record in summary.classes:
                counts[record.name] = counts.get(record.name, 0) + 1
        return frozenset(name for name, count in counts.items() if count > 1)

    def _redefined_classes_order(self) -> tuple:
        """For class names defined more than once: the order of their definitions and of the
        module calls that name them, unit by unit."""
        twice = self._classes_defined_twice
        if not twice:
            return ()
        order = []
        for index, summary in enumerate(self.summaries):
            events = [(r.node.lineno, "class", r.name) for r in summary.classes if r.name in twice]
            events += [
                (call.lineno, "call", call.args[0].id)
                for _, call in summary.module_calls
                if call.args and isinstance(call.args[0], ast.Name) and call.args[0].id in twice
            ]
            order += [(index, *event) for event in sorted(events)]
        return tuple(order)

    # -- summaries and globals ------------------------------------------------------------
    def _summary(self, source: UnitSource) -> UnitSummary:
        # A summary reads the import bindings, not the imported names' facts: a module's
        # model for its importers (no facts) and the one `check` builds (with them) share it.
        key = ("summary", self._bindings_key)
        if key not in source.memo:
            source.memo[key] = summarize(source.tree, self.resolver, self._bindings_key)
        return source.memo[key]

    def _compute_globals(self, units: list[Unit]) -> None:
        counts: dict[str, int] = {}
        mutated: set[str] = set()
        for summary in self.summaries:
            for name in summary.top_level_bindings:
                counts[name] = counts.get(name, 0) + 1
            mutated |= summary.mutated_names
        # Each unit's bindings depend on the kinds of the names bound before it: a fold. A
        # top-level call of a module function gives what the function returns, so the texts
        # of the functions top-level code names are part of the fold's context.
        self._top_callees = self._top_level_callees(units)
        bindings, kinds = self.document.lineage.fold(
            "global-kinds",
            (self.alias_key, intern_key(tuple(sorted(self._top_callees.items())))),
            [unit.source for unit in units],
            self._top_level_bindings,
            _merge_bindings,
        )
        self.global_values = kinds
        self.global_kinds, self.globals_key = self.document.lineage.reuse(
            "globals-key",
            kinds,
            lambda: (
                {name: kind_of(value) for name, value in kinds.items()},
                intern_key(tuple(sorted(kinds.items(), key=lambda item: item[0]))),
            ),
        )
        rebound = {name for name, count in counts.items() if count > 1}
        self.mutable_globals = frozenset((rebound | self.global_writes | mutated) & counts.keys())
        self._compute_stable_globals(units, counts)
        self._compute_reaching(units, bindings, rebound - self.global_writes)

    def _compute_reaching(
        self, units: list[Unit], bindings: list[dict[str, Value]], rebound: set[str]
    ) -> None:
        """Where each name that several top-level statements bind (and no function rebinds
        with `global`) gets which value, in document order: module code runs in order, so
        top-level code sees the latest binding before it, not the merge of all of them (the
        merge stays what functions see, as they may run after any of them)."""
        self._reaching_sites: dict[str, list[tuple[int, Value]]] = {}
        self._unit_index: dict[int, int] = {}
        self._reaching: dict[int, dict[str, Value]] = {}  # memo by id(source), this model
        if not rebound:
            return
        rows = zip(units, self.summaries, bindings, strict=True)
        for index, (unit, summary, bound) in enumerate(rows):
            self._unit_index[id(unit.source)] = index
            for name in rebound.intersection(summary.top_level_bindings):
                value = bound.get(name)
                if value is not None:
                    self._reaching_sites.setdefault(name, []).append((index, value))

    def reaching_values(self, source: UnitSource) -> dict[str, Value]:
        """The module-level names a unit's top-level code mentions that an earlier statement
        rebinds, with the value of the latest binding before the unit."""
        if not self._reaching_sites:
            return {}  # no name is bound twice at the top level: nothing to tell apart
        found = self._reaching.get(id(source))
        if found is None:
            found = {}
            index = self._unit_index.get(id(source))
            if index is not None:
                words = source.words()
                for name in [name for name in self._reaching_sites if name in words]:
                    earlier = [value for at, value in self._reaching_sites[name] if at < index]
                    if earlier:
                        found[name] = earlier[-1]
            self._reaching[id(source)] = found
        return found

    def _reaching_key(self, source: UnitSource) -> int:
        values = self.reaching_values(source)
        return intern_key(tuple(sorted(values.items(), key=lambda item: item[0]))) if values else 0

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

    def _top_level_callees(self, units: list[Unit]) -> dict[str, int]:
        """Module functions (not methods, not nested) whose name some unit's top-level code
        reads: their path and the hash of the text of the unit that defines them."""
        names = self.module_function_names
        if not names:
            return {}
        found: dict[str, int] = {}
        for unit in units:
            for name in _loaded_words(unit.source) & names:
                if name not in found:
                    found[name] = hash(self._source_of[self.functions[name].node].text)
        return found

    @cached_property
    def module_function_names(self) -> frozenset[str]:
        """The names of the module-level functions (not methods, nested functions, lambdas)."""
        return frozenset(
            path
            for path, record in self.functions.items()
            if record.parent is None
            and record.class_name is None
            and not isinstance(record.node, ast.Lambda)
        )

    def _plain_return_value(self, path: str) -> Value | None:
        """What calling the module function `path` returns, interpreted on its own without
        the module's globals (which are being found): the summary top-level code follows."""
        if path not in self._top_callees:
            return None
        node = self.functions[path].node
        source = self._source_of[node]
        key = ("plain-returns", self.alias_key, path)
        if key not in source.memo:
            source.memo[key] = self._interpret_returns(node, {})
        return source.memo[key]

    def _top_level_bindings(self, source: UnitSource, known: dict[str, Value]) -> dict[str, Value]:
        plain = source.memo.get("plain-bindings", _UNREAD)
        if plain is _UNREAD:
            plain = source.memo["plain-bindings"] = plain_bindings(source.tree.body)
        if plain is not None:
            return self._with_imported_values(source, plain)
        loads = _loaded_words(source)
        used = frozenset((name, known[name]) for name in loads & known.keys())
        callees = tuple(
            sorted(
                (value.path, self._top_callees[value.path])
                for _, value in used
                if type(value) is Function and value.path in self._top_callees
            )
        )
        key = ("bindings", self.alias_key, used, callees)
        if key not in source.memo:
            interpreter = FlowInterpreter(
                ScopeContext(
                    self.resolver,
                    False,
                    {n: known[n] for n in loads if n in known},
                    external=self.external or {},
                    returns=self._plain_return_value,
                ),
                {},
            )
            interpreter.run_block(source.tree.body)
            source.memo[key] = {
                name: kind for name, kind in interpreter.env.items() if not name.startswith("<")
            }
        return source.memo[key]

    def _with_imported_values(
        self, source: UnitSource, bound: dict[str, Value]
    ) -> dict[str, Value]:
        """`bound` with the values of the names the unit's `from m import NAME` statements
        bind, where the workspace module `m` binds NAME once to a known value
        (`ExternalFacts.value`); the interpreter binds them the same way (`_stmt_Import`)."""
        if not self.external or not any(
            facts.value is not None for facts in self.external.values()
        ):
            return bound
        found = dict(bound)
        for statement in source.tree.body:
            if type(statement) is ast.ImportFrom:
                for alias in statement.names:
                    local = alias.asname or alias.name
                    facts = self.external.get(local)
                    if facts is not None and facts.value is not None:
                        found[local] = facts.value
        return found

    @cached_property
    def self_updates(self) -> dict[str, tuple[tuple[int, str], ...]]:
        """The updates top-level code gives a name from itself (`x = x.at[i].add(v)`): by
        name, the document line and index key of each (`analysis.updates`)."""
        found: dict[str, list[tuple[int, str]]] = {}
        for unit in self.document.units:
            for name, line, key in top_level_self_updates(unit.source):
                found.setdefault(name, []).append((unit.start_line + line, key))
        return {name: tuple(entries) for name, entries in found.items()}

    @cached_property
    def may_make_explicit_meshes(self) -> bool:
        """Whether the module's code names what builds a mesh with explicit axes
        (`analysis.sharding`), or imports a name from a workspace module whose code does
        (`ExternalFacts.explicit_meshes`): an `.at[...]` update of an array on such a mesh
        needs `out_sharding=`."""
        if any(facts.explicit_meshes for facts in (self.external or {}).values()):
            return True
        return any(names_explicit_meshes(unit.source) for unit in self.document.units)

    @cached_property
    def nnx_objects(self) -> dict[tuple[str, str], str]:
        """Holders of flax nnx objects (modules, optimizers, variables): ("", name) for a
        module-level name, (class, attr) for `self.attr`; with the constructor's qualname
        (a class of the module deriving from nnx: its name). A holder also given anything
        else is left out."""
        found: dict[tuple[str, str], str] = {}
        mixed: set[tuple[str, str]] = set()
        for summary in self.summaries:
            for owner, name, callee in summary.objects:
                holder = (owner, name)
                if not self._is_nnx_class(callee) or found.setdefault(holder, callee) != callee:
                    mixed.add(holder)
        return {holder: callee for holder, callee in found.items() if holder not in mixed}

    def _is_nnx_class(self, callee: str) -> bool:
        if callee.startswith("flax.nnx."):
            return callee.rpartition(".")[2][:1].isupper()
        record = self.classes.get(callee)
        return record is not None and any(base.startswith("flax.nnx.") for base in record.bases)

    @cached_property
    def module_state(self) -> ModuleState:
        """Which module-level names are containers, and which change after a trace."""
        return ModuleState(self)

    # -- traced functions -----------------------------------------------------------------
    def resolve(self, ref: FunctionRef, line: int | None = None) -> FunctionNode | None:
        found = self.resolve_ref(ref, line)
        return found[0] if found is not None else None

    def resolve_ref(
        self, ref: FunctionRef, line: int | None = None, caller: FunctionNode | None = None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The definition a reference names, seen from document `line` (None: the last one)
        in `caller`, and the reference as the call sees it (a bound method fixes `self`; a
        classmethod called through its class fixes `cls`; a linen module's `apply` passes
        the variables first)."""
        found = self._resolve_ref(ref, line, caller)
        if (
            found is not None
            and not found[1].bound_positional
            and "." in found[1].name
            and is_classmethod(found[0])
        ):
            return found[0], replace(found[1], bound_positional=1)
        return found

    def _resolve_ref(
        self, ref: FunctionRef, line: int | None, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        if ref.node is not None:
            return ref.node, ref
        for scope in reversed(ref.scopes):
            node = self._definition(f"{scope}.{ref.name}", line)
            if node is not None:
                return node, ref
        node = self._definition(ref.name, line)
        if node is not None:
            if ref.bound_self and is_staticmethod(node):  # `self.helper` of a staticmethod
                return node, replace(ref, bound_positional=ref.bound_positional - 1)
            return node, ref
        transformed = self._transformed_global(ref.name, line, caller)
        if transformed is not None:
            return transformed, ref
        alias = self._method_aliases.get(ref.name) if "." not in ref.name else None
        if alias is not None and not (caller and binds_locally(ref.name, caller)):
            node, bound = alias  # `step = jax.jit(env.step)`, then `step(state, action)`
            return node, replace(ref, bound_positional=ref.bound_positional + bound)
        owner, _, attribute = ref.name.rpartition(".")
        haiku = self.haiku_transforms.get(owner) if attribute in ("init", "apply") else None
        if haiku is not None and not (caller and binds_locally(owner, caller)):
            function, apply_leading = haiku  # `model.apply(params, rng, x)` runs `f(x)`
            node = (
                function if isinstance(function, ast.Lambda) else self._definition(function, line)
            )
            leading = ref.leading_args + (apply_leading if attribute == "apply" else 1)
            return None if node is None else (node, replace(ref, leading_args=leading))
        if ref.owner_class is not None:  # `self.encoder.apply`
            class_name = self.attribute_classes.get((ref.owner_class, owner))
        elif attribute == "apply_fn" and owner:  # `state.apply_fn(variables, x)`
            class_name, attribute = self.apply_fn_class, "apply"
        elif caller is not None and (owner or ref.name) in self.classes_in(caller):
            class_name = self.classes_in(caller)[owner or ref.name]  # `model: MLP`, `step(mlp)`
        elif owner in self.classes:  # `self.encoder(x)`: the object in an attribute
            class_name = self.attribute_classes.get((owner, attribute))
            if class_name is None:
                return self._foreign_ref(ref, caller)
            return self._method_of(class_name, "", replace(ref, bound_positional=0), line)
        else:  # `model.apply`, `model(x)`
            class_name = self.instances.get(owner or ref.name)
            if class_name is None and line is not None and caller is None:
                # Bound to other values too: top-level code sees the binding before it (a
                # function's body, the binding when it is called, unknown here).
                class_name = self._instance_class_at(owner or ref.name, line)
        if class_name is None:
            return self._foreign_ref(ref, caller)
        return self._method_of(class_name, attribute if owner else "", ref, line)

    # -- definitions in other modules ------------------------------------------------------
    def _foreign_ref(
        self, ref: FunctionRef, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """What a reference the module's own code cannot resolve names in another workspace
        module: an imported function (`clip(g)`, `utils.clip(g)`), a method of an imported
        class (`Cls.f`, `Cls(...)(x)`), of an instance of one (`env.step`, `self.norm.f(x)`,
        `model.apply(v, x)`: linen runs `__call__`), or a method a class of the module
        inherits from one. Its definition there, bound as the call binds it."""
        foreign = self._foreign
        if foreign is NO_FOREIGN:
            return None  # the rules and facts read this module's own definitions only
        owner, _, attribute = ref.name.rpartition(".")
        local = owner or ref.name
        if ref.owner_class is not None:  # `self.normalizer.normalize(x)`
            held = self._foreign_attribute_classes.get((ref.owner_class, owner))
            found = self._foreign_method(held, attribute, ref) if held else None
        elif caller is not None and binds_locally(local, caller):
            held = self._foreign_instances.get(caller, {}).get(local)
            held = held or self._foreign_annotated(caller).get(local)
            found = self._foreign_method(held, attribute if owner else "", ref) if held else None
        elif owner in self.classes:  # a method a class of the module inherits
            found = self._inherited_method(owner, attribute, ref)
        elif owner and (held := self._foreign_instances.get(None, {}).get(owner)):
            found = self._foreign_method(held, attribute, ref)  # a module-level instance
        elif owner:
            member = foreign.member(owner, attribute)  # `module.f`, `Cls.f`, `Cls(...)(x)`
            found = (member, ref) if member is not None else None
        else:
            function = foreign.function(ref.name)
            if function is None and (held := self._foreign_instances.get(None, {}).get(local)):
                found = self._foreign_method(held, "", ref)
            else:
                found = (function, ref) if function is not None else None
        if found is None or found[0] is None or found[0].node is None:
            return None
        function, ref = found
        self._foreign_nodes[function.node] = function
        return function.node, ref

    def _foreign_class_method(
        self, ref: FunctionRef, class_method: str, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The method a lifted transformation runs on instances of a class imported from
        another workspace module (`nn.scan(Cell)`: `Cell.__call__`)."""
        if self._foreign is NO_FOREIGN or (caller is not None and binds_locally(ref.name, caller)):
            return None
        if not self._foreign.is_class(ref.name):
            return None
        method = self._foreign.method(ref.name, class_method)
        if method is None:
            return None
        self._foreign_nodes[method.node] = method
        return method.node, replace(ref, bound_positional=ref.bound_positional + 1)

    def _foreign_method(
        self, class_local: str, attribute: str, ref: FunctionRef
    ) -> tuple[ForeignFunction, FunctionRef] | None:
        """The method an instance of the imported class runs for `attribute` ("": the object
        called), bound to the instance: a linen module's `apply`/`init` run `__call__` (or
        their `method=`) after the variables or keys."""
        if attribute in LINEN_RUNS and self._foreign.linen_class(class_local):
            attribute = ref.apply_method or "__call__"
            ref = replace(ref, leading_args=ref.leading_args + 1)
        method = self._foreign.method(class_local, attribute or "__call__")
        if method is None:
            return None
        if is_staticmethod(method.node):
            return method, ref
        return method, replace(ref, bound_positional=ref.bound_positional + 1)

    def _inherited_method(
        self, class_name: str, attribute: str, ref: FunctionRef
    ) -> tuple[ForeignFunction, FunctionRef] | None:
        """`self.f(...)` in a class of the module whose base, imported, defines `f`."""
        for base in self.classes[class_name].node.bases:
            if isinstance(base, ast.Name) and self._foreign.is_class(base.id):
                method = self._foreign.method(base.id, attribute)
                if method is not None:
                    return method, ref
        return None

    def _foreign_property_reads(self, node: FunctionNode) -> list[CallSite]:
        """Reads in `node` of a property of an instance of a class imported from another
        workspace module (`norm.scale` of `norm: RunningNorm`), as the getter's call."""
        if self._foreign is NO_FOREIGN or isinstance(node, ast.Lambda):
            return []
        held = {**self._foreign_instances.get(node, {}), **self._foreign_annotated(node)}
        if not held:
            return []
        found = []
        for read in walk_nodes(node):
            if (
                type(read) is ast.Attribute
                and type(read.ctx) is ast.Load
                and type(read.value) is ast.Name
                and read.value.id in held
                and self._foreign.is_property(held[read.value.id], read.attr)
            ):
                getter = ast.copy_location(ast.Call(read, [], []), read)
                found.append(
                    CallSite(node, FunctionRef(f"{read.value.id}.{read.attr}", ()), getter)
                )
        return found

    @cached_property
    def _foreign_nodes(self) -> dict[FunctionNode, ForeignFunction]:
        """The definitions in other modules this model's references resolved to."""
        return {}

    @cached_property
    def _foreign_instances(self) -> dict[FunctionNode | None, dict[str, str]]:
        """Names each function (None: the module) binds to `Cls(...)` of a class imported
        from another workspace module (`_constructed` counts them while `_foreign` is set)."""
        return {
            scope: {name: held for name, held in bound.items() if held not in self.classes}
            for scope, bound in self._constructed.items()
        }

    def _foreign_annotated(self, function: FunctionNode) -> dict[str, str]:
        """Parameters annotated with a class imported from another workspace module."""
        return {
            name: held
            for name, held in self._annotated_params(function).items()
            if held not in self.classes
        }

    @cached_property
    def _foreign_attribute_classes(self) -> dict[tuple[str, str], str]:
        """(class, attribute) -> the imported class whose instance the attribute holds
        (`self.normalizer = Normalizer()` in a method)."""
        found: dict[tuple[str, str], str] = {}
        for record in self.classes.values():
            for attribute, class_name in _attribute_constructors(record.node):
                if class_name not in self.classes and self._foreign.is_class(class_name):
                    found.setdefault((record.name, attribute), class_name)
        return found

    @cached_property
    def _method_aliases(self) -> dict[str, tuple[FunctionNode, int]]:
        """Module-level names bound once to a transformation of an object's method (`step =
        jax.jit(env.step)`): the method, and how many leading parameters the object fixes
        (its `self`). Calls of the name run the method."""
        found: dict[str, tuple[FunctionNode, int]] = {}
        units = [unit for unit in self.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.summaries, strict=True):
            for application in summary.applications:
                name = _bound_method_alias(unit.tree, application)
                if name is None or name not in self.stable_globals:
                    continue
                line = unit.start_line + application.node.lineno
                resolved = self.resolve_ref(application.target, line)
                if resolved is not None and not isinstance(resolved[0], ast.Lambda):
                    found[name] = (resolved[0], resolved[1].bound_positional)
        return found

    @cached_property
    def _constructing_functions(self) -> dict[str, str]:
        """Functions and methods of the module (by path) each of whose returns builds an
        instance of one class of the module (`def reset(self): return State(...)`)."""
        found: dict[str, str] = {}
        for path, record in self.functions.items():
            if isinstance(record.node, ast.Lambda | ast.AsyncFunctionDef):
                continue
            returns = own_returns(record.node, may_yield=False)
            built = {
                value.func.id
                for value in returns or ()
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            }
            if (
                returns
                and len(built) == 1
                and len(returns) == sum(isinstance(v, ast.Call) for v in returns)
                and next(iter(built)) in self.classes
            ):
                found[path] = next(iter(built))
        return found

    def _returned_class(self, call: ast.Call, instances: Mapping[str, str]) -> str | None:
        """The class of the module whose instance `call` returns: a function of the module or
        a method of an instance in `instances` (`env.reset()`) that builds one."""
        func = call.func
        if isinstance(func, ast.Name):
            return self._constructing_functions.get(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = instances.get(func.value.id)
            if owner is not None:
                return self._constructing_functions.get(f"{owner}.{func.attr}")
        return None

    def resolve_transformed(
        self,
        ref: FunctionRef,
        line: int | None = None,
        caller: FunctionNode | None = None,
        class_method: str | None = None,
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """What a transformation applied to `ref` runs: as `resolve_ref`, and for a class of
        the module (`jax.jit(CubicSpline)`, `jax.vmap(Model)`) its `__init__`, which builds the
        object from the transformed arguments (`self` is the new object, not an argument), or
        the `class_method` of its instances a lifted transformation runs (`nn.scan(Cell)`)."""
        found = self.resolve_ref(ref, line, caller)
        if found is None and class_method is not None and "." not in ref.name:
            found = self._foreign_class_method(ref, class_method, caller)
        if found is not None or ref.name not in self.classes or "." in ref.name:
            return found
        if caller is not None and binds_locally(ref.name, caller):
            return None
        if class_method is not None:
            return self._method_of(ref.name, class_method, ref, line)
        init = self._definition(f"{ref.name}.__init__", line)
        if init is None or isinstance(init, ast.Lambda):
            return None
        return init, replace(ref, bound_positional=ref.bound_positional + 1)

    def _transformed_global(
        self, name: str, line: int | None, caller: FunctionNode | None
    ) -> FunctionNode | None:
        """The function a module-level name bound once to a function runs: a transformation
        of it (`f = shard_map(body, ...)`: calling `f` or `jax.jit(f)` runs `body`) or the
        function a factory of the module returns (`step = make_step(model)`)."""
        if name not in self.stable_globals or (caller and binds_locally(name, caller)):
            return None
        value = self.global_values.get(name)
        if type(value) is not Function or value.path is None:
            return None
        return self._definition(value.path, line)

    def _method_of(
        self, class_name: str, attribute: str, ref: FunctionRef, line: int | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The method `attribute` (the object called: `__call__`) of an instance of the
        class, bound to it; a linen module's `apply` and `init` run `__call__` (or their
        `method=`) on the arguments after the variables or the PRNG keys."""
        if class_name not in self.classes:  # imported (see `outgoing_traces`)
            found = self._foreign_method(class_name, attribute, ref)
            if found is None:
                return None
            self._foreign_nodes[found[0].node] = found[0]
            return found[0].node, found[1]
        record = self.classes[class_name]
        if not attribute:
            attribute = "__call__"
        elif (
            attribute in LINEN_RUNS
            and LINEN_MODULE in record.bases
            and self._definition(f"{class_name}.{attribute}", line) is None  # not overridden
        ):
            attribute = ref.apply_method or "__call__"
            ref = replace(ref, leading_args=ref.leading_args + 1)
        node = self._definition(f"{class_name}.{attribute}", line)
        if node is None:
            return None
        if is_staticmethod(node):  # `model.helper(x)`: no instance passed
            return node, ref
        return node, replace(ref, bound_positional=ref.bound_positional + 1)

    def _definition(self, path: str, line: int | None) -> FunctionNode | None:
        """The definition of `path` bound at document `line`: the last one before it (a
        function defined twice, in a notebook or a script), else the first."""
        definitions = self._definitions.get(path)
        if not definitions:
            return None
        if line is None or len(definitions) == 1:
            return definitions[-1][1]
        before = [node for start, node in definitions if start <= line]
        return before[-1] if before else definitions[0][1]

    @cached_property
    def _stable_shapes(self) -> dict[str, ArrayShape]:
        def compute() -> dict[str, ArrayShape]:
            tracker = ShapeTracker(self.resolver, frozenset())
            for name, value in stable:
                tracker.bind(ast.Name(name, ast.Store()), value)
            return tracker.env

        # The value expressions compare by identity: the same while their units are unchanged.
        stable = tuple(self.stable_globals.items())
        return self.document.lineage.reuse("stable-shapes", (self.alias_key, stable), compute)

    def stable_shapes(self, text: str) -> Mapping[str, ArrayShape]:
        """Literal shapes of the module-level names `text` mentions that are bound once and
        never rebound: they keep their shape everywhere. Read-only: a rule's reads of module
        facts are recorded with their answers (`jax_lsp.analysis.reads`)."""
        shapes = self._stable_shapes
        if not shapes:
            return MappingProxyType({})  # most modules: the text's names are not needed
        names = identifiers(text)
        if len(names) > len(shapes):
            return MappingProxyType({n: shape for n, shape in shapes.items() if n in names})
        return MappingProxyType({name: shapes[name] for name in names if name in shapes})

    @cached_property
    def instances(self) -> dict[str, str]:
        """Module-level names bound once to an instance of a class of the module."""
        return {
            name: value.func.id
            for name, value in self.stable_globals.items()
            if isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in self.classes
        }

    @cached_property
    def haiku_transforms(self) -> dict[str, tuple[str | ast.Lambda, int]]:
        """Module-level names bound once to a haiku transformation of a module function or
        of a lambda (`model = hk.transform(forward)`, `hk.transform(lambda x: Net()(x))`,
        `@hk.transform` on a function): the function's path or the lambda, and how many
        arguments of `apply` come before its own (params, state, rng)."""
        found = {
            name: transformed
            for name, value in self.stable_globals.items()
            if (transformed := _haiku_transformed(value, self.resolver)) is not None
        }
        for path, record in self.functions.items():
            for decorator in getattr(record.node, "decorator_list", ()):
                leading = _HAIKU_TRANSFORMS.get(self.resolver.qualname(decorator) or "")
                if leading is not None and "." not in path and path not in self.stable_globals:
                    found[path] = (path, leading)
        return found

    @cached_property
    def apply_fn_class(self) -> str | None:
        """The class of the objects whose `apply` the module passes as `apply_fn=`, when
        there is one such class."""
        classes = {
            self.instances.get(name) for summary in self.summaries for name in summary.apply_fns
        }
        return classes.pop() if len(classes) == 1 else None

    def _annotated_params(self, function: FunctionNode) -> dict[str, str]:
        """Parameters annotated with a class of the module (`model: MLP`), or of another
        workspace module while `_foreign` names them (see `outgoing_traces`)."""
        if isinstance(function, ast.Lambda):
            return {}
        args = function.args
        return {
            arg.arg: arg.annotation.id
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]
            if isinstance(arg.annotation, ast.Name)
            and (arg.annotation.id in self.classes or self._foreign.is_class(arg.annotation.id))
        }

    def classes_in(self, function: FunctionNode) -> dict[str, str]:
        """Names of a function that hold an instance of a class of the module: parameters
        annotated with it (`model: MLP`) or given one by a call (`step(mlp, x)`), and locals
        bound to one (`model = MLP(...)`)."""
        found = self._param_classes.get(function)
        if found is None:
            found = {
                **self._loop_element_classes(function),
                **self._lambda_param_classes(function),
                **self._constructed.get(function, {}),
                **self.passed_classes.get(function, {}),
                **self._annotated_params(function),
            }
            self._param_classes[function] = found
        return found

    def _loop_element_classes(self, function: FunctionNode) -> dict[str, str]:
        """Names a method binds to the elements of a list its object holds, all instances
        of one class of the module (`for layer in self.layers:` where `self.layers =
        nnx.List([Block(...) for _ in range(n)])`); a name bound otherwise too is left out."""
        record = self.records.get(function)
        positional = positional_params(function)
        if record is None or record.class_name not in self.classes or not positional:
            return {}
        if isinstance(function, ast.Lambda):
            return {}
        found: dict[str, str] = {}
        targets: set[ast.Name] = set()
        mixed: set[str] = set(all_params(function))
        nodes = walk_nodes(function)
        for loop in nodes:
            if not (
                type(loop) is ast.For
                and type(loop.target) is ast.Name
                and type(loop.iter) is ast.Attribute
                and type(loop.iter.value) is ast.Name
                and loop.iter.value.id == positional[0]
            ):
                continue
            key = (record.class_name, loop.iter.attr + ELEMENTS)
            held = self.attribute_classes.get(key)
            if held is None and self._foreign is not NO_FOREIGN:
                held = self._foreign_attribute_classes.get(key)  # an imported class's objects
            if held is not None:
                targets.add(loop.target)
                if found.setdefault(loop.target.id, held) != held:
                    mixed.add(loop.target.id)
        if found:  # a name bound otherwise too may hold anything
            mixed |= {
                node.id
                for node in nodes
                if type(node) is ast.Name and type(node.ctx) is ast.Store and node not in targets
            }
        return {name: held for name, held in found.items() if name not in mixed}

    def _lambda_param_classes(self, function: FunctionNode) -> dict[str, str]:
        """Parameters of the lambdas in `function` given an instance of a class of the module
        (`nnx.value_and_grad(lambda m: loss(m(x)))(model)`). The calls in a lambda's body are
        the enclosing function's, so its parameters are looked up there; a name the function
        binds itself, or lambdas given two classes under one name, are left out."""
        if isinstance(function, ast.Lambda):
            return {}
        passed = self.passed_classes
        if not any(isinstance(node, ast.Lambda) for node in passed):
            return {}
        found: dict[str, str] = {}
        clashes: set[str] = set()
        for node in _own_lambdas(function):
            for name, class_name in passed.get(node, {}).items():
                shadowed = binds_locally(name, function)
                if shadowed or found.setdefault(name, class_name) != class_name:
                    clashes.add(name)
        return {name: class_name for name, class_name in found.items() if name not in clashes}

    @cached_property
    def _constructed(self) -> dict[FunctionNode | None, dict[str, str]]:
        """Names each function (None: the module) binds to `Cls(...)`, a class of the module;
        a name bound to instances of two classes is left out."""
        found: dict[FunctionNode | None, dict[str, str]] = {}
        mixed: set[tuple[FunctionNode | None, str]] = set()
        for summary in self.summaries:
            for scope, name, callee in summary.constructions:
                if (callee in self.classes or self._foreign.is_class(callee)) and found.setdefault(
                    scope, {}
                ).setdefault(name, callee) != callee:
                    mixed.add((scope, name))
        for scope, name in mixed:
            found[scope].pop(name, None)
        return found

    @cached_property
    def passed_classes(self) -> dict[FunctionNode, dict[str, str]]:
        """Parameters to which a call of the module passes an instance of a class of the
        module: a name bound to `Cls(...)` in the caller or at module level, `Cls(...)`
        itself, or a parameter that receives one; through plain calls and called
        transformations (`eqx.filter_value_and_grad(loss)(model, x, y)`). A parameter given
        instances of two classes is left out."""
        constructed = self._constructed
        classes: Mapping[str, object] = self.classes
        if self._foreign is not NO_FOREIGN:  # imported classes too (see `outgoing_traces`)
            classes = {**dict.fromkeys(self._foreign.class_names()), **self.classes}
        if not classes:
            return {}
        names = {name for bound in constructed.values() for name in bound}
        units = [unit for unit in self.document.units if unit.tree is not None]
        sites: list[tuple[FunctionNode | None, FunctionRef, ast.Call, int]] = []
        for unit, summary in zip(units, self.summaries, strict=True):
            sites += [(c.caller, c.callee, c.node, unit.start_line) for c in summary.calls]
            sites += [
                (a.enclosing, a.target, a.call, unit.start_line)
                for a in summary.applications
                if a.call is not None
            ]
        found: dict[FunctionNode, dict[str, str]] = {}
        mixed: set[tuple[FunctionNode, str]] = set()
        for _ in range(_MAX_CLASS_ROUNDS):  # a parameter that receives one may pass it on
            changed = False
            for caller, ref, call, unit_start in sites:
                arguments = [*call.args, *(k.value for k in call.keywords)]
                if not any(
                    _may_hold_instance(arg, names, classes)
                    or (type(arg) is ast.Call and self._constructing_functions)
                    for arg in arguments
                ):
                    continue
                resolved = self.resolve_ref(ref, unit_start + call.lineno)
                if resolved is None:
                    continue
                callee, ref = resolved
                own = dict(constructed.get(None, {}))
                if caller is not None:  # its parameters shadow the module's names
                    for param in all_params(caller):
                        own.pop(param, None)
                    own.update(constructed.get(caller, {}))
                    own.update(found.get(caller, {}))
                passed = _instances_passed(callee, call, ref, own, classes, self._returned_class)
                for param, class_name in passed:
                    params = found.setdefault(callee, {})
                    if (callee, param) in mixed or params.get(param) == class_name:
                        continue
                    if param in params:
                        mixed.add((callee, param))
                        del params[param]
                    else:
                        params[param] = class_name
                        names.add(param)
                    changed = True
            if not changed:
                break
        return found

    def object_params(self, node: FunctionNode) -> tuple[tuple[str, Instance], ...]:
        """Traced parameters holding an instance of a PyTree class of the module (`self` of
        a method traced with its object, `model` given an `MLP`): objects whose attributes
        have the values of their fields."""
        found = self._objects.get(node)
        if found is None:
            found = self._objects[node] = self._compute_object_params(node)
        return found

    def _compute_object_params(self, node: FunctionNode) -> tuple[tuple[str, Instance], ...]:
        info = self.trace.get(node)
        if info is None or not info.traced_params or isinstance(node, ast.Lambda):
            return ()
        classes = self._object_classes(node)
        found = []
        for name in sorted(info.traced_params & classes.keys()):
            instance = self._instance(classes[name], name in info.all_leaves)
            if instance is not None:
                found.append((name, instance))
        imported = self._imported_instances(node, info) if self.external else {}
        found += [item for item in sorted(imported.items()) if item[0] not in classes]
        return tuple(found)

    def instance_of_class(self, class_name: str, every_leaf: bool = False) -> Instance | None:
        """A traced instance of the module's class `class_name`, if it is a PyTree (what its
        importers' traced code holds: `ExternalFacts.instance_fields`)."""
        return self._instance(class_name, every_leaf)

    def _imported_instances(self, node: FunctionNode, info: TraceInfo) -> dict[str, Instance]:
        """Traced parameters annotated with a PyTree class imported from a workspace module
        (`state: EnvState`): instances whose fields have the values that module gives them."""
        external = self.external or {}
        args = node.args
        found: dict[str, Instance] = {}
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            annotation = arg.annotation
            if arg.arg not in info.traced_params or not isinstance(annotation, ast.Name):
                continue
            facts = external.get(annotation.id)
            if facts is None or facts.instance_fields is None:
                continue
            if annotation.id in self.classes or annotation.id in self.global_values:
                continue  # bound here too: the annotation may name another class
            every_leaf = arg.arg in info.all_leaves and facts.leaf_instance_fields is not None
            fields = facts.leaf_instance_fields if every_leaf else facts.instance_fields
            found[arg.arg] = Instance(annotation.id, fields)
        return found

    def self_object(self, node: FunctionNode) -> tuple[tuple[str, Object], ...]:
        """The `self` of a method nothing traces: an object of its class whose attributes hold
        what the class's methods assign them (`self.data = jnp.zeros(n)`: a JAX array)."""
        record = self.records.get(node)
        if record is None or record.parent is not None or record.class_name not in self.classes:
            return ()
        # Asked for every function of every unit on each edit: the class's answer when known
        # (memoised per model, usually none) first. Not yet known, it is worked out only for
        # a method that may have such a self (the trace asks for traced methods only).
        if self._plain_objects.get(record.class_name, ()) is None:
            return ()
        if (
            isinstance(node, ast.Lambda)
            or self.context_of(node) is not None
            or any(
                isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                for d in node.decorator_list
            )
        ):
            return ()
        found = self._plain_object(record.class_name)
        positional = node.args.posonlyargs or node.args.args
        return ((positional[0].arg, found),) if positional and found is not None else ()

    def _plain_object(self, class_name: str) -> Object | None:
        if class_name not in self._plain_objects:
            self._plain_objects[class_name] = self._compute_plain_object(class_name)
        return self._plain_objects[class_name]

    def _compute_plain_object(self, class_name: str) -> Object | None:
        record = self.classes[class_name]
        source = self._source_of[record.node]
        # The class's own assignments first (memoised on its unit, member by member): a
        # class that assigns no readable attribute (fields declared in its body: dataclasses,
        # `eqx.Module`) has no plain object, and the module-wide pass below is not needed.
        assigned, unknown = self._self_assignments(record)
        if ANY_ATTRIBUTE in unknown or not assigned.keys() - unknown:
            return None
        if ANY_ATTRIBUTE in self._written_outside:
            # Any attribute may be set from outside (`setattr(obj, name, v)` somewhere): no
            # class has a plain object.
            return None
        if class_name in self._subclassed:
            return None  # a subclass may assign other values
        key = (
            "object-fields",
            record.node,
            self.alias_key,
            self.globals_key,
            self._returns_key(source),
        )
        fields = source.memo.get(key)
        if fields is None:
            # A code edit in one method makes a new parse of the class, yet the fields
            # depend only on the assignments to `self` (nodes of the members the edit did not
            # touch, shared with the last parse), the imports, the globals and the module
            # functions the class's text names: reused from the last parse while those are
            # the same (the edited method assigning nothing, mostly).
            inputs = (
                class_name,
                tuple((name, tuple(found)) for name, found in assigned.items()),
                unknown,
                self.alias_key,
                self.globals_key,
                self._named_function_units(source),
            )
            fields = source.memo[key] = self.document.lineage.reuse_each(
                "object-fields",
                self._generation,
                class_name,
                inputs,
                lambda: self._object_fields(assigned, unknown, class_name),
            )
        if not fields:
            return None
        written = self._written_outside
        kept = tuple((name, value) for name, value in fields if name not in written)
        return Object(class_name, kept) if kept else None

    def _self_assignments(self, record: ClassRecord) -> tuple[dict, frozenset[str]]:
        source = self._source_of[record.node]
        key = ("self-assignments", record.node)
        found = source.memo.get(key)
        if found is None:  # syntax only: memoised on the class's unit
            found = source.memo[key] = self_assignments(record.node, source.text)
        return found

    @cached_property
    def _written_outside(self) -> frozenset[str]:
        """The attributes that any class's methods assign which the module also assigns
        outside constructors: one pass over the units for all classes."""
        names: set[str] = set()
        for record in self.classes.values():
            assigned, unknown = self._self_assignments(record)
            names |= assigned.keys() - unknown
        return self._assigned_outside(frozenset(names))

    @cached_property
    def _subclassed(self) -> frozenset[str]:
        """Names that a class of the module derives from (`class B(A)`, `class B(mod.A)`)."""
        return frozenset(
            base.id if isinstance(base, ast.Name) else base.attr
            for record in self.classes.values()
            for base in record.node.bases
            if isinstance(base, ast.Name | ast.Attribute)
        )

    def _assigned_outside(self, names: frozenset[str]) -> frozenset[str]:
        """Which of `names` the module assigns outside constructors (`obj.attr = v`, see
        `assigned_attributes`), "*" for any: only units whose text holds one of the names
        (or `setattr`) are walked."""
        found: set[str] = set()
        for unit in self.document.units:
            if unit.tree is None:
                continue
            words = unit.source.words()
            if "setattr" not in words and words.isdisjoint(names):
                continue
            written = {
                w.attribute if type(w) is FreshWrite else w for w in _unit_attribute_writes(unit)
            }
            if ANY_ATTRIBUTE in written:
                return frozenset([ANY_ATTRIBUTE])
            found |= written & names
        return frozenset(found)

    def _object_fields(
        self,
        assigned: dict[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.expr]]],
        unknown: frozenset[str],
        class_name: str,
    ) -> tuple[tuple[str, Value], ...]:
        """Each attribute's value: every assignment of it in a method, merged. Values that
        read `self` are found once those that do not are known (`self.x = self.x.at[i].set(v)`
        keeps the kind `__init__` gave)."""
        writes = [
            (name, method, value)
            for name, found in assigned.items()
            if name not in unknown
            for method, value in found
        ]
        found: dict[str, Value] = {}
        for reads_self in (False, True):
            known = tuple((name, value) for name, value in found.items())
            for name, method, value in writes:
                me = positional_params(method)[0]
                if reads_self != any(
                    isinstance(n, ast.Name) and n.id == me for n in walk_nodes(value)
                ):
                    continue
                result = self._evaluate_in(method, value, {me: Object(class_name, known)})
                found[name] = merge_values(found[name], result) if name in found else result
        return tuple(sorted((n, v) for n, v in found.items() if v is not Kind.UNKNOWN))

    def _evaluate_in(
        self, method: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr, env: dict[str, Value]
    ) -> Value:
        """The value of one expression of a method, every other name the method binds unknown
        (only module names and what `env` gives are known)."""
        bound = self._bound_in.get(method)
        if bound is None:
            bound = self._bound_in[method] = frozenset(
                [
                    *(
                        n.id
                        for n in walk_nodes(method)
                        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
                    ),
                    *all_params(method),
                ]
            )
        names: dict[str, Value] = dict.fromkeys(bound, Kind.UNKNOWN)
        names.update(env)
        resolver = self.resolver.child(local_imports(method), frozenset(names))
        context = ScopeContext(
            resolver,
            False,
            self.global_values,
            external=self.external or {},
            returns=self.return_value,
        )
        interpreter = FlowInterpreter(context, {}, {})
        interpreter.env = names
        return interpreter.eval(value)

    def _object_classes(self, node: FunctionNode) -> dict[str, str]:
        """`classes_in`, with `self` of a method of a class of the module."""
        classes = self.classes_in(node)
        record = self.records.get(node)
        positional = positional_params(node)
        if record is not None and record.class_name in self.classes and positional:
            classes = {**classes, positional[0]: record.class_name}
        return classes

    def _instance(self, class_name: str, every_leaf: bool = False) -> Instance | None:
        """A traced instance of the class, if it is a PyTree (else JAX would not take it).
        `every_leaf`: passed through a transformation tracing every leaf (`jax.jit`)."""
        record = self.classes.get(class_name)
        if record is None:
            return None  # a class of another module (see `outgoing_traces`): unknown fields
        if not is_registered_pytree(record, self.summaries):
            return None
        every_leaf = every_leaf and flattens_fields(record)
        source = self._source_of[record.node]
        key = ("fields", self.alias_key, class_name, every_leaf)
        if key not in source.memo:
            fields = field_values(record.node, self.resolver, every_leaf)
            source.memo[key] = Instance(class_name, tuple(sorted(fields.items())))
        return source.memo[key]

    @cached_property
    def boolean_fields(self) -> dict[str, frozenset[str]]:
        """Class -> fields that hold boolean arrays (declared, or given one by every call of
        the class in the module). Read by question (`reads.RECORDED`)."""
        return boolean_fields(self.classes, self.summaries, self.resolver)

    @cached_property
    def boolean_entries(self) -> dict[str, dict[str, frozenset[str]]]:
        """Module function -> parameter -> keys under which every call of the function in
        the module passes a boolean array in a dict display. Read by question
        (`reads.RECORDED`)."""
        return boolean_entries(self.functions, self.summaries, self.resolver)

    @cached_property
    def attribute_classes(self) -> dict[tuple[str, str], str]:
        """(class, attribute) -> the class of the module whose instance the attribute holds:
        from `self.attr = Cls(...)` in its methods, `attr: Cls` in its body, and module-level
        `obj = Owner(attr=instance)`."""
        found: dict[tuple[str, str], str] = {}
        for record in self.classes.values():
            source = self._source_of[record.node]
            key = ("attribute-constructors", record.node)
            constructors = source.memo.get(key)
            if constructors is None:  # syntax only: memoised on the class's unit
                constructors = source.memo[key] = _attribute_constructors(record.node)
            for attribute, class_name in constructors:
                if class_name in self.classes:
                    found.setdefault((record.name, attribute), class_name)
        for value in self.stable_globals.values():
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
                continue
            if value.func.id not in self.classes:
                continue
            for keyword in value.keywords:
                held = keyword.value
                if isinstance(held, ast.Name) and held.id in self.instances:
                    class_name = self.instances[held.id]
                elif isinstance(held, ast.Call) and isinstance(held.func, ast.Name):
                    class_name = held.func.id
                else:
                    continue
                if keyword.arg and class_name in self.classes:
                    found.setdefault((value.func.id, keyword.arg), class_name)
        return found

    def _is_array_annotation(self, annotation: ast.expr | None) -> bool:
        return annotation_kind(annotation, self.resolver) is Kind.ARRAY

    def _admitted(self, node: FunctionNode, info: TraceInfo) -> TraceInfo:
        """`self` holds tracers only in methods of PyTree classes: any other object cannot be
        passed to a transformation (JAX raises), so it is never traced. A staticmethod
        takes no `self`: its first parameter is an argument like any other."""
        record = self.records.get(node)
        if record is None or record.class_name is None or isinstance(node, ast.Lambda):
            return info
        if is_staticmethod(node):
            return info
        positional = positional_params(node)
        if not positional or positional[0] not in info.traced_params:
            return info
        if any(name == positional[0] for name, _ in info.containers):
            return info  # an object built in the trace: its attributes hold tracers
        cls = self.classes.get(record.class_name)
        if cls is not None and is_registered_pytree(cls, self.summaries):
            return info
        return replace(info, traced_params=info.traced_params - {positional[0]})

    def _set_trace(self, node: FunctionNode, info: TraceInfo, call: ast.Call | None = None) -> bool:
        """Merge `info` into the trace of `node` (from the traced `call`, if given); True if
        that changed it. A parameter is static where a transformation says so, or where every
        traced call gives it a Python value."""
        info = self._admitted(node, info)
        old = self.trace.get(node)
        combined = old.merged(info) if old is not None else info
        if call is not None:
            self._call_statics.setdefault(node, {})[call] = info.static_params
        else:
            self._direct_statics[node] = self._direct_statics.get(node, frozenset()) | (
                info.static_params
            )
        votes = self._call_statics.get(node)
        static = self._direct_statics.get(node, frozenset())
        if votes:
            static |= frozenset.intersection(*votes.values())
        combined = replace(combined, static_params=static - combined.traced_params)
        if combined == old:
            return False
        self.trace[node] = combined
        self._contexts.clear()
        self._objects.clear()
        return True

    def _apply(
        self, application: Application, unit_start: int, eager: bool = False
    ) -> TraceInfo | None:
        """Trace the function a transformation is applied to; its trace (None: not found).
        `eager`: applied where nothing traces (`shard_map` then runs the function eagerly)."""
        line = unit_start + application.node.lineno
        found = self.resolve_transformed(
            application.target, line, application.enclosing, application.spec.class_method
        )
        if found is None:
            return None
        target, ref = found
        info = trace_info_for(application, target, self._is_array_annotation, ref)
        if application.spec.policy is ParamPolicy.ARRAY_ANNOTATED:
            leaves = self._filtered_leaves(target, ref, application, unit_start)
            static = static_parameters(target, application.keywords, _STATIC_KEYWORDS)
            if static is not None:  # statics unreadable: leave the called parameters alone
                used = self._module_params(target, application.spec.label)
                used |= array_used_params(target, self.resolver)
                leaves |= used - static
            info = replace(info, traced_params=info.traced_params | leaves)
        origin = TraceOrigin(application.node, unit_start, application.enclosing)
        if eager:
            info = replace(info, abstract=False, eager=True)
        self._set_trace(target, replace(info, origin=origin))
        if isinstance(target, ast.Lambda):
            enclosing, source = application.enclosing, self._source_of.get(application.enclosing)
            written = self._lambda_units.get(target)
            if written is not None and written[0] != unit_start:
                # Bound at module level in its own unit (a haiku transformation of it).
                enclosing, (unit_start, source) = None, written
            self._source_of.setdefault(target, source)
            self._lambda_homes.setdefault(target, (enclosing, unit_start))
        return self.trace[target]

    def _filtered_leaves(
        self, target: FunctionNode, ref: FunctionRef, application: Application, unit_start: int
    ) -> frozenset[str]:
        """Parameters a filtered transformation (`eqx.filter_jit`, `nnx.jit`) traces beyond
        the annotated arrays: those holding an object of a PyTree class of the module (its
        array leaves are traced; `self` of a method, `model` given an `MLP`) and those some
        call gives a JAX array: a call of the transformed function by its name (a lambda's:
        of the name bound to it), or of what the transformation makes
        (`eqx.filter_jit(f)(x)`, `step = eqx.filter_jit(f)`)."""
        positional = positional_params(target)
        bound = set(positional[: ref.bound_positional]) | ref.bound_keywords
        found = {
            param
            for param, class_name in self._object_classes(target).items()
            if is_registered_pytree(self.classes[class_name], self.summaries)
        }
        # A lambda's calls are those of the name bound to it (`f = nnx.jit(lambda ...)`).
        called = target if isinstance(target, ast.Lambda) else application.target.name
        sites = list(self._filtered_call_sites.get(called, ()))
        unit = next((u for u in self.document.units if u.start_line == unit_start), None)
        if unit is not None and unit.tree is not None:
            sites += self._calls_of_made(application, unit, ref)
        for caller, call, site_ref, source in sites:
            if isinstance(caller, ast.Lambda):
                continue
            kinds = self.module_kinds(source) if caller is None else self.scope_kinds(caller).kinds
            for kind in (Kind.ARRAY, Kind.TRACED):
                found |= call_site_params(target, call, kinds, site_ref, kind)
        return frozenset(found - bound)

    def _module_params(self, target: FunctionNode, label: str) -> frozenset[str]:
        """Parameters of a function a filtered transformation traces that hold a library
        module, whose array leaves it traces: annotated `eqx.Module` / `nnx.Module`, and
        under an `nnx` transformation any parameter the body calls (`model(x)`): `nnx.jit`
        takes no plain function (it raises TypeError), so a callable it is given is a graph
        node, a module."""
        arguments = [*target.args.posonlyargs, *target.args.args, *target.args.kwonlyargs]
        found = {
            arg.arg
            for arg in arguments
            if arg.annotation is not None
            and self.resolver.qualname(arg.annotation) in _LIBRARY_MODULES
        }
        if label.startswith("nnx."):
            names = {arg.arg for arg in arguments}
            found |= {
                node.func.id
                for node in walk_nodes(target)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in names
            }
        return frozenset(found)

    def array_passed(self, node: FunctionNode) -> frozenset[str]:
        """Parameters of `node` to which some call of the module naming it (or a `jax.jit` of
        it) passes a JAX or NumPy array or a tracer: values that cannot be hashed, so never
        static arguments."""
        if isinstance(node, ast.Lambda):
            return frozenset()
        found: set[str] = set()
        sites = []
        for caller, call, ref, source, unit_start in self._calls_by_name.get(node.name, ()):
            if isinstance(caller, ast.Lambda):
                continue
            resolved = self.resolve_ref(ref, unit_start + call.lineno, caller)
            if resolved is None or resolved[0] is not node:
                continue
            sites.append((caller, call, resolved[1], source))
        for caller, call, ref, source in [*sites, *self._jitted_calls(node)]:
            kinds = self.module_kinds(source) if caller is None else self.scope_kinds(caller).kinds
            for kind in (Kind.ARRAY, Kind.TRACED, Kind.NUMPY):
                found |= call_site_params(node, call, kinds, ref, kind)
        return frozenset(found)

    def result_counted(self, node: FunctionNode) -> bool:
        """Does some call of `node` in the module (by name, or of a `jax.jit` of it) count the
        entries of its result: `len(f(x))`, `f(x).shape`, `f(x).mean()`, or the same of a
        name its scope binds the result to (`r = f(x)`, then `len(r)`)? A result padded to a
        static size would count the padding there."""
        if isinstance(node, ast.Lambda):
            return False
        sites = []
        for caller, call, ref, source, unit_start in self._calls_by_name.get(node.name, ()):
            if isinstance(caller, ast.Lambda):
                continue
            resolved = self.resolve_ref(ref, unit_start + call.lineno, caller)
            if resolved is not None and resolved[0] is node:
                sites.append((caller, call, source))
        sites += [(caller, call, source) for caller, call, _, source in self._jitted_calls(node)]
        for caller, call, source in sites:
            scope = caller if caller is not None else source.tree
            if scope is not None and _counts_result(call, scope):
                return True
        return False

    def _jitted_calls(
        self, node: FunctionNode
    ) -> Iterator[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource]]:
        """Calls that run `node` through a `jax.jit(node, ...)` made of it: at once
        (`jax.jit(f)(x)`) or through the name it is bound to (`fast = jax.jit(f)`, then
        `fast(x)`, in the scope that binds it; any scope for a module-level name)."""
        units = [unit for unit in self.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.summaries, strict=True):
            for application in summary.applications:
                if application.spec.label != "jit" or type(application.node) is not ast.Call:
                    continue
                line = unit.start_line + application.node.lineno
                resolved = self.resolve_transformed(application.target, line, application.enclosing)
                if resolved is None or resolved[0] is not node:
                    continue
                yield from self._calls_of_made(application, unit, resolved[1])

    def _calls_of_made(
        self, application: Application, unit: Unit, ref: FunctionRef
    ) -> Iterator[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource]]:
        """Calls of the function a transformation makes (`ref`: how their arguments reach
        the transformed function): at once (`jax.jit(f)(x)`) or through the name it is
        bound to (`fast = jax.jit(f)`, then `fast(x)`, in the scope that binds it; any scope
        for a module-level name)."""
        if type(application.node) is not ast.Call:
            return
        if application.call is not None:
            yield application.enclosing, application.call, ref, unit.source
        scope = application.enclosing or unit.tree
        for name in _names_bound_to(application.node, scope):
            for caller, call, site_ref, source, _ in self._calls_by_name.get(name, ()):
                here = application.enclosing is None or caller is application.enclosing
                if site_ref.name == name and here:
                    yield caller, call, ref, source

    @cached_property
    def _calls_by_name(
        self,
    ) -> dict[str, list[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource, int]]]:
        """Every call of the module, by the last part of the name it calls (`f`, `self.f`)."""
        found: dict[str, list] = {}
        units = [unit for unit in self.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.summaries, strict=True):
            for call in summary.calls:
                site = (call.caller, call.node, call.callee, unit.source, unit.start_line)
                found.setdefault(call.callee.name.rpartition(".")[2], []).append(site)
        return found

    @cached_property
    def _filtered_call_sites(
        self,
    ) -> dict[
        str | ast.Lambda, list[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource]]
    ]:
        """Calls of functions given to a filtered transformation, by the name they call (a
        lambda's: by the lambda)."""
        filtered = [
            application.target
            for summary in self.summaries
            for application in summary.applications
            if application.spec.policy is ParamPolicy.ARRAY_ANNOTATED
        ]
        names = {t.name for t in filtered if not isinstance(t.node, ast.Lambda)}
        lambdas = {target.node for target in filtered if isinstance(target.node, ast.Lambda)}
        found: dict[str | ast.Lambda, list] = {}
        if not filtered:
            return found
        # Module-level names of transformed lambdas, called from other statements.
        named = {
            name: node
            for summary in self.summaries
            for name, node in summary.transformed_lambdas
            if node in lambdas and name in self.stable_globals
        }
        units = [unit for unit in self.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.summaries, strict=True):
            for call in summary.calls:
                site = (call.caller, call.node, call.callee, unit.source)
                if call.callee.name in names:
                    found.setdefault(call.callee.name, []).append(site)
                lambda_node = named.get(call.callee.name)
                caller = call.caller
                if lambda_node is not None and not (
                    caller and binds_locally(call.callee.name, caller)
                ):
                    found.setdefault(lambda_node, []).append(site)
            for call in summary.lambda_calls:
                if call.callee.node in lambdas:
                    site = (call.caller, call.node, call.callee, unit.source)
                    found.setdefault(call.callee.node, []).append(site)
        return found

    def _custom_rule_applications(self, units: list[Unit]) -> list[tuple[Application, int]]:
        """The rules registered on `jax.custom_vjp` / `jax.custom_jvp` functions, as
        transformations applied inside the function (traced where it is traced)."""
        found = []
        for unit, summary in zip(units, self.summaries, strict=True):
            for primal_name, rule, role, node, method in summary.custom_rules:
                primal = self._definition(primal_name, unit.start_line + node.lineno)
                nondiff = _nondiff_argnums(primal, self.resolver) if primal else None
                if nondiff is None:
                    continue  # not a custom-derivative function, or unreadable options
                if role == "first":  # `bwd(n, res, g)`: the leading arguments
                    count = len(nondiff.elts) if isinstance(nondiff, ast.Tuple) else 1
                    nondiff = ast.Tuple([ast.Constant(i) for i in range(count)], ast.Load())
                spec = CUSTOM_RULES[method]
                application = Application(spec, rule, {"static_argnums": nondiff}, primal, node)
                found.append((application, unit.start_line))
        return found

    def _module_branch_applications(self, units: list[Unit]) -> list[tuple[Application, int]]:
        """`lax.switch(i, branches, x)` where `branches` is a module-level list or tuple
        display of other units (`branches = [f, g]`): the switch traces each function it
        names. A name the module also binds to anything else is left alone."""
        displays: dict[str, list[ast.expr] | None] = {}
        for summary in self.summaries:
            for name, elements in summary.module_displays:
                known = displays.setdefault(name, [])
                if elements is None or known is None:
                    displays[name] = None
                else:
                    known += elements
        found = []
        for unit, summary in zip(units, self.summaries, strict=True):
            for application, around in summary.branch_lists:
                name = application.target.name
                elements = displays.get(name)
                if not elements or any(binds_locally(name, scope) for scope in around):
                    continue
                found += [
                    (replace(application, target=FunctionRef(element.id, ())), unit.start_line)
                    for element in elements
                    if isinstance(element, ast.Name)
                ]
        return found

    def _schedule_applications(self, units: list[Unit]) -> list[tuple[Application, int]]:
        """Each function given to optax as a schedule, applied in every function that runs an
        optimizer's update (`tx.update(grads, state)`, `state.apply_gradients(...)`): optax
        calls the schedule there, so it is traced where that function is."""
        updates = [
            (function, call, unit.start_line)
            for unit, summary in zip(units, self.summaries, strict=True)
            for function, call in summary.optimizer_updates
        ]
        return [
            (replace(schedule, enclosing=function, node=call), unit_start)
            for summary in self.summaries
            for schedule in summary.schedules
            for function, call, unit_start in updates
        ]

    def _jit_disabled_from(self, units: list[Unit]) -> float:
        """The document line after which `jax.config.update("jax_disable_jit", True)` has
        switched jit off for the rest of the module (infinity: never)."""
        for unit, summary in zip(units, self.summaries, strict=True):
            for qualname, call in summary.module_calls:
                if qualname == "jax.config.update" and _sets_disable_jit(call):
                    return unit.start_line + call.lineno
        return float("inf")

    @cached_property
    def _definitions(self) -> dict[str, list[tuple[int, FunctionNode]]]:
        """Each function path's definitions in document order: (first line, node). Gathered
        when a name is first resolved: a module whose edits resolve nothing never pays it."""
        definitions: dict[str, list[tuple[int, FunctionNode]]] = {}
        units = [unit for unit in self.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.summaries, strict=True):
            for record in summary.functions:
                start = unit.start_line + record.node.lineno
                definitions.setdefault(record.path, []).append((start, record.node))
            for path, node in summary.named_lambdas:
                start = unit.start_line + node.lineno
                definitions.setdefault(path, []).append((start, node))
        for found in definitions.values():
            if len(found) > 1:  # most paths are defined once
                found.sort(key=lambda definition: definition[0])
        return definitions

    @cached_property
    def _lambda_units(self) -> dict[ast.Lambda, tuple[int, UnitSource]]:
        """Where each lambda is written (its unit's start and parse): a lambda reached through
        a name (`jax.jit(model.apply)` of `model = hk.transform(lambda x: ...)`) lives in the
        unit of that binding, not in the unit applying the transformation."""
        units = [unit for unit in self.document.units if unit.tree is not None]
        return {
            node: (unit.start_line, unit.source)
            for unit, summary in zip(units, self.summaries, strict=True)
            for node in summary.lambdas
        }

    def _compute_trace(self, units: list[Unit]) -> None:
        self.trace = {}
        # Methods traced code runs on a module-level object (`seq.next_key()`): their `self`
        # outlives the trace.
        self.module_object_methods: set[FunctionNode] = set()
        self._call_statics: dict[ast.AST, dict[ast.Call, frozenset[str]]] = {}
        self._direct_statics: dict[ast.AST, frozenset[str]] = {}
        # Parameters of each called function that a traced call passes a tracer, not counting
        # the caller's own parameters with a literal default (which may never be passed).
        self._given_tracers: dict[ast.AST, frozenset[str]] = {}
        # Traced lambdas: the function whose body holds each (None: module level), its unit.
        self._lambda_homes: dict[ast.Lambda, tuple[FunctionNode | None, int]] = {}
        applications: list[tuple[Application, int]] = []
        applications += self._module_branch_applications(units)
        for unit, summary in zip(units, self.summaries, strict=True):
            applications += [(a, unit.start_line) for a in summary.applications]
        jit_disabled_from = self._jit_disabled_from(units)
        apps_by_enclosing: dict[ast.AST | None, list[tuple[Application, int]]] = {}
        # Functions of the module that transform the function they are given (`my_jit(f)`).
        applications += self._imported_wrapper_applications(units)
        wrappers = Wrappers(self, applications)
        # What the module's wrappers apply to their parameters (`wrapper_transforms`): the
        # list, not the wrappers, which hold the model (a cycle).
        self._wrapper_applied = wrappers.applied
        applications = [*wrappers.plain, *wrappers.applications()]
        applications += self._applied_to_instances(wrappers.applied)
        self._gradients = [(a, start) for a, start in applications if a.spec.label in GRADIENTS]
        for application, unit_start in applications:
            if (
                application.spec.disabled_with_jit
                and unit_start + application.node.lineno > jit_disabled_from
            ):
                continue  # runs eagerly: `jax_disable_jit` is on
            apps_by_enclosing.setdefault(application.enclosing, []).append(
                (application, unit_start)
            )
            # `shard_map` runs eagerly where nothing traces the code applying it; traced
            # code applying it traces it (below).
            self._apply(application, unit_start, eager=application.spec.eager_outside_trace)
        for application, unit_start in [
            *self._custom_rule_applications(units),
            *self._schedule_applications(units),
        ]:
            apps_by_enclosing.setdefault(application.enclosing, []).append(
                (application, unit_start)
            )

        self._seed_incoming()
        # For `outgoing_traces`: what the fixpoint started from.
        self._trace_applications = applications
        pending = list(self.trace)
        # Every call of the module by its caller, for the traced functions' calls: gathered
        # only when something is traced (most edits of a module that traces nothing would
        # otherwise pay a pass over all of its calls).
        calls_by_caller: dict[ast.AST | None, list[tuple[CallSite, int]]] = {}
        sources = {unit.start_line: unit.source for unit in units} if pending else {}
        if pending:
            for unit, summary in zip(units, self.summaries, strict=True):
                for call in summary.calls:
                    calls_by_caller.setdefault(call.caller, []).append((call, unit.start_line))
        item_reads_by_caller = self._item_reads(units) if pending else {}
        item_calls: dict[ast.Subscript, CallSite | None] = {}  # one per read: one vote each
        unit_starts = {id(unit.source): unit.start_line for unit in units}
        self._property_named_reads: dict[FunctionNode, list[ast.Attribute]] = {}
        rounds = 0
        while pending and rounds < _MAX_FIXPOINT_ROUNDS * max(len(self.trace), 1):
            rounds += 1
            node = pending.pop()
            if node in self._foreign_nodes:
                continue  # another module's function: its module analyses it (`outgoing`)
            info = self.trace[node]
            if isinstance(node, ast.Lambda):
                # Its body is analyzed with its enclosing function; the functions it calls run
                # in its trace (`jax.grad(lambda w: loss(w, X))`).
                pending += self._trace_lambda_calls(node, info, calls_by_caller, sources)
                continue
            scope = self.scope_kinds(node)
            # Transformations applied here trace their function inside this trace: abstractly
            # if this is abstract, and in every argument the call passes a tracer to.
            for application, unit_start in apps_by_enclosing.get(node, []):
                target = self._trace_application_in(node, info, scope, application, unit_start)
                if target is not None and not isinstance(target, ast.Lambda):
                    pending.append(target)
            for call, unit_start in calls_by_caller.get(node, []):
                line = unit_start + call.node.lineno
                found = self.resolve_ref(call.callee, line, node)
                callees = [found] if found else wrappers.called(call.node, node, unit_start)
                if not callees and call.callee.name in self.classes:
                    pending += self._trace_construction(node, info, scope, call, unit_start)
                for callee, ref in callees:
                    if self._trace_call(node, info, scope, call, callee, ref, unit_start):
                        pending.append(callee)
            start = unit_starts[id(self._source_of[node])]
            for call in self._param_initializers(node):
                found = self.resolve_ref(call.callee, start + call.node.lineno, node)
                if found is None or isinstance(found[0], ast.Lambda):
                    continue
                key = frozenset(positional_params(found[0])[:1])  # a tracer either way
                if self._trace_call(node, info, scope, call, *found, start, key):
                    pending.append(found[0])
            for _, call in self._property_reads(node, scope):
                found = self.resolve_ref(call.callee, start + call.node.lineno, node)
                if found and self._trace_call(node, info, scope, call, *found, start):
                    pending.append(found[0])
            for name, read, unit_start in item_reads_by_caller.get(node, []):
                if name not in self.classes_in(node) and name not in self.instances:
                    continue  # no instance of a class of the module: a list, a dict, an array
                if read not in item_calls:
                    item_calls[read] = _item_call(name, read, node)
                call = item_calls[read]
                if call is None:
                    continue
                found = self.resolve_ref(call.callee, unit_start + read.lineno, node)
                if found and self._trace_call(node, info, scope, call, *found, unit_start):
                    pending.append(found[0])

    def _applied_to_instances(
        self, applied: list[tuple[Application, int, FunctionNode, str]]
    ) -> list[tuple[Application, int]]:
        """Transformations a function applies to its parameter where that parameter holds an
        instance of a class (`eqx.filter_vmap(m)(x)` in `loss_fn(m)`, given the model): they
        run the object's `__call__`, whatever else the parameter is bound to as a wrapper's."""
        return [
            (application, unit_start)
            for application, unit_start, owner, param in applied
            if param and owner is application.enclosing and param in self.classes_in(owner)
        ]

    def _imported_wrapper_applications(self, units: list[Unit]) -> list[tuple[Application, int]]:
        """`@compiled` on a function of the module, `compiled` a wrapper imported from another
        workspace module that applies a transformation to the function it is given."""
        external = self.external
        if not external or not any(facts.wraps for facts in external.values()):
            return []
        found = []
        for unit, summary in zip(units, self.summaries, strict=True):
            for decorator, decorated, enclosing in summary.decorations:
                if isinstance(decorator, ast.Call):
                    continue  # options the wrapper passes on: not read here
                facts = external.get(dotted_name(decorator) or "")
                if facts is None or facts.wraps is None or decorated not in self.records:
                    continue
                spec = TRANSFORMS[facts.wraps]
                target = FunctionRef(self.records[decorated].path, (), decorated)
                found.append((Application(spec, target, {}, enclosing, decorator), unit.start_line))
        return found

    @cached_property
    def wrapper_transforms(self) -> dict[str, str]:
        """Top-level functions of the module that apply a transformation to the function
        they are given first, with no option the caller must read: the transformation's
        `TRANSFORMS` name (`def compiled(fn, *, static=()): ... jax.jit(fn,
        static_argnames=static)` gives `jax.jit`: used bare, `static` stays empty)."""
        found: dict[str, str] = {}
        for application, _, owner, param in self._wrapper_applied:
            record = self.records.get(owner)
            if (
                record is None
                or record.parent is not None
                or record.class_name is not None
                or positional_params(owner)[:1] != [param]
            ):
                continue
            name = next((key for key, spec in TRANSFORMS.items() if spec is application.spec), None)
            if name is not None and _options_left_empty(application, owner):
                found.setdefault(record.path, name)
        return found

    def _seed_pattern(self, seed: IncomingTrace) -> None:
        """Trace, in every parameter, the top-level functions and methods whose dotted name
        matches the library-mode pattern `seed.function`."""
        for path, record in self.functions.items():
            if record.parent is not None or not fnmatch.fnmatchcase(
                f"{seed.module}.{path}", seed.function
            ):
                continue
            params = frozenset(all_params(record.node))
            if record.class_name is not None and not is_staticmethod(record.node):
                params -= frozenset(positional_params(record.node)[:1])  # self, cls
            steps = tuple(replace(step, function=path) for step in seed.steps)
            origin = TraceOrigin(None, 0, None, foreign=steps)
            info = TraceInfo(seed.via, True, params, frozenset(), True, origin, all_leaves=params)
            self._set_trace(record.node, info)

    def _seed_optimizer_updates(self, seed: IncomingTrace) -> None:
        """Trace the update functions and schedules given to optax in `seed.function` or in
        the module functions its calls reach (`make_optimizer` calling `adaptive_clip`, which
        returns `GradientTransformation(init_fn, update_fn)`): another module runs the
        `update` of the optimizers it makes in its trace."""
        maker = self._definition(seed.function, None)
        if maker is None or isinstance(maker, ast.Lambda):
            return
        units = [unit for unit in self.document.units if unit.tree is not None]
        calls: dict[FunctionNode | None, list[tuple[CallSite, int]]] = {}
        for unit, summary in zip(units, self.summaries, strict=True):
            for call in summary.calls:
                calls.setdefault(call.caller, []).append((call, unit.start_line))
        reached, pending = {maker}, [maker]
        while pending:
            caller = pending.pop()
            for call, unit_start in calls.get(caller, ()):
                found = self.resolve_ref(call.callee, unit_start + call.node.lineno, caller)
                if found is not None and found[0] not in reached:
                    reached.add(found[0])
                    pending.append(found[0])
        for unit, summary in zip(units, self.summaries, strict=True):
            for schedule in summary.schedules:
                if schedule.enclosing not in reached:
                    continue
                line = unit.start_line + schedule.node.lineno
                found = self.resolve_transformed(schedule.target, line, schedule.enclosing)
                if found is None or self._apply(schedule, unit.start_line) is None:
                    continue
                target = found[0]
                label = transform_name(schedule.spec.label)
                name = self._display_name(target)
                steps = tuple(replace(step, function=name, label=label) for step in seed.steps[:1])
                origin = TraceOrigin(None, 0, None, foreign=(*steps, *seed.steps[1:]))
                self._set_trace(
                    target, replace(self.trace[target], abstract=seed.abstract, origin=origin)
                )

    def _trace_application_in(
        self,
        node: FunctionNode,
        info: TraceInfo,
        scope: ScopeKinds,
        application: Application,
        unit_start: int,
    ) -> FunctionNode | None:
        """A transformation applied in the traced `node` traces its function inside this
        trace: abstractly if this is abstract, and in every argument the call passes a tracer
        to. The function, if its trace changed."""
        if application.spec.abstract_only and not info.abstract:
            return None  # a `custom_vjp` rule under `grad` alone: concrete values
        line = unit_start + application.node.lineno
        found = self.resolve_transformed(
            application.target, line, node, application.spec.class_method
        )
        if found is None:
            return None
        target, ref = found
        first = target not in self.trace  # `shard_map`: traced only in traced code
        old = self.trace[target] if not first else self._apply(application, unit_start)
        if old is None:
            return None
        traced = old.traced_params
        if application.call is not None:
            traced |= call_site_params(target, application.call, scope.kinds, ref)
            given = application.node
            given = given.args[0] if isinstance(given, ast.Call) and given.args else None
            traced |= self._traced_receiver(target, ref, given, scope)
            traced -= old.static_params
        new = replace(
            old,
            abstract=old.abstract or info.abstract or application.spec.abstract,
            traced_params=traced,
            eager=info.eager,
        )
        changed = self._set_trace(target, new) or first
        return target if changed else None

    def _seed_incoming(self) -> None:
        """Trace the functions that other modules of the project trace (`incoming`), as a
        transformation applied here would."""
        for seed in self.incoming:
            if seed.module is not None:
                self._seed_pattern(seed)
                continue
            if seed.runs_updates:
                self._seed_optimizer_updates(seed)
                continue
            node = self._definition(seed.function, None)
            if node is None or isinstance(node, ast.Lambda):
                continue
            origin = TraceOrigin(None, 0, None, called=not seed.direct, foreign=seed.steps)
            info = TraceInfo(
                seed.via,
                seed.abstract,
                seed.traced_params,
                seed.static_params,
                seed.direct,
                origin,
                all_leaves=seed.all_leaves,
                module_defaults=seed.module_defaults,
                literals=seed.literals,
                array_functions=seed.array_functions & array_defaults(node, self.resolver.qualname),
            )
            self._set_trace(node, info)

    def outgoing_traces(
        self, foreign: ForeignDefinitions
    ) -> tuple[tuple[ForeignFunction, IncomingTrace], ...]:
        """The traces this module gives functions of other modules (`foreign` names them): a
        transformation applied to one (`jax.jit(env.step)`), a call of one in traced code
        (`clip(grads)`), a property of an imported class read there; each with why it is
        traced here (the site, then the chain that traces its caller). The module's own
        trace is left as it was: the other functions are their modules' to analyse."""
        if foreign is NO_FOREIGN:
            return ()
        known = self._outgoing.get(foreign.key)
        if known is None:
            known = self._outgoing[foreign.key] = self._compute_outgoing(foreign)
        return known

    @cached_property
    def _outgoing(self) -> dict[Hashable, tuple]:
        return {}

    def _compute_outgoing(
        self, foreign: ForeignDefinitions
    ) -> tuple[tuple[ForeignFunction, IncomingTrace], ...]:
        # The pass works on copies of the model's state: what it learns with the other
        # modules' classes known (objects of imported classes, their methods' traces) must
        # not reach the module's own facts, which never depend on other modules' code.
        own = dict(self.__dict__)
        for name, value in own.items():
            if type(value) is dict:
                self.__dict__[name] = dict(value)
        for memo in ("_constructed", "passed_classes", "_foreign_instances"):
            self.__dict__.pop(memo, None)
        self.__dict__.pop("_foreign_attribute_classes", None)
        self._param_classes, self._objects, self._contexts = {}, {}, {}
        # Scopes settled by the rules were read without the imported classes known, and the
        # trace grows again here.
        self._settled_scopes = None
        self._foreign = foreign
        try:
            # Objects of imported classes, found with the other modules' classes known.
            self._constructed, self.passed_classes  # noqa: B018
            self._trace_into_foreign()
            found = self._foreign_traces()
        finally:
            self.__dict__.clear()
            self.__dict__.update(own)
        return found

    def _trace_into_foreign(self) -> None:
        """Replay, with other modules' definitions resolvable, the steps of the fixpoint that
        found nothing in the module: transformations of a name it cannot resolve, and the
        calls and property reads of its traced functions."""
        units = [unit for unit in self.document.units if unit.tree is not None]
        # With imported classes known, more parameters hold an object a transformation runs.
        applications = list(self._trace_applications)
        applications += [
            item
            for item in self._applied_to_instances(self._wrapper_applied)
            if item not in applications
        ]
        for application, unit_start in applications:
            line = unit_start + application.node.lineno
            if self._local_ref(application.target, line, application.enclosing) is None:
                self._replayed(self._apply, application, unit_start)
        calls_by_caller: dict[ast.AST | None, list[tuple[CallSite, int]]] = {}
        for unit, summary in zip(units, self.summaries, strict=True):
            for call in summary.calls:
                calls_by_caller.setdefault(call.caller, []).append((call, unit.start_line))
        sources = {unit.start_line: unit.source for unit in units}
        unit_starts = {id(unit.source): unit.start_line for unit in units}
        applied_in: dict[ast.AST | None, list[tuple[Application, int]]] = {}
        for application, unit_start in applications:
            applied_in.setdefault(application.enclosing, []).append((application, unit_start))
        for node, info in list(self.trace.items()):
            if node in self._foreign_nodes:
                continue
            if isinstance(node, ast.Lambda):
                self._replayed(self._trace_lambda_calls, node, info, calls_by_caller, sources)
                continue
            scope = self._replayed(self.scope_kinds, node)
            if scope is None:
                continue
            for application, unit_start in applied_in.get(node, []):
                line = unit_start + application.node.lineno
                if self._local_ref(application.target, line, node) is None:
                    self._replayed(
                        self._trace_application_in, node, info, scope, application, unit_start
                    )
            for call, unit_start in calls_by_caller.get(node, []):
                line = unit_start + call.node.lineno
                if self._local_ref(call.callee, line, node) is not None:
                    continue
                found = self._replayed(self.resolve_ref, call.callee, line, node)
                if found is not None:
                    self._replayed(self._trace_call, node, info, scope, call, *found, unit_start)
            start = unit_starts.get(id(self._source_of.get(node)), 0)
            for call in self._foreign_property_reads(node):
                found = self._replayed(
                    self.resolve_ref, call.callee, start + call.node.lineno, node
                )
                if found is not None:
                    self._replayed(self._trace_call, node, info, scope, call, *found, start)

    @staticmethod
    def _replayed(step: Callable, *args: object) -> object:
        """One step of `_trace_into_foreign`. The model's facts were built for its own
        classes; one that meets an imported class it cannot read gives up that step (the
        trace it would have found), never the module's analysis."""
        try:
            return step(*args)
        except (KeyError, AttributeError, TypeError, ValueError, RecursionError):
            return None

    def _local_ref(
        self, ref: FunctionRef, line: int, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """`resolve_ref` within the module's own definitions."""
        foreign, self._foreign = self._foreign, NO_FOREIGN
        try:
            return self.resolve_ref(ref, line, caller)
        finally:
            self._foreign = foreign

    def _foreign_traces(self) -> tuple[tuple[ForeignFunction, IncomingTrace], ...]:
        """The traces of other modules' functions, each with why it is traced here."""
        path = self.document.path
        lines = self.document.lines
        outgoing = []
        for node, info in self.trace.items():
            function = self._foreign_nodes.get(node)
            if function is None:
                continue
            origin = info.origin
            steps: tuple[ForeignStep, ...] = ()
            if origin is not None and origin.node is not None:
                caller = origin.caller
                here = ForeignStep(
                    function.path,
                    None if origin.called else transform_name(info.via),
                    self._display_name(caller) if caller is not None else None,
                    path,
                    document_span(lines, origin.unit_start, origin.node),
                )
                chain = self.explain(caller) if caller is not None and caller in self.trace else ()
                steps = (here, *(self._foreign_step(step, lines) for step in chain))
            seed = IncomingTrace(
                function.path,
                info.via,
                info.abstract,
                info.direct,
                info.traced_params,
                info.static_params,
                steps,
                info.all_leaves,
                info.module_defaults,
                info.literals,
                array_functions=info.array_functions,
            )
            outgoing.append((function, seed))
        outgoing += self._optimizer_update_traces()
        return tuple(outgoing)

    def _optimizer_update_traces(self) -> list[tuple[ForeignFunction, IncomingTrace]]:
        """The imported functions that made the optimizers whose `update` the module's
        traced code runs (`tx = make_optimizer(lr)` at module level, then `tx.update(grads,
        state)` under `jax.jit`): optax runs the update functions and schedules they give it
        in that trace."""
        found = []
        lines = self.document.lines
        units = [unit for unit in self.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.summaries, strict=True):
            for function, call in summary.optimizer_updates:
                info = self.trace.get(function)
                receiver = call.func.value  # type: ignore[attr-defined]
                if info is None or type(receiver) is not ast.Name:
                    continue
                # Bound once at module level (its `update` calls count as mutations of it).
                made = self._top_level_values.get(receiver.id, ())
                if len(made) != 1 or type(made[0]) is not ast.Call:
                    continue
                if binds_locally(receiver.id, function):
                    continue
                maker = self._foreign_function(made[0].func)
                if maker is None:
                    continue
                here = ForeignStep(
                    maker.path,
                    transform_name(OPTAX_UPDATE_FUNCTION.label),
                    self._display_name(function),
                    self.document.path,
                    document_span(lines, unit.start_line, call),
                )
                chain = (self._foreign_step(step, lines) for step in self.explain(function))
                seed = IncomingTrace(
                    maker.path,
                    OPTAX_UPDATE_FUNCTION.label,
                    info.abstract,
                    True,
                    frozenset(),
                    frozenset(),
                    (here, *chain),
                    runs_updates=True,
                )
                found.append((maker, seed))
        return found

    def _foreign_function(self, func: ast.expr) -> ForeignFunction | None:
        """The function of another workspace module that `func` names (`make_optimizer`,
        `optim.make_optimizer`), not rebound here."""
        if type(func) is ast.Name and func.id not in self.functions:
            found = self._foreign.function(func.id)
        elif type(func) is ast.Attribute and type(func.value) is ast.Name:
            found = self._foreign.member(func.value.id, func.attr)
        else:
            return None
        return found if found is not None and found.node is not None else None

    def _foreign_step(self, step: TraceStep, lines: list[str]) -> ForeignStep:
        """A link of this module's explanation, as another module shows it."""
        if step.file is not None and step.span is not None:
            return ForeignStep(step.function, step.label, step.caller, step.file, step.span)
        span = document_span(lines, step.unit_start, step.site)
        return ForeignStep(step.function, step.label, step.caller, self.document.path, span)

    def _param_initializers(self, node: FunctionNode) -> list[CallSite]:
        """`self.param(name, init_fn, *args)` in a traced method of a linen module, as the
        call of the initializer (a function of the module, named) flax makes: `init_fn(key,
        *args)`. Traced `init` runs it in the trace; `apply` (jitted or not) runs it too,
        abstractly, under `jax.eval_shape` with a key made there, to check the shape of the
        parameter it was given (flax's `Scope.param`): either way on a traced key."""
        positional = positional_params(node)
        record = self.records.get(node)
        if (
            not positional
            or record is None
            or record.class_name not in self.classes
            or LINEN_MODULE not in self.classes[record.class_name].bases
        ):
            return []
        found = []
        for call in walk_nodes(node):
            if (
                type(call) is ast.Call
                and type(call.func) is ast.Attribute
                and call.func.attr == "param"
                and type(call.func.value) is ast.Name
                and call.func.value.id == positional[0]
                and len(call.args) >= 2
                and type(call.args[1]) is ast.Name
                and not any(type(arg) is ast.Starred for arg in call.args)
            ):
                runs = ast.copy_location(ast.Call(call.args[1], call.args[2:], []), call)
                ref = FunctionRef(call.args[1].id, (), bound_positional=1)  # the key first
                found.append(CallSite(node, ref, runs))
        return found

    @cached_property
    def _properties(self) -> dict[str, frozenset[str]]:
        """Property name -> the classes of the module defining a property of that name
        (`@property def array(self)`): reading it runs the getter."""
        found: dict[str, set[str]] = {}
        for name, record in self.classes.items():
            for statement in record.node.body:
                if isinstance(statement, ast.FunctionDef) and any(
                    self.resolver.qualname(d) in _PROPERTY_DECORATORS
                    for d in statement.decorator_list
                ):
                    found.setdefault(statement.name, set()).add(name)
        return {name: frozenset(classes) for name, classes in found.items()}

    def _property_reads(
        self, node: FunctionNode, scope: ScopeKinds
    ) -> list[tuple[ast.Attribute, CallSite]]:
        """Reads in `node` of a property of an object the trace built from tracers
        (`Rx(theta).array`), each as the call of its getter Python makes. Nothing in a
        module whose classes define no property (most)."""
        properties = self._properties
        if not properties:
            return []
        reads = self._property_named_reads.get(node)
        if reads is None:  # syntax: once per function (the trace visits it again and again)
            reads = self._property_named_reads[node] = [
                read
                for read in walk_nodes(node)
                if type(read) is ast.Attribute
                and type(read.ctx) is ast.Load
                and read.attr in properties
            ]
        found = []
        for read in reads:
            holder = scope.values.get(read.value)
            if type(holder) is not Object or holder.class_name not in properties[read.attr]:
                continue
            getter = ast.copy_location(ast.Call(read, [], []), read)
            ref = FunctionRef(f"{holder.class_name}.{read.attr}", (), bound_positional=1)
            found.append((read, CallSite(node, ref, getter)))
        return found

    def _item_reads(
        self, units: list[Unit]
    ) -> dict[FunctionNode | None, list[tuple[str, ast.Subscript, int]]]:
        """`obj[index]` read in each function, with the first line of its unit: where `obj` is
        an instance of a class of the module that defines `__getitem__`, Python runs that
        method there (`d[mask]` of a distribution class). Nothing in a module with no such
        method (most), which pays nothing more."""
        if not any(f"{name}.__getitem__" in self._definitions for name in self.classes):
            return {}
        found: dict[FunctionNode | None, list[tuple[str, ast.Subscript, int]]] = {}
        for unit, summary in zip(units, self.summaries, strict=True):
            for caller, name, read in summary.item_reads:
                found.setdefault(caller, []).append((name, read, unit.start_line))
        return found

    def _trace_construction(
        self, node: FunctionNode, info: TraceInfo, scope: ScopeKinds, call: CallSite, start: int
    ) -> list[FunctionNode]:
        """`Cls(m=m, a=a)` of a class of the module in traced code: its `__init__` runs in
        the trace, given what the call passes; given a tracer, the checks a generated
        constructor runs after it (a dataclass's `__post_init__`, an `eqx.Module`'s
        `__check_init__`) see fields holding tracers. The methods whose trace changed."""
        class_name, line = call.callee.name, start + call.node.lineno
        changed: list[FunctionNode] = []
        init = self._definition(f"{class_name}.__init__", line)
        if init is not None and not isinstance(init, ast.Lambda):
            ref = replace(call.callee, bound_positional=call.callee.bound_positional + 1)
            if self._trace_call(node, info, scope, call, init, ref, start):
                changed.append(init)
        arguments = [*call.node.args, *(keyword.value for keyword in call.node.keywords)]
        if init is not None or not any(scope.kinds.get(a) is Kind.TRACED for a in arguments):
            return changed
        for hook in ("__post_init__", "__check_init__"):
            method = self._definition(f"{class_name}.{hook}", line)
            if method is None or isinstance(method, ast.Lambda):
                continue
            positional = positional_params(method)
            if not positional:
                continue
            checked = TraceInfo(
                f"called from {self._display_name(node)}",
                info.abstract,
                frozenset(positional[:1]),
                frozenset(),
                False,
                TraceOrigin(call.node, start, node, called=True),
                eager=info.eager,
            )
            if self._set_trace(method, checked, call.node):
                changed.append(method)
        return changed

    def _trace_lambda_calls(
        self,
        node: ast.Lambda,
        info: TraceInfo,
        calls_by_caller: dict[ast.AST | None, list[tuple[CallSite, int]]],
        sources: dict[int, UnitSource],
    ) -> list[FunctionNode]:
        """Trace the functions the traced lambda `node` calls; those whose trace changed."""
        home = self._lambda_homes.get(node)
        if home is None:
            return []  # traced inside a traced function: its calls are that function's
        enclosing, lambda_start = home
        inside = {id(sub) for sub in ast.walk(node.body) if type(sub) is ast.Call}
        sites = [
            (call, unit_start)
            for call, unit_start in calls_by_caller.get(enclosing, [])
            if unit_start == lambda_start and id(call.node) in inside
        ]
        if not sites:
            return []
        if enclosing is None:
            scope = ScopeKinds(self.module_kinds(sources[lambda_start]), {})
        else:
            scope = self.scope_kinds(enclosing)
        changed = []
        for call, unit_start in sites:
            line = unit_start + call.node.lineno
            found = self.resolve_ref(call.callee, line, enclosing)
            if found and self._trace_call(node, info, scope, call, *found, unit_start):
                changed.append(found[0])
        return changed

    def _module_lambda(self, node: ast.Lambda) -> bool:
        """A lambda bound at module level that traced code calls by a name (`model.apply`
        of `model = hk.transform(lambda x: Net()(x))`): it runs in the caller's trace, and
        the functions it calls with it. Its home is its own unit, at module level."""
        written = self._lambda_units.get(node)
        if written is None or node not in _module_level_lambdas(written[1]):
            return False
        start, source = written
        self._source_of.setdefault(node, source)
        self._lambda_homes.setdefault(node, (None, start))
        return True

    def _trace_call(
        self,
        node: FunctionNode,
        info: TraceInfo,
        scope: ScopeKinds,
        call: CallSite,
        callee: FunctionNode,
        ref: FunctionRef,
        unit_start: int,
        given_tracers: frozenset[str] = frozenset(),
    ) -> bool:
        """Trace `callee` as the traced `node` calls it (`given_tracers`: parameters it gives
        tracers beyond the arguments); True if its trace changed."""
        if callee is node or (isinstance(callee, ast.Lambda) and not self._module_lambda(callee)):
            return False
        if self._on_module_object(call.callee, node):
            self.module_object_methods.add(callee)
        # A container of tracers passed on (`f((n, n))`, `tree_map(f, tree)`).
        leaves = self.resolver.qualname(call.node.func) in TREE_MAPS
        in_containers, containers = call_site_containers(
            callee, call.node, scope.values, ref, leaves
        )
        receiver = self._object_receiver(callee, ref, call.node.func, scope)
        if receiver is not None:
            in_containers |= {receiver[0]}
            containers |= {receiver}
        statics = python_value_params(callee, call.node, scope.kinds, ref)
        own_defaults = literal_default_params(node) if not isinstance(node, ast.Lambda) else ()
        given = frozenset(
            name
            for name, argument in passed_arguments(callee, call.node, ref)
            if scope.kinds.get(argument) is Kind.TRACED
            and not (isinstance(argument, ast.Name) and argument.id in own_defaults)
        )
        if given - self._given_tracers.get(callee, frozenset()):
            self._given_tracers[callee] = self._given_tracers.get(callee, frozenset()) | given
        new = TraceInfo(
            f"called from {self._display_name(node)}",
            info.abstract,
            call_site_params(callee, call.node, scope.kinds, ref)
            | in_containers
            | given_tracers
            | self._traced_receiver(callee, ref, call.node.func, scope),
            statics,
            False,
            TraceOrigin(call.node, unit_start, node, called=True),
            containers,
            info.eager,
            module_defaults=self._imported_defaults(callee, call.node, ref),
            literals=literal_flag_params(callee, call.node, ref),
            array_functions=self._array_functions(callee, call.node, ref),
            all_leaves=self._leaves_passed(node, info, callee, call.node, ref),
        )
        return self._set_trace(callee, new, call.node)

    def _leaves_passed(
        self,
        node: FunctionNode,
        info: TraceInfo,
        callee: FunctionNode,
        call: ast.Call,
        ref: FunctionRef,
    ) -> frozenset[str]:
        """Parameters of `callee` given, as it is, a parameter of the traced `node` each of
        whose leaves is a tracer (`batch` of a jitted step passed on to a helper): the
        helper's parameter is such a pytree too."""
        if not info.all_leaves or isinstance(node, ast.Lambda):
            return frozenset()
        rebound = self._rebound.get(node)
        if rebound is None:
            rebound = self._rebound[node] = rebound_names(node)
        return frozenset(
            name
            for name, argument in passed_arguments(callee, call, ref)
            if type(argument) is ast.Name
            and argument.id in info.all_leaves
            and argument.id not in rebound
        )

    def _imported_defaults(
        self, callee: FunctionNode, call: ast.Call, ref: FunctionRef
    ) -> frozenset[tuple[str, str]]:
        """`imported_default_params` of a function defined at module level or in a class
        body (its defaults see the module's imports, not an enclosing function's names),
        but for parameters it rebinds (`xp = array_namespace(x)`)."""
        record = self.records.get(callee)
        if record is None or record.parent is not None or isinstance(callee, ast.Lambda):
            return frozenset()
        found = imported_default_params(callee, call, ref, self.resolver.qualname)
        if not found:
            return found
        rebound = rebound_names(callee)
        return frozenset((name, qualname) for name, qualname in found if name not in rebound)

    def _array_functions(
        self, callee: FunctionNode, call: ast.Call, ref: FunctionRef
    ) -> frozenset[str]:
        """`array_function_params` of a function defined at module level or in a class body
        (its defaults see the module's imports), but for parameters it rebinds."""
        if isinstance(callee, ast.Lambda):
            return frozenset()
        qualname = self.resolver.qualname
        foreign = self._foreign_nodes.get(callee)
        if foreign is not None:  # its module judges the defaults left (`_seed_incoming`)
            found = array_function_params(callee, call, ref, qualname, any_default=True)
            return found - rebound_names(callee) if found else found
        record = self.records.get(callee)
        if record is None or record.parent is not None:
            return frozenset()
        found = array_function_params(callee, call, ref, qualname)
        return found - rebound_names(callee) if found else found

    def _on_module_object(self, ref: FunctionRef, caller: FunctionNode) -> bool:
        """Does the call `ref` run a method of a module-level instance (not shadowed in the
        calling function)?"""
        owner, dot, _ = ref.name.partition(".")
        return (
            bool(dot)
            and ref.owner_class is None
            and owner in self.instances
            and owner not in self.classes_in(caller)
            and owner not in all_params(caller)
        )

    def _object_receiver(
        self, callee: FunctionNode, ref: FunctionRef, func: ast.expr, scope: ScopeKinds
    ) -> tuple[str, Value] | None:
        """`self` of a method run on an object the trace built from tracers (`Term(q).psd(w)`,
        a property of it read), with the object: its attributes hold the tracers."""
        record = self.records.get(callee)
        if (
            record is None
            or record.class_name is None
            or ref.bound_positional < 1
            or ref.leading_args
            or not isinstance(func, ast.Attribute)
            or func.attr != callee.name
            or is_staticmethod(callee)
        ):
            return None
        value = scope.values.get(func.value)
        if type(value) is not Object or not contains_traced(value):
            return None
        if value.class_name != record.class_name:
            return None  # a method the class inherits sees the same attributes, but not here
        positional = positional_params(callee)
        return (positional[0], value) if positional else None

    def _traced_receiver(
        self, callee: FunctionNode, ref: FunctionRef, func: ast.expr | None, scope: ScopeKinds
    ) -> frozenset[str]:
        """`self` of a method run on a traced object (`model(x)`, `model.encode(x)`,
        `self.layer(x)`, `jax.vmap(model)`), whose leaves are tracers there: `func` is the
        callable expression."""
        record = self.records.get(callee)
        if record is not None:
            method = record.class_name is not None
        else:  # a method of a class of another module
            method = callee in self._foreign_nodes and self._foreign_nodes[callee].method
        if not method or ref.bound_positional < 1:
            return frozenset()
        if ref.leading_args:  # a linen module's `apply`: its `self` holds configuration
            return frozenset()
        receiver = func
        if isinstance(func, ast.Attribute) and func.attr in (callee.name, "apply"):
            receiver = func.value  # a method of the object; else the object is called
        if not isinstance(receiver, ast.Name | ast.Attribute):
            return frozenset()
        traced = scope.kinds.get(receiver) is Kind.TRACED
        if not traced and isinstance(receiver, ast.Attribute):
            # An object held by a traced PyTree object is traced, unless a static field holds it.
            base = scope.values.get(receiver.value)
            traced = type(base) is Instance and base.attribute(receiver.attr) is not Kind.STATIC
        return frozenset(positional_params(callee)[:1]) if traced else frozenset()

    def explain(self, node: FunctionNode) -> tuple[TraceStep, ...]:
        """Why a function is traced: the transformation that traces it, or the traced caller
        and why that one is traced, and so on (a few links at most)."""
        steps: list[TraceStep] = []
        seen: set[ast.AST] = set()
        current: FunctionNode | None = node
        while current is not None and current not in seen and len(steps) < _MAX_EXPLAINED:
            seen.add(current)
            info = self.trace.get(current)
            origin = info.origin if info is not None else None
            if origin is None:
                break
            if origin.foreign:  # traced by code in other modules: their sites, in order
                steps += [
                    TraceStep(step.function, step.label, step.caller, None, 0, step.file, step.span)
                    for step in origin.foreign
                ]
                break
            caller = origin.caller
            steps.append(
                TraceStep(
                    self._display_name(current),
                    None if origin.called else transform_name(info.via),
                    self._display_name(caller) if caller is not None else None,
                    origin.node,
                    origin.unit_start,
                )
            )
            # A transformation applied in traced code is there because that code runs.
            current = caller if caller is not None and caller in self.trace else None
        return tuple(steps)

    def _display_name(self, node: FunctionNode) -> str:
        record = self.records.get(node)
        return record.path if record is not None else "<lambda>"

    def explanation_key(self, node: FunctionNode, unit_start: int) -> tuple:
        """What the explanation of `node` shows a unit starting at `unit_start`: names and
        transformations, and the place of each site in another unit (its related place is in
        document coordinates; a site of the same unit moves with it)."""
        if node not in self.trace:
            return ()
        return tuple(
            (
                step.function,
                step.label,
                step.caller,
                step.unit_start if step.unit_start != unit_start else None,
                step.site.lineno if step.site is not None else step.file,
                step.site.col_offset if step.site is not None else step.span,
            )
            for step in self.explain(node)
        )

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
                return TraceInfo(
                    info.via, info.abstract, frozenset(), frozenset(), False, eager=info.eager
                )
        return None

    def _lambda_params(self, node: ast.Lambda) -> dict[str, Kind] | None:
        info = self.trace.get(node)
        if info is None:
            return None
        return {name: Kind.TRACED for name in info.traced_params}

    def scope_kinds(self, node: FunctionNode) -> ScopeKinds:
        settled = self._settled_scopes
        if settled is not None:
            found = settled.get(node)
            if found is None:
                found = settled[node] = self._scope_kinds(node)
            return found
        return self._scope_kinds(node)

    def _scope_kinds(self, node: FunctionNode) -> ScopeKinds:
        chain = [*self.enclosing_chain(node), node]
        source = self._source_of[node]
        key = (
            "scope",
            self.alias_key,
            self.unit_globals_key(source),
            tuple((fn, self.context_of(fn)) for fn in chain),
            self._lambda_traces(source),
            self._returns_key(source),
            tuple([self.ref_params.get(fn) for fn in chain]) if self.ref_params else (),
            tuple([self.carry_values(fn) for fn in chain]) if self._loop_bodies else (),
            tuple([self.object_params(fn) for fn in chain]),
            tuple([self.self_object(fn) for fn in chain]),
            tuple([self._method_returns_key(fn) for fn in chain]),
        )
        if key in source.memo:
            return source.memo[key]
        outer = dict(self.global_values)
        if len(chain) > 1:
            outer.update(self.scope_kinds(chain[-2]).final_env)
        info = self.context_of(node)
        params: dict[str, Value] = {}
        containers: dict[str, str] = {}
        declared_kinds: dict[str, Kind | None] = {}
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            declared = declared_kinds[arg.arg] = annotation_kind(arg.annotation, self.resolver)
            params[arg.arg] = declared or Kind.UNKNOWN
            form = annotation_container(arg.annotation, self.resolver)
            if form is not None:
                containers[arg.arg] = form
        for name in all_params(node):
            params.setdefault(name, Kind.UNKNOWN)
            if info and name in info.traced_params:
                form = containers.get(name)
                params[name] = Container(form, leaf=Kind.TRACED) if form else Kind.TRACED
                for passed, value in info.containers:  # every trace passes a container
                    if passed == name:
                        params[name] = value
            elif info and name in info.static_params:
                params[name] = Kind.STATIC
        for name in info.array_functions if info else ():
            if name not in info.traced_params:  # `y = act(x)` computes a tracer
                params[name] = Function(None, ARRAYS)
        for name in self.ref_params.get(node, ()):
            params[name] = REF
        params.update(self.object_params(node))
        params.update(self.self_object(node))
        params.update(self.carry_values(node))
        arrays = {name for name, kind in declared_kinds.items() if kind is not None}
        tree_params = frozenset(
            name
            for name in (info.all_leaves & info.traced_params if info else ())
            if params.get(name) is Kind.TRACED and name not in arrays
        )
        bindings = local_imports(node)
        if info and info.module_defaults:  # `xp=xp` left alone: the module itself
            bindings = {**bindings, **dict(info.module_defaults)}
        resolver = self.resolver.child(bindings, frozenset(params))
        context = ScopeContext(
            resolver,
            bool(info and info.abstract),
            outer,
            self._lambda_params,
            self.external or {},
            self.return_value,
            self._traced_return_value,
            self.records[node].path if node in self.records else "",
            tree_params,
            _fixed_flags(node, info),
            self._method_call_returns if info is not None and info.abstract else _no_method,
        )
        kinds: dict[ast.AST, Kind] = {}
        values: dict[ast.AST, Value] = {}
        interpreter = FlowInterpreter(context, kinds, values)
        final = interpreter.run_function(node, params)
        result = ScopeKinds(kinds, final, values)
        source.memo[key] = result
        return result

    @cached_property
    def _loop_bodies(self) -> dict[FunctionNode, list[tuple[Application, int]]]:
        """Functions given to `lax.while_loop`/`fori_loop`/`scan` inside a function: each
        application, and which of the function's parameters receives the carry."""
        found: dict[FunctionNode, list[tuple[Application, int]]] = {}
        for summary in self.summaries:
            for application in summary.applications:
                place = _CARRY_PARAMS.get(application.spec.label)
                if place is None or application.enclosing is None:
                    continue
                target = self.resolve(application.target)
                if target is None or isinstance(target, ast.Lambda):
                    continue
                found.setdefault(target, []).append((application, place))
        return found

    def carry_values(self, node: FunctionNode) -> tuple[tuple[str, Value], ...]:
        """The loop body's carry parameter, shaped like the initial carry where the loop is
        called (a dict carried through `lax.while_loop` is a dict of tracers in the body)."""
        uses = self._loop_bodies.get(node)
        if not uses or isinstance(node, ast.Lambda):
            return ()
        if node in self._carries:
            return self._carries[node]
        self._carries[node] = ()  # a loop inside its own body: no structure
        found: list[Value] = []
        positional = positional_params(node)
        for application, place in uses:
            call = application.node
            position, keyword = _CARRY_ARGUMENTS[application.spec.label]
            init = call.args[position] if position < len(call.args) else None
            init = init or next((k.value for k in call.keywords if k.arg == keyword), None)
            if init is None or place >= len(positional):
                return ()
            scope = self.scope_kinds(application.enclosing)
            value = scope.values.get(init, scope.kinds.get(init, Kind.UNKNOWN))
            found.append(_carry_leaves(as_jax(value, True)))
        carry = merge_values_all(found)
        result = ((positional[place], carry),) if type(carry) is Container else ()
        self._carries[node] = result
        return result

    def passed_defaults(self, node: FunctionNode) -> frozenset[str]:
        """Parameters with a literal default (`training=True`) that some call in the module
        passes a tracer: of a function a transformation traces directly, those a call of the
        transformed function passes (jit traces an argument it is given, where a default left
        alone stays a Python value); of a function traced only through calls, those a traced
        call passes a tracer of its own (`_given_tracers`)."""
        found = self._passed_defaults.get(node, frozenset())
        info = self.trace.get(node)
        if info is not None and not info.direct:
            found |= literal_default_params(node) & self._given_tracers.get(node, frozenset())
        return found

    @cached_property
    def _passed_defaults(self) -> dict[FunctionNode, frozenset[str]]:
        defaults: dict[FunctionNode, frozenset[str]] = {}
        for node, info in self.trace.items():
            if info.direct and not isinstance(node, ast.Lambda):
                found = literal_default_params(node) & info.traced_params
                if found:
                    defaults[node] = found
        if not defaults:
            return {}
        names = {node.name for node in defaults}
        paths = {self.records[node].path: node for node in defaults if node in self.records}
        aliases = {  # module names bound to the transformed function (`g = jax.jit(f)`)
            name: paths[value.path]
            for name, value in self.global_values.items()
            if type(value) is Function and value.transform and value.path in paths
        }
        decorated = set()  # every call of the function by its name runs the transformed one
        # The first module-level line applying a transformation to each name (`f = jax.jit(f)`):
        # where the name rebound to the transformed function is transformed at module level.
        applied_from: dict[str, int] = {}
        calls: list[tuple[FunctionRef, ast.Call, int, FunctionNode | None]] = []
        # Module names bound to a transformed method of an object (`u = jax.jit(opt.update)`):
        # the method and the reference as the calls of the name see it (`self` fixed).
        method_aliases: dict[str, tuple[FunctionNode, FunctionRef]] = {}
        found: dict[FunctionNode, frozenset[str]] = {}
        units = [unit for unit in self.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.summaries, strict=True):
            for application in summary.applications:
                target = application.target
                if target.name.rpartition(".")[2] not in names:
                    continue
                if target.node is not None and application.node in getattr(
                    target.node, "decorator_list", ()
                ):
                    decorated.add(target.node)
                elif _rebinds_its_target(unit.tree, application):
                    line = unit.start_line + application.node.lineno
                    applied_from[target.name] = min(applied_from.get(target.name, line), line)
                if application.call is not None:  # `jax.jit(f)(x, False)`
                    site = (target, application.call, unit.start_line, application.enclosing)
                    calls.append(site)
                name = _bound_method_alias(unit.tree, application)
                resolved = None if name is None else self.resolve_ref(target)
                if resolved is not None and resolved[0] in defaults:
                    method_aliases[name] = resolved  # `update = jax.jit(opt.update)`
            for call in summary.calls:
                if call.callee.name in method_aliases and (
                    call.caller is None or not binds_locally(call.callee.name, call.caller)
                ):
                    node, bound = method_aliases[call.callee.name]
                    if passed := passed_params(node, call.node, bound) & defaults[node]:
                        found[node] = found.get(node, frozenset()) | passed
                elif call.callee.name.rpartition(".")[2] in names or call.callee.name in aliases:
                    calls.append((call.callee, call.node, unit.start_line, call.caller))
        for ref, call, unit_start, caller in calls:
            resolved = self.resolve_ref(ref, unit_start + call.lineno, caller)
            if resolved is None and ref.name in aliases:
                resolved = aliases[ref.name], ref
            if resolved is None or resolved[0] not in defaults:
                continue
            node, ref = resolved
            func = call.func
            # A plain call of a function jitted elsewhere (`g = jax.jit(f)`) traces nothing:
            # only its decorated name, a name bound to the transformed one (`f = jax.jit(f)`
            # rebinds the name itself: from there on at module level, and in any function), or
            # `jit(f)(...)`.
            named = isinstance(func, ast.Name) and func.id == node.name
            # A module-level call before the rebinding runs the plain function.
            rebound_from = applied_from.get(func.id, math.inf) if named else math.inf
            rebound = rebound_from < (unit_start + call.lineno if caller is None else math.inf)
            if named and node not in decorated and not rebound:
                continue
            passed = passed_params(node, call, ref) & defaults[node]
            if passed:
                found[node] = found.get(node, frozenset()) | passed
        return found

    def differentiated(self, node: FunctionNode) -> frozenset[str]:
        """Parameters of `node` that a differentiating transformation gives tangent-carrying
        tracers (`jax.grad(f)`, or a call passing on such a value: `jax.grad(lambda x:
        f(2 * x))`): no static argument can take them."""
        return self._differentiated.get(node, frozenset())

    @cached_property
    def _differentiated(self) -> dict[FunctionNode, frozenset[str]]:
        found: dict[FunctionNode, frozenset[str]] = {}
        pending: list[FunctionNode] = []

        def note(function: FunctionNode, params: frozenset[str]) -> None:
            if params and not params <= found.get(function, frozenset()):
                found[function] = found.get(function, frozenset()) | params
                pending.append(function)

        for application, unit_start in self._gradients:
            line = unit_start + application.node.lineno
            ref = application.target
            if ref.name.endswith(_WRAPPED):  # `jax.grad(f.__wrapped__)`: the function itself
                ref = replace(ref, name=ref.name.removesuffix(_WRAPPED))
            resolved = self.resolve_ref(ref, line, application.enclosing)
            if resolved is not None:
                note(resolved[0], differentiated_params(application, *resolved))
        if not found:
            return found
        units = [unit for unit in self.document.units if unit.tree is not None]
        call_sites = {
            call.node: (call, unit.start_line)
            for unit, summary in zip(units, self.summaries, strict=True)
            for call in summary.calls
        }
        while pending:
            function = pending.pop()
            params = found[function]
            for call in walk_nodes(function):
                located = call_sites.get(call) if type(call) is ast.Call else None
                if located is None:
                    continue
                site, unit_start = located
                resolved = self.resolve_ref(site.callee, unit_start + call.lineno, site.caller)
                if resolved is None or resolved[0] is function:
                    continue
                callee, ref = resolved
                passed = passed_arguments(callee, call, ref)
                note(callee, frozenset(n for n, arg in passed if _mentions(arg, params)))
        return found

    def _local_refs(self, node: FunctionNode) -> frozenset[str]:
        """`_local_refs` memoised on the function's node and the module's imports: a whole
        walk of every function on every edit cost the editor its speed. On the node, not its
        unit: an edit in one method of a class shares the other methods' nodes with the last
        parse (`document._splice_member`), and the names a function binds to a new ref are
        a fact of its subtree and the imports alone."""
        known = _LOCAL_REFS.get(node)
        if known is not None and known[0] == self.alias_key:
            return known[1]
        found = _local_refs(node, self.resolver)
        _LOCAL_REFS[node] = (self.alias_key, found)
        return found

    @cached_property
    def ref_params(self) -> dict[FunctionNode, frozenset[str]]:
        """Parameters of module functions that a call in the module passes a `jax.Ref` (a name
        bound by `jax.new_ref(...)` at module level or in the caller, or a parameter that
        receives one): `ref[...] = v` is legal on them."""
        sources = [unit.source for unit in self.document.units if unit.tree is not None]
        if not any(_may_make_refs(source) for source in sources):
            return {}
        module_refs = frozenset(n for n, v in self.global_values.items() if v is REF)
        local_refs = {
            record.node: self._local_refs(record.node)
            for record in self.functions.values()
            if not isinstance(record.node, ast.Lambda)
        }
        if not module_refs and not any(local_refs.values()):
            return {}  # no ref is made anywhere, so none is passed
        calls = [call for summary in self.summaries for call in summary.calls]
        # `jax.vmap(f)(xs, ref)`: a transformed function called at once passes its arguments
        # on to `f`'s parameters.
        calls += [
            CallSite(application.enclosing, application.target, application.call)
            for summary in self.summaries
            for application in summary.applications
            if application.call is not None
        ]
        found: dict[FunctionNode, frozenset[str]] = {}
        held = module_refs.union(*local_refs.values())  # every name that may hold a ref
        changed = True
        while changed:  # a parameter that receives a ref may pass it on
            changed = False
            for call in calls:
                arguments = call.argument_names
                if held.isdisjoint(arguments):
                    continue
                refs = (
                    module_refs
                    if call.caller is None
                    else self._refs_in(call.caller, module_refs, local_refs, found)
                )
                # Only a call passing a name that holds a ref can pass one: resolving every
                # call of the module on every edit cost the editor its speed.
                if refs.isdisjoint(arguments):
                    continue
                callee = self.resolve(call.callee)
                if callee is None or isinstance(callee, ast.Lambda):
                    continue
                record = self.records.get(callee)
                method = bool(record and record.class_name and "." in call.callee.name)
                method = method and not is_staticmethod(callee)
                passed = _params_passed(callee, call.node, refs, method)
                passed -= found.get(callee, frozenset())
                if passed:
                    found[callee] = found.get(callee, frozenset()) | passed
                    held |= passed
                    changed = True
        return found

    @staticmethod
    def _refs_in(caller, module_refs, local_refs, found) -> frozenset[str]:
        """Names that hold a ref in `caller`: its own refs and ref parameters, and the
        module's refs that it does not shadow with a parameter."""
        own = local_refs.get(caller, frozenset()) | found.get(caller, frozenset())
        if isinstance(caller, ast.Lambda):
            return module_refs | own
        return (module_refs - frozenset(all_params(caller))) | own

    # -- return summaries -----------------------------------------------------------------
    @cached_property
    def _call_sites(self) -> dict[ast.Call, tuple[CallSite, int]]:
        """Every call of the module, with the first line of its unit."""
        units = [unit for unit in self.document.units if unit.tree is not None]
        return {
            call.node: (call, unit.start_line)
            for unit, summary in zip(units, self.summaries, strict=True)
            for call in summary.calls
        }

    def _resolved_method(self, call: ast.Call) -> FunctionRecord | None:
        """The method of a class of the module a call through an object runs, when the model
        resolves it (`self.helper(x)`, a linen module's `model.apply(variables, x)`, a
        TrainState's `state.apply_fn(variables, x)`: `__call__`)."""
        if type(call.func) is not ast.Attribute:
            return None
        located = self._call_sites.get(call)
        if located is None:
            return None
        site, unit_start = located
        resolved = self.resolve_ref(site.callee, unit_start + call.lineno, site.caller)
        if resolved is None or isinstance(resolved[0], ast.Lambda):
            return None
        record = self.records.get(resolved[0])
        return record if record is not None and record.class_name else None

    def _method_call_returns(self, call: ast.Call) -> Value | None:
        """What the method a call resolves to returns, interpreted on its own (its parameters
        unknown, as a module function's return summary)."""
        record = self._resolved_method(call)
        if record is None or isinstance(record.node, ast.AsyncFunctionDef):
            return None
        node = record.node
        source = self._source_of[node]
        key = ("method-returns", self.alias_key, self.unit_globals_key(source), record.path)
        if key not in source.memo:
            source.memo[key] = self._interpret_returns(node, self.global_values)
        return source.memo[key]

    def _method_returns_key(self, node: FunctionNode) -> tuple:
        """The methods whose return summaries a traced function's values read (the calls in
        its body the model resolves to methods): each one's path, text and the key of the
        globals its unit mentions, for the keys of the function's values and findings (the
        method may be in another unit, or another method of the same class)."""
        memo = self._method_keys
        found = memo.get(node)
        if found is None:
            info = self.context_of(node)
            entries = []
            if info is not None and info.abstract:
                for call in walk_nodes(node):
                    if type(call) is not ast.Call or type(call.func) is not ast.Attribute:
                        continue
                    record = self._resolved_method(call)
                    if record is None:
                        continue
                    source = self._source_of[record.node]
                    text = source.node_lines(record.node)
                    entries.append((record.path, hash(text), self.unit_globals_key(source)))
            found = memo[node] = tuple(entries)
        return found

    def return_value(self, path: str, given_tracers: bool = False) -> Value | None:
        """What calling the module function `path` returns, interpreted on its own (its
        parameters unknown, outside any trace; with `given_tracers`, every parameter a tracer
        in abstract code): JAX arrays it makes, pytrees it builds, Python values. Calls of
        other module functions inside are not followed, so the summary depends only on the
        function's own unit (and the module facts every key holds)."""
        record = self.functions.get(path)
        if record is None or record.class_name or isinstance(record.node, ast.Lambda):
            return None
        node = record.node
        source = self._source_of[node]
        key = ("returns", self.alias_key, self.unit_globals_key(source), path, given_tracers)
        if key not in source.memo:
            source.memo[key] = self._interpret_returns(node, self.global_values, given_tracers)
        return source.memo[key]

    def _traced_return_value(self, path: str) -> Value | None:
        return self.return_value(path, given_tracers=True)

    def _interpret_returns(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        outer: Mapping[str, Value],
        given_tracers: bool = False,
    ) -> Value | None:
        if isinstance(node, ast.AsyncFunctionDef):
            return None  # a call gives a coroutine
        returns = own_returns(node, "yield" in self._source_of[node].text)
        if returns is None:
            return None
        if all(value is None or is_none(value) for value in returns):
            return Kind.UNKNOWN  # no return gives a value: nothing to interpret
        params: dict[str, Value] = {name: Kind.UNKNOWN for name in all_params(node)}
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            params[arg.arg] = annotation_kind(arg.annotation, self.resolver) or Kind.UNKNOWN
        if given_tracers:
            params = dict.fromkeys(params, Kind.TRACED)
        resolver = self.resolver.child(local_imports(node), frozenset(params))
        kinds: dict[ast.AST, Kind] = {}
        values: dict[ast.AST, Value] = {}
        # Its path names the functions it defines (`make_step.step`, what a call returns).
        path = self.records[node].path if node in self.records else ""
        context = ScopeContext(
            resolver, given_tracers, outer, external=self.external or {}, scope_path=path
        )
        FlowInterpreter(context, kinds, values).run_function(node, params)
        found = [
            Kind.UNKNOWN
            if value is None or is_none(value)
            else values.get(value, kinds.get(value, Kind.UNKNOWN))
            for value in returns
        ]
        return merge_values_all(found) if found else Kind.UNKNOWN

    def _returns_key(self, source: UnitSource) -> tuple:
        """The units defining the module functions this unit may call (by name, or through
        a module-level `step = jax.jit(f)`): their return summaries shape its values."""
        defined = self._function_units
        if not defined:
            return ()
        own = hash(source.text)
        named = self._named_functions(source)
        return tuple([(name, defined[name]) for name in named if defined[name][1] != own])

    def _named_functions(self, source: UnitSource) -> tuple[str, ...]:
        """The module-level names bound to module functions that the unit's text holds."""
        key = ("named-functions", self._function_names_key)
        named = source.memo.get(key)
        if named is None:
            # A name among the text's words may be called. Memoised on the unit: a scan of
            # every unit for every name on each edit cost the editor its speed; the words'
            # intersection costs the unit's size, not the module's (a search of the text for
            # each of a thousand names, in each of a thousand units, was quadratic).
            named = source.memo[key] = tuple(sorted(source.words() & self._function_units.keys()))
        return named

    def _named_function_units(self, source: UnitSource) -> tuple:
        """`_returns_key` with the unit's own functions: for a fact kept across parses."""
        defined = self._function_units
        return tuple([(name, defined[name]) for name in self._named_functions(source)])

    def unit_globals_key(self, source: UnitSource) -> int:
        """The values of the module-level names a unit's text mentions, interned.

        The value interpreter reads a global only by a name written in the code it runs (a
        `Name` load, the head of a dotted name), so a unit's scopes and top-level code, and
        the return summaries of its functions, depend on these globals and no others.
        Everything keyed on this rather than on all globals survives a new module-level
        statement that binds a name the unit does not mention."""
        # Memoised on the unit while all globals are the same (an edit inside a function).
        key = ("globals-used", self.globals_key)
        found = source.memo.get(key)
        if found is None:
            values = self.global_values
            words = source.words()
            used = sorted(words & values.keys()) if len(words) < len(values) else None
            if used is None:
                used = sorted(name for name in values if name in words)
            found = source.memo[key] = intern_key(tuple([(name, values[name]) for name in used]))
        return found

    @cached_property
    def _function_names_key(self) -> int:
        return intern_key(tuple(self._function_units))

    @cached_property
    def _function_units(self) -> dict[str, tuple[str, int, int]]:
        """Module-level names bound to module functions (`def f`, `step = jax.jit(f)`): the
        function's path, the hash of the text of the unit that defines it and the key of the
        globals that text mentions."""
        found = {}
        for name, value in self.global_values.items():
            if type(value) is Function and value.path is not None:
                record = self.functions.get(value.path)
                if record is not None:
                    source = self._source_of[record.node]
                    # The function's return summary depends on its unit's text and on the
                    # globals that text mentions (`return_value`).
                    found[name] = (value.path, hash(source.text), self.unit_globals_key(source))
        return found

    def _lambda_traces(self, source: UnitSource) -> tuple[TraceInfo | None, ...]:
        """How each lambda of the unit is traced: part of the keys of its cached kinds."""
        trace = self.trace
        return tuple([trace.get(node) for node in self._summary(source).lambdas])

    def module_shapes(self, unit_start: int) -> dict[str, KnownValue]:
        """Shapes and int literals of module-level names as the top-level code of the unit
        starting at document line `unit_start` sees them, carried across the top-level
        statements before it (a script's `x = jnp.array(x)`): the names its text mentions."""
        return dict(self._module_shapes.get(unit_start, ()))

    @cached_property
    def _module_shapes(self) -> dict[int, tuple[tuple[str, KnownValue], ...]]:
        units = [unit for unit in self.document.units if unit.tree is not None]
        untracked = self.global_writes

        def step(source: UnitSource, state: dict) -> tuple[tuple, tuple]:
            body = source.tree.body
            if len(body) == 1 and isinstance(body[0], _DEFINITIONS):
                return (), ((body[0].name, None),)  # binds a function or a class
            words = _loaded_words(source)
            seen = tuple(sorted((n, v) for n, v in state.items() if n in words))
            key = ("module-shapes", self.alias_key, seen)
            if key not in source.memo:
                bound = run_top_level(source.tree.body, dict(seen), self.resolver)
                source.memo[key] = tuple(sorted(bound.items()))
            # A name some function rebinds through `global` is never known.
            return seen, tuple(item for item in source.memo[key] if item[0] not in untracked)

        results, _ = self.document.lineage.fold(
            "module-shapes",
            (self.alias_key, untracked),
            [unit.source for unit in units],
            step,
            _apply_known,
        )
        return {unit.start_line: seen for unit, (seen, _) in zip(units, results, strict=True)}

    def module_kinds(self, source: UnitSource) -> dict[ast.AST, Kind]:
        """Kinds of a unit's top-level statements (outside any function)."""
        reaching = self.reaching_values(source)
        key = (
            "module-scope",
            self.alias_key,
            self.unit_globals_key(source),
            self._reaching_key(source),
            self._lambda_traces(source),
            self._returns_key(source),
        )
        if key not in source.memo:
            kinds: dict[ast.AST, Kind] = {}
            context = ScopeContext(
                self.resolver,
                False,
                ChainMap(reaching, self.global_values) if reaching else self.global_values,
                self._lambda_params,
                self.external or {},
                self.return_value,
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
        """Module functions a call can name (`named_by_calls`) -> the parameters whose key
        they consume (sample with or split), themselves or through other such functions of
        the module."""
        if self._key_helpers is None:
            helpers: dict[str, frozenset[str]] = {}
            for unit in self.document.units:
                if unit.tree is None:
                    continue
                key = ("key-helpers", self.alias_key, tuple(sorted(self.key_makers.items())))
                if key not in unit.source.memo:
                    unit.source.memo[key] = self._unit_key_helpers(unit.source)
                helpers.update(unit.source.memo[key])
            self._key_helpers = self._helpers_through_calls(helpers)
        return self._key_helpers

    def _unit_key_helpers(self, source: UnitSource) -> dict[str, frozenset[str]]:
        if not self._may_consume_keys(source.text):
            return {}
        helpers = {}
        for record in self._summary(source).functions:
            node = record.node
            if isinstance(node, ast.Lambda) or not all_params(node) or not named_by_calls(record):
                continue
            # Only a function whose own text can name a consumer passes a key to one.
            if not self._may_consume_keys(source.node_lines(node)):
                continue
            if drawn := consumed_params(node, self._consumer_role(node)):
                helpers[record.path] = drawn
        return helpers

    def _may_consume_keys(self, text: str) -> bool:
        """Can code with this text hand a key to a consumer: a sampler, a library consumer,
        an imported function that consumes or derives from a key?"""
        if may_draw(text, self.resolver) or may_use_library_key(text):
            return True
        if any(name in text for name in self.initializer_globals):
            return True
        return any(name.partition(".")[0] in text for name in self._external_key_functions)

    @cached_property
    def _external_key_functions(self) -> tuple[str, ...]:
        """The imported functions' spellings whose facts say they consume or derive from a
        key parameter."""
        return tuple(
            sorted(
                name
                for name, facts in (self.external or {}).items()
                if facts.consumed_keys or facts.derived_keys
            )
        )

    def _consumer_role(self, function: FunctionNode) -> Callable[[ast.Call], object]:
        """The role of a call in `function` as the module's key summaries start from: what a
        sampler, a library consumer or an imported function draws with (no helper of the
        module: `_helpers_through_calls` adds those)."""
        makers: dict[str, str] | None = None

        def role(call: ast.Call):
            nonlocal makers
            found = consumer_key(call, self.resolver)
            if found is not None:
                return found
            func = call.func
            if (type(func) is ast.Call and makes_random_initializer(func, self.resolver)) or (
                type(func) is ast.Name
                and func.id in self.initializer_globals
                and not self.resolver.qualname(func)
            ):
                return key_argument(call)  # a random initializer draws from its key
            if makers is None:
                makers = self._function_makers(function)
            found = library_key(call, self.resolver, makers)
            if found is None and self.external:
                found = external_key(call, self.external)
            return found

        return role

    def _function_makers(self, function: FunctionNode) -> dict[str, str]:
        """Names bound to library objects where `function`'s body runs: its own and the
        module's."""
        if isinstance(function, ast.Lambda):
            return self.key_makers
        local = library_makers(function.body, self.resolver)
        return {**self.key_makers, **local} if local else self.key_makers

    @cached_property
    def key_makers(self) -> dict[str, str]:
        """Module-level names bound (every time, to the same maker) to an object a library
        call made whose methods draw from a key (`critic = hk.transform(f)`): name -> the
        maker's qualified name (`keys.LIBRARY_METHODS`)."""
        if not any(self.resolver.binds_module(root) for root in LIBRARY_MAKER_ROOTS):
            return {}
        assigned = self._top_level_values

        def compute() -> dict[str, str]:
            statements = [
                ast.Assign([ast.Name(name, ast.Store())], value)
                for name, values in assigned.items()
                for value in values
            ]
            return library_makers(statements, self.resolver)

        return self.document.lineage.reuse("key-makers", (self.alias_key, assigned), compute)

    @property
    def key_summaries(self) -> dict[str, KeySummary]:
        """Module functions a call can name -> what their callers see of their key
        parameters beyond consuming them (`KeySummary`): derived uses, keys returned after
        being consumed."""
        if self._key_summaries is None:
            helpers = self.key_helpers
            summaries: dict[str, KeySummary] = {}
            for _ in range(2):  # a derived use through one helper of the module
                found: dict[str, KeySummary] = {}
                for name, record in self.functions.items():
                    node = record.node
                    if isinstance(node, ast.Lambda) or not all_params(node):
                        continue
                    if not named_by_calls(record):
                        continue
                    returned = returned_keys(node, helpers.get(name, frozenset()))
                    derived: tuple = ()
                    text = self._source_of[node].node_lines(node)
                    if may_use_library_key(text) or any(h in text for h in summaries):
                        base = self._consumer_role(node)

                        def role(call, base=base, known=summaries):
                            found_role = base(call)
                            if found_role is None and known:
                                found_role = derived_helper_key(call, self.functions, known)
                            return found_role

                        derived = derived_params(node, role)
                    if returned or derived:
                        found[name] = KeySummary(derived, returned)
                if found == summaries:
                    break
                summaries = found
            self._key_summaries = summaries
        return self._key_summaries

    def _helpers_through_calls(
        self, helpers: dict[str, frozenset[str]]
    ) -> dict[str, frozenset[str]]:
        """Add the functions that hand a parameter to a key helper (a few rounds: helpers of
        helpers; deeper chains are rare and each round walks the candidates again)."""
        if not helpers:
            return helpers
        helpers = dict(helpers)
        functions = self.functions

        def classify(call: ast.Call, params: frozenset[str], base):
            found = base(call)
            return found or helper_key(call, functions, helpers, params, self.resolver)

        # A function's answer reads only the helpers its text names (`helper_key` looks up
        # the name a call spells): it is worked out again only when one of those changed
        # since it was last asked (`changed_at`, `asked_at`: counts of changes so far).
        changes = 0
        changed_at: dict[str, int] = {}
        asked_at: dict[str, int] = {}
        for _ in range(3):
            added = False
            for name, record in functions.items():
                node = record.node
                if "." in name or isinstance(node, ast.Lambda) or not all_params(node):
                    continue
                # Only a function whose text names a helper can call one.
                text = self._source_of[node].node_lines(node)
                named = [helper for helper in helpers if helper in text]
                if not named:
                    continue
                if name in asked_at and all(changed_at.get(h, 0) <= asked_at[name] for h in named):
                    continue  # the same answer as last time: nothing it reads changed
                asked_at[name] = changes
                params = frozenset(all_params(node))
                role = self._consumer_role(node)
                drawn = consumed_params(node, partial(classify, params=params, base=role))
                drawn |= helpers.get(name, frozenset())
                if drawn != helpers.get(name, frozenset()):
                    helpers[name] = drawn
                    changes += 1
                    changed_at[name] = changes
                    added = True
            if not added:
                break
        return helpers

    @cached_property
    def _class_sources(self) -> list[UnitSource]:
        """The parses of the units that define classes."""
        units = [unit for unit in self.document.units if unit.tree is not None]
        return [
            unit.source
            for unit, summary in zip(units, self.summaries, strict=True)
            if summary.classes
        ]

    def _other_class_texts(self, source: UnitSource) -> int:
        """The texts of the other units that define classes: JAX402 reads the methods of a
        class's ancestors (what they assign to `self`, what they call), which may sit there.
        (Its own unit's text is the findings' key already.)"""
        return hash(tuple(other.text for other in self._class_sources if other is not source))

    @cached_property
    def assigned_attributes(self) -> frozenset[str]:
        """Attribute names the module assigns outside constructors (`obj.attr = ...`) to
        objects of any class: not counting those written only on an object the writing
        function made itself (`fresh_attribute_writes`)."""
        return frozenset(w for w in self._attribute_writes if type(w) is not FreshWrite)

    @cached_property
    def fresh_attribute_writes(self) -> frozenset[FreshWrite]:
        """Attributes written outside constructors on an object the writing function made
        itself (`lp = object.__new__(LP); lp.cones = c`), with the object's class: they
        change objects of that class only."""
        return frozenset(w for w in self._attribute_writes if type(w) is FreshWrite)

    @cached_property
    def _attribute_writes(self) -> frozenset[str | FreshWrite]:
        writes: set[str | FreshWrite] = set()
        for unit in self.document.units:
            if unit.tree is None:
                continue
            writes |= _unit_attribute_writes(unit)
        return frozenset(writes)

    def attributes_set_on_instances(self, cls: ast.ClassDef) -> frozenset[str]:
        """The attributes top-level code assigns to instances of this class definition
        (`c = Model(...)`, then `c.rate = 0.1`), told apart from those of another class of
        the same name defined before or after (`attributes.attributes_set_per_class`)."""
        return self._attributes_set_per_class.get(cls, frozenset())

    def from_unseen_base(self, class_name: str, attribute: str) -> bool:
        """`attribute` of an instance of the module's class `class_name` comes from a base
        class the model cannot see (an imported one, a mixin): neither the class nor its
        bases of this module define or assign it, nor does top-level code set it on an
        instance. It may be a property computing a new value on every read."""
        pending, seen, unseen = [class_name], set(), False
        while pending:
            name = pending.pop()
            record = self.classes.get(name)
            if name in seen or record is None:
                continue
            seen.add(name)
            node = record.node
            if attribute in defined_attributes(node) or attribute in (
                self.attributes_set_on_instances(node)
            ):
                return False
            for base, qualname in zip(node.bases, record.bases, strict=True):
                if isinstance(base, ast.Subscript):  # `Generic[T]`, `Base[T]`
                    base, qualname = base.value, self.resolver.qualname(base.value) or ""
                if qualname in _BARE_BASES:
                    continue
                if not qualname and isinstance(base, ast.Name) and base.id in self.classes:
                    pending.append(base.id)
                elif attribute in self._imported_class_attributes(base):
                    return False
                else:
                    unseen = True
        return unseen

    def _imported_class_attributes(self, base: ast.expr) -> frozenset[str]:
        """The attributes a class imported from a workspace module (`class B(Base)`) is
        known to hold (`ExternalFacts.instance_attributes`), if the name is not bound here."""
        if not isinstance(base, ast.Name) or not self.external or base.id in self.global_values:
            return frozenset()
        facts = self.external.get(base.id)
        return (facts.instance_attributes or frozenset()) if facts is not None else frozenset()

    def instance_attributes(self, class_name: str) -> frozenset[str]:
        """The attributes instances of the module's class `class_name` hold that the module
        sees set (by its methods or those of its bases here, or its body) and that come from
        no base it cannot see; none of them a method or property (reading one runs code)."""
        chain, pending = [], [class_name]
        while pending:
            record = self.classes.get(pending.pop())
            if record is None or record in chain:
                continue
            chain.append(record)
            pending += [
                base.id
                for base, qualname in zip(record.node.bases, record.bases, strict=True)
                if not qualname and isinstance(base, ast.Name)
            ]
        functions = {
            statement.name
            for record in chain
            for statement in record.node.body
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        candidates = frozenset().union(*(defined_attributes(r.node) for r in chain)) - functions
        return frozenset(name for name in candidates if not self.from_unseen_base(class_name, name))

    @cached_property
    def _attributes_set_per_class(self) -> dict[ast.ClassDef, frozenset[str]]:
        return attributes_set_per_class(self._instance_events)

    @cached_property
    def _instance_events(self) -> list[InstanceEvent]:
        """The module's `instance_events`, unit by unit, at document lines (1-based)."""
        events: list[InstanceEvent] = []
        for unit in self.document.units:
            if unit.tree is None:
                continue
            if "instance-events" not in unit.source.memo:
                unit.source.memo["instance-events"] = instance_events(unit.tree)
            start = unit.start_line
            events += (
                (kind, name, detail, start + line)
                for kind, name, detail, line in unit.source.memo["instance-events"]
            )
        return events

    @cached_property
    def _name_bindings(self) -> dict[str, list[tuple[int, str | None]]]:
        """Each module-level name's top-level bindings in order: (document line, the class
        named by the call it is bound to, or None)."""
        bindings: dict[str, list[tuple[int, str | None]]] = {}
        for kind, name, detail, line in self._instance_events:
            if kind in ("bind", "class"):
                callee = detail if kind == "bind" and isinstance(detail, str) else None
                bindings.setdefault(name, []).append((line, callee))
        return bindings

    def _instance_class_at(self, name: str, line: int) -> str | None:
        """The class of the module whose instance `name` holds at document `line`: the
        last top-level binding before it is a call of that class (`counter = Counter()`),
        for a name bound more than once (a notebook reusing it in a later cell)."""
        before = [callee for start, callee in self._name_bindings.get(name, ()) if start < line]
        callee = before[-1] if before else None
        return callee if callee in self.classes else None

    @cached_property
    def int_array_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which is an integer JAX array."""
        assigned = self._top_level_values

        def compute() -> frozenset[str]:
            oracle = IntArrayOracle(self.resolver, assigned.get)
            return frozenset(n for n in assigned if oracle.is_int_array(ast.Name(n)))

        # Equal assignments (the same nodes: unchanged units) give the same answer.
        return self.document.lineage.reuse("int-array-globals", (self.alias_key, assigned), compute)

    @cached_property
    def initializer_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which makes a random initializer
        (`kernel_init = jax.nn.initializers.lecun_normal()`): calling one draws from its key."""
        # Every spelling of an initializer factory passes through the word `initializers` (in
        # the call, or in the import binding its name): a module without it makes none, and
        # a keystroke there skips gathering the top-level values (asked on every edit).
        if not any(
            "initializers" in unit.source.words()
            for unit in self.document.units
            if unit.tree is not None
        ):
            return frozenset()
        assigned = self._top_level_values

        def compute() -> frozenset[str]:
            return frozenset(
                name
                for name, values in assigned.items()
                if all(
                    type(value) is ast.Call and makes_random_initializer(value, self.resolver)
                    for value in values
                )
            )

        inputs = (self.alias_key, assigned)
        return self.document.lineage.reuse("initializer-globals", inputs, compute)

    @cached_property
    def float_array_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which is a known float value,
        item assignments or not: what the values' dtype is (`x[i] /= 2` keeps a float
        array float), not whether they change."""
        assigned = self._top_level_values

        def compute() -> frozenset[str]:
            oracle = FloatOracle(self.resolver, assigned.get, default_dtype=True)
            return frozenset(n for n in assigned if oracle.is_float(ast.Name(n)))

        # Equal assignments (the same nodes: unchanged units) give the same answer.
        inputs = (self.alias_key, assigned)
        return self.document.lineage.reuse("float-array-globals", inputs, compute)

    @cached_property
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
            assigned = self._top_level_values

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
            for unit in self.document.units:
                if unit.tree is None or not _may_bind_signature(unit.source):
                    continue
                # `g = jax.jit(f, static_argnames=...)` reads f's parameters, maybe in
                # another unit: reused only while each function it looked up is the same.
                signatures.update(
                    reuse_reading(
                        unit.source.memo,
                        ("static-signatures", self.alias_key),
                        self.function_node,
                        lambda resolve, tree=unit.tree: unit_signatures(
                            tree, self.resolver, resolve
                        ),
                    )
                )
            for name, facts in (self.external or {}).items():
                if facts.static is not None and "." not in name:
                    signatures.setdefault(name, facts.static)  # imported jitted functions
            rebound = self.mutable_globals
            self._signatures = {k: v for k, v in signatures.items() if k not in rebound}
        return self._signatures

    @cached_property
    def pytree_static_children(self) -> dict[ast.AST, tuple[StaticChild, ...]]:
        """Children of registered PyTree classes that hold Python values a trace needs
        concrete (or no JAX type at all), by the class or registration call listing them."""
        return static_children(
            {name: record.node for name, record in self.classes.items()},
            [pair for summary in self.summaries for pair in summary.module_calls],
            {name: record.node for name, record in self.functions.items()},
            self.resolver.qualname,
        )

    def function_runs(self, path: str) -> str | None:
        """ "once" or "repeatedly": how often the module function `path` runs by the module's
        own calls of it (`repetition.runs`); None when they do not tell."""
        memo = self._function_runs
        if path not in memo:
            found = runs(
                path,
                self._top_level_calls,
                self._names_loaded,
                self._plain_function_path,
                lambda caller: caller in self.trace,
            )
            memo[path] = found.value if found is not None else None
        return memo[path]

    @cached_property
    def _function_runs(self) -> dict[str, str | None]:
        return {}

    def _top_level_calls(self, name: str) -> list[CallOf]:
        """The calls of the module's top-level function `name` by its bare name, with the
        scope whose loops the call may stand in (the caller, or the unit's tree)."""
        record = self.functions.get(name)
        if record is None or record.parent is not None or record.class_name:
            return []
        return [
            (caller, call, caller if caller is not None else source.tree)
            for caller, call, ref, source, _ in self._calls_by_name.get(name, ())
            if ref.name == name and not (caller is not None and binds_locally(name, caller))
        ]

    def _names_loaded(self, name: str) -> int:
        trees = [unit.tree for unit in self.document.units if unit.tree and name in unit.text]
        return sum(1 for _ in names_loaded(trees, name))

    def _plain_function_path(self, node: ast.AST) -> str | None:
        record = self.records.get(node)
        if record is None or record.parent is not None or record.class_name:
            return None
        return record.path

    @cached_property
    def tracers_at_static(self) -> dict[ast.AST, tuple[str, frozenset[str], bool]]:
        """Transformations of a jitted function of the module that give tracers to parameters
        its own jit makes static (`jax.vmap(partial(f, a, b))` maps the row into `f`'s third
        parameter; `jax.jit(f)` traces every one): by the transformation's node, the
        function's name, those parameters and whether `partial` binds leading positional
        arguments (which shift the positions the transformation fills). JAX hashes static
        arguments, and a tracer cannot be hashed. Filtered transformations, which trace only
        arrays, are left out."""
        signatures = self.static_signatures
        found: dict[ast.AST, tuple[str, frozenset[str], bool]] = {}
        if not signatures:
            return found
        for summary in self.summaries:
            for application in summary.applications:
                name = application.target.name
                signature = signatures.get(name)
                if (
                    signature is None
                    or application.spec.policy is ParamPolicy.ARRAY_ANNOTATED
                    or application.target.node is not None
                    or (application.enclosing and binds_locally(name, application.enclosing))
                ):
                    continue
                resolved = self.resolve_ref(application.target, None, application.enclosing)
                if resolved is None or isinstance(resolved[0], ast.Lambda):
                    continue
                function = resolved[0]
                positional = positional_params(function)
                static = signature.names | {
                    positional[i] for i in signature.positions if i < len(positional)
                }
                info = trace_info_for(application, function, self._is_array_annotation)
                given = info.traced_params & static
                if given:
                    shifted = application.target.bound_positional > 0
                    found[application.node] = (name, given, shifted)
        return found

    @cached_property
    def global_writes(self) -> frozenset[str]:
        """Module-level names some function writes through `global`."""
        return frozenset().union(*(summary.global_writes for summary in self.summaries))

    @cached_property
    def hash_facts(self) -> HashFacts:
        """Unhashable module values and classes, instances, and wrapper parameters given
        unhashable values (read across statements by the JAX1001/JAX1002 rules): only in
        modules that jit."""
        units = [unit for unit in self.document.units if unit.tree is not None]
        if not any(_mentions_staging(unit.source) for unit in units):
            return EMPTY_FACTS
        global_writes = self.global_writes
        bindings = [binding for unit in units for binding in self._statement_bindings(unit.source)]
        class_facts = {
            name: self._class_hash_facts(record) for name, record in self.classes.items()
        }
        module_functions = [(n, r.node) for n, r in self.functions.items() if "." not in n]
        jitted = frozenset(n for n, node in module_functions if self._staged(node))
        wrappers = {
            name: (node, statics)
            for name, node in module_functions
            if (statics := self._wrapped_statics(node))
        }
        trees = [(unit.tree, unit.start_line) for unit in units]
        # Everything the facts are computed from: an edit inside a function body changes
        # none of it unless the function wraps a jitted call (then the trees are read).
        inputs = (
            self.alias_key,
            global_writes,
            bindings,
            tuple(class_facts.items()),
            tuple((name, record.node) for name, record in self.classes.items()),
            jitted,
            tuple((name, statics) for name, (_, statics) in wrappers.items()),
            tuple(trees) if wrappers else (),
        )
        return self.document.lineage.reuse(
            "hash-facts",
            inputs,
            lambda: compute_hash_facts(
                trees,
                bindings,
                self.resolver,
                self.classes,
                class_facts,
                jitted,
                wrappers,
                global_writes,
            ),
        )

    def _statement_bindings(self, source: UnitSource) -> tuple:
        found = source.memo.get("statement-bindings")
        if found is None:  # syntax only
            found = source.memo["statement-bindings"] = statement_bindings(source.tree)
        return found

    def _staged(self, function: FunctionNode) -> bool:
        source = self._source_of[function]
        key = ("staged", function, self.alias_key)
        found = source.memo.get(key)
        if found is None:  # its decorators and the module's imports decide it
            found = source.memo[key] = staged_by_decorator(function, self.resolver)
        return found

    def _class_hash_facts(self, record: ClassRecord) -> ClassHashFacts:
        source = self._source_of[record.node]
        key = ("class-hash-facts", record.node, self.alias_key)
        found = source.memo.get(key)
        if found is None:  # the class's text and the module's imports decide it
            found = source.memo[key] = class_hash_facts(record, self.resolver)
        return found

    def function_node(self, path: str) -> FunctionNode | None:
        """The (last) definition of the module function `path`."""
        record = self.functions.get(path)
        return record.node if record is not None else None

    def _module_lookup(self, question: tuple[str, str]) -> object:
        """("function", path): a module function's definition; ("signature", name): the
        static signature a module-level name is bound to."""
        what, name = question
        if what == "function":
            return self.function_node(name)
        return self.static_signatures.get(name)

    def _wrapped_statics(self, function: FunctionNode) -> frozenset[str]:
        """Parameters `function` passes on in a static position of a jitted call: memoised
        on its unit, reused while the signatures of what it calls are the same."""
        source = self._source_of[function]
        passing = source.memo.get(("passing-calls", function))
        if passing is None:  # syntax only
            passing = source.memo[("passing-calls", function)] = parameter_passing_calls(function)
        if not passing[1]:
            return frozenset()

        def compute(lookup: Callable[[tuple[str, str]], object]) -> frozenset[str]:
            def signature_of_call(call: ast.Call) -> StaticSignature | None:
                if isinstance(call.func, ast.Call):
                    return jit_call_signature(
                        call.func, self.resolver, lambda name: lookup(("function", name))
                    )
                if isinstance(call.func, ast.Name):
                    return lookup(("signature", call.func.id))
                return None

            return wrapped_statics(passing, signature_of_call)

        key = ("wrapped-statics", function, self.alias_key)
        return reuse_reading(source.memo, key, self._module_lookup, compute)

    @property
    def module_key_reuses(self) -> dict[int, tuple[Reuse, ...]]:
        """PRNG key reuses in module-level code (a script's top-level statements), by the
        first line of the unit holding the second use."""
        if self._module_reuses is None:
            reuses: dict[int, tuple[Reuse, ...]] = {}
            if self.resolver.binds_module("jax"):
                draws, free_draws = self.object_key_draws, self.global_key_draws
                flow = KeyFlow(
                    lambda call: (
                        object_key(call, draws)
                        or global_key(call, free_draws)
                        or classify_call(call, self.resolver, self)
                    ),
                    lambda path: opaque_global(self.global_values, path_root(path)),
                    self.resolver,
                    lambda call: returned_arguments(call, self),
                )
                state: dict = {}
                helpers = (
                    *self.key_helpers,
                    *{name.partition(".")[0] for name in draws},
                    *free_draws,
                )
                for unit in self.document.units:
                    text = unit.source.text
                    # A unit that neither samples nor names a tracked key or a key helper
                    # cannot change what matters of the state: skip it.
                    if unit.tree is None or not (
                        self._may_draw(unit.source)
                        or (state and any(_state_root(path) in text for path in state))
                        or (helpers and self._names_any(unit.source, helpers))
                    ):
                        continue
                    found = flow.run(unit.tree.body, state, unit.start_line)
                    if found:
                        reuses[unit.start_line] = tuple(found)
            self._module_reuses = reuses
        return self._module_reuses

    @cached_property
    def global_key_draws(self) -> dict[str, str]:
        """Module functions (plain, undecorated) -> the module-level key they consume and
        never rebind: `def sample(n): return jax.random.normal(key, (n,))` draws from the
        global `key` as it is when called, so two calls with no split of `key` between them
        give the same numbers (the `np.random.seed` habit). Not a name any function rebinds
        through `global`."""
        found: dict[str, str] = {}
        for unit in self.document.units:
            if unit.tree is None or not self._may_draw(unit.source):
                continue
            memo = ("global-key-draws", self.alias_key)
            if memo not in unit.source.memo:
                unit.source.memo[memo] = self._unit_global_key_draws(unit.source)
            found.update(unit.source.memo[memo])
        rebound = self.global_writes
        return {function: name for function, name in found.items() if name not in rebound}

    def _unit_global_key_draws(self, source: UnitSource) -> dict[str, str]:
        draws = {}
        for statement in source.tree.body:
            if not isinstance(statement, ast.FunctionDef) or statement.decorator_list:
                continue
            drawn = drawn_free_names(statement, lambda c: consumer_key(c, self.resolver))
            if len(drawn) == 1:
                draws[statement.name] = next(iter(drawn))
        return draws

    @cached_property
    def object_key_draws(self) -> dict[str, tuple[str, str]]:
        """Calls of module-level objects that draw from a key their class stores once:
        `noise` (its `__call__`) or `noise.sample` -> ("Noise.__call__", "key") when the
        method consumes `self.key`, which only `__init__` assigns (no other method, no code
        outside, no subclass): every such call draws the same numbers."""
        found: dict[str, tuple[str, str]] = {}
        by_class: dict[str, dict[str, str]] = {}
        for name, class_name in self.instances.items():
            if class_name not in by_class:
                by_class[class_name] = self._stored_key_draws(class_name)
            for method, attribute in by_class[class_name].items():
                spelling = name if method == "__call__" else f"{name}.{method}"
                found[spelling] = (f"{class_name}.{method}", attribute)
        return found

    def _stored_key_draws(self, class_name: str) -> dict[str, str]:
        """Methods of the class -> the attribute of `self` holding a key that `__init__`
        alone assigns and the method consumes."""
        record = self.classes[class_name]
        if class_name in self._subclassed or any(
            isinstance(base, ast.Name) and base.id in self.classes for base in record.node.bases
        ):
            return {}  # another class's methods may assign it
        if not self._may_draw(self._source_of[record.node]):
            return {}
        assigned, unknown = self._self_assignments(record)
        members = {
            member.name: member
            for member in record.node.body
            if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        stored = frozenset(
            attribute
            for attribute, writes in assigned.items()
            if attribute not in unknown
            and attribute not in members
            and all(method.name == "__init__" for method, _ in writes)
        )
        if ANY_ATTRIBUTE in unknown or not stored:
            return {}
        outside = self._assigned_outside(stored)
        if ANY_ATTRIBUTE in outside:
            return {}
        stored -= outside
        draws = {}
        for name, member in members.items():
            if (
                name == "__init__"
                or member.decorator_list
                or isinstance(member, ast.AsyncFunctionDef)
            ):
                continue  # a static, class or transformed method, a property: not plain
            drawn = drawn_self_attributes(member, lambda c: consumer_key(c, self.resolver))
            if len(drawn & stored) == 1:
                draws[name] = next(iter(drawn & stored))
        return draws

    @staticmethod
    def _names_any(source: UnitSource, names: tuple[str, ...]) -> bool:
        """Does the unit's text hold one of `names` (as a substring)? Memoised on the unit:
        module_key_reuses asks it of every unit on each edit."""
        key = ("names-any", names)
        found = source.memo.get(key)
        if found is None:
            found = source.memo[key] = any(name in source.text for name in names)
        return found

    def _may_draw(self, source: UnitSource) -> bool:
        key = ("may-draw", self.alias_key, self.initializer_globals)
        found = source.memo.get(key)
        if found is None:
            text = source.text
            found = may_draw(text, self.resolver) or may_use_library_key(text)
            found = source.memo[key] = found or self._may_consume_keys(text)
        return found

    def _module_reuse_key(self, unit: Unit) -> tuple:
        reuses = self.module_key_reuses.get(unit.start_line)
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
                tuple(sorted(self.key_helpers.items())),
                tuple(sorted(self.key_summaries.items())),
                tuple(sorted(self.key_makers.items())),
                tuple(sorted(self.static_signatures.items(), key=lambda item: item[0])),
            )
        return self._callee_key

    def unit_key(self, unit: Unit) -> tuple:
        """Everything a rule may read about this unit beyond its text."""
        # Memoised for the copies `of` makes of this model, whose units are these very parses.
        place = (id(unit.source), unit.start_line)
        key = self._unit_keys.get(place)
        if key is None:
            # The last model's key of the same parse at the same line, while no module fact
            # it read changed for it (`key_inputs`); else built.
            key = self._kept_keys.get(place)
            if key is None:
                key = self._compute_unit_key(unit)
            elif _VERIFY_KEPT_KEYS and key != self._compute_unit_key(unit):
                raise AssertionError(f"unit key kept stale (unit at line {unit.start_line + 1})")
            self._unit_keys[place] = key
            self._key_record.keys[place] = (unit.source, key)
        return key

    @cached_property
    def _key_record(self) -> KeyRecord:
        """This model's views of the unit keys' inputs, handed to the next model's."""
        return KeyRecord({item.name: item.view(self) for item in UNIT_KEY_INPUTS})

    @cached_property
    def _kept_keys(self) -> dict[tuple[int, int], tuple]:
        """The last model's unit keys that hold for this one (see `unit_key`)."""
        record = self._key_record
        previous = self.document.lineage.hand_over("unit-keys", record)
        return kept_keys(previous, record, UNIT_KEY_INPUTS, self)  # type: ignore[arg-type]

    def _key_markers(self, source: UnitSource) -> tuple[bool, bool, bool, bool]:
        """Which conditional module facts a unit's key reads: 64-bit rules read module facts
        at absolute lines, so only units that may name a 64-bit dtype or the flag pay for it;
        then dtypes, attribute writes, the module's shapes."""
        markers = source.memo.get("key-markers")
        if markers is None:
            text = source.text
            markers = source.memo["key-markers"] = (
                any(marker in text for marker in _X64_MARKERS)
                or (
                    any(alias in text for alias in _X64_ALIASES)
                    and bool(_X64_ALIAS_WORDS.search(text))
                ),
                "astype" in text or "dtype" in text or ".at[" in text,
                # A static `self` or a jitted bound method `jit(self.f)` (JAX402) reads
                # attribute writes.
                "static_arg" in text or ("(self." in text and "jit" in text),
                _may_index_at_top(source),  # JAX301 reads the module's shapes
            )
        return markers

    def _any_unit_marked(self, index: int) -> bool:
        return any(
            self._key_markers(unit.source)[index]
            for unit in self.document.units
            if unit.tree is not None
        )

    def _compute_unit_key(self, unit: Unit) -> tuple:
        summary = self._summary(unit.source)
        markers = self._key_markers(unit.source)
        x64 = (self.x64, unit.start_line) if markers[0] else ()
        attributes = (
            (self._attribute_writes, self._other_class_texts(unit.source)) if markers[2] else ()
        )
        shapes = self._module_shapes.get(unit.start_line) if markers[3] else ()
        return (
            x64,
            attributes,
            shapes,
            self._module_facts_key,
            self.unit_globals_key(unit.source),
            self._reaching_key(unit.source),
            self._module_reuse_key(unit),
            self._returns_key(unit.source),
            self._functions_key(summary, unit.start_line) if summary.functions else (),
            self._lambdas_key(summary, unit.start_line) if summary.lambdas else (),
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
        summary = self._summary(unit.source)
        starts = [first_line(method) for method in methods]
        functions: list[list] = [[] for _ in methods]
        lambdas: list[list] = [[] for _ in methods]
        for nodes, entries, own in (
            ([record.node for record in summary.functions], key[8], functions),
            (summary.lambdas, key[9], lambdas),
        ):
            for node, entry in zip(nodes, entries, strict=True):
                index = bisect_right(starts, node.lineno) - 1
                if index >= 0 and node.lineno <= methods[index].end_lineno:  # type: ignore[operator]
                    own[index].append(entry)
        shared = key[:8]
        return {
            method: (shared, tuple(functions[i]), tuple(lambdas[i]))
            for i, method in enumerate(methods)
        }

    def _functions_key(self, summary: UnitSummary, unit_start: int) -> tuple:
        """What unit_key holds of each function of a unit, in one pass over them (asked of
        every unit on each edit): its trace, the Ref parameters and loop carries it
        receives, the defaults its callers pass, its objects, and why it is traced."""
        context_of, object_params = self.context_of, self.object_params
        self_object, explanation_key = self.self_object, self.explanation_key
        object_methods, trace = self.module_object_methods, self.trace
        ref_params = self.ref_params or None
        carry_values = self.carry_values if self._loop_bodies else None
        passed_defaults = self._passed_defaults or None
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
                    self._method_returns_key(node) if traced else (),
                )
            )
        return tuple(entries)

    def _lambdas_key(self, summary: UnitSummary, unit_start: int) -> tuple:
        """How each lambda of a unit is traced, and why."""
        trace = self.trace
        return tuple(
            [(trace.get(node), self.explanation_key(node, unit_start)) for node in summary.lambdas]
        )

    @cached_property
    def _module_facts_key(self) -> int:
        """The facts of unit_key that are the same for every unit, interned once per model.

        Not here: the facts rules ask by name (globals, mutable and stable globals, hash
        facts, module state, float globals), whose answers are recorded as the rules read
        them (`jax_lsp.analysis.reads`), and the values of globals, held per unit
        (`unit_globals_key`)."""
        return intern_key(
            (
                self._callee_facts_key(),
                self.alias_key,
                self.import_line,
                self._class_facts_key,
                self.may_make_explicit_meshes,
            )
        )

    def functions_in(self, source: UnitSource) -> Iterator[FunctionRecord]:
        yield from self._summary(source).functions


def _traced_facts(model: ModuleModel) -> dict:
    """What unit keys read of each traced function beyond its trace: its objects, its
    explanation (every site's unit start kept: equal here, equal as any unit shows it) and
    the methods whose returns it reads."""
    return {
        node: (
            model.object_params(node),
            model.explanation_key(node, -1),
            () if isinstance(node, ast.Lambda) else model._method_returns_key(node),
        )
        for node in model.trace
    }


def _state_root(path: str) -> str:
    """The name a key flow's state entry is held under (a derived use's too)."""
    return path_root(path).partition("<")[0]


def _module_reuse_keys(model: ModuleModel) -> dict[int, tuple]:
    """What unit keys read of the key reuses in module-level code, by the unit's first line."""
    reuses = model.module_key_reuses
    return {
        unit.start_line: model._module_reuse_key(unit)
        for unit in model.document.units
        if unit.start_line in reuses
    }


def _marked(index: int) -> Callable[[ModuleModel, UnitSource], bool]:
    return lambda model, source: model._key_markers(source)[index]


def _words(model: ModuleModel, source: UnitSource) -> frozenset[str]:
    return source.words()


# Every module fact `ModuleModel._compute_unit_key` reads, with the units its change reaches
# (`key_inputs`): an unchanged unit keeps the last model's key while none reaches it. A new
# fact a key reads is one entry here (a per-function fact: a view by node, `by_node`).
UNIT_KEY_INPUTS = (
    KeyInput(
        "module",
        lambda m: (m._module_facts_key, m.globals_key, m._reaching_sites),
        every_unit,
    ),
    KeyInput("x64", lambda m: m.x64 if m._any_unit_marked(0) else None, by_reader(_marked(0))),
    KeyInput(
        "attribute-writes",
        lambda m: (
            (m._attribute_writes, tuple([source.text for source in m._class_sources]))
            if m._any_unit_marked(2)
            else None
        ),
        by_reader(_marked(2)),
    ),
    KeyInput("shapes", lambda m: m._module_shapes if m._any_unit_marked(3) else {}, by_start),
    KeyInput("module-key-reuses", _module_reuse_keys, by_start),
    # A unit's text names the functions it reads the returns of: also one no longer defined.
    KeyInput("function-units", lambda m: m._function_units, by_name(_words)),
    KeyInput("trace", lambda m: m.trace, by_node),
    KeyInput("traced-facts", _traced_facts, by_node),
    KeyInput("ref-params", lambda m: m.ref_params, by_node),
    KeyInput("passed-defaults", lambda m: m._passed_defaults, by_node),
    KeyInput("carries", lambda m: {node: m.carry_values(node) for node in m._loop_bodies}, by_node),
    KeyInput("object-methods", lambda m: frozenset(m.module_object_methods), by_node),
    KeyInput(
        "plain-objects",
        lambda m: {name: m._plain_object(name) for name in m.classes},
        by_name(_words),  # a method's class is named in its unit's text
    ),
)


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _may_bind_signature(source: UnitSource) -> bool:
    """Can the unit bind a jitted callable with static arguments (`jitted.unit_signatures`
    looks at no other statement): a decorated `def` or `name = call(...)` at its top level.
    Memoised on the unit: `static_signatures` asks it of every unit on each edit."""
    found = source.memo.get("may-bind-signature")
    if found is None:
        found = source.memo["may-bind-signature"] = any(
            (
                isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
                and statement.decorator_list
            )
            or (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Call)
            )
            for statement in source.tree.body  # type: ignore[union-attr]
        )
    return found


_UNREAD = object()  # a memo entry not computed yet (None is an answer)


def _loaded_words(source: UnitSource) -> frozenset[str]:
    """Every identifier-like word of the text a unit's top-level code reads: a superset of
    the names it reads, found far faster than by walking its tree."""
    loads = source.memo.get("loads")
    if loads is None:
        text = _evaluated_text(source)
        # All of it: the unit's own words, which most often were read already.
        loads = source.words() if text is source.text else identifiers(text)
        source.memo["loads"] = loads
    return loads


def _may_index_at_top(source: UnitSource) -> bool:
    """May the unit's top-level code (not a function body) index with a literal?"""
    text = _evaluated_text(source)
    return "take(" in text or bool(LITERAL_INDEX.search(text))


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


def _attribute_constructors(node: ast.ClassDef) -> list[tuple[str, str]]:
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
                elif (element := _element_constructor(inner.value)) is not None:
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


def _element_constructor(value: ast.expr) -> str | None:
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


def _mentions(expr: ast.expr, names: frozenset[str]) -> bool:
    return any(type(node) is ast.Name and node.id in names for node in walk_nodes(expr))


def _bound_method_alias(tree: ast.Module, application: Application) -> str | None:
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


def _rebinds_its_target(tree: ast.Module, application: Application) -> bool:
    """`f = jax.jit(f)` at module level: the name now runs the transformed function."""
    if application.enclosing is not None or application.call is not None:
        return False
    return any(
        type(statement) is ast.Assign
        and statement.value is application.node
        and len(statement.targets) == 1
        and type(statement.targets[0]) is ast.Name
        and statement.targets[0].id == application.target.name
        for statement in tree.body
    )


def _sets_disable_jit(call: ast.Call) -> bool:
    """`jax.config.update("jax_disable_jit", True)`."""
    values = [a.value if isinstance(a, ast.Constant) else None for a in call.args[:2]]
    return values == ["jax_disable_jit", True]


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


# Bases that give an instance no attribute of their own.
_BARE_BASES = frozenset(
    ("builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing.NamedTuple")
)


def _unit_import_bindings(source: UnitSource) -> dict[str, str]:
    found = source.memo.get("imports")
    if found is None:
        found = source.memo["imports"] = import_bindings(source.tree.body)
    return found


def _aliases(
    imports: tuple[dict[str, str], ...], external: Mapping[str, ExternalFacts] | None
) -> tuple[dict[str, str], int, int]:
    """The module's import bindings, their cache key with the imported names' facts, and
    their key alone."""
    bindings: dict[str, str] = {}
    for unit_bindings in imports:
        bindings.update(unit_bindings)
    # Imported names' facts belong with the import aliases: every cache keyed by what names
    # stand for is keyed by both (but the summaries, which read names only).
    bindings_key = intern_key(tuple(sorted(bindings.items())))
    return bindings, intern_key((bindings_key, facts_key(external))), bindings_key


def _merge_bindings(values: dict[str, Value], bound: dict[str, Value]) -> None:
    for name, value in bound.items():
        values[name] = merge_values(values[name], value) if name in values else value


def _apply_known(state: dict, result: tuple[tuple, tuple]) -> None:
    for name, value in result[1]:
        if value is None:
            state.pop(name, None)
        else:
            state[name] = value


# Which parameter of the function given to a lax loop receives the carry, and where the
# loop's call passes the initial carry (position, keyword).
_CARRY_PARAMS = {"lax.while_loop": 0, "lax.fori_loop": 1, "lax.scan": 0}
_CARRY_ARGUMENTS = {
    "lax.while_loop": (2, "init_val"),
    "lax.fori_loop": (3, "init_val"),
    "lax.scan": (1, "init"),
}


def _carry_leaves(value: Value) -> Value:
    """A loop body's carry: its containers keep the initial carry's structure, and every other
    part is traced, as the carry parameter is without a known structure (an unknown init
    element, a caller's parameter `(n, 0)`, is a tracer in the body all the same)."""
    if value is Kind.UNKNOWN:
        return Kind.TRACED
    if type(value) is Container:
        if value.items is None:  # only the kind of its items is known
            return Container(value.form, None, value.keys, _carry_leaves(value.leaf))
        items = tuple(_carry_leaves(v) for v in value.items)
        return Container(value.form, items, value.keys, value.leaf)
    return value


def _mentions_staging(source: UnitSource) -> bool:
    found = source.memo.get("mentions-staging")
    if found is None:
        text = source.text
        found = source.memo["mentions-staging"] = "jit" in text or "pmap" in text
    return found


def _may_make_refs(source: UnitSource) -> bool:
    found = source.memo.get("makes-refs")
    if found is None:
        found = source.memo["makes-refs"] = "_ref" in source.text
    return found


# `ModuleModel._local_refs` by function node: (the imports' key, the names). Weak keys: a
# forgotten tree takes its entries along.
_LOCAL_REFS: weakref.WeakKeyDictionary[ast.AST, tuple[int, frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _local_refs(node: FunctionNode, resolver: Resolver) -> frozenset[str]:
    """Names a function binds to `jax.new_ref(...)` / `jax.empty_ref(...)`."""
    names = set()
    for child in walk_nodes(node):
        if (
            isinstance(child, ast.Assign)
            and isinstance(child.value, ast.Call)
            and resolver.qualname(child.value.func) in NEW_REF
        ):
            names.update(t.id for t in child.targets if isinstance(t, ast.Name))
    return frozenset(names)


def _params_passed(
    callee: FunctionNode, call: ast.Call, names: frozenset[str], method: bool
) -> frozenset[str]:
    """Parameters of `callee` to which `call` passes one of `names`."""
    positional = positional_params(callee)
    if method and positional:
        positional = positional[1:]  # self.method(x): x lands on the second parameter
    passed = set()
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if isinstance(arg, ast.Name) and arg.id in names and index < len(positional):
            passed.add(positional[index])
    known = set(all_params(callee))
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg in known and isinstance(value, ast.Name) and value.id in names:
            passed.add(keyword.arg)
    return frozenset(passed)


def _own_lambdas(function: FunctionNode) -> Iterator[ast.Lambda]:
    """The lambdas of `function`'s body, not those of the functions and classes it defines."""
    pending: list[ast.AST] = [*function.args.defaults, *function.body]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.Lambda):
            yield node
        pending.extend(ast.iter_child_nodes(node))


def _may_hold_instance(arg: ast.expr, names: set[str], classes: Mapping[str, ClassRecord]) -> bool:
    if isinstance(arg, ast.Name):
        return arg.id in names
    return isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in classes


# Haiku transformations: how many arguments `apply` takes before the function's own.
_HAIKU_TRANSFORMS = {"haiku.transform": 2, "haiku.transform_with_state": 3}


def _unit_attribute_writes(unit: Unit) -> frozenset[str | FreshWrite]:
    """`attribute_writes` of a unit, memoised on its parse."""
    memo = unit.source.memo
    if "attribute-writes" not in memo:
        memo["attribute-writes"] = attribute_writes(unit.tree, unit.source.text)
    return memo["attribute-writes"]


def _module_level_lambdas(source: UnitSource) -> frozenset[ast.Lambda]:
    """The lambdas of a unit outside any function or class (`f = lambda x: ...`,
    `hk.transform(lambda x: ...)`), memoised on its parse."""
    found = source.memo.get("module-level-lambdas")
    if found is None:
        lambdas: set[ast.Lambda] = set()
        pending: list[ast.AST] = list(source.tree.body) if source.tree is not None else []
        while pending:
            node = pending.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if isinstance(node, ast.Lambda):
                lambdas.add(node)
                continue  # a lambda inside it belongs to it
            pending.extend(ast.iter_child_nodes(node))
        found = source.memo["module-level-lambdas"] = frozenset(lambdas)
    return found


def _haiku_transformed(value: ast.expr, resolver: Resolver) -> tuple[str | ast.Lambda, int] | None:
    """`hk.transform(f)`, `hk.without_apply_rng(hk.transform_with_state(f))`,
    `hk.transform(lambda x: Net()(x))`: (`f` or the lambda, the arguments `apply` takes
    before its own)."""
    if not (isinstance(value, ast.Call) and len(value.args) == 1):
        return None
    qualname = resolver.qualname(value.func) or ""
    given = value.args[0]
    if qualname == "haiku.without_apply_rng":
        inner = _haiku_transformed(given, resolver)
        return None if inner is None else (inner[0], inner[1] - 1)
    leading = _HAIKU_TRANSFORMS.get(qualname)
    if leading is None:
        return None
    if isinstance(given, ast.Name):
        return given.id, leading
    return (given, leading) if isinstance(given, ast.Lambda) else None


def _instances_passed(
    callee: FunctionNode,
    call: ast.Call,
    ref: FunctionRef,
    instances: dict[str, str],
    classes: Mapping[str, ClassRecord],
    returned_class: Callable[[ast.Call, Mapping[str, str]], str | None],
) -> Iterator[tuple[str, str]]:
    """(parameter of `callee`, class) for each argument of `call` that is an instance of a
    class of the module: a name in `instances`, `Cls(...)`, or the call of a function that
    builds one (`env.reset()`)."""

    def class_of(arg: ast.expr) -> str | None:
        if isinstance(arg, ast.Name):
            return instances.get(arg.id)
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in classes:
            return arg.func.id
        if isinstance(arg, ast.Call):
            return returned_class(arg, instances)
        return None

    positional = positional_params(callee)[ref.bound_positional :]
    for index, arg in enumerate(call.args[ref.leading_args :]):
        if isinstance(arg, ast.Starred) or index >= len(positional):
            break
        if (class_name := class_of(arg)) is not None:
            yield positional[index], class_name
    known = set(all_params(callee)) - ref.bound_keywords
    for keyword in call.keywords:
        if keyword.arg in known and (class_name := class_of(keyword.value)) is not None:
            yield keyword.arg, class_name


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


_NO_NONDIFF = ast.Tuple([], ast.Load())


def _nondiff_argnums(function: FunctionNode, resolver: Resolver) -> ast.expr | None:
    """The `nondiff_argnums` of a function decorated with `jax.custom_vjp`/`custom_jvp`
    (an empty tuple when none), or None: not such a function, or options not readable."""
    if isinstance(function, ast.Lambda):
        return None
    for decorator in function.decorator_list:
        if resolver.qualname(decorator) in CUSTOM_DERIVATIVES:
            return _NO_NONDIFF
        if (
            isinstance(decorator, ast.Call)
            and resolver.qualname(decorator.func) in PARTIAL
            and decorator.args
            and resolver.qualname(decorator.args[0]) in CUSTOM_DERIVATIVES
        ):
            options = {k.arg: k.value for k in decorator.keywords}
            if None in options or set(options) - {"nondiff_argnums"} or len(decorator.args) > 1:
                return None
            nondiff = options.get("nondiff_argnums", _NO_NONDIFF)
            if isinstance(nondiff, ast.Constant) and isinstance(nondiff.value, int):
                return ast.Tuple([nondiff], ast.Load())
            if isinstance(nondiff, ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, int) for e in nondiff.elts
            ):
                return nondiff
            return None
    return None


def _same_units(old: Document, new: Document) -> bool:
    """The same parses (by identity) at the same lines."""
    return len(old.units) == len(new.units) and all(
        a.source is b.source and a.start_line == b.start_line
        for a, b in zip(old.units, new.units, strict=True)
    )


def _names_bound_to(value: ast.expr, scope: ast.AST) -> list[str]:
    """The names `scope`'s assignments bind to `value` itself (`fast = jax.jit(f)`)."""
    return [
        target.id
        for statement in ast.walk(scope)
        if isinstance(statement, ast.Assign) and statement.value is value
        for target in statement.targets
        if isinstance(target, ast.Name)
    ]


def _no_method(call: ast.Call) -> None:
    """Outside traced code, calls of methods keep the values the flow gives them."""
    return None


def _fixed_flags(node: FunctionNode, info: TraceInfo | None) -> dict[str, bool | None]:
    """The flags every trace of `node` gives a parameter that its code never rebinds."""
    if info is None or not info.literals:
        return {}
    rebound = rebound_names(node)
    return {name: value for name, value in info.literals if name not in rebound}


def _options_left_empty(application: Application, owner: FunctionNode) -> bool:
    """Whether every option of the wrapper's transformation is a literal, or a parameter of
    the wrapper whose default is empty (`static_argnames=static`, `static=()`): used bare, the
    wrapper applies no option its caller must read."""
    if application.forwarded is not None:
        return False
    defaults = dict(_defaults_of(owner))
    for value in application.keywords.values():
        if isinstance(value, ast.Constant):
            continue
        if not isinstance(value, ast.Name) or value.id not in defaults:
            return False
        default = defaults[value.id]
        empty = (isinstance(default, ast.Constant) and default.value in (None, "")) or (
            isinstance(default, ast.Tuple | ast.List) and not default.elts
        )
        if not empty:
            return False
    return True


def _defaults_of(function: FunctionNode) -> Iterator[tuple[str, ast.expr]]:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(
        positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
    ):
        yield arg.arg, default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if default is not None:
            yield arg.arg, default


def _counts_result(call: ast.Call, scope: ast.AST) -> bool:
    """Does `scope` count the entries of `call`'s result, there or through a name bound to
    it (`r = f(x)`, `(r,) = f(x)`)?"""
    parents = parent_map(scope)
    chain = ancestors_of(call, parents)
    if entries_counted(call, chain):
        return True
    statement = chain[-1] if chain else None
    if not (isinstance(statement, ast.Assign) and statement.value is call):
        return False
    names = {
        element.id
        for target in statement.targets
        for element in (target.elts if isinstance(target, ast.Tuple | ast.List) else [target])
        if isinstance(element, ast.Name)
    }
    for found in ast.walk(scope):
        if (
            isinstance(found, ast.Name)
            and found.id in names
            and isinstance(found.ctx, ast.Load)
            and entries_counted(found, ancestors_of(found, parents))
        ):
            return True
    return False
