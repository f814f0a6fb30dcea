"""JAX102 (global-read-in-traced): a module-level value read at trace time is baked in;
the module's later changes never reach the compiled function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace

from jax_lsp.analysis.attributes import bound_method_transforms
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import all_params, child_nodes, walk_nodes
from jax_lsp.analysis.summary import FunctionNode, transform_of
from jax_lsp.analysis.updates import stepped_and_read
from jax_lsp.diagnostics.base import Example, RuleContext
from jax_lsp.diagnostics.purity._common import (
    CACHING_TRANSFORMS,
    LOGGING_FUNCTIONS,
    STORING_METHODS,
    StateRule,
    compiled_once,
    in_compiled_code,
    logger_call,
)
from jax_lsp.findings import Finding, Related, Severity


def _is_write_receiver(node: ast.Name, ctx: RuleContext) -> bool:
    """`g` in `g.append(x)`, `g[k] = x`, `g.attr = x`: a write, reported by JAX103."""
    ancestors = ctx.ancestors
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, ast.Subscript | ast.Attribute) and isinstance(parent.ctx, ast.Store):
        return parent.value is node
    grandparent = ancestors[-2] if len(ancestors) > 1 else None
    return (
        isinstance(parent, ast.Attribute)
        and parent.attr in STORING_METHODS
        and isinstance(grandparent, ast.Call)
        and grandparent.func is parent
    )


def _used_after_trace(node: ast.Name, ctx: RuleContext) -> bool:
    """Does the traced function use this read of a global it rebinds itself beyond its own
    update (`g = g + 1`, what a trace counter does) and a print or log at trace time: in a
    result, an operand, a branch?"""
    for ancestor in reversed(ctx.ancestors):
        if isinstance(ancestor, ast.Call) and (
            ctx.qualname(ancestor.func) in ("builtins.print", *LOGGING_FUNCTIONS)
            or logger_call(ancestor.func, ctx)
        ):
            return False
        if isinstance(ancestor, ast.stmt):
            targets = ancestor.targets if isinstance(ancestor, ast.Assign) else []
            return not any(isinstance(t, ast.Name) and t.id == node.id for t in targets)
    return True


class GlobalReadInTraced(StateRule):
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
        (`self.f = jax.jit(self.step)`) when another method of the class assigns it, and a
        value of another module (`settings.SCALE`, an imported `OPTIONS`) that a module
        calling the jitted function changes after the call (`settings.SCALE = 3.0`).
        A change after the last call that may reach the compiled function is not flagged: a
        plain function jitted where it is called (`params = jax.jit(init_model)()`), never
        stored nor decorated, runs again only where later code names it. Nor is a global set
        once by a lazy initialisation (`if _model is None: _model = build()`, or after
        `if _ready: return`): once set, it does not change. Nor is a global set up by the
        script's entry function (`LR = args.lr` in `main`) outside any loop and before it
        calls anything of the module, where the module calls that function once, before
        anything else of its own: nothing was traced before it was set.
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

            LR = 0.1

            @jax.jit
            def update(w, g):
                return w - LR * g  # error

            def main():
                global LR
                w = update(1.0, 1.0)
                LR = 0.5  # set after the first trace
                return update(w, 1.0)

            result = main()
            """,
            check="assert abs(float(result) - 0.8) < 1e-6  # not 0.4: the old rate",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            temperature = 1.0

            def set_temperature(value):
                global temperature
                temperature = value

            def scaled(logits):
                return logits / temperature  # error

            batched = jax.jit(jax.vmap(scaled))  # the jit caches the batched trace
            batched(jnp.ones((2, 3)))
            set_temperature(0.5)
            result = batched(jnp.ones((2, 3)))
            """,
            check="assert float(result[0, 0]) == 1.0  # still the old temperature",
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
            import argparse

            import jax

            LR = 0.1

            @jax.jit
            def update(w, g):
                return w - LR * g

            def main(argv):
                global LR
                args = argparse.ArgumentParser().parse_args(argv)
                LR = 0.5  # set up before anything is traced
                w = 1.0
                for _ in range(2):
                    w = update(w, 1.0)
                return w, args

            result, _ = main([])
            """,
            check="assert abs(float(result)) < 1e-6  # 1 - 0.5 - 0.5",
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
        if ctx.model.changed_elsewhere:
            found = self._changed_elsewhere(node, ctx)
            if found is not None:
                yield found
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
        if not in_compiled_code(ctx):
            return  # retraced on every call (vmap alone, a fresh lambda): never stale
        key = (id(ctx.functions[0]), name)
        if key in self._seen:
            return  # one report per global per function
        self._seen.add(key)
        if own:
            message = (
                f"`{name}` is changed through `global` in {ctx.where_traced}, which runs only "
                f"while JAX traces: the value read here is compiled in, and later calls "
                f"neither change `{name}` nor see it change. Pass `{name}` in and return it"
            )
        else:
            message = (
                f"`{name}` is a module-level value this module changes, read in "
                f"{ctx.where_traced}: "
                f"its value at the first trace is compiled in, and later calls with the same "
                f"shapes silently keep using it. Pass `{name}` as an argument instead"
            )
        yield ctx.finding(self, node, message)

    def _changed_elsewhere(self, node: ast.Name, ctx: RuleContext) -> Finding | None:
        """A value of another module (`settings.SCALE`, an imported `OPTIONS`) read in a
        jitted function that a module calling it changes after the call."""
        parent = ctx.parent
        spelling = node.id
        if isinstance(parent, ast.Attribute) and parent.value is node:
            spelling = f"{node.id}.{parent.attr}"
        paths = ctx.model.changed_elsewhere.get(spelling)
        if not paths or self._scopes.is_local(ctx, node.id):
            return None
        record = ctx.model.records.get(ctx.functions[0])
        if record is None or record.path not in paths or not in_compiled_code(ctx):
            return None
        key = (id(ctx.functions[0]), spelling)
        if key in self._seen:
            return None
        self._seen.add(key)
        message = (
            f"`{spelling}` is read in {ctx.where_traced}, and a module calling "
            f"`{record.path}` changes it after the call: its value at the first trace is "
            f"compiled in, and later calls with the same shapes silently keep using it. Pass "
            f"`{spelling}` as an argument instead"
        )
        target = parent if spelling != node.id else node
        return ctx.finding(self, target, message)

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
        if (
            rebound is None
            or key in self._seen
            or not _may_run_after(closure, owner, rebound, ctx.resolvers[-1])
        ):
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
    found = bound_method_transforms(cls, ctx.model.resolver, CACHING_TRANSFORMS)
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


def _may_run_after(
    closure: ast.AST, owner: FunctionNode, rebinding: ast.Name, resolver: Resolver
) -> bool:
    """Whether the jitted closure may be called after `rebinding`. Not when every name that
    holds it (its `def` name, `h = jax.jit(...)`) is read only as a callee, or to jit it into
    another such name, and never after the rebinding (nor in a loop around it) while it still
    holds this closure; nor when it is called where it is made (`jax.jit(lambda ...)(x)`,
    `jax.jit(jax.vmap(f))(x)`)."""
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
            transformed = _transformed_at_once(use, parents, resolver)
            if transformed > 1:
                continue  # compiled anew where it runs: no trace of it is reused
            called = transformed == 1 or (isinstance(parent, ast.Call) and parent.func is use)
            if not called:
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


def _transformed_at_once(use: ast.Name, parents: dict[ast.AST, ast.AST], resolver: Resolver) -> int:
    """How many transformations of `use` make what is called where they make it: 1 for
    `jax.jit(f)(x)`, a call of `f`'s compiled trace; 2 for `jax.jit(jax.vmap(f))(x)`, whose
    jit compiles a new wrapper every time and reuses nothing; 0 when not so called."""
    current, parent, count = use, parents.get(use), 0
    while (
        isinstance(parent, ast.Call)
        and parent.args[:1] == [current]
        and transform_of(parent.func, resolver) is not None
    ):
        current, parent, count = parent, parents.get(parent), count + 1
    return count if isinstance(parent, ast.Call) and parent.func is current else 0


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
