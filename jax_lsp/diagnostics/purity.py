"""Side effects in traced code (JAX101-JAX104): JAX runs the Python function once, to trace it.

Prints, global reads and writes, and iterator steps happen at trace time only; the compiled
function replays the recorded array operations without them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from jax_lsp.analysis.attributes import bound_method_transforms
from jax_lsp.analysis.hashing import (
    STAGING_TRANSFORMS,
    Binding,
    dominating_binding,
    instance_of,
    static_arguments,
)
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.module_state import bound_names, declared_outside
from jax_lsp.analysis.nodes import all_params, child_nodes, is_text, walk_nodes
from jax_lsp.analysis.objects import self_assignments
from jax_lsp.analysis.summary import FunctionNode, transform_of
from jax_lsp.analysis.transforms import REPEATING_LOOPS, TRACED_BRANCHES, TRANSFORMS
from jax_lsp.analysis.updates import state_path, stepped_and_read
from jax_lsp.codeactions.debug_print import debug_print_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.findings import Applicability, Finding, Fix, Related, Severity

# Container methods that store their argument in the container.
_STORING_METHODS = frozenset(["append", "extend", "insert", "update", "setdefault"])
_LAX_OPERAND_CALLS = frozenset(
    f"jax.lax.{name}" for name in ["scan", "cond", "fori_loop", "while_loop", "switch", "map"]
)
# Methods that build or configure an object: setting attributes there is not a leak.
_SETUP_METHODS = frozenset(["__init__", "__post_init__", "setup", "__setattr__", "__call__"])
# Frameworks whose modules manage state under their own transformations.
_STATEFUL_FRAMEWORKS = ("flax.", "haiku.", "equinox.", "penzai.")


class _Scopes:
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


# nnx optimizers: `update` changes their state (and the model's parameters) in place.
_NNX_OPTIMIZERS = frozenset(
    {"flax.nnx.Optimizer", "flax.nnx.ModelAndOptimizer", "flax.nnx.optimizer.Optimizer"}
)
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
    if kind is Kind.ARRAY and isinstance(expr, _OPERATIONS) and _staged_context(ctx):
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
    if isinstance(expr, ast.Name) and _staged_context(ctx) and _jitted_result(expr, ctx):
        return True
    # A name or item holding a container of tracers (`print(metrics)`: its repr shows them).
    return isinstance(expr, ast.Name | ast.Subscript | ast.Attribute) and ctx.holds_tracer(expr)


_ITEM_CALLS = frozenset({"builtins.zip", "builtins.enumerate", "builtins.reversed"})


def _arithmetic_on_traced_items(comprehension: ast.ListComp, ctx: RuleContext) -> bool:
    """`[w - lr * g for w, g in zip(params, grads)]` with `grads` traced, under a staging
    trace: arithmetic on an item of a traced pytree gives a tracer."""
    if not _staged_context(ctx):
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


def _format_spec_on_tracer(
    arguments: list[ast.expr], ctx: RuleContext
) -> tuple[ast.expr, str] | None:
    """A traced value an f-string formats with a format spec (`f"{loss:.3f}"`), and the spec:
    tracers accept no spec (`TypeError: unsupported format string`); `!r` / `!s` first
    formats their text, which does."""
    for argument in arguments:
        for node in walk_nodes(argument):
            if (
                isinstance(node, ast.FormattedValue)
                and node.conversion == -1
                and isinstance(node.format_spec, ast.JoinedStr)
                and node.format_spec.values
                and carries_tracer(node.value, ctx)
            ):
                # A spec with fields of its own (`{x:{width}}`) is shown as it is written.
                parts = node.format_spec.values
                spec = "".join(
                    part.value if isinstance(part, ast.Constant) else "{...}" for part in parts
                )
                return node.value, spec
    return None


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
        caller = model.functions.get(info.via.removeprefix("called from "))
        if (
            info.via.startswith("called from ")
            and caller is not None
            and staged(caller.node, model, depth + 1)
        ):
            return True
    return any(staged(outer, model, depth + 1) for outer in model.enclosing_chain(function))


def _staged_context(ctx: RuleContext) -> bool:
    return ctx.abstract and any(staged(function, ctx.model) for function in ctx.functions)


# Transformations that compile once and reuse the result for same-shaped arguments.
_CACHING_TRANSFORMS = frozenset(["jit", "pmap", "eqx.filter_jit", "nnx.jit"])
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
        if info.via in _CACHING_TRANSFORMS:
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


def _compiled_context(ctx: RuleContext) -> bool:
    return any(compiled_once(function, ctx.model) for function in ctx.functions)


def _where(ctx: RuleContext) -> str:
    return ctx.where_traced


# -- JAX101 ------------------------------------------------------------------------------------
def _shadowed(ctx: RuleContext, name: str, scopes: _Scopes) -> bool:
    return name in ctx.model.global_kinds or scopes.is_local(ctx, name)


_LOG_LEVELS = ("debug", "info", "warning", "warn", "error", "critical", "exception", "log")
_LOGGING_FUNCTIONS = frozenset(
    f"{module}.{level}" for module in ("logging", "absl.logging") for level in _LOG_LEVELS
)
_LOGGER_FACTORIES = frozenset({"logging.getLogger", "absl.logging.get_absl_logger"})


def _logger_call(func: ast.expr, ctx: RuleContext) -> bool:
    """`logger.info(...)` on a module-level `logger = logging.getLogger(...)`."""
    if not (
        isinstance(func, ast.Attribute)
        and func.attr in _LOG_LEVELS
        and isinstance(func.value, ast.Name)
    ):
        return False
    value = ctx.model.stable_globals.get(func.value.id)
    return isinstance(value, ast.Call) and ctx.qualname(value.func) in _LOGGER_FACTORIES


# The shared start of the logging examples: a handler that keeps the logged messages.
_LOG_COLLECTOR = """
            import logging

            import jax
            import jax.numpy as jnp

            messages = []

            class Collect(logging.Handler):
                def emit(self, record):
                    messages.append(record.getMessage())

            logger = logging.getLogger("app")
            logger.addHandler(Collect())
            logger.setLevel(logging.INFO)

"""

# The first INVALID example after its fix, and the first VALID example.
_STEP_WITH_DEBUG_PRINT = """
    import jax

    @jax.jit
    def step(x):
        jax.debug.print("inside step, x = {}", x)
        return x + 1

    step(1.0)
    step(2.0)
"""


class PrintInTraced(Rule):
    code = "JAX101"
    needs_trace = "traced"
    name = "print-in-traced"
    summary = "`print(...)` of a traced value inside traced code"
    severity = Severity.WARNING
    what_it_does = """
        Flags `print(...)` calls inside functions JAX traces (`jax.jit`, `jax.vmap`, `lax`
        loop bodies, functions they call) when an argument is a traced value or text made
        from one (`str(y)`, `"{}".format(y)`, `"a" + str(y)`, an f-string); the same for
        logging calls (`logging.info(y)`, `logger.info("%s", y)` on a module-level
        `logging.getLogger(...)`), which log the tracer's text. Under `jax.jit` every JAX
        operation gives a tracer, even on constants, and so does calling a jitted function.
        An f-string formatting a traced value with a format spec (`f"{loss:.3f}"`) is
        flagged with what really happens: it raises `TypeError` at trace time. A print of
        static values only (`print("tracing", x.shape)`) is deliberate trace-time output,
        and so is a log of them, in a `lax` loop body too ("compiling the body"); but a
        print of literals only (`print("branch a")`) in a function `lax.cond`/`lax.switch`
        runs as a branch says that its branch ran, and JAX traces every branch, the ones
        not taken too.
    """
    why_bad = """
        `print` is a Python side effect: it runs while JAX traces the function, not when the
        compiled function runs. It prints the tracer (`JitTracer(float32[])`), not the value,
        and under `jax.jit` only on the first call for each input shape; cached calls print
        nothing. `jax.debug.print("x = {}", x)` is staged into the computation and prints the
        runtime value on every call.
    """
    fix_safety = """
        Rewrites the call to `jax.debug.print` with a format string: the arguments are joined
        with spaces as `print` does, f-strings become `{}` placeholders and keep a written-out
        format spec (`f"{loss:.4f}"` -> `"{:.4f}"`: `jax.debug.print` formats the value as
        the f-string meant). Adds `import jax` when the module has no `jax` name. Unsafe: the
        output changes (values on every call instead of tracers once). `print` with `sep=`,
        `end=` or `file=`, star arguments, a conversion (`!r`, `f"{x=}"`: it would show the
        array's repr) or a format spec computed from expressions is flagged without a fix.
        `jax.debug.print` output is unordered relative to other prints unless `ordered=True`
        is passed.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    node_types = (ast.Call,)
    invalid = (
        Example(
            """
            import jax

            @jax.jit
            def step(x):
                print("inside step, x =", x)  # error
                return x + 1

            step(1.0)
            step(2.0)
            """,
            check=(
                "assert 'Tracer' in _stdout, _stdout\n"
                "assert _stdout.count('inside step') == 1, _stdout"
            ),
            fixed=_STEP_WITH_DEBUG_PRINT,
        ),
        Example(
            """
            from jax import jit
            import jax.numpy as jnp

            @jit
            def loss(w, x):
                y = jnp.tanh(w * x)
                print(f"loss={y.sum()} w={w}")  # error
                return y.sum()

            loss(jnp.ones(3), jnp.arange(3.0))
            loss(jnp.ones(3), jnp.arange(3.0))
            """,
            check="assert _stdout.count('loss=') == 1 and 'Tracer' in _stdout, _stdout",
            fixed="""
            from jax import jit
            import jax.numpy as jnp
            import jax

            @jit
            def loss(w, x):
                y = jnp.tanh(w * x)
                jax.debug.print("loss={} w={}", y.sum(), w)
                return y.sum()

            loss(jnp.ones(3), jnp.arange(3.0))
            loss(jnp.ones(3), jnp.arange(3.0))
            """,
        ),
        Example(
            """
            import jax
            from jax import lax

            def body(i, total):
                print("step", i, total, sep=": ")  # error
                return total + i

            result = lax.fori_loop(0, 3, body, 0)
            """,
            check="assert 'Tracer' in _stdout and _stdout.count('step') == 1, _stdout",
        ),
        Example(
            """
            import jax

            def first():
                print("first branch")  # error
                return 0

            def second():
                print("second branch")  # error
                return 1

            branches = [first, second]
            chosen = jax.lax.switch(0, branches)
            """,
            check="assert 'second branch' in _stdout and int(chosen) == 0, _stdout",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def train_step(w, x):
                loss, grads = jax.value_and_grad(lambda w: jnp.mean((x * w) ** 2))(w)
                return w - 0.1 * grads, loss

            @jax.jit
            def main(w, x):
                for epoch in range(2):
                    w, loss = train_step(w, x)
                    print("epoch", epoch, "loss", loss)  # error
                return w

            main(1.0, jnp.ones(3))
            main(1.0, jnp.ones(3))
            """,
            check="assert _stdout.count('Tracer') == 2, _stdout  # at trace time, once",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def train_step(w):
                loss = jnp.sum(w**2)
                print("loss: " + str(loss))  # error
                return w - 0.1 * loss

            train_step(jnp.ones(2))
            """,
            check="assert 'Tracer' in _stdout, _stdout",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def train_step(w):
                metrics = {"loss": jnp.sum(w**2), "n": w.shape[0]}
                print(metrics)  # error
                return w - 0.1 * metrics["loss"]

            train_step(jnp.ones(2))
            """,
            check="assert 'Tracer' in _stdout and \"'n': 2\" in _stdout, _stdout",
        ),
        Example(
            _LOG_COLLECTOR
            + """
            @jax.jit
            def train_step(w):
                loss = jnp.mean(w**2)
                logger.info("loss %s", loss)  # error
                return w - 0.1 * loss

            train_step(jnp.ones(2))
            train_step(jnp.ones(2))
            """,
            check="assert len(messages) == 1 and 'Tracer' in messages[0], messages",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def predict(x):
                return jnp.tanh(x)

            @jax.jit
            def evaluate(x):
                y = predict(x)
                print("prediction {}".format(y))  # error
                return y

            evaluate(jnp.ones(2))
            """,
            check="assert 'Tracer' in _stdout, _stdout",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def train_step(w):
                loss = jnp.sum(w**2)
                print(f"loss={loss:.3f}")  # error
                return w - 0.1 * loss

            train_step(jnp.ones(2))
            """,
            raises="TypeError",
        ),
        Example(
            """
            from typing import NamedTuple

            import jax
            import jax.numpy as jnp

            class LossOutputs(NamedTuple):
                loss: jax.Array
                accuracy: jax.Array

            def loss_fn(w, x):
                logits = x @ w
                outputs = LossOutputs(jnp.mean(logits**2), jnp.mean(logits > 0))
                print(outputs)  # error
                return outputs.loss, outputs

            @jax.jit
            def update(w, x):
                (_, outputs), g = jax.value_and_grad(loss_fn, has_aux=True)(w, x)
                return w - 0.1 * g, outputs

            update(jnp.ones(3), jnp.ones((2, 3)))
            """,
            check="assert 'Tracer' in _stdout, _stdout",
        ),
    )
    valid = (
        Example(
            """
            from typing import NamedTuple

            import jax
            import jax.numpy as jnp

            class Config(NamedTuple):
                lr: float
                steps: int

            @jax.jit
            def update(w, g):
                config = Config(0.1, 3)  # built from Python values: nothing traced to show
                print(config)
                return w - config.lr * g

            update(jnp.ones(3), jnp.ones(3))
            """,
            check="assert 'Config(lr=0.1, steps=3)' in _stdout, _stdout",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def update(reachable, _):
                print(f"Shape of reachable: {reachable.shape}")  # a static fact, at trace time
                return reachable, None

            out, _ = jax.lax.scan(update, jnp.ones(4), jnp.arange(3))
            """,
            check="assert _stdout.count('Shape of reachable: (4,)') == 1, _stdout",
        ),
        Example(
            """
            import logging

            import jax
            import jax.numpy as jnp

            logger = logging.getLogger("sampler")
            messages = []

            class Collect(logging.Handler):
                def emit(self, record):
                    messages.append(record.getMessage())

            logger.addHandler(Collect())
            logger.setLevel(logging.DEBUG)

            def body(carry, x):
                logger.debug("compiling the scan body")  # a trace-time message, on purpose
                return carry + x, carry

            total, _ = jax.lax.scan(body, 0.0, jnp.arange(3.0))
            """,
            check="assert messages == ['compiling the scan body'], messages",
        ),
        Example(
            _STEP_WITH_DEBUG_PRINT,
            check="assert 'inside step, x = 1.0' in _stdout and 'x = 2.0' in _stdout, _stdout",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def normalize(x):
                print("tracing normalize for shape", x.shape)  # a trace-time message
                return x / jnp.linalg.norm(x)

            normalize(jnp.ones(4))
            """,
            check="assert '(4,)' in _stdout",
        ),
        Example(
            """
            import jax.numpy as jnp

            def report(x):
                print("mean:", jnp.mean(x))  # not traced: prints the value

            report(jnp.arange(4.0))
            """,
            check="assert 'mean: 1.5' in _stdout, _stdout",
        ),
        Example(
            _LOG_COLLECTOR
            + """
            @jax.jit
            def normalize(x):
                logger.info("tracing normalize for shape %s", x.shape)  # a trace-time message
                return x / jnp.linalg.norm(x)

            normalize(jnp.ones(4))
            """,
            check="assert messages == ['tracing normalize for shape (4,)'], messages",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def scale(x):
                config = {"rows": x.shape[0], "name": "scale"}
                print("tracing with", config)  # static items only: shown as they are
                return x * 2

            scale(jnp.ones(3))
            """,
            check="assert \"{'rows': 3, 'name': 'scale'}\" in _stdout, _stdout",
        ),
    )

    def __init__(self) -> None:
        self._scopes = _Scopes()

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.in_traced:
            return
        qualname = ctx.qualname(node.func)
        if qualname == "builtins.print":
            if _shadowed(ctx, "print", self._scopes):
                return
            output, fix = "`print`", debug_print_fix
        elif qualname in _LOGGING_FUNCTIONS or _logger_call(node.func, ctx):
            output, fix = f"`{ctx.segment(node.func)}`", None
        else:
            return
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        if not any(carries_tracer(argument, ctx) for argument in arguments):
            # print(x.shape) and other static values are deliberate trace-time output, but not
            # in a lax body: it reads as once per iteration, or only for the branch taken.
            if fix is not None:  # a log (`logger.debug("compiling body")`) is deliberate
                yield from self._marker_print_in_branch(node, fix, ctx)
            return
        formatted = _format_spec_on_tracer(arguments, ctx)
        if formatted is not None:
            value, spec = formatted
            yield ctx.finding(
                self,
                node,
                f"{output} in {_where(ctx)} formats the traced value `{ctx.segment(value)}` "
                f"with the format spec `{spec}`: a tracer has no value to format, so it raises "
                "TypeError at trace time. Use "
                f'`jax.debug.print("... {{:{spec}}}", x)` to print the runtime value',
                fix=fix(node, ctx) if fix is not None else None,
            )
            return
        once = "only once per compilation (cached calls print nothing)"
        once = once if _compiled_context(ctx) else ""
        timing = f", and {once}" if once else ""
        if fix is None:
            advice = (
                'Use `jax.debug.print("... {}", x)`, or `jax.debug.callback` to hand runtime '
                "values to the logger"
            )
            yield ctx.finding(
                self,
                node,
                f"{output} in {_where(ctx)} runs at trace time: it logs tracer objects, not "
                f"values{timing}. {advice}",
            )
            return
        yield ctx.finding(
            self,
            node,
            f"`print` in {_where(ctx)} runs at trace time: it prints tracer objects, not "
            f'values{timing}. Use `jax.debug.print("... {{}}", x)` to print runtime values',
            fix=fix(node, ctx),
        )

    def _marker_print_in_branch(
        self,
        node: ast.Call,
        fix: Callable[[ast.Call, RuleContext], Fix | None],
        ctx: RuleContext,
    ) -> Iterator[Finding]:
        """`print("branch a")`, of literals only, in a function `lax.cond`/`lax.switch` runs
        as a branch: such a print says only that its branch ran, and JAX traces every branch,
        the ones not taken too. (A print of shapes or other static facts is trace-time
        output on purpose, and so is one in a loop body: "compiling the body".)"""
        trace = ctx.trace
        if trace is None or not trace.direct or trace.via not in TRACED_BRANCHES:
            return
        if node.keywords or not all(_literal_text(argument) for argument in node.args):
            return
        yield ctx.finding(
            self,
            node,
            f"`print` in {_where(ctx)} runs while JAX traces the branches, for every branch "
            f"(the ones not taken too), not for the branch the index selects; under jit, "
            f"later calls print nothing. Use `jax.debug.print(...)`, which prints when the "
            f"branch runs",
            fix=fix(node, ctx),
        )


def _literal_text(node: ast.expr) -> bool:
    """A literal, or an f-string of literals only."""
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.JoinedStr) and all(
        isinstance(part, ast.Constant) for part in node.values
    )


# -- JAX102 ------------------------------------------------------------------------------------
class _StateRule(Rule):
    """Shares the per-analysis scope cache between the global read and write rules."""

    def __init__(self) -> None:
        self._scopes = _Scopes()


def _is_write_receiver(node: ast.Name, ctx: RuleContext) -> bool:
    """`g` in `g.append(x)`, `g[k] = x`, `g.attr = x`: a write, reported by JAX103."""
    ancestors = ctx.ancestors
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, ast.Subscript | ast.Attribute) and isinstance(parent.ctx, ast.Store):
        return parent.value is node
    grandparent = ancestors[-2] if len(ancestors) > 1 else None
    return (
        isinstance(parent, ast.Attribute)
        and parent.attr in _STORING_METHODS
        and isinstance(grandparent, ast.Call)
        and grandparent.func is parent
    )


def _used_after_trace(node: ast.Name, ctx: RuleContext) -> bool:
    """Does the traced function use this read of a global it rebinds itself beyond its own
    update (`g = g + 1`, what a trace counter does) and a print or log at trace time: in a
    result, an operand, a branch?"""
    for ancestor in reversed(ctx.ancestors):
        if isinstance(ancestor, ast.Call) and (
            ctx.qualname(ancestor.func) in ("builtins.print", *_LOGGING_FUNCTIONS)
            or _logger_call(ancestor.func, ctx)
        ):
            return False
        if isinstance(ancestor, ast.stmt):
            targets = ancestor.targets if isinstance(ancestor, ast.Assign) else []
            return not any(isinstance(t, ast.Name) and t.id == node.id for t in targets)
    return True


class GlobalReadInTraced(_StateRule):
    code = "JAX102"
    needs_trace = "abstract"
    name = "global-read-in-traced"
    summary = "Traced code reads a module-level value that the module changes"
    severity = Severity.WARNING
    what_it_does = """
        Flags reads, inside `jax.jit`-like traced code, of module-level names that the module
        changes later: rebound by top-level code after a call, assigned through `global` (in
        the traced function itself too, where a read other than its own update or a print
        of it is flagged: a trace counter is fine, and a counter it steps and returns is
        JAX103's finding, on the step), or
        mutated (`CONFIG["lr"] = ...`, `items.append(...)`). Functions, classes, modules,
        constants bound once (or rebound to the same constant) and local names are not
        flagged, nor are absl `FLAGS` and flag holders (parsed once, at startup). Also flags
        a variable of an enclosing function read by a jitted closure and rebound after the
        closure was created, and `self.attr` read in a method jitted as a bound method
        (`self.f = jax.jit(self.step)`) when another method of the class assigns it.
        A change after the last call that may reach the compiled function is not flagged: a
        plain function jitted where it is called (`params = jax.jit(init_model)()`), never
        stored nor decorated, runs again only where later code names it. Nor is a global set
        once by a lazy initialisation (`if _model is None: _model = build()`, or after
        `if _ready: return`): once set, it does not change.
    """
    why_bad = """
        JAX reads the global while tracing and bakes its value into the compiled function as a
        constant. Later calls with the same argument shapes hit the compilation cache, so a
        changed global is silently ignored: `f(1.0)` gives the old result until a new shape
        forces a retrace.
    """
    node_types = (ast.Name,)
    invalid = (
        Example(
            """
            import jax

            scale = 2.0

            @jax.jit
            def apply(x):
                return x * scale  # error

            first = apply(1.0)
            scale = 10.0
            second = apply(1.0)
            """,
            check="assert float(first) == 2.0 and float(second) == 2.0  # not 10.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            config = {"temperature": 1.0}

            def set_temperature(value):
                config["temperature"] = value

            @jax.jit
            def softmax(logits):
                return jax.nn.softmax(logits / config["temperature"])  # error

            before = softmax(jnp.array([0.0, 1.0]))
            set_temperature(100.0)
            after = softmax(jnp.array([0.0, 1.0]))
            """,
            check="assert (before == after).all()  # the new temperature is ignored",
        ),
        Example(
            """
            import jax

            threshold = 0.5

            def configure(value):
                global threshold
                threshold = value

            @jax.jit
            def clip(x):
                return jax.numpy.minimum(x, threshold)  # error

            clip(3.0)
            configure(2.0)
            result = clip(3.0)
            """,
            check="assert float(result) == 0.5  # still the old threshold",
        ),
        Example(
            """
            import jax

            def decay(xs):
                scale = 1.0
                step = jax.jit(lambda x: x * scale)  # error
                out = []
                for x in xs:
                    out.append(float(step(x)))
                    scale = scale * 0.5
                return out

            result = decay([1.0, 1.0, 1.0])
            """,
            check="assert result == [1.0, 1.0, 1.0]  # not [1.0, 0.5, 0.25]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Sampler:
                def __init__(self):
                    self.key = jax.random.PRNGKey(0)
                    self.step = jax.jit(self._step)

                def _step(self, x):
                    return x + jax.random.normal(self.key, x.shape)  # error

                def sample(self, x):
                    self.key, _ = jax.random.split(self.key)
                    return self.step(x)

            sampler = Sampler()
            first = sampler.sample(jnp.zeros(2))
            second = sampler.sample(jnp.zeros(2))
            """,
            check="assert (first == second).all()  # the new key is ignored",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            batch = jnp.ones(3)

            def init_model():
                return jnp.zeros(3) + batch.mean()  # error

            first = jax.jit(init_model)()
            batch = jnp.ones(3) * 5.0
            second = jax.jit(init_model)()  # a new wrapper, the same cached trace
            """,
            check="assert float(second[0]) == 1.0  # not 5.0",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            batch = jnp.ones(3)

            def init_model():
                return jnp.zeros(3) + batch.mean()

            params = jax.jit(init_model)()  # traced, called and dropped: never called again

            def loss(p, b):
                return jnp.sum(p * b)

            for step in range(3):
                batch = jnp.ones(3) * step
                params = params - 0.1 * jax.grad(loss)(params, batch)
            """,
            check="assert jnp.allclose(params, 0.7)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            _table = None

            def table():
                global _table
                if _table is None:  # set once, before the first trace reads it
                    _table = jnp.arange(10.0)
                return _table

            @jax.jit
            def lookup(i):
                return _table[i]

            table()
            out = lookup(3)
            table()  # does nothing the second time
            again = lookup(3)
            """,
            check="assert float(out) == float(again) == 3.0",
        ),
        Example(
            """
            import jax

            _ready = False
            _scale = None

            def setup():
                global _ready, _scale
                if _ready:
                    return
                _scale = 2.0
                _ready = True

            @jax.jit
            def apply(x):
                return x * _scale

            setup()
            first = apply(1.0)
            setup()  # does nothing the second time
            second = apply(1.0)
            """,
            check="assert float(first) == float(second) == 2.0",
        ),
        Example(
            """
            import jax

            traces = 0

            @jax.jit
            def double(x):
                global traces
                traces = traces + 1  # counts traces, on purpose
                print("tracing double, trace", traces)
                return x * 2

            double(1.0)
            double(2.0)
            """,
            check="assert traces == 1",
        ),
        Example(
            """
            import jax

            @jax.jit
            def apply(x, scale):
                return x * scale

            first = apply(1.0, 2.0)
            second = apply(1.0, 10.0)
            """,
            check="assert float(second) == 10.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            EPS = 1e-6  # bound once: a constant

            @jax.jit
            def safe_log(x):
                return jnp.log(x + EPS)

            safe_log(jnp.ones(3))
            """,
            check="assert float(safe_log(jnp.ones(3))[0]) < 1e-5",
        ),
        Example(
            """
            import jax

            def run(x):
                scale = 1.0
                scale = scale * 2  # rebound before the closure is made
                step = jax.jit(lambda v: v * scale)
                return float(step(x)), step

            result, step = run(1.0)
            """,
            check="assert result == 2.0",
        ),
        Example(
            """
            import jax

            def compare(x):
                scale = 2.0
                step = jax.jit(lambda v: v * scale)
                first = float(step(x))
                scale = 3.0  # a new closure and a new jit below: each traces its own value
                step = jax.jit(lambda v: v * scale)
                return first, float(step(x))

            result = compare(1.0)
            """,
            check="assert result == (2.0, 3.0)",
        ),
        Example(
            """
            import jax

            LEARNING_RATE = 0.1

            @jax.jit
            def update(w, g):
                return w - LEARNING_RATE * g

            first = update(1.0, 1.0)
            LEARNING_RATE = 0.1  # set again to the same value: nothing changes
            second = update(1.0, 1.0)
            """,
            check="assert float(first) == float(second) and abs(float(first) - 0.9) < 1e-6",
        ),
        Example(
            """
            from absl import flags
            import jax

            FLAGS = flags.FLAGS
            flags.DEFINE_float("scale", 2.0, "how much to scale")

            @jax.jit
            def apply(x):
                return x * FLAGS.scale  # flags are parsed once, before anything is traced

            def main(argv):
                FLAGS.scale = 3.0
                return apply(1.0)
            """,
            runnable=False,
        ),
    )

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[tuple[int, str]] = set()
        # (method name, class) -> jitted as a bound method: asked at every `self.x` read.
        self._bound_jits: dict[tuple[str, ast.ClassDef], bool] = {}

    def check(self, node: ast.Name, ctx: RuleContext) -> Iterator[Finding]:
        if not (ctx.abstract and isinstance(node.ctx, ast.Load) and ctx.functions):
            return
        name = node.id
        if name == "self":
            if isinstance(ctx.parent, ast.Attribute) and ctx.parent.value is node:
                yield from self._self_attribute(ctx.parent, ctx)
            return
        if (
            len(ctx.functions) > 1
            and ctx.model.context_of(ctx.functions[0]) is None
            and name not in self._scopes.bound(ctx.functions[-1])
            and self._scopes.is_local(ctx, name)
        ):
            # A closure inside an untraced function: maybe a variable it rebinds later.
            yield from self._stale_closure(node, ctx)
            return
        if name not in ctx.model.mutable_globals or self._scopes.is_local(ctx, name):
            return
        facts = ctx.model.hash_facts
        if name in facts.constant_globals or name in facts.config_globals:
            return  # rebound to the same constant; or flags, set before anything is traced
        owners = [f for f in ctx.functions if name in self._scopes.declared(f)]
        own = bool(owners)
        if own and not _used_after_trace(node, ctx):
            return  # `global g` here: its own update (a trace counter), or a trace-time log
        if own and name in stepped_and_read(owners[-1]):
            return  # a counter the function steps and reads: JAX103 reports its update
        if _is_write_receiver(node, ctx):
            return
        if name not in ctx.model.module_state.changing_globals(ctx.ancestors[0]):
            return
        if not _compiled_context(ctx):
            return  # retraced on every call (vmap alone, a fresh lambda): never stale
        key = (id(ctx.functions[0]), name)
        if key in self._seen:
            return  # one report per global per function
        self._seen.add(key)
        if own:
            message = (
                f"`{name}` is changed through `global` in {_where(ctx)}, which runs only "
                f"while JAX traces: the value read here is compiled in, and later calls "
                f"neither change `{name}` nor see it change. Pass `{name}` in and return it"
            )
        else:
            message = (
                f"`{name}` is a module-level value this module changes, read in {_where(ctx)}: "
                f"its value at the first trace is compiled in, and later calls with the same "
                f"shapes silently keep using it. Pass `{name}` as an argument instead"
            )
        yield ctx.finding(self, node, message)

    def _stale_closure(self, node: ast.Name, ctx: RuleContext) -> Iterator[Finding]:
        """A variable of an enclosing (untraced) function, rebound after the jitted closure
        reading it was created: the compiled closure keeps the value of its first trace."""
        name, functions = node.id, ctx.functions
        owner_index = next(
            (
                i
                for i in range(len(functions) - 2, -1, -1)
                if name in self._scopes.bound(functions[i])
            ),
            None,
        )
        if owner_index is None or any(
            name in self._scopes.bound(f) for f in functions[owner_index + 1 :]
        ):
            return
        owner, closure = functions[owner_index], functions[owner_index + 1]
        if ctx.model.context_of(owner) is not None:
            return
        if not any(compiled_once(f, ctx.model) for f in functions[owner_index + 1 :]):
            return
        if name in self._scopes.declared(closure):
            return  # `nonlocal`: a write, reported by JAX103
        rebound = _rebound_after(name, owner, closure)
        key = (id(closure), name)
        if rebound is None or key in self._seen or not _may_run_after(closure, owner, rebound):
            return
        self._seen.add(key)
        owner_name = getattr(owner, "name", "the enclosing function")
        finding = ctx.finding(
            self,
            node,
            f"`{name}` is a variable of `{owner_name}` rebound after the jitted closure "
            "reading it was created: the value at the first trace is compiled in, and later "
            f"calls with the same shapes silently keep using it. Pass `{name}` as an argument "
            "instead",
        )
        yield replace(finding, related=(Related(ctx.span(rebound), f"`{name}` rebound here"),))

    def _self_attribute(self, node: ast.Attribute, ctx: RuleContext) -> Iterator[Finding]:
        """`self.key` read in a method jitted as a bound method (`jax.jit(self.step)`) when
        another method of the class assigns it: `self` is closed over, so its attributes at
        trace time are compiled in."""
        if not isinstance(node.ctx, ast.Load):
            return
        method = next((f for f in reversed(ctx.functions) if not isinstance(f, ast.Lambda)), None)
        record = ctx.model.records.get(method) if method is not None else None
        cls = ctx.model.classes.get(record.class_name) if record and record.class_name else None
        if cls is None or not compiled_once(method, ctx.model):
            return
        bound_key = (method.name, cls.node)
        jitted = self._bound_jits.get(bound_key)
        if jitted is None:
            jitted = self._bound_jits[bound_key] = _jitted_as_bound_method(*bound_key, ctx)
        if not jitted:
            return
        writer = _assigned_after_construction(node.attr, cls.node)
        key = (id(method), f"self.{node.attr}")
        if writer is None or key in self._seen:
            return
        if _assigned_earlier_in(method, node, ctx):
            return  # `self.K = ...; solve(self.K, y)`: this trace's own value, not a stale one
        self._seen.add(key)
        finding = ctx.finding(
            self,
            node,
            f"`self.{node.attr}` is read by `{method.name}`, jitted as a bound method, and "
            f"`{writer[0].name}` assigns it: `self` is closed over, so its value at the first "
            "trace is compiled in, and later calls silently keep using it. Pass "
            f"`{node.attr}` as an argument instead",
        )
        related = Related(ctx.span(writer[1]), f"`self.{node.attr}` assigned here")
        yield replace(finding, related=(related,))


_SETUP = frozenset({"__init__", "__post_init__", "setup"})
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _jitted_as_bound_method(method: str, cls: ast.ClassDef, ctx: RuleContext) -> bool:
    """The class applies a caching jit to `self.<method>` (`self.f = jax.jit(self.step)`)."""
    found = bound_method_transforms(cls, ctx.model.resolver, _CACHING_TRANSFORMS)
    return any(name == method for _, name in found)


def _assigned_after_construction(
    attribute: str, cls: ast.ClassDef
) -> tuple[FunctionNode, ast.Attribute] | None:
    """A method of the class, not a constructor, that assigns `self.<attribute>` (and
    where)."""
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or method.name in _SETUP:
            continue
        for node in walk_nodes(method):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and node.attr == attribute
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                return method, node
    return None


def _assigned_earlier_in(method: FunctionNode, read: ast.Attribute, ctx: RuleContext) -> bool:
    """A statement of `method`'s own body before the one holding `read` assigns
    `self.<attribute>` outright (not under a branch or loop): the read sees that value."""
    statement = next((a for a in ctx.ancestors if a in method.body), None)
    if statement is None:
        return False
    for earlier in method.body[: method.body.index(statement)]:
        if isinstance(earlier, ast.Assign):
            targets = earlier.targets
        elif isinstance(earlier, ast.AnnAssign) and earlier.value is not None:
            targets = [earlier.target]
        else:
            continue
        if any(
            isinstance(target, ast.Attribute)
            and target.attr == read.attr
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            for target in targets
        ):
            return True
    return False


def _rebound_after(name: str, owner: FunctionNode, closure: ast.AST) -> ast.Name | None:
    """A binding of `name` in `owner`'s own code after `closure` ends, not in a loop that
    also recreates the closure (a new closure traces the new value). When `name` has no
    binding before the closure (nor is a parameter), the first one after it, outside any
    loop, gives its first value: no trace can read it earlier (it would raise NameError)."""
    found: list[tuple[ast.Name, tuple[ast.AST, ...]]] = []
    closure_loops: list[ast.AST] = []
    bound_before = name in all_params(owner)

    def visit(node: ast.AST, loops: tuple[ast.AST, ...]) -> None:
        nonlocal bound_before
        if node is closure:
            closure_loops.extend(loops)
            return
        if node is not owner and isinstance(node, _NESTED_SCOPES):
            return
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            if node.lineno > closure.end_lineno:
                found.append((node, loops))
            else:
                bound_before = True
        inner = (*loops, node) if isinstance(node, ast.For | ast.While | ast.AsyncFor) else loops
        for child in child_nodes(node):
            visit(child, inner)

    visit(owner, ())
    found.sort(key=lambda binding: (binding[0].lineno, binding[0].col_offset))
    if not bound_before and found and not found[0][1]:
        found = found[1:]  # its first binding, made once
    for rebinding, loops in found:
        if not set(loops) & set(closure_loops):
            return rebinding
    return None


def _may_run_after(closure: ast.AST, owner: FunctionNode, rebinding: ast.Name) -> bool:
    """Whether the jitted closure may be called after `rebinding`. Not when every name that
    holds it (its `def` name, `h = jax.jit(...)`) is read only as a callee, or to jit it into
    another such name, and never after the rebinding (nor in a loop around it) while it still
    holds this closure; nor when it is called where it is made (`jax.jit(lambda ...)(x)`)."""
    parents = {child: node for node in walk_nodes(owner) for child in child_nodes(node)}
    if isinstance(closure, ast.Lambda):
        made = parents.get(closure)  # `jax.jit(lambda ...)`
        if not isinstance(made, ast.Call):
            return True
        holder = parents.get(made)
        if isinstance(holder, ast.Call) and holder.func is made:
            return False  # called once, where it is made
        if not (isinstance(holder, ast.Assign) and _single_name(holder) is not None):
            return True
        holders = [_single_name(holder)]
    else:
        holders = [getattr(closure, "name", "")]
    loops = _loops_around(rebinding, parents)
    seen: set[str] = set()
    while holders:
        holder = holders.pop()
        if holder in seen:
            continue
        seen.add(holder)
        names = [n for n in walk_nodes(owner) if isinstance(n, ast.Name) and n.id == holder]
        stores = [n.lineno for n in names if not isinstance(n.ctx, ast.Load)]
        for use in (n for n in names if isinstance(n.ctx, ast.Load)):
            parent = parents.get(use)
            if not (isinstance(parent, ast.Call) and parent.func is use):
                jitted = parents.get(parent)
                if not (
                    isinstance(parent, ast.Call)
                    and isinstance(jitted, ast.Assign)
                    and _single_name(jitted) is not None
                ):
                    return True  # returned, stored or passed on: it may run any time
                holders.append(_single_name(jitted))
                continue
            if any(closure.end_lineno < line < use.lineno for line in stores):
                continue  # the name holds something else by then
            if use.lineno > rebinding.lineno or loops & _loops_around(use, parents):
                return True
    return False


def _single_name(node: ast.Assign) -> str | None:
    target = node.targets[0] if len(node.targets) == 1 else None
    return target.id if isinstance(target, ast.Name) else None


def _loops_around(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> set[ast.AST]:
    loops = set()
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            loops.add(node)
    return loops


# -- JAX103 ------------------------------------------------------------------------------------
class GlobalWriteInTraced(_StateRule):
    code = "JAX103"
    needs_trace = "traced"
    name = "global-write-in-traced"
    summary = "Traced code stores a traced value outside the function (global, container, self)"
    severity = Severity.WARNING
    what_it_does = """
        Flags traced code that stores a traced value where it outlives the trace: a `global`
        or `nonlocal` name, a module-level list or dict (`history.append(x)`,
        `cache[k] = x`), `self.attr = x` or `self.history.append(x)` in a traced method, or
        an attribute of a module-level object of a class of the module
        (`recorder.history.append(x)`, `a.cache[k] = x`; not flax, haiku, equinox or penzai
        classes, whose transforms track their state). Under a staging trace (`jax.jit`, `lax`
        bodies), what a call computes from tracers counts even when the call is not followed
        (`output = model.apply(params, x)` of a library module): it holds tracers. A
        lambda that reads a traced name (`[lambda: x]`) holds the tracer too. Containers and
        objects created inside the function are fine. In the body of a `lax` loop
        (`while_loop`, `fori_loop`, `scan`, `map`) it also flags an augmented update of such
        outer state (`calls[0] += 1`, `global total; total += x`), even of a Python number.
        In a jitted function it flags a counter: outer state (a `global`, `self.n` of a jitted
        method) that the function steps from its own value (`self.n += 1`) and reads again
        for its result (`return self.n`), which is stepped once, at trace time, and compiled
        in; a trace counter that nothing but a print reads is fine.
        It also flags a flax nnx object made outside the trace (a module-level
        `model = nnx.Linear(...)`, or `self.optimizer` of the method a jitted closure sits in)
        that traced code changes: an attribute assigned (`model.kernel.value = w`) or an nnx
        optimizer's `update`, where flax raises `TraceContextError` (cannot mutate from a
        different trace level) under `jax.jit` and `nnx.jit` alike; or that traced code
        gives an nnx transformation (`nnx.grad(loss_fn)(model)`), where flax raises
        `ValueError` (cannot extract graph node from different trace level). Passed in as
        an argument of an `nnx.jit` function, it is fine.
    """
    why_bad = """
        The stored value is a tracer, valid only while JAX traces the function. The call
        itself succeeds, but the tracer leaks: later use (`leaked + 1`, `jnp.sin(leaked)`,
        passing it to another jitted function) raises `jax.errors.UnexpectedTracerError`, and
        `float(leaked)` raises `ConcretizationTypeError`. Return the value from the function
        instead (or use `jax.debug.callback` to hand runtime values to Python). A loop body
        is traced once and then run by XLA: a Python counter or total it updates moves once,
        whatever the number of iterations; carry it in the loop state.
    """
    node_types = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp
            from flax import nnx

            model = nnx.Linear(3, 1, rngs=nnx.Rngs(0))

            def loss_fn(m):
                return jnp.mean(m(jnp.ones((2, 3))) ** 2)

            @jax.jit
            def gradients():
                return nnx.grad(loss_fn)(model)  # error

            gradients()
            """,
            raises="ValueError",
        ),
        Example(
            """
            import jax

            calls = 0

            @jax.jit
            def count(x):
                global calls
                calls = calls + 1  # error
                return x + calls

            first = count(1.0)
            second = count(1.0)
            """,
            check="assert float(second) == 2.0 and calls == 1  # not 3.0 and 2",
        ),
        Example(
            """
            import jax

            class Counter:
                def __init__(self):
                    self.n = 0

                def count(self):
                    self.n += 1  # error
                    return self.n

            counter = Counter()
            fast_count = jax.jit(counter.count)
            counts = [int(fast_count()) for _ in range(3)]
            """,
            check="assert counts == [1, 1, 1] and counter.n == 1, counts",
        ),
        Example(
            """
            import jax

            leaked = None

            @jax.jit
            def double(x):
                global leaked
                leaked = x  # error
                return x * 2

            double(3.0)
            """,
            check="assert isinstance(leaked, jax.core.Tracer)",
        ),
        Example(
            """
            import flax.linen as nn
            import jax
            import jax.numpy as jnp

            model = nn.Dense(2)
            params = model.init(jax.random.key(0), jnp.ones((1, 3)))
            output = None

            @jax.jit
            def infer(x):
                global output
                output = model.apply(params, x)  # error

            infer(jnp.ones((1, 3)))
            """,
            check="assert isinstance(output, jax.core.Tracer)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            history = []

            @jax.jit
            def train_step(w, g):
                new_w = w - 0.1 * g
                history.append(new_w)  # error
                return new_w

            train_step(jnp.ones(2), jnp.ones(2))
            jnp.sin(history[0])
            """,
            raises="jax.errors.UnexpectedTracerError",
        ),
        Example(
            """
            import functools
            import jax

            class Counter:
                def __init__(self):
                    self.last = None

                @functools.partial(jax.jit, static_argnums=0)
                def observe(self, x):
                    self.last = x  # error
                    return x + 1

            counter = Counter()
            counter.observe(1.0)
            """,
            check="assert isinstance(counter.last, jax.core.Tracer)",
        ),
        Example(
            """
            import jax

            cache = {}

            @jax.jit
            def embed(x):
                y = jax.numpy.tanh(x)
                cache["last"] = y  # error
                return y

            embed(1.0)
            """,
            check="assert isinstance(cache['last'], jax.core.Tracer)",
        ),
        Example(
            """
            import functools

            import jax

            class KeySequence:
                def __init__(self, key):
                    self._key = key

                @functools.partial(jax.jit, static_argnums=0)
                def next_key(self):
                    self._key, subkey = jax.random.split(self._key)  # error
                    return subkey

            keys = KeySequence(jax.random.PRNGKey(0))
            keys.next_key()
            """,
            check="assert isinstance(keys._key, jax.core.Tracer)",
        ),
        Example(
            """
            import functools

            import jax
            import jax.numpy as jnp

            class Trainer:
                def __init__(self):
                    self.params = [jnp.ones(2), jnp.ones(2)]

                @functools.partial(jax.jit, static_argnums=0)
                def update(self, x):
                    grads = jax.grad(lambda ps: sum((p * x).sum() for p in ps))(self.params)
                    self.params = [p - 0.1 * g for p, g in zip(self.params, grads)]  # error

            trainer = Trainer()
            trainer.update(jnp.ones(2))
            """,
            check="assert isinstance(trainer.params[0], jax.core.Tracer)",
        ),
        Example(
            """
            import jax

            class KeySequence:
                def __init__(self, key):
                    self._key = key

                def next_key(self):
                    self._key, subkey = jax.random.split(self._key)  # error
                    return subkey

            keys = KeySequence(jax.random.PRNGKey(0))

            @jax.jit
            def sample(x):
                return x + jax.random.normal(keys.next_key())

            sample(0.0)
            """,
            check="assert isinstance(keys._key, jax.core.Tracer)",
        ),
        Example(
            """
            import functools

            import jax
            import jax.numpy as jnp

            class Logger:
                def __init__(self):
                    self.history = []

                @functools.partial(jax.jit, static_argnums=0)
                def record(self, loss):
                    self.history.append(loss)  # error
                    return loss * 2

            logger = Logger()
            logger.record(jnp.float32(1.0))
            """,
            check="assert isinstance(logger.history[0], jax.core.Tracer)",
        ),
        Example(
            """
            import jax

            calls = [0]

            def body(i, total):
                calls[0] += 1  # error
                return total + i

            jax.lax.fori_loop(0, 5, body, 0)
            """,
            check="assert calls == [1]",
        ),
    )
    valid = (
        Example(
            """
            import jax.numpy as jnp
            from flax import nnx

            model = nnx.Linear(3, 1, rngs=nnx.Rngs(0))

            def loss_fn(m):
                return jnp.mean(m(jnp.ones((2, 3))) ** 2)

            @nnx.jit
            def gradients(m):
                return nnx.grad(loss_fn)(m)  # passed in: nnx.jit carries it into the trace

            grads = gradients(model)
            """,
            check="assert grads['kernel'].value.shape == (3, 1)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def train_step(w, g):
                new_w = w - 0.1 * g
                return new_w, jnp.linalg.norm(g)

            w, norm = train_step(jnp.ones(2), jnp.ones(2))
            history = [norm]
            """,
            check="assert float(jnp.sin(history[0])) != 0.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def stats(x):
                state = dict(mean=None, total=None)  # a local container
                state["mean"] = jnp.mean(x)
                state["total"] = jnp.sum(x)
                return state

            result = stats(jnp.arange(4.0))
            """,
            check="assert float(result['total']) == 6.0",
        ),
        Example(
            """
            import jax

            trace_count = 0

            @jax.jit
            def f(x):
                global trace_count
                trace_count += 1  # a Python int, counted at trace time
                return x * 2

            f(1.0)
            f(2.0)
            """,
            check="assert trace_count == 1",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Collector:
                def __init__(self):
                    self.items = []

                def add(self, x):
                    self.items.append(x)

            @jax.jit
            def total(x):
                collector = Collector()  # created inside the trace: nothing outlives it
                collector.add(x * 2)
                collector.add(x + 1)
                return sum(collector.items)

            out = total(jnp.float32(1.0))
            """,
            check="assert float(out) == 4.0",
        ),
        Example(
            """
            import jax

            def body(i, carry):
                total, calls = carry
                calls += 1  # a local of the body, carried out
                return total + i, calls

            total, calls = jax.lax.fori_loop(0, 5, body, (0, 0))
            """,
            check="assert int(calls) == 5",
        ),
        Example(
            """
            import jax

            @jax.jit
            def next_key(key):
                key, subkey = jax.random.split(key)  # returned, not stored
                return key, subkey

            key = jax.random.PRNGKey(0)
            key, first = next_key(key)
            key, second = next_key(key)
            """,
            check="assert not (first == second).all()",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.in_traced or not ctx.functions:
            return
        if isinstance(node, ast.Call):
            yield from self._storing_call(node, ctx)
            yield from self._nnx_update(node, ctx)
            yield from self._nnx_transformed(node, ctx)
            return
        value = node.value
        if value is None:
            return
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript):
                holder = self._outer_nnx_holder(target.value, ctx)
                if holder is not None:
                    yield self._nnx_report(target, holder, ctx)
                    return
        for target, stored in _stores(targets, value):
            if carries_tracer(stored, ctx) or (_staged_context(ctx) and ctx.unseen_result(stored)):
                reason = self._leak(target, ctx)
                if reason:
                    yield self._report(target, reason, ctx)
            elif isinstance(node, ast.AugAssign) and (loop := _loop_running(ctx)):
                reason = self._leak(target, ctx)
                if reason:
                    yield self._report_once(node, reason, loop, ctx)
            elif _steps_state_it_reads(target, ctx) and _compiled_context(ctx):
                reason = self._leak(target, ctx)
                if reason:
                    yield self._report_frozen_step(node, reason, ctx)

    def _report(self, node: ast.AST, where: str, ctx: RuleContext) -> Finding:
        return ctx.finding(
            self,
            node,
            f"A traced value is stored in {where} inside {_where(ctx)}: the tracer leaks out "
            f"of the trace, and using it later raises jax.errors.UnexpectedTracerError. Return "
            f"the value instead",
        )

    def _report_once(self, node: ast.AugAssign, where: str, loop: str, ctx: RuleContext) -> Finding:
        return ctx.finding(
            self,
            node.target,
            f"`{ctx.segment(node)}` updates {where} in the body of `{loop}`, which JAX traces "
            f"once: this Python update runs once, not once per iteration, so the result is "
            f"wrong. Carry the value in the loop state and return it",
        )

    def _report_frozen_step(self, node: ast.stmt, where: str, ctx: RuleContext) -> Finding:
        return ctx.finding(
            self,
            node,
            f"`{ctx.segment(node)}` updates {where} in {_where(ctx)}, which runs only while "
            f"JAX traces it: the update happens once, and the compiled function keeps the "
            f"value it read then, so later calls neither update it nor see it change. Pass "
            f"the value in and return the new one",
        )

    def _leak(self, target: ast.expr, ctx: RuleContext) -> str | None:
        function = ctx.functions[-1]
        if isinstance(target, ast.Name):
            if target.id in self._scopes.declared(function):
                return self._declared_leak(target.id, function, ctx)
            return None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return self._outer_container(target.value.id, ctx)
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and self._self_leaks(function, ctx)
        ):
            return f"`self.{target.attr}`"
        held = target.value if isinstance(target, ast.Subscript) else target
        if held is not target and (where := self._self_container(held, ctx)):
            return where  # `self.cache[k] = x`
        return self._module_object(held, ctx)

    def _self_container(self, held: ast.expr, ctx: RuleContext) -> str | None:
        """`self.history` in a traced method whose class sets that attribute to a list, dict
        or set it creates: what is stored into it outlives the trace."""
        if not (
            isinstance(held, ast.Attribute)
            and isinstance(held.value, ast.Name)
            and held.value.id == "self"
            and self._self_leaks(ctx.functions[-1], ctx)
        ):
            return None
        record = ctx.model.records.get(ctx.functions[-1])
        cls = ctx.model.classes.get(record.class_name) if record else None
        if cls is None or held.attr not in _container_attributes(cls.node):
            return None
        return f"`self.{held.attr}`"

    def _declared_leak(self, name: str, function: FunctionNode, ctx: RuleContext) -> str | None:
        owners = [f for f in ctx.functions[:-1] if name in self._scopes.bound(f)]
        if not owners:
            return f"the global `{name}`"
        # nonlocal: a leak when the owner is not traced, or when this function has its own
        # trace (a lax body); a helper called inside the same trace shares the owner's trace.
        info = ctx.model.trace.get(function)
        if ctx.model.context_of(owners[-1]) is None or (info is not None and info.direct):
            return f"the enclosing variable `{name}`"
        return None

    def _outer_container(self, name: str, ctx: RuleContext) -> str | None:
        if self._scopes.is_local(ctx, name) or name not in ctx.model.module_state.containers:
            return None
        return f"the module-level container `{name}`"

    def _module_object(self, held: ast.expr, ctx: RuleContext) -> str | None:
        """`a.dct` or `a.count` (read through any attributes) of a module-level instance `a`
        of a class of the module: the object outlives the trace, so what it is given leaks
        (not for flax, haiku, equinox or penzai classes, whose state their transforms
        track)."""
        root = held
        while isinstance(root, ast.Attribute):
            root = root.value
        if root is held or not isinstance(root, ast.Name) or self._scopes.is_local(ctx, root.id):
            return None
        class_name = ctx.model.module_state.objects.get(root.id)
        cls = ctx.model.classes.get(class_name) if class_name else None
        if cls is None or any(base.startswith(_STATEFUL_FRAMEWORKS) for base in cls.bases):
            return None
        return f"the module-level object `{ast.unparse(held)}`"

    def _self_leaks(self, function: FunctionNode, ctx: RuleContext) -> bool:
        record = ctx.model.records.get(function)
        if record is None or record.class_name is None or function.name in _SETUP_METHODS:
            return False
        cls = ctx.model.classes.get(record.class_name)
        if cls is None or any(base.startswith(_STATEFUL_FRAMEWORKS) for base in cls.bases):
            return False
        info = ctx.model.trace.get(function)
        if info is None:
            return False
        return (
            info.direct
            or info.via.startswith(f"called from {record.class_name}.")
            or function in ctx.model.module_object_methods  # `seq.next_key()` in jit
        )

    def _nnx_update(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        """`optimizer.update(model, grads)` of an nnx optimizer made outside the trace."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "update"):
            return
        holder = self._outer_nnx_holder(func.value, ctx, _NNX_OPTIMIZERS)
        if holder is not None:
            yield self._nnx_report(node, holder, ctx)

    def _nnx_transformed(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        """`nnx.grad(loss_fn)(model)` of an nnx object made outside the trace: the nnx
        transformation extracts the object's graph, which flax refuses across trace levels
        (ValueError: cannot extract graph node from different trace level)."""
        func = node.func
        if not isinstance(func, ast.Call):
            return
        transform = ctx.qualname(func.func) or ""
        if not (transform.startswith("flax.nnx.") and transform in TRANSFORMS):
            return
        for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
            holder = self._outer_nnx_holder(argument, ctx)
            if holder is not None:
                yield ctx.finding(
                    self,
                    argument,
                    f"`{holder}` is a flax nnx object made outside {_where(ctx)}, passed to "
                    f"`{ctx.segment(func.func)}` inside the trace: flax cannot take it across "
                    f"trace levels and raises ValueError (cannot extract graph node from "
                    f"different trace level). Pass it in as an argument of an `nnx.jit` "
                    f"function instead of closing over it",
                )
                return

    def _outer_nnx_holder(
        self, expr: ast.expr, ctx: RuleContext, classes: frozenset[str] | None = None
    ) -> str | None:
        """How the code spells the nnx object (of `classes`, or any) that `expr` or an
        object it is read from holds, when the object was made outside this trace: a
        module-level name, or `self.attr` of the method a traced closure sits in."""
        while True:
            holder = self._nnx_holder_key(expr, ctx)
            if holder is not None:
                callee = ctx.model.nnx_objects.get(holder)
                if callee is not None and (classes is None or callee in classes):
                    return ast.unparse(expr)
            if not isinstance(expr, ast.Attribute | ast.Subscript):
                return None
            expr = expr.value

    def _nnx_holder_key(self, expr: ast.expr, ctx: RuleContext) -> tuple[str, str] | None:
        if isinstance(expr, ast.Name):
            return None if self._scopes.is_local(ctx, expr.id) else ("", expr.id)
        if not (
            isinstance(expr, ast.Attribute)
            and isinstance(expr.value, ast.Name)
            and expr.value.id == "self"
        ):
            return None
        # `self` of an enclosing method that nothing traces: the closure captured it.
        owners = [f for f in ctx.functions if "self" in self._scopes.bound(f)]
        if not owners or owners[-1] is ctx.functions[-1]:
            return None
        record = ctx.model.records.get(owners[-1])
        if record is None or record.class_name is None or ctx.model.context_of(owners[-1]):
            return None
        return (record.class_name, expr.attr)

    def _nnx_report(self, node: ast.AST, holder: str, ctx: RuleContext) -> Finding:
        return ctx.finding(
            self,
            node,
            f"`{holder}` is a flax nnx object made outside {_where(ctx)}: nnx refuses to "
            f"change it inside the trace (flax raises an error: cannot mutate from a "
            f"different trace level). Pass it in as an argument of an `nnx.jit` function "
            f"(or split it with `nnx.split` and merge it back) instead of closing over it",
        )

    def _storing_call(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in _STORING_METHODS):
            return
        if not isinstance(func.value, ast.Name | ast.Attribute):
            return
        stored = [*node.args, *(keyword.value for keyword in node.keywords)]
        if not any(carries_tracer(value, ctx) for value in stored):
            return
        if isinstance(func.value, ast.Name):
            where = self._outer_container(func.value.id, ctx)
        else:  # `self.history.append(x)`, or `a.history.append(x)` of a module-level `a`
            where = self._self_container(func.value, ctx) or self._module_object(func.value, ctx)
        if where:
            yield self._report(node, where, ctx)


_CONTAINER_FACTORIES = frozenset({"list", "dict", "set"})
_CONTAINER_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _container_attributes(cls: ast.ClassDef) -> frozenset[str]:
    """Attributes the class's methods set to a container they create: `self.k = []`,
    `{}`, a comprehension, `list()`, `dict()` or `set()` (`objects.self_assignments`)."""
    assigned, _ = self_assignments(cls)
    return frozenset(
        name for name, values in assigned.items() if any(_makes_container(v) for _, v in values)
    )


def _makes_container(value: ast.expr) -> bool:
    return isinstance(value, _CONTAINER_DISPLAYS) or (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _CONTAINER_FACTORIES
    )


def _loop_running(ctx: RuleContext) -> str | None:
    """The lax loop that runs the current function as its body (or condition), if any: a
    Python side effect there happens once, at trace time, however many iterations run."""
    trace = ctx.trace
    if trace is None or not trace.direct or trace.via not in REPEATING_LOOPS:
        return None
    return trace.via


def _steps_state_it_reads(target: ast.expr, ctx: RuleContext) -> bool:
    """Does the current function step `target` from its own value (`n += 1`) and read it
    again for its result (`return self.n`)? A counter, frozen at its first trace."""
    path = state_path(target)
    return path is not None and path in stepped_and_read(ctx.functions[-1])


def _stores(targets: list[ast.expr], value: ast.expr) -> Iterator[tuple[ast.expr, ast.expr]]:
    """Each simple target with the value it receives: `a, self.k = x, y` pairs them up; a
    target unpacked from one expression (`self.k, sub = split(k)`) gets a part of it, which
    carries a tracer when the whole does."""
    for target in targets:
        if not isinstance(target, ast.Tuple | ast.List):
            yield target, value
            continue
        elements = [e.value if isinstance(e, ast.Starred) else e for e in target.elts]
        if (
            isinstance(value, ast.Tuple | ast.List)
            and len(value.elts) == len(elements)
            and not any(isinstance(e, ast.Starred) for e in [*target.elts, *value.elts])
        ):
            for element, part in zip(elements, value.elts, strict=True):
                yield from _stores([element], part)
        else:
            yield from _stores(elements, value)


# -- JAX104 ------------------------------------------------------------------------------------
def _operands(call: ast.Call) -> list[ast.expr]:
    """Arguments passed as values (`*it` unpacks an iterator in Python: fine)."""
    arguments = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
    return [*arguments, *(keyword.value for keyword in call.keywords if keyword.arg)]


def _jitted_definition(call: ast.Call, ctx: RuleContext) -> FunctionNode | None:
    """The module function a call invokes when it is decorated with a jit-like transform."""
    if not isinstance(call.func, ast.Name) or call.func.id not in ctx.model.functions:
        return None
    node = ctx.model.functions[call.func.id].node
    for decorator in getattr(node, "decorator_list", ()):
        found = transform_of(decorator, ctx.model.resolver)
        if found and found[0].abstract:
            return node
    return None


_ITERATION_METHODS = frozenset({"__iter__", "__next__"})


def _iterable_instance(operand: ast.expr, call: ast.Call, ctx: RuleContext) -> str | None:
    """The class of this module, iterable and not a PyTree, whose instance `operand` is."""
    if isinstance(operand, ast.Call):
        binding = Binding(value=operand)
    elif isinstance(operand, ast.Name):
        binding = dominating_binding(operand.id, [*ctx.ancestors, call, operand])
    else:
        return None
    if binding is None:
        return None
    if binding.module_level:
        class_name = ctx.model.hash_facts.instances.get(operand.id)
    else:
        class_name = instance_of(binding, ctx.model.classes)
    record = ctx.model.classes.get(class_name) if class_name else None
    if (
        record is None
        or record.decorators
        or any(base not in ("builtins.object", "object") for base in record.bases)
        or record.name in ctx.model.classes_passed_to_calls
    ):
        return None  # a dataclass, a subclass or a registered class may well be a PyTree
    methods = ctx.model.hash_facts.methods.get(record.name, frozenset())
    return record.name if methods & _ITERATION_METHODS else None


# The shared start of the JAX104 loader examples: an iterable class that is not a PyTree.
_LOADER = """
            import jax
            import jax.numpy as jnp

            class Loader:
                def __init__(self, data, batch_size):
                    self.data, self.batch_size = data, batch_size

                def __iter__(self):
                    for i in range(0, len(self.data), self.batch_size):
                        yield self.data[i : i + self.batch_size]
"""


class IteratorInTraced(Rule):
    code = "JAX104"
    name = "iterator-in-traced"
    summary = "A Python iterator stepped inside a `lax` body, or passed as a traced operand"
    severity = Severity.ERROR
    what_it_does = """
        Flags `next(it)` on an outside iterator inside a function traced by `lax.fori_loop`,
        `while_loop`, `scan`, `cond`, `switch` or `map`, and an iterator or generator passed
        as an operand of those functions or as an argument of a jitted function; also an
        instance of an iterable class of this module (a data loader defining `__iter__`) that
        is not a PyTree, passed to a jitted function in a traced position.
    """
    why_bad = """
        A `lax` body is traced once, so `next(it)` runs once and its first value is baked into
        every iteration: `lax.fori_loop(0, 10, lambda i, x: x + next(it), 0)` silently returns
        0 where the Python loop gives 45. An iterator is not a JAX type: as a `lax.scan` or
        `lax.cond` operand, or a jitted function's argument, it raises `TypeError`. Put the
        values in an array and index it (`arr[i]`), or scan over the array.
    """
    node_types = (ast.Call,)
    invalid = (
        Example(
            """
            from jax import lax

            it = iter(range(10))
            total = lax.fori_loop(0, 10, lambda i, x: x + next(it), 0)  # error
            """,
            check="assert int(total) == 0  # Python's loop gives 45",
        ),
        Example(
            """
            from jax import lax

            carry, ys = lax.scan(lambda c, x: (c + x, x), 0, iter(range(10)))  # error
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def total(xs):
                return sum(xs)

            batches = (jnp.ones(2) * i for i in range(3))
            total(batches)  # error
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax.numpy as jnp
            from jax import lax

            noise = iter([0.1, 0.2, 0.3])

            def body(state):
                i, x = state
                return i + 1, x + next(noise)  # error

            i, x = lax.while_loop(lambda s: s[0] < 3, body, (0, jnp.float32(0.0)))
            """,
            check="assert abs(float(x) - 0.3) < 1e-6  # 0.1 three times, not 0.6",
        ),
        Example(
            _LOADER
            + """

            @jax.jit
            def first_batch_mean(loader):
                return next(iter(loader)).mean()

            loader = Loader(jnp.arange(8.0), 4)
            first_batch_mean(loader)  # error
            """,
            raises="TypeError",
        ),
    )
    valid = (
        Example(
            """
            import jax.numpy as jnp
            from jax import lax

            arr = jnp.arange(10)
            total = lax.fori_loop(0, 10, lambda i, x: x + arr[i], 0)
            """,
            check="assert int(total) == 45",
        ),
        Example(
            """
            import jax.numpy as jnp
            from jax import lax

            carry, ys = lax.scan(lambda c, x: (c + x, x), 0, jnp.arange(10))
            """,
            check="assert int(carry) == 45",
        ),
        Example(
            """
            import itertools

            it = iter(range(10))
            first_three = [next(it) for _ in range(3)]  # plain Python
            pairs = list(itertools.islice(it, 2))
            """,
            check="assert first_three == [0, 1, 2] and pairs == [3, 4]",
        ),
        Example(
            _LOADER
            + """

            @jax.jit
            def batch_mean(batch):
                return batch.mean()

            loader = Loader(jnp.arange(8.0), 4)
            means = [float(batch_mean(batch)) for batch in loader]  # iterated outside jit
            """,
            check="assert means == [1.5, 5.5]",
        ),
    )

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterable[Finding]:
        # Not a generator: most calls are none of these, and leave without making one.
        qualname = ctx.qualname(node.func)
        if qualname == "builtins.next":
            return self._next_in_body(node, ctx)
        if qualname in _LAX_OPERAND_CALLS:
            return self._lax_operands(node, qualname, ctx)
        inline = isinstance(node.func, ast.Call) and transform_of(
            node.func.func, ctx.model.resolver
        )
        if not (inline and inline[0].abstract) and _jitted_definition(node, ctx) is None:
            return ()
        return self._jitted_call(node, ctx)

    def _lax_operands(self, node: ast.Call, qualname: str, ctx: RuleContext) -> Iterator[Finding]:
        for operand in _operands(node):
            if ctx.kind(operand) is Kind.ITERATOR:
                yield ctx.finding(
                    self,
                    operand,
                    f"An iterator passed to `{qualname.removeprefix('jax.')}` is not a JAX "
                    f"type: this raises TypeError. Pass an array (`jnp.asarray(list(...))`) "
                    f"and index it",
                )

    def _next_in_body(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        trace = ctx.trace
        if trace is None or not trace.via.startswith("lax.") or not node.args:
            return
        source = node.args[0]
        base = source
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name) or base.id in bound_names(ctx.functions[-1]):
            return  # an iterator created inside the body is stepped each trace consistently
        yield ctx.finding(
            self,
            node,
            f"`next({ctx.segment(source)})` runs once, while `{trace.via}` traces its body: "
            f"the first value is reused in every iteration (silently wrong result). Index "
            f"an array instead (`values[i]`)",
        )

    def _jitted_call(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        """A call of a jitted function (`check` has tested that it is one)."""
        func = node.func
        signature = ctx.model.static_signatures.get(func.id) if isinstance(func, ast.Name) else None
        static = {id(value) for value, _ in static_arguments(node, signature)} if signature else ()
        for operand in _operands(node):
            if ctx.kind(operand) is Kind.ITERATOR:
                yield ctx.finding(
                    self,
                    operand,
                    "An iterator passed to a jitted function is not a JAX type: this raises "
                    "TypeError. Pass an array or a list of arrays",
                )
            elif id(operand) not in static and (loader := _iterable_instance(operand, node, ctx)):
                yield ctx.finding(
                    self,
                    operand,
                    f"An instance of `{loader}`, an iterable class that is not a PyTree, passed "
                    "to a jitted function is not a JAX type: this raises TypeError (and marked "
                    "static, its batches would be drawn once, at trace time). Iterate it outside "
                    "and pass each batch's arrays",
                )


RULES: tuple[type[Rule], ...] = (
    PrintInTraced,
    GlobalReadInTraced,
    GlobalWriteInTraced,
    IteratorInTraced,
)
