"""Indexing (JAX301): out-of-bounds constant indices are clamped or dropped, never raised.

The rule tracks the literal shapes of arrays built in one scope (`x = jnp.arange(10)`,
`jnp.zeros((3, 3))`) in program order. A name loses its shape as soon as it is rebound to
something else, bound in a loop, a `try` or only one branch, or declared global/nonlocal.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.model import ModuleModel, local_imports
from jax_lsp.analysis.names import declared_elsewhere, scope_bound_names, stored_names
from jax_lsp.analysis.nodes import child_nodes
from jax_lsp.analysis.text import contains_word
from jax_lsp.analysis.traced import all_params
from jax_lsp.codeactions.at_update import fill_read_fix
from jax_lsp.compat import TRY_STATEMENTS
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.diagnostics.inplace import UPDATE_METHODS
from jax_lsp.findings import Finding, Severity

_FILLED = {"zeros", "ones", "empty", "full"}
_LIKE = {"zeros_like", "ones_like", "empty_like", "full_like"}
_FLOAT_DTYPES = ("float", "bfloat16", "complex")
# Every function `ShapeTracker._call_shape` reads a shape from (the `_like` ones need another).
_SHAPE_MAKERS = frozenset(
    {"arange", *_FILLED, "linspace", "eye", "identity", "array", "asarray", "normal", "uniform"}
)
# Only literal integer indices are judged, so a scope with no digit inside brackets (nor a
# `take(` call) has none.
_LITERAL_INDEX = re.compile(r"\[[^\]]*\d")
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Statements whose blocks may run zero, one or several times, or be left half-way.
_BRANCHING = (ast.For, ast.AsyncFor, ast.While, *TRY_STATEMENTS, ast.Match)
_OTHER_SCOPES = (*_NESTED, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(frozen=True)
class ArrayShape:
    shape: tuple[int, ...]
    floating: bool  # known to hold floats (a NaN fill value fits)
    # A Python list of `shape[0]` arrays of shape `shape[1:]` (`jnp.split`): indexing it
    # raises IndexError, so only `jnp.array(...)` of it gives an array of `shape`.
    pieces: bool = False


# -- literal evaluation ----------------------------------------------------------------------
def _int(expr: ast.expr | None) -> int | None:
    number = _number(expr)
    return number if isinstance(number, int) else None


_INT_ARITHMETIC = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__}


def _number(expr: ast.expr | None) -> int | float | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _number(expr.operand)
        return -inner if inner is not None else None
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float):
        return expr.value
    if isinstance(expr, ast.BinOp) and type(expr.op) in _INT_ARITHMETIC:
        left, right = _number(expr.left), _number(expr.right)
        if type(left) is int and type(right) is int:  # `500 * 32 * 32`
            return _INT_ARITHMETIC[type(expr.op)](left, right)
    return None


def _shape_literal(expr: ast.expr | None) -> tuple[int, ...] | None:
    if isinstance(expr, ast.Tuple | ast.List):
        dims = [_int(element) for element in expr.elts]
        if all(d is not None and d >= 0 for d in dims):
            return tuple(dims)
        return None
    size = _int(expr)
    return (size,) if size is not None and size >= 0 else None


def _nested_shape(expr: ast.expr) -> tuple[tuple[int, ...], bool] | None:
    """Shape and float-ness of a rectangular nested list of number literals."""
    if not isinstance(expr, ast.List | ast.Tuple):
        number = _number(expr)
        return None if number is None else ((), isinstance(number, float))
    parts = [_nested_shape(element) for element in expr.elts]
    if not parts or any(p is None for p in parts) or len({p[0] for p in parts}) != 1:
        return None
    return (len(parts), *parts[0][0]), any(p[1] for p in parts)


def _dtype_floating(call: ast.Call, resolver: Resolver, default: bool) -> bool | None:
    """Is the `dtype=` of a creation call a float type (None: can't tell)?"""
    dtype = next((kw.value for kw in call.keywords if kw.arg == "dtype"), None)
    if dtype is None:
        return default
    name = resolver.qualname(dtype) or ""
    if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        name = dtype.value
    leaf = name.rpartition(".")[2]
    if not leaf:
        return None
    return leaf.startswith(_FLOAT_DTYPES)


def _arange_length(call: ast.Call) -> tuple[int, bool] | None:
    if len(call.args) > 3 or any(kw.arg != "dtype" for kw in call.keywords):
        return None
    numbers = [_number(arg) for arg in call.args]
    if not numbers or any(n is None for n in numbers):
        return None
    start, stop, step = (0, numbers[0], 1) if len(numbers) == 1 else (*numbers[:2], 1)
    if len(numbers) == 3:
        step = numbers[2]
    if step == 0:
        return None
    return max(0, math.ceil((stop - start) / step)), any(isinstance(n, float) for n in numbers)


class ShapeTracker:
    """Literal shapes of the names of one scope, updated statement by statement."""

    def __init__(self, resolver: Resolver, untracked: frozenset[str]) -> None:
        self.resolver = resolver
        self.untracked = untracked  # names another scope may rebind (global/nonlocal)
        self.env: dict[str, ArrayShape] = {}
        self.integers: dict[str, int] = {}  # names bound to an int literal (`chunks = 5`)

    def integer(self, expr: ast.expr | None) -> int | None:
        if isinstance(expr, ast.Name):
            return self.integers.get(expr.id)
        return _int(expr)

    def shape_of(self, expr: ast.expr) -> ArrayShape | None:
        known = self._shape_of(expr)
        return None if known is not None and known.pieces else known

    def _shape_of(self, expr: ast.expr) -> ArrayShape | None:
        """The shape of `expr`, or of the pieces it lists (ArrayShape.pieces)."""
        if isinstance(expr, ast.Name):
            return self.env.get(expr.id)
        if isinstance(expr, ast.BinOp) and not isinstance(expr.op, ast.MatMult):
            # An array combined with a number keeps its shape.
            for array, other in ((expr.left, expr.right), (expr.right, expr.left)):
                known = self.shape_of(array)
                if known is not None and _number(other) is not None:
                    floating = known.floating or isinstance(_number(other), float)
                    if isinstance(expr.op, ast.Div):
                        floating = True
                    return ArrayShape(known.shape, floating)
            return None
        if isinstance(expr, ast.Call):
            return self._call_shape(expr)
        return None

    def _call_shape(self, call: ast.Call) -> ArrayShape | None:
        qualname = self.resolver.qualname(call.func) or ""
        module, _, function = qualname.rpartition(".")
        if not qualname and isinstance(call.func, ast.Attribute) and call.func.attr == "reshape":
            return self._reshaped(call)
        if qualname in ("jax.numpy.split", "jax.numpy.array_split"):
            return self._split(call)
        if qualname in ("jax.numpy.array", "jax.numpy.asarray", "jax.numpy.stack"):
            listed = self._shape_of(call.args[0]) if len(call.args) == 1 else None
            if listed is not None and listed.pieces and not call.keywords:
                return ArrayShape(listed.shape, listed.floating)
        if module == "jax.random" and function in ("normal", "uniform") and len(call.args) >= 2:
            shape = _shape_literal(call.args[1])
            floating = _dtype_floating(call, self.resolver, True)
            return ArrayShape(shape, floating) if shape is not None and floating else None
        if module != "jax.numpy":
            return None
        if function == "arange":
            found = _arange_length(call)
            if found is None:
                return None
            floating = _dtype_floating(call, self.resolver, found[1])
            return ArrayShape((found[0],), bool(floating))
        if function in _FILLED and call.args:
            shape = _shape_literal(call.args[0])
            if shape is None:
                return None
            default = function != "full" or isinstance(_number(_arg(call, 1)), float)
            return ArrayShape(shape, bool(_dtype_floating(call, self.resolver, default)))
        if function == "linspace" and 2 <= len(call.args) <= 3:
            num = _arg(call, 2)
            num = next((kw.value for kw in call.keywords if kw.arg == "num"), num)
            size = 50 if num is None else _int(num)
            if (
                size is None
                or size < 0
                or any(k.arg not in ("num", "dtype") for k in call.keywords)
            ):
                return None
            return ArrayShape((size,), bool(_dtype_floating(call, self.resolver, True)))
        if function in ("eye", "identity") and call.args:
            rows, columns = _int(call.args[0]), _int(_arg(call, 1)) if function == "eye" else None
            if rows is None or rows < 0 or (len(call.args) > 1 and columns is None):
                return None
            floating = bool(_dtype_floating(call, self.resolver, True))
            return ArrayShape((rows, rows if columns is None else columns), floating)
        if function in ("array", "asarray") and len(call.args) == 1:
            nested = _nested_shape(call.args[0])
            if nested is None or not nested[0]:
                return None
            return ArrayShape(nested[0], bool(_dtype_floating(call, self.resolver, nested[1])))
        if function in _LIKE and call.args:
            like = self.shape_of(call.args[0])
            if like is None or any(kw.arg in ("shape", "dtype") for kw in call.keywords):
                return None
            return like
        return None

    def _reshaped(self, call: ast.Call) -> ArrayShape | None:
        """`x.reshape(500, 32, 32)` / `x.reshape((5, -1))` of a known `x`."""
        known = self.shape_of(call.func.value)
        if known is None or call.keywords or not call.args:
            return None
        dims_node = call.args[0] if len(call.args) == 1 else ast.Tuple(elts=call.args)
        elements = dims_node.elts if isinstance(dims_node, ast.Tuple | ast.List) else [dims_node]
        dims = [self.integer(element) for element in elements]
        if any(d is None or d < -1 for d in dims) or dims.count(-1) > 1:
            return None
        size, rest = math.prod(known.shape), math.prod(d for d in dims if d != -1)
        if -1 in dims:
            if rest == 0 or size % rest:
                return None
            dims[dims.index(-1)] = size // rest
        return ArrayShape(tuple(dims), known.floating) if math.prod(dims) == size else None

    def _split(self, call: ast.Call) -> ArrayShape | None:
        """`jnp.split(x, 5)`: a list of 5 equal pieces (only along the first axis)."""
        known = self.shape_of(call.args[0]) if call.args else None
        sections = self.integer(_arg(call, 1))
        if known is None or not known.shape or sections is None or sections <= 0:
            return None
        if len(call.args) != 2 or call.keywords or known.shape[0] % sections:
            return None
        piece = (sections, known.shape[0] // sections, *known.shape[1:])
        return ArrayShape(piece, known.floating, pieces=True)

    # -- statements ---------------------------------------------------------------------
    def bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            shape = self._shape_of(value) if value is not None else None
            number = _int(value) if value is not None else None
            if number is None or target.id in self.untracked:
                self.integers.pop(target.id, None)
            else:
                self.integers[target.id] = number
            if shape is None or target.id in self.untracked:
                self.env.pop(target.id, None)
            else:
                self.env[target.id] = shape
        else:
            for name in stored_names(target):
                self.env.pop(name, None)
                self.integers.pop(name, None)

    def forget(self, nodes: list[ast.AST]) -> None:
        for node in nodes:
            for name in stored_names(node):
                self.env.pop(name, None)
                self.integers.pop(name, None)


def _arg(call: ast.Call, index: int) -> ast.expr | None:
    return call.args[index] if index < len(call.args) else None


def _may_make_shape(text: str, resolver: Resolver) -> bool:
    """Does this text name a constructor `ShapeTracker` knows, or an alias `resolver` (the
    enclosing scope's) binds to one? Every known shape starts from such a call; the scope's
    own imports name the constructor in its text."""
    if any(contains_word(text, word) for word in _SHAPE_MAKERS):
        return True
    return any(
        contains_word(text, name)
        for name, value in resolver.bindings_items()
        if value.rpartition(".")[2] in _SHAPE_MAKERS
    )


# -- the rule --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _OutOfBounds:
    index: int
    axis: int
    size: int


def _out_of_bounds(index: ast.expr, shape: tuple[int, ...]) -> _OutOfBounds | None:
    """The first literal integer index outside `shape`; None if all fit or it can't tell."""
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    if sum(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elements) > 1:
        return None
    axes: list[tuple[int, ast.expr]] = []
    axis = 0
    for position, element in enumerate(elements):
        if isinstance(element, ast.Constant) and element.value is Ellipsis:
            rest = [e for e in elements[position + 1 :] if not _is_none(e)]
            axis = len(shape) - len(rest)
            continue
        if _is_none(element):
            continue
        if isinstance(element, ast.Slice):
            axis += 1
            continue
        value = _int(element)
        if value is None or (isinstance(element, ast.Constant) and type(element.value) is bool):
            return None  # an array or a name: it may consume several axes
        axes.append((axis, element))
        axis += 1
    if axis > len(shape):
        return None  # too many indices: JAX raises IndexError itself
    for axis, element in axes:
        value, size = _int(element), shape[axis]
        if value >= size or value < -size:
            return _OutOfBounds(value, axis, size)
    return None


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


class ConstantOutOfBounds(Rule):
    code = "JAX301"
    name = "constant-out-of-bounds"
    summary = "A literal index outside an array's statically known shape"
    severity = Severity.WARNING
    what_it_does = """
        Flags a literal integer index (`x[11]`, `x[3, 0]`, `x[-11]`, `x.at[5].set(v)`,
        `x.at[5].get()`, `jnp.take(x, 11)`, `x.take(11, axis=0)`) outside the shape of an
        array whose shape is known from literals (`jnp.arange(10)`, `jnp.zeros((3, 3))`,
        `jnp.array([1, 2, 3])`, `.reshape(5, -1)` of a known shape, `jnp.array` of the
        `jnp.split(x, n)` pieces of one) earlier in the same scope, or bound
        once at module level and never rebound. A name rebound to anything else, or bound in
        a loop, a `try` or only one branch, loses its shape. Slices are not flagged: they clip
        as in NumPy.
    """
    why_bad = """
        JAX never raises on out-of-bounds indices. A read is clamped: `jnp.arange(10)[11]`
        returns 9, the last element, where NumPy raises `IndexError`; `jnp.take` fills
        the result with NaN (the smallest integer for integer arrays). An update out of bounds
        (`.at[11].set(v)`) is silently dropped, leaving the array unchanged. Either way the bug
        surfaces far away as a wrong number.
    """
    fix_safety = """
        For float arrays, offers `x.at[idx].get(mode="fill", fill_value=jnp.nan)`, which makes
        the mistake visible as NaN. Unsafe: it changes the value returned. Updates get no fix.
    """
    node_types = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)
    invalid = (
        Example(
            """
            import jax.numpy as jnp

            x = jnp.arange(10)
            last = x[11]  # error
            """,
            check="assert int(last) == 9  # NumPy would raise IndexError",
        ),
        Example(
            """
            import jax.numpy as jnp

            def last_score():
                scores = jnp.arange(10)
                return scores[11]  # error

            value = last_score()
            """,
            check="assert int(value) == 9  # clamped to the last element, no IndexError",
        ),
        Example(
            """
            import jax.numpy as jnp

            def corner():
                grid = jnp.zeros((3, 3))
                grid = grid + 1.0
                return grid[3, 0]  # error

            value = corner()
            """,
            check="assert float(value) == 1.0  # row 3 does not exist; row 2 was read",
            fixed="""
            import jax.numpy as jnp

            def corner():
                grid = jnp.zeros((3, 3))
                grid = grid + 1.0
                return grid.at[3, 0].get(mode="fill", fill_value=jnp.nan)

            value = corner()
            """,
        ),
        Example(
            """
            import jax.numpy as jnp

            def set_bias():
                weights = jnp.ones(4)
                return weights.at[5].set(0.0)  # error

            weights = set_bias()
            """,
            check="assert weights.tolist() == [1.0, 1.0, 1.0, 1.0]  # the update was dropped",
        ),
        Example(
            """
            import jax.numpy as jnp

            def first():
                values = jnp.array([3, 1, 2])
                return values[-4]  # error

            value = first()
            """,
            check="assert int(value) == 3  # clamped to the first element",
        ),
        Example(
            """
            import jax.numpy as jnp

            def pick():
                scores = jnp.arange(10.0)
                return jnp.take(scores, 11), scores.take(-11)  # error

            value, other = pick()
            """,
            check="assert jnp.isnan(value) and jnp.isnan(other)  # filled with NaN, no error",
        ),
        Example(
            """
            import jax.numpy as jnp

            def batches():
                data = jnp.arange(5 * 4 * 2, dtype=jnp.float32).reshape(5, 4, -1)
                chunks = 5
                pieces = jnp.array(jnp.split(data, chunks))
                return pieces[5]  # error

            batch = batches()
            """,
            check="assert batch.shape == (1, 4, 2) and float(batch[0, 0, 0]) == 32.0",
        ),
    )
    valid = (
        Example(
            """
            import jax.numpy as jnp

            def tail():
                scores = jnp.arange(10)
                return scores[9], scores[-10], scores[8:20]  # in bounds; slices clip

            last, first, window = tail()
            """,
            check="assert int(last) == 9 and int(first) == 0 and window.tolist() == [8, 9]",
        ),
        Example(
            """
            import jax.numpy as jnp
            import numpy as np

            def padded(n):
                host = np.arange(10)
                scores = jnp.arange(10)
                scores = jnp.concatenate([scores, jnp.zeros(n)])  # shape no longer known
                return host[9], scores[11]

            host, value = padded(5)
            """,
            check="assert int(host) == 9 and float(value) == 0.0",
        ),
        Example(
            """
            import jax.numpy as jnp

            def explicit():
                values = jnp.arange(4.0)
                return values.at[5].get(mode="fill", fill_value=jnp.nan)

            value = explicit()
            """,
            check="assert jnp.isnan(value)",
        ),
        Example(
            """
            import jax.numpy as jnp

            def pieces():
                data = jnp.arange(12.0).reshape(3, -1)
                parts = jnp.split(data, 3)
                clipped = jnp.take(data, 7, mode="clip")
                return jnp.take(data, 11), data.take(2, axis=0), parts[2], clipped

            last, row, part, clipped = pieces()
            """,
            check="assert float(last) == 11.0 and row.shape == (4,) and part.shape == (1, 4)",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        resolver = ctx.resolvers[-1]
        lines = (
            ctx.lines
            if isinstance(node, ast.Module)
            else ctx.lines[node.lineno - 1 : node.end_lineno]
        )
        # Module-level names bound once and never rebound keep their shape everywhere, unless
        # a parameter or a local binding hides them.
        text = "\n".join(lines)
        if "take(" not in text and not _LITERAL_INDEX.search(text):
            return  # no literal index here: nothing to judge
        inherited = dict(self._global_shapes(ctx.model))
        if not inherited and not _may_make_shape(text, resolver):
            return  # no known shape can arise here: nothing to flag
        if not isinstance(node, ast.Module):
            resolver = resolver.child(local_imports(node), frozenset(all_params(node)))
            for scope in [*ctx.model.enclosing_chain(node), node] if inherited else ():
                for name in scope_bound_names(scope):
                    inherited.pop(name, None)
        # Only a scope whose text says `global` or `nonlocal` can declare either.
        declares = "global" in text or "nonlocal" in text
        untracked = declared_elsewhere(node) if declares else frozenset()
        if isinstance(node, ast.Module):  # a function may rebind these through `global`
            untracked |= ctx.model.global_writes
        tracker = ShapeTracker(resolver, frozenset(untracked))
        tracker.env.update(inherited)
        yield from self._block(node.body, tracker, ctx)

    def _global_shapes(self, model: ModuleModel) -> dict[str, ArrayShape]:
        """Shapes of the module-level names bound once and never rebound (memoised per model)."""
        cached = getattr(self, "_globals", None)
        if cached is not None and cached[0] is model:
            return cached[1]
        tracker = ShapeTracker(model.resolver, frozenset())
        for name, value in model.stable_globals.items():
            tracker.bind(ast.Name(name, ast.Store()), value)
        self._globals = (model, tracker.env)
        return tracker.env

    # -- walking one scope in program order ----------------------------------------------
    def _block(self, statements: list[ast.stmt], tracker: ShapeTracker, ctx: RuleContext):
        for statement in statements:
            yield from self._statement(statement, tracker, ctx)

    def _statement(self, node: ast.stmt, tracker: ShapeTracker, ctx: RuleContext):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for expr in [*node.decorator_list, *_defaults(node)]:
                yield from self._expression(expr, tracker, ctx)
            tracker.forget([node])
        elif isinstance(node, ast.Assign):
            yield from self._expression(node.value, tracker, ctx)
            for target in node.targets:
                yield from self._target(target, tracker, ctx)
                tracker.bind(target, node.value if len(node.targets) == 1 else None)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                yield from self._expression(node.value, tracker, ctx)
                tracker.bind(node.target, node.value)
        elif isinstance(node, ast.If):
            yield from self._expression(node.test, tracker, ctx)
            before, integers_before = dict(tracker.env), dict(tracker.integers)
            yield from self._block(node.body, tracker, ctx)
            after_body, tracker.env = tracker.env, dict(before)
            integers_after_body, tracker.integers = tracker.integers, integers_before
            yield from self._block(node.orelse, tracker, ctx)
            tracker.env = {
                name: shape for name, shape in tracker.env.items() if after_body.get(name) == shape
            }
            tracker.integers = {
                name: value
                for name, value in tracker.integers.items()
                if integers_after_body.get(name) == value
            }
        elif isinstance(node, _BRANCHING):
            # Anything bound inside may hold another value on the next pass or after a jump.
            tracker.forget([node])
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    yield from self._expression(child, tracker, ctx)
            for block in _blocks(node):
                yield from self._block(block, tracker, ctx)
                tracker.forget(block)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    yield from self._expression(child, tracker, ctx)
                elif isinstance(child, ast.stmt):
                    yield from self._statement(child, tracker, ctx)
                elif isinstance(child, ast.withitem):
                    yield from self._expression(child.context_expr, tracker, ctx)
            tracker.forget([node])

    def _target(self, target: ast.expr, tracker: ShapeTracker, ctx: RuleContext):
        """Index expressions inside an assignment target (`y[x[11]] = ...`)."""
        if isinstance(target, ast.Subscript):
            yield from self._expression(target.value, tracker, ctx)
            yield from self._expression(target.slice, tracker, ctx)

    def _expression(self, expr: ast.expr, tracker: ShapeTracker, ctx: RuleContext):
        # (node, parent, grandparent): `x.at[i].set(v)` is recognised from `x.at[i]` upwards.
        stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None]] = [(expr, None, None)]
        while stack:
            node, parent, grandparent = stack.pop()
            if isinstance(node, _OTHER_SCOPES):
                continue  # other scopes (comprehension targets may shadow tracked names)
            if isinstance(node, ast.NamedExpr):
                tracker.bind(node.target, None)
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                finding = self._subscript(node, _at_method(node, parent, grandparent), tracker, ctx)
                if finding is not None:
                    yield finding
            elif isinstance(node, ast.Call):
                finding = self._take(node, tracker, ctx)
                if finding is not None:
                    yield finding
            children = child_nodes(node)  # no marker node holds an index
            stack.extend((child, node, parent) for child in reversed(children))

    def _subscript(
        self, node: ast.Subscript, update: str | None, tracker: ShapeTracker, ctx: RuleContext
    ) -> Finding | None:
        base = node.value
        array = base.value if update else base
        if not update and isinstance(base, ast.Attribute) and base.attr == "at":
            return None  # `.at[i]` with a mode=, or not followed by a call
        known = tracker.shape_of(array)
        if known is None:
            return None
        hit = _out_of_bounds(node.slice, known.shape)
        if hit is None:
            return None
        name = ctx.segment(array)
        where = f"index {hit.index} is out of bounds for axis {hit.axis} with size {hit.size}"
        if update in (None, "get"):
            clamped = "the last" if hit.index >= 0 else "the first"
            return ctx.finding(
                self,
                node,
                f"`{name}` has shape {known.shape}: {where}. JAX does not raise: the read is "
                f"clamped and returns {clamped} element. Fix the index, or read with "
                f'`.at[...].get(mode="fill", fill_value=...)` to get a fill value instead',
                fix=fill_read_fix(node, array, ctx) if update is None and known.floating else None,
            )
        return ctx.finding(
            self,
            node,
            f"`{name}` has shape {known.shape}: {where}. JAX does not raise: the "
            f"`.at[...].{update}(...)` update is silently dropped and the array is unchanged",
        )

    def _take(self, call: ast.Call, tracker: ShapeTracker, ctx: RuleContext) -> Finding | None:
        """`jnp.take(x, 11)` / `x.take(11, axis=0)` with a literal index out of bounds."""
        func = call.func
        qualname = ctx.resolvers[-1].qualname(func)
        if qualname == "jax.numpy.take":
            array, rest = _arg(call, 0), call.args[1:]
        elif qualname is None and isinstance(func, ast.Attribute) and func.attr == "take":
            array, rest = func.value, call.args
        else:
            return None
        known = tracker.shape_of(array) if array is not None else None
        if known is None or not rest or len(rest) > 2:
            return None
        keywords = {keyword.arg: keyword.value for keyword in call.keywords}
        if set(keywords) - {"axis"}:
            return None  # `mode=` / `fill_value=` say what out of bounds should do
        axis_node = rest[1] if len(rest) == 2 else keywords.get("axis")
        axis = _int(axis_node) if axis_node is not None else None
        if axis_node is not None and (
            axis is None or not -len(known.shape) <= axis < len(known.shape)
        ):
            return None
        shape = (math.prod(known.shape),) if axis is None else (known.shape[axis],)
        for index in rest[:1]:  # a list of indices is JAX501's (take rejects lists)
            value = _int(index)
            if value is None or (isinstance(index, ast.Constant) and type(index.value) is bool):
                return None
            if value >= shape[0] or value < -shape[0]:
                where = "the flattened array" if axis is None else f"axis {axis % len(known.shape)}"
                return ctx.finding(
                    self,
                    call,
                    f"`{ctx.segment(array)}` has shape {known.shape}: `take` index {value} is out "
                    f"of bounds for {where} with size {shape[0]}. JAX does not raise: `take` "
                    f"fills the result with NaN (the smallest integer for integer arrays). Fix "
                    f"the index",
                )
        return None


def _defaults(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(k.value for k in node.keywords)]
    args = node.args
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(node, ast.Match):
        return [case.body for case in node.cases]
    blocks = [node.body, node.orelse]
    if isinstance(node, TRY_STATEMENTS):
        blocks += [handler.body for handler in node.handlers] + [node.finalbody]
    return blocks


def _at_method(node: ast.Subscript, parent: ast.AST | None, grandparent: ast.AST | None):
    """The method of `x.at[idx].method(...)` when `node` is `x.at[idx]` and no mode= is given."""
    if not (
        isinstance(node.value, ast.Attribute)
        and node.value.attr == "at"
        and isinstance(parent, ast.Attribute)
        and isinstance(grandparent, ast.Call)
        and grandparent.func is parent
        and parent.attr in UPDATE_METHODS | {"get"}
    ):
        return None
    if any(keyword.arg == "mode" for keyword in grandparent.keywords):
        return None
    return parent.attr


RULES: tuple[type[Rule], ...] = (ConstantOutOfBounds,)
