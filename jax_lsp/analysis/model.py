"""The module model: every fact the rules read, rebuilt from per-unit summaries.

Per unit, the expensive parts (summary, kinds of each scope) are memoised on the unit's
parsed source, keyed by the module facts they depend on. An edit inside one function
re-analyses that function; the module facts are recombined from cached pieces.

`ModuleModel` holds the document, the resolver and the summaries, and composes the fact
objects that own the rest, each in its own module: `module_globals`, `references`,
`object_facts`, `tracing`, `trace_steps`, `foreign_traces`, `scope_facts`, `key_facts`,
`staging` and `unit_keys`. The rules read them through the model's names (`model.trace`,
`model.scope_kinds(f)`).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from jax_lsp.analysis.attributes import FreshWrite
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.cells import displayed_lines
from jax_lsp.analysis.crossing import NO_FOREIGN, ForeignDefinitions, ForeignFunction, IncomingTrace
from jax_lsp.analysis.document import Document, Unit, UnitSource
from jax_lsp.analysis.external import ExternalFacts, facts_key, read_by_models
from jax_lsp.analysis.foreign_traces import ForeignTraces
from jax_lsp.analysis.hashing import HashFacts
from jax_lsp.analysis.header import import_blank_lines, import_insertion_line
from jax_lsp.analysis.imports import Resolver, import_bindings
from jax_lsp.analysis.imports import local_imports as local_imports
from jax_lsp.analysis.jitted import StaticSignature
from jax_lsp.analysis.key_consumers import KeySummary
from jax_lsp.analysis.key_facts import KeyFacts
from jax_lsp.analysis.keys import Reuse
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model_parts import ModuleKinds, ScopeKinds, intern_key
from jax_lsp.analysis.model_parts import evaluated_text as _evaluated_text  # noqa: F401 (tests)
from jax_lsp.analysis.model_view import ModelFact
from jax_lsp.analysis.module_globals import ModuleGlobals, UnitNames, unit_names
from jax_lsp.analysis.module_globals import _loaded_words as _loaded_words
from jax_lsp.analysis.module_state import ModuleState
from jax_lsp.analysis.object_facts import ObjectFacts
from jax_lsp.analysis.paths import is_test_path
from jax_lsp.analysis.pytree_children import StaticChild
from jax_lsp.analysis.reads import (
    asked_at_unit_start,
    at_document_lines,
    keyed,
    keyed_metadata,
    own_class_looked_up,
)
from jax_lsp.analysis.references import References
from jax_lsp.analysis.scope_facts import ScopeFacts
from jax_lsp.analysis.shapes import ArrayShape, KnownValue
from jax_lsp.analysis.sharding import names_explicit_meshes
from jax_lsp.analysis.staging import StagingFacts
from jax_lsp.analysis.summary import (
    ClassRecord,
    FunctionNode,
    FunctionRecord,
    FunctionRef,
    UnitSummary,
    summary_for_later_versions,
    transform_of,
    unit_summary,
)
from jax_lsp.analysis.trace_steps import TraceSteps
from jax_lsp.analysis.traced import TraceInfo, TraceStep
from jax_lsp.analysis.tracing import Tracing
from jax_lsp.analysis.unit_keys import UnitKey, UnitKeys
from jax_lsp.analysis.unit_memo import Keyed, per_unit
from jax_lsp.analysis.updates import top_level_self_updates
from jax_lsp.analysis.values import Instance, Object, Value
from jax_lsp.analysis.x64 import (
    X64Facts,
    combine_x64_facts,
    may_mention_x64,
    project_enables_x64,
    statement_facts,
)


@dataclass
class ModuleModel:
    """The facts of one module (see the module docstring). A fact object reads the others
    through the model it is given (`ModelView`), held weakly: copies of a model (`of`) take
    copies of its fact objects. How rules' reads of a fact are kept is declared where the
    fact is defined: `keyed` (the unit key holds it), `at_document_lines`, or nothing
    (recorded: `jax_lsp.analysis.reads`)."""

    document: Document = field(metadata=keyed_metadata(reaches_members=True))
    # The project enables 64-bit mode (config `enable-x64`, JAX_ENABLE_X64 in the environment).
    x64_setting: bool = False
    # Facts about functions imported from other workspace modules, by call spelling
    # (`make_state`, `ops.step`): see `jax_lsp.analysis.infer`. None: no such facts.
    external: Mapping[str, ExternalFacts] | None = field(default=None, metadata=keyed_metadata())
    # Traces other modules of the project give this module's functions (their importers'
    # traced code calls or transforms them): see `jax_lsp.analysis.project`.
    incoming: tuple[IncomingTrace, ...] = ()
    resolver: Resolver = field(init=False, metadata=keyed_metadata())
    # The resolver, for per-unit memos: keyed by the bindings, which `alias_key` holds.
    aliases: Keyed[Resolver] = field(init=False, repr=False, metadata=keyed_metadata())
    imported: Keyed[Mapping[str, ExternalFacts]] = field(init=False, repr=False)  # `external`
    alias_key: int = field(init=False, metadata=keyed_metadata())
    # The top-level imports of every unit: local name -> qualified name (keyed by alias_key).
    import_bindings: dict[str, str] = field(init=False, metadata=keyed_metadata())
    summaries: list[UnitSummary] = field(init=False, metadata=keyed_metadata(reaches_members=True))
    # Recorded as rules read it: a rule reading a callee's record (its node, its body) reads
    # what the callers' keys do not hold (they hold what the callee returns).
    functions: dict[str, FunctionRecord] = field(init=False)
    records: dict[FunctionNode, FunctionRecord] = field(init=False, metadata=keyed_metadata())
    classes: dict[str, ClassRecord] = field(
        init=False, metadata=keyed_metadata(own_class_looked_up)
    )
    # Where an added import goes (0-based, absolute).
    import_line: int = field(init=False, metadata=keyed_metadata())
    # Classes of the module passed to some module-level call (maybe a PyTree registration).
    classes_passed_to_calls: frozenset[str] = field(init=False)
    _source_of: dict[ast.AST, UnitSource] = field(init=False, repr=False)
    # `enclosing_chain` by node, worked out once per model (its records never change).
    _chains: dict[ast.AST, list[FunctionNode]] = field(init=False, repr=False)
    _x64: X64Facts | None = field(init=False, default=None, repr=False)
    _bindings_key: int = field(init=False, repr=False)  # alias_key without external facts
    _generation: object = field(init=False, repr=False)
    # While `outgoing_traces` runs: the definitions the imports name in other modules.
    _foreign: ForeignDefinitions = field(init=False, default=NO_FOREIGN, repr=False)

    @property
    def import_blank_lines(self) -> tuple[int, int]:
        """The blank lines an import added at `import_line` needs before and after it
        (`header.import_blank_lines`). Not kept: a copy of the model for a version whose
        comments changed may need others, and the fixes that read it record the answer."""
        return import_blank_lines(self.document, self.import_line)

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
            external = read_by_models(external)
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
            for name, fact in vars(previous).items():  # the fact objects, memos as they are
                if isinstance(fact, ModelFact):
                    setattr(model, name, fact.for_copy(model))
        else:
            model = cls(document, x64_setting, external, incoming)
        document.lineage.last_model = model
        return model

    def __post_init__(self) -> None:
        # This model's facts in the lineage's families (`Lineage.reuse_each`), shared by the
        # copies `of` makes of it.
        self._generation = object()
        # The fact objects, which own the facts the model does not hold itself.
        self.module_globals = ModuleGlobals(self)
        self.references = References(self)
        self.objects = ObjectFacts(self)
        self.tracing = Tracing(self)
        self.steps = TraceSteps(self)
        self.foreign = ForeignTraces(self)
        self.scopes = ScopeFacts(self)
        self.key_facts = KeyFacts(self)
        self.staging = StagingFacts(self)
        self.unit_keys = UnitKeys(self)
        units = self.document.parsed_units
        sources = self.document.parsed_sources
        lineage = self.document.lineage
        imports = tuple(lineage.each_unit(_unit_import_bindings, sources))
        bindings, self.alias_key, self._bindings_key, external_key = self.document.lineage.reuse(
            _aliases, imports, self.external
        )
        self.import_bindings = bindings
        # A resolver of its own: it memoises answers by node, which must go with this model.
        self.resolver = Resolver(bindings)
        # The resolver as per-unit computations take it: its answers follow the bindings.
        self.aliases = Keyed(self.resolver, self._bindings_key)
        self.imported = Keyed(self.external or {}, external_key)
        # `_summary` of each unit (with what a class's members add, for the next version).
        summarize = summary_for_later_versions if lineage.analysed_again else unit_summary
        self.summaries = lineage.each_unit(summarize, sources, self.aliases)
        self.functions, self.records, self.classes, self._source_of = {}, {}, {}, {}
        self._chains = {}
        self._method_classes: dict[FunctionNode, ClassRecord] = {}
        # Merged from each unit's own index (the last version's for the units an edit left
        # alone), a dict update each: the same dicts, in the same order, as a pass over every
        # record, which touched every summary and class body at each keystroke.
        passed: set[str] = set()
        indexes = lineage.each_unit(_unit_index, sources, self.aliases)
        for source, index in zip(sources, indexes, strict=True):
            if index is _NO_INDEX:
                continue
            self.functions.update(index.functions)
            self.records.update(index.records)
            self._source_of.update(dict.fromkeys(index.defined, source))
            self.classes.update(index.classes)
            self._method_classes.update(index.method_classes)
            passed |= index.passed_names
        self.import_line = import_insertion_line(self.document)
        self.classes_passed_to_calls = frozenset(passed & self.classes.keys())
        self.module_globals.compute_globals(units)
        self.tracing.compute_trace(units)
        self.scopes.trace_settled()
        # What makes a class a PyTree may sit in another statement (JAX401/JAX402); with a
        # name defined twice, which definition a registration registers depends on the order.
        self._class_facts_key = intern_key(
            (
                tuple(sorted(self.classes_passed_to_calls)),
                tuple(sorted((c.name, c.decorators, c.bases) for c in self.classes.values())),
                self._redefined_classes_order(),
            )
        )

    def state_holders(self) -> list[object]:
        """The model and its fact objects: all that holds its state and memos."""
        return [self, *(fact for fact in vars(self).values() if isinstance(fact, ModelFact))]

    @keyed
    def class_of_method(self, node: FunctionNode, class_name: str) -> ClassRecord:
        """The class whose body defines the method `node` (a name defined twice holds
        several classes; `classes` keeps the last)."""
        return self._method_classes.get(node) or self.classes[class_name]

    def class_named(self, name: str) -> ClassRecord | None:
        """The (last) class the module binds to `name`, asked by a rule that reads its body
        (its methods): `classes`, which the unit key holds, covers the classes' names,
        decorators and bases only; this answer is recorded, and changes with the class's
        parse."""
        return self.classes.get(name)

    @keyed
    def class_defined_twice(self, name: str) -> bool:
        """Does the module bind `name` to more than one class (a notebook redefining it in a
        later cell)? Then writes to an instance's attributes outside the class cannot be
        tied to one definition: the attribute facts know the attribute name only."""
        return name in self._classes_defined_twice

    @cached_property
    def unit_names(self) -> list[UnitNames]:
        """Each unit's module-level names (`module_globals.UnitNames`): the parts of the
        module's class names defined twice, function names, binding counts, global writes."""
        sources = self.document.parsed_sources
        return self.document.lineage.each_unit(unit_names, sources, self.aliases)

    @cached_property
    def _classes_defined_twice(self) -> frozenset[str]:
        names = tuple([names.class_names for names in self.unit_names])
        return self.document.lineage.reuse(_names_defined_twice, names)

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

    # -- summaries ---------------------------------------------------------------------------------
    def _summary(self, source: UnitSource) -> UnitSummary:
        # A summary reads the import bindings, not the imported names' facts: a module's
        # model for its importers (no facts) and the one `check` builds (with them) share it.
        return unit_summary(source, self.aliases)

    @keyed
    @cached_property
    def module_function_names(self) -> frozenset[str]:
        """The names of the module-level functions (not methods, nested functions, lambdas):
        the last version's set while every unit's functions are of the same kinds (asked at
        every edit, which mostly changes one function's body)."""
        kinds = tuple([names.function_kinds for names in self.unit_names])
        return self.document.lineage.reuse(_module_function_names, kinds)

    @cached_property
    def abstract_decorated_functions(self) -> frozenset[str]:
        """The names of the module functions (a name's last definition) whose decorators
        apply a jit-like transform (`@jax.jit`, `@partial(jax.jit, ...)`): what a rule reads
        of a callee to tell a call of a jitted function, where reading its record (whose node
        is new at each edit of its body) would tie the caller's findings to the callee's
        text. The last version's set while every unit's functions are decorated alike."""
        lineage = self.document.lineage
        sources = self.document.parsed_sources
        parts = lineage.each_unit(_abstract_decorations, sources, self.aliases)
        return lineage.reuse(_abstract_decorated, tuple(parts))

    @at_document_lines
    @cached_property
    def self_updates(self) -> dict[str, tuple[tuple[int, str], ...]]:
        """The updates top-level code gives a name from itself (`x = x.at[i].add(v)`): by
        name, the document line and index key of each (`analysis.updates`)."""
        found: dict[str, list[tuple[int, str]]] = {}
        for unit in self.document.units:
            for name, line, key in top_level_self_updates(unit.source):
                found.setdefault(name, []).append((unit.start_line + line, key))
        return {name: tuple(entries) for name, entries in found.items()}

    @at_document_lines
    @cached_property
    def displayed_expressions(self) -> frozenset[int]:
        """The document lines where a notebook cell's last expression statement starts, whose
        value the cell displays (`analysis.cells`): empty outside notebooks."""
        return displayed_lines(self.document)

    @keyed
    @cached_property
    def may_make_explicit_meshes(self) -> bool:
        """Whether the module's code names what builds a mesh with explicit axes
        (`analysis.sharding`), or imports a name from a workspace module whose code does
        (`ExternalFacts.explicit_meshes`): an `.at[...]` update of an array on such a mesh
        needs `out_sharding=`."""
        if any(facts.explicit_meshes for facts in (self.external or {}).values()):
            return True
        # Asked at every edit (the unit keys hold it): the last version's answers for the
        # units an edit left alone.
        sources = self.document.parsed_sources
        return any(self.document.lineage.each_unit(names_explicit_meshes, sources))

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

    # -- scopes and 64-bit mode --------------------------------------------------------------------
    @keyed
    def enclosing_chain(self, node: ast.AST) -> list[FunctionNode]:
        """The functions `node` is defined in, outermost first (the callers' to read, not to
        change: the model keeps it, as each function's context and scope inputs ask for it
        again and again)."""
        chain = self._chains.get(node)
        if chain is None:
            chain = []
            record = self.records.get(node)
            while record is not None and record.parent is not None:
                chain.append(record.parent)
                record = self.records.get(record.parent)
            chain = self._chains[node] = list(reversed(chain))
        return chain

    @at_document_lines
    @property
    def x64(self) -> X64Facts:
        """Where 64-bit mode is enabled, the imports end, the first array is made (lazy)."""
        if self._x64 is None:
            statements = []
            for unit in self.document.units:
                if unit.tree is None:
                    continue
                found = _unit_x64_statements(unit.source, self.aliases)
                statements += [(unit.start_line + at, f) for at, f in found]
            # Test suites commonly enable x64 in a conftest or through flags we cannot see;
            # another module of the package or the test configuration may switch it on.
            path = self.document.path
            enabled = self.x64_setting or is_test_path(path) or project_enables_x64(path)
            self._x64 = combine_x64_facts(statements, enabled)
        return self._x64

    @keyed(reaches_members=True)
    def function_node(self, path: str) -> FunctionNode | None:
        """The (last) definition of the module function `path`."""
        record = self.functions.get(path)
        return record.node if record is not None else None

    @keyed(reaches_members=True)
    def functions_in(self, source: UnitSource) -> Iterator[FunctionRecord]:
        yield from self._summary(source).functions

    # -- the module globals (`ModuleGlobals`)

    @property
    def global_kinds(self) -> dict[str, Kind]:
        return self.module_globals.global_kinds

    @property
    def global_values(self) -> dict[str, Value]:
        return self.module_globals.global_values

    @property
    def globals_key(self) -> int:
        return self.module_globals.globals_key

    @property
    def mutable_globals(self) -> frozenset[str]:
        return self.module_globals.mutable_globals

    @property
    def stable_globals(self) -> dict[str, ast.expr]:
        return self.module_globals.stable_globals

    @property
    def stable_globals_key(self) -> int:
        return self.module_globals.stable_globals_key

    @asked_at_unit_start
    def module_shapes(self, unit_start: int) -> Mapping[str, KnownValue]:
        return self.module_globals.module_shapes(unit_start)

    def param_shapes(self, name: str) -> Mapping[str, ArrayShape]:
        return self.module_globals.param_shapes(name)

    @property
    def changed_elsewhere(self) -> dict[str, frozenset[str]]:
        return self.module_globals.changed_elsewhere

    @keyed(reaches_members=True, carries_returns=True)
    def module_kinds(self, source: UnitSource) -> ModuleKinds:
        return self.module_globals.module_kinds(source)

    @property
    def int_array_globals(self) -> frozenset[str]:
        return self.module_globals.int_array_globals

    @property
    def initializer_globals(self) -> frozenset[str]:
        return self.module_globals.initializer_globals

    @property
    def float_array_globals(self) -> frozenset[str]:
        return self.module_globals.float_array_globals

    @property
    def float_globals(self) -> frozenset[str]:
        return self.module_globals.float_globals

    @property
    def global_writes(self) -> frozenset[str]:
        return self.module_globals.global_writes

    # -- references (`References`)

    @keyed(reaches_members=True)
    def resolve(self, ref: FunctionRef, line: int | None = None) -> FunctionNode | None:
        return self.references.resolve(ref, line)

    @keyed(reaches_members=True)
    def resolve_ref(
        self, ref: FunctionRef, line: int | None = None, caller: FunctionNode | None = None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        return self.references.resolve_ref(ref, line, caller)

    def resolve_transformed(
        self,
        ref: FunctionRef,
        line: int | None = None,
        caller: FunctionNode | None = None,
        class_method: str | None = None,
    ) -> tuple[FunctionNode, FunctionRef] | None:
        return self.references.resolve_transformed(ref, line, caller, class_method)

    # -- objects and classes (`ObjectFacts`)

    def stable_shapes(self, text: str) -> Mapping[str, ArrayShape]:
        return self.objects.stable_shapes(text)

    @keyed(reaches_members=True)
    @property
    def instances(self) -> dict[str, str]:
        return self.objects.instances

    @keyed(reaches_members=True)
    @property
    def apply_fn_class(self) -> str | None:
        return self.objects.apply_fn_class

    @keyed(reaches_members=True)
    def classes_in(self, function: FunctionNode) -> dict[str, str]:
        return self.objects.classes_in(function)

    @property
    def passed_classes(self) -> dict[FunctionNode, dict[str, str]]:
        return self.objects.passed_classes

    @keyed
    def object_params(self, node: FunctionNode) -> tuple[tuple[str, Instance], ...]:
        return self.objects.object_params(node)

    def instance_of_class(self, class_name: str, every_leaf: bool = False) -> Instance | None:
        return self.objects.instance_of_class(class_name, every_leaf)

    def _plain_object(self, class_name: str) -> Object | None:
        return self.objects.plain_object(class_name)

    @property
    def boolean_fields(self) -> dict[str, frozenset[str]]:
        return self.objects.boolean_fields

    @property
    def boolean_entries(self) -> dict[str, dict[str, frozenset[str]]]:
        return self.objects.boolean_entries

    @keyed(reaches_members=True)
    @property
    def attribute_classes(self) -> dict[tuple[str, str], str]:
        return self.objects.attribute_classes

    @property
    def assigned_attributes(self) -> frozenset[str]:
        return self.objects.assigned_attributes

    @property
    def fresh_attribute_writes(self) -> frozenset[FreshWrite]:
        return self.objects.fresh_attribute_writes

    def attributes_set_on_instances(self, cls: ast.ClassDef) -> frozenset[str]:
        return self.objects.attributes_set_on_instances(cls)

    def from_unseen_base(self, class_name: str, attribute: str) -> bool:
        return self.objects.from_unseen_base(class_name, attribute)

    def instance_attributes(self, class_name: str) -> frozenset[str]:
        return self.objects.instance_attributes(class_name)

    @property
    def _attributes_set_per_class(self) -> dict[ast.ClassDef, frozenset[str]]:
        return self.objects._attributes_set_per_class

    # -- the trace (`Tracing`)

    @keyed
    @property
    def trace(self) -> dict[ast.AST, TraceInfo]:
        return self.tracing.trace

    def array_passed(self, node: FunctionNode) -> frozenset[str]:
        return self.tracing.array_passed(node)

    def result_counted(self, node: FunctionNode) -> bool:
        return self.tracing.result_counted(node)

    @property
    def wrapper_transforms(self) -> dict[str, str]:
        return self.tracing.wrapper_transforms

    @keyed
    @property
    def module_object_methods(self):
        return self.tracing.module_object_methods

    # -- traces into other modules (`ForeignTraces`)

    def outgoing_traces(
        self, foreign: ForeignDefinitions
    ) -> tuple[tuple[ForeignFunction, IncomingTrace], ...]:
        return self.foreign.outgoing_traces(foreign)

    # -- per-function facts (`ScopeFacts`)

    @keyed
    def explain(self, node: FunctionNode) -> tuple[TraceStep, ...]:
        return self.scopes.explain(node)

    @keyed
    def context_of(self, node: FunctionNode) -> TraceInfo | None:
        return self.scopes.context_of(node)

    @keyed(carries_returns=True)
    def scope_kinds(self, node: FunctionNode) -> ScopeKinds:
        return self.scopes.scope_kinds(node)

    @keyed(carries_returns=True)
    def caller_free_kinds(self, node: FunctionNode) -> ScopeKinds:
        return self.scopes.caller_free_kinds(node)

    @keyed
    def carry_values(self, node: FunctionNode) -> tuple[tuple[str, Value], ...]:
        return self.scopes.carry_values(node)

    @keyed
    def passed_defaults(self, node: FunctionNode) -> frozenset[str]:
        return self.scopes.passed_defaults(node)

    def differentiated(self, node: FunctionNode) -> frozenset[str]:
        return self.scopes.differentiated(node)

    @keyed
    @property
    def ref_params(self) -> dict[FunctionNode, frozenset[str]]:
        return self.scopes.ref_params

    @keyed
    def return_value(self, path: str, given_tracers: bool = False) -> Value | None:
        return self.scopes.return_value(path, given_tracers)

    # -- unit keys (`UnitKeys`)

    def unit_globals_key(self, source: UnitSource) -> int:
        return self.unit_keys.unit_globals_key(source)

    def unit_key(self, unit: Unit) -> UnitKey:
        return self.unit_keys.unit_key(unit)

    def member_keys(self, unit: Unit) -> dict[ast.stmt, tuple]:
        return self.unit_keys.member_keys(unit)

    @property
    def _module_facts_key(self) -> int:
        return self.unit_keys.module_facts_key

    # -- PRNG key facts (`KeyFacts`)

    @keyed
    @property
    def key_helpers(self) -> dict[str, frozenset[str]]:
        return self.key_facts.key_helpers

    @keyed
    @property
    def key_makers(self) -> dict[str, str]:
        return self.key_facts.key_makers

    @keyed
    @property
    def key_summaries(self) -> dict[str, KeySummary]:
        return self.key_facts.key_summaries

    @keyed
    @property
    def rng_stream_drawers(self) -> frozenset[str]:
        return self.key_facts.rng_stream_drawers

    @property
    def jit_aliases(self) -> dict[str, str]:
        return self.key_facts.jit_aliases

    @property
    def module_key_reuses(self) -> dict[int, tuple[Reuse, ...]]:
        return self.key_facts.module_key_reuses

    @property
    def global_key_draws(self) -> dict[str, str]:
        return self.key_facts.global_key_draws

    @property
    def object_key_draws(self) -> dict[str, tuple[str, str]]:
        return self.key_facts.object_key_draws

    @property
    def key_drawing_classes(self) -> frozenset[str]:
        return self.key_facts.drawing_classes

    def method_key_params(self, class_name: str, method: str) -> frozenset[str]:
        return self.key_facts.method_key_params(class_name, method)

    def stored_key_draws(self, class_name: str) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(self.key_facts.stored_key_draws(class_name).items()))

    # -- staging facts (`StagingFacts`)

    @keyed
    @property
    def static_signatures(self) -> dict[str, StaticSignature]:
        return self.staging.static_signatures

    @property
    def pytree_static_children(self) -> dict[ast.AST, tuple[StaticChild, ...]]:
        return self.staging.pytree_static_children

    def function_runs(self, path: str) -> str | None:
        return self.staging.function_runs(path)

    @property
    def tracers_at_static(self) -> dict[ast.AST, tuple[str, frozenset[str], bool]]:
        return self.staging.tracers_at_static

    @property
    def hash_facts(self) -> HashFacts:
        return self.staging.hash_facts

    def _wrapped_statics(self, function: FunctionNode) -> frozenset[str]:
        return self.staging._wrapped_statics(function)


@dataclass(frozen=True, eq=False)
class _UnitIndex:
    """What one unit adds to the model's indexes (`ModuleModel.functions`, `records`,
    `classes`, `_source_of`, `_method_classes`), in the order its records come, and the
    names its module-level calls pass (`classes_passed_to_calls`). Not the parse: a memo
    entry on it must not hold it."""

    functions: dict[str, FunctionRecord]
    records: dict[FunctionNode, FunctionRecord]
    classes: dict[str, ClassRecord]
    defined: tuple[ast.AST, ...]  # the functions', then the classes' nodes
    method_classes: dict[FunctionNode, ClassRecord]
    passed_names: frozenset[str]


_NO_INDEX = _UnitIndex({}, {}, {}, (), {}, frozenset())


@per_unit
def _abstract_decorations(
    source: UnitSource, aliases: Keyed[Resolver]
) -> tuple[tuple[str, bool], ...]:
    """For each function of the unit a name can call (not nested, not a method): whether a
    decorator applies a jit-like transform (`ModuleModel.abstract_decorated_functions`)."""
    found = []
    for record in unit_summary(source, aliases).functions:
        if "." in record.path:
            continue
        transforms = [
            transform_of(decorator, aliases.value)
            for decorator in getattr(record.node, "decorator_list", ())
        ]
        found.append((record.path, any(t and t[0].abstract for t in transforms)))
    return tuple(found)


def _abstract_decorated(parts: tuple[tuple[tuple[str, bool], ...], ...]) -> frozenset[str]:
    last = {name: decorated for part in parts for name, decorated in part}
    return frozenset(name for name, decorated in last.items() if decorated)


@per_unit
def _unit_index(source: UnitSource, aliases: Keyed[Resolver]) -> _UnitIndex:
    summary = unit_summary(source, aliases)
    if not summary.functions and not summary.classes and not summary.module_call_arguments:
        return _NO_INDEX
    method_classes = {
        statement: record
        for record in summary.classes
        for statement in record.node.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    return _UnitIndex(
        {record.path: record for record in summary.functions},
        {record.node: record for record in summary.functions},
        {record.name: record for record in summary.classes},
        (*(r.node for r in summary.functions), *(r.node for r in summary.classes)),
        method_classes,
        frozenset(summary.module_call_arguments),
    )


@per_unit
def _unit_import_bindings(source: UnitSource) -> dict[str, str]:
    return import_bindings(source.tree.body)


@per_unit
def _unit_x64_statements(source: UnitSource, aliases: Keyed[Resolver]) -> list:
    """(unit-relative line, facts) of each top-level statement, for `X64Facts`."""
    resolver = aliases.value
    mentions = may_mention_x64(source.text, resolver)
    return [(s.lineno - 1, statement_facts(s, resolver, mentions)) for s in source.tree.body]


def _aliases(
    imports: tuple[dict[str, str], ...], external: Mapping[str, ExternalFacts] | None
) -> tuple[dict[str, str], int, int, int]:
    """The module's import bindings, their cache key with the imported names' facts, their
    key alone, and the facts' key alone."""
    bindings: dict[str, str] = {}
    for unit_bindings in imports:
        bindings.update(unit_bindings)
    # Imported names' facts belong with the import aliases: every cache keyed by what names
    # stand for is keyed by both (but the summaries, which read names only).
    bindings_key = intern_key(tuple(sorted(bindings.items())))
    external_key = intern_key(facts_key(external))
    return bindings, intern_key((bindings_key, external_key)), bindings_key, external_key


def _same_units(old: Document, new: Document) -> bool:
    """The same parses (by identity) at the same lines."""
    return len(old.units) == len(new.units) and all(
        a.source is b.source and a.start_line == b.start_line
        for a, b in zip(old.units, new.units, strict=True)
    )


def _module_function_names(kinds: tuple[tuple[tuple[str, bool], ...], ...]) -> frozenset[str]:
    """`ModuleModel.module_function_names` from each unit's function kinds (`UnitNames`): a path
    defined again in a later unit is that definition's (as `ModuleModel.functions` keeps)."""
    last: dict[str, bool] = {}
    for unit_kinds in kinds:
        last.update(unit_kinds)
    return frozenset([path for path, plain in last.items() if plain])


def _names_defined_twice(names: tuple[tuple[str, ...], ...]) -> frozenset[str]:
    counts: dict[str, int] = {}
    for names_of_unit in names:
        for name in names_of_unit:
            counts[name] = counts.get(name, 0) + 1
    return frozenset(name for name, count in counts.items() if count > 1)
