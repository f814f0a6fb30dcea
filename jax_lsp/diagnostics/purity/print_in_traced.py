"""JAX101 (print-in-traced): `print` of a traced value runs once, at trace time."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.transforms import TRACED_BRANCHES
from jax_lsp.codeactions.debug_print import debug_print_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.purity._common import (
    LOGGING_FUNCTIONS,
    FunctionScopes,
    carries_tracer,
    in_compiled_code,
    logger_call,
)
from jax_lsp.findings import Applicability, Finding, Fix, Severity


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


def _shadowed(ctx: RuleContext, name: str, scopes: FunctionScopes) -> bool:
    return name in ctx.model.global_kinds or scopes.is_local(ctx, name)


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
            import jax.numpy as jnp

            def double(p):
                return p * 2

            @jax.jit
            def step(params):
                g = double(params)
                print("g =", g)  # error
                return g

            step(jnp.ones(3))
            step(jnp.ones(3))
            """,
            check="assert 'Tracer' in _stdout and _stdout.count('g =') == 1, _stdout",
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
        Example(
            """
            import jax.numpy as jnp
            from flax import nnx

            class Model(nnx.Module):
                def __init__(self, rngs):
                    self.lin = nnx.Linear(2, 2, rngs=rngs)
                    self.depth = 2

                def __call__(self, x):
                    h = self.lin(x)  # a sublayer's output: a tracer under nnx.jit
                    print("h", h, "depth", self.depth)  # error
                    return h

            @nnx.jit
            def forward(model, x):
                return model(x)

            forward(Model(nnx.Rngs(0)), jnp.ones(2))
            """,
            check="assert 'Tracer' in _stdout, _stdout",
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            class Model(eqx.Module):
                lin: eqx.nn.Linear

                def __init__(self, key):
                    self.lin = eqx.nn.Linear(2, 2, key=key)

                def __call__(self, x):
                    h = self.lin(x)
                    print("h", h)  # error
                    return h

            @eqx.filter_jit
            def forward(model, x):
                return model(x)

            forward(Model(jax.random.key(0)), jnp.ones(2))
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
        self._scopes = FunctionScopes()

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.in_traced:
            return
        qualname = ctx.qualname(node.func)
        if qualname == "builtins.print":
            if _shadowed(ctx, "print", self._scopes):
                return
            output, fix = "`print`", debug_print_fix
        elif qualname in LOGGING_FUNCTIONS or logger_call(node.func, ctx):
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
                f"{output} in {ctx.where_traced} formats the traced value `{ctx.segment(value)}` "
                f"with the format spec `{spec}`: a tracer has no value to format, so it raises "
                "TypeError at trace time. Use "
                f'`jax.debug.print("... {{:{spec}}}", x)` to print the runtime value',
                fix=fix(node, ctx) if fix is not None else None,
            )
            return
        once = "only once per compilation (cached calls print nothing)"
        once = once if in_compiled_code(ctx) else ""
        timing = f", and {once}" if once else ""
        if fix is None:
            advice = (
                'Use `jax.debug.print("... {}", x)`, or `jax.debug.callback` to hand runtime '
                "values to the logger"
            )
            yield ctx.finding(
                self,
                node,
                f"{output} in {ctx.where_traced} runs at trace time: it logs tracer objects, not "
                f"values{timing}. {advice}",
            )
            return
        yield ctx.finding(
            self,
            node,
            f"`print` in {ctx.where_traced} runs at trace time: it prints tracer objects, not "
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
            f"`print` in {ctx.where_traced} runs while JAX traces the branches, for every branch "
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
