"""PRNG key reuse: a small flow walk over one scope, tracking which key names were consumed.

What consumes a key follows JAX's own checker (`jax.experimental.key_reuse`): a `jax.random`
sampler and `jax.random.split` consume their key (`random_bits` and `random_split` are sinks
there), and so does an equinox layer built with `key=`; `fold_in`, `clone` and `key_data` do
not; a helper of this module that consumes its
key parameter consumes the argument. Rebinding the name (`key, sub = jax.random.split(key)`,
a loop target) makes it fresh.
A key is followed by its access path: a name, or an attribute or constant subscript of one
(`self.key`, `state.key`, `state["key"]`, `keys[0]`). Rebinding or subscript-assigning the
root, assigning the path or a prefix of it, handing the root to an unknown function or
calling a method on it (`self.reset()`, `state.update(...)`) makes every path under it fresh.
Exclusive branches start from the same state and merge afterwards; loop bodies are walked
twice, so a key drawn from in the body and never rebound there is reported on the second
pass (every iteration draws the same numbers). A key handed to an unknown function is
*unsure*: the next draw is not reported, the one after is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.key_calls import NONE as NONE

# The rules and the key facts ask these here, beside the key flow.
from jax_lsp.analysis.key_calls import called_as as called_as
from jax_lsp.analysis.key_calls import helper_key as helper_key
from jax_lsp.analysis.key_calls import helper_path, spared_by_imported
from jax_lsp.analysis.key_calls import key_conditions as key_conditions
from jax_lsp.analysis.key_calls import method_argument as method_argument
from jax_lsp.analysis.key_calls import named_by_calls as named_by_calls
from jax_lsp.analysis.key_consumers import (
    DerivedKey,
    KeySummary,
    arguments_by_param,
    given_values,
    library_key,
    root_name,
    store_counts,
)
from jax_lsp.analysis.key_consumers import attribute_makers as attribute_makers
from jax_lsp.analysis.key_consumers import library_makers as library_makers
from jax_lsp.analysis.key_consumers import may_use_library_key as may_use_library_key
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.names import local_names
from jax_lsp.analysis.nodes import (
    argument_of,
    child_nodes,
    dotted_name,
    own_returns,
    runs_at_least_once,
    scope_nodes,
    walk_nodes,
)
from jax_lsp.analysis.static_tests import constant_test
from jax_lsp.analysis.summary import FunctionRecord
from jax_lsp.analysis.text import contains_word
from jax_lsp.analysis.traced import all_params, positional_params
from jax_lsp.analysis.transforms import REPEATING_LOOPS
from jax_lsp.compat import TRY_STATEMENTS

SAMPLERS = frozenset(
    f"jax.random.{name}"
    for name in [
        "ball",
        "bernoulli",
        "beta",
        "binomial",
        "bits",
        "categorical",
        "cauchy",
        "chisquare",
        "choice",
        "dirichlet",
        "double_sided_maxwell",
        "exponential",
        "f",
        "gamma",
        "generalized_normal",
        "geometric",
        "gumbel",
        "laplace",
        "loggamma",
        "logistic",
        "lognormal",
        "maxwell",
        "multinomial",
        "multivariate_normal",
        "normal",
        "orthogonal",
        "pareto",
        "permutation",
        "poisson",
        "rademacher",
        "randint",
        "rayleigh",
        "shuffle",
        "t",
        "triangular",
        "truncated_normal",
        "uniform",
        "wald",
        "weibull_min",
    ]
)
# What JAX's key-reuse checker counts as consuming a key: samplers and `split`.
CONSUMERS = SAMPLERS | {"jax.random.split"}
# Factories of random initializers (`jax.nn.initializers.lecun_normal()`, re-exported by flax):
# what they make is called `init(key, shape, dtype)` and draws from `key` with a sampler.
_INITIALIZER_MODULES = (
    "jax.nn.initializers.",
    "flax.linen.initializers.",
    "flax.nnx.initializers.",
)
_RANDOM_INITIALIZERS = frozenset(
    {
        *("delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform"),
        *("kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal"),
        *("orthogonal", "truncated_normal", "uniform", "variance_scaling", "xavier_normal"),
        "xavier_uniform",
    }
)
# Calls into these never consume a key (fold_in/clone derive new keys, jnp computes).
_NON_CONSUMING_PREFIXES = ("jax.random.", "jax.numpy.", "jax.lax.", "builtins.", "numpy.", "math.")
_UNSURE = "unsure"
PASS = "pass"
_TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

# access path -> the call that consumed it (or _UNSURE). Paths absent are fresh or not keys.
# A state holding a path beyond a bare name also holds _PATHS: without it, forgetting a name
# has no paths under it to look for. A consumed path that was reused also holds its `Ways`
# under `path + _REUSED` (absent: `_NOT_REUSED`).
State = dict[str, object]
_PATHS = "<paths>"
_REUSED = "<reused>"
# The ways to a place, as the reuses of one consumption each met (only the fewest matter: a
# way that met more than another is covered by it).
Ways = frozenset[frozenset[ast.Call]]
_NOT_REUSED: Ways = frozenset({frozenset()})  # one way, with no reuse on it
_MAX_WAYS = 16  # more (branches upon branches): forgotten, as if none met a reuse


def key_path(node: ast.expr) -> str | None:
    """The access path a key expression reads: `key`, `self.key`, `state['key']`,
    `keys[0]`; None for anything else (a call, a computed index)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = key_path(node.value)
        return None if base is None else f"{base}.{node.attr}"
    if isinstance(node, ast.Subscript):
        index = node.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, str | int):
            base = key_path(node.value)
            return None if base is None else f"{base}[{index.value!r}]"
    return None


def path_root(path: str) -> str:
    """The name an access path starts from."""
    end = len(path)
    for mark in ".[":
        at = path.find(mark)
        if at != -1:
            end = min(end, at)
    return path[:end]


def _reads_attribute(node: ast.expr) -> bool:
    """An access path with an attribute read in it (`gen.rng`, `s.keys[0]`), not only
    subscripts of a name (`state["key"]`)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            return True
        node = node.value
    return False


def opaque_global(global_values: Mapping[str, object], name: str) -> bool:
    """A module-level name bound to a value the model knows nothing of (an instance of a
    class it cannot see, a call's result): what its attributes hold is unknown."""
    return global_values.get(name, Kind.ARRAY) is Kind.UNKNOWN


@dataclass(frozen=True)
class Reuse:
    call: ast.Call  # the second draw
    key: ast.expr  # its key argument: a name or an access path (`self.key`, `s["key"]`)
    first: ast.Call  # the draw that consumed the key before
    across_iterations: bool
    # The document line of the unit holding `first` (module-level flows cross units).
    first_unit: int = 0
    first_key: ast.expr | None = None  # the argument `first` consumed the key through
    # A loop body that consumes a key of its carry and returns it unchanged: the next
    # iteration receives the consumed key.
    carried: bool = False
    # The draw sits in a comprehension: it runs once per element, and no statement can be
    # inserted before it.
    in_comprehension: bool = False
    # The names the enclosing comprehensions and `for` loops bind for each element (`a` in
    # `for a in xs`).
    item_names: frozenset[str] = frozenset()
    # A loop body builds the key from a constant seed (`normal(jax.random.key(0), shape)`):
    # every iteration builds the same key.
    rebuilt: bool = False
    # Both uses derive their numbers from the key the same way (flax `init`, `apply`): the
    # same numbers, though JAX's checker does not count it.
    derived: bool = False
    # The first use returned the key it consumed, and the code kept it as its new key.
    handed_back: bool = False
    # For each way to this call on which the key is consumed, the reuses of that consumption
    # met on the way (`Ways`). Where every way met one the rule reports, JAX's checker has
    # stopped there: this call is never reached with the key (empty: not followed).
    after: Ways = frozenset()

    @property
    def name(self) -> str:
        """The key as the code spells it (`key`, `self.key`, `state["key"]`)."""
        return self.key.id if isinstance(self.key, ast.Name) else ast.unparse(self.key)


# Calls whose result keeps, per element, one of their value operands (the operands after the
# first): two draws of one key in two alternatives never meet in one value.
_SELECTS = frozenset(("jax.lax.select", "jax.lax.select_n", "jax.numpy.where"))


def selected_operands(call: ast.Call, resolver: Resolver) -> tuple[ast.expr, ...]:
    """The alternatives of `lax.select(p, a, b)`, `lax.select_n(i, a, b, ...)` or
    `jnp.where(c, a, b)` (a, b, ...); () for any other call."""
    if call.keywords or len(call.args) < 3 or any(isinstance(a, ast.Starred) for a in call.args):
        return ()
    name = resolver.qualname(call.func)
    if name not in _SELECTS or (name == "jax.numpy.where" and len(call.args) != 3):
        return ()
    return tuple(call.args[1:])


def key_argument(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg == "key"), None)


def _merge(first: State, second: State) -> State:
    merged = dict(first)
    for name, use in second.items():
        merged.setdefault(name, use)
    for held in [name for name in merged if name.endswith(_REUSED)]:
        # A path consumed on both sides was reused before here only if it was on both.
        path = held[: -len(_REUSED)]
        if not isinstance(merged.get(path), ast.Call):
            del merged[held]
            continue
        ways = _ways(first, path) | _ways(second, path)
        if ways == _NOT_REUSED:
            del merged[held]
        else:
            merged[held] = _fewest(ways)
    return merged


def _ways(state: State, path: str) -> Ways:
    """The ways the state stands for on which `path` is consumed (none if it is not)."""
    if not isinstance(state.get(path), ast.Call):
        return frozenset()
    return state.get(path + _REUSED, _NOT_REUSED)  # type: ignore[return-value]


def _fewest(ways: Ways) -> Ways:
    """`ways` without those covered by another (having met all its reuses and more)."""
    if len(ways) > 1:
        ways = frozenset(way for way in ways if not any(other < way for other in ways))
    return ways if len(ways) <= _MAX_WAYS else _NOT_REUSED


def _terminates(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _TERMINATORS)


def _leaves_early(body: list[ast.stmt]) -> bool:
    """A `break` or `continue` of this loop (not of a loop or function nested in it)."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Break | ast.Continue):
            return True
        if not isinstance(node, _LOOPS_AND_SCOPES):
            pending.extend(c for c in child_nodes(node) if isinstance(c, _STATEMENT_HOLDERS))
    return False


_LOOPS_AND_SCOPES = (ast.For, ast.AsyncFor, ast.While, *_NESTED)
_STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _bound_names(target: ast.AST) -> list[str]:
    return [n.id for n in walk_nodes(target) if isinstance(n, ast.Name)]


_LEAF_EXPRESSIONS = frozenset((ast.Name, ast.Constant))


# Where a derived use of a key path is held in the flow state: beside the path, not under it
# (a method of the key, `key.tolist()`, leaves it), and forgotten with the path's root.
def _derived_path(path: str, family: str) -> str:
    return f"{path}<{family}>"


def _derived_root(held: str) -> str | None:
    """The root of the path a derived-use entry of the state is held for, else None."""
    return path_root(held).partition("<")[0] if held.endswith(">") else None


class KeyFlow:
    """Finds key reuse in one scope's statements (nested functions are their own scopes)."""

    def __init__(
        self,
        classify: Callable[[ast.Call], ast.expr | str | None],
        opaque: Callable[[str], bool] = lambda path: False,
        resolver: Resolver | None = None,
        returned: Callable[[ast.Call], Iterable[tuple[int, ast.expr]]] | None = None,
    ) -> None:
        # returned(call) -> (place in the returned tuple, -1 for the whole value; argument) of
        # each key the call consumes and returns (a helper handing back the key it drew from).
        self.returned = returned
        self.handed_back: set[ast.Call] = set()  # calls whose consumed key a target now holds
        # classify(call) -> the key argument a call draws with (a sampler, or a helper of
        # this module that samples with that parameter), PASS (its arguments go somewhere
        # unknown) or None (a call that consumes no key: jnp, split, builtins, ...).
        self.classify = classify
        # opaque(path) -> the path (`gen.rng`, `self.rng_key`) reads an attribute of an
        # object the model cannot see into: it may be a property that makes a new key on
        # every read (a key generator's `gen.rng`), so the same spelling is not the same key.
        self.opaque = opaque
        # Resolves select calls, whose value operands are alternatives (None: not looked for).
        self.resolver = resolver
        self.reuses: dict[ast.Call, Reuse] = {}
        self._iteration = 0  # >0 while re-walking a loop body
        self._comprehensions = 0  # >0 while walking a comprehension's element
        # Bound per element by the enclosing comprehensions and `for` loops.
        self._item_names: frozenset[str] = frozenset()
        self.unit = 0  # the document line of the unit being walked
        self.end: State = {}  # the state after the statements last walked
        # consuming call -> the unit it sits in and the argument it consumed the key through
        self._uses: dict[ast.Call, tuple[int, ast.expr]] = {}

    def run(
        self, statements: list[ast.stmt], state: State | None = None, unit: int = 0
    ) -> list[Reuse]:
        """Reuses in `statements`, walked from `state` (updated in place: the state after)."""
        self.reuses = {}
        self.unit = unit
        self.end = {}
        if state is None and not may_consume(statements, self.classify):
            # A reuse is a call consuming a key a call of this walk consumed before: none
            # is found where no call consumes one (and a fresh state leaves nothing after).
            return []
        state = {} if state is None else state
        after = self.block(statements, state)
        if after is not state:
            state.clear()
            state.update(after)
        self.end = state
        return sorted(self.reuses.values(), key=lambda r: (r.call.lineno, r.call.col_offset))

    def next_iteration(self, reuse: Reuse, body: ast.FunctionDef | ast.AsyncFunctionDef) -> Reuse:
        """`reuse` of a key a loop body (`body`, walked last) consumed and hands its next
        iteration (`carried_key_reuses`), with the reuses of that consumption the walk met on
        every way to the body's end (`Reuse.after`): JAX's checker stops there, in the first
        iteration. Only for a body whose one return ends it (an early one leaves sooner)."""
        path = key_path(reuse.key)
        returns = own_returns(body)
        if path is None or self.end.get(path) is not reuse.call or returns is None:
            return reuse
        if len(returns) != 1 or not isinstance(body.body[-1], ast.Return):
            return reuse
        return replace(reuse, after=self.end.get(path + _REUSED, _NOT_REUSED))  # type: ignore[arg-type]

    # -- statements -----------------------------------------------------------------------
    def block(self, statements: list[ast.stmt], state: State) -> State:
        for statement in statements:
            state = self.statement(statement, state)
        return state

    def statement(self, node: ast.stmt, state: State) -> State:
        if isinstance(node, _NESTED):
            if not isinstance(node, ast.Lambda):
                for decorator in node.decorator_list:
                    self.expression(decorator, state)
                self._forget(state, [node.name])
            return state
        if isinstance(node, ast.If):
            self.expression(node.test, state)
            taken = constant_test(node.test)  # `if False:` never runs its body
            if taken is not None:
                return self.block(node.body if taken else node.orelse, state)
            body = self.block(node.body, dict(state))
            orelse = self.block(node.orelse, dict(state))
            return self._join(node.body, body, node.orelse, orelse)
        if isinstance(node, ast.For | ast.AsyncFor):
            self.expression(node.iter, state)
            runs = runs_at_least_once(node.iter) and not _leaves_early(node.body)
            return self._loop(node.body, node.orelse, state, node.target, runs)
        if isinstance(node, ast.While):
            self.expression(node.test, state)
            return self._loop(node.body, node.orelse, state, None)
        if isinstance(node, TRY_STATEMENTS):
            after = self.block(node.body, dict(state))
            after = self.block(node.orelse, after)
            merged = _merge(state, after)
            for handler in node.handlers:
                # From the entry state: the usual handler is a fallback for a failed draw.
                handled = self.block(handler.body, dict(state))
                if not _terminates(handler.body):
                    merged = _merge(merged, handled)
            return self.block(node.finalbody, merged)
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.expression(item.context_expr, state)
                if item.optional_vars is not None:
                    self._forget(state, _bound_names(item.optional_vars))
            return self.block(node.body, state)
        if isinstance(node, ast.Match):
            self.expression(node.subject, state)
            merged = dict(state)
            for case in node.cases:
                merged = _merge(merged, self.block(case.body, dict(state)))
            return merged
        # Simple statements: the value is evaluated before the targets are rebound.
        for child in child_nodes(node):
            if isinstance(child, ast.expr) and not _is_target(node, child):
                self.expression(child, state)
        handed = self._handed_back(node, state) if self.returned is not None else ()
        for target in _targets(node):
            self._forget(state, _bound_names(target))
        for name, call in handed:
            state[name] = call
            self.handed_back.add(call)
        return state

    def _join(self, body: list, body_state: State, orelse: list, else_state: State) -> State:
        if _terminates(body):
            return else_state
        if _terminates(orelse):
            return body_state
        return _merge(body_state, else_state)

    def _loop(
        self,
        body: list,
        orelse: list,
        state: State,
        target: ast.expr | None,
        runs_once: bool = False,
    ) -> State:
        """The state after the loop: from the end of some iteration, or (unless the body
        surely runs to its end at least once: `for _ in range(3)` without `break`/`continue`)
        from before the loop."""
        if body and isinstance(body[-1], ast.Break | ast.Return | ast.Raise):
            # The body runs at most once: walk it once.
            entry = dict(state)
            if target is not None:
                self._forget(entry, _bound_names(target))
            return _merge(state, self.block(body, entry))
        first = dict(state)
        targets = _bound_names(target) if target is not None else []
        self._forget(first, targets)
        outer_names = self._item_names
        self._item_names = outer_names | frozenset(targets)
        after_first = self.block(body, first)
        second = _merge(state, after_first)
        self._forget(second, targets)
        self._iteration += 1
        after_second = self.block(body, second)
        self._iteration -= 1
        self._item_names = outer_names
        return self.block(orelse, _merge(after_first if runs_once else state, after_second))

    @staticmethod
    def _forget(state: State, names: list[str]) -> None:
        """Rebinding (or assigning into) these names makes them, and every path under
        them, fresh."""
        if not state:
            return
        for name in names:
            state.pop(name, None)
            state.pop(name + _REUSED, None)
        if _PATHS in state:
            KeyFlow._forget_under(state, names)
            wanted = set(names)
            for held in [h for h in state if _derived_root(h) in wanted]:
                del state[held]

    # -- expressions ----------------------------------------------------------------------
    def expression(self, node: ast.expr, state: State) -> None:
        if type(node) in _LEAF_EXPRESSIONS or isinstance(node, ast.Lambda):
            return  # a name or a constant holds no call
        if isinstance(node, ast.IfExp):
            self.expression(node.test, state)
            taken = constant_test(node.test)  # `a if False else b` never evaluates `a`
            if taken is not None:
                self.expression(node.body if taken else node.orelse, state)
                return
            body, orelse = dict(state), dict(state)
            self.expression(node.body, body)
            self.expression(node.orelse, orelse)
            state.update(_merge(body, orelse))
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            self._comprehension(node, state)
            return
        if isinstance(node, ast.NamedExpr):
            self.expression(node.value, state)
            self._forget(state, [node.target.id])
            return
        alternatives = (
            selected_operands(node, self.resolver)
            if self.resolver is not None and isinstance(node, ast.Call)
            else ()
        )
        for child in child_nodes(node):
            if isinstance(child, ast.expr) and not any(child is a for a in alternatives):
                self.expression(child, state)
        if alternatives:  # as an `a if p else b`: each walked from the state before
            branches = [dict(state) for _ in alternatives]
            for operand, branch in zip(alternatives, branches, strict=True):
                self.expression(operand, branch)
            merged = branches[0]
            for branch in branches[1:]:
                merged = _merge(merged, branch)
            state.update(merged)
        if isinstance(node, ast.Call):
            self._call(node, state)

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, state: State
    ) -> None:
        """A comprehension evaluates its element once per item, like a loop body: walked
        twice, its targets fresh for each item. Its targets are its own names: what they
        hold does not leave it."""
        generators = node.generators
        self.expression(generators[0].iter, state)  # evaluated once, in the enclosing scope
        parts: list[ast.expr] = [g.iter for g in generators[1:]]
        parts += [condition for g in generators for condition in g.ifs]
        parts += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        targets = [name for g in generators for name in _bound_names(g.target)]
        self._comprehensions += 1
        outer_names = self._item_names
        self._item_names = outer_names | frozenset(targets)
        item = dict(state)
        for iteration in (0, 1):
            self._forget(item, targets)
            self._iteration += iteration
            for part in parts:
                self.expression(part, item)
            self._iteration -= iteration
            item = _merge(state, item) if iteration == 0 else item
        self._comprehensions -= 1
        self._item_names = outer_names
        self._forget(item, targets)
        state.update(_merge(state, item))

    def _call(self, call: ast.Call, state: State) -> None:
        role = self.classify(call)
        if role is None:
            return
        if type(role) is DerivedKey:
            self._derived(call, role, state)
            return
        if role == PASS:
            arguments = [*call.args, *(kw.value for kw in call.keywords)]
            if _PATHS in state:
                # The callee (or a method of the object) may rebind keys the object holds.
                roots = [root_name(call.func) if isinstance(call.func, ast.Attribute) else None]
                roots += [a.id for a in arguments if isinstance(a, ast.Name)]
                self._forget_under(state, roots)
            # A path handed over stays as it was: absent (fresh), its next draw is not
            # reported either, and a consumed key stays consumed.
            for arg in arguments:
                if isinstance(arg, ast.Name) and arg.id not in state:
                    state[arg.id] = _UNSURE  # maybe consumed; a consumed key stays consumed
            return
        if isinstance(role, ast.Name):
            path = role.id
        elif isinstance(role, ast.Attribute | ast.Subscript):
            path = key_path(role)
            opaque = type(role) is not DrawnThroughObject and self.opaque(path or "")
            if path is None or (_reads_attribute(role) and opaque):
                return  # (an object whose class is known holds what its class stores)
            state[_PATHS] = _UNSURE
        else:
            return
        previous = state.get(path)
        if isinstance(previous, ast.Call):
            if call not in self.reuses:
                across = self._iteration > 0 and previous is call
                first_unit, first_key = self._uses.get(previous, (self.unit, None))
                reuse = Reuse(
                    call,
                    role,
                    previous,
                    across,
                    first_unit,
                    first_key,
                    in_comprehension=self._comprehensions > 0,
                    item_names=self._item_names,
                    handed_back=previous in self.handed_back,
                )
                self.reuses[call] = reuse
            self._met(call, path, state)
        else:
            state[path] = call
            state.pop(path + _REUSED, None)
            self._uses[call] = (self.unit, role)

    def _met(self, call: ast.Call, path: str, state: State) -> None:
        """The reuse `call` of the key at `path`: its ways here (joined with those of an
        earlier walk of a loop body) recorded, and met on every way on from here."""
        held = path + _REUSED
        ways: Ways = state.get(held, _NOT_REUSED)  # type: ignore[assignment]
        reuse = self.reuses[call]
        if not reuse.after >= ways:
            self.reuses[call] = replace(reuse, after=_fewest(reuse.after | ways))
        state[held] = _fewest(frozenset(way | {call} for way in ways))

    def _derived(self, call: ast.Call, role: DerivedKey, state: State) -> None:
        """A derived use: a reuse of an earlier derived use of the same family only."""
        path = key_path(role.key)
        if path is None or (_reads_attribute(role.key) and self.opaque(path)):
            return
        held = _derived_path(path, role.family)
        state[_PATHS] = _UNSURE
        previous = state.get(held)
        if isinstance(previous, ast.Call):
            if call not in self.reuses:
                first_unit, first_key = self._uses.get(previous, (self.unit, None))
                self.reuses[call] = Reuse(
                    call,
                    role.key,
                    previous,
                    self._iteration > 0 and previous is call,
                    first_unit,
                    first_key,
                    in_comprehension=self._comprehensions > 0,
                    item_names=self._item_names,
                    derived=True,
                )
            self._met(call, held, state)
        elif previous is None:
            state[held] = call
            state.pop(held + _REUSED, None)
            self._uses[call] = (self.unit, role.key)

    def _handed_back(self, node: ast.stmt, state: State) -> list[tuple[str, ast.Call]]:
        """`a, key = helper(key, ...)` where the helper returns the key it consumed: the
        names that hold that consumed key once bound (their next use is a reuse of the
        helper's draw), with the call."""
        found: list[tuple[str, ast.Call]] = []
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            return found
        value = node.value
        if type(value) is not ast.Call:
            return found
        for index, argument in self.returned(value):
            path = key_path(argument)
            if path is None or state.get(path) is not value:
                continue  # not consumed by this very call (already consumed before it)
            target = node.targets[0]
            if index >= 0:
                if not isinstance(target, ast.Tuple | ast.List) or index >= len(target.elts):
                    continue
                if any(isinstance(e, ast.Starred) for e in target.elts):
                    continue
                target = target.elts[index]
            if isinstance(target, ast.Name):
                found.append((target.id, value))
        return found

    @staticmethod
    def _forget_under(state: State, roots: list[str | None]) -> None:
        """Paths under these roots (not the roots themselves) become fresh."""
        wanted = {root for root in roots if root is not None}
        if wanted:
            for path in [p for p in state if p not in wanted and path_root(p) in wanted]:
                del state[path]


def may_consume(statements: list[ast.stmt], classify: Callable[[ast.Call], object]) -> bool:
    """Does a call among `statements` (nested scopes included: more than a `KeyFlow` walk
    looks at) consume a key, by `classify` (what `KeyFlow` records a use of)?"""
    call_type = ast.Call
    for statement in statements:
        for node in walk_nodes(statement):
            if type(node) is call_type:
                role = classify(node)
                if role is not None and role != PASS:
                    return True
    return False


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return [node.target]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [ast.Name(alias.asname or alias.name.split(".")[0]) for alias in node.names]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    return []


def _is_target(statement: ast.stmt, child: ast.expr) -> bool:
    return any(child is target for target in _targets(statement))


def consumed_params(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], ast.expr | str | None],
) -> frozenset[str]:
    """Parameters whose value (as passed in, before any rebinding) the function consumes:
    the flow starts with each parameter marked as consumed by a stand-in call, so a use
    of it shows as a reuse of that stand-in."""
    params = set(all_params(function))
    # Each call's role, asked once: the flow below asks again of the calls it walks.
    roles = {node: classify(node) for node in walk_nodes(function) if isinstance(node, ast.Call)}
    candidates = {
        role.id for role in roles.values() if isinstance(role, ast.Name) and role.id in params
    }
    if not candidates:
        return frozenset()  # no parameter reaches a consuming call: no flow needed
    marks = {name: ast.Call(ast.Name(name), [], []) for name in candidates}
    flow = KeyFlow(lambda call: roles[call] if call in roles else classify(call))
    reuses = flow.run(function.body, dict(marks))
    originals = {id(call): name for name, call in marks.items()}
    return frozenset(originals[id(r.first)] for r in reuses if id(r.first) in originals)


def drawn_self_attributes(
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], ast.expr | str | None],
) -> frozenset[str]:
    """Attributes of `self` whose key (as the method finds it) the method consumes: marked
    consumed on entry, as `consumed_params` marks parameters."""
    positional = positional_params(method)
    if not positional:
        return frozenset()
    me = positional[0]
    candidates = {
        role.attr
        for node in walk_nodes(method)
        if isinstance(node, ast.Call)
        and isinstance(role := classify(node), ast.Attribute)
        and isinstance(role.value, ast.Name)
        and role.value.id == me
    }
    if not candidates:
        return frozenset()
    marks: State = {f"{me}.{attr}": ast.Call(ast.Name(attr), [], []) for attr in candidates}
    originals = {id(call): path.partition(".")[2] for path, call in marks.items()}
    reuses = KeyFlow(classify).run(method.body, {**marks, _PATHS: _UNSURE})
    return frozenset(originals[id(r.first)] for r in reuses if id(r.first) in originals)


class DrawnThroughObject(ast.Attribute):
    """The key a call of an object's method draws from: `noise(shape)` draws from
    `noise.key` when `Noise.__call__` consumes `self.key` (stands for it in a `Reuse`)."""

    _fields = ("value", "attr", "ctx")
    method: str = ""  # "Noise.__call__"


def object_key(call: ast.Call, draws: Mapping[str, tuple[str, str]]) -> ast.expr | None:
    """`noise(...)` / `noise.sample(...)` of a module-level object whose method consumes a
    key its class stores once (`draws`: "noise" or "noise.sample" -> (method, attribute)):
    the object's attribute it draws from."""
    func = call.func
    spelling = func.id if isinstance(func, ast.Name) else None
    holder: ast.expr = func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        spelling, holder = f"{func.value.id}.{func.attr}", func.value
    found = draws.get(spelling) if spelling else None
    if found is None:
        return None
    key = DrawnThroughObject(value=holder, attr=found[1], ctx=ast.Load())
    key.method = found[0]
    return ast.copy_location(key, holder)


def drawn_free_names(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], ast.expr | str | None],
) -> frozenset[str]:
    """Names the function neither binds nor takes whose key (as the function finds it on
    entry: a module-level key) it consumes, marked consumed on entry as `consumed_params`
    marks parameters."""
    candidates = {role.id for _, role in _consumed_free_keys(function, classify)}
    if not candidates:
        return frozenset()
    marks = {name: ast.Call(ast.Name(name), [], []) for name in candidates}
    originals = {id(call): name for name, call in marks.items()}
    reuses = KeyFlow(classify).run(function.body, dict(marks))
    return frozenset(originals[id(r.first)] for r in reuses if id(r.first) in originals)


class DrawnThroughGlobal(ast.Name):
    """The module-level key a call of a module function draws from: `sample(n)` draws from
    `key` when `sample` consumes the global `key` and never rebinds it (stands for it in a
    `Reuse`)."""

    _fields = ("id", "ctx")
    function: str = ""  # "sample"


def global_key(call: ast.Call, draws: Mapping[str, str]) -> ast.expr | None:
    """`sample(...)` of a module function that consumes the module-level key `draws` names
    for it: that key, drawn from by the call."""
    func = call.func
    name = draws.get(func.id) if isinstance(func, ast.Name) else None
    if name is None:
        return None
    key = DrawnThroughGlobal(id=name, ctx=ast.Load())
    key.function = func.id
    return ast.copy_location(key, func)


def consumer_key(call: ast.Call, resolver: Resolver) -> ast.expr | None:
    """The key a `jax.random` sampler or `split` consumes, or the `key=` an equinox layer
    is built with, else None."""
    qualname = resolver.qualname(call.func)
    if qualname in CONSUMERS:
        return key_argument(call)
    return _layer_key(call) if qualname and qualname.startswith(_KEYED_LAYERS) else None


# Layers built with `key=`: they draw their initial parameters from it (`eqx.nn.Linear(3, 3,
# key=key)` twice gives identical weights).
_KEYED_LAYERS = "equinox.nn."


def _layer_key(call: ast.Call) -> ast.expr | None:
    return next((kw.value for kw in call.keywords if kw.arg == "key"), None)


def makes_random_initializer(call: ast.Call, resolver: Resolver) -> bool:
    """`jax.nn.initializers.lecun_normal()` (or flax's spelling): it makes a function that
    draws from the key it is called with."""
    qualname = resolver.qualname(call.func) or ""
    module, _, name = qualname.rpartition(".")
    return f"{module}." in _INITIALIZER_MODULES and name in _RANDOM_INITIALIZERS


def may_draw(text: str, resolver: Resolver) -> bool:
    """Can code with this text call a `jax.random` sampler? Every spelling of one contains
    "random" or a name bound to `jax.random` or inside it (`jr.normal`, `from jax.random
    import normal`), or, for an equinox layer built with a key, "key=" and a name bound to
    equinox."""
    if "random" in text or "initializers" in text:
        return True
    if any(contains_word(text, alias) for alias in resolver.names_bound_under("jax.random")):
        return True
    return "key=" in text and any(
        contains_word(text, alias) for alias in resolver.names_bound_under("equinox")
    )


class KeyInputs(Protocol):
    """What the key rules read of the module's model (`ModuleModel` is one): the module's
    functions and external facts, and its key facts (`analysis/key_facts.py`)."""

    functions: dict[str, FunctionRecord]
    external: Mapping[str, ExternalFacts] | None

    @property
    def initializer_globals(self) -> frozenset[str]: ...

    @property
    def key_helpers(self) -> dict[str, frozenset[str]]: ...

    @property
    def key_makers(self) -> dict[str, str]: ...

    @property
    def key_summaries(self) -> dict[str, KeySummary]: ...

    @property
    def rng_stream_drawers(self) -> frozenset[str]: ...

    @property
    def jit_aliases(self) -> dict[str, str]: ...


def classify_call(
    call: ast.Call,
    resolver: Resolver,
    model: KeyInputs,
    maybe_none: frozenset[str] = NONE,
    makers: Mapping[str, str] | None = None,
):
    """The KeyFlow role of a call in a module: the key a sampler, a library consumer, a key
    helper of the module or an imported one draws with (a `DerivedKey` for a derived use),
    None for calls that consume no key, else PASS. `maybe_none`: the names that may hold
    None where the call is (the enclosing function's parameters); `makers`: the names bound
    to library objects where the call is (default: the module's)."""
    qualname = resolver.qualname(call.func)
    if qualname in CONSUMERS:
        return key_argument(call)
    if qualname and qualname.startswith(_NON_CONSUMING_PREFIXES):
        return None
    if qualname and qualname.startswith(_KEYED_LAYERS):
        return _layer_key(call) or PASS
    func = call.func
    if type(func) is ast.Call and makes_random_initializer(func, resolver):
        return key_argument(call)  # `jax.nn.initializers.normal()(key, shape)`
    if type(func) is ast.Name and func.id in model.initializer_globals and not qualname:
        return key_argument(call)  # `init = jax.nn.initializers.normal()` at module level
    found = library_key(
        call, resolver, model.key_makers if makers is None else makers, model.rng_stream_drawers
    )
    if found is None and model.external:
        found = external_key(call, model.external)
    if found is None:
        found = helper_key(call, model.functions, model.key_helpers, maybe_none, resolver)
    if found is None and model.key_summaries:
        found = derived_helper_key(call, model.functions, model.key_summaries)
    if found is None and type(call.func) is ast.Name and call.func.id in model.jit_aliases:
        # `step = jax.jit(draw)` at module level: `step(key, x)` runs `draw(key, x)`.
        helper = ast.Name(model.jit_aliases[call.func.id], ast.Load())
        return classify_call(
            ast.Call(helper, call.args, call.keywords), resolver, model, maybe_none
        )
    return PASS if found is None else found


def external_key(call: ast.Call, external: Mapping) -> ast.expr | DerivedKey | None:
    """The argument a call of an imported function gives to a key parameter it consumes (or a
    `DerivedKey` for one it derives from), as its module's model found (`ExternalFacts`)."""
    spelling = dotted_name(call.func)
    facts = external.get(spelling) if spelling else None
    if facts is None or not facts.key_params:
        return None
    given = arguments_by_param(call, facts.key_params)
    if given is None:
        return None
    for name in facts.key_params:
        consumed = name in facts.consumed_keys and name in given
        if consumed and not spared_by_imported(call, facts, name, given):
            return given[name]
    for name, family in facts.derived_keys:
        if name in given:
            return DerivedKey(given[name], family)
    return None


def derived_helper_key(
    call: ast.Call, functions: dict, summaries: Mapping[str, KeySummary]
) -> DerivedKey | None:
    """`DerivedKey` of the argument a call of a module function gives to a parameter it
    derives from."""
    path = helper_path(call, functions)
    summary = summaries.get(path) if path else None
    record = functions.get(path) if summary is not None else None
    if record is None or not summary.derived:
        return None
    given = given_values(call, positional_params(record.node))
    for name, family in summary.derived:
        if given and name in given:
            return DerivedKey(given[name], family)
    return None


def returned_arguments(call: ast.Call, model: KeyInputs) -> list[tuple[int, ast.expr]]:
    """The keys a call consumes and returns (`KeySummary.returned`, `ExternalFacts.
    returned_keys`): (place in the returned value, the argument)."""
    places: tuple[tuple[int, str], ...] = ()
    given: dict[str, ast.expr] | None = None
    path = helper_path(call, model.functions) if model.key_summaries else None
    summary = model.key_summaries.get(path) if path else None
    if summary is not None and summary.returned:
        places = summary.returned
        given = given_values(call, positional_params(model.functions[path].node))
    elif model.external:
        spelling = dotted_name(call.func)
        facts = model.external.get(spelling) if spelling else None
        if facts is not None and facts.returned_keys:
            places, given = facts.returned_keys, arguments_by_param(call, facts.key_params)
    if not given:
        return []
    return [(index, given[name]) for index, name in places if name in given]


# Calls that run a function argument again and again, by the positions and keywords of that
# argument. A key the function closes over and consumes is consumed on every run: JAX's
# checker rejects scan/while bodies that consume "key constants", and a tree map calls the
# function once per leaf. (`vmap` runs it once, batched: not a reuse for JAX.)
_REPEATING: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "jax.lax.while_loop": ((0, 1), ("cond_fun", "body_fun")),
    "jax.lax.fori_loop": ((2,), ("body_fun",)),
    "jax.lax.scan": ((0,), ("f",)),
    "jax.lax.map": ((0,), ("f",)),
    "jax.tree.map": ((0,), ("f",)),
    "jax.tree_util.tree_map": ((0,), ("f",)),
    "jax.tree_map": ((0,), ("f",)),
}
# The names a call `repeated_uses` follows ends with (or an assignment naming one ends with).
REPEATING_NAMES = frozenset(name.rpartition(".")[2] for name in _REPEATING)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else None


# Mapped over a pytree with one key, these reorder or pick the same rows of every leaf: the
# usual way to shuffle a batch whose leaves must stay aligned, not a reuse by intent.
_ALIGNING = frozenset({"jax.random.permutation", "jax.random.shuffle", "jax.random.choice"})


@dataclass(frozen=True)
class RepeatedUse:
    call: ast.Call  # the consuming call inside the repeated function
    key: ast.Name  # the key it closes over
    runner: ast.Call  # the loop or tree map that runs the function repeatedly
    runner_name: str  # its last name: "while_loop", "tree_map", ...


def aligned_pair(first: ast.Call, second: ast.Call, resolver: Resolver) -> bool:
    """The same `permutation`/`choice`/`shuffle` call, differing only in the array: one key
    picks the same rows of two arrays that must stay aligned (inputs and labels). The same
    call of the same array twice is no such pair: it gives the same result twice."""
    qualname = resolver.qualname(first.func)
    if qualname not in _ALIGNING or resolver.qualname(second.func) != qualname:
        return False

    def array(call: ast.Call) -> str:
        named = [k.value for k in call.keywords if k.arg in ("a", "x")]
        value = call.args[1] if len(call.args) > 1 else (named[0] if named else None)
        return ast.dump(value) if value is not None else ""

    if array(first) == array(second):
        return False

    def rest(call: ast.Call) -> str:
        keywords = [k for k in call.keywords if k.arg not in ("key", "a", "x")]
        return ast.dump(ast.Call(ast.Name("_"), call.args[2:], keywords))

    return rest(first) == rest(second)


def aligned_over_items(reuse: Reuse, resolver: Resolver) -> bool:
    """`[jr.permutation(key, a) for a in arrays]`, or the same in a `for a in arrays:` loop:
    one shuffle or choice of each element's array with the same key keeps the arrays
    aligned, as `aligned_pair` does for two."""
    call = reuse.call
    if not (reuse.across_iterations and reuse.first is call):
        return False
    if resolver.qualname(call.func) not in _ALIGNING:
        return False
    named = [k.value for k in call.keywords if k.arg in ("a", "x")]
    array = call.args[1] if len(call.args) > 1 else (named[0] if named else None)
    return array is not None and any(
        isinstance(node, ast.Name) and node.id in reuse.item_names for node in walk_nodes(array)
    )


def aligned_helper_pair(
    first: ast.Call, second: ast.Call, resolver: Resolver, is_array: Callable[[ast.expr], bool]
) -> bool:
    """The same helper (not a JAX function) given the same key and the same arguments but one,
    a JAX array in both (`_features(rng, x)`, `_features(rng, y)`): the same random
    transformation of two arrays, as one permutation of inputs and labels (the random features
    of both sides of a kernel, one crop of several views). Other arguments differing
    (`init(key, n_in)`, `init(key, n_out)`) ask for two sets of numbers: no such pair."""
    if ast.dump(first.func) != ast.dump(second.func):
        return False
    if (resolver.qualname(first.func) or "").startswith("jax."):
        return False  # `bernoulli(key, p)` twice draws the same uniforms: correlated
    if len(first.args) != len(second.args) or _keywords(first) != _keywords(second):
        return False
    differing = [
        (a, b) for a, b in zip(first.args, second.args, strict=True) if ast.dump(a) != ast.dump(b)
    ]
    if len(differing) != 1 or any(isinstance(a, ast.Starred) for a in first.args):
        return False
    ours, theirs = differing[0]
    return is_array(ours) and is_array(theirs)


def _keywords(call: ast.Call) -> str:
    return ast.dump(ast.Call(ast.Name("_"), [], call.keywords))


def _is_assertion_call(node: ast.AST) -> bool:
    """`self.assertEqual(...)`, `np.testing.assert_allclose(...)`, `chex.assert_trees_all_close(
    ...)`, or a tree map of such a function (`jax.tree.map(assert_allclose, a, b)`)."""
    if not isinstance(node, ast.Call):
        return False
    name = _last_name(node.func) or ""
    if name.lower().startswith("assert"):
        return True
    return name in ("map", "tree_map") and bool(node.args) and _is_assertion_name(node.args[0])


def _is_assertion_name(expr: ast.expr) -> bool:
    return (_last_name(expr) or "").lower().startswith("assert")


def in_assertion(call: ast.Call, scope: ast.AST) -> bool:
    """Is `call` an argument (at any depth) of an assertion, or the test of an `assert`? Such
    a draw recomputes an expected value: it reuses the key on purpose, to get the very numbers
    the code under test drew from it."""
    for node in walk_nodes(scope):
        if isinstance(node, ast.Assert) and any(n is call for n in walk_nodes(node.test)):
            return True
        if _is_assertion_call(node) and any(
            n is call for argument in _call_arguments(node) for n in walk_nodes(argument)
        ):
            return True
    return False


def results_compared(first: ast.Call, second: ast.Call, scope: ast.AST) -> bool:
    """Are what `first` and `second` give bound to names that one assertion compares with
    each other (`expected = sample_a(key)`, `actual = sample_b(key)`, `assert_allclose(expected,
    actual)`)? Two implementations given one key on purpose: the same numbers are the point.
    Each side must name one result and not the other (`assert_allclose(f(x1, x2), k)`, where
    both feed one computation, compares nothing drawn). A name computed from a result stands for
    it too (`loss_a = metrics_a.loss`), and for both when computed from both."""
    bound: dict[int, set[str]] = {id(first): set(), id(second): set()}
    compared: list[list[ast.expr]] = []
    assignments: list[tuple[set[str], set[str]]] = []  # (names bound, names read)
    for node in walk_nodes(scope):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            inside = {id(n) for n in walk_nodes(node.value)}
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names_bound = {n.id for t in targets for n in walk_nodes(t) if isinstance(n, ast.Name)}
            assignments.append((names_bound, _names(node.value)))
            for call in (first, second):
                if id(call) in inside:
                    bound[id(call)] |= names_bound
        elif isinstance(node, ast.Assert):
            compared.append(_compared_operands(node.test))
        elif _is_assertion_call(node):
            operands = _call_arguments(node)
            mapped = (_last_name(node.func) or "") in ("map", "tree_map")
            compared.append(operands[1:] if mapped else operands)  # less the mapped assertion
    first_names, second_names = bound[id(first)], bound[id(second)]
    if not first_names or not second_names:
        return False
    for names in (first_names, second_names):
        grown = True
        while grown:
            grown = False
            for names_bound, names_read in assignments:
                if names_read & names and not names_bound <= names:
                    names |= names_bound
                    grown = True
    for operands in compared:
        named = [_names(operand) for operand in operands]
        one = any(n & first_names and not n & second_names for n in named)
        other = any(n & second_names and not n & first_names for n in named)
        if one and other:
            return True
    return False


def _names(expression: ast.expr) -> set[str]:
    return {n.id for n in walk_nodes(expression) if isinstance(n, ast.Name)}


def _compared_operands(test: ast.expr) -> list[ast.expr]:
    """The values an `assert` compares: the sides of `a == b`, the arguments of
    `np.allclose(a, b)`."""
    if isinstance(test, ast.Compare):
        return [test.left, *test.comparators]
    if isinstance(test, ast.Call):
        return _call_arguments(test)
    return []


def _call_arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


def repeated_uses(
    statements: list[ast.stmt],
    resolver: Resolver,
    classify: Callable[[ast.Call], ast.expr | str | None],
) -> list[RepeatedUse]:
    """Keys that a function run by a `lax` loop or a tree map (a lambda, or a def or lambda
    bound in the same scope) closes over and consumes."""
    local: dict[str, ast.AST] = {}  # functions and lambdas bound in the scope
    aliases: dict[str, str] = {}  # `tree_map = jax.tree_util.tree_map`
    calls: list[ast.Call] = []
    for node in scope_nodes(statements):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            local[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Lambda):
                local[target.id] = node.value
            elif isinstance(target, ast.Name) and _last_name(node.value) in REPEATING_NAMES:
                qualname = resolver.qualname(node.value)
                if qualname in _REPEATING:
                    aliases[target.id] = qualname
        elif isinstance(node, ast.Call):
            calls.append(node)
    # Resolve only calls spelled like a runner or an alias of one (qualname costs).
    calls = [c for c in calls if _last_name(c.func) in REPEATING_NAMES | aliases.keys()]
    runners: list[tuple[ast.Call, str]] = []
    for call in calls:
        qualname = resolver.qualname(call.func)
        if qualname is None and isinstance(call.func, ast.Name):
            qualname = aliases.get(call.func.id)
        if qualname in _REPEATING:
            runners.append((call, qualname))
    found: dict[ast.Call, RepeatedUse] = {}
    for runner, qualname in runners:
        positions, keywords = _REPEATING[qualname]
        label = "tree_map" if qualname.startswith("jax.tree") else qualname.rpartition(".")[2]
        arguments = [runner.args[i] for i in positions if i < len(runner.args)]
        arguments += [kw.value for kw in runner.keywords if kw.arg in keywords]
        for argument in arguments:
            function = local.get(argument.id) if isinstance(argument, ast.Name) else argument
            if not isinstance(function, _FUNCTIONS):
                continue
            for call, key in _consumed_free_keys(function, classify):
                if label == "tree_map" and resolver.qualname(call.func) in _ALIGNING:
                    continue
                if call not in found:
                    found[call] = RepeatedUse(call, key, runner, label)
    return sorted(found.values(), key=lambda r: (r.call.lineno, r.call.col_offset))


def _consumed_free_keys(function: ast.AST, classify) -> list[tuple[ast.Call, ast.Name]]:
    statements = [ast.Expr(function.body)] if isinstance(function, ast.Lambda) else function.body
    uses = []
    for node in scope_nodes(statements):
        if isinstance(node, ast.Call):
            role = classify(node)
            if isinstance(role, ast.Name):
                uses.append((node, role))
    if not uses:
        return uses  # most scopes consume no key by name: their local names are not needed
    bound = local_names(function)
    return [(call, role) for call, role in uses if role.id not in bound]


def _key_draws(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], ast.expr | str | None],
) -> Iterator[tuple[ast.Call, ast.expr]]:
    """The calls of the function's own scope that consume a key, with the key each draws."""
    for node in scope_nodes(function.body):
        if isinstance(node, ast.Call) and isinstance(role := classify(node), ast.expr):
            yield node, role


# Loop bodies by the transformation that runs them: the position of the carry parameter, and
# whether the body returns the carry as the first item of a pair (`scan`'s `(carry, y)`).
_LOOP_CARRIES = {"lax.fori_loop": (1, False), "lax.while_loop": (0, False), "lax.scan": (0, True)}
# Methods and functions giving a copy of their first argument with only the named fields new.
_REPLACING_METHODS = frozenset({"_replace", "replace"})


def carried_key_reuses(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    loop: str,
    classify: Callable[[ast.Call], ast.expr | str | None],
    resolver: Resolver,
) -> list[Reuse]:
    """Keys a loop body (run by `loop`: "lax.fori_loop", ...) consumes from its carry and
    returns unchanged in the carry: every iteration receives the key the previous one
    consumed, so each draws the same numbers (`x, key = carry; ...normal(key)...; return x,
    key`). A key is followed through the carry's structure: unpacked (nested tuples), read
    by index or attribute, returned in a tuple, a dict, a class built with keywords or a
    `_replace`/`replace` copy."""
    place = _LOOP_CARRIES.get(loop)
    positional = positional_params(function)
    if place is None or place[0] >= len(positional):
        return []
    carry, pair = positional[place[0]], place[1]
    stores = store_counts(function)
    if stores.get(carry, 0):
        return []  # the carry rebound: its paths may hold other values
    aliases = {carry: carry}  # name -> the carry path it holds, all along the body
    for statement in function.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            source = _carry_path(statement.value, aliases)
            if source is not None:
                _alias_targets(statement.targets[0], source, aliases, stores)
    returns = own_returns(function)
    if not returns:
        return []
    kept: list[set[_Kept]] | None = None  # carry paths every return passes on unchanged
    for value in returns:
        if pair:
            if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
                return []
            value = value.elts[0]
        if value is None:
            return []
        found = _unchanged_paths(value, carry, aliases, resolver)
        kept = [found] if kept is None else [kept[0] & found]
    unchanged = kept[0] if kept else set()
    if not unchanged:
        return []
    reuses: dict[str, Reuse] = {}
    for node, role in _key_draws(function, classify):
        path = _carry_path(role, aliases)
        if path is None or path in reuses or not any(k.holds(path) for k in unchanged):
            continue
        reuses[path] = Reuse(node, role, node, True, first_key=role, carried=True)
    return sorted(reuses.values(), key=lambda r: (r.call.lineno, r.call.col_offset))


_KEY_CONSTRUCTORS = frozenset({"jax.random.key", "jax.random.PRNGKey"})


def rebuilt_key_draws(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    loop: str,
    classify: Callable[[ast.Call], ast.expr | str | None],
    resolver: Resolver,
) -> list[Reuse]:
    """Draws a lax loop body (run by `loop`) makes from a key it builds from a constant seed
    (`normal(jax.random.key(0), shape)`, or through a name bound once to such a key): every
    iteration builds the same key, and under the loop's trace every draw has the same
    shape, so each iteration draws the same numbers. A key folded with the iteration
    (`fold_in(key(0), i)`) is a new key, not this."""
    if loop not in REPEATING_LOOPS:
        return []
    stores = store_counts(function)
    constant_names = {
        statement.targets[0].id
        for statement in function.body
        if isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and stores.get(statement.targets[0].id) == 1
        and _constant_key(statement.value, resolver)
    }
    found = []
    for node, role in _key_draws(function, classify):
        named = isinstance(role, ast.Name) and role.id in constant_names
        if named or _constant_key(role, resolver):
            found.append(Reuse(node, role, node, True, first_key=role, rebuilt=True))
    return found


def _constant_key(expr: ast.expr, resolver: Resolver) -> bool:
    """`jax.random.key(0)` / `PRNGKey(42)`: a key built from a literal seed."""
    if not isinstance(expr, ast.Call) or resolver.qualname(expr.func) not in _KEY_CONSTRUCTORS:
        return False
    seed = argument_of(expr, 0, "seed")
    return isinstance(seed, ast.Constant) and type(seed.value) is int


def _alias_targets(
    target: ast.expr, source: str, aliases: dict[str, str], stores: Mapping[str, int]
) -> None:
    """Names bound once, by this assignment from the carry path `source` (unpacking
    follows tuple positions)."""
    if isinstance(target, ast.Name):
        if stores.get(target.id) == 1:
            aliases[target.id] = source
    elif isinstance(target, ast.Tuple | ast.List) and not any(
        isinstance(element, ast.Starred) for element in target.elts
    ):
        for index, element in enumerate(target.elts):
            _alias_targets(element, f"{source}[{index!r}]", aliases, stores)


def _carry_path(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The path in the carry `node` reads (`carry[1]`, `state.key`), through aliases."""
    path = key_path(node)
    if path is None:
        return None
    root = path_root(path)
    held = aliases.get(root)
    return None if held is None else held + path[len(root) :]


# A carry path returned unchanged: everything under `path`, or, for a `_replace` copy
# (`changed` not None), its attributes but those named.
@dataclass(frozen=True)
class _Kept:
    path: str
    changed: frozenset[str] | None = None

    def holds(self, path: str) -> bool:
        if path == self.path:
            return self.changed is None
        if self.changed is None:
            return path.startswith((self.path + "[", self.path + "."))
        if not path.startswith(self.path + "."):
            return False
        rest = path[len(self.path) + 1 :]
        return path_root(rest) not in self.changed


def _unchanged_paths(
    value: ast.expr, path: str, aliases: dict[str, str], resolver: Resolver
) -> set[_Kept]:
    """The carry paths under `path` that `value`, returned at `path`, holds unchanged."""
    if _carry_path(value, aliases) == path:
        return {_Kept(path)}
    found: set[_Kept] = set()
    if isinstance(value, ast.Tuple | ast.List):
        if not any(isinstance(element, ast.Starred) for element in value.elts):
            for index, element in enumerate(value.elts):
                found |= _unchanged_paths(element, f"{path}[{index!r}]", aliases, resolver)
    elif isinstance(value, ast.Dict):
        for key, item in zip(value.keys, value.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                found |= _unchanged_paths(item, f"{path}[{key.value!r}]", aliases, resolver)
    elif isinstance(value, ast.Call):
        named = {kw.arg: kw.value for kw in value.keywords if kw.arg is not None}
        base = _replaced(value, resolver)
        if base is not None and _carry_path(base, aliases) == path:
            found.add(_Kept(path, frozenset(named)))
        for name, item in named.items():
            found |= _unchanged_paths(item, f"{path}.{name}", aliases, resolver)
    return found


def _replaced(call: ast.Call, resolver: Resolver) -> ast.expr | None:
    """`x` of `x._replace(...)`, `x.replace(...)`, `dataclasses.replace(x, ...)`."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _REPLACING_METHODS and not call.args:
        return func.value
    if resolver.qualname(func) == "dataclasses.replace" and len(call.args) == 1:
        return call.args[0]
    return None
