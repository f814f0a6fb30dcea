"""What a transformation stages and how often: the static signatures of jitted functions
(`static_signatures`), the hash facts of static arguments (`hash_facts`), how often each
function runs (`function_runs`), the tracers passed where a static is expected, and the
static children of PyTree classes. Reads the summaries, resolver, globals and trace."""

from __future__ import annotations

import ast
from collections.abc import Callable

from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.document import UnitSource
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
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.jitted import StaticSignature, jit_call_signature, unit_signatures
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import positional_params
from jax_lsp.analysis.pytree_children import StaticChild, static_children
from jax_lsp.analysis.repetition import CallOf, names_loaded, runs
from jax_lsp.analysis.summary import ClassRecord, FunctionNode
from jax_lsp.analysis.traced import trace_info_for
from jax_lsp.analysis.transforms import ParamPolicy
from jax_lsp.analysis.unit_memo import Keyed, per_unit, reuse_reading


class StagingFacts(ModelFact):
    """What jitted functions compile on (see the module docstring)."""

    def __init__(self, model: ModelView) -> None:
        super().__init__(model)
        self._signatures: dict[str, StaticSignature] | None = None

    @property
    def static_signatures(self) -> dict[str, StaticSignature]:
        """Module-level names bound to jitted callables with static arguments."""
        if self._signatures is None:
            signatures: dict[str, StaticSignature] = {}
            sources = self.model.document.parsed_sources
            binding = self.model.document.lineage.each_unit(_may_bind_signature, sources)
            for source, may_bind in zip(sources, binding, strict=True):
                if not may_bind:
                    continue
                # `g = jax.jit(f, static_argnames=...)` reads f's parameters, maybe in
                # another unit: reused only while each function it looked up is the same.
                signatures.update(
                    reuse_reading(
                        source, _unit_signatures, self.model.function_node, self.model.aliases
                    )
                )
            for name, facts in (self.model.external or {}).items():
                if facts.static is not None and "." not in name:
                    signatures.setdefault(name, facts.static)  # imported jitted functions
            rebound = self.model.module_globals.mutable_globals
            self._signatures = {k: v for k, v in signatures.items() if k not in rebound}
        return self._signatures

    @cached_property
    def pytree_static_children(self) -> dict[ast.AST, tuple[StaticChild, ...]]:
        """Children of registered PyTree classes that hold Python values a trace needs
        concrete (or no JAX type at all), by the class or registration call listing them."""
        return static_children(
            {name: record.node for name, record in self.model.classes.items()},
            [pair for summary in self.model.summaries for pair in summary.module_calls],
            self.model.function_node,
            self.model.resolver.qualname,
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
                lambda caller: caller in self.model.tracing.trace,
            )
            memo[path] = found.value if found is not None else None
        return memo[path]

    @cached_property
    def _function_runs(self) -> dict[str, str | None]:
        return {}

    def _top_level_calls(self, name: str) -> list[CallOf]:
        """The calls of the module's top-level function `name` by its bare name, with the
        scope whose loops the call may stand in (the caller, or the unit's tree)."""
        record = self.model.functions.get(name)
        if record is None or record.parent is not None or record.class_name:
            return []
        return [
            (caller, call, caller if caller is not None else source.tree)
            for caller, call, ref, source, _ in self.model.tracing.calls_by_name.get(name, ())
            if ref.name == name and not (caller is not None and binds_locally(name, caller))
        ]

    def _names_loaded(self, name: str) -> int:
        trees = [unit.tree for unit in self.model.document.units if unit.tree and name in unit.text]
        return sum(1 for _ in names_loaded(trees, name))

    def _plain_function_path(self, node: ast.AST) -> str | None:
        record = self.model.records.get(node)
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
        for summary in self.model.summaries:
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
                resolved = self.model.references.resolve_ref(
                    application.target, None, application.enclosing
                )
                if resolved is None or isinstance(resolved[0], ast.Lambda):
                    continue
                function = resolved[0]
                positional = positional_params(function)
                static = signature.names | {
                    positional[i] for i in signature.positions if i < len(positional)
                }
                info = trace_info_for(application, function, self.model.objects.is_array_annotation)
                given = info.traced_params & static
                if given:
                    shifted = application.target.bound_positional > 0
                    found[application.node] = (name, given, shifted)
        return found

    @cached_property
    def hash_facts(self) -> HashFacts:
        """Unhashable module values and classes, instances, and wrapper parameters given
        unhashable values (read across statements by the JAX1001/JAX1002 rules): only in
        modules that jit."""
        units = self.model.document.parsed_units
        if not any(_mentions_staging(unit.source) for unit in units):
            return EMPTY_FACTS
        global_writes = self.model.module_globals.global_writes
        bindings = [binding for unit in units for binding in self._statement_bindings(unit.source)]
        class_facts = {
            name: self._class_hash_facts(record) for name, record in self.model.classes.items()
        }
        module_functions = [(n, r.node) for n, r in self.model.functions.items() if "." not in n]
        jitted = frozenset(n for n, node in module_functions if self._staged(node))
        wrappers = {
            name: (node, statics)
            for name, node in module_functions
            if (statics := self._wrapped_statics(node))
        }
        # An edit inside a function body changes none of the inputs unless the function
        # wraps a jitted call (then the trees are read).
        trees = tuple([(unit.tree, unit.start_line) for unit in units]) if wrappers else ()
        return self.model.document.lineage.reuse(
            _hash_facts,
            trees,
            bindings,
            self.model.aliases,
            tuple(self.model.classes.items()),
            tuple(class_facts.items()),
            jitted,
            tuple(wrappers.items()),
            global_writes,
        )

    def _statement_bindings(self, source: UnitSource) -> tuple:
        return _unit_statement_bindings(source)

    def _staged(self, function: FunctionNode) -> bool:
        return _staged(self.model._source_of[function], function, self.model.aliases)

    def _class_hash_facts(self, record: ClassRecord) -> ClassHashFacts:
        return _class_hash_facts(self.model._source_of[record.node], record, self.model.aliases)

    def _module_lookup(self, question: tuple[str, str]) -> object:
        """("function", path): a module function's definition; ("signature", name): the
        static signature a module-level name is bound to."""
        what, name = question
        if what == "function":
            return self.model.function_node(name)
        return self.static_signatures.get(name)

    def _wrapped_statics(self, function: FunctionNode) -> frozenset[str]:
        """Parameters `function` passes on in a static position of a jitted call: memoised
        on its unit, reused while the signatures of what it calls are the same."""
        source = self.model._source_of[function]
        if not _passing_calls(source, function)[1]:
            return frozenset()
        return reuse_reading(
            source, _wrapped_statics, self._module_lookup, function, self.model.aliases
        )


def _unit_signatures(
    source: UnitSource, lookup: Callable[[tuple[str, str]], object], aliases: Keyed[Resolver]
) -> dict[str, StaticSignature]:
    """The static signatures the unit's top-level statements bind; `g = jax.jit(f,
    static_argnames=...)` looks up `f`, maybe in another unit (`reuse_reading`)."""
    return unit_signatures(source.tree, aliases.value, lookup)


@per_unit
def _unit_statement_bindings(source: UnitSource) -> tuple:
    return statement_bindings(source.tree)  # syntax only


@per_unit
def _staged(source: UnitSource, function: FunctionNode, aliases: Keyed[Resolver]) -> bool:
    # Its decorators and the module's imports decide it.
    return staged_by_decorator(function, aliases.value)


@per_unit
def _class_hash_facts(
    source: UnitSource, record: ClassRecord, aliases: Keyed[Resolver]
) -> ClassHashFacts:
    # The class's text and the module's imports decide it.
    return class_hash_facts(record, aliases.value)


@per_unit
def _passing_calls(source: UnitSource, function: FunctionNode) -> tuple:
    return parameter_passing_calls(function)  # syntax only


def _wrapped_statics(
    source: UnitSource,
    lookup: Callable[[tuple[str, str]], object],
    function: FunctionNode,
    aliases: Keyed[Resolver],
) -> frozenset[str]:
    def signature_of_call(call: ast.Call) -> StaticSignature | None:
        if isinstance(call.func, ast.Call):
            return jit_call_signature(
                call.func, aliases.value, lambda name: lookup(("function", name))
            )
        if isinstance(call.func, ast.Name):
            return lookup(("signature", call.func.id))  # type: ignore[return-value]
        return None

    return wrapped_statics(_passing_calls(source, function), signature_of_call)


@per_unit
def _may_bind_signature(source: UnitSource) -> bool:
    """Can the unit bind a jitted callable with static arguments (`jitted.unit_signatures`
    looks at no other statement): a decorated `def` or `name = call(...)` at its top level.
    Memoised on the unit: `static_signatures` asks it of every unit on each edit."""
    return any(
        (isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.decorator_list)
        or (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Call)
        )
        for statement in source.tree.body  # type: ignore[union-attr]
    )


@per_unit
def _mentions_staging(source: UnitSource) -> bool:
    text = source.text
    return "jit" in text or "pmap" in text


def _hash_facts(
    trees: tuple[tuple[ast.Module, int], ...],
    bindings: list,
    aliases: Keyed[Resolver],
    classes: tuple[tuple[str, ClassRecord], ...],
    class_facts: tuple[tuple[str, ClassHashFacts], ...],
    jitted: frozenset[str],
    wrappers: tuple[tuple[str, tuple[FunctionNode, frozenset[str]]], ...],
    global_writes: frozenset[str],
) -> HashFacts:
    """`compute_hash_facts`, of inputs the lineage compares (in order)."""
    return compute_hash_facts(
        list(trees),
        bindings,
        aliases.value,
        dict(classes),
        dict(class_facts),
        jitted,
        dict(wrappers),
        global_writes,
    )
