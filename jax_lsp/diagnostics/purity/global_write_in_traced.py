"""JAX103 (global-write-in-traced): a traced value stored outside the function leaks a
tracer; the store happens once, at trace time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jax_lsp.analysis.objects import self_assignments
from jax_lsp.analysis.summary import FunctionNode
from jax_lsp.analysis.transforms import REPEATING_LOOPS, TRANSFORMS
from jax_lsp.analysis.updates import state_path, stepped_and_read
from jax_lsp.diagnostics.base import Example, RuleContext
from jax_lsp.diagnostics.purity._common import (
    STORING_METHODS,
    StateRule,
    carries_tracer,
    in_compiled_code,
    in_staged_code,
)
from jax_lsp.findings import Finding, Severity

# Methods that build or configure an object: setting attributes there is not a leak.
_SETUP_METHODS = frozenset(["__init__", "__post_init__", "setup", "__setattr__", "__call__"])


# Frameworks whose modules manage state under their own transformations.
_STATEFUL_FRAMEWORKS = ("flax.", "haiku.", "equinox.", "penzai.")


# nnx optimizers: `update` changes their state (and the model's parameters) in place.
_NNX_OPTIMIZERS = frozenset(
    {"flax.nnx.Optimizer", "flax.nnx.ModelAndOptimizer", "flax.nnx.optimizer.Optimizer"}
)


class GlobalWriteInTraced(StateRule):
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
            if carries_tracer(stored, ctx) or (in_staged_code(ctx) and ctx.unseen_result(stored)):
                reason = self._leak(target, ctx)
                if reason:
                    yield self._report(target, reason, ctx)
            elif isinstance(node, ast.AugAssign) and (loop := _loop_running(ctx)):
                reason = self._leak(target, ctx)
                if reason:
                    yield self._report_once(node, reason, loop, ctx)
            elif _steps_state_it_reads(target, ctx) and in_compiled_code(ctx):
                reason = self._leak(target, ctx)
                if reason:
                    yield self._report_frozen_step(node, reason, ctx)

    def _report(self, node: ast.AST, where: str, ctx: RuleContext) -> Finding:
        return ctx.finding(
            self,
            node,
            f"A traced value is stored in {where} inside {ctx.where_traced}: the tracer leaks out "
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
            f"`{ctx.segment(node)}` updates {where} in {ctx.where_traced}, which runs only while "
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
                    f"`{holder}` is a flax nnx object made outside {ctx.where_traced}, passed to "
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
            f"`{holder}` is a flax nnx object made outside {ctx.where_traced}: nnx refuses to "
            f"change it inside the trace (flax raises an error: cannot mutate from a "
            f"different trace level). Pass it in as an argument of an `nnx.jit` function "
            f"(or split it with `nnx.split` and merge it back) instead of closing over it",
        )

    def _storing_call(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in STORING_METHODS):
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
