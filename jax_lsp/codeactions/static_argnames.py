"""Making a parameter static: the fix JAX701, JAX703 and JAX803 offer when the traced value is
a parameter of a jitted function and looks like a Python setting.

`@jax.jit` becomes `@partial(jax.jit, static_argnames=("n",))` (the spelling every JAX version
accepts); an existing `static_argnames=` literal of `partial(jax.jit, ...)` or
`jax.jit(...)` is extended (`"n"` to `("n", "m")`). Unsafe: callers must now pass hashable
Python values, and each new value compiles again. One with `static_argnums=` gets none.

A module-level function jitted by a statement of its own (`f = jax.jit(f)`) gets a deferred
fix (`static_jit_fixes`, the `Codemod.STATIC_JIT` codemod), built on demand because that
statement's position is not part of the flagged unit's cache key: it extends the
`static_argnames=` of the one module-level `jax.jit(f, ...)` call, or adds it.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.names import scope_bound_names
from jax_lsp.analysis.nodes import all_params
from jax_lsp.analysis.summary import transform_of
from jax_lsp.codeactions.call_arguments import append_arguments
from jax_lsp.codeactions.import_edits import module_prefix, name_is_free
from jax_lsp.codeactions.site import FixSite, Located, import_line_edit
from jax_lsp.codeactions.source import ModuleSource
from jax_lsp.findings import Applicability, Codemod, DeferredFix, Edit, Fix, Span

# Annotations of parameters that may be static; unannotated ones are judged by their uses.
_SETTING_ANNOTATIONS = frozenset({"int", "bool", "str", "float"})


def parameter_names(values: list[ast.expr], site: FixSite) -> list[str]:
    """The names `values` compute from (`n`, `start + width`), when they are only arithmetic
    on names, constants and a JAX array's shape (`n - x.shape[0]`: a Python int under jit, so
    `x` is no name to make static); otherwise none (the fix then does not apply)."""
    names: list[str] = []
    stack = list(values)
    while stack:
        value = stack.pop()
        if _shape_read(value, site):
            continue
        if isinstance(value, ast.Name):
            names.append(value.id)
        elif isinstance(value, ast.BinOp):
            stack += [value.left, value.right]
        elif isinstance(value, ast.UnaryOp):
            stack.append(value.operand)
        elif not isinstance(value, ast.Constant):
            return []
    return sorted(set(names), key=names.index)


def _shape_read(value: ast.expr, site: FixSite) -> bool:
    """`x.ndim`, `x.size` or `x.shape[k]` (a constant `k`) of a JAX array `x`: a Python int
    while tracing (the same attribute of another object may hold a tracer)."""
    if isinstance(value, ast.Attribute):
        return value.attr in ("ndim", "size") and site.kind(value.value).is_jax
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute)):
        return False
    index = value.slice
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return (
        value.value.attr == "shape" and isinstance(index, ast.Constant) and type(index.value) is int
    )


def static_argnames_fix(names: list[str], ctx: FixSite) -> Fix | None:
    """Add `names` (parameters of the enclosing function) to its jit's `static_argnames`."""
    function = ctx.functions[-1] if ctx.functions else None
    trace = ctx.trace
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) or not names:
        return None
    if trace is None or not trace.direct:
        return None
    # A local the function computes (`norm = jnp.sqrt(...)`) stays traced whatever its
    # parameters are: making them static would leave the error where it is.
    parameters = set(all_params(function))
    if any(name not in parameters and name in scope_bound_names(function) for name in names):
        return None
    # Names that are static already (a literal default, a static argument) need no change.
    names = [name for name in names if name in trace.traced_params]
    if not names or not all(looks_like_setting(name, function) for name in names):
        return None
    if _differentiated(names, function, ctx) or _given_arrays(names, function, ctx):
        return None
    decorator = _jit_decorator(function, ctx)
    if decorator is None:
        return None
    if isinstance(decorator, ast.Call):
        edits = extend_jit_call(decorator, names, ctx)
    else:
        edits = _wrap_in_partial(decorator, names, ctx)
    if edits is None:
        return None
    listed = ", ".join(f"`{name}`" for name in names)
    return Fix(f"Make {listed} static (`static_argnames`)", edits, Applicability.UNSAFE)


def static_argnames_deferred(values: list[ast.expr], ctx: FixSite) -> tuple[DeferredFix, ...]:
    """The on-demand fix for a parameter of a module-level function jitted by a statement of
    its own (`f = jax.jit(f)`): that statement's position is not in this unit's cache key."""
    function = ctx.functions[0] if len(ctx.functions) == 1 else None
    trace = ctx.trace
    if len(values) != 1 or not isinstance(values[0], ast.Name) or trace is None:
        return ()
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return ()
    if not trace.direct or values[0].id not in trace.traced_params:
        return ()
    if _differentiated([values[0].id], function, ctx) or _given_arrays(
        [values[0].id], function, ctx
    ):
        return ()
    return (DeferredFix(Codemod.STATIC_JIT, ctx.span(values[0]).start),)


def _differentiated(names: list[str], function: ast.AST, ctx: FixSite) -> bool:
    """A parameter that `jax.grad` (or a call under it) differentiates gets tracers carrying
    tangents: made static, JAX raises `ValueError: Non-hashable static arguments`."""
    return not ctx.model.differentiated(function).isdisjoint(names)


def _given_arrays(names: list[str], function: ast.AST, ctx: FixSite) -> bool:
    """A parameter some call passes an array (or a tracer): made static, the call raises
    `TypeError: unhashable type`."""
    return not ctx.model.array_passed(function).isdisjoint(names)


def looks_like_setting(name: str, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A parameter (not positional-only) annotated as a Python scalar, or unannotated and never
    used as an array (`n.shape`, `n[0]`, `n.sum()`)."""
    arguments = function.args
    parameter = next((a for a in [*arguments.args, *arguments.kwonlyargs] if a.arg == name), None)
    if parameter is None:
        return False
    annotation = parameter.annotation
    if annotation is not None:
        return isinstance(annotation, ast.Name) and annotation.id in _SETTING_ANNOTATIONS
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute | ast.Subscript) and _is_name(node.value, name):
            return False
    return True


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _jit_decorator(function: ast.FunctionDef | ast.AsyncFunctionDef, ctx: FixSite):
    """The function's only transforming decorator, when it is `jax.jit` in some form."""
    # Decorators are evaluated in the enclosing scope.
    resolver = ctx.resolvers[-2] if len(ctx.resolvers) > 1 else ctx.resolvers[-1]
    found = [
        (decorator, spec)
        for decorator in function.decorator_list
        if (spec := transform_of(decorator, resolver)) is not None
    ]
    if len(found) != 1 or found[0][1][0].label != "jit":
        return None
    return found[0][0]


def _wrap_in_partial(decorator: ast.expr, names: list[str], ctx: FixSite):
    """`@jax.jit` -> `@partial(jax.jit, static_argnames=(...))`, importing partial if needed."""
    spelled = _partial_spelling(ctx)
    if spelled is None:
        return None
    partial, import_edits = spelled
    span = ctx.span(decorator)
    return (
        Edit(Span(span.start, span.start), f"{partial}("),
        Edit(Span(span.end, span.end), f", static_argnames={_literal(names)})"),
        *import_edits,
    )


def _partial_spelling(ctx: FixSite) -> tuple[str, tuple[Edit, ...]] | None:
    if ctx.qualname(ast.Name(id="partial", ctx=ast.Load())) == "functools.partial":
        return "partial", ()
    prefix = module_prefix(ctx, "functools")
    if prefix is not None:
        return f"{prefix}.partial", ()
    if not name_is_free(ctx, "partial"):
        return None
    return "partial", (import_line_edit(ctx, "from functools import partial"),)


def extend_jit_call(call: ast.Call, names: list[str], ctx: Located) -> tuple[Edit, ...] | None:
    """Extend `static_argnames=` of `partial(jax.jit, ...)` / `jax.jit(...)`, or add it."""
    if any(kw.arg in (None, "static_argnums") for kw in call.keywords):
        return None  # JAX maps names to positions only when one of the two is given
    existing = next((kw.value for kw in call.keywords if kw.arg == "static_argnames"), None)
    if existing is None:
        edit = append_arguments(call, f"static_argnames={_literal(names)}", ctx)
        return (edit,) if edit is not None else None
    if isinstance(existing, ast.Constant) and isinstance(existing.value, str):
        elements = [existing]
    elif isinstance(existing, ast.Tuple | ast.List) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in existing.elts
    ):
        elements = existing.elts
    else:
        return None  # a variable: its value is not ours to change
    span = ctx.span(existing)
    if span.start.line != span.end.line:
        if not elements:
            return None
        end = ctx.span(elements[-1]).end
        added = "".join(f", {_quoted(name, elements, ctx)}" for name in names)
        return (Edit(Span(end, end), added),)
    kept = [ctx.segment(element) for element in elements]
    brackets = "[]" if isinstance(existing, ast.List) else "()"
    new = [_quoted(name, elements, ctx) for name in names]
    return (Edit(span, _sequence([*kept, *new], brackets)),)


def _literal(names: list[str]) -> str:
    return _sequence([f'"{name}"' for name in names], "()")


def _sequence(items: list[str], brackets: str) -> str:
    inner = ", ".join(items)
    if brackets == "()" and len(items) == 1:
        inner += ","
    return f"{brackets[0]}{inner}{brackets[1]}"


def _quoted(name: str, elements: list[ast.expr], ctx: Located) -> str:
    """`name` quoted like the existing strings (single or double quotes)."""
    quote = "'" if elements and ctx.segment(elements[0]).startswith("'") else '"'
    return f"{quote}{name}{quote}"


def static_jit_fixes(source: str, line: int, column: int) -> tuple[Fix, ...]:
    """The deferred fix: `name` at (line, column), a parameter of a module-level `f`, added to
    the `static_argnames` of the module's one `f = jax.jit(f, ...)` statement."""
    module = ModuleSource(source)
    found = _parameter_at(module, line, column)
    if found is None:
        return ()
    name, function = found
    if not looks_like_setting(name, function):
        return ()
    calls = list(_jit_calls_of(module, function.name))
    if len(calls) != 1:
        return ()
    call, offset = calls[0]
    edits = extend_jit_call(call, [name], module.in_unit(offset))
    if edits is None:
        return ()
    return (Fix(f"Make `{name}` static (`static_argnames`)", edits, Applicability.UNSAFE),)


def _parameter_at(
    module: ModuleSource, line: int, column: int
) -> tuple[str, ast.FunctionDef] | None:
    """The parameter name at (line, column) and its module-level function."""
    for node, ancestors, offset in module.nodes_at(line):
        if isinstance(node, ast.Name) and module.start(node, offset) == (line, column):
            function = ancestors[1] if len(ancestors) > 1 else None
            if isinstance(function, ast.FunctionDef) and not any(
                isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                for a in ancestors[2:]
            ):
                return node.id, function
    return None


def _jit_calls_of(module: ModuleSource, name: str):
    """Module-level `... = jax.jit(name, ...)` calls, with their unit's first line."""
    resolver = module.resolver
    for unit in module.document.units:
        for statement in unit.tree.body if unit.tree else ():
            value = getattr(statement, "value", None)
            if (
                isinstance(statement, ast.Assign | ast.AnnAssign)
                and isinstance(value, ast.Call)
                and resolver.qualname(value.func) == "jax.jit"
                and value.args
                and isinstance(value.args[0], ast.Name)
                and value.args[0].id == name
            ):
                yield value, unit.start_line
