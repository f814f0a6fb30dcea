"""Non-array inputs (JAX501): most `jax.numpy` functions reject Python lists and tuples."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import is_text
from jax_lsp.codeactions.call_arguments import as_array_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.sequence_table import REJECTS_SEQUENCES as GENERATED_TABLE
from jax_lsp.findings import Applicability, Finding, Severity

# Positions the generated table cannot reach (its probe calls functions with float arrays,
# or one array and a shape/count/axis): integer `take` indices, `einsum`'s operands after
# the subscripts. tests/rules/test_inputs_table.py re-checks each.
MEASURED_BY_HAND: dict[str, tuple[int, ...]] = {
    "jax.numpy.take": (0, 1),
    "jax.numpy.einsum": (1, 2),
    "jax.nn.sigmoid": (0,),
}
# Which positional arguments must be arrays: TypeError "<name> requires ndarray or scalar
# arguments, got <class 'list'>" when a list or tuple is passed there.
REJECTS_SEQUENCES: dict[str, tuple[int, ...]] = {**GENERATED_TABLE, **MEASURED_BY_HAND}
# Functions that take a sequence of arrays (or of scalars) but reject a sequence of lists.
JOINS = frozenset(
    f"jax.numpy.{name}"
    for name in ("concatenate", "concat", "stack", "vstack", "hstack", "dstack", "column_stack")
)
_LITERALS = (ast.List, ast.Tuple, ast.ListComp)


def _is_sequence(arg: ast.expr, ctx: RuleContext) -> bool:
    if isinstance(arg, _LITERALS):
        return True
    return isinstance(arg, ast.Name) and ctx.kind(arg) is Kind.SEQUENCE


def _is_shape_tuple(arg: ast.expr, ctx: RuleContext) -> bool:
    """`x.shape` or a slice of it (`x.shape[1:]`) where `x` is known to be an array: a Python
    tuple. An integer index (`x.shape[0]`) is a number, and an object not known to be an array
    may have any `shape`, so both stay quiet."""
    if isinstance(arg, ast.Subscript):
        if not isinstance(arg.slice, ast.Slice):
            return False
        arg = arg.value
    if not isinstance(arg, ast.Attribute) or arg.attr != "shape":
        return False
    return ctx.kind(arg.value) in (Kind.TRACED, Kind.ARRAY, Kind.NUMPY)


def _inner_lists(arg: ast.expr) -> list[ast.expr] | None:
    """The elements of `[[1., 2.], [3.]]` when every one is itself a list or tuple literal."""
    if not isinstance(arg, ast.List | ast.Tuple) or not arg.elts:
        return None
    if all(isinstance(element, ast.List | ast.Tuple) for element in arg.elts):
        return list(arg.elts)
    return None


def _subscripts_form(call: ast.Call, ctx: RuleContext) -> bool:
    """`einsum("ij,jk", a, b)`: operands after a subscripts string. The interleaved form
    (`einsum(a, [0, 1], b, [1, 2])`, which JAX accepts too) starts with an operand."""
    if not call.args:
        return False
    first = call.args[0]
    return is_text(first) or (isinstance(first, ast.Name) and ctx.kind(first) is Kind.STATIC)


class NonArrayInput(Rule):
    code = "JAX501"
    name = "non-array-input"
    summary = "A Python list or tuple passed where a `jax.numpy` function needs an array"
    severity = Severity.ERROR
    what_it_does = """
        Flags a list or tuple literal, a list comprehension, or a name bound to one, passed
        positionally to a `jax.numpy` (or `jax.numpy.linalg`, `jax.numpy.fft`, `jax.nn`)
        function where it rejects sequences, such as `jnp.sum([1, 2, 3])` or
        `jnp.append([1, 2], [3])` (a table measured on JAX: every public function called
        with a list in each array position); a sequence of lists passed to
        `jnp.stack`/`concatenate`; and an array's `shape` (or a slice of it), a tuple, passed
        there, as in `jnp.prod(x.shape)`.
    """
    why_bad = """
        Unlike NumPy, `jax.numpy` functions do not convert lists implicitly: `jnp.sum([1, 2,
        3])` raises `TypeError: sum requires ndarray or scalar arguments`. Converting silently
        would hide a performance trap: a list passed through `jax.jit` becomes one traced input
        per element. Convert explicitly with `jnp.asarray(...)`. A list of arrays (or of
        scalars) given to `jnp.stack`/`jnp.concatenate` is fine. For an array's shape,
        `math.prod(x.shape)` (or `np.prod`) gives a Python number, which stays static under
        `jax.jit`, where `jnp.prod` of it would be traced.
    """
    fix_safety = """
        Wraps the argument in `jnp.asarray(...)`, which is what NumPy does implicitly. Safe
        when the list holds Python numbers only and no other argument of the call is a JAX
        array; unsafe otherwise: `jnp.asarray([0.0, 1.0])` is a float32 array, which widens
        a bfloat16 or float16 array beside it (Python numbers would have kept its dtype), and
        a list holding arrays makes an array only when their shapes agree.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    node_types = (ast.Call,)
    call_names = frozenset(name.rpartition(".")[2] for name in (*JOINS, *REJECTS_SEQUENCES))
    invalid = (
        Example(
            """
            import jax.numpy as jnp

            total = jnp.sum([1.0, 2.0, 3.0])  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            total = jnp.sum(jnp.asarray([1.0, 2.0, 3.0]))
            """,
        ),
        Example(
            """
            import jax.numpy as jnp

            def weighted(values, weights):
                return jnp.dot(values, weights)

            weights = [0.2, 0.3, 0.5]
            scores = jnp.exp([x / 10 for x in range(3)])  # error
            result = jnp.dot(scores, weights)  # error
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax.numpy as jnp

            batch = jnp.stack([[1.0, 2.0], [3.0, 4.0]])  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            batch = jnp.stack([jnp.asarray([1.0, 2.0]), jnp.asarray([3.0, 4.0])])
            """,
        ),
        Example(
            """
            import jax

            activations = jax.nn.relu([-1.0, 0.5])  # error
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax.numpy as jnp

            def pad_last(z_vals, far):
                # the array argument of broadcast_to, tile, roll... must be an array too
                return jnp.broadcast_to([far], z_vals[..., :1].shape)  # error

            dists = pad_last(jnp.linspace(0.0, 1.0, 8)[None, :], 1e10)
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            def pad_last(z_vals, far):
                # the array argument of broadcast_to, tile, roll... must be an array too
                return jnp.broadcast_to(jnp.asarray([far]), z_vals[..., :1].shape)

            dists = pad_last(jnp.linspace(0.0, 1.0, 8)[None, :], 1e10)
            """,
        ),
        Example(
            """
            import jax.numpy as jnp

            values = jnp.append([1, 2], [3])  # error
            """,
            raises="TypeError",
            fixed="""
            import jax.numpy as jnp

            values = jnp.append(jnp.asarray([1, 2]), jnp.asarray([3]))
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def flatten(x):
                size = jnp.prod(x.shape)  # error
                return x.reshape((size,))

            flat = flatten(jnp.ones((3, 4)))
            """,
            raises="TypeError",
        ),
    )
    valid = (
        Example(
            """
            import jax.numpy as jnp

            total = jnp.sum(jnp.asarray([1.0, 2.0, 3.0]))
            """,
            check="assert float(total) == 6.0",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            a, b = jnp.ones(2), jnp.zeros(2)
            rows = jnp.stack([a, b])  # a list of arrays is fine
            flat = jnp.concatenate((a, b))
            coords = jnp.stack([1.0, 2.0])  # so is a list of scalars
            host = np.sum([1, 2, 3])  # NumPy converts lists
            """,
            check="assert rows.shape == (2, 2) and flat.shape == (4,) and int(host) == 6",
        ),
        Example(
            """
            import jax.numpy as jnp

            x = jnp.ones((2, 3))
            y = jnp.reshape(x, (3, 2))  # the shape is a tuple, not an array argument
            s = jnp.sum(x, (0, 1))
            far = jnp.broadcast_to(1e10, (2, 1))  # a scalar broadcasts
            tiled = jnp.tile(x, [2, 1])  # the repetitions may be a list
            """,
            check="assert y.shape == (3, 2) and float(s) == 6.0 and far.shape == (2, 1) "
            "and tiled.shape == (4, 3)",
        ),
        Example(
            """
            import jax.numpy as jnp

            a, b = jnp.ones((2, 3)), jnp.ones((3, 4))
            dims_a, dims_b = [0, 1], [1, 2]
            # The interleaved form: each operand followed by its axes, then the output's.
            product = jnp.einsum(a, dims_a, b, dims_b, [0, 2])
            """,
            check="assert product.shape == (2, 4) and float(product[0, 0]) == 3.0",
        ),
        Example(
            """
            import math

            import jax
            import jax.numpy as jnp
            import numpy as np

            @jax.jit
            def flatten(x):
                size = math.prod(x.shape)  # a Python int: static under jit
                rows = np.prod(x.shape[:-1])
                scale = jnp.sqrt(x.shape[-1])  # one dimension is a number
                return x.reshape((size,)), rows, scale

            flat, rows, scale = flatten(jnp.ones((3, 4)))
            """,
            check="assert flat.shape == (12,) and int(rows) == 3",
        ),
    )

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        qualname = ctx.qualname(node.func)
        if qualname is None:
            return
        if qualname not in JOINS and qualname not in REJECTS_SEQUENCES:
            return
        function = qualname.removeprefix("jax.numpy.").removeprefix("jax.")
        if qualname in JOINS and node.args:
            inner = _inner_lists(node.args[0])
            if inner:
                numpy = ctx.resolvers[-1].alias_of("jax.numpy") or "jnp"
                yield ctx.finding(
                    self,
                    node.args[0],
                    f"`{function}` of a sequence of lists raises TypeError (`{function} "
                    f"requires ndarray or scalar arguments`). Convert each element with "
                    f"`{numpy}.asarray(...)`",
                    fix=as_array_fix(ctx, inner, node),
                )
            return
        if qualname == "jax.numpy.einsum" and not _subscripts_form(node, ctx):
            return  # `einsum(x, [0, 1], y, [1, 2], [0, 2])`: the lists are subscripts
        for position in REJECTS_SEQUENCES.get(qualname, ()):
            if position >= len(node.args) or any(
                isinstance(a, ast.Starred) for a in node.args[: position + 1]
            ):
                continue
            arg = node.args[position]
            numpy = ctx.resolvers[-1].alias_of("jax.numpy") or "jnp"
            if _is_shape_tuple(arg, ctx):
                # No fix: a shape computation wants a Python number (`math.prod`), and
                # `jnp.asarray` would make it an array, traced under `jit`.
                yield ctx.finding(
                    self,
                    arg,
                    f"`{ctx.segment(arg)}` is a Python tuple, and `{function}` does not accept "
                    f"one: it raises TypeError (`requires ndarray or scalar arguments`). For a "
                    f"shape computation use Python or NumPy (`math.prod(...)`, `np.prod(...)`), "
                    f"which also keeps the result static under `jax.jit`; for an array, "
                    f"`{numpy}.asarray(...)`",
                )
                continue
            if not _is_sequence(arg, ctx):
                continue
            yield ctx.finding(
                self,
                arg,
                f"`{function}` does not accept a Python list or tuple: it raises TypeError "
                f"(`requires ndarray or scalar arguments`). Wrap it: "
                f"`{numpy}.asarray({ctx.segment(arg)})`",
                fix=as_array_fix(ctx, [arg], node),
            )


RULES: tuple[type[Rule], ...] = (NonArrayInput,)
