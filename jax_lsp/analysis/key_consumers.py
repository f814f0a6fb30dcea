"""Which calls draw from a PRNG key, as JAX's checker counts them: library consumers (a
flax `init`/`apply`, haiku's `next_rng_key`, a distribution's `sample(seed=...)`), the derived
uses that do not consume a key (`DerivedKey`), and what a function of the module does with its
key parameters for its callers (`KeySummary`). Below `analysis/keys.py`, whose key flow asks
these for each call it meets.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.names import local_names
from jax_lsp.analysis.nodes import (
    child_nodes,
    dotted_name,
    is_none,
    own_returns,
    scope_nodes,
    scope_statements,
    walk_nodes,
)
from jax_lsp.analysis.traced import all_params, parameter_default_items
from jax_lsp.analysis.unit_memo import Keyed

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


@dataclass(frozen=True)
class DerivedKey:
    """The role of a call that derives its random numbers from a key without consuming it
    for JAX's checker (flax folds the module path into the key: `model.init(key, x)`,
    `model.apply(v, x, rngs={"dropout": key})`): two such calls of the same `family`
    ("init", "apply") with the same key give the same numbers; a `jax.random` draw after
    one does not meet them."""

    key: ast.expr
    family: str


def given_values(call: ast.Call, positional: list[str]) -> dict[str, ast.expr] | None:
    """The call's arguments by the parameter they bind (None: a `*args` hides which)."""
    given: dict[str, ast.expr] = {}
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if index < len(positional):
            given[positional[index]] = arg
    given.update((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg)
    return given


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def store_counts(function: ast.AST) -> Mapping[str, int]:
    """How often each name is bound (or deleted) in the function's own scope. A fact of the
    function's subtree alone, memoised on its node (the key summaries ask it of every
    function at each edit; untouched functions keep their nodes across parses)."""
    known = _STORE_COUNTS.get(function)
    if known is None:
        known = _STORE_COUNTS[function] = MappingProxyType(_store_counts(function))
    return known


def _store_counts(function: ast.AST) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in scope_nodes(function.body):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store):
            root = root_name(node)
            if root is not None:  # `carry["key"] = k`: the holder's paths change
                counts[root] = counts.get(root, 0) + 2
    return counts


# `store_counts` by function node. Weak keys: a forgotten tree takes its entries along.
_STORE_COUNTS: weakref.WeakKeyDictionary[ast.AST, Mapping[str, int]] = weakref.WeakKeyDictionary()


# -- library consumers -------------------------------------------------------------------------
@dataclass(frozen=True)
class KeyConsumer:
    """Where a library call takes its key: a positional place (None: by keyword only) and a
    keyword; `family` None when JAX's checker counts the call as consuming the key, else the
    family of a derived use (`DerivedKey`)."""

    position: int | None
    keyword: str | None
    family: str | None = None

    def key_of(self, call: ast.Call) -> ast.expr | None:
        if self.position is not None and self.position < len(call.args):
            if any(isinstance(a, ast.Starred) for a in call.args[: self.position + 1]):
                return None
            return call.args[self.position]
        return next((kw.value for kw in call.keywords if kw.arg == self.keyword), None)


# Library functions that draw from a key, by qualified name (each checked under the library
# with `jax_debug_key_reuse` in tests/rules/test_key_consumers.py).
LIBRARY_FUNCTIONS: dict[str, KeyConsumer] = {
    "haiku.dropout": KeyConsumer(0, "rng"),
    "numpyro.handlers.seed": KeyConsumer(1, "rng_seed"),
}


# Methods that draw from a key, of objects a library call made: by the maker's qualified name
# (one ending in "." stands for every maker of that module) and the method (`__call__`: the
# object called).
LIBRARY_METHODS: dict[str, dict[str, KeyConsumer]] = {
    "haiku.transform": {"init": KeyConsumer(0, "rng"), "apply": KeyConsumer(1, "rng")},
    "haiku.transform_with_state": {"init": KeyConsumer(0, "rng"), "apply": KeyConsumer(2, "rng")},
    "haiku.without_apply_rng": {"init": KeyConsumer(0, "rng")},
    "numpyro.infer.SVI": {"init": KeyConsumer(0, "rng_key")},
    "numpyro.infer.MCMC": {"run": KeyConsumer(0, "rng_key")},
    "numpyro.infer.Predictive": {"__call__": KeyConsumer(0, "rng_key")},
    "numpyro.distributions.": {"sample": KeyConsumer(0, "key")},
    "distrax.": {
        "sample": KeyConsumer(None, "seed"),
        "sample_and_log_prob": KeyConsumer(None, "seed"),
    },
    "tensorflow_probability.substrates.jax.distributions.": {
        "sample": KeyConsumer(None, "seed"),
        "sample_and_log_prob": KeyConsumer(None, "seed"),
    },
    "flax.linen.Dropout": {"__call__": KeyConsumer(None, "rng")},
    "flax.linen.": {},  # modules: `init` and `apply` as any module's
    # Of equinox's layers, only these read the key they are called with (dropout, a split
    # per layer or head); the others take `key=` for a uniform API and ignore it.
    "equinox.nn.Dropout": {"__call__": KeyConsumer(None, "key")},
    "equinox.nn.MultiheadAttention": {"__call__": KeyConsumer(None, "key")},
    "equinox.nn.Sequential": {"__call__": KeyConsumer(None, "key")},
    "equinox.nn.": {},
}

# Haiku calls that take a key from the transformed function's stream: `apply` splits the key
# it is given for them. A transformed function that calls none (an MLP, a linear model)
# leaves `apply`'s key unread (`init` draws the initial parameters from its own).
HAIKU_STREAM_DRAWS = frozenset(
    {"haiku.next_rng_key", "haiku.maybe_next_rng_key", "haiku.reserve_rng_keys"}
)
# What these makers' `apply` does with its key depends on the function they transform: made
# from a function not known to draw from the stream, the object is held under the maker's
# name with `DRAWS_NOTHING` added, whose `apply` reads no key.
_STREAM_MAKERS = frozenset({"haiku.transform", "haiku.transform_with_state"})
DRAWS_NOTHING = " of a function drawing nothing"
for _maker in _STREAM_MAKERS:
    LIBRARY_METHODS[_maker + DRAWS_NOTHING] = {
        m: c for m, c in LIBRARY_METHODS[_maker].items() if m != "apply"
    }
# What names bound to an instance of a flax linen module class known to draw nothing when
# applied (`linen_draws`) are held under: its `apply` reads no key from `rngs=` (its `init`
# still derives the initial parameters from the key, as any module's).
QUIET_LINEN_MODULE = "flax.linen.Module drawing nothing"


# Methods of an object the model cannot place, told by their spelling: a distribution's
# `sample(seed=key)` (distrax, TFP) consumes its key; a module's `init(key, ...)` (flax,
# haiku), and `apply(..., rngs={...: key})` (flax) or `apply(params, key, ...)` (haiku)
# derive from it (flax folds the module path in; a second use of the family gives the same
# numbers, a `jax.random` draw after one does not meet them). `init` and `apply` count only
# a key-named argument (`key`, `rng`, `init_key`): `opt.init(params)` takes none.
_SAMPLE_SEED = KeyConsumer(None, "seed")


_DERIVED_METHODS = {"init": KeyConsumer(0, "rng", "init"), "apply": KeyConsumer(1, "rng", "apply")}


_LIBRARY_METHOD_NAMES = frozenset(
    {"sample", "init", "apply", "run", *(m for t in LIBRARY_METHODS.values() for m in t)}
)


# The libraries whose makers `LIBRARY_METHODS` lists.
LIBRARY_MAKER_ROOTS = (
    "haiku",
    "numpyro",
    "distrax",
    "tensorflow_probability",
    "flax",
    "equinox",
)


def _maker_methods(maker: str | None) -> dict[str, KeyConsumer] | None:
    if not maker:
        return None
    found = LIBRARY_METHODS.get(maker)
    if found is None:
        module = maker.rpartition(".")[0] + "."
        while module != ".":
            if (found := LIBRARY_METHODS.get(module)) is not None:
                break
            module = module[:-1].rpartition(".")[0] + "."
    return found


def key_named(expr: ast.expr) -> bool:
    """A key by its name: the last part of its path spells `key` or `rng`."""
    if isinstance(expr, ast.Attribute):
        name = expr.attr
    elif isinstance(expr, ast.Name):
        name = expr.id
    elif isinstance(expr, ast.Subscript):
        index = expr.slice
        name = index.value if isinstance(index, ast.Constant) and type(index.value) is str else ""
        name = name or (expr.value.id if isinstance(expr.value, ast.Name) else "")
    else:
        return False
    lowered = name.lower()
    return "key" in lowered or "rng" in lowered


def library_key(
    call: ast.Call,
    resolver: Resolver,
    makers: Mapping[str, str],
    drawers: frozenset[str] = frozenset(),
) -> ast.expr | DerivedKey | None:
    """The key a library call draws from (`LIBRARY_FUNCTIONS`, `LIBRARY_METHODS`), a
    `DerivedKey` for a derived use, else None. `makers`: names bound to an object a library
    call made -> the maker's qualified name; `drawers`: the module's functions and classes
    that draw from haiku's key stream (`KeyFacts.rng_stream_drawers`), whose transform's
    `apply` called at once (`hk.transform(f).apply(params, key, x)`) draws from its key."""
    func = call.func
    qualname = resolver.qualname(func)
    if qualname:
        consumer = LIBRARY_FUNCTIONS.get(qualname)
        return consumer.key_of(call) if consumer is not None else None
    if isinstance(func, ast.Attribute):
        held = _maker_methods(makers.get(dotted_name(func) or ""))
        if held is not None:  # `self.drop(x, key=key)`: an attribute holding a library object
            consumer = held.get("__call__")
            if consumer is None or switched_off(call):
                return None
            return consumer.key_of(call)
        method = func.attr
        if method not in _LIBRARY_METHOD_NAMES:
            return None
        receiver = func.value
        maker = None
        if isinstance(receiver, ast.Name):
            maker = makers.get(receiver.id)
        elif isinstance(receiver, ast.Call):
            maker = resolver.qualname(receiver.func)
            if maker in _STREAM_MAKERS and not _transformed_draws(receiver, {}, resolver, drawers):
                maker += DRAWS_NOTHING
        if maker == QUIET_LINEN_MODULE and method == "apply":
            return None
        consumer = (_maker_methods(maker) or {}).get(method)
        if consumer is not None:
            return consumer.key_of(call)
        if maker is not None and maker.endswith(DRAWS_NOTHING):
            return None  # its `apply` reads no key: not a module's `apply` told by spelling
        if method == "sample":
            return _SAMPLE_SEED.key_of(call)
        if method == "apply":
            rngs = next((kw.value for kw in call.keywords if kw.arg == "rngs"), None)
            if rngs is not None:
                keys = rngs.values if isinstance(rngs, ast.Dict) else [rngs]
                if len(keys) == 1 and keys[0] is not None:
                    return DerivedKey(keys[0], "apply")  # one stream: one key to follow
                return None
        consumer = _DERIVED_METHODS.get(method)
        if consumer is not None:
            key = consumer.key_of(call)
            if key is not None and key_named(key):
                return DerivedKey(key, consumer.family)
        return None
    if isinstance(func, ast.Call):  # `nn.Dropout(0.5)(x, rng=key)`
        table = _maker_methods(resolver.qualname(func.func))
        consumer = table.get("__call__") if table else None
        if consumer is None or switched_off(call) or switched_off(func):
            return None
        return consumer.key_of(call)
    if isinstance(func, ast.Name):
        table = _maker_methods(makers.get(func.id))
        consumer = table.get("__call__") if table else None
        if consumer is None or switched_off(call):
            return None
        return consumer.key_of(call)
    return None


# Keywords that switch a dropout layer off, given `True` when it is built or called (equinox's
# `inference`, flax's `deterministic`): it returns its input and reads no key.
_SWITCHES_OFF = frozenset({"inference", "deterministic"})


def switched_off(call: ast.Call) -> bool:
    """`Dropout(0.5, inference=True)`, `drop(x, key=key, deterministic=True)`."""
    return any(
        k.arg in _SWITCHES_OFF and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )


# What code spells where it may hand a key to a library consumer (`library_key`).
LIBRARY_KEY_WORDS = (
    ".init(",
    ".apply(",
    ".sample(",
    ".run(",
    "seed",
    "dropout",
    "Dropout",
    "Predictive",
)


def may_use_library_key(text: str) -> bool:
    """Can code with this text hand a key to a library consumer (`library_key`)?"""
    return any(map(text.__contains__, LIBRARY_KEY_WORDS))


def library_makers(
    statements: list[ast.stmt],
    resolver: Resolver,
    drawers: frozenset[str] = frozenset(),
    quiet: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """Names a scope binds (once, or always to the same maker) to an object a library call
    made (`net = hk.transform(f)`, `d = distrax.Normal(0, 1)`): name -> the maker's qualified
    name, for the makers `LIBRARY_METHODS` lists (with `DRAWS_NOTHING` added for a haiku
    transform of a function not known to draw from the key stream). `drawers`: the module's
    functions and classes that draw from it (`KeyFacts.rng_stream_drawers`); `quiet`: the
    names of flax linen module classes known to draw nothing when applied, whose instances
    are held under `QUIET_LINEN_MODULE`."""
    found: dict[str, str] = {}
    mixed: set[str] = set()
    local: dict[str, ast.AST] | None = None
    for node in scope_statements(statements):  # assignments and definitions only
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            maker = resolver.qualname(node.value.func) if isinstance(node.value, ast.Call) else None
            if quiet and _calls_one_of(node.value, quiet):
                maker = QUIET_LINEN_MODULE
            if maker in _STREAM_MAKERS:
                if local is None:
                    local = {
                        n.name: n
                        for n in scope_statements(statements)
                        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                    }
                if not _transformed_draws(node.value, local, resolver, drawers):
                    maker += DRAWS_NOTHING
            if maker and switched_off(node.value):
                maker = None  # `eqx.nn.Dropout(0.1, inference=True)`: draws nothing
            for name in names:
                if maker and _maker_methods(maker) is not None:
                    if found.setdefault(name, maker) != maker:
                        mixed.add(name)
                else:
                    mixed.add(name)
    return {name: maker for name, maker in found.items() if name not in mixed}


def _calls_one_of(value: ast.expr, names: frozenset[str]) -> bool:
    """`MLP(...)` for a name among `names`."""
    return (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in names
    )


def _transformed_draws(
    call: ast.Call, local: Mapping[str, ast.AST], resolver: Resolver, drawers: frozenset[str]
) -> bool:
    """Is the function a haiku transform is given known to draw from the key stream: a lambda
    or a function of the scope whose code does (`draws_from_stream`), or a function of the
    module among `drawers`? One the model cannot see is not."""
    function = call.args[0] if call.args else None
    if isinstance(function, ast.Lambda):
        return draws_from_stream(function, resolver, drawers)
    if isinstance(function, ast.Name):
        if function.id in local:
            return draws_from_stream(local[function.id], resolver, drawers)
        return function.id in drawers
    return False


def draws_from_stream(node: ast.AST, resolver: Resolver, drawers: frozenset[str]) -> bool:
    """Does the code under `node` take a key from haiku's stream (`HAIKU_STREAM_DRAWS`), or
    name one of the module's functions and classes that do (`drawers`)?"""
    for child in walk_nodes(node):
        if isinstance(child, ast.Name) and child.id in drawers:
            return True
        if isinstance(child, ast.Call) and resolver.qualname(child.func) in HAIKU_STREAM_DRAWS:
            return True
    return False


def attribute_makers(cls: ast.ClassDef, aliases: Keyed[Resolver]) -> dict[str, str]:
    """Attributes of the instance that the class's methods bind (always to the same maker)
    to an object a library call made (`self.drop = eqx.nn.Dropout(0.1)`): attribute -> the
    maker's qualified name, for the makers `LIBRARY_METHODS` lists (a haiku transform, whose
    `apply` depends on the function it transforms, is left out). Memoised on the class node
    and the import aliases' key (`ModuleModel.aliases`: a later model's resolver, made anew
    from the same imports, answers alike)."""
    known = _ATTRIBUTE_MAKERS.get(cls)
    if known is not None and known[0] == aliases.key:
        return known[1]
    resolver = aliases.value
    found: dict[str, str] = {}
    mixed: set[str] = set()
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        positional = [*method.args.posonlyargs, *method.args.args]
        if not positional:
            continue
        me = positional[0].arg
        for node in walk_nodes(method):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                for target in targets:
                    if not (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == me
                    ):
                        continue
                    maker = resolver.qualname(value.func) if isinstance(value, ast.Call) else None
                    listed = maker not in _STREAM_MAKERS and _maker_methods(maker) is not None
                    listed = listed and not switched_off(value)
                    if not listed or found.setdefault(target.attr, maker) != maker:
                        mixed.add(target.attr)
    result = {attribute: maker for attribute, maker in found.items() if attribute not in mixed}
    _ATTRIBUTE_MAKERS[cls] = (aliases.key, result)
    return result


# `attribute_makers` by class node: (the aliases' key asked with, attribute -> maker). Weak
# keys: a forgotten tree takes its entries along.
_ATTRIBUTE_MAKERS: weakref.WeakKeyDictionary[ast.AST, tuple[Hashable, dict[str, str]]] = (
    weakref.WeakKeyDictionary()
)


# -- what a function does with its key parameters, for its callers ------------------------------
@dataclass(frozen=True)
class KeySummary:
    """A function's key parameters as its callers see them: those it derives from (a flax
    `init`/`apply`, by family) and those it returns after consuming them (place in the
    returned tuple, -1 for the whole value)."""

    derived: tuple[tuple[str, str], ...] = ()
    returned: tuple[tuple[int, str], ...] = ()


def derived_params(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], object],
) -> tuple[tuple[str, str], ...]:
    """(parameter, family) of the derived uses (`DerivedKey`) of parameters the function
    never rebinds, its own or those of functions nested in it that close over the parameter
    (a loss function given to `jax.grad`, run once per call)."""
    params = set(all_params(function))
    found: dict[str, str] = {}
    rebound: set[str] = set()
    for node in walk_nodes(function):
        if node is not function and isinstance(node, _FUNCTIONS):
            rebound |= local_names(node) & params
        elif isinstance(node, ast.Call):
            role = classify(node)
            named = type(role) is DerivedKey and isinstance(role.key, ast.Name)
            if named and role.key.id in params:
                found.setdefault(role.key.id, role.family)
    if not found:
        return ()
    stores = store_counts(function)
    return tuple(sorted((p, f) for p, f in found.items() if not stores.get(p) and p not in rebound))


def returned_keys(
    function: ast.FunctionDef | ast.AsyncFunctionDef, consumed: frozenset[str]
) -> tuple[tuple[int, str], ...]:
    """The consumed parameters (never rebound) that every return hands back, each at the same
    place: `return action, key` after drawing from `key`."""
    if not consumed:
        return ()
    stores = store_counts(function)
    kept = {p for p in consumed if not stores.get(p)}
    returns = own_returns(function)
    if not kept or not returns:
        return ()
    common: set[tuple[int, str]] | None = None
    for value in returns:
        places: set[tuple[int, str]] = set()
        if isinstance(value, ast.Name) and value.id in kept:
            places.add((-1, value.id))
        elif isinstance(value, ast.Tuple) and not any(
            isinstance(e, ast.Starred) for e in value.elts
        ):
            places = {
                (i, e.id)
                for i, e in enumerate(value.elts)
                if isinstance(e, ast.Name) and e.id in kept
            }
        common = places if common is None else common & places
        if not common:
            return ()
    return tuple(sorted(common or ()))


def arguments_by_param(call: ast.Call, positional: tuple[str, ...]) -> dict[str, ast.expr] | None:
    """The call's arguments by the parameter they bind (None: a `*args` hides which)."""
    return given_values(call, list(positional))


# -- when a function reads its key parameter ----------------------------------------------------
# What a parameter is where a key is read: None, not None, true or false (`if train:`).
IS_NONE, NOT_NONE, TRUTHY, FALSY = "none", "not-none", "truthy", "falsy"
_OPPOSITE = {IS_NONE: NOT_NONE, NOT_NONE: IS_NONE, TRUTHY: FALSY, FALSY: TRUTHY}
DrawCondition = tuple[str, str]  # (parameter, IS_NONE | NOT_NONE | TRUTHY | FALSY)


# What a call gives a key to: the conditions (on the caller's parameters) under which the
# callee reads it, or `NEVER_READ` when the call's arguments break them (None: not known).
PassedKey = Callable[[ast.Call, str], "frozenset[DrawCondition] | None"]
NEVER_READ: frozenset[DrawCondition] = frozenset({("", "never")})


def draw_conditions(
    function: ast.FunctionDef | ast.AsyncFunctionDef, key: str, passed: PassedKey | None = None
) -> frozenset[DrawCondition]:
    """What holds of the function's other parameters wherever it reads its parameter `key`:
    every read sits under `if train:`, `if not deterministic:`, `if cache is None:` (or the
    `else`, or after `if deterministic: return x`). A caller whose arguments break one of
    them (`train=False`, or leaving a default that does) has its key left unread. A
    parameter the function rebinds tells nothing. `passed` says what a call the function
    hands `key` to does with it (a helper reading it under a condition on an argument the
    function passes on: `forward(x, key, train)`). Without `passed`, memoised on the node: a
    fact of its subtree."""
    if passed is not None:
        return _draw_conditions(function, key, passed)
    known = _DRAW_CONDITIONS.get(function)
    if known is None:
        known = _DRAW_CONDITIONS[function] = {}
    found = known.get(key)
    if found is None:
        found = known[key] = _draw_conditions(function, key, None)
    return found


def _draw_conditions(
    function: ast.FunctionDef | ast.AsyncFunctionDef, key: str, passed: PassedKey | None
) -> frozenset[DrawCondition]:
    # A test tells what a parameter holds as passed only before the function rebinds it
    # (`if noise is None: noise = normal(key, shape)` rebinds it after).
    first_store: dict[str, int] = {}
    for node in scope_nodes(function.body):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            first_store[node.id] = min(node.lineno, first_store.get(node.id, node.lineno))
    candidates = frozenset(all_params(function)) - {key}
    found: frozenset[DrawCondition] | None = None

    def holding_when(test: ast.expr, truth: bool) -> frozenset[DrawCondition]:
        params = frozenset(
            p for p in candidates if first_store.get(p, test.lineno + 1) > test.lineno
        )
        return _holding_when(test, params, truth)

    def visit(node: ast.AST, holding: frozenset[DrawCondition]) -> None:
        nonlocal found
        if isinstance(node, ast.Name) and node.id == key:
            found = holding if found is None else found & holding
        elif passed is not None and isinstance(node, ast.Call) and _hands_over(node, key):
            extra = passed(node, key)
            for child in ast.iter_child_nodes(node):
                value = child.value if isinstance(child, ast.keyword) else child
                if extra is None or not (isinstance(value, ast.Name) and value.id == key):
                    visit(child, holding)
                elif extra is not NEVER_READ:
                    visit(value, holding | extra)
        elif isinstance(node, ast.If | ast.IfExp):
            visit(node.test, holding)
            when_true = holding | holding_when(node.test, True)
            when_false = holding | holding_when(node.test, False)
            if isinstance(node, ast.If):
                block(node.body, when_true)
                block(node.orelse, when_false)
            else:
                visit(node.body, when_true)
                visit(node.orelse, when_false)
        else:
            for child in child_nodes(node):  # markers (Load, Add, ...) hold no key
                if not isinstance(child, _STATEMENT_PARTS):
                    visit(child, holding)
            for field in ("body", "orelse", "finalbody"):
                statements = getattr(node, field, None)
                if isinstance(statements, list):  # (a lambda's body is an expression)
                    block(statements, holding)
            for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
                visit(part, holding)

    def block(statements: list[ast.stmt], holding: frozenset[DrawCondition]) -> None:
        for statement in statements:
            visit(statement, holding)
            if isinstance(statement, ast.If):
                # `if deterministic: return x`: what follows runs only when the test failed.
                if _exits(statement.body) and not _exits(statement.orelse):
                    holding = holding | holding_when(statement.test, False)
                elif _exits(statement.orelse) and not _exits(statement.body):
                    holding = holding | holding_when(statement.test, True)

    block(function.body, frozenset())
    return found or frozenset()


_STATEMENT_PARTS = (ast.stmt, ast.excepthandler, ast.match_case)


def handing_over(function: ast.AST, key: str) -> tuple[ast.Call, ...]:
    """The calls under the function that take the name `key` itself as an argument.
    Memoised on the node: a fact of its subtree."""
    known = _HANDING_OVER.get(function)
    if known is None:
        known = _HANDING_OVER[function] = {}
    found = known.get(key)
    if found is None:
        found = known[key] = tuple(
            node
            for node in walk_nodes(function)
            if isinstance(node, ast.Call) and _hands_over(node, key)
        )
    return found


def _hands_over(call: ast.Call, key: str) -> bool:
    """Does the call take the name `key` itself as an argument?"""
    return any(isinstance(a, ast.Name) and a.id == key for a in call.args) or any(
        isinstance(k.value, ast.Name) and k.value.id == key for k in call.keywords
    )


def _exits(body: list[ast.stmt]) -> bool:
    """The block leaves what holds it: the statements after it run only when it did not."""
    return bool(body) and isinstance(body[-1], ast.Return | ast.Raise | ast.Continue | ast.Break)


def _holding_when(test: ast.expr, params: frozenset[str], truth: bool) -> frozenset[DrawCondition]:
    """What `test` being `truth` says of the parameters: `train` true -> (train, TRUTHY);
    `not a and b is None` true -> (a, FALSY), (b, IS_NONE); `a or b` false -> both FALSY."""
    if isinstance(test, ast.Name) and test.id in params:
        return frozenset({(test.id, TRUTHY if truth else FALSY)})
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _holding_when(test.operand, params, not truth)
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is | ast.IsNot)
        and isinstance(test.left, ast.Name)
        and test.left.id in params
        and is_none(test.comparators[0])
    ):
        state = IS_NONE if isinstance(test.ops[0], ast.Is) else NOT_NONE
        return frozenset({(test.left.id, state if truth else _OPPOSITE[state])})
    # Every operand of a true `and` (of a false `or`) holds; of the others, nothing is known.
    if isinstance(test, ast.BoolOp) and truth == isinstance(test.op, ast.And):
        return frozenset().union(*(_holding_when(v, params, truth) for v in test.values))
    return frozenset()


def breaks_condition(
    condition: DrawCondition, value: ast.expr, may_be_none: Callable[[ast.expr], bool]
) -> bool:
    """Does the argument (or default) `value` make `condition` false? A literal does
    (`train=False` against TRUTHY); for IS_NONE, any value that cannot be None
    (`may_be_none`: the caller's judgement of a name it passes)."""
    state = condition[1]
    if state == IS_NONE:
        return not may_be_none(value)
    if not isinstance(value, ast.Constant):
        return False
    if state == NOT_NONE:
        return value.value is None
    return bool(value.value) is (state == FALSY)


def parameter_defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """The function's parameters with a default, to that default."""
    return dict(parameter_default_items(function))


# `handing_over` by function node, then key name. Weak keys, as below.
_HANDING_OVER: weakref.WeakKeyDictionary[ast.AST, dict[str, tuple[ast.Call, ...]]] = (
    weakref.WeakKeyDictionary()
)
# `draw_conditions` by function node, then key parameter. Weak keys: a forgotten tree takes its
# entries along.
_DRAW_CONDITIONS: weakref.WeakKeyDictionary[ast.AST, dict[str, frozenset[DrawCondition]]] = (
    weakref.WeakKeyDictionary()
)
