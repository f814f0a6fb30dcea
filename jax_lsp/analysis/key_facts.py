"""The module's PRNG key facts: functions that consume their key parameters
(`key_helpers`), what they do with them for their callers (`key_summaries`), names bound to
objects whose methods draw from a key (`key_makers`), and the keys drawn more than once
through globals and object attributes (`module_key_reuses`). Reads the model's summaries,
resolver and records, and the globals."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable, Mapping
from functools import partial

from jax_lsp.analysis.attributes import ANY_ATTRIBUTE
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.document import UnitSource
from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.imported_key_holders import imported_object_key_draws
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.key_calls import KeyHelpers, in_place_transformed
from jax_lsp.analysis.key_consumers import (
    LIBRARY_MAKER_ROOTS,
    KeySummary,
    attribute_makers,
    derived_params,
    draws_from_stream,
    library_key,
    library_makers,
    may_use_library_key,
    returned_keys,
)
from jax_lsp.analysis.keys import (
    KeyFlow,
    Reuse,
    called_as,
    classify_call,
    consumed_params,
    consumer_key,
    derived_helper_key,
    drawn_free_names,
    drawn_self_attributes,
    external_key,
    global_key,
    helper_key,
    key_argument,
    makes_random_initializer,
    may_draw,
    named_by_calls,
    object_key,
    opaque_global,
    path_root,
    returned_arguments,
)
from jax_lsp.analysis.linen_draws import module_bound_names, quiet_linen_classes
from jax_lsp.analysis.model_parts import intern_key
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.nodes import has_params, is_staticmethod
from jax_lsp.analysis.summary import FunctionNode, FunctionRecord, unit_summary
from jax_lsp.analysis.traced import all_params, positional_params
from jax_lsp.analysis.unit_memo import Keyed, per_unit


class KeyFacts(ModelFact):
    """The module's PRNG key facts (see the module docstring)."""

    def __init__(self, model: ModelView) -> None:
        super().__init__(model)
        self._key_helpers: dict[str, frozenset[str]] | None = None
        self._key_summaries: dict[str, KeySummary] | None = None
        self._module_reuses: dict[int, tuple[Reuse, ...]] | None = None

    @property
    def key_helpers(self) -> dict[str, frozenset[str]]:
        """Module functions a call can name (`named_by_calls`) -> the parameters whose key
        they consume (sample with or split), themselves or through other such functions of
        the module."""
        if self._key_helpers is None and not any(self._drawing):
            # No unit can draw or hand a key on (`_unit_key_helpers` asks each the same):
            # no helper, and the makers and drawers it would classify calls with are unread.
            self._key_helpers = KeyHelpers({})
        if self._key_helpers is None:
            helpers: dict[str, frozenset[str]] = {}
            for found in self.model.document.lineage.each_unit(
                _unit_key_helpers,
                self._sources,
                self.model.aliases,
                self.model.imported,
                self._keyed_makers,
                self.model.module_globals.initializer_globals,
                self._external_key_functions,
                self.rng_stream_drawers,
                self.quiet_linen_makers,
            ):
                helpers.update(found)
            self._key_helpers = KeyHelpers(self._helpers_through_calls(helpers))
        return self._key_helpers

    @cached_property
    def _keyed_makers(self) -> Keyed[dict[str, str]]:
        """`key_makers`, for per-unit computations."""
        return Keyed(self.key_makers, tuple(sorted(self.key_makers.items())))

    @cached_property
    def _external_key_functions(self) -> tuple[str, ...]:
        """The imported functions' spellings whose facts say they consume or derive from a
        key parameter."""
        return tuple(
            sorted(
                name
                for name, facts in (self.model.external or {}).items()
                if facts.consumed_keys or facts.derived_keys
            )
        )

    def _consumer_role(self, function: FunctionNode) -> Callable[[ast.Call], object]:
        """The role of a call in `function` as the module's key summaries start from
        (`consumer_role`)."""
        return consumer_role(
            function,
            self.model.aliases,
            self.model.module_globals.initializer_globals,
            self.key_makers,
            self.model.external,
            self.rng_stream_drawers,
            self.quiet_linen_makers,
        )

    @cached_property
    def rng_stream_drawers(self) -> frozenset[str]:
        """The module's top-level functions and classes whose code takes a key from haiku's
        stream (`hk.next_rng_key()`, ...), itself or through others of them it names: a
        haiku transform of one of them splits the key its `apply` is given."""
        if not self.model.resolver.binds_module("haiku"):
            return frozenset()
        defined: list[tuple[UnitSource, frozenset[str]]] = []
        drawers: set[str] = set()
        for unit in self.model.document.units:
            if unit.tree is None:
                continue
            names = frozenset(
                statement.name
                for statement in unit.tree.body
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            )
            if not names:
                continue
            source = unit.source
            if _draws_from_stream(source, self.model.aliases):
                drawers |= names
            else:
                defined.append((source, names))
        while defined:  # those naming a drawer draw too
            naming = [
                (source, names)
                for source, names in defined
                if not drawers.isdisjoint(source.words())
            ]
            if not naming:
                break
            for _, names in naming:
                drawers |= names
            defined = [entry for entry in defined if entry not in naming]
        return frozenset(drawers)

    @cached_property
    def quiet_linen_classes(self) -> frozenset[str]:
        """The module's flax linen module classes known to draw nothing when applied
        (`linen_draws.quiet_linen_classes`)."""
        if not self.model.resolver.binds_module("flax"):
            return frozenset()
        # Read only when a class of the module derives from a linen module.
        bound = (
            name
            for unit in self.model.document.units
            if unit.tree is not None
            for name in _bound_names(unit.source)
        )
        return quiet_linen_classes(
            self.model.classes,
            {p: r.node for p, r in self.model.functions.items() if "." not in p},
            bound,
            self.model.resolver,
            self.model.external,
            (self.model.aliases.key, self.model.imported.key),
        )

    @cached_property
    def quiet_linen_makers(self) -> frozenset[str]:
        """The names that make a flax linen module known to draw nothing when applied: the
        module's `quiet_linen_classes` and the imported classes whose facts say so."""
        imported = (n for n, facts in (self.model.external or {}).items() if facts.quiet_linen)
        return self.quiet_linen_classes.union(imported)

    @cached_property
    def key_makers(self) -> dict[str, str]:
        """Module-level names bound (every time, to the same maker) to an object a library
        call made whose methods draw from a key (`critic = hk.transform(f)`): name -> the
        maker's qualified name (`keys.LIBRARY_METHODS`)."""
        if not any(self.model.resolver.binds_module(root) for root in LIBRARY_MAKER_ROOTS):
            return {}
        assigned = self.model.module_globals.top_level_values
        return self.model.document.lineage.reuse(
            _key_makers,
            self.model.aliases,
            assigned,
            self.rng_stream_drawers,
            self.quiet_linen_makers,
        )

    @property
    def key_summaries(self) -> dict[str, KeySummary]:
        """Module functions a call can name -> what their callers see of their key
        parameters beyond consuming them (`KeySummary`): derived uses, keys returned after
        being consumed."""
        if self._key_summaries is None and not any(self._drawing):
            # A summary needs a key the function consumes (a key helper: none when no unit
            # may draw) or a library consumer its text names (`may_use_library_key`, which
            # `_may_draw` asks of the unit's text): none.
            self._key_summaries = {}
        if self._key_summaries is None:
            aliases, imported = self.model.aliases, self.model.imported
            passing = frozenset().union(
                *self.model.document.lineage.each_unit(_summary_candidates, self._sources, aliases)
            )
            candidates = [
                (name, record.node)
                for name, record in self.model.functions.items()
                if record.node in passing
            ]
            summaries: dict[str, KeySummary] = {}
            if not candidates:  # what the summaries read is not worked out for none
                self._key_summaries = summaries
                return summaries
            helpers = self.key_helpers
            makers, drawers = self._keyed_makers, self.rng_stream_drawers
            initializers = self.model.module_globals.initializer_globals
            source_of = self.model._source_of
            # With no summary known yet, a function of a unit that cannot draw (whose text
            # names no library consumer) has one only if it consumes a key (a key helper).
            drawing = dict(zip(map(id, self._sources), self._drawing, strict=True))
            known = _NO_SUMMARIES
            for _ in range(2):  # a derived use through one helper of the module
                found: dict[str, KeySummary] = {}
                for name, node in candidates:
                    source = source_of[node]
                    if known is _NO_SUMMARIES and not (
                        name in helpers or drawing.get(id(source), True)
                    ):
                        continue
                    summary = _function_key_summary(
                        source,
                        node,
                        helpers.get(name, frozenset()),
                        aliases,
                        imported,
                        makers,
                        initializers,
                        drawers,
                        known,
                    )
                    if summary is not None:
                        found[name] = summary
                if found == summaries:
                    break
                summaries = found
                known = self._known_summaries(summaries)
            self._key_summaries = summaries
        return self._key_summaries

    def _known_summaries(self, summaries: dict[str, KeySummary]) -> Keyed[KnownSummaries]:
        """`summaries` with the records of their functions, as a derived use through one of
        them reads them (`derived_helper_key`): keyed by what it reads of each."""
        functions = {path: self.model.functions[path] for path in summaries}
        key = tuple(
            (
                path,
                summary,
                functions[path].class_name,
                is_staticmethod(functions[path].node),
                tuple(positional_params(functions[path].node)),
            )
            for path, summary in sorted(summaries.items())
        )
        return Keyed((summaries, functions), intern_key(key))

    def _helpers_through_calls(
        self, helpers: dict[str, frozenset[str]]
    ) -> dict[str, frozenset[str]]:
        """Add the functions that hand a parameter to a key helper (a few rounds: helpers of
        helpers; deeper chains are rare and each round walks the candidates again)."""
        if not helpers:
            return helpers
        helpers = dict(helpers)
        functions = self.model.functions

        def classify(call: ast.Call, params: frozenset[str], base):
            found = base(call)
            return found or helper_key(call, functions, helpers, params, self.model.resolver)

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
                if isinstance(node, ast.Lambda) or not all_params(node):
                    continue
                if "." in name:
                    # A static method called through its class, or a class's `__init__`,
                    # which runs when the class is called.
                    if not named_by_calls(record):
                        continue
                    name = called_as(record)
                # Only a function whose text names a helper can call one.
                text = self.model._source_of[node].node_lines(node)
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

    @property
    def module_key_reuses(self) -> dict[int, tuple[Reuse, ...]]:
        """PRNG key reuses in module-level code (a script's top-level statements), by the
        first line of the unit holding the second use."""
        if self._module_reuses is None:
            reuses: dict[int, tuple[Reuse, ...]] = {}
            if self.model.resolver.binds_module("jax"):
                draws, free_draws = self.object_key_draws, self.global_key_draws
                flow = KeyFlow(
                    lambda call: (
                        object_key(call, draws)
                        or global_key(call, free_draws)
                        or classify_call(call, self.model.resolver, self.model)
                    ),
                    lambda path: opaque_global(
                        self.model.module_globals.global_values, path_root(path)
                    ),
                    self.model.resolver,
                    lambda call: returned_arguments(call, self.model),
                )
                state: dict = {}
                helpers = (
                    *self.key_helpers,
                    *{name.partition(".")[0] for name in draws},
                    *free_draws,
                )
                units = self.model.document.parsed_units
                # Which units name a key helper: the last version's answers for the units an
                # edit left alone (asked at every edit, where a look-up in each unit's memo
                # cost a pass over the module).
                naming = (
                    self.model.document.lineage.each_unit(_names_any, self._sources, helpers)
                    if helpers
                    else None
                )
                drawing = self._drawing
                if not any(drawing) and (naming is None or not any(naming)):
                    # Nothing samples a key or names a helper: the state stays empty, and no
                    # unit's code runs through the flow.
                    units = []
                for index, unit in enumerate(units):
                    text = unit.source.text
                    # A unit that neither samples nor names a tracked key or a key helper
                    # cannot change what matters of the state: skip it.
                    if not (
                        drawing[index]
                        or (state and any(_state_root(path) in text for path in state))
                        or (naming is not None and naming[index])
                    ):
                        continue
                    found = flow.run(unit.tree.body, state, unit.start_line)
                    if found:
                        reuses[unit.start_line] = tuple(found)
            self._module_reuses = reuses
        return self._module_reuses

    @cached_property
    def jit_aliases(self) -> dict[str, str]:
        """Module-level names bound once to a transformation that runs a key helper of the
        module with its arguments in place (`step = jax.jit(draw)`): name -> the helper."""
        helpers, summaries = self.key_helpers, self.key_summaries
        if not helpers and not summaries:
            return {}
        found = {}
        for name, value in self.model.module_globals.stable_globals.items():
            target = in_place_transformed(value, self.model.resolver)
            if target is None or target == name or name in self.model.functions:
                continue
            if target in helpers or target in summaries:
                found[name] = target
        return found

    @cached_property
    def global_key_draws(self) -> dict[str, str]:
        """Module functions (plain, undecorated) -> the module-level key they consume and
        never rebind: `def sample(n): return jax.random.normal(key, (n,))` draws from the
        global `key` as it is when called, so two calls with no split of `key` between them
        give the same numbers (the `np.random.seed` habit). Not a name any function rebinds
        through `global`."""
        found: dict[str, str] = {}
        for source, drawing in zip(self._sources, self._drawing, strict=True):
            if drawing:
                found.update(_unit_global_key_draws(source, self.model.aliases))
        rebound = self.model.module_globals.global_writes
        return {function: name for function, name in found.items() if name not in rebound}

    @cached_property
    def object_key_draws(self) -> dict[str, tuple[str, str]]:
        """Calls of module-level objects that draw from a key their class stores once:
        `noise` (its `__call__`) or `noise.sample` -> ("Noise.__call__", "key") when the
        method consumes `self.key`, which only `__init__` assigns (no other method, no code
        outside, no subclass): every such call draws the same numbers."""
        found: dict[str, tuple[str, str]] = {}
        by_class: dict[str, dict[str, str]] = {}
        instances = self.model.objects.instances
        # A class whose unit cannot draw stores no key it draws from (`_stored_key_draws`):
        # most are not looked at (the units that may draw are known for every edit).
        drawing = (
            {id(s) for s, may in zip(self._sources, self._drawing, strict=True) if may}
            if instances
            else set()
        )
        classes, source_of = self.model.classes, self.model._source_of
        for name, class_name in instances.items():
            if class_name not in by_class:
                record = classes.get(class_name)
                if record is not None and id(source_of[record.node]) not in drawing:
                    by_class[class_name] = {}
                    continue
                by_class[class_name] = self.stored_key_draws(class_name)
            for method, attribute in by_class[class_name].items():
                spelling = name if method == "__call__" else f"{name}.{method}"
                found[spelling] = (f"{class_name}.{method}", attribute)
        found.update(imported_object_key_draws(self.model))
        return found

    def stored_key_draws(self, class_name: str) -> dict[str, str]:
        """`_stored_key_draws` of a class of the module (memoised; empty for another name)."""
        found = self._stored_draws.get(class_name)
        if found is None:
            known = class_name in self.model.classes
            found = self._stored_key_draws(class_name) if known else {}
            self._stored_draws[class_name] = found
        return found

    @cached_property
    def _stored_draws(self) -> dict[str, dict[str, str]]:
        return {}

    @cached_property
    def drawing_classes(self) -> frozenset[str]:
        """The classes of the module whose code may draw from a key: the only ones whose
        methods `stored_key_draws` and `method_key_params` can find a draw in."""
        return frozenset(
            name
            for name, record in self.model.classes.items()
            if self._may_draw(self.model._source_of[record.node])
        )

    def method_key_params(self, class_name: str, method: str) -> frozenset[str]:
        """The parameters (after `self`) whose key a plain method of a class of the module
        consumes: itself, through a library layer the object stores (`self.drop(x,
        key=key)`), or through a key helper of the module. Memoised."""
        memo = self._method_keys
        found = memo.get((class_name, method))
        if found is None:
            found = memo[(class_name, method)] = self._method_key_params(class_name, method)
        return found

    @cached_property
    def _method_keys(self) -> dict[tuple[str, str], frozenset[str]]:
        return {}

    def _method_key_params(self, class_name: str, method: str) -> frozenset[str]:
        owner = self.model.classes.get(class_name)
        record = self.model.functions.get(f"{class_name}.{method}")
        if owner is None or record is None or record.class_name != class_name:
            return frozenset()
        node = record.node
        if isinstance(node, ast.Lambda | ast.AsyncFunctionDef) or node.decorator_list:
            return frozenset()  # a static, class or transformed method, a property: not plain
        positional = positional_params(node)
        if len(positional) < 2 or not self._may_draw(self.model._source_of[owner.node]):
            return frozenset()
        me = positional[0]
        resolver = self.model.resolver
        held = attribute_makers(owner.node, self.model.aliases)
        stored = {f"{me}.{a}": m for a, m in held.items()}
        base = self._consumer_role(node)
        params = frozenset(all_params(node))

        def role(call: ast.Call):
            found = base(call)
            if found is None and stored:
                found = library_key(call, resolver, stored)
            if found is None:
                found = helper_key(call, self.model.functions, self.key_helpers, params, resolver)
            return found

        return consumed_params(node, role) - {me}

    def _stored_key_draws(self, class_name: str) -> dict[str, str]:
        """Methods of the class -> the attribute of `self` holding a key that `__init__`
        alone assigns and the method consumes."""
        record = self.model.classes[class_name]
        if class_name in self.model.objects.subclassed or any(
            isinstance(base, ast.Name) and base.id in self.model.classes
            for base in record.node.bases
        ):
            return {}  # another class's methods may assign it
        if not self._may_draw(self.model._source_of[record.node]):
            return {}
        assigned, unknown = self.model.objects.self_assignments(record)
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
        outside = self.model.objects.assigned_outside(stored)
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
            drawn = drawn_self_attributes(member, lambda c: consumer_key(c, self.model.resolver))
            if len(drawn & stored) == 1:
                draws[name] = next(iter(drawn & stored))
        return draws

    @property
    def _sources(self) -> list[UnitSource]:
        """The parses of the units that have one (`Document.parsed_units`)."""
        return self.model.document.parsed_sources

    @cached_property
    def _drawing(self) -> list[bool]:
        """`_may_draw` of each of `_sources`."""
        return self.model.document.lineage.each_unit(
            _may_draw,
            self._sources,
            self.model.aliases,
            self.model.module_globals.initializer_globals,
            self._external_key_functions,
        )

    def _may_draw(self, source: UnitSource) -> bool:
        return _may_draw(
            source,
            self.model.aliases,
            self.model.module_globals.initializer_globals,
            self._external_key_functions,
        )


def _state_root(path: str) -> str:
    """The name a key flow's state entry is held under (a derived use's too)."""
    return path_root(path).partition("<")[0]


# `_own_makers` by function node: (the imports' key, the stream drawers and the quiet linen
# makers; name -> maker).
# Weak keys: a forgotten tree takes its entries along; the values hold no node.
_OWN_MAKERS: weakref.WeakKeyDictionary[ast.AST, tuple[tuple, dict[str, str]]] = (
    weakref.WeakKeyDictionary()
)


@per_unit
def _unit_global_key_draws(source: UnitSource, aliases: Keyed[Resolver]) -> dict[str, str]:
    draws = {}
    for statement in source.tree.body:
        if not isinstance(statement, ast.FunctionDef) or statement.decorator_list:
            continue
        drawn = drawn_free_names(statement, lambda c: consumer_key(c, aliases.value))
        if len(drawn) == 1:
            draws[statement.name] = next(iter(drawn))
    return draws


@per_unit
def _summary_candidates(source: UnitSource, aliases: Keyed[Resolver]) -> frozenset[FunctionNode]:
    """The unit's functions whose key summaries `key_summaries` looks for: named by calls,
    not lambdas, with parameters (found by record, for every function at each edit)."""
    return frozenset(
        record.node
        for record in unit_summary(source, aliases).functions
        if named_by_calls(record)
        and not isinstance(record.node, ast.Lambda)
        and has_params(record.node)
    )


@per_unit
def _bound_names(source: UnitSource) -> frozenset[str]:
    """The names the unit's top-level statements bind (`module_bound_names`): the
    module's are the union, asked again at every edit."""
    return module_bound_names([source.tree])


@per_unit
def _draws_from_stream(source: UnitSource, aliases: Keyed[Resolver]) -> bool:
    """Does the unit's code take a key from haiku's stream (`draws_from_stream`)?"""
    # Every spelling of a stream draw names `rng_key` (`next_rng_key`, ...).
    return "rng_key" in source.text and draws_from_stream(source.tree, aliases.value, frozenset())


@per_unit
def _names_any(source: UnitSource, names: tuple[str, ...]) -> bool:
    """Does the unit's text hold one of `names` (as a substring)?"""
    return any(name in source.text for name in names)


@per_unit
def _may_draw(
    source: UnitSource,
    aliases: Keyed[Resolver],
    initializers: frozenset[str],
    external_functions: tuple[str, ...],
) -> bool:
    """Can the unit's code draw from a key or hand one to a consumer (`_may_consume_keys`)?"""
    return _may_consume_keys(source.text, aliases.value, initializers, external_functions)


def _may_consume_keys(
    text: str, resolver: Resolver, initializers: frozenset[str], external_functions: tuple[str, ...]
) -> bool:
    """Can code with this text hand a key to a consumer: a sampler, a library consumer, a
    random initializer of the module, an imported function that consumes or derives from a
    key (`external_functions`)?"""
    if may_draw(text, resolver) or may_use_library_key(text):
        return True
    if any(name in text for name in initializers):
        return True
    return any(name.partition(".")[0] in text for name in external_functions)


@per_unit
def _unit_key_helpers(
    source: UnitSource,
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    makers: Keyed[dict[str, str]],
    initializers: frozenset[str],
    external_functions: tuple[str, ...],
    drawers: frozenset[str],
    quiet: frozenset[str],
) -> dict[str, frozenset[str]]:
    """The unit's module functions a call can name -> the parameters whose key they consume
    themselves (`KeyFacts.key_helpers` adds those they pass to other helpers)."""
    resolver = aliases.value
    # The unit's answer memoised (`global_key_draws` asks the same of every unit).
    if not _may_draw(source, aliases, initializers, external_functions):
        return {}
    helpers = {}
    for record in unit_summary(source, aliases).functions:
        node = record.node
        if isinstance(node, ast.Lambda) or not all_params(node) or not named_by_calls(record):
            continue
        # Only a function whose own text can name a consumer passes a key to one.
        text = source.node_lines(node)
        if not _may_consume_keys(text, resolver, initializers, external_functions):
            continue
        role = consumer_role(
            node, aliases, initializers, makers.value, imported.value, drawers, quiet
        )
        if drawn := consumed_params(node, role):
            helpers[called_as(record)] = drawn
    return helpers


# Key summaries known so far, with the records of their functions (`_known_summaries`).
KnownSummaries = tuple[dict[str, KeySummary], dict[str, FunctionRecord]]
_NO_SUMMARIES: Keyed[KnownSummaries] = Keyed(({}, {}), intern_key(()))


@per_unit
def _function_key_summary(
    source: UnitSource,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    consumed: frozenset[str],
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    makers: Keyed[dict[str, str]],
    initializers: frozenset[str],
    drawers: frozenset[str],
    known: Keyed[KnownSummaries],
) -> KeySummary | None:
    """What the callers of a module function (`node`, of the unit) see of its key
    parameters (`KeyFacts.key_summaries`), given the parameters it consumes and the
    summaries found so far (`known`): None when nothing."""
    returned = returned_keys(node, consumed)
    derived: tuple = ()
    summaries, functions = known.value
    text = source.node_lines(node)
    if may_use_library_key(text) or any(h in text for h in summaries):
        base = consumer_role(node, aliases, initializers, makers.value, imported.value, drawers)

        def role(call: ast.Call) -> object:
            found_role = base(call)
            if found_role is None and summaries:
                found_role = derived_helper_key(call, functions, summaries)
            return found_role

        derived = derived_params(node, role)
    if returned or derived:
        return KeySummary(derived, returned)
    return None


def consumer_role(
    function: FunctionNode,
    aliases: Keyed[Resolver],
    initializers: frozenset[str],
    makers: dict[str, str],
    external: Mapping[str, ExternalFacts] | None,
    drawers: frozenset[str] = frozenset(),
    quiet: frozenset[str] = frozenset(),
) -> Callable[[ast.Call], object]:
    """The role of a call in `function` as the module's key summaries start from: what a
    sampler, a library consumer, a random initializer of the module (`initializers`) or an
    imported function draws with (no helper of the module: `_helpers_through_calls` adds
    those); `makers`: the module-level names bound to library objects (`key_makers`);
    `drawers`: the module's functions and classes drawing from haiku's key stream; `quiet`:
    the names making flax linen modules that draw nothing (`KeyFacts.quiet_linen_makers`)."""
    resolver = aliases.value
    function_makers: dict[str, str] | None = None

    def role(call: ast.Call):
        nonlocal function_makers
        found = consumer_key(call, resolver)
        if found is not None:
            return found
        func = call.func
        if (type(func) is ast.Call and makes_random_initializer(func, resolver)) or (
            type(func) is ast.Name and func.id in initializers and not resolver.qualname(func)
        ):
            return key_argument(call)  # a random initializer draws from its key
        if function_makers is None:
            function_makers = _function_makers(function, aliases, makers, drawers, quiet)
        found = library_key(call, resolver, function_makers, drawers)
        if found is None and external:
            found = external_key(call, external)
        return found

    return role


def _function_makers(
    function: FunctionNode,
    aliases: Keyed[Resolver],
    makers: dict[str, str],
    drawers: frozenset[str],
    quiet: frozenset[str],
) -> dict[str, str]:
    """Names bound to library objects where `function`'s body runs: its own and the
    module's (`makers`)."""
    if isinstance(function, ast.Lambda):
        return makers
    local = _own_makers(function, aliases, drawers, quiet)
    return {**makers, **local} if local else makers


def _own_makers(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    aliases: Keyed[Resolver],
    drawers: frozenset[str],
    quiet: frozenset[str],
) -> dict[str, str]:
    """`library_makers` of the function's body, memoised on its node and the module's
    imports: a fact of its subtree and the imports alone, which every key summary and key
    helper asks again at each edit. On the node, not its unit: an edit in one method shares
    the other methods' nodes with the last parse (`document._splice_member`)."""
    inputs = (aliases.key, drawers, quiet)
    known = _OWN_MAKERS.get(function)
    if known is not None and known[0] == inputs:
        return known[1]
    found = library_makers(function.body, aliases.value, drawers, quiet)
    _OWN_MAKERS[function] = (inputs, found)
    return found


def _key_makers(
    aliases: Keyed[Resolver],
    assigned: dict[str, list[ast.expr]],
    drawers: frozenset[str],
    quiet: frozenset[str],
) -> dict[str, str]:
    """`KeyFacts.key_makers` of the module's top-level assignments."""
    statements = [
        ast.Assign([ast.Name(name, ast.Store())], value)
        for name, values in assigned.items()
        for value in values
    ]
    return library_makers(statements, aliases.value, drawers, quiet)
