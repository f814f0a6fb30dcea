"""Module-level state as the purity rules see it: which names are local to a function, which
module-level names hold containers, and which change after traced code may have read them.

A global read inside `jax.jit` is only stale if the value changes after the first trace. So a
name counts as changing when a function rebinds it through `global` or mutates it, or when
top-level code rebinds or mutates it after a top-level call that follows the reading function.
Bindings at import time (`if`/`else` choices, `CONFIG["k"] = v` right after `CONFIG = {}`) are
not changes. Nor is a rebinding after which no function traced before it can run again: a
notebook cell run again with new settings defines its functions anew (a new jit, traced with
the new values) before calling them, and the old ones are left behind.
"""

from __future__ import annotations

import ast
import weakref
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Protocol

from jax_lsp.analysis.document import Document, UnitSource
from jax_lsp.analysis.free_writes import mutated_name
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import child_nodes, scope_nodes, walk_nodes
from jax_lsp.analysis.summary import FunctionNode, UnitSummary, unit_summary
from jax_lsp.analysis.traced import all_params
from jax_lsp.analysis.unit_memo import Keyed, per_unit
from jax_lsp.compat import TRY_STATEMENTS


class StateInputs(Protocol):
    """What the module state reads of the module's model (`ModuleModel` is one)."""

    document: Document
    summaries: list[UnitSummary]
    resolver: Resolver
    aliases: Keyed[Resolver]
    global_kinds: dict[str, Kind]
    mutable_globals: frozenset[str]


class _HasResolver(Protocol):
    resolver: Resolver


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DEFINITIONS = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)
_CONTAINER_CALLS = frozenset(
    [
        "builtins.list",
        "builtins.dict",
        "builtins.set",
        "collections.defaultdict",
        "collections.OrderedDict",
        "collections.deque",
        "collections.Counter",
    ]
)


def declared_outside(function: FunctionNode) -> frozenset[str]:
    """Names a function declares `global` or `nonlocal`."""
    if isinstance(function, ast.Lambda):
        return frozenset()
    # `global` and `nonlocal` are statements, and statements sit only in statements (their
    # bodies, handlers and match cases): expressions need no walk.
    names: set[str] = set()
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
        elif not isinstance(node, _SCOPES):
            stack.extend(c for c in child_nodes(node) if isinstance(c, _HOLDS_STATEMENTS))
    return frozenset(names)


def bound_names(function: FunctionNode) -> frozenset[str]:
    """Parameters and names the function binds itself (nested scopes count too: quieter)."""
    names = set(all_params(function))
    if isinstance(function, ast.Lambda):
        return frozenset(names)
    for node in walk_nodes(function):
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:  # Store or Del
                names.add(node.id)
        elif node is function:
            continue
        elif kind in _DEFINITIONS:
            names.add(node.name)
        elif kind is ast.arg:
            names.add(node.arg)
        elif kind is ast.alias:
            names.add(node.asname or node.name.split(".")[0])
    return frozenset(names - declared_outside(function))


_READ_NAMES: weakref.WeakKeyDictionary[ast.AST, frozenset[str]] = weakref.WeakKeyDictionary()


def _read_names(definition: ast.AST) -> frozenset[str]:
    """Names read anywhere in a definition (its body, nested functions too): what it may call
    when it runs."""
    found = _READ_NAMES.get(definition)
    if found is None:
        found = _READ_NAMES[definition] = frozenset(
            child.id
            for child in walk_nodes(definition)
            if type(child) is ast.Name and type(child.ctx) is ast.Load
        )
    return found


def is_container_value(value: ast.expr, model: _HasResolver) -> bool:
    """A list/dict/set display, comprehension, or `list()`/`dict()`/`defaultdict()` call."""
    if isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp):
        return True
    return isinstance(value, ast.Call) and model.resolver.qualname(value.func) in _CONTAINER_CALLS


_Event = tuple[str, str | frozenset[str], str | None, frozenset[str]]
_NOTHING: frozenset[str] = frozenset()
_DATA_KINDS = frozenset((Kind.ARRAY, Kind.NUMPY, Kind.STATIC))


@dataclass(frozen=True)
class _UnitFacts:
    # Top-level events in order: ("bind", name, constant, mentions), ("mutate", name, None,
    # {}), ("def", name, None, {}) or ("call", the module names a statement's calls mention:
    # `f` in `f(x)`, `step` in `jax.jit(step)(x)`, None, {}). `constant` names a value that
    # cannot differ between two bindings (`P = jax.sharding.PartitionSpec`, `N = 3`), else
    # None; `mentions` are the names the bound value reads.
    events: tuple[_Event, ...]
    defined: frozenset[str]  # names bound by def, class or import at module level
    code: frozenset[str]  # names bound by def or class
    # Top-level names bound from values that mention these names (`model = MLP(3)`).
    derived: tuple[tuple[str, frozenset[str]], ...]
    containers: frozenset[str]  # names bound at module level to a container value
    others: frozenset[str]  # names bound at module level to anything else
    # Names bound at module level to a call of a name the module may define (`a = A({})`),
    # with that name; and the names bound to anything else (a container, a value, a loop).
    objects: tuple[tuple[str, str], ...]
    not_objects: frozenset[str]
    runtime_writes: frozenset[str]  # rebound through `global` or mutated inside a function
    # Undecorated top-level functions (`def f`), and the module names top-level code uses other
    # than by calling them at once (`f(x)`, `jax.jit(f)(x)`): a stored `step = jax.jit(f)`, an
    # argument `run(f)`. A plain function no top-level code stores holds no compiled code of
    # its own: it runs again only where a later statement names it.
    plain_functions: frozenset[str] = frozenset()
    escaping: frozenset[str] = frozenset()
    # What its top-level functions write only as set-up (`FreeWrites.set_up`): not a change a
    # trace can miss if the module runs the function once, before anything else of its own.
    set_up_writes: tuple[tuple[str, str, frozenset[str]], ...] = ()
    # The definitions of the "def" events, in order: what they read is looked at only when a
    # change follows a call (scripts, notebooks), so an edit inside a body keeps the facts.
    definitions: tuple[ast.AST, ...] = field(default=(), compare=False)


class _UnitScanner:
    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.events: list[_Event] = []
        self.defined: set[str] = set()
        self.code: set[str] = set()
        self.derived: list[tuple[str, frozenset[str]]] = []
        self.containers: set[str] = set()
        self.others: set[str] = set()
        self.objects: list[tuple[str, str]] = []
        self.not_objects: set[str] = set()
        self.runtime_writes: set[str] = set()
        self.definitions: list[ast.AST] = []
        self.plain_functions: set[str] = set()
        self.escaping: set[str] = set()

    def scan(
        self,
        tree: ast.Module,
        free_writes: frozenset[str],
        set_up_writes: tuple[tuple[str, str, frozenset[str]], ...],
    ) -> _UnitFacts:
        self.block(tree.body)
        self.runtime_writes = set(free_writes)
        return _UnitFacts(
            tuple(self.events),
            frozenset(self.defined),
            frozenset(self.code),
            tuple(self.derived),
            frozenset(self.containers),
            frozenset(self.others),
            tuple(self.objects),
            frozenset(self.not_objects),
            frozenset(self.runtime_writes),
            frozenset(self.plain_functions),
            frozenset(self.escaping),
            set_up_writes,
            tuple(self.definitions),
        )

    def block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self._calls_in(node.decorator_list)
            self.defined.add(node.name)
            self.code.add(node.name)
            self.events.append(("def", node.name, None, _NOTHING))
            self.definitions.append(node)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list:
                self.plain_functions.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                self.defined.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.If | ast.While):
            self._calls_in([node.test])
            loops = 2 if isinstance(node, ast.While) else 1
            for _ in range(loops):
                self.block(node.body)
            self.block(node.orelse)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self._calls_in([node.iter])
            for _ in range(2):  # twice: a later iteration follows the calls of an earlier one
                self._bind(node.target, None)
                self.block(node.body)
            self.block(node.orelse)
        elif isinstance(node, TRY_STATEMENTS):
            self.block(node.body)
            for handler in node.handlers:
                self.block(handler.body)
            self.block(node.orelse)
            self.block(node.finalbody)
        elif isinstance(node, ast.With | ast.AsyncWith):
            self._calls_in([item.context_expr for item in node.items])
            self.block(node.body)
        else:
            self._simple(node)

    def _simple(self, node: ast.stmt) -> None:
        self._calls_in([node])
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            self._bind(node.target, None)
        for child in walk_nodes(node):
            name = mutated_name(child)
            if name is not None:
                self.events.append(("mutate", name, None, _NOTHING))

    def _bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            mentions = self._module_names(value) if value is not None else _NOTHING
            self.events.append(("bind", target.id, self._constant(value), mentions))
            if value is not None:
                self.derived.append((target.id, mentions))
            if value is not None and is_container_value(value, self):
                self.containers.add(target.id)
            else:
                self.others.add(target.id)
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and self.resolver.qualname(value.func) is None
            ):
                self.objects.append((target.id, value.func.id))
            else:
                self.not_objects.add(target.id)
        elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
            for element in target.elts if not isinstance(target, ast.Starred) else [target.value]:
                self._bind(element, None)

    def _calls_in(self, nodes: list[ast.AST]) -> None:
        for node in nodes:
            self._note_escaping(node)
            if any(isinstance(child, ast.Call) for child in scope_nodes([node])):
                names = self._module_names(node)
                if names:
                    self.events.append(("call", names, None, _NOTHING))

    def _note_escaping(self, node: ast.AST) -> None:
        """The names read in `node` other than as a callee called at once: `f` in `f(x)` and
        in `jax.jit(f)(x)` (a wrapper made, called and dropped) does not escape."""
        called: set[int] = set()
        for child in scope_nodes([node]):
            if not isinstance(child, ast.Call):
                continue
            called.add(id(child.func))
            inner = child.func
            if isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords:
                called.add(id(inner.args[0]))  # `jax.jit(f)(x)`
        self.escaping.update(
            child.id
            for child in scope_nodes([node])
            if isinstance(child, ast.Name)
            and isinstance(child.ctx, ast.Load)
            and id(child) not in called
        )

    def _constant(self, value: ast.expr | None) -> str | None:
        """The same value every time it is evaluated: an immutable literal, or an imported
        name or attribute path (`jax.sharding.PartitionSpec`)."""
        if isinstance(value, ast.Constant) and not isinstance(value.value, type(...)):
            return repr(value.value)
        if isinstance(value, ast.Name | ast.Attribute):
            qualname = self.resolver.qualname(value)
            return f"import {qualname}" if qualname else None
        return None

    def _module_names(self, node: ast.AST) -> frozenset[str]:
        """Names read here that are not imports or builtins (so may be this module's)."""
        return frozenset(
            child.id
            for child in scope_nodes([node])
            if isinstance(child, ast.Name)
            and isinstance(child.ctx, ast.Load)
            and self.resolver.qualname(child) is None
        )


def _called_at_once(facts: tuple[_UnitFacts, ...]) -> frozenset[str]:
    """Undecorated top-level functions only ever called at once by top-level code, never
    stored, passed nor bound otherwise."""
    plain = frozenset().union(*(f.plain_functions for f in facts))
    escaping = frozenset().union(*(f.escaping for f in facts))
    bound_otherwise = {
        name
        for f in facts
        for tag, name, _, _ in f.events
        if tag == "bind" and isinstance(name, str)
    }
    return plain - escaping - bound_otherwise


class _Reach:
    """Which module code may run again after an event: a function or value bound before it,
    still the one its name holds, that a later call names (or a later definition reads)
    before the name is bound again, or that is the name's last binding (importers call it);
    and, through what each of these reads, the code it may run (a jit of `step` holds the
    trace of the `step` it was made of)."""

    def __init__(self, facts: tuple[_UnitFacts, ...], code: frozenset[str]) -> None:
        self._code = code
        # Functions only ever called at once by top-level code, never stored nor decorated:
        # their last binding runs again only where later code names it.
        self._called_at_once = _called_at_once(facts)
        self._binds: dict[str, list[int]] = {}  # name -> event numbers binding it
        self._reads: dict[str, list[frozenset[str]]] = {}  # what each of those reads
        self._uses: dict[str, list[int]] = {}  # name -> event numbers that may run it
        events = []
        for unit_facts in facts:
            definitions = iter(unit_facts.definitions)
            for tag, payload, _, mentions in unit_facts.events:
                if tag == "def":
                    mentions = _read_names(next(definitions))
                events.append((tag, payload, mentions))
        for number, (tag, payload, mentions) in enumerate(events):
            if tag == "call":
                uses = payload & code
            else:
                uses = mentions & code
                if tag in ("bind", "def") and isinstance(payload, str):
                    self._binds.setdefault(payload, []).append(number)
                    self._reads.setdefault(payload, []).append(mentions)
            for name in uses:
                self._uses.setdefault(name, []).append(number)

    def after(self, event: int) -> frozenset[str]:
        """Names whose binding at `event` may run after it, with everything it reads."""
        held: dict[str, frozenset[str]] = {}  # name -> what its binding at `event` reads
        for name, binds in self._binds.items():
            if name not in self._code:
                continue  # data, or a name no code was bound to: nothing of it runs
            at = bisect_right(binds, event)
            if at:
                held[name] = self._reads[name][at - 1]
        pending = [name for name in held if self._runs_again(name, event)]
        reached = set(pending)
        while pending:
            for read in held.get(pending.pop(), _NOTHING):
                if read in held and read not in reached:
                    reached.add(read)
                    pending.append(read)
        return frozenset(reached)

    def _runs_again(self, name: str, event: int) -> bool:
        binds = self._binds[name]
        at = bisect_right(binds, event)
        uses = self._uses.get(name, [])
        first_use = bisect_right(uses, event)
        if at == len(binds):
            if name in self._called_at_once:
                # No jit of it outlives the statement that made it: it runs again only
                # where later code names it.
                return first_use < len(uses)
            return True  # its last binding: later code and importers reach it
        return first_use < len(uses) and uses[first_use] < binds[at]


def _reached_after(
    facts: tuple[_UnitFacts, ...],
    changes: dict[str, tuple[tuple[int, int], ...]],
    code: frozenset[str],
) -> dict[str, tuple[tuple[int, frozenset[str]], ...]]:
    """Per changed name: the units of the calls before its changes, each with the module
    code that may run after the change (what the traces made before it may hold)."""
    reach = _Reach(facts, code)
    result: dict[str, tuple[tuple[int, frozenset[str]], ...]] = {}
    for name, pairs in changes.items():
        calls: dict[int, frozenset[str]] = {}
        for call_unit, event in pairs:
            reached = reach.after(event)
            if reached:
                calls[call_unit] = calls.get(call_unit, _NOTHING) | reached
        if calls:
            result[name] = tuple(sorted(calls.items()))
    return result


class ModuleState:
    """Facts about one module's top-level names, computed once per model.

    `key` is part of every unit's cache key: a reader's findings depend on other units.
    """

    def __init__(self, model: StateInputs) -> None:
        # No reference back to the model: it holds this object (a cycle only the cycle
        # collector frees), and copies of it share this object (`ModuleModel.of`).
        self._mutable_globals = model.mutable_globals
        units = model.document.parsed_units
        self._index = {id(unit.tree): index for index, unit in enumerate(units)}
        facts = tuple([_unit_facts(unit.source, model.aliases) for unit in units])
        # The same facts in the same order (a keystroke inside a function body): the same state.
        (
            self.defined,
            self.runtime_writes,
            self.containers,
            self.objects,
            changes,
            reachable,
            self._unit_names,
            self.key,
        ) = model.document.lineage.reuse(_combined, facts)
        # Read after the facts are combined: it reads what the functions' bodies name, which
        # an edit inside a body changes without changing the facts.
        late = self._set_up_too_late(facts, reachable)
        if late:
            self.runtime_writes = self.runtime_writes | late
            self.key = (self.key, late)
        self._last_call: dict[str, tuple[tuple[int, frozenset[str]], ...]] = {}
        if changes:  # a change after a call: which code may run after it (bodies read now)
            # Module-level names holding data (arrays, Python values): no code of theirs runs.
            data = frozenset(n for n, kind in model.global_kinds.items() if kind in _DATA_KINDS)
            self._last_call = _reached_after(facts, changes, reachable - data)
            self.key = (self.key, tuple(sorted(self._last_call.items())))

    @classmethod
    def _combine(cls, facts: tuple[_UnitFacts, ...]) -> tuple:
        defined = frozenset().union(*(f.defined for f in facts))
        runtime_writes = frozenset().union(*(f.runtime_writes for f in facts))
        containers = frozenset().union(*(f.containers for f in facts))
        others = frozenset().union(*(f.others for f in facts))
        containers = containers - others - defined
        objects = cls._objects(facts, defined)
        code = cls._module_code(facts)
        changes = cls._changes_after_calls(facts, code)
        # What each unit binds at top level: a reader there is stale only if one of these
        # (or what holds it) may run again after the change.
        unit_names = tuple(
            frozenset(event[1] for event in f.events if event[0] in ("bind", "def")) for f in facts
        )
        key = (
            tuple(sorted(changes.items())),
            runtime_writes,
            containers,
            tuple(sorted(objects.items())),
            defined,
        )
        return defined, runtime_writes, containers, objects, changes, code, unit_names, key

    @staticmethod
    def _objects(facts: tuple[_UnitFacts, ...], defined: frozenset[str]) -> dict[str, str]:
        """Module-level names every binding of which calls the same name (`a = A({})`), with
        that name (a class of the module makes them objects that outlive any trace)."""
        called: dict[str, set[str]] = {}
        for unit_facts in facts:
            for name, callee in unit_facts.objects:
                called.setdefault(name, set()).add(callee)
        others = frozenset().union(*(f.not_objects for f in facts)) | defined
        return {
            name: next(iter(callees))
            for name, callees in called.items()
            if len(callees) == 1 and name not in others
        }

    @staticmethod
    def _module_code(facts: tuple[_UnitFacts, ...]) -> frozenset[str]:
        """Functions and classes of the module, and names bound from them (`step =
        jax.jit(train)`, `model = MLP(3)`): calling these may run traced code."""
        code = set().union(*(f.code for f in facts))
        for unit_facts in facts:
            for name, mentions in unit_facts.derived:
                if mentions & code:
                    code.add(name)
        return frozenset(code)

    @staticmethod
    def _set_up_too_late(facts: tuple[_UnitFacts, ...], code: frozenset[str]) -> frozenset[str]:
        """The names written as set-up (`_UnitFacts.set_up_writes`) that a trace may still
        see change. A write is early enough when its function reads nothing of the module's
        code before it, and runs once before any other of that code: called at once by one
        top-level statement outside any loop, the first statement to call the module's code,
        and named nowhere else (no other function, nothing storing or passing it)."""
        writes = [write for unit_facts in facts for write in unit_facts.set_up_writes]
        if not writes:
            return _NOTHING
        first_call: frozenset[str] | None = None  # the module code the first call names
        calls: dict[str, int] = {}  # function -> the top-level statements calling it
        for unit_facts in facts:
            for tag, payload, _, _ in unit_facts.events:
                if tag != "call" or not isinstance(payload, frozenset):
                    continue
                named = payload & code
                if named and first_call is None:
                    first_call = named
                for name in named:
                    calls[name] = calls.get(name, 0) + 1
        called_at_once = _called_at_once(facts)
        definitions = [d for f in facts for d in f.definitions]

        def early(function: str, read: frozenset[str]) -> bool:
            return (
                not read & code
                and function in called_at_once
                and first_call == {function}
                and calls.get(function) == 1
                and not any(
                    function in _read_names(definition)
                    for definition in definitions
                    if getattr(definition, "name", None) != function
                )
            )

        return frozenset(name for name, function, read in writes if not early(function, read))

    @staticmethod
    def _changes_after_calls(
        facts: tuple[_UnitFacts, ...], code: frozenset[str]
    ) -> dict[str, tuple[tuple[int, int], ...]]:
        """Per name: each rebinding or mutation of it that follows a top-level call of module
        code made after a binding of it, as (the unit of the latest such call, the event
        number of the change)."""
        first_bound: dict[str, int] = {}  # name -> event number of its first binding
        first_constant: dict[str, str | None] = {}  # name -> the constant it was first bound to
        last_call: tuple[int, int] | None = None  # (event number, unit index)
        found: dict[str, list[tuple[int, int]]] = {}
        number = -1
        for unit_index, unit_facts in enumerate(facts):
            for tag, payload, constant, _ in unit_facts.events:
                number += 1
                if isinstance(payload, frozenset):  # a call
                    if payload & code:
                        last_call = (number, unit_index)
                    continue
                if tag == "def":
                    continue
                if constant is not None and first_constant.get(payload) == constant:
                    continue  # bound again to the same constant: the value does not change
                if payload in first_bound and last_call and first_bound[payload] < last_call[0]:
                    found.setdefault(payload, []).append((last_call[1], number))
                first_bound.setdefault(payload, number)
                first_constant.setdefault(payload, constant)
        return {name: tuple(changes) for name, changes in found.items()}

    def changing_globals(self, unit_tree: ast.AST) -> frozenset[str]:
        """Module-level values that may change after functions of this unit were traced: a
        call after the unit traced them, then a change, after which what the unit binds may
        run again (a unit binding nothing, a top-level expression, counts as running)."""
        index = self._index.get(id(unit_tree), 0)
        names = self._unit_names[index] if index < len(self._unit_names) else _NOTHING
        changed = {
            name
            for name, calls in self._last_call.items()
            if any(call > index and (not names or names & reached) for call, reached in calls)
        }
        return frozenset((changed | self.runtime_writes) & self._mutable_globals) - (self.defined)


@per_unit
def _unit_facts(source: UnitSource, aliases: Keyed[Resolver]) -> _UnitFacts:
    summary = unit_summary(source, aliases)
    return _UnitScanner(aliases.value).scan(source.tree, summary.free_writes, summary.set_up_writes)


def _combined(facts: tuple[_UnitFacts, ...]) -> tuple:
    """`ModuleState._combine`, as the lineage keeps it."""
    return ModuleState._combine(facts)
