"""What the purity rules share: does a value carry a tracer, is code staged or compiled once,
which calls log."""

from __future__ import annotations

import ast

from jax_lsp.analysis.hashing import STAGING_TRANSFORMS, dominating_binding
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.module_state import bound_names, declared_outside
from jax_lsp.analysis.nodes import is_text, walk_nodes
from jax_lsp.analysis.summary import FunctionNode, transform_of
from jax_lsp.diagnostics.base import Rule, RuleContext

# Container methods that store their argument in the container.
STORING_METHODS = frozenset(["append", "extend", "insert", "update", "setdefault"])


class FunctionScopes:
    """Per-analysis cache of each function's own names."""

    def __init__(self) -> None:
        self._bound: dict[ast.AST, frozenset[str]] = {}
        self._declared: dict[ast.AST, frozenset[str]] = {}

    def declared(self, function: FunctionNode) -> frozenset[str]:
        """Names the function declares `global` or `nonlocal`."""
        if function not in self._declared:
            self._declared[function] = declared_outside(function)
        return self._declared[function]

    def bound(self, function: FunctionNode) -> frozenset[str]:
        if function not in self._bound:
            self._bound[function] = bound_names(function)
        return self._bound[function]

    def is_local(self, ctx: RuleContext, name: str) -> bool:
        """Bound by any enclosing function (so not a module-level name)."""
        return any(name in self.bound(function) for function in ctx.functions)


# Calls that turn a value into text (and so carry the tracer's text along).
_TEXT_CALLS = frozenset({"builtins.str", "builtins.repr", "builtins.format"})


# Array-producing expressions: under a staging trace (jit, lax bodies) each is a new tracer,
# whatever its operands; reading a closed-over array (a name, an attribute) is not.
_OPERATIONS = (ast.Call, ast.BinOp, ast.UnaryOp, ast.Subscript)


def carries_tracer(expr: ast.expr, ctx: RuleContext) -> bool:
    """A traced value, or an expression that holds or formats one: a display (list, tuple,
    dict), a comprehension, an f-string, `str(y)`, `"{}".format(y)`, `"a" + str(y)`."""
    kind = ctx.kind(expr)
    if kind is Kind.TRACED:
        return True
    if kind is Kind.ARRAY and isinstance(expr, _OPERATIONS) and in_staged_code(ctx):
        return True
    if isinstance(expr, ast.List | ast.Tuple | ast.Set):
        return any(carries_tracer(element, ctx) for element in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(carries_tracer(value, ctx) for value in expr.values)
    if isinstance(expr, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        return carries_tracer(expr.elt, ctx) or _arithmetic_on_traced_items(expr, ctx)
    if isinstance(expr, ast.DictComp):
        return carries_tracer(expr.value, ctx)
    if isinstance(expr, ast.Starred):
        return carries_tracer(expr.value, ctx)
    if isinstance(expr, ast.Lambda):
        return _closes_over_tracer(expr, ctx)
    if isinstance(expr, ast.JoinedStr):
        return any(
            isinstance(part, ast.FormattedValue) and carries_tracer(part.value, ctx)
            for part in expr.values
        )
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Mod):
        return is_text(expr.left) and (
            carries_tracer(expr.left, ctx) or carries_tracer(expr.right, ctx)
        )
    if isinstance(expr, ast.Call):
        return _formats_tracer(expr, ctx)
    if isinstance(expr, ast.Name) and in_staged_code(ctx) and _jitted_result(expr, ctx):
        return True
    # A name or item holding a container of tracers (`print(metrics)`: its repr shows them).
    return isinstance(expr, ast.Name | ast.Subscript | ast.Attribute) and ctx.holds_tracer(expr)


_ITEM_CALLS = frozenset({"builtins.zip", "builtins.enumerate", "builtins.reversed"})


def _arithmetic_on_traced_items(comprehension: ast.ListComp, ctx: RuleContext) -> bool:
    """`[w - lr * g for w, g in zip(params, grads)]` with `grads` traced, under a staging
    trace: arithmetic on an item of a traced pytree gives a tracer."""
    if not in_staged_code(ctx):
        return False
    items: set[str] = set()
    for generator in comprehension.generators:
        sources = [generator.iter]
        if (
            isinstance(generator.iter, ast.Call)
            and ctx.qualname(generator.iter.func) in _ITEM_CALLS
        ):
            sources = generator.iter.args
        if any(carries_tracer(source, ctx) for source in sources):
            items |= {n.id for n in walk_nodes(generator.target) if isinstance(n, ast.Name)}
    if not items:
        return False
    results = (
        comprehension.elt.elts if isinstance(comprehension.elt, ast.Tuple) else [comprehension.elt]
    )
    return any(
        isinstance(result, ast.BinOp | ast.UnaryOp)
        and any(isinstance(n, ast.Name) and n.id in items for n in walk_nodes(result))
        for result in results
    )


def _formats_tracer(call: ast.Call, ctx: RuleContext) -> bool:
    """`str(y)`, `repr(y)`, `format(y)`, `"...".format(y)` of a traced value."""
    func = call.func
    text_call = ctx.qualname(func) in _TEXT_CALLS or (
        isinstance(func, ast.Attribute) and func.attr == "format" and is_text(func.value)
    )
    if not text_call:
        return False
    arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
    return any(carries_tracer(argument, ctx) for argument in arguments)


def _closes_over_tracer(function: ast.Lambda, ctx: RuleContext) -> bool:
    """A lambda that reads a traced name of the scope it is made in keeps the tracer alive
    in its closure (`[lambda: x]`): storing it outside leaks the tracer like storing `x`."""
    own = bound_names(function)
    return any(
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and node.id not in own
        and ctx.kind(node) is Kind.TRACED
        for node in walk_nodes(function.body)
    )


def _jitted_result(name: ast.Name, ctx: RuleContext) -> bool:
    """A name bound (where it is read) to the result of calling a jitted function of this
    module: under a staging trace, its outputs are tracers whatever its inputs."""
    binding = dominating_binding(name.id, [*ctx.ancestors, name])
    if binding is None or not isinstance(binding.value, ast.Call):
        return False
    func = binding.value.func
    if isinstance(func, ast.Call) and transform_of(func.func, ctx.resolvers[-1]) is not None:
        return True  # `jax.grad(f)(w)`, `jax.jit(f)(x)`: staged outputs
    if not isinstance(func, ast.Name) or any(
        func.id in bound_names(function) for function in ctx.functions
    ):
        return False
    return func.id in ctx.model.hash_facts.jitted_functions


def staged(function: FunctionNode, model: ModuleModel, depth: int = 0) -> bool:
    """Does JAX stage this function out (jit, `lax` bodies, functions they call)? There every
    operation gives a tracer; under `vmap` or `grad` alone, operations on unbatched
    constants still compute concrete arrays."""
    if depth >= _MAX_CALL_DEPTH:
        return False
    info = model.trace.get(function)
    if info is not None:
        if info.via in STAGING_TRANSFORMS or info.via.startswith("lax."):
            return True
        if info.transforms & STAGING_TRANSFORMS:
            return True
        caller = model.functions.get(info.via.removeprefix("called from "))
        if (
            info.via.startswith("called from ")
            and caller is not None
            and staged(caller.node, model, depth + 1)
        ):
            return True
    return any(staged(outer, model, depth + 1) for outer in model.enclosing_chain(function))


def in_staged_code(ctx: RuleContext) -> bool:
    return ctx.abstract and any(staged(function, ctx.model) for function in ctx.functions)


# Transformations that compile once and reuse the result for same-shaped arguments.
CACHING_TRANSFORMS = frozenset(["jit", "pmap", "eqx.filter_jit", "nnx.jit"])


_MAX_CALL_DEPTH = 8


def compiled_once(function: FunctionNode, model: ModuleModel, depth: int = 0) -> bool:
    """Is this function's trace reused across calls (so trace-time effects happen once)?

    `jax.jit` caches by function and argument shapes; `lax` control flow caches the trace of
    a named body function by identity, but a lambda made inside a plain function is new (and
    retraced) on every call.
    """
    info = model.trace.get(function)
    if info is not None and depth < _MAX_CALL_DEPTH:
        record = model.records.get(function)
        # Every transformation tracing it, as the trace it keeps (else only `via` is known).
        applied = info.transforms or frozenset([info.via])
        if applied & CACHING_TRANSFORMS:
            return True
        if info.via.startswith("lax.") and record is not None and record.parent is None:
            return True
        caller = model.functions.get(info.via.removeprefix("called from "))
        if info.via.startswith("called from ") and caller is not None:
            return compiled_once(caller.node, model, depth + 1)
    return any(
        compiled_once(outer, model, depth + 1)
        for outer in model.enclosing_chain(function)
        if depth < _MAX_CALL_DEPTH
    )


def in_compiled_code(ctx: RuleContext) -> bool:
    return any(compiled_once(function, ctx.model) for function in ctx.functions)


_LOG_LEVELS = ("debug", "info", "warning", "warn", "error", "critical", "exception", "log")


LOGGING_FUNCTIONS = frozenset(
    f"{module}.{level}" for module in ("logging", "absl.logging") for level in _LOG_LEVELS
)


_LOGGER_FACTORIES = frozenset({"logging.getLogger", "absl.logging.get_absl_logger"})


def logger_call(func: ast.expr, ctx: RuleContext) -> bool:
    """`logger.info(...)` on a module-level `logger = logging.getLogger(...)`."""
    if not (
        isinstance(func, ast.Attribute)
        and func.attr in _LOG_LEVELS
        and isinstance(func.value, ast.Name)
    ):
        return False
    value = ctx.model.stable_globals.get(func.value.id)
    return isinstance(value, ast.Call) and ctx.qualname(value.func) in _LOGGER_FACTORIES


class StateRule(Rule):
    """Shares the per-analysis scope cache between the global read and write rules."""

    def __init__(self) -> None:
        self._scopes = FunctionScopes()
