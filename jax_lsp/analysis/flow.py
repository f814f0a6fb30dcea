"""A small abstract interpreter: the value of every expression in one scope, in program order.

Straight-line code updates the values of names as it goes; branches are merged, loop bodies are
walked twice so loop-carried values settle. Nested functions are analyzed separately, seeing
the final values of this scope as their closure.

Values are `Kind`s or the richer values of `jax_lsp.analysis.values` (pytree containers, refs,
transformed functions). Each expression's Kind goes to `kinds` (what most rules read); its
richer value, when it has one, to `values`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from jax_lsp.analysis.constructors import class_constructor, constructed_object
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import (
    ARRAY_ANNOTATIONS,
    ARRAY_ATTRIBUTES,
    ARRAY_FUNCTIONS,
    ARRAY_LAYERS,
    ARRAY_METHODS,
    ARRAY_MODULES,
    CONCRETIZING_METHODS,
    JAXTYPING_DTYPES,
    NNX_VARIABLES,
    PYTHON_REDUCTIONS,
    SAME_KIND_ATTRIBUTES,
    STATIC_ATTRIBUTES,
    STATIC_BUILTINS,
    STATIC_RESULTS,
    Kind,
)
from jax_lsp.analysis.nodes import child_nodes, dotted_name, is_none, runs_at_least_once
from jax_lsp.analysis.numpy_tracers import RETURNS_TRACERS
from jax_lsp.analysis.passed_values import Flags, calls_in, flag_test
from jax_lsp.analysis.records import direct_init
from jax_lsp.analysis.summary import transform_of
from jax_lsp.analysis.transformed import FILTERED_JIT, transformed_function
from jax_lsp.analysis.transforms import GRADIENTS, TRANSFORMS, TREE_MAPS
from jax_lsp.analysis.values import (
    DERIVED,
    REF,
    Constructor,
    Container,
    Function,
    Instance,
    Object,
    Value,
    any_traced,
    as_jax,
    called_result,
    element_value,
    kind_of,
    merge_values,
    merge_values_all,
    pytree_of,
    reduces_python_values,
)

if TYPE_CHECKING:
    from jax_lsp.analysis.external import ExternalFacts

Env = dict[str, Value]
_TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
NEW_REF = frozenset({"jax.new_ref", "jax.empty_ref", "jax.ref.new_ref", "jax.ref.empty_ref"})
# lax loops: the position and keyword of the initial carry, whose structure the result keeps.
_GRADIENT_RESULTS = frozenset(GRADIENTS.values())
# lax branching: the branch functions are `cond`'s 2nd and 3rd arguments, `switch`'s 2nd (a list).
_BRANCHING = {"jax.lax.cond": "cond", "jax.lax.switch": "switch"}
_CARRY_LOOPS = {
    "jax.lax.while_loop": (2, "init_val"),
    "jax.lax.fori_loop": (3, "init_val"),
    "jax.lax.scan": (1, "init"),
}
# Calls giving a pytree shaped like one argument (its position and keyword), with JAX array
# leaves: optax computes every leaf with jnp (`apply_updates(params, updates)` is shaped like
# `params`).
_SHAPED_LIKE = {
    "optax.apply_updates": (0, "params"),
    "optax.incremental_update": (0, "new_tensors"),
    "optax.periodic_update": (0, "new_tensors"),
    "optax.tree_utils.tree_add": (0, "tree_x"),
    "optax.tree_utils.tree_sub": (0, "tree_x"),
    "optax.tree_utils.tree_mul": (0, "tree_x"),
    "optax.tree_utils.tree_div": (0, "tree_x"),
    "optax.tree_utils.tree_add_scale": (0, "tree_x"),
    "optax.tree_utils.tree_scale": (1, "tree"),
    "optax.tree_utils.tree_zeros_like": (0, "tree"),
    "optax.tree_utils.tree_ones_like": (0, "tree"),
    "optax.tree_utils.tree_full_like": (0, "tree"),
}
# Library functions that make a callable computing JAX arrays from its arguments (optax's
# schedules of a step count, jax.nn's initializers of a key and shape): Function(None, ARRAYS).
# Not `optax.constant_schedule`: it gives back its Python value.
ARRAYS = "arrays"
_ARRAY_CALLABLE_FACTORIES = frozenset(
    [
        *(f"optax.{name}" for name in ("exponential_decay", "join_schedules")),
        *(f"optax.schedules.{name}" for name in ("exponential_decay", "join_schedules")),
        *(
            f"{module}.{kind}_schedule"
            for module in ("optax", "optax.schedules")
            for kind in (
                *("cosine_decay", "cosine_onecycle", "linear_onecycle", "linear"),
                *("piecewise_constant", "piecewise_interpolate", "polynomial", "sgdr"),
                *("warmup_constant", "warmup_cosine_decay", "warmup_exponential_decay"),
            )
        ),
        *(
            f"jax.nn.initializers.{name}"
            for name in (
                *("constant", "delta_orthogonal", "normal", "orthogonal", "truncated_normal"),
                *("uniform", "variance_scaling", "glorot_normal", "glorot_uniform"),
                *("he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform"),
                *("lecun_normal", "lecun_uniform", "xavier_normal", "xavier_uniform"),
            )
        ),
    ]
)
# `isinstance(x, T)`: the value `x` has in the branch where it holds.
_NARROWED = {
    "numpy.ndarray": Kind.NUMPY,
    "numpy.generic": Kind.NUMPY,
    "builtins.int": Kind.STATIC,
    "builtins.float": Kind.STATIC,
    "builtins.bool": Kind.STATIC,
    "builtins.complex": Kind.STATIC,
    "builtins.str": Kind.STATIC,
    "builtins.tuple": Container("tuple"),
    "builtins.list": Container("list"),
    "builtins.dict": Container("dict"),
}
# A call the model cannot see, of traced values inside traced code: DERIVED ("ops": traced once
# compared or computed with), TRACED ("traced": traced as it is) or left unknown ("").
UNSEEN_CALLS = "ops"
# Array methods that compute with the array (no method a list, dict or common object has).
_COMPUTING_METHODS = frozenset(
    [
        *("all", "any", "argmax", "argmin", "argsort", "astype", "clip", "conj", "cumprod"),
        *("cumsum", "diagonal", "dot", "flatten", "max", "mean", "min", "prod", "ptp", "ravel"),
        *("reshape", "squeeze", "std", "sum", "swapaxes", "transpose", "var"),
    ]
)
# ... except these, which may give Python values, pytrees or objects.
_NOT_ARRAY_CALLS = frozenset(
    [
        "replace",
        "_replace",
        "partial",
        "print",
        "format",
        "zip",
        "enumerate",
        "items",
        "keys",
        "values",
        "update",
        "copy",
        "append",
        "extend",
        "pop",
        "setdefault",
        "split",
        "join",
        "tree_map",
        "tree_flatten",
        "tree_unflatten",
        "tree_leaves",
        "tree_structure",
        "map",
        "filter",
        "combine",
        "partition",
        "callback",
        "init",
        "shape",
        "ndim",
        "size",
        "dtype",
    ]
)
_NOT_ARRAY_MODULES = (
    "builtins.",
    "functools.",
    "dataclasses.",
    "typing.",
    "logging.",
    "jax.tree",
    "jax.debug.",
    "equinox.",
    "flax.",
    # not optax: of traced values its functions compute arrays (`global_norm`, losses,
    # schedules); those giving pytrees are in _SHAPED_LIKE, its transformations are objects
    "chex.",
    "jaxtyping.",
)
_JAX_ARRAY_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray"})
_TRANSFORM_SPECS = TRANSFORMS
# Context managers under which JAX computes eagerly, on concrete values, inside a trace.
_COMPILE_TIME_EVAL = frozenset(
    {"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"}
)


@direct_init
@dataclass(frozen=True)
class ScopeContext:
    resolver: Resolver
    abstract: bool  # values created here are tracers (inside jit-like tracing)
    outer: Mapping[str, Value]  # closure and module-level values, for names not bound here
    # Kinds for the parameters of a lambda that a transformation traces, by lambda node.
    lambda_params: Callable[[ast.Lambda], Mapping[str, Value] | None] = lambda node: None
    # Facts about functions imported from other workspace modules, by call spelling.
    external: Mapping[str, ExternalFacts] = field(default_factory=dict)
    # The return summary of a module function by its path ("f", "outer.inner"); None: unknown.
    returns: Callable[[str], Value | None] = lambda path: None
    # The same, interpreted with every parameter a tracer in abstract code.
    traced_returns: Callable[[str], Value | None] = lambda path: None
    scope_path: str = ""  # the path of the function interpreted ("" at module level)
    # Traced parameters of unknown structure whose every leaf is a tracer (`state` of a
    # `jax.jit` function): an attribute no array has is one of their fields, so a tracer or
    # a subtree of tracers.
    tree_params: frozenset[str] = frozenset()
    # Parameters every trace gives the same constant (True, False, None, a string) and the
    # code never rebinds (`skip_checks=True` from each traced call): the branches they decide.
    flags: Flags = field(default_factory=dict)
    # What a call the model resolves to a method of a class of the module returns
    # (`self.helper(x)`, a linen module's `model.apply(variables, x)` or a TrainState's
    # `state.apply_fn(variables, x)`, which run `__call__`): its return summary; None: no
    # such method, or nothing known.
    method_returns: Callable[[ast.Call], Value | None] = lambda call: None
    # The tests run before a parameter with a known value is first rebound: with its value.
    test_flags: Mapping[ast.expr, Flags] = field(default_factory=dict)


def annotation_kind(annotation: ast.expr | None, resolver: Resolver) -> Kind | None:
    """ARRAY for `jax.Array`, `jnp.ndarray` and jaxtyping's `Float[Array, "n"]`."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript):
        qualname = resolver.qualname(annotation.value) or ""
        if qualname.startswith("jaxtyping.") and qualname.split(".")[-1] in JAXTYPING_DTYPES:
            inner = annotation.slice
            first = inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
            return annotation_kind(first, resolver)
        return None
    qualname = resolver.qualname(annotation)
    if qualname in ARRAY_ANNOTATIONS:
        return Kind.ARRAY
    if qualname and (qualname.startswith("numpy.") and qualname.endswith("ndarray")):
        return Kind.NUMPY
    return None


# Annotations that declare a Python container: a parameter so annotated is a pytree node even
# when a transformation traces it (its leaves are traced; the container itself is truthy).
_CONTAINER_ANNOTATIONS = {
    "typing.Tuple": "tuple",
    "builtins.tuple": "tuple",
    "typing.List": "list",
    "builtins.list": "list",
    "typing.Dict": "dict",
    "builtins.dict": "dict",
}


def annotation_container(annotation: ast.expr | None, resolver: Resolver) -> str | None:
    """ "tuple", "list" or "dict" for `Tuple[jax.Array, jax.Array]`, `dict[str, Array]`, ..."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if not isinstance(annotation, ast.Name | ast.Attribute):
        return None
    return _CONTAINER_ANNOTATIONS.get(resolver.qualname(annotation) or "")


def _tree_leaf(value: Value) -> Value:
    """What every leaf of the pytree `value` holds, as far as known: a tracer when all of them
    are (a traced parameter is a pytree of tracers); unknown otherwise."""
    if value is Kind.TRACED:
        return Kind.TRACED
    if type(value) is Container:
        parts = list(value.items) if value.items is not None else [value.leaf]
        if parts and all(_tree_leaf(part) is Kind.TRACED for part in parts):
            return Kind.TRACED
    return Kind.UNKNOWN


# List methods that add an element (`append`, `insert`) or those of an iterable (`extend`).
_LIST_GROWTH = frozenset(("append", "insert", "extend"))


def _grown(container: Container, added: Value, at_end: bool) -> Container:
    """`container` (a list, or a dict under an unknown key) after `added` is put in it: at its
    end when `at_end` (its items stay known), else at a place not known."""
    if at_end and container.items is not None and container.keys is None:
        return Container(container.form, (*container.items, added))
    # As after a branch that put it in: merged with a container holding only `added`.
    return merge_values(container, Container(container.form, None, None, added))  # type: ignore[return-value]


def _merge_envs(first: Env, second: Env) -> Env:
    merged = {}
    for name in first.keys() | second.keys():
        if name in first and name in second:
            merged[name] = merge_values(first[name], second[name])
        else:
            merged[name] = Kind.UNKNOWN
    return merged


def _terminates(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _TERMINATORS)


class FlowInterpreter:
    """Walks one scope's statements, recording `kinds[node]` for every expression (and
    `values[node]` for those with a richer value than a Kind)."""

    def __init__(
        self,
        context: ScopeContext,
        kinds: dict[ast.AST, Kind],
        values: dict[ast.AST, Value] | None = None,
    ) -> None:
        self.context = context
        self.resolver = context.resolver
        self.kinds = kinds
        self.values: dict[ast.AST, Value] = {} if values is None else values
        self.env: Env = {}
        self.nested: list[ast.AST] = []  # nested defs/classes, analyzed by the caller
        self.unreached: list[ast.AST] = []  # calls of the branches the flags rule out

    # -- entry points -------------------------------------------------------------------
    def run_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, params: Env) -> Env:
        self.env = dict(params)
        self._visit_arguments(node.args)
        self.run_block(node.body)
        return self.env

    def run_block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    # -- statements -----------------------------------------------------------------------
    def statement(self, node: ast.stmt) -> None:
        handler = _STATEMENT_HANDLERS.get(type(node))
        if handler is not None:
            handler(self, node)
        else:
            for child in child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)
                elif isinstance(child, ast.stmt):
                    self.statement(child)

    def _stmt_Assign(self, node: ast.Assign) -> None:
        value = self.eval(node.value)
        for target in node.targets:
            self.bind(target, value, node.value)

    def _stmt_Expr(self, node: ast.Expr) -> None:
        self.eval(node.value)
        call = node.value
        if (
            type(call) is not ast.Call
            or type(call.func) is not ast.Attribute
            or type(call.func.value) is not ast.Name
            or call.func.attr not in _LIST_GROWTH
            or not call.args
        ):
            return
        name = call.func.value.id
        container = self.env.get(name)
        if type(container) is not Container or container.form != "list":
            return
        added = self.values.get(call.args[-1], self.kinds.get(call.args[-1], Kind.UNKNOWN))
        if call.func.attr == "extend":
            added = element_value(added)
        self.env[name] = _grown(container, added, call.func.attr == "append")

    def _stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.eval(node.annotation)
        declared = annotation_kind(node.annotation, self.resolver)
        if node.value is not None:
            value = self.eval(node.value)
            if declared is Kind.ARRAY and value is Kind.TRACED:
                declared = Kind.TRACED
            self.bind(node.target, declared or value, node.value)

    def _stmt_AugAssign(self, node: ast.AugAssign) -> None:
        target, value = self.eval(node.target), self.eval(node.value)
        result = _concatenated(node.op, target, value) or self._combine([target, value])
        if isinstance(node.target, ast.Name):
            self.env[node.target.id] = result

    def _stmt_If(self, node: ast.If) -> None:
        flags = self.context.test_flags.get(node.test, self.context.flags)
        if not flags:
            self.eval(node.test)
        else:
            self._eval_flagged_test(node.test, flags)
            flagged = flag_test(node.test, flags)
            if flagged is not None:  # the other branch never runs in this trace: no values
                self.run_block(node.body if flagged else node.orelse)
                self.unreached += calls_in(node.orelse if flagged else node.body)
                return
        before = dict(self.env)
        narrowed, negated = self._narrowing(node.test)
        decided = self._decided(node.test)
        self._run_narrowed(node.body, narrowed if not negated else {}, before)
        after_body = self.env
        self.env = dict(before)
        self._run_narrowed(node.orelse, narrowed if negated else {}, before)
        if decided is not None:  # only one branch runs: the values after are its values
            if decided:
                self.env = after_body
            return
        if _terminates(node.body):
            return
        if _terminates(node.orelse):
            self.env = after_body
            return
        self.env = _merge_envs(after_body, self.env)

    def _eval_flagged_test(self, test: ast.expr, flags: Flags) -> None:
        """Evaluate what of `test` runs: a flag that decides an `and` or `or`
        (`not skip_checks and gap < tol`) leaves the operands after it unevaluated."""
        if type(test) is not ast.BoolOp:
            self.eval(test)
            return
        deciding = type(test.op) is ast.Or
        for index, value in enumerate(test.values):
            self._eval_flagged_test(value, flags)
            if flag_test(value, flags) is deciding:
                self.unreached += calls_in(test.values[index + 1 :])
                return

    def _decided(self, test: ast.expr) -> bool | None:
        """Whether `[not] isinstance(x, tuple)` holds, `x` being a tuple or list the model
        built (a literal, `tuple(...)`, a container passed on); None: not known."""
        parsed = _isinstance_test(test)
        if parsed is None:
            return None
        name, types, negated = parsed
        current = self._expr_Name(ast.Name(name, ast.Load()))
        if type(current) is not Container or current.form not in ("tuple", "list"):
            return None
        found = [_NARROWED.get(self.resolver.qualname(element) or "") for element in types]
        if any(type(value) is Container and value.form == current.form for value in found):
            return not negated
        if found and all(value is not None for value in found):
            return negated  # only builtin types, none of them its own
        return None

    def _run_narrowed(self, body: list[ast.stmt], narrowed: Env, before: Env) -> None:
        """Runs a branch with the narrowed values; a name the branch did not rebind leaves it
        with its value from before (a narrowing says nothing about the code after the `if`)."""
        self.env.update(narrowed)
        self.run_block(body)
        for name, value in narrowed.items():
            if self.env.get(name) is value:
                if name in before:
                    self.env[name] = before[name]
                else:
                    del self.env[name]  # a closure or module name: theirs again

    def _narrowing(self, test: ast.expr) -> tuple[Env, bool]:
        """`isinstance(x, T)` (or `not isinstance(...)`): the value of `x` where it holds,
        and whether that is the `else` branch."""
        parsed = _isinstance_test(test)
        if parsed is None:
            return {}, False
        name, types, negated = parsed
        found = [self._narrowed_to(element, name) for element in types]
        if not found or any(value is None for value in found):
            return {}, False
        current = self._expr_Name(ast.Name(name, ast.Load()))
        if type(current) is Container and any(
            type(value) is Container and value.form == current.form for value in found
        ):
            return {name: current}, negated  # already known, with its items
        return {name: merge_values_all(found)}, negated

    def _narrowed_to(self, class_expr: ast.expr, name: str) -> Value | None:
        qualname = self.resolver.qualname(class_expr)
        if qualname in _JAX_ARRAY_TYPES:
            current = self._expr_Name(ast.Name(name, ast.Load()))
            return Kind.TRACED if current is Kind.TRACED else Kind.ARRAY
        return _NARROWED.get(qualname or "")

    def _loop(
        self, body: list[ast.stmt], bind_target: Callable[[], None], runs_once: bool = False
    ) -> Env:
        """Walk a loop twice so loop-carried values settle; returns the values at the end of
        the body (what the next iteration starts from)."""
        before = dict(self.env)
        bind_target()
        self.run_block(body)
        first = self.env
        # The first walk is the first pass through the body: what is a tracer there is one
        # whenever the body runs, though later passes may give an unseen call's result
        # (`x = layer(x)` over a list of layers), which the merged walk cannot call traced.
        traced = (
            [node for node, kind in self.kinds.items() if kind is Kind.TRACED]
            if self.context.abstract or any(value is Kind.TRACED for value in first.values())
            else ()
        )
        self.env = first if runs_once else _merge_envs(before, first)
        bind_target()
        self.run_block(body)
        back = self.env
        for node in traced:
            if self.kinds.get(node) is Kind.UNKNOWN:
                self.kinds[node] = Kind.TRACED
                self.values.pop(node, None)
        self.env = _merge_envs(first if runs_once else before, self.env)
        return back

    def _stmt_For(self, node: ast.For | ast.AsyncFor) -> None:
        element = self._iterated(node.iter)
        runs_once = runs_at_least_once(node.iter)
        self._loop(node.body, lambda: self.bind(node.target, element, None), runs_once)
        self.run_block(node.orelse)

    _stmt_AsyncFor = _stmt_For

    def _stmt_While(self, node: ast.While) -> None:
        back = self._loop(node.body, lambda: self.eval(node.test))
        if not _terminates(node.body):
            self._test_again(node.test, back)
        self.run_block(node.orelse)

    def _test_again(self, test: ast.expr, back: Env) -> None:
        """A loop condition is evaluated again after every pass of the body: `err = jnp.inf`
        then `while err > tol: err = jnp.abs(...)` is a Python constant the first time and a
        traced value from the second on. The merge of both is UNKNOWN; when the values at the
        end of the body make the condition traced, the condition is traced."""
        if self.kinds.get(test) is Kind.TRACED:
            return
        nodes = list(ast.walk(test))
        kinds = {n: self.kinds[n] for n in nodes if n in self.kinds}
        values = {n: self.values[n] for n in nodes if n in self.values}
        after = self.env
        self.env = dict(back)
        traced = self.eval(test) is Kind.TRACED or self.kinds.get(test) is Kind.TRACED
        self.env = after
        if traced:
            return
        for n in nodes:  # not traced after the body either: keep what the merge found
            self.kinds.pop(n, None)
            self.values.pop(n, None)
        self.kinds.update(kinds)
        self.values.update(values)

    def _stmt_Try(self, node: ast.Try) -> None:
        before = dict(self.env)
        self.run_block(node.body)
        self.run_block(node.orelse)
        after = self.env
        for handler in node.handlers:
            self.env = _merge_envs(before, after)
            if handler.type is not None:
                self.eval(handler.type)
            if handler.name:
                self.env[handler.name] = Kind.UNKNOWN
            self.run_block(handler.body)
            after = _merge_envs(after, self.env)
        self.env = after
        self.run_block(node.finalbody)

    _stmt_TryStar = _stmt_Try

    def _stmt_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, Kind.UNKNOWN, None)
        if not (self.context.abstract and self._evaluates_eagerly(node)):
            self.run_block(node.body)
            return
        # Under `jax.ensure_compile_time_eval()` JAX computes on concrete inputs at once: what
        # the body makes from Python values is concrete, what it makes from tracers is traced.
        tracing = self.context
        self.context = replace(tracing, abstract=False)
        try:
            self.run_block(node.body)
        finally:
            self.context = tracing

    _stmt_AsyncWith = _stmt_With

    def _evaluates_eagerly(self, node: ast.With | ast.AsyncWith) -> bool:
        return any(
            isinstance(item.context_expr, ast.Call)
            and self.resolver.qualname(item.context_expr.func) in _COMPILE_TIME_EVAL
            for item in node.items
        )

    def _stmt_Match(self, node: ast.Match) -> None:
        self.eval(node.subject)
        before = dict(self.env)
        merged: Env | None = None
        for case in node.cases:
            self.env = dict(before)
            for name in _pattern_names(case.pattern):
                self.env[name] = Kind.UNKNOWN
            if case.guard is not None:
                self.eval(case.guard)
            self.run_block(case.body)
            merged = self.env if merged is None else _merge_envs(merged, self.env)
        self.env = _merge_envs(before, merged) if merged is not None else before

    def _stmt_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expr in node.decorator_list:
            self.eval(expr)
        self._visit_defaults(node.args)
        if node.returns is not None:
            self.eval(node.returns)
        self.env[node.name] = self._function_value(node)
        self.nested.append(node)

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _function_value(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Value:
        """The function a `def` binds, with the transformations its decorators apply."""
        scope = self.context.scope_path
        value: Value = Function(f"{scope}.{node.name}" if scope else node.name)
        for decorator in reversed(node.decorator_list):
            found = transform_of(decorator, self.resolver)
            if found is None:
                return Kind.UNKNOWN
            value = transformed_function(found[0], found[1], value)
        return value

    def _stmt_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.eval(expr)
        self.env[node.name] = class_constructor(node, self.resolver) or Kind.UNKNOWN
        self.nested.append(node)

    def _stmt_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            self.env.pop(_import_binding(alias), None)
            # A value the workspace module binds once (`from config import CONFIG`).
            facts = self.context.external.get(alias.asname or alias.name)
            if type(node) is ast.ImportFrom and facts is not None and facts.value is not None:
                self.env[alias.asname or alias.name] = facts.value

    _stmt_ImportFrom = _stmt_Import

    def _stmt_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.env.pop(target.id, None)
            else:
                self.eval(target)

    def _stmt_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self.env[name] = Kind.UNKNOWN

    _stmt_Nonlocal = _stmt_Global

    # -- binding --------------------------------------------------------------------------
    def bind(self, target: ast.expr, value: Value, value_node: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            self._record(target, value)
        elif isinstance(target, ast.Tuple | ast.List):
            elements = target.elts
            starred = any(isinstance(element, ast.Starred) for element in elements)
            if (
                not starred
                and type(value) is Container
                and value.items is not None
                and value.keys is None
                and len(value.items) == len(elements)
            ):
                for element, item_value in zip(elements, value.items, strict=True):
                    self.bind(element, item_value, None)
            else:
                item_value = element_value(value)
                for element in elements:
                    self.bind(element, item_value, None)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, Kind.UNKNOWN, None)
        else:
            self.eval(target)
            if type(target) is ast.Subscript and type(target.value) is ast.Name:
                self._store_item(target.value.id, target.slice, value)
            elif type(target) is ast.Attribute and type(target.value) is ast.Name:
                held = self.eval(target.value)
                if type(held) is Object and held.class_name in NNX_VARIABLES:
                    # `v.value = np.zeros(3)`: the variable holds that now
                    self.env[target.value.id] = Object(held.class_name, (("value", value),))

    def _store_item(self, name: str, key: ast.expr, value: Value) -> None:
        """`name[key] = value` on a list or dict the scope built: a dict's constant key takes
        the value, any other store may hold it."""
        container = self.env.get(name)
        if type(container) is not Container or container.form == "tuple":
            return
        if (
            container.form == "dict"
            and container.keys is not None
            and type(key) is ast.Constant
            and type(key.value) is str
        ):
            keys, items = list(container.keys), list(container.items or ())
            if key.value in keys:
                items[keys.index(key.value)] = value
            else:
                keys.append(key.value)
                items.append(value)
            self.env[name] = Container("dict", tuple(items), tuple(keys), container.leaf)
        else:
            self.env[name] = _grown(container, value, False)

    def _visit_defaults(self, args: ast.arguments) -> None:
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.eval(default)

    def _visit_arguments(self, args: ast.arguments) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if arg.annotation is not None:
                self.eval(arg.annotation)

    # -- expressions ----------------------------------------------------------------------
    def eval(self, node: ast.expr) -> Value:
        node_type = type(node)
        # The commonest expressions without a handler's call: a name bound in this scope (in
        # any context: `_expr_Name` reads a Store the same), a constant.
        if node_type is ast.Name and node.id in self.env:  # type: ignore[attr-defined]
            value = self.env[node.id]  # type: ignore[attr-defined]
        elif node_type is ast.Constant:
            value = Kind.STATIC
        elif (handler := _EXPRESSION_HANDLERS.get(node_type)) is not None:
            value = handler(self, node)
        else:
            for child in child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)
                elif isinstance(child, ast.comprehension):
                    self._comprehension(child)
            value = Kind.UNKNOWN
        if type(value) is Kind:
            self.kinds[node] = value
        else:
            self.kinds[node] = value.kind
            self.values[node] = value
        return value

    def _record(self, node: ast.expr, value: Value) -> None:
        if type(value) is Kind:
            self.kinds[node] = value
            self.values.pop(node, None)
        else:
            self.kinds[node] = value.kind
            self.values[node] = value

    def _combine(self, values: list[Value]) -> Kind:
        """The kind of an arithmetic result of operands of these values."""
        kinds = [value if type(value) is Kind else value.kind for value in values]
        if Kind.TRACED in kinds or DERIVED in values:
            return Kind.TRACED
        if Kind.ARRAY in kinds:
            return Kind.TRACED if self.context.abstract else Kind.ARRAY
        if all(kind is Kind.STATIC for kind in kinds):
            return Kind.STATIC
        if Kind.NUMPY in kinds and all(kind in (Kind.NUMPY, Kind.STATIC) for kind in kinds):
            return Kind.NUMPY
        return Kind.UNKNOWN

    def _array_result(self, arguments: list[Value]) -> Kind:
        if self.context.abstract or any_traced(arguments):
            return Kind.TRACED
        return Kind.ARRAY

    def _expr_JoinedStr(self, node: ast.JoinedStr) -> Value:
        for value in node.values:
            self.eval(value)
        return Kind.STATIC

    def _expr_Name(self, node: ast.Name) -> Value:
        if isinstance(node.ctx, ast.Store):
            return self.env.get(node.id, Kind.UNKNOWN)
        if node.id in self.env:
            return self.env[node.id]
        return self.context.outer.get(node.id, Kind.UNKNOWN)

    def _expr_BinOp(self, node: ast.BinOp) -> Value:
        left, right = self.eval(node.left), self.eval(node.right)
        return _concatenated(node.op, left, right) or self._combine([left, right])

    def _expr_UnaryOp(self, node: ast.UnaryOp) -> Value:
        operand = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return Kind.STATIC
        return self._combine([operand])

    def _expr_BoolOp(self, node: ast.BoolOp) -> Value:
        return merge_values_all([self.eval(value) for value in node.values])

    def _expr_Compare(self, node: ast.Compare) -> Value:
        values = [self.eval(node.left), *(self.eval(c) for c in node.comparators)]
        if all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
            return Kind.STATIC
        if any(isinstance(op, ast.In | ast.NotIn | ast.Is | ast.IsNot) for op in node.ops):
            return Kind.UNKNOWN
        if any(_is_text(operand) for operand in [node.left, *node.comparators]):
            return Kind.STATIC  # no array equals a str: a tracer gives False, a Python bool
        if any(is_none(operand) for operand in [node.left, *node.comparators]):
            # A jax array's `==`/`!=` returns NotImplemented for None, so Python falls back
            # to identity: `x != None` is a Python bool even for a tracer.
            return Kind.STATIC
        return self._combine(values)

    def _expr_IfExp(self, node: ast.IfExp) -> Value:
        self.eval(node.test)
        flags = self.context.test_flags.get(node.test, self.context.flags)
        flagged = flag_test(node.test, flags) if flags else None
        if flagged is not None:  # `a if validate else b`: only one runs in this trace
            self.unreached += calls_in([node.orelse if flagged else node.body])
            return self.eval(node.body if flagged else node.orelse)
        return merge_values(self.eval(node.body), self.eval(node.orelse))

    def _expr_NamedExpr(self, node: ast.NamedExpr) -> Value:
        value = self.eval(node.value)
        self.bind(node.target, value, node.value)
        return value

    def _expr_Tuple(self, node: ast.Tuple | ast.List) -> Value:
        items = [self.eval(element) for element in node.elts]
        if not isinstance(node.ctx, ast.Load):
            return Kind.UNKNOWN
        form = "tuple" if isinstance(node, ast.Tuple) else "list"
        if any(isinstance(element, ast.Starred) for element in node.elts):
            return Container(form)
        return Container(form, tuple(items))

    _expr_List = _expr_Tuple

    def _expr_Dict(self, node: ast.Dict) -> Value:
        for key in node.keys:
            if key is not None:
                self.eval(key)
        items = tuple([self.eval(value) for value in node.values])
        names = tuple([key.value if isinstance(key, ast.Constant) else None for key in node.keys])
        if all(type(name) is str for name in names):
            return Container("dict", items, names)
        return Container("dict")

    def _expr_Slice(self, node: ast.Slice) -> Value:
        parts = [self.eval(p) for p in (node.lower, node.upper, node.step) if p is not None]
        if Kind.TRACED in parts:
            return Kind.TRACED
        return Kind.STATIC if all(kind is Kind.STATIC for kind in parts) else Kind.UNKNOWN

    def _expr_Attribute(self, node: ast.Attribute) -> Value:
        receiver = self.eval(node.value)
        if type(receiver) is Instance or type(receiver) is Object:  # the value of its field
            return receiver.attribute(node.attr)
        if receiver is DERIVED and node.attr in STATIC_ATTRIBUTES:
            return Kind.STATIC  # an unseen call's array (or array-like object): its shape
        value = kind_of(receiver)
        if (receiver is Kind.TRACED or receiver is DERIVED) and self._field_of_tree_param(node):
            return DERIVED
        if value.is_jax or value is Kind.NUMPY:
            if node.attr in STATIC_ATTRIBUTES:
                return Kind.STATIC
            if node.attr in SAME_KIND_ATTRIBUTES or node.attr == "at":
                return value
            return Kind.UNKNOWN
        if value is Kind.STATIC:
            return Kind.STATIC
        return Kind.UNKNOWN

    def _field_of_tree_param(self, node: ast.Attribute) -> bool:
        """`state.step` (or `batch.info.priority`, a field of a field) of a parameter whose
        every leaf is traced (see `tree_params`), where no array has the attributes: a
        field, holding tracers unless its class (not known here) declares it static."""
        if not self.context.abstract:
            return False
        while isinstance(node, ast.Attribute):
            if node.attr in ARRAY_ATTRIBUTES or node.attr.startswith("_"):
                return False
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.context.tree_params

    def _expr_Subscript(self, node: ast.Subscript) -> Value:
        value = self.eval(node.value)
        index = self.eval(node.slice)
        key = node.slice.value if isinstance(node.slice, ast.Constant) else None
        if type(value) is Container:
            if isinstance(node.slice, ast.Constant):
                return value.item(key)
            if isinstance(node.slice, ast.Slice):  # `items[1:]`: a tuple or list again
                if value.form == "dict":
                    return Kind.UNKNOWN
                return Container(value.form, leaf=value.element())
            return value.element() if index is Kind.STATIC else Kind.UNKNOWN
        if value is REF:
            return self._array_result([])  # `ref[...]`: the array it holds
        if value is DERIVED and (index is Kind.TRACED or _array_only_index(node.slice)):
            # An unseen call's result indexed the way only an array is (`out[:, 0]`,
            # `out[out > 0]`: no tuple, list or dict takes a slice pair or a tracer): an array.
            value = Kind.TRACED
            self._refine(node.value, value)
        if type(value) is not Kind:
            return Kind.UNKNOWN
        if value.is_jax:
            if type(key) is str or isinstance(node.slice, ast.JoinedStr):
                # `x["key"]`: no JAX array is indexed by a str, so `x` is a pytree (a dict).
                self._refine(node.value, pytree_of(value))
            return Kind.TRACED if self.context.abstract or value is Kind.TRACED else Kind.ARRAY
        if value is Kind.NUMPY:
            return Kind.NUMPY
        if value is Kind.STATIC and index is Kind.STATIC:
            return Kind.STATIC
        return Kind.UNKNOWN

    def _refine(self, node: ast.expr, value: Value) -> None:
        """What `node` was found to hold: recorded for it, and for its name from here on."""
        self._record(node, value)
        if isinstance(node, ast.Name):
            self.env[node.id] = value

    def _expr_Starred(self, node: ast.Starred) -> Value:
        return self.eval(node.value)

    def _expr_Lambda(self, node: ast.Lambda, given: Mapping[str, Value] | None = None) -> Value:
        """`given`: what the call that runs the lambda right here passes its parameters (a
        tree map's leaves), where no transformation says."""
        self._visit_defaults(node.args)
        saved = self.env
        params = self.context.lambda_params(node) or given
        self.env = dict(saved)
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            self.env[arg.arg] = (params or {}).get(arg.arg, Kind.UNKNOWN)
        for arg in (node.args.vararg, node.args.kwarg):
            if arg is not None:
                self.env[arg.arg] = Kind.UNKNOWN
        self.eval(node.body)
        self.env = saved
        return Kind.UNKNOWN

    def _comprehension(self, generator: ast.comprehension) -> None:
        element = self._iterated(generator.iter)
        self.bind(generator.target, element, None)
        for condition in generator.ifs:
            self.eval(condition)

    def _iterated(self, iterable: ast.expr) -> Value:
        """The value of one element of a loop over `iterable`: for `zip(a, b)` a tuple of
        an element of each, for `enumerate(a)` a Python int and an element of `a`."""
        value = self.eval(iterable)
        if not isinstance(iterable, ast.Call) or iterable.keywords or not iterable.args:
            return element_value(value)
        if any(isinstance(arg, ast.Starred) for arg in iterable.args):
            return element_value(value)
        parts = [element_value(self._value_at(arg)) for arg in iterable.args]
        qualname = self.resolver.qualname(iterable.func)
        if qualname == "builtins.zip":
            return Container("tuple", tuple(parts))
        if qualname == "builtins.enumerate" and len(parts) == 1:
            return Container("tuple", (Kind.STATIC, parts[0]))
        return element_value(value)

    def _value_at(self, node: ast.expr) -> Value:
        """What the walk found `node` (evaluated already) to hold."""
        return self.values.get(node, self.kinds.get(node, Kind.UNKNOWN))

    def _expr_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> Value:
        saved = self.env
        self.env = dict(saved)
        for generator in node.generators:
            self._comprehension(generator)
        element = self.eval(node.elt)
        self.env = saved
        if isinstance(node, ast.ListComp):  # a list of what each pass gives
            return Container("list", leaf=element)
        return Kind.ITERATOR if isinstance(node, ast.GeneratorExp) else Kind.UNKNOWN

    _expr_SetComp = _expr_ListComp
    _expr_GeneratorExp = _expr_ListComp

    def _expr_DictComp(self, node: ast.DictComp) -> Value:
        saved = self.env
        self.env = dict(saved)
        for generator in node.generators:
            self._comprehension(generator)
        self.eval(node.key)
        value = self.eval(node.value)
        self.env = saved
        return Container("dict", leaf=value)  # keys not known: every value as one leaf

    def _expr_Call(self, node: ast.Call) -> Value:
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = self.eval(func.value)
            callee: Value = Kind.UNKNOWN
        else:
            receiver = None
            callee = self.eval(func)
        if node.args and type(node.args[0]) is ast.Lambda and self._maps_leaves(node):
            args = self._tree_map_arguments(node.args[0], node.args[1:])
        else:
            args = [self.eval(arg) for arg in node.args]
        keywords = {keyword.arg: self.eval(keyword.value) for keyword in node.keywords}
        every = [*args, *keywords.values()]
        if type(callee) is Constructor:
            value = constructed_object(callee, node, args, keywords)
        else:
            if any(isinstance(arg, ast.Starred) for arg in node.args):
                args = []  # positions unknown
            value = self._call(node, receiver, callee, args, keywords, every)
        if not UNSEEN_CALLS or not self.context.abstract:
            return value
        unseen = Kind.TRACED if UNSEEN_CALLS == "traced" else DERIVED
        if value is Kind.UNKNOWN:
            inputs = every if receiver is None else [receiver, *every]
            if receiver is None and kind_of(callee) is Kind.TRACED:
                # A traced callable (a module whose weights are tracers) computes with them.
                inputs = [Kind.TRACED, *every]
            if _asks_the_object(node, receiver, every):
                return value
            if any_traced(inputs) and not _may_be_static(node, self.resolver):
                return unseen
        return value

    def _maps_leaves(self, node: ast.Call) -> bool:
        """`jax.tree.map(lambda x: ..., tree)`: the lambda is called with the trees' leaves
        (with `is_leaf=`, with subtrees that may be anything)."""
        return self.resolver.qualname(node.func) in TREE_MAPS and not any(
            keyword.arg == "is_leaf" for keyword in node.keywords
        )

    def _tree_map_arguments(self, mapped: ast.Lambda, trees: list[ast.expr]) -> list[Value]:
        """The values of a tree map's arguments: the trees first, then the lambda, whose
        parameters receive one leaf of each tree (a tracer where every leaf is)."""
        values = [self.eval(tree) for tree in trees]
        if any(isinstance(tree, ast.Starred) for tree in trees):
            values_by_param: dict[str, Value] = {}
        else:
            params = [arg.arg for arg in [*mapped.args.posonlyargs, *mapped.args.args]]
            values_by_param = {
                name: _tree_leaf(value) for name, value in zip(params, values, strict=False)
            }
        return [self._expr_Lambda(mapped, values_by_param), *values]

    def _call(
        self,
        node: ast.Call,
        receiver: Value | None,
        callee: Value,
        args: list[Value],
        keywords: dict[str | None, Value],
        every: list[Value],
    ) -> Value:
        func = node.func
        if self.context.external:
            if self._imported_returns_array(func):
                return self._array_result(every)
            facts = self._imported_facts(func)
            given_tracers = self._given_only_tracers(every)
            if given_tracers and facts is not None and facts.traced_returns is Kind.STATIC:
                return Kind.STATIC  # a Python value made of the tracers' shapes
            if facts is not None and (
                facts.returns is not None or facts.traced_returns is not None
            ):
                summary: Value = Kind.UNKNOWN if facts.returns is None else facts.returns
                if self.context.abstract and every and all(v is Kind.TRACED for v in every):
                    summary = _given_tracers(summary, facts.traced_returns)
                if summary is not Kind.UNKNOWN:
                    return called_result(summary, self.context.abstract or any_traced(every))
        if type(callee) is Function:
            return self._call_function(callee, args, every)
        if (type(receiver) is Instance or type(receiver) is Object) and isinstance(
            func, ast.Attribute
        ):
            held = receiver.attribute(func.attr)  # `self.lin(x)` of a layer it holds
            if type(held) is Function and held.transform == ARRAYS:
                return self._array_result(every)
        if receiver is not None:  # `self.helper(x)`, `model.apply(v, x)`: a method of here
            summary = self.context.method_returns(node)
            if summary is not None and summary is not Kind.UNKNOWN:
                return called_result(summary, self.context.abstract or any_traced(every))
        qualname = self.resolver.qualname(func)
        if qualname:
            return self._call_value(qualname, node, args, keywords, every)
        if isinstance(func, ast.Call):
            if self.resolver.qualname(func.func) in ARRAY_LAYERS:  # `nn.Dense(3)(x)`
                return self._array_result(every)
            found = transform_of(func, self.resolver)  # partial(jax.jit, ...)(f)
            if found is not None and args:
                return transformed_function(found[0], found[1], args[0])
        if receiver is not None and isinstance(func, ast.Attribute):
            self._record(func, receiver)
            if receiver is DERIVED and func.attr in _COMPUTING_METHODS:
                return Kind.TRACED  # `y.sum()` of an unseen call's result computes with it
            return self._method_kind(kind_of(receiver), func.attr)
        return Kind.UNKNOWN

    def _imported_returns_array(self, func: ast.expr) -> bool:
        """`make_state()` / `ops.make_state()`, imported from a module known to return arrays
        (and not rebound here)."""
        facts = self._imported_facts(func)
        return facts is not None and facts.returns_array

    def _imported_facts(self, func: ast.expr) -> ExternalFacts | None:
        """What is known of the imported function `func` calls (not rebound here)."""
        spelling = dotted_name(func)
        facts = self.context.external.get(spelling) if spelling else None
        if facts is None:
            return None
        head = spelling.split(".")[0]
        return None if head in self.env or head in self.context.outer else facts

    def _call_function(self, function: Function, args: list[Value], every: list[Value]) -> Value:
        """The result of calling a module function, transformed or not."""
        traced = self.context.abstract or any_traced(every)
        if function.transform == ARRAYS:
            return self._array_result(every)
        summary = self.context.returns(function.path) if function.path else None
        given_tracers = self.context.abstract and every and all(v is Kind.TRACED for v in every)
        if function.transform in _GRADIENT_RESULTS:
            # With `has_aux`, what `f` returns second is computed from the tracers it is given.
            if summary is not None and given_tracers:
                summary = _given_tracers(summary, self.context.traced_returns(function.path))
            return _gradient_result(function, args, traced, summary)
        if summary is None:
            return Kind.UNKNOWN
        if function.transform is None:
            if given_tracers:
                summary = _given_tracers(summary, self.context.traced_returns(function.path))
            # `_hdim(x)` returning `x.shape[-1]`: a Python value even of tracers, which the
            # unseen-call guess would otherwise take for a value computed from them.
            if (
                summary is Kind.UNKNOWN
                and self._given_only_tracers(every)
                and self.context.traced_returns(function.path) is Kind.STATIC
            ):
                return Kind.STATIC
            return called_result(summary, traced)
        return as_jax(summary, traced, keep_python=function.transform == FILTERED_JIT)

    def _given_only_tracers(self, every: list[Value]) -> bool:
        """Every argument a tracer (or what an unseen call made of tracers) in abstract code:
        the case a helper's given-tracers summary describes."""
        return (
            self.context.abstract
            and bool(every)
            and all(value is Kind.TRACED or value is DERIVED for value in every)
        )

    def _call_value(
        self,
        qualname: str,
        node: ast.Call,
        args: list[Value],
        keywords: dict[str | None, Value],
        every: list[Value],
    ) -> Value:
        carry = _CARRY_LOOPS.get(qualname)
        if carry is not None:
            position, keyword = carry
            init = args[position] if position < len(args) else keywords.get(keyword)
            if init is None:
                return Kind.UNKNOWN
            result = as_jax(init, self.context.abstract or any_traced(every))
            if qualname.endswith("scan"):
                return Container("tuple", (result, Kind.UNKNOWN))  # (carry, stacked outputs)
            return result
        if qualname in _BRANCHING:
            return self._branches_result(_BRANCHING[qualname], args, every)
        shaped = _SHAPED_LIKE.get(qualname)
        if shaped is not None:
            position, keyword = shaped
            tree = args[position] if position < len(args) else keywords.get(keyword)
            traced = self.context.abstract or any_traced(every)
            return Kind.UNKNOWN if tree is None else as_jax(tree, traced)
        spec = _TRANSFORM_SPECS.get(qualname)
        if spec is not None:
            options = {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}
            return transformed_function(spec, options, args[0]) if args else Kind.UNKNOWN
        if qualname in NEW_REF:
            return REF
        if qualname in _ARRAY_CALLABLE_FACTORIES:
            return Function(None, ARRAYS)
        if qualname in NNX_VARIABLES and args and kind_of(args[0]).is_jax:
            return Object(qualname, (("value", kind_of(args[0])),))
        if qualname == "builtins.dict":
            return _dict_call(args, keywords)
        if qualname in ("builtins.list", "builtins.tuple") and len(args) == 1:
            source = args[0]
            form = qualname.removeprefix("builtins.")
            if type(source) is Container and source.keys is None:
                return Container(form, source.items, None, source.leaf)
            return Container(form, None, None, element_value(source))
        if qualname in PYTHON_REDUCTIONS and reduces_python_values(
            qualname, node, args, keywords, self._value_at
        ):
            return Kind.STATIC
        if self._returns_tracer(qualname, args):
            return Kind.TRACED
        return self._call_kind(qualname, [kind_of(value) for value in every])

    def _returns_tracer(self, qualname: str, args: list[Value]) -> bool:
        """A NumPy function that calls its argument's own method (`np.all(x)` is `x.all()`),
        given a tracer there: the tracer's method answers, with a tracer (a JAX array in
        traced code is one too)."""
        tracer_kinds = (Kind.TRACED, Kind.ARRAY) if self.context.abstract else (Kind.TRACED,)
        return any(
            position < len(args) and kind_of(args[position]) in tracer_kinds
            for position in RETURNS_TRACERS.get(qualname, ())
        )

    def _branches_result(self, how: str, args: list[Value], every: list[Value]) -> Value:
        """`lax.cond(p, f, g, x)` / `lax.switch(i, [f, g], x)`: what the branches return,
        as JAX arrays (the branches must agree in structure)."""
        if how == "cond":
            branches = args[1:3]
        elif len(args) > 1 and type(args[1]) is Container and args[1].items is not None:
            branches = list(args[1].items)
        else:
            return Kind.UNKNOWN
        found = []
        for branch in branches:
            if type(branch) is not Function or branch.transform or branch.path is None:
                return Kind.UNKNOWN
            summary = self.context.returns(branch.path)
            if summary is None:
                return Kind.UNKNOWN
            found.append(summary)
        if not found:
            return Kind.UNKNOWN
        traced = self.context.abstract or any_traced(every)
        return as_jax(merge_values_all(found), traced)

    def _call_kind(self, qualname: str, args: list[Kind]) -> Kind:
        if qualname in STATIC_BUILTINS or qualname in STATIC_RESULTS:
            return Kind.STATIC
        if qualname in ("builtins.iter", "builtins.zip", "builtins.map", "builtins.enumerate"):
            return Kind.ITERATOR
        if qualname in ("builtins.list", "builtins.tuple", "builtins.sorted"):
            return Kind.SEQUENCE
        if qualname in ("builtins.abs", "builtins.round", "builtins.sum", "builtins.pow"):
            return Kind.TRACED if Kind.TRACED in args else Kind.UNKNOWN
        if qualname == "jax.lax.psum" and args and args[0] is Kind.STATIC:
            # A collective sum of a Python constant is computed from the axis size at trace
            # time: `lax.psum(1, axis)` is the axis size, a Python int.
            return Kind.STATIC
        if qualname in ARRAY_FUNCTIONS or qualname.startswith(ARRAY_MODULES):
            return self._array_result(args)
        if qualname == "numpy" or qualname.startswith("numpy."):
            return Kind.NUMPY
        return Kind.UNKNOWN

    def _method_kind(self, receiver: Kind, method: str) -> Kind:
        if receiver.is_jax or receiver is Kind.NUMPY:
            if method in CONCRETIZING_METHODS:
                return Kind.STATIC
            if method in ARRAY_METHODS:
                if receiver is Kind.NUMPY:
                    return Kind.NUMPY
                return self._array_result([receiver])
        return Kind.UNKNOWN


def _asks_the_object(node: ast.Call, receiver: Value | None, arguments: list[Value]) -> bool:
    """`model.number_of_joints()`: a method no array has, of a traced object, given nothing
    traced. It answers from the object, as often from its static structure (a Python int)
    as from its leaves: what it gives is unknown."""
    return (
        receiver is not None
        and isinstance(node.func, ast.Attribute)
        and node.func.attr not in ARRAY_METHODS
        and not any_traced(arguments)
    )


def _array_only_index(index: ast.expr) -> bool:
    """An index only an array takes: a tuple with a slice or `...` (`x[:, 0]`, `x[..., 1]`)."""
    return isinstance(index, ast.Tuple) and any(
        isinstance(part, ast.Slice) or (isinstance(part, ast.Constant) and part.value is ...)
        for part in index.elts
    )


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
    )


def _may_be_static(node: ast.Call, resolver: Resolver) -> bool:
    """A call that may give a Python value or a pytree even from traced arguments."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in _NOT_ARRAY_CALLS or name[:1].isupper():
        return True  # a class: an object
    qualname = resolver.qualname(func) or ""
    return qualname.startswith(_NOT_ARRAY_MODULES)


def _dict_call(args: list[Value], keywords: dict[str | None, Value]) -> Value:
    """`dict(a=x, b=y)`, `dict(other)`: a dict, with its items where known."""
    if not args and None not in keywords:
        return Container("dict", tuple(keywords.values()), tuple(keywords))
    if len(args) == 1 and not keywords:
        source = args[0]
        if type(source) is Container and source.form == "dict":
            return source
        if type(source) is Kind and source.is_jax:
            return Container("dict", leaf=source)  # a pytree of arrays copied into a dict
    return Container("dict")


def _given_tracers(summary: Value, traced_summary: Value | None) -> Value:
    """What a helper returns when given only tracers: where its summary (its parameters
    unknown) is unknown, what it makes of tracers. `double(x)` returning `x * 2` gives a
    tracer; of a sequence or dict (`mu, sd = stats(x)`), the items its summary leaves
    unknown."""
    if summary is Kind.UNKNOWN:
        # A tracer only: a sequence or dict is read item by item, where the summary knows
        # its form.
        return traced_summary if traced_summary is Kind.TRACED else summary
    if (
        type(summary) is not Container
        or summary.items is None
        or Kind.UNKNOWN not in summary.items
        or type(traced_summary) is not Container
        or traced_summary.form != summary.form
        or traced_summary.keys != summary.keys
        or traced_summary.items is None
        or len(traced_summary.items) != len(summary.items)
    ):
        return summary
    items = zip(summary.items, traced_summary.items, strict=True)
    return replace(summary, items=tuple(t if s is Kind.UNKNOWN else s for s, t in items))


def _gradient_result(
    function: Function, args: list[Value], traced: bool, summary: Value | None
) -> Value:
    """`grad(f)(x)` is shaped like `x`; `value_and_grad(f)(x)` is `(value, gradient)`; with
    `has_aux`, the auxiliary output is what `f` returns second, its arrays JAX arrays."""
    aux: Value = Kind.UNKNOWN
    if type(summary) is Container and summary.items is not None and len(summary.items) == 2:
        aux = called_result(summary.items[1], traced)
    argnums = function.argnums
    if argnums is None:
        grads: Value = Kind.UNKNOWN
    elif type(argnums) is int:
        inside = -len(args) <= argnums < len(args)
        grads = as_jax(args[argnums], traced) if inside else Kind.UNKNOWN
    else:
        grads = Container(
            "tuple",
            tuple(
                as_jax(args[i], traced) if -len(args) <= i < len(args) else Kind.UNKNOWN
                for i in argnums
            ),
        )
    if function.transform == "jacobian":
        # jacfwd/jacrev/hessian of an array is an array; of a pytree, a nested pytree.
        if type(grads) is not Kind:
            grads = Kind.UNKNOWN
        return Container("tuple", (grads, aux)) if function.has_aux else grads
    if function.transform == "grad":
        return Container("tuple", (grads, aux)) if function.has_aux else grads
    value: Value = Kind.TRACED if traced else Kind.ARRAY
    if function.has_aux:
        value = Container("tuple", (value, aux))
    return Container("tuple", (value, grads))


def _isinstance_test(test: ast.expr) -> tuple[str, list[ast.expr], bool] | None:
    """`isinstance(name, T)` or `isinstance(name, (T, U))`, maybe under `not`: (the name,
    the type expressions, whether negated)."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    if negated:
        test = test.operand
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[0], ast.Name)
    ):
        return None
    types = test.args[1]
    return test.args[0].id, (types.elts if isinstance(types, ast.Tuple) else [types]), negated


def _handlers(prefix: str) -> dict[type, Callable]:
    """The interpreter's `_stmt_X` / `_expr_X` methods by node type (a lookup by name per
    node was a tenth of the interpreter's time)."""
    return {
        getattr(ast, name.removeprefix(prefix)): method
        for name, method in vars(FlowInterpreter).items()
        if name.startswith(prefix) and hasattr(ast, name.removeprefix(prefix))
    }


_STATEMENT_HANDLERS = _handlers("_stmt_")
_EXPRESSION_HANDLERS = _handlers("_expr_")


def _pattern_names(pattern: ast.pattern) -> list[str]:
    names = []
    for node in ast.walk(pattern):
        name = getattr(node, "name", None) or getattr(node, "rest", None)
        if isinstance(name, str):
            names.append(name)
    return names


def _concatenated(op: ast.operator, left: Value, right: Value) -> Container | None:
    """`[a] + [b]` and `xs += [c]`: Python lists (or tuples) joined are a Python list (or
    tuple), never an array."""
    if not (isinstance(op, ast.Add) and type(left) is Container and type(right) is Container):
        return None
    if left.form != right.form or left.form not in ("list", "tuple"):
        return None
    if left.items is None or right.items is None:
        return Container(left.form)
    return Container(left.form, left.items + right.items)


def _import_binding(alias: ast.alias) -> str:
    """The name an import binds (`import a.b` binds `a`), which the interpreter unbinds."""
    return alias.asname or alias.name.split(".")[0]


def plain_bindings(statements: list[ast.stmt]) -> dict[str, Value] | None:
    """What top-level statements that are all imports and undecorated defs bind, as
    `FlowInterpreter` finds it without running them (most units are one def, or imports): each def
    its function, each import unbinds its names. None when a statement needs the interpreter:
    another statement, a decorator, or a default or return annotation whose evaluation may
    bind a name (a walrus; a subscript, which refines the name it indexes)."""
    bound: dict[str, Value] = {}
    for statement in statements:
        if type(statement) is ast.Import or type(statement) is ast.ImportFrom:
            for alias in statement.names:
                bound.pop(_import_binding(alias), None)
        elif (
            type(statement) is ast.FunctionDef or type(statement) is ast.AsyncFunctionDef
        ) and not (statement.decorator_list or _header_may_bind(statement)):
            bound[statement.name] = Function(statement.name)
        else:
            return None
    return bound


def _header_may_bind(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """May evaluating the defaults and return annotation of `node` (what a def runs) bind a
    name?"""
    evaluated = [*node.args.defaults, *node.args.kw_defaults, node.returns]
    return any(
        type(part) in _MAY_BIND
        for expr in evaluated
        if expr is not None and type(expr) is not ast.Constant and type(expr) is not ast.Name
        for part in ast.walk(expr)
    )


_MAY_BIND = frozenset({ast.NamedExpr, ast.Subscript})
