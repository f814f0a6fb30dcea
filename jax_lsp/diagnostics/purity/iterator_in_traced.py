"""JAX104 (iterator-in-traced): a Python iterator steps once, at trace time, however often
the `lax` body runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from jax_lsp.analysis.hashing import Binding, dominating_binding, instance_of, static_arguments
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.module_state import bound_names
from jax_lsp.analysis.summary import transform_of
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.findings import Finding, Severity

_LAX_OPERAND_CALLS = frozenset(
    f"jax.lax.{name}" for name in ["scan", "cond", "fori_loop", "while_loop", "switch", "map"]
)


def _operands(call: ast.Call) -> list[ast.expr]:
    """Arguments passed as values (`*it` unpacks an iterator in Python: fine)."""
    arguments = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
    return [*arguments, *(keyword.value for keyword in call.keywords if keyword.arg)]


def _calls_jitted_definition(call: ast.Call, ctx: RuleContext) -> bool:
    """Does a call invoke a module function decorated with a jit-like transform?"""
    func = call.func
    return isinstance(func, ast.Name) and func.id in ctx.model.abstract_decorated_functions


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
        if not (inline and inline[0].abstract) and not _calls_jitted_definition(node, ctx):
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
