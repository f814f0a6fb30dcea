"""PRNG key reuse: a small flow walk over one scope, tracking which key names were consumed.

A key name is *consumed* once a `jax.random` sampler draws with it (or a helper of this module
does). Rebinding the name (`key, sub = jax.random.split(key)`, a loop target) makes it fresh.
Exclusive branches start from the same state and merge afterwards; loop bodies are walked
twice, so a key drawn from in the body and never rebound there is reported on the second
pass (every iteration draws the same numbers). A key handed to an unknown function is
*unsure*: the next draw is not reported, the one after is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import child_nodes, walk_nodes
from jax_lsp.analysis.text import contains_word
from jax_lsp.analysis.traced import all_params, positional_params
from jax_lsp.compat import TRY_STATEMENTS

if TYPE_CHECKING:
    from jax_lsp.analysis.model import ModuleModel

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
# Calls into these never consume a key (split/fold_in derive new keys, jnp computes).
_NON_CONSUMING_PREFIXES = ("jax.random.", "jax.numpy.", "jax.lax.", "builtins.", "numpy.", "math.")
_UNSURE = "unsure"
PASS = "pass"
_TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

# name -> the call that consumed it (or _UNSURE). Names absent are fresh or not keys.
State = dict[str, object]


@dataclass(frozen=True)
class Reuse:
    call: ast.Call  # the second draw
    key: ast.Name  # its key argument
    first: ast.Call  # the draw that consumed the key before
    across_iterations: bool


def key_argument(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg == "key"), None)


def _merge(first: State, second: State) -> State:
    merged = dict(first)
    for name, use in second.items():
        merged.setdefault(name, use)
    return merged


def _terminates(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _TERMINATORS)


def _bound_names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


class KeyFlow:
    """Finds key reuse in one scope's statements (nested functions are their own scopes)."""

    def __init__(self, classify: Callable[[ast.Call], ast.expr | str | None]) -> None:
        # classify(call) -> the key argument a call draws with (a sampler, or a helper of
        # this module that samples with that parameter), PASS (its arguments go somewhere
        # unknown) or None (a call that consumes no key: jnp, split, builtins, ...).
        self.classify = classify
        self.reuses: dict[ast.Call, Reuse] = {}
        self._iteration = 0  # >0 while re-walking a loop body

    def run(self, statements: list[ast.stmt], state: State | None = None) -> list[Reuse]:
        """Reuses in `statements`, walked from `state` (updated in place: the state after)."""
        self.reuses = {}
        state = {} if state is None else state
        after = self.block(statements, state)
        if after is not state:
            state.clear()
            state.update(after)
        return sorted(self.reuses.values(), key=lambda r: (r.call.lineno, r.call.col_offset))

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
            body = self.block(node.body, dict(state))
            orelse = self.block(node.orelse, dict(state))
            return self._join(node.body, body, node.orelse, orelse)
        if isinstance(node, ast.For | ast.AsyncFor):
            self.expression(node.iter, state)
            return self._loop(node.body, node.orelse, state, node.target)
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
        for target in _targets(node):
            self._forget(state, _bound_names(target))
        return state

    def _join(self, body: list, body_state: State, orelse: list, else_state: State) -> State:
        if _terminates(body):
            return else_state
        if _terminates(orelse):
            return body_state
        return _merge(body_state, else_state)

    def _loop(self, body: list, orelse: list, state: State, target: ast.expr | None) -> State:
        if body and isinstance(body[-1], ast.Break | ast.Return | ast.Raise):
            # The body runs at most once: walk it once.
            entry = dict(state)
            if target is not None:
                self._forget(entry, _bound_names(target))
            return _merge(state, self.block(body, entry))
        first = dict(state)
        if target is not None:
            self._forget(first, _bound_names(target))
        after_first = self.block(body, first)
        second = _merge(state, after_first)
        if target is not None:
            self._forget(second, _bound_names(target))
        self._iteration += 1
        after_second = self.block(body, second)
        self._iteration -= 1
        return self.block(orelse, _merge(state, after_second))

    @staticmethod
    def _forget(state: State, names: list[str]) -> None:
        for name in names:
            state.pop(name, None)

    # -- expressions ----------------------------------------------------------------------
    def expression(self, node: ast.expr, state: State) -> None:
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.IfExp):
            self.expression(node.test, state)
            body, orelse = dict(state), dict(state)
            self.expression(node.body, body)
            self.expression(node.orelse, orelse)
            state.update(_merge(body, orelse))
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return  # comprehensions: their own scope; not tracked
        if isinstance(node, ast.NamedExpr):
            self.expression(node.value, state)
            self._forget(state, [node.target.id])
            return
        for child in child_nodes(node):
            if isinstance(child, ast.expr):
                self.expression(child, state)
        if isinstance(node, ast.Call):
            self._call(node, state)

    def _call(self, call: ast.Call, state: State) -> None:
        role = self.classify(call)
        if role is None:
            return
        if role == PASS:
            for arg in [*call.args, *(kw.value for kw in call.keywords)]:
                if isinstance(arg, ast.Name) and arg.id not in state:
                    state[arg.id] = _UNSURE  # maybe consumed; a consumed key stays consumed
            return
        if not isinstance(role, ast.Name):
            return
        previous = state.get(role.id)
        if isinstance(previous, ast.Call):
            if call not in self.reuses:
                across = self._iteration > 0 and previous is call
                self.reuses[call] = Reuse(call, role, previous, across)
        else:
            state[role.id] = call


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


def drawn_params(function: ast.FunctionDef, resolver: Resolver) -> frozenset[str]:
    """Parameters the function passes, never rebound, straight to a sampler."""
    params = set(all_params(function))
    rebound: set[str] = set()
    keys: list[str] = []
    for node in walk_nodes(function):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                rebound.add(node.id)
        elif isinstance(node, ast.Call) and resolver.qualname(node.func) in SAMPLERS:
            key = key_argument(node)
            if isinstance(key, ast.Name) and key.id in params:
                keys.append(key.id)
    return frozenset(key for key in keys if key not in rebound)


def may_draw(text: str, resolver: Resolver) -> bool:
    """Can code with this text call a `jax.random` sampler? Every spelling of one contains
    "random" or a name bound to `jax.random` or inside it (`jr.normal`, `from jax.random
    import normal`)."""
    if "random" in text:
        return True
    return any(contains_word(text, alias) for alias in resolver.names_bound_under("jax.random"))


def classify_call(call: ast.Call, resolver: Resolver, model: ModuleModel):
    """The KeyFlow role of a call in a module: the key a sampler or a key helper of the
    module draws with, None for calls that consume no key, else PASS."""
    qualname = resolver.qualname(call.func)
    if qualname in SAMPLERS:
        return key_argument(call)
    if qualname and qualname.startswith(_NON_CONSUMING_PREFIXES):
        return None
    if isinstance(call.func, ast.Name):
        record = model.functions.get(call.func.id)
        drawn = model.key_helpers.get(call.func.id)
        if record is not None and drawn:
            argument = _argument_for(call, record.node, drawn)
            if argument is not None:
                return argument
    return PASS


def _argument_for(call: ast.Call, function: ast.FunctionDef, drawn: frozenset[str]):
    if not drawn:
        return None
    positional = positional_params(function)
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if index < len(positional) and positional[index] in drawn:
            return arg
    for keyword in call.keywords:
        if keyword.arg in drawn:
            return keyword.value
    return None
