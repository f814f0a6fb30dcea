"""Which functions JAX traces, how, and which of their parameters hold traced values.

Seeds are the transformations applied in the module (decorators, `jax.jit(f)`, functions and
lambdas passed to `lax` control flow). Functions that traced code calls are traced too; their
parameters are traced where a call site passes a traced value. The result is a fixpoint over
the module's call graph, computed from the per-unit summaries.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from jax_lsp.analysis.crossing import ForeignStep
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import all_params, positional_params, walk_nodes
from jax_lsp.analysis.passed_values import (
    Flags,
    PassedValue,
    argument_constant,
    joined,
    known,
)
from jax_lsp.analysis.summary import Application, FunctionNode, FunctionRef
from jax_lsp.analysis.transforms import ParamPolicy, TransformSpec
from jax_lsp.analysis.values import Container, Object, Value, contains_traced, merge_values
from jax_lsp.findings import Span


@dataclass(frozen=True)
class TraceOrigin:
    """Where a function becomes traced: the transformation that traces it (a decorator, a
    `jax.jit(f)` or `lax.scan(body, ...)` call) or a call from traced code."""

    node: ast.AST | None  # None: the site is in another module (`foreign`)
    unit_start: int  # the document line where the node's unit starts
    # The function whose body holds the site (None: module level); for a call, the traced
    # function making it; for a transformation, where it is applied (traced or not).
    caller: FunctionNode | None
    called: bool = False  # a call from traced code, not a transformation
    # Traced by code in another module of the project: why, there (its sites, in order).
    foreign: tuple[ForeignStep, ...] = ()
    # The transformations applied together at the site, outermost first, when there are
    # several (`jax.jit(jax.vmap(f))`: jit, vmap): the explanation names them all.
    nesting: tuple[str, ...] = ()

    def label(self, via: str) -> str:
        """The transformation as the explanation shows it: `jax.jit(jax.vmap(...))` for a
        nested site, else `via` as users spell it."""
        if len(self.nesting) < 2:
            return transform_name(via)
        names = [transform_name(label) for label in self.nesting]
        return "(".join(names) + "(...)" + ")" * (len(names) - 1)


@dataclass(frozen=True)
class TraceStep:
    """One link of the answer to "why is this traced?": `function` is traced by `label`
    (a transformation) at `site`, or called there from the traced `caller`."""

    function: str
    label: str | None  # the transformation as users spell it ("jax.jit"); None: a call
    caller: str | None
    site: ast.AST | None  # None: in another module, at `span` of `file`
    unit_start: int
    file: str | None = None
    span: Span | None = None


def transform_name(label: str) -> str:
    """A transformation as users spell it: `jax.jit`, `lax.scan`, `eqx.filter_jit`."""
    return label if "." in label else f"jax.{label}"


@dataclass(frozen=True)
class TraceInfo:
    """How a function is traced. Hashable: it is part of the per-unit cache key."""

    via: str  # "jit", "lax.scan", "called from f", ...
    abstract: bool
    traced_params: frozenset[str]
    static_params: frozenset[str]
    direct: bool  # a transformation applies to it (not only reached through calls)
    # Why: kept out of equality, so that moving the site keeps the kinds cached; the unit key
    # holds its place (`ModuleModel.unit_key`).
    origin: TraceOrigin | None = field(default=None, compare=False)
    # Traced parameters that every trace tracing them gives a pytree container (a tuple of
    # tracers passed by a call): the container's value, with its structure.
    containers: frozenset[tuple[str, Value]] = frozenset()
    # Run only by `shard_map` outside any trace: eagerly, on every call (`print` shows values),
    # on tracers that convert to no Python or NumPy value (`abstract` is False: `if` fails only
    # on values varying across the mesh).
    eager: bool = False
    # Traced parameters each of whose leaves is a tracer, Python numbers included: those of a
    # transformation that flattens its arguments whole (`jax.jit`, `vmap`, `grad`, `nnx.jit`),
    # not of a filtered one (`eqx.filter_jit`: only array leaves). A pytree's fields then
    # hold tracers whatever their annotation says (an `nnx.Module` has no such fields: its
    # plain attributes stay static).
    all_leaves: frozenset[str] = frozenset()
    # Parameters every trace leaves at a default naming an imported module or function
    # (`xp=xp` bound to `jax.numpy`, `act=jax.nn.relu`), with its qualname: the parameter is
    # that module or function in the traced body.
    module_defaults: frozenset[tuple[str, str]] = frozenset()
    # Parameters every trace gives the same constant, True, False, None or a string (a literal
    # argument or default left alone, a caller's own such parameter passed on): `if not
    # skip_checks:` and `if method == "jax":` then run one way in the trace.
    literals: frozenset[tuple[str, PassedValue]] = frozenset()
    # Parameters every trace gives a function computing a JAX array from arrays (a
    # `jax.nn.relu` default, a `lambda h: h` argument): calling one gives a tracer.
    array_functions: frozenset[str] = frozenset()
    # Parameters some run of the trace gives a boolean array (`loss(x, mask)` with `mask =
    # np.zeros(n, bool)`): indexing with one fails under abstract tracing, whichever run
    # gives it.
    boolean_params: frozenset[str] = frozenset()
    # A differentiation runs it (`jax.grad(f)`, or a call from code one runs); and some run
    # of it is differentiated inside an abstract trace (`jax.jit(jax.grad(f))`, a gradient
    # taken in jitted code): only there do the rules of a `custom_vjp` / `custom_jvp` run,
    # on tracers (a `lax.while_loop` alone runs the function itself, and never its rules).
    differentiated: bool = False
    differentiated_abstractly: bool = False
    # Every transformation that traces it directly, whichever `via` names (`jax.jit(jax.vmap(
    # f))`: jit and vmap), as the trace it keeps: a jit among them compiles the trace and
    # reuses it; a jit of a wrapper made where it runs (`jax.jit(jax.vmap(f))(x)`) compiles
    # a new function every time and counts as the wrapper. Empty: only `via` is known.
    transforms: frozenset[str] = frozenset()

    @property
    def traced_here(self) -> bool:
        """Is the reason shown a site of this module (not of another's trace)?"""
        return self.origin is not None and not self.origin.foreign

    def merged(self, other: TraceInfo) -> TraceInfo:
        if other == self:
            if other.traced_here and not self.traced_here:
                return replace(self, origin=other.origin)  # the nearer reason
            return self
        # The explanation shown: a transformation before a call, an abstract one first, then
        # a site in this module before one in another (the nearer reason).
        first = (self.direct, self.abstract, self.traced_here) >= (
            other.direct,
            other.abstract,
            other.traced_here,
        )
        return TraceInfo(
            self.via if first else other.via,
            self.abstract or other.abstract,
            self.traced_params | other.traced_params,
            (self.static_params | other.static_params) - (self.traced_params | other.traced_params),
            self.direct or other.direct,
            (self.origin or other.origin) if first else (other.origin or self.origin),
            _merged_containers(self, other),
            self.eager and other.eager,
            # a parameter keeps it where every trace tracing it says so
            (self.all_leaves | other.all_leaves)
            - (self.traced_params - self.all_leaves)
            - (other.traced_params - other.all_leaves),
            self.module_defaults & other.module_defaults,
            joined(self.literals, other.literals),  # what both traces give alike
            self.array_functions & other.array_functions,
            self.boolean_params | other.boolean_params,
            self.differentiated or other.differentiated,
            self.differentiated_abstractly or other.differentiated_abstractly,
            self.transforms | other.transforms,
        )


def _merged_containers(first: TraceInfo, second: TraceInfo) -> frozenset[tuple[str, Value]]:
    """A parameter traced by both stays a container where both give one of one form (or an
    object of one class)."""
    if not first.containers and not second.containers:
        return frozenset()
    mine, theirs = dict(first.containers), dict(second.containers)
    found = {}
    for name in mine.keys() | theirs.keys():
        if name in mine and name in theirs:
            merged = merge_values(mine[name], theirs[name])
            if type(merged) is Container or type(merged) is Object:
                found[name] = merged
        elif name not in (second.traced_params if name in mine else first.traced_params):
            found[name] = mine.get(name, theirs.get(name))
    return frozenset(found.items())


def _literal(expr: ast.expr | None):
    if expr is None:
        return None
    try:
        return ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREADABLE


_UNREADABLE = object()
_NO_PARAM = ""  # a position that names no parameter of the function


def _as_tuple(value) -> tuple | None:
    if value is None:
        return ()
    if value is _UNREADABLE:
        return None
    if isinstance(value, list | tuple):
        return tuple(value)
    return (value,)


def static_parameters(
    node: FunctionNode,
    keywords: dict[str, ast.expr],
    names: tuple[str, ...],
    positional: list[str] | None = None,
):
    """Parameters named static by `static_argnums`/`static_argnames` (None: not readable).
    `positional` overrides the function's positional parameters (after `partial` binds some)."""
    if positional is None:
        positional = positional_params(node)
    static: set[str] = set()
    for keyword in names:
        value = _as_tuple(_literal(keywords.get(keyword)))
        if value is None:
            return None
        for item in value:
            if isinstance(item, bool):
                continue
            if isinstance(item, int) and -len(positional) <= item < len(positional):
                static.add(positional[item])
            elif isinstance(item, str):
                static.add(item)
    return frozenset(static)


def _annotated_arrays(node: FunctionNode, is_array) -> frozenset[str]:
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    return frozenset(arg.arg for arg in arguments if is_array(arg.annotation))


def trace_info_for(
    application: Application, node: FunctionNode, is_array, target: FunctionRef | None = None
) -> TraceInfo:
    """The TraceInfo that one transformation gives the function `node` (named by `target`,
    which defaults to the application's own reference)."""
    spec = application.spec
    target = target or application.target
    bound, positional = _transformed_positions(node, target)
    params = [name for name in all_params(node) if name not in bound]
    keywords = application.keywords
    static: frozenset[str] = frozenset(bound)
    applied = frozenset([spec.label])
    if spec.policy is ParamPolicy.ALL_BUT_STATIC:
        found = static_parameters(node, keywords, spec.static_keywords, positional)
        if found is None:
            return TraceInfo(
                spec.label, spec.abstract, frozenset(), static, True, transforms=applied
            )
        static |= found - {_NO_PARAM}
        traced = frozenset(params) - static
    elif spec.policy is ParamPolicy.IN_AXES:
        traced = _in_axes_traced(keywords.get("in_axes"), positional, params)
    elif spec.policy is ParamPolicy.ARGNUMS:
        traced = _argnums_params(keywords, positional)
    elif spec.policy is ParamPolicy.ARRAY_ANNOTATED:
        traced = _annotated_arrays(node, is_array) - bound
    elif spec.arity is not None and not node.args.vararg:
        traced = frozenset(positional[: spec.arity])
    elif spec.positional_call:
        traced = frozenset(params) - {arg.arg for arg in node.args.kwonlyargs}
        passed = _operands_passed(spec, application.node)
        if passed is not None and not node.args.vararg:
            # `lax.cond(p, f, g, x)` calls `f(x)`: later parameters keep their defaults.
            traced &= frozenset(positional[:passed])
    else:
        traced = frozenset(params)
    traced -= {_NO_PARAM}
    every_leaf = traced if spec.policy is not ParamPolicy.ARRAY_ANNOTATED else frozenset()
    return TraceInfo(
        spec.label,
        spec.abstract,
        traced,
        static,
        True,
        all_leaves=every_leaf,
        transforms=applied,
    )


def _operands_passed(spec: TransformSpec, call: ast.AST) -> int | None:
    """How many operands a `lax` branch or loop call passes its functions (`lax.cond(p, f,
    g, x, y)`: 2), when they are written out (no `*args`, no keywords)."""
    if not isinstance(call, ast.Call) or call.keywords:
        return None
    positions = [*spec.function_positions]
    if spec.branches_position is not None:
        positions.append(spec.branches_position)
    if not positions or any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    return max(0, len(call.args) - (max(positions) + 1))


def _argnums_params(keywords: dict[str, ast.expr], positional: list[str]) -> frozenset[str]:
    """The parameters at the `argnums=` positions (default 0)."""
    argnums = _as_tuple(_literal(keywords.get("argnums"))) if "argnums" in keywords else (0,)
    return frozenset(
        positional[i]
        for i in argnums or ()
        if isinstance(i, int) and -len(positional) <= i < len(positional)
    )


def differentiated_params(
    application: Application, node: FunctionNode, target: FunctionRef
) -> frozenset[str]:
    """The parameters of `node` a differentiating transformation (`jax.grad(f, argnums=1)`,
    `eqx.filter_grad(f)`: the first) differentiates: they receive tracers that carry
    tangents, which no static argument may be."""
    _, positional = _transformed_positions(node, target)
    return _argnums_params(application.keywords, positional) - {_NO_PARAM}


def _transformed_positions(node: FunctionNode, target: FunctionRef) -> tuple[set[str], list[str]]:
    """The parameters `target` binds, and the parameter at each position the transformed
    function takes."""
    # Arguments bound by `functools.partial` are Python values: never traced, and the
    # transformation's positions count from the first unbound parameter.
    bound = set(positional_params(node)[: target.bound_positional]) | target.bound_keywords
    # Leading arguments that are not the function's (`jax.jit(model.apply)`'s variables)
    # hold positions that name no parameter.
    positional = [_NO_PARAM] * target.leading_args
    positional += [name for name in positional_params(node) if name not in bound]
    return bound, positional


def _in_axes_traced(in_axes: ast.expr | None, positional: list[str], params: list[str]):
    if in_axes is None:
        return frozenset(params)
    value = _literal(in_axes)
    if isinstance(value, int):
        return frozenset(params)
    if isinstance(value, list | tuple):
        return frozenset(
            name for name, axis in zip(positional, value, strict=False) if axis is not None
        )
    return frozenset()


def call_site_params(
    node: FunctionNode,
    call: ast.Call,
    kinds: Mapping[ast.AST, Kind],
    target: FunctionRef,
    kind: Kind = Kind.TRACED,
) -> frozenset[str]:
    """Parameters of `node` that this call passes a value of `kind` to. `target` tells how
    the call names the function: `self.method(x)` and `partial(f, a)(x)` fix leading
    parameters, `model.apply(variables, x)` passes leading arguments of its own."""
    passed = list(passed_arguments(node, call, target))
    found = frozenset(name for name, arg in passed if kinds.get(arg) is kind)
    if kind is Kind.TRACED:
        found |= _filled_by_traced_unpacking(node, call, kinds, target, passed)
    return found


def _filled_by_traced_unpacking(
    node: FunctionNode,
    call: ast.Call,
    kinds: Mapping[ast.AST, Kind],
    target: FunctionRef,
    passed: list[tuple[str, ast.expr]],
) -> frozenset[str]:
    """Parameters a traced `*args` or `**kwargs` may fill (a traced function forwarding its
    own: `fun(*args, **kwargs)` under jit, where every argument is a tracer)."""
    found: set[str] = set()
    arguments = node.args
    starred = next((a for a in call.args[target.leading_args :] if type(a) is ast.Starred), None)
    if starred is not None and kinds.get(starred.value) is Kind.TRACED:
        before = call.args[target.leading_args :].index(starred)
        found.update(positional_params(node)[target.bound_positional + before :])
        if arguments.vararg is not None:
            found.add(arguments.vararg.arg)
    if any(k.arg is None and kinds.get(k.value) is Kind.TRACED for k in call.keywords):
        given = {name for name, _ in passed}
        given |= {a.arg for a in arguments.posonlyargs} | target.bound_keywords
        given |= set(positional_params(node)[: target.bound_positional])
        named = [*positional_params(node), *(a.arg for a in arguments.kwonlyargs)]
        found.update(name for name in named if name not in given)
        if arguments.kwarg is not None:
            found.add(arguments.kwarg.arg)
    return frozenset(found)


def passed_arguments(
    node: FunctionNode, call: ast.Call, target: FunctionRef
) -> Iterator[tuple[str, ast.expr]]:
    """(parameter, argument) for each argument the call passes to a known parameter."""
    positional = positional_params(node)[target.bound_positional :]
    for index, arg in enumerate(call.args[target.leading_args :]):
        if isinstance(arg, ast.Starred):
            break
        if index < len(positional):
            yield positional[index], arg
    known = set(all_params(node)) - target.bound_keywords
    for keyword in call.keywords:
        if keyword.arg in known:
            yield keyword.arg, keyword.value


def unfilled_params(
    node: FunctionNode, target: FunctionRef, calls: list[ast.Call]
) -> frozenset[str]:
    """Parameters of `node` with a default, and its `*args` and `**kwargs`, that none of
    `calls` (of `node` as `target` names it) fills: Python gives them the defaults, and
    what a `partial` binds, never an argument of the call. Nothing when a call unpacks
    `*` or `**` (which may fill any); without calls, the parameters with a default alone
    (a function made to forward what it is given, `def fun(*args)`, is called elsewhere)."""
    arguments = node.args
    left = {name for name, _ in parameter_default_items(node)} - target.bound_keywords
    left -= set(positional_params(node)[: target.bound_positional])
    if arguments.vararg is not None and calls:
        left.add(arguments.vararg.arg)
    if arguments.kwarg is not None and calls:
        left.add(arguments.kwarg.arg)
    named = {arg.arg for arg in [*arguments.args, *arguments.kwonlyargs]}
    positional = positional_params(node)[target.bound_positional :]
    for call in calls:
        if not left:
            break
        if _unpacks(call):
            return frozenset()
        left -= passed_params(node, call, target)
        if arguments.vararg is not None and len(call.args) - target.leading_args > len(positional):
            left.discard(arguments.vararg.arg)
        if arguments.kwarg is not None and any(k.arg not in named for k in call.keywords):
            left.discard(arguments.kwarg.arg)
    return frozenset(left)


def passed_params(node: FunctionNode, call: ast.Call, target: FunctionRef) -> frozenset[str]:
    """Parameters of `node` that the call gives an argument (positionally or by keyword)."""
    return frozenset(name for name, _ in passed_arguments(node, call, target))


def literal_flag_params(
    node: FunctionNode, call: ast.Call, target: FunctionRef, caller_flags: Flags | None = None
) -> frozenset[tuple[str, PassedValue]]:
    """Parameters this call gives True, False, None or a string: a literal argument, a
    parameter of the traced caller that every trace gives one (`caller_flags`), or a literal
    default it leaves alone; `NOT_NONE` for another literal (a number, a tuple). Nothing when
    `*args` or `**kwargs` may fill any of them."""
    if _unpacks(call):
        return frozenset()
    flags = caller_flags or {}
    found = {
        name: argument_constant(argument, flags)
        for name, argument in passed_arguments(node, call, target)
    }
    given = _given_params(node, call, target)
    for name, default in parameter_default_items(node):
        if name not in given:
            found[name] = argument_constant(default, {})
    return frozenset((name, value) for name, value in found.items() if known(value))  # type: ignore[misc]


def _unpacks(call: ast.Call) -> bool:
    """`f(*args)` / `f(**kwargs)`: which parameters get what is unknown."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )


def parameter_default_items(node: FunctionNode) -> Iterator[tuple[str, ast.expr]]:
    """(parameter, default expression) for each parameter with a default."""
    args = node.args
    defaults = zip(reversed(args.posonlyargs + args.args), reversed(args.defaults), strict=False)
    for arg, default in defaults:
        yield arg.arg, default
    for arg, keyword_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if keyword_default is not None:
            yield arg.arg, keyword_default


def _given_params(node: FunctionNode, call: ast.Call, target: FunctionRef) -> set[str]:
    """Parameters the call (or the partial it calls) gives, positionally or by keyword."""
    positional = positional_params(node)[target.bound_positional :]
    given = set(positional[: max(len(call.args) - target.leading_args, 0)])
    return given | {k.arg for k in call.keywords if k.arg} | target.bound_keywords


def literal_default_params(node: FunctionNode) -> frozenset[str]:
    """Parameters whose default is a literal (`training=True`, `n=3`)."""
    return frozenset(
        name for name, default in parameter_default_items(node) if isinstance(default, ast.Constant)
    )


def string_list_default_params(node: FunctionNode) -> frozenset[str]:
    """Parameters whose default lists strings (`wavelet_types=["starlet", "haar"]`): a
    sequence of settings, the kind of value callers pass in its place."""
    return frozenset(
        name
        for name, default in parameter_default_items(node)
        if isinstance(default, ast.List | ast.Tuple)
        and default.elts
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in default.elts)
    )


def imported_default_params(
    node: FunctionNode, call: ast.Call, target: FunctionRef, qualname_of
) -> frozenset[tuple[str, str]]:
    """Parameters the call leaves at a default that names an imported module or function
    (`xp=xp`, `act=jax.nn.relu`), with the default's qualname (`qualname_of` resolves it at
    module level). Nothing when `*args` or `**kwargs` may fill any of them."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return frozenset()
    given = set(dict(passed_arguments(node, call, target))) | target.bound_keywords
    given |= set(positional_params(node)[: target.bound_positional])
    args = node.args
    defaults = zip(reversed(args.posonlyargs + args.args), reversed(args.defaults), strict=False)
    keyword_defaults = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    found = set()
    for arg, default in [*defaults, *keyword_defaults]:
        if arg.arg in given or not isinstance(default, ast.Name | ast.Attribute):
            continue
        qualname = qualname_of(default)
        if qualname is not None:
            found.add((arg.arg, qualname))
    return frozenset(found)


# Functions computing a JAX array from the arrays they are given (`jax.nn.relu`,
# `jnp.tanh`); the initializers of `jax.nn` make functions, not arrays.
_ARRAY_FUNCTION_MODULES = ("jax.numpy.", "jax.nn.", "jax.scipy.")
_NOT_ARRAY_FUNCTION_MODULES = ("jax.nn.initializers.",)


def array_function_params(
    node: FunctionNode, call: ast.Call, target: FunctionRef, qualname_of, any_default=False
) -> frozenset[str]:
    """Parameters the call gives a function computing a JAX array from the arrays it is given,
    or leaves at a default that is one: a `jax.numpy` / `jax.nn` function (`act=jax.nn.relu`)
    or a lambda computing with its parameters only (`lambda h: h`, `lambda h: jnp.tanh(h)`).
    In the trace, calling the parameter with arrays gives a tracer. Nothing when `*args` or
    `**kwargs` may fill any of them. With `any_default`, every parameter left at a default
    (of a function in another module, whose defaults that module judges: `array_defaults`)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return frozenset()
    passed = dict(passed_arguments(node, call, target))
    given = set(passed) | target.bound_keywords
    given |= set(positional_params(node)[: target.bound_positional])
    args = node.args
    defaults = zip(reversed(args.posonlyargs + args.args), reversed(args.defaults), strict=False)
    keyword_defaults = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    found = {name for name, value in passed.items() if _array_function(value, qualname_of)}
    found |= {
        arg.arg
        for arg, default in [*defaults, *keyword_defaults]
        if arg.arg not in given
        and default is not None
        and (any_default or _array_function(default, qualname_of))
    }
    return frozenset(found)


def array_defaults(node: FunctionNode, qualname_of) -> frozenset[str]:
    """Parameters without a default or with one computing JAX arrays (`act=jax.nn.relu`):
    those another module's trace may say hold an array function, passed or left alone."""
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip(reversed(positional), reversed(args.defaults), strict=False))
    defaults.update(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    return frozenset(
        arg.arg
        for arg in [*positional, *args.kwonlyargs]
        if defaults.get(arg) is None or _array_function(defaults[arg], qualname_of)
    )


def _array_function(value: ast.expr, qualname_of) -> bool:
    if isinstance(value, ast.Lambda):
        args = value.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            return False
        params = {arg.arg for arg in [*args.posonlyargs, *args.args]}
        return _computes_with(value.body, params, qualname_of)
    if not isinstance(value, ast.Name | ast.Attribute):
        return False
    qualname = qualname_of(value) or ""
    return qualname.startswith(_ARRAY_FUNCTION_MODULES) and not qualname.startswith(
        _NOT_ARRAY_FUNCTION_MODULES
    )


def _computes_with(expr: ast.expr, params: set[str], qualname_of) -> bool:
    """`expr` is an array computation of `params` alone: the parameters themselves,
    arithmetic on them (constants beside), `jax.numpy` / `jax.nn` functions of them."""
    if isinstance(expr, ast.Name):
        return expr.id in params
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub | ast.UAdd):
        return _computes_with(expr.operand, params, qualname_of)
    if isinstance(expr, ast.BinOp) and not isinstance(expr.op, ast.MatMult | ast.Mod):
        operands = [expr.left, expr.right]
        plain = [o for o in operands if not isinstance(o, ast.Constant)]
        return bool(plain) and all(_computes_with(o, params, qualname_of) for o in plain)
    if isinstance(expr, ast.Call) and not expr.keywords and expr.args:
        if not _array_function(expr.func, qualname_of):
            return False
        first, *rest = expr.args
        return _computes_with(first, params, qualname_of) and all(
            isinstance(arg, ast.Constant) or _computes_with(arg, params, qualname_of)
            for arg in rest
        )
    return False


def call_site_containers(
    node: FunctionNode,
    call: ast.Call,
    values: Mapping[ast.AST, Value],
    target: FunctionRef,
    leaves: bool,
) -> tuple[frozenset[str], frozenset[tuple[str, Value]]]:
    """Parameters this call passes a container holding tracers (`f((n, n))`) or an object
    whose attributes hold some (`f(Term(q))`), with the container's value; with `leaves`
    (`tree_map(f, tree)` calls `f` with the leaves), the parameters given leaves of such a
    container, which are tracers."""
    traced: set[str] = set()
    containers: dict[str, Value] = {}
    for name, arg in passed_arguments(node, call, target):
        value = values.get(arg)
        if (type(value) is Container or type(value) is Object) and contains_traced(value):
            traced.add(name)
            if not leaves or type(value) is Object:  # a plain object is a leaf itself
                containers[name] = value
    return frozenset(traced), frozenset(containers.items())


def python_value_params(
    node: FunctionNode, call: ast.Call, kinds: Mapping[ast.AST, Kind], target: FunctionRef
) -> frozenset[str]:
    """Parameters that this call gives a Python value: an argument known static (a literal, a
    `range` index), or a constant default the call leaves alone. Nothing when `*args` or
    `**kwargs` may fill any of them."""
    if _unpacks(call):
        return frozenset()
    passed = call_site_params(node, call, kinds, target, Kind.STATIC)
    return passed | (literal_default_params(node) - _given_params(node, call, target))


# Attributes only an array has (not a Python number, list or dict): a parameter read so is an
# array, whose leaves a filtered transformation (`eqx.filter_jit`) traces.
_ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "T", "reshape", "astype"})
_VMAPS = frozenset({"jax.vmap", "equinox.filter_vmap"})


def array_used_params(node: FunctionNode, resolver) -> frozenset[str]:
    """Parameters the body uses as arrays and never rebinds: `x.shape`, `x.reshape(...)`, or
    an operand of a vmapped function (`jax.vmap(model)(x)` maps over its leading axis)."""
    params = set(all_params(node))
    found: set[str] = set()
    rebound: set[str] = set()
    for child in walk_nodes(node):
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            rebound.add(child.id)
        elif (
            isinstance(child, ast.Attribute)
            and child.attr in _ARRAY_ATTRIBUTES
            and isinstance(child.value, ast.Name)
        ):
            found.add(child.value.id)
        elif (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Call)
            and len(child.func.args) == 1
            and not child.func.keywords
            and resolver.qualname(child.func.func) in _VMAPS
        ):  # default in_axes=0: every positional operand is mapped
            found.update(arg.id for arg in child.args if isinstance(arg, ast.Name))
    return frozenset(found & params - rebound)
