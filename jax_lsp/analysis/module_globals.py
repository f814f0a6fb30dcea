"""The module's globals as its functions see them: what each top-level name holds (its kind
and value, folded unit by unit), which names are mutable or bound once (`stable_globals`),
the value of a name rebound at the top level where a later statement reads it
(`reaching_values`), and the module-level arrays by dtype and shape. Reads the model's
summaries and resolver, and the return values of the functions top-level code calls."""

from __future__ import annotations

import ast
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from jax_lsp.analysis import recorded
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.call_shapes import module_uses, param_shapes, unit_uses
from jax_lsp.analysis.document import Unit, UnitSource
from jax_lsp.analysis.dtypes import FloatOracle, IntArrayOracle, assigned_values
from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.flow import FlowInterpreter, ScopeContext, plain_bindings
from jax_lsp.analysis.imported_globals import ImportedNames
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.keys import makes_random_initializer
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model_parts import (
    DEFINITIONS,
    ModuleKinds,
    ReturnsAsked,
    evaluated_text,
    intern_key,
)
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.recorded import ReadLog, RecordingView
from jax_lsp.analysis.shapes import ArrayShape, KnownValue, run_top_level
from jax_lsp.analysis.summary import unit_summary
from jax_lsp.analysis.text import identifiers
from jax_lsp.analysis.unit_memo import Keyed, per_unit
from jax_lsp.analysis.values import Function, Value, kind_of, merge_values
from jax_lsp.compat import TRY_STATEMENTS


class ModuleGlobals(ModelFact):
    """The module's top-level names and their values (see the module docstring)."""

    global_kinds: dict[str, Kind]
    global_values: dict[str, Value]
    globals_key: int
    # Module-level names rebound, written through `global`, or mutated in place.
    mutable_globals: frozenset[str]
    # Module-level names bound once, by a top-level `name = value`, and never rebound or
    # mutated: their value expression (in document order), and a cache key for them.
    stable_globals: dict[str, ast.expr]
    stable_globals_key: int

    def __init__(self, model: ModelView) -> None:
        super().__init__(model)
        self._float_globals: frozenset[str] | None = None
        # Module functions top-level code names: the hash of their unit's text (see
        # `compute_globals`).
        self._top_callees: dict[str, int] = {}
        self._callees_read: set[str] = set()  # the callees the fold's steps read

    def compute_globals(self, units: list[Unit]) -> None:
        # How often each name is bound at the top level, which are bound more than once, and
        # which are mutated: the last version's while every unit's are the same.
        lineage = self.model.document.lineage
        bound = tuple([(names.bindings, names.mutated) for names in self.model.unit_names])
        counts, rebound, mutated = lineage.reuse(_binding_counts, bound)
        # Each unit's bindings depend on the kinds of the names bound before it: a fold. A
        # top-level call of a module function gives what the function returns, so the texts
        # of the functions top-level code calls are part of the fold's context: those its
        # steps read, as the last fold found them, not all that top-level code names (an
        # edit inside one that no step reads, as most units need no interpreter, keeps the
        # fold); and which names are callees (a step reads callees by membership).
        self._top_callees = self._top_level_callees(units)
        last = lineage.kept(ModuleGlobals.compute_globals)
        read_before: frozenset[str] = last[1] if last is not None else frozenset()
        callees = self._top_callees
        callees_key = intern_key(
            (
                tuple(sorted(callees)),
                tuple(sorted((path, callees[path]) for path in read_before if path in callees)),
            )
        )
        aliases, imported = self.model.aliases, self.model.imported
        context = (aliases.key, imported.key, callees_key)
        self._callees_read = set()
        bindings, kinds = lineage.fold(
            _top_level_bindings,
            self.model.document.parsed_sources,
            _merge_bindings,
            aliases,
            imported,
            Keyed((callees, self._plain_return_value, self._callees_read), callees_key),
        )
        # What every result of the fold read: the last fold's reads still stand for the
        # results it kept (all of them when the context was the same).
        read = frozenset(self._callees_read)
        if last is not None and last[0] == context:
            read |= read_before
        lineage.hand_over(ModuleGlobals.compute_globals, (context, read))
        self.global_values = kinds
        self.global_kinds, self.globals_key = self.model.document.lineage.reuse(
            _global_kinds, kinds
        )
        # The globals as per-unit computations take them whole.
        self.keyed_values: Keyed[dict[str, Value]] = Keyed(kinds, self.globals_key)
        self.mutable_globals = frozenset((rebound | self.global_writes | mutated) & counts.keys())
        self._compute_stable_globals(counts)
        self._compute_reaching(units, bindings, rebound - self.global_writes)

    def _compute_reaching(
        self, units: list[Unit], bindings: list[dict[str, Value]], rebound: set[str]
    ) -> None:
        """Where each name that several top-level statements bind (and no function rebinds
        with `global`) gets which value, in document order: module code runs in order, so
        top-level code sees the latest binding before it, not the merge of all of them (the
        merge stays what functions see, as they may run after any of them)."""
        self.reaching_sites: dict[str, list[tuple[int, Value]]] = {}
        self._unit_index: dict[int, int] = {}
        self._reaching: dict[int, dict[str, Value]] = {}  # memo by id(source), this model
        if not rebound:
            return
        rows = zip(units, self.model.summaries, bindings, strict=True)
        for index, (unit, summary, bound) in enumerate(rows):
            self._unit_index[id(unit.source)] = index
            for name in rebound.intersection(summary.top_level_bindings):
                value = bound.get(name)
                if value is not None:
                    self.reaching_sites.setdefault(name, []).append((index, value))

    def reaching_values(self, source: UnitSource) -> dict[str, Value]:
        """The module-level names a unit's top-level code mentions that an earlier statement
        rebinds, with the value of the latest binding before the unit."""
        if not self.reaching_sites:
            return {}  # no name is bound twice at the top level: nothing to tell apart
        found = self._reaching.get(id(source))
        if found is None:
            found = {}
            index = self._unit_index.get(id(source))
            if index is not None:
                words = source.words()
                for name in [name for name in self.reaching_sites if name in words]:
                    earlier = [value for at, value in self.reaching_sites[name] if at < index]
                    if earlier:
                        found[name] = earlier[-1]
            self._reaching[id(source)] = found
        return found

    def reaching_key(self, source: UnitSource) -> int:
        values = self.reaching_values(source)
        return intern_key(tuple(sorted(values.items(), key=lambda item: item[0]))) if values else 0

    def _compute_stable_globals(self, counts: dict[str, int]) -> None:
        """The names bound once and never changed, with their values: the last version's
        while every unit's assignments and the counts are the same (an edit inside a
        function), where a pass over every unit's assignments made them again."""
        lineage = self.model.document.lineage
        assigned = lineage.each_unit(_stable_candidates, self.model.document.parsed_sources)
        self.stable_globals, self.stable_globals_key = lineage.reuse(
            _stable_globals, tuple(assigned), counts, self.mutable_globals
        )

    def _top_level_callees(self, units: list[Unit]) -> dict[str, int]:
        """Module functions (not methods, not nested) whose name some unit's top-level code
        reads: their path and the hash of the text of the unit that defines them."""
        names = self.model.module_function_names
        if not names:
            return {}
        lineage = self.model.document.lineage
        loaded = lineage.each_unit(_loaded_words, self.model.document.parsed_sources)
        # The names, in the order first read: the last version's while every unit reads the
        # same words; the texts they hash are read again (an edit inside one changes it).
        functions, source_of = self.model.functions, self.model._source_of
        return {
            name: hash(source_of[functions[name].node].text)
            for name in lineage.reuse(_names_read, tuple(loaded), names)
        }

    def _plain_return_value(self, path: str) -> Value | None:
        """What calling the module function `path` returns, interpreted on its own without
        the module's globals (which are being found): the summary top-level code follows."""
        if path not in self._top_callees:
            return None
        return self.model.scopes.interpret_returns(self.model.functions[path].node, None)

    def module_shapes(self, unit_start: int) -> Mapping[str, KnownValue]:
        """Shapes and int literals of module-level names as the top-level code of the unit
        starting at document line `unit_start` sees them, carried across the top-level
        statements before it (a script's `x = jnp.array(x)`): the names its text mentions.
        Read-only: rules' calls record the answer."""
        return MappingProxyType(dict(self.shapes_by_unit.get(unit_start, ())))

    @cached_property
    def changed_elsewhere(self) -> dict[str, frozenset[str]]:
        """How this module spells the values of other modules (`settings.SCALE`, an imported
        `OPTIONS`) that modules calling its functions outside any trace change after the
        call (`IncomingTrace.globals_changed`): by spelling, the paths of those functions."""
        seeds = [seed for seed in self.model.incoming if seed.globals_changed]
        if not seeds:
            return {}
        units = self.model.document.parsed_units
        imported = ImportedNames([s for u in units for s in u.tree.body], self.model.document.path)
        found: dict[str, set[str]] = {}
        for seed in seeds:
            for qualified in seed.globals_changed:
                module, _, attribute = qualified.rpartition(".")
                spellings = [local for local, q in imported.names.items() if q == qualified]
                spellings += [
                    f"{a}.{attribute}" for a, m in imported.modules.items() if m == module
                ]
                for spelling in spellings:
                    found.setdefault(spelling, set()).add(seed.function)
        return {spelling: frozenset(paths) for spelling, paths in found.items()}

    def param_shapes(self, name: str) -> Mapping[str, ArrayShape]:
        """The shapes the module's calls give the parameters of the top-level function `name`
        (`call_shapes.param_shapes`), defined once. Read-only: rules' calls record the
        answer (asked by name: a recorded node would keep its tree)."""
        record = self.model.functions.get(name)
        function = record.node if record is not None and record.parent is None else None
        definitions = self.model.tracing.definitions.get(name, ())
        if not isinstance(function, ast.FunctionDef) or len(definitions) != 1:
            return MappingProxyType({})
        memo = self._param_shapes
        found = memo.get(function)
        if found is None:
            found = memo[function] = self._kept_param_shapes(function)
        return found[0]

    def _kept_param_shapes(self, function: ast.FunctionDef) -> tuple[Mapping, ReadLog]:
        """`param_shapes` of `function` with what it read of the model: the last model's
        while every read answers the same (the same parse of the function, its uses and
        theirs unchanged), else computed."""
        recheck = self.model.unit_keys.recheck
        kept = self._last_param_shapes.get(function)
        if kept is not None and recheck.holds(kept[1]):
            if recorded.VERIFY_REUSE and kept[0] != self._param_shapes_of(function, ReadLog())[0]:
                raise AssertionError(f"param_shapes of {function.name} kept stale")
            return kept
        return self._param_shapes_of(function, ReadLog())

    def _param_shapes_of(self, function: ast.FunctionDef, log: ReadLog) -> tuple[Mapping, ReadLog]:
        view = RecordingView(self.model, log, self.model.unit_keys.recheck)
        facts = view.module_globals
        view.value("_bindings_key")  # the resolver's answers follow the bindings
        found = param_shapes(
            function,
            facts._top_level_functions,
            facts._function_uses,
            facts.module_shapes,
            self.model.resolver,
        )
        return MappingProxyType(found), log

    @cached_property
    def _param_shapes(self) -> dict[ast.AST, tuple[Mapping[str, ArrayShape], ReadLog]]:
        return {}

    @cached_property
    def _last_param_shapes(self) -> dict[ast.AST, tuple[Mapping[str, ArrayShape], ReadLog]]:
        """The last model's `_param_shapes`, this one's handed on in their place."""
        lineage = self.model.document.lineage
        return lineage.hand_over(ModuleGlobals.param_shapes, self._param_shapes) or {}

    @cached_property
    def _top_level_functions(self) -> dict[str, ast.AST]:
        """The module's top-level functions by name, as `param_shapes` reads them."""
        return {
            path: record.node
            for path, record in self.model.functions.items()
            if "." not in path and record.parent is None
        }

    def _function_uses(self, name: str) -> tuple:
        """Every use of the module-level `name` (`call_shapes.unit_uses`), with the first line
        of the unit holding it: each unit is walked once for all names, and kept while it is.
        The last model's tuple (the same object, which the logs that read it find unchanged
        by identity) while the units holding `name` are the same parses at the same lines."""
        found = self._uses.get(name)
        if found is None:
            document = self.model.document
            units, sources = document.parsed_units, document.parsed_sources
            holding = document.units_holding(name)
            found = self._uses[name] = document.lineage.reuse_each(
                _module_uses_of,
                self.model._generation,
                name,
                name,
                self.model.aliases,
                tuple([sources[index] for index in holding]),
                tuple([units[index].start_line for index in holding]),
            )
        return found

    @cached_property
    def _uses(self) -> dict[str, tuple]:
        return {}

    @cached_property
    def shapes_by_unit(self) -> dict[int, tuple[tuple[str, KnownValue], ...]]:
        units = self.model.document.parsed_units
        untracked = self.global_writes

        results, _ = self.model.document.lineage.fold(
            _shapes_step,
            self.model.document.parsed_sources,
            _apply_known,
            self.model.aliases,
            untracked,
        )
        return {unit.start_line: seen for unit, (seen, _) in zip(units, results, strict=True)}

    def module_kinds(self, source: UnitSource) -> ModuleKinds:
        """Kinds of a unit's top-level statements (outside any function)."""
        reaching = self.reaching_values(source)
        scopes = self.model.scopes
        return _interpret_module_scope(
            source,
            self.model.aliases,
            self.model.imported,
            self.model.unit_keys.unit_globals(source),
            Keyed(reaching, self.reaching_key(source)),
            Keyed(scopes.lambda_params, scopes.lambda_traces(source)),
            Keyed(scopes.return_value, scopes.returns_key(source)),
        )

    @cached_property
    def int_array_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which is an integer JAX array."""
        # Equal assignments (the same nodes: unchanged units) give the same answer.
        return self.model.document.lineage.reuse(
            _int_array_globals, self.model.aliases, self.top_level_values
        )

    @cached_property
    def initializer_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which makes a random initializer
        (`kernel_init = jax.nn.initializers.lecun_normal()`): calling one draws from its key."""
        # Every spelling of an initializer factory passes through the word `initializers` (in
        # the call, or in the import binding its name): a module without it makes none, and
        # a keystroke there skips gathering the top-level values (asked on every edit).
        if not self.model.document.units_holding("initializers"):
            return frozenset()
        return self.model.document.lineage.reuse(
            _initializer_globals, self.model.aliases, self.top_level_values
        )

    @cached_property
    def float_array_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which is a known float value,
        item assignments or not: what the values' dtype is (`x[i] /= 2` keeps a float
        array float), not whether they change."""
        # Equal assignments (the same nodes: unchanged units) give the same answer.
        return self.model.document.lineage.reuse(
            _float_array_globals, self.model.aliases, self.top_level_values
        )

    @cached_property
    def top_level_values(self) -> dict[str, list[ast.expr]]:
        """The values assigned to each name at the top level (not to be changed: the last
        version's while every unit's are the same, as after an edit inside a function, so that
        the facts reused while it is equal find it so by identity)."""
        lineage = self.model.document.lineage
        found = lineage.each_unit(_top_level_assignments, self.model.document.parsed_sources)
        return lineage.reuse(_merged_assignments, tuple(found))

    @property
    def float_globals(self) -> frozenset[str]:
        """Module-level names every top-level assignment of which is a known float value."""
        if self._float_globals is None:
            # Equal assignments (the same nodes: unchanged units) give the same answer.
            self._float_globals = self.model.document.lineage.reuse(
                _float_global_names, self.model.aliases, self.mutable_globals, self.top_level_values
            )
        return self._float_globals

    @cached_property
    def global_writes(self) -> frozenset[str]:
        """Module-level names some function writes through `global`: the last version's set
        while every unit's are the same."""
        writes = tuple([names.global_writes for names in self.model.unit_names])
        return self.model.document.lineage.reuse(_union, writes)


def _top_level_bindings(
    source: UnitSource,
    known: dict[str, Value],
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    top_callees: Keyed[tuple[dict[str, int], Callable[[str], Value | None], set[str]]],
) -> dict[str, Value]:
    """What a unit's top-level code binds, the names bound before it at their `known` values;
    `top_callees`: the module functions top-level code calls (path -> their unit's text
    hash), what each returns (`ModuleGlobals._plain_return_value`) and the set noting the
    callees read (the fold's context holds the texts of those alone)."""
    plain = _plain_bindings(source)
    if plain is not None:
        return _with_imported_values(source, plain, imported.value)
    loads = _loaded_words(source)
    used = frozenset((name, known[name]) for name in loads & known.keys())
    callees, returns, read = top_callees.value
    called = tuple(
        sorted(
            (value.path, callees[value.path])
            for _, value in used
            if type(value) is Function and value.path in callees
        )
    )
    read.update(path for path, _ in called)
    return _interpret_top_level(source, aliases, imported, used, Keyed(returns, called))


def _with_imported_values(
    source: UnitSource, bound: dict[str, Value], external: Mapping[str, ExternalFacts]
) -> dict[str, Value]:
    """`bound` with the values of the names the unit's `from m import NAME` statements bind,
    where the workspace module `m` binds NAME once to a known value (`ExternalFacts.value`);
    the interpreter binds them the same way (`_stmt_Import`)."""
    if not external or not any(facts.value is not None for facts in external.values()):
        return bound
    found = dict(bound)
    for statement in source.tree.body:
        if type(statement) is ast.ImportFrom:
            for alias in statement.names:
                local = alias.asname or alias.name
                facts = external.get(local)
                if facts is not None and facts.value is not None:
                    found[local] = facts.value
    return found


def _global_kinds(kinds: dict[str, Value]) -> tuple[dict[str, Kind], int]:
    """The kind of each global's value, and the values' key."""
    return (
        {name: kind_of(value) for name, value in kinds.items()},
        intern_key(tuple(sorted(kinds.items(), key=lambda item: item[0]))),
    )


def _shapes_step(
    source: UnitSource, state: dict, aliases: Keyed[Resolver], untracked: frozenset[str]
) -> tuple[tuple, tuple]:
    """The shapes a unit's top-level code sees (of the names its text mentions) and binds."""
    body = source.tree.body
    if len(body) == 1 and isinstance(body[0], DEFINITIONS):
        return (), ((body[0].name, None),)  # binds a function or a class
    words = _loaded_words(source)
    seen = tuple(sorted((n, v) for n, v in state.items() if n in words))
    bound = _top_level_shapes(source, aliases, seen)
    # A name some function rebinds through `global` is never known.
    return seen, tuple(item for item in bound if item[0] not in untracked)


def _int_array_globals(
    aliases: Keyed[Resolver], assigned: dict[str, list[ast.expr]]
) -> frozenset[str]:
    oracle = IntArrayOracle(aliases.value, assigned.get)
    return frozenset(n for n in assigned if oracle.is_int_array(ast.Name(n)))


def _initializer_globals(
    aliases: Keyed[Resolver], assigned: dict[str, list[ast.expr]]
) -> frozenset[str]:
    return frozenset(
        name
        for name, values in assigned.items()
        if all(
            type(value) is ast.Call and makes_random_initializer(value, aliases.value)
            for value in values
        )
    )


def _float_array_globals(
    aliases: Keyed[Resolver], assigned: dict[str, list[ast.expr]]
) -> frozenset[str]:
    oracle = FloatOracle(aliases.value, assigned.get, default_dtype=True)
    return frozenset(n for n in assigned if oracle.is_float(ast.Name(n)))


def _float_global_names(
    aliases: Keyed[Resolver], mutable: frozenset[str], assigned: dict[str, list[ast.expr]]
) -> frozenset[str]:
    oracle = FloatOracle(aliases.value, assigned.get)
    return frozenset(
        name for name in assigned if name not in mutable and oracle.is_float(ast.Name(name))
    )


@per_unit
def _plain_bindings(source: UnitSource) -> dict[str, Value] | None:
    return plain_bindings(source.tree.body)


@per_unit
def _interpret_top_level(
    source: UnitSource,
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    used: frozenset[tuple[str, Value]],
    returns: Keyed[Callable[[str], Value | None]],
) -> dict[str, Value]:
    """What a unit's top-level code binds, given the values of the names it reads (`used`)
    and what the module functions it calls return, interpreted without the globals."""
    interpreter = FlowInterpreter(
        ScopeContext(
            aliases.value, False, dict(used), external=imported.value, returns=returns.value
        ),
        {},
    )
    interpreter.run_block(source.tree.body)
    return {name: kind for name, kind in interpreter.env.items() if not name.startswith("<")}


@per_unit
def _top_level_shapes(
    source: UnitSource, aliases: Keyed[Resolver], seen: tuple[tuple[str, KnownValue], ...]
) -> tuple[tuple[str, KnownValue], ...]:
    return tuple(sorted(run_top_level(source.tree.body, dict(seen), aliases.value).items()))


@per_unit
def _interpret_module_scope(
    source: UnitSource,
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    module_globals: Keyed[Mapping[str, Value]],
    reaching: Keyed[dict[str, Value]],
    lambdas: Keyed[Callable[[ast.Lambda], dict[str, Kind] | None]],
    returns: Keyed[Callable[[str], Value | None]],
) -> ModuleKinds:
    """Kinds of a unit's top-level statements, its names rebound earlier at their `reaching`
    values."""
    kinds = ModuleKinds()
    asked = ReturnsAsked(returns.value)
    context = ScopeContext(
        aliases.value,
        False,
        ChainMap(reaching.value, module_globals.value) if reaching.value else module_globals.value,
        lambdas.value,
        imported.value,
        asked.plain,
    )
    FlowInterpreter(context, kinds).run_block(source.tree.body)
    kinds.returns_read = asked.read()
    return kinds


@per_unit
def _loaded_words(source: UnitSource) -> frozenset[str]:
    """Every identifier-like word of the text a unit's top-level code reads: a superset of
    the names it reads, found far faster than by walking its tree."""
    text = evaluated_text(source)
    # All of it: the unit's own words, which most often were read already.
    return source.words() if text is source.text else identifiers(text)


def _single_assignments(source: UnitSource) -> list[tuple[str, ast.expr]]:
    """(name, value) of a unit's top-level `name = value` and `name: T = value` statements,
    those in the blocks of its top-level `if`, `with` and `try` statements too (run once at
    most, as `if __name__ == "__main__":`'s body), not in loops."""
    found: list[tuple[str, ast.expr]] = []
    _gather_single_assignments(source.tree.body, found)
    return found


def _gather_single_assignments(
    statements: list[ast.stmt], found: list[tuple[str, ast.expr]]
) -> None:
    for statement in statements:
        if isinstance(statement, ast.If):
            _gather_single_assignments(statement.body, found)
            _gather_single_assignments(statement.orelse, found)
            continue
        if isinstance(statement, ast.With):
            _gather_single_assignments(statement.body, found)
            continue
        if isinstance(statement, TRY_STATEMENTS):
            for block in (statement.body, statement.orelse, statement.finalbody):
                _gather_single_assignments(block, found)
            for handler in statement.handlers:
                _gather_single_assignments(handler.body, found)
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name):
            found.append((target.id, value))


@per_unit
def _stable_candidates(source: UnitSource) -> tuple:
    """The unit's top-level single assignments (`_single_assignments`) with the hash of its
    text, which the key of the stable globals holds; none for a unit with none (an edit of a
    function leaves its unit's answer equal)."""
    assigned = _single_assignments(source)
    return (tuple(assigned), hash(source.text)) if assigned else ()


def _stable_globals(
    candidates: tuple[tuple, ...], counts: dict[str, int], mutable: frozenset[str]
) -> tuple[dict[str, ast.expr], int]:
    """The values of the names bound once and never changed, and their key: each name with
    the hash of the text of the unit binding it."""
    values: dict[str, ast.expr] = {}
    key = []
    for unit in candidates:
        if not unit:
            continue
        assigned, text_hash = unit
        for name, value in assigned:
            if counts.get(name) != 1 or name in mutable:
                continue
            values[name] = value
            key.append((name, text_hash))
    return values, intern_key(tuple(key))


def _merge_bindings(values: dict[str, Value], bound: dict[str, Value]) -> None:
    for name, value in bound.items():
        values[name] = merge_values(values[name], value) if name in values else value


def _apply_known(state: dict, result: tuple[tuple, tuple]) -> None:
    for name, value in result[1]:
        if value is None:
            state.pop(name, None)
        else:
            state[name] = value


def _merged_assignments(
    found: tuple[dict[str, list[ast.expr]], ...],
) -> dict[str, list[ast.expr]]:
    assigned: dict[str, list[ast.expr]] = {}
    for unit_assignments in found:
        for name, values in unit_assignments.items():
            assigned.setdefault(name, []).extend(values)
    return assigned


@per_unit
def _top_level_assignments(source: UnitSource) -> dict[str, list[ast.expr]]:
    """Values assigned to each name by a unit's top-level assignments."""
    tree = source.tree
    names = {
        n.id
        for statement in tree.body
        if isinstance(statement, ast.Assign | ast.AnnAssign)
        for n in walk_nodes(statement)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return {name: assigned_values(name, tree) or [] for name in names}


@per_unit
def _unit_uses(source: UnitSource, aliases: Keyed[Resolver]) -> dict[str, list]:
    return unit_uses(source.tree, aliases.value)


def _module_uses_of(
    name: str, aliases: Keyed[Resolver], parses: tuple[UnitSource, ...], starts: tuple[int, ...]
) -> tuple:
    """The module's uses of `name` in the units `parses` (those holding it, starting at the
    lines `starts`), each with its unit's first line."""
    return tuple(
        [
            (call, function, start)
            for source, start in zip(parses, starts, strict=True)
            for call, function in module_uses(name, _unit_uses(source, aliases).get(name, ()))
        ]
    )


@dataclass(frozen=True)
class UnitNames:
    """The module-level names one unit defines, binds and writes, from its summary: what the
    module-wide name facts are gathered from (`ModuleModel.unit_names`), one memo entry for
    them all. Equal parts, equal module facts: each is reused while its parts are equal."""

    class_names: tuple[str, ...]  # each class the unit defines, in order
    # Each function path the unit defines (its last definition there) and whether that is a
    # module-level function (not a method, a nested function or a lambda).
    function_kinds: tuple[tuple[str, bool], ...]
    bindings: tuple[str, ...]  # the names its top-level code binds, in order, each time
    mutated: frozenset[str]  # the names its top-level code mutates
    global_writes: frozenset[str]  # the module names its functions write through `global`


@per_unit
def unit_names(source: UnitSource, aliases: Keyed[Resolver]) -> UnitNames:
    summary = unit_summary(source, aliases)
    last = {record.path: record for record in summary.functions}
    return UnitNames(
        tuple([record.name for record in summary.classes]),
        tuple(
            [
                (
                    path,
                    record.parent is None
                    and record.class_name is None
                    and not isinstance(record.node, ast.Lambda),
                )
                for path, record in last.items()
            ]
        ),
        tuple(summary.top_level_bindings),
        frozenset(summary.mutated_names),
        frozenset(summary.global_writes),
    )


def _union(parts: tuple[frozenset[str], ...]) -> frozenset[str]:
    return frozenset().union(*parts)


def _binding_counts(
    bound: tuple[tuple[tuple[str, ...], frozenset[str]], ...],
) -> tuple[dict[str, int], frozenset[str], frozenset[str]]:
    """From each unit's bindings and mutated names (`UnitNames`): how often each name is
    bound at the top level (not to be changed), the names bound more than once, the names
    mutated."""
    counts: dict[str, int] = {}
    for names, _ in bound:
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    rebound = frozenset([name for name, count in counts.items() if count > 1])
    return counts, rebound, frozenset().union(*[mutated for _, mutated in bound])


def _names_read(loaded: tuple[frozenset[str], ...], names: frozenset[str]) -> tuple[str, ...]:
    """The `names` among the units' `loaded` words, in the order first read."""
    found: dict[str, None] = {}
    for words in loaded:
        for name in words & names:
            found.setdefault(name)
    return tuple(found)
