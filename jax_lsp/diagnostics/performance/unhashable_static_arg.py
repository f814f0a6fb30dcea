"""JAX1002 (unhashable-static-arg): an unhashable value made static fails the jit's cache."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import replace

from jax_lsp.analysis.hashing import (
    Binding,
    ValueJudge,
    dominating_binding,
    static_arguments,
    with_imported,
)
from jax_lsp.analysis.jitted import StaticSignature
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.sequence_uses import used_as_tuple_alike
from jax_lsp.analysis.summary import FunctionNode, transform_of
from jax_lsp.analysis.traced import positional_params
from jax_lsp.codeactions.call_arguments import as_tuple_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.performance._common import static_signature
from jax_lsp.findings import Applicability, Finding, Related, Severity, Span

_UNHASHABLE = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _traced_parameter(value: ast.expr, ctx: RuleContext) -> bool:
    """`value` is a parameter of the enclosing function that its trace gives a tracer, passed
    as it is (not a value computed from one: the fields of an object of an unseen class may
    be static, and what is computed from them Python values)."""
    trace, function = ctx.trace, ctx.functions[-1] if ctx.functions else None
    return (
        trace is not None
        and function is not None
        and isinstance(value, ast.Name)
        and value.id in trace.traced_params
        and ctx.kind(value) is Kind.TRACED
        and not any(
            isinstance(node, ast.Name) and node.id == value.id and type(node.ctx) is not ast.Load
            for node in walk_nodes(function)
        )
    )


# The shared start of two JAX1002 examples: a jitted function with static list-like limits.
_JITTED_GRID = """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnums=(0, 1))
            def _grid(x_limits, num):
                return jnp.linspace(*x_limits, num=num)
"""


# A jitted function whose last two parameters are static (JAX1002's partial examples).
_SCALED_TANH = """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnums=(1, 2))
            def scaled_tanh(z, alpha, temperature):
                return jnp.tanh(alpha * z / temperature)
"""


class UnhashableStaticArg(Rule):
    code = "JAX1002"
    name = "unhashable-static-arg"
    summary = "An unhashable value (list, dict, set, array, mutable dataclass) made static"
    severity = Severity.ERROR
    what_it_does = """
        Flags an unhashable value passed at a `static_argnums` / `static_argnames` position of
        a function jitted in this module: a tracer (a traced value passed there, or a
        transformation of the function, `jax.vmap(partial(f, a, b))`, that fills a static
        position with the values it traces), a list, dict or set (a literal, or a name whose value
        where it is passed is one), a NumPy or JAX array, an instance of a dataclass that is
        not frozen or of a class defining `__eq__` without `__hash__`, an optimizer state
        (`tx.init(params)`, `opt_init(params)`); also a wrapper's parameter passed on in a
        static position when a call of the wrapper gives it such a value. Flags, too, a field
        of a PyTree class annotated as an array and marked static
        (`eqx.field(static=True)`, `flax.struct.field(pytree_node=False)`).
    """
    why_bad = """
        Static arguments key the compilation cache, so they must be hashable: a list, dict,
        set or array raises `ValueError: Non-hashable static arguments are not supported`.
        Static fields of a pytree are compared as metadata on every jitted call, and arrays
        cannot be compared: the second call with another instance raises `ValueError`. Pass a
        tuple (or a frozenset, or a frozen dataclass) instead, and keep arrays as leaves.
    """
    fix_safety = """
        Rewrites a list literal to a tuple (`[0, 1]` to `(0, 1)`). Safe when the jitted
        function (of this module) only iterates, indexes, measures or tests membership of the
        value, or passes it as a shape or axes to JAX or NumPy: a tuple does all of that as
        the list does. Unsafe when it may use the value as a list (`dims + [1]`,
        `axes.sort()`, `x[idx]`, a comparison, passing it to other code), or when the
        function is not seen.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.Call, ast.ClassDef)
    invalid = (
        Example(
            _SCALED_TANH
            + """
            rows = jnp.ones((3, 2))
            jax.vmap(partial(scaled_tanh, 0.5, 2.0))(rows)  # error
            """,
            raises="ValueError",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnames="size")
            def head(x, size):
                return x[:size]

            @jax.jit
            def first(x, n):
                return head(x, n)  # error

            first(jnp.arange(4.0), 2)
            """,
            raises="ValueError",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnums=1)
            def total(x, axes):
                return x.sum(axes)

            total(jnp.ones((2, 3)), [0, 1])  # error
            """,
            raises="ValueError",
            fixed="""
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnums=1)
            def total(x, axes):
                return x.sum(axes)

            total(jnp.ones((2, 3)), (0, 1))
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def pad(x, widths):
                return jnp.pad(x, widths["pad"])

            pad_jit = jax.jit(pad, static_argnames="widths")
            padded = pad_jit(jnp.ones(3), widths={"pad": 1})  # error
            """,
            raises="ValueError",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnums=(0,))
            def add_one(dummy, x):
                return x + 1

            dummy_arg = [0]
            add_one(dummy_arg, jnp.zeros(3))  # error
            """,
            raises="ValueError",
        ),
        Example(
            _JITTED_GRID
            + """

            def grid(x_limits, num=5):
                return _grid(x_limits, num)  # error

            limits = [-2, 2]
            grid(limits)
            """,
            raises="ValueError",
        ),
        Example(
            """
            import dataclasses
            from functools import partial

            import jax

            @dataclasses.dataclass
            class Config:
                scale: float = 2.0

            @partial(jax.jit, static_argnames="config")
            def scaled(x, config):
                return x * config.scale

            config = Config()
            scaled(1.0, config=config)  # error
            """,
            raises="ValueError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            from jax.example_libraries import optimizers

            def run(lr, opt_state):
                return opt_state

            run_jit = jax.jit(run, static_argnums=(1,))
            opt_init, opt_update, get_params = optimizers.sgd(0.1)
            opt_state = opt_init(jnp.ones(3))
            run_jit(0.1, opt_state)  # error
            """,
            raises="ValueError",
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            class Data(eqx.Module):
                values: jax.Array = eqx.field(static=True)  # error

            @eqx.filter_jit
            def total(data):
                return 1.0

            total(Data(jnp.arange(3.0)))
            total(Data(jnp.arange(3.0) + 1))
            """,
            raises="ValueError",
        ),
    )
    valid = (
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnums=1)
            def total(x, axes):
                return x.sum(axes)

            result = total(jnp.ones((2, 3)), (0, 1))
            """,
            check="assert float(result) == 6.0",
        ),
        Example(
            _SCALED_TANH
            + """
            rows = jnp.ones((3, 2))
            by_name = jax.vmap(partial(scaled_tanh, alpha=0.5, temperature=2.0))(rows)
            unmapped = jax.vmap(scaled_tanh, in_axes=(0, None, None))(rows, 0.5, 2.0)
            in_place = jax.vmap(lambda z: scaled_tanh(z, 0.5, 2.0))(rows)
            """,
            check="assert by_name.shape == unmapped.shape == in_place.shape == (3, 2)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def total(x, weights):
                return (x * jnp.asarray(weights)).sum()

            result = total(jnp.ones(2), [1.0, 2.0])  # not static: the list is a pytree
            """,
            check="assert float(result) == 3.0",
        ),
        Example(
            """
            import dataclasses
            from functools import partial

            import jax

            @partial(jax.jit, static_argnames="config")
            def scaled(x, config):
                return x * config.scale

            @dataclasses.dataclass(frozen=True)
            class Config:  # frozen: hashed by value
                scale: float = 2.0

            result = scaled(1.0, config=Config())
            """,
            check="assert float(result) == 2.0",
        ),
        Example(
            _JITTED_GRID
            + """

            def grid(x_limits, num=5):
                return _grid(x_limits, num)

            limits = [-2, 2]
            limits = tuple(limits)  # the value passed is a tuple
            result = grid(limits)
            """,
            check="assert result.tolist() == [-2.0, -1.0, 0.0, 1.0, 2.0]",
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            class Data(eqx.Module):
                values: jax.Array
                size: int = eqx.field(static=True)

            @eqx.filter_jit
            def total(data):
                return data.values.sum() * data.size

            first = total(Data(jnp.arange(3.0), 3))
            second = total(Data(jnp.arange(3.0) + 1, 3))
            """,
            check="assert float(second) == 18.0",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnames="precision")
            def gram(x, precision=None):
                return jnp.dot(x, x, precision=precision)

            result = gram(jnp.ones(3), precision=jax.lax.Precision("highest"))
            """,
            check="assert float(result) == 3.0  # an enum member: hashable",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        if isinstance(node, ast.ClassDef):
            return self._static_fields(node, ctx)
        # Not a generator: most calls are of no transformation nor of a function with static
        # parameters, and leave here without the cost of making one.
        transformed = None
        # Asked of transformations only: every answer a unit's rules get is recorded.
        if node.args and transform_of(node.func, ctx.resolvers[-1]) is not None:
            transformed = ctx.model.tracers_at_static.get(node)
        signature = static_signature(node, ctx)
        if transformed is None and signature is None:
            return ()
        return self._call(node, transformed, signature, ctx)

    def _call(
        self,
        node: ast.Call,
        transformed: tuple[str, frozenset[str], bool] | None,
        signature: StaticSignature | None,
        ctx: RuleContext,
    ) -> Iterator[Finding]:
        if transformed is not None:
            yield self._transformed_finding(node, *transformed, ctx)
        if signature is None:
            return
        facts = ctx.model.hash_facts
        classes, values = with_imported(facts.classes, facts.module_values, ctx.model.external)
        judge = ValueJudge(ctx.resolvers[-1], classes, values, _settled_global(ctx))
        for value, where in static_arguments(node, signature):
            if isinstance(value, _UNHASHABLE):
                yield self._finding(value, where, ctx, _tuple_alike(node, value, ctx))
                continue
            if _traced_parameter(value, ctx):
                yield self._tracer_finding(value, where, ctx)
                continue
            chain = [*ctx.ancestors, node, value]

            def lookup(name: str, chain: list[ast.AST] = chain) -> Binding | None:
                return dominating_binding(name, chain)

            what = judge.unhashable(value, lookup)
            if what is not None:
                yield self._value_finding(value, what, where, ctx)
            elif isinstance(value, ast.Name):
                yield from self._through_parameter(value, lookup(value.id), where, ctx)

    def _finding(self, value: ast.expr, where: str, ctx: RuleContext, tuple_alike: bool) -> Finding:
        kind = type(value).__name__.removesuffix("Comp").lower()
        fix = as_tuple_fix(value, ctx, tuple_alike) if isinstance(value, ast.List) else None
        return ctx.finding(
            self,
            value,
            f"A {kind} passed as a static argument ({where}) of a jitted function raises "
            "ValueError: static arguments must be hashable. Pass a tuple",
            fix=fix,
        )

    def _tracer_finding(self, value: ast.expr, where: str, ctx: RuleContext) -> Finding:
        return ctx.finding(
            self,
            value,
            f"`{ctx.segment(value)}` is traced here, and it is passed as a static argument "
            f"({where}) of a jitted function: JAX hashes static arguments and a tracer cannot "
            "be hashed, so this raises ValueError. Pass it as a traced argument, or pass a "
            "Python value",
        )

    def _transformed_finding(
        self,
        node: ast.Call,
        function: str,
        params: frozenset[str],
        shifted: bool,
        ctx: RuleContext,
    ) -> Finding:
        names = ", ".join(f"`{name}`" for name in sorted(params))
        why = (
            " (the arguments `partial` binds first shift the positions it fills)" if shifted else ""
        )
        return ctx.finding(
            self,
            node,
            f"This transformation passes tracers as {names}, static arguments of the jitted "
            f"`{function}`{why}: JAX hashes static arguments and a tracer cannot be hashed, "
            "so calling it raises ValueError. Pass the static arguments by keyword or in a "
            "lambda (`lambda z: f(z, a, b)`), and transform only the traced ones",
        )

    def _value_finding(self, value: ast.expr, what: str, where: str, ctx: RuleContext) -> Finding:
        named = isinstance(value, ast.Name | ast.Subscript)
        holds = f"`{ctx.segment(value)}` holds {what}" if named else what
        return ctx.finding(
            self,
            value,
            f"{holds[0].upper()}{holds[1:]}, passed as a static argument ({where}) of a jitted "
            "function: static arguments must be hashable, so this raises ValueError. Pass a "
            "hashable value (a tuple, a frozen dataclass), or pass arrays as traced arguments",
        )

    def _through_parameter(
        self, value: ast.Name, binding: Binding | None, where: str, ctx: RuleContext
    ) -> Iterator[Finding]:
        if binding is None or binding.parameter is None:
            return
        function, parameter = binding.parameter
        record = ctx.model.records.get(function)
        passed = record and ctx.model.hash_facts.parameters.get((record.path, parameter))
        if not passed:
            return
        what, (line, column, end_line, end_column) = passed
        finding = ctx.finding(
            self,
            value,
            f"`{parameter}` is passed on as a static argument ({where}) of a jitted function, "
            f"and a call of `{record.path}` gives it {what} (line {line + 1}): static "
            "arguments must be hashable, so that call raises ValueError. Pass a hashable value "
            "(a tuple)",
        )
        related = Related(
            Span.of(line, column, end_line, end_column),
            f"{what[0].upper()}{what[1:]} passed as `{parameter}`",
            document_anchored=True,
        )
        yield replace(finding, related=(*finding.related, related))

    def _static_fields(self, node: ast.ClassDef, ctx: RuleContext) -> Iterator[Finding]:
        """Array-annotated fields of a PyTree class marked static (`eqx.field(static=True)`,
        `flax.struct.field(pytree_node=False)`): arrays cannot be compared as metadata."""
        for statement in node.body:
            if not (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.value, ast.Call)
                and _static_field(statement.value, ctx)
                and _array_annotation(statement.annotation, ctx)
            ):
                continue
            yield ctx.finding(
                self,
                statement,
                f"`{ctx.segment(statement.target)}` is an array in a static field: JAX "
                "compares static fields of a pytree as metadata when a jitted function is "
                "called, and arrays cannot be compared, so a call with another instance raises "
                "ValueError (and equal metadata is never cached). Make the field a pytree leaf "
                "(drop `static=True` / `pytree_node=False`), or store a tuple",
            )


# Field specifiers that mark a field static, with the keyword and value that do so.
_STATIC_FIELDS = {
    "equinox.field": ("static", True),
    "flax.struct.field": ("pytree_node", False),
}


_ARRAY_ANNOTATIONS = frozenset(
    {"jax.Array", "jax.numpy.ndarray", "numpy.ndarray", "jaxtyping.Array"}
)


_JAXTYPING_DTYPES = ("jaxtyping.",)


def _static_field(call: ast.Call, ctx: RuleContext) -> bool:
    spec = _STATIC_FIELDS.get(ctx.qualname(call.func) or "")
    if spec is None:
        return False
    return any(
        kw.arg == spec[0] and isinstance(kw.value, ast.Constant) and kw.value.value is spec[1]
        for kw in call.keywords
    )


def _array_annotation(annotation: ast.expr, ctx: RuleContext) -> bool:
    """`jax.Array`, `np.ndarray`, `Float[Array, "n"]` (a jaxtyping array type)."""
    if isinstance(annotation, ast.Subscript):  # `Float[Array, "n"]`; not `Float[ArrayLike, ...]`
        qualname = ctx.qualname(annotation.value) or ""
        if not qualname.startswith(_JAXTYPING_DTYPES) or qualname == "jaxtyping.PyTree":
            return False
        inner = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else None
        return inner is not None and ctx.qualname(inner) in _ARRAY_ANNOTATIONS
    return ctx.qualname(annotation) in _ARRAY_ANNOTATIONS


def _settled_global(ctx: RuleContext):
    """The model's value of a module-level name that nothing rebinds or mutates (an imported
    one too: the value its module binds it to)."""

    def value(name: str):
        if name in ctx.model.mutable_globals:
            return None
        return ctx.model.global_values.get(name)

    return value


def _tuple_alike(call: ast.Call, value: ast.expr, ctx: RuleContext) -> bool:
    """Does the jitted function `call` invokes use the parameter `value` is passed to only
    as a tuple would be used the same (so passing a tuple changes nothing)?"""
    function = _jitted_function(call, ctx)
    if function is None:
        return False
    if value in call.args:
        positional = positional_params(function)
        index = call.args.index(value)
        if index >= len(positional):
            return False
        parameter = positional[index]
    else:
        parameter = next((k.arg for k in call.keywords if k.value is value), None)
    return parameter is not None and used_as_tuple_alike(function, parameter, ctx.resolvers[-1])


def _jitted_function(call: ast.Call, ctx: RuleContext) -> FunctionNode | None:
    """The module function a call of a jitted callable runs: `f(...)` for a decorated `f`,
    `g(...)` for `g = jax.jit(f, ...)`, `jax.jit(f, ...)(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        record = ctx.model.functions.get(func.id)
        if record is not None:
            return record.node if record.node.decorator_list else None
        func = ctx.model.stable_globals.get(func.id)
    if not (isinstance(func, ast.Call) and func.args):
        return None
    target = func.args[0]
    if isinstance(target, ast.Lambda):
        return target
    if isinstance(target, ast.Name):
        record = ctx.model.functions.get(target.id)
        return record.node if record is not None else None
    return None
