"""Per-unit summary: the functions a unit defines, the transformations it applies, the calls it
makes and the module-level names it binds or mutates. Module facts are rebuilt from these.

A summary depends only on the unit's text and the module's import aliases, so it is cached
on the unit and reused until one of the two changes.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.free_writes import FreeWrites, mutated_name
from jax_lsp.analysis.imports import Resolver, import_bindings, record_local_imports
from jax_lsp.analysis.nodes import CHILD_GETTERS, all_params, argument_of, child_nodes
from jax_lsp.analysis.records import direct_init
from jax_lsp.analysis.static_tests import decided_test
from jax_lsp.analysis.transforms import (
    OPTAX_HYPERPARAMS,
    OPTAX_LEARNING_RATE_FIRST,
    OPTAX_SCHEDULE,
    OPTAX_TRANSFORMATIONS,
    OPTAX_UPDATE_FUNCTION,
    OPTIMIZER_UPDATES,
    PARTIAL,
    RULE_REGISTRATIONS,
    TRANSFORMS,
    TREE_MAPS,
    TransformSpec,
)
from jax_lsp.analysis.unit_memo import Keyed, per_unit

if TYPE_CHECKING:
    from jax_lsp.analysis.document import UnitSource

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_UNBOUND = object()
_TREE_MAP_NAMES = frozenset(name.rpartition(".")[2] for name in TREE_MAPS)
# What a linen module's methods run: `model.apply(variables, x)` and `model.init(rngs, x)`
# (`init_with_output` too) call `__call__(x)`, or the method their `method=` names.
LINEN_RUNS = frozenset({"apply", "init", "init_with_output"})
# Calls that run the method their `method=` names: those, and a TrainState's `apply_fn`.
_METHOD_KEYWORD_CALLS = LINEN_RUNS | {"apply_fn"}
# The calls that register the class they are given as a PyTree (or a static type): the class
# is then no argument handed to unknown code (`analysis/pytrees.py` decides which classes are).
PYTREE_REGISTRATIONS = frozenset(
    f"jax.tree_util.{name}"
    for name in (
        *("register_pytree_node", "register_pytree_with_keys", "register_pytree_node_class"),
        *("register_pytree_with_keys_class", "register_dataclass", "register_static"),
    )
)


@direct_init
@dataclass(frozen=True)
class FunctionRef:
    """How a transformation or a call names its function, resolved later against all defs."""

    name: str  # bare name, "Cls.method" for self.method / Cls.method, "obj.attr"
    scopes: tuple[str, ...]  # enclosing function paths, innermost last
    node: FunctionNode | None = None  # an inline lambda, or the definition a decorator names
    # Arguments fixed by `functools.partial(f, *args, **kwargs)` (or the `self` of a bound
    # method): Python values, not traced.
    bound_positional: int = 0
    bound_keywords: frozenset[str] = frozenset()
    # `self.method`: `bound_positional` counts `self`, which a staticmethod does not take.
    bound_self: bool = False
    # Leading call arguments that are not the function's own (`model.apply(variables, x)`).
    leading_args: int = 0
    # `self.encoder.apply`: the class whose attribute (`encoder`) holds the object; `name` is
    # then "encoder.apply".
    owner_class: str | None = None
    # `model.apply(variables, x, method=Model.encode)` (or `method="encode"`): the method a
    # linen module's `apply` runs instead of `__call__`.
    apply_method: str | None = None
    # `Model(...).apply`, `Env().step`: a method of an instance made where it is named; `name`
    # is then "Model.apply" (the class, if `Model` is one, and the method).
    new_instance: bool = False
    # A local name assigned what a call of this function returns (`lr = make_schedule(n)`):
    # the function the factory returns, when each of its returns names one def of its body.
    returned_from: str | None = None


@dataclass
class Application:
    """A transformation applied to a function: decorator, `jax.jit(f)`, `lax.scan(body, ...)`."""

    spec: TransformSpec
    target: FunctionRef
    keywords: dict[str, ast.expr]
    enclosing: FunctionNode | None  # the function whose body applies it (None: module level)
    node: ast.AST
    # The call that runs the transformed function at once: `jax.grad(f)(x)` (None: not called
    # where it is made).
    call: ast.Call | None = None
    # `jax.jit(f, **options)`: the name whose keywords the transformation also takes ("": not
    # a name; None: no `**`).
    forwarded: str | None = None


@dataclass
class CallSite:
    caller: FunctionNode | None
    callee: FunctionRef
    node: ast.Call

    @cached_property
    def argument_names(self) -> frozenset[str]:
        """The names the call passes as they are (`f(a, b=c)`: a and c): asked only where a
        module makes refs, so found on demand (a module has thousands of calls)."""
        names = [arg.id for arg in self.node.args if isinstance(arg, ast.Name)]
        names += [kw.value.id for kw in self.node.keywords if isinstance(kw.value, ast.Name)]
        return frozenset(names)


@dataclass
class FunctionRecord:
    path: str  # "f", "outer.body", "Model.calc"
    node: FunctionNode
    class_name: str | None  # the class it is a method of
    parent: FunctionNode | None  # the enclosing function


@dataclass(frozen=True)
class ClassRecord:
    name: str
    node: ast.ClassDef
    decorators: tuple[str, ...]  # resolved qualnames of the decorators
    bases: tuple[str, ...]  # resolved qualnames of the bases ("" for one of the module)
    # Resolved qualnames of the calls its annotated fields are given (`struct.field(...)`).
    field_specifiers: frozenset[str] = frozenset()


@dataclass
class UnitSummary:
    functions: list[FunctionRecord] = field(default_factory=list)
    applications: list[Application] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    classes: list[ClassRecord] = field(default_factory=list)
    # Module-level names: bound at the top level, or written through `global` / mutated anywhere.
    top_level_bindings: list[str] = field(default_factory=list)
    global_writes: set[str] = field(default_factory=set)
    mutated_names: set[str] = field(default_factory=set)
    # Calls at module level whose qualname matters to module facts, e.g. register_pytree_node.
    module_calls: list[tuple[str, ast.Call]] = field(default_factory=list)
    lambdas: list[ast.Lambda] = field(default_factory=list)  # every lambda of the unit
    # `name = lambda ...` outside a class body: (the path the name has as a function, "g" or
    # "outer.g"; the lambda). Transforming or passing `name` then means that lambda.
    named_lambdas: list[tuple[str, ast.Lambda]] = field(default_factory=list)
    # Names passed as positional arguments to any module-level call (`register(Model, ...)`).
    module_call_arguments: set[str] = field(default_factory=set)
    # Names its functions write without owning them (`jax_lsp.analysis.free_writes`).
    free_writes: frozenset[str] = frozenset()
    # The names its top-level functions write only as set-up: (name, function, names read
    # before its writes), `FreeWrites.set_up`.
    set_up_writes: tuple[tuple[str, str, frozenset[str]], ...] = ()
    # Objects whose `apply` is passed as `apply_fn=` (a flax TrainState's `state.apply_fn`):
    # (the name holding one, False) for `model.apply`, (the class, True) for `CNN().apply`.
    apply_fns: list[tuple[str, bool]] = field(default_factory=list)
    # `name[index]` read in a function: (the function, `name`, the subscript). On an instance
    # of a class of the module that defines `__getitem__`, Python runs that method there.
    item_reads: list[tuple[FunctionNode, str, ast.Subscript]] = field(default_factory=list)
    # `name = Callee(...)` assignments: (the enclosing function, None at module level; name;
    # callee). An instance when the callee is a class of the module.
    constructions: list[tuple[FunctionNode | None, str, str]] = field(default_factory=list)
    # Decorators that are no transformation of JAX's (maybe a wrapper of the module's that
    # applies one): (the decorator, the function it decorates, the enclosing function).
    decorations: list[tuple[ast.expr, FunctionNode, FunctionNode | None]] = field(
        default_factory=list
    )
    # Rules registered on a custom-derivative function: (its name, the rule, where the rule
    # takes the non-differentiable arguments: "same" or "first", the registering node, the
    # registering method: "defvjp" or "defjvp").
    custom_rules: list[tuple[str, FunctionRef, str, ast.AST, str]] = field(default_factory=list)
    # `lax.switch(i, branches, x)` whose `branches` names no list or tuple display of the unit:
    # the application with `branches` as its target's name, and the functions and lambdas
    # around the call (a parameter or local of theirs of that name is not the module's).
    branch_lists: list[tuple[Application, tuple[FunctionNode, ...]]] = field(default_factory=list)
    # Objects a call makes, by holder: ("", name) for `name = Callee(...)` at module level,
    # (class, attr) for `self.attr = Callee(...)` in a method; with the callee's qualname
    # (a class of the module: its name).
    objects: list[tuple[str, str, str]] = field(default_factory=list)
    # Module-level names bound to a transformation of a lambda (`f = nnx.jit(lambda x: ...)`).
    transformed_lambdas: list[tuple[str, ast.Lambda]] = field(default_factory=list)
    # Calls of a name bound to a lambda (through a transformation or `partial`).
    lambda_calls: list[CallSite] = field(default_factory=list)
    # Functions optax runs inside an optimizer's update: schedules
    # (`optax.adam(learning_rate=schedule)`, applications of OPTAX_SCHEDULE) and the update
    # function of a `GradientTransformation(init, update)` (OPTAX_UPDATE_FUNCTION), made where
    # the optax call is.
    schedules: list[Application] = field(default_factory=list)
    # Calls that run an optimizer's update (`tx.update(g, s)`, `state.apply_gradients(...)`)
    # inside a function: (the function, the call).
    optimizer_updates: list[tuple[FunctionNode, ast.Call]] = field(default_factory=list)
    # Module-level assignments of a name: the elements of the list or tuple display it is
    # assigned (None: it is assigned something else).
    module_displays: list[tuple[str, tuple[ast.expr, ...] | None]] = field(default_factory=list)


def _partial_ref(
    call: ast.Call, scopes: tuple[str, ...], class_name: str | None
) -> FunctionRef | None:
    """`functools.partial(f, a, k=v)`: a reference to `f` with its first argument and `k` bound."""
    if not call.args or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    inner = _function_ref(call.args[0], scopes, class_name)
    if inner is None:
        return None
    return replace(
        inner,
        bound_positional=inner.bound_positional + len(call.args) - 1,
        bound_keywords=inner.bound_keywords | {k.arg for k in call.keywords if k.arg},
    )


def _function_ref(expr: ast.expr, scopes: tuple[str, ...], class_name: str | None):
    if isinstance(expr, ast.Lambda):
        return FunctionRef("<lambda>", scopes, expr)
    if isinstance(expr, ast.Name):
        return FunctionRef(expr.id, scopes)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        owner = expr.value.id
        if owner == "self" and class_name:  # a bound method: `self` is fixed, not passed
            return FunctionRef(f"{class_name}.{expr.attr}", (), bound_positional=1, bound_self=True)
        if owner == "cls" and class_name:
            return FunctionRef(f"{class_name}.{expr.attr}", ())
        return FunctionRef(f"{owner}.{expr.attr}", ())
    if (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Attribute)
        and isinstance(expr.value.value, ast.Name)
        and expr.value.value.id == "self"
        and class_name
    ):  # `self.encoder.apply(...)`: a method of the object an attribute holds
        return FunctionRef(f"{expr.value.attr}.{expr.attr}", (), owner_class=class_name)
    if (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Call)
        and isinstance(expr.value.func, ast.Name)
    ):  # `Model(...).apply`: a method of the new instance (found only if `Model` is a class)
        return FunctionRef(f"{expr.value.func.id}.{expr.attr}", (), new_instance=True)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        # `Model(...)(x)`: the new instance's `__call__` (found only if `Model` is a class).
        return FunctionRef(f"{expr.func.id}.__call__", (), bound_positional=1)
    return None


def function_ref_of(
    expr: ast.expr, scopes: tuple[str, ...], class_name: str | None, resolver: Resolver
) -> FunctionRef | None:
    """The function an argument expression names (`step`, `model.apply`, `partial(f, a)`),
    seen from a function whose enclosing paths are `scopes` (a method of `class_name`)."""
    if isinstance(expr, ast.Call):
        if resolver.qualname(expr.func) in PARTIAL:
            return _partial_ref(expr, scopes, class_name)
        return None
    return _function_ref(expr, scopes, class_name)


def _forwarded_keywords(call: ast.Call) -> str | None:
    """The name in `f(..., **name)` ("" for another expression; None: no `**`)."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return keyword.value.id if type(keyword.value) is ast.Name else ""
    return None


def transform_of(expr: ast.expr, resolver: Resolver):
    """The spec and keywords of `jax.jit`, `jax.jit(**kw)` or `partial(jax.jit, **kw)`."""
    qualname = resolver.qualname(expr)
    if qualname in TRANSFORMS:
        return TRANSFORMS[qualname], {}
    if isinstance(expr, ast.Call):
        keywords = {kw.arg: kw.value for kw in expr.keywords if kw.arg}
        callee = resolver.qualname(expr.func)
        if callee in PARTIAL and expr.args:
            inner = resolver.qualname(expr.args[0])
            if inner in TRANSFORMS:
                return TRANSFORMS[inner], keywords
        elif callee in TRANSFORMS and not expr.args:
            return TRANSFORMS[callee], keywords  # jax.jit(static_argnames=...) as a decorator
    return None


BindingKey = tuple[tuple[str, ...], str]
# The summary's fields a statement of a top-level class's body may add to: lists, then sets.
_LIST_FIELDS = (
    *("functions", "applications", "calls", "lambdas", "decorations", "custom_rules"),
    *("constructions", "apply_fns", "named_lambdas", "branch_lists", "schedules"),
    *("optimizer_updates", "lambda_calls", "objects", "item_reads"),
)
_DISPLAYS = (ast.List, ast.Tuple)
_SET_FIELDS = ("mutated_names", "global_writes")


@dataclass(frozen=True)
class _MemberPart:
    """What walking one statement of a top-level class's body (a method, a field) added to
    its unit's summary, and what the walk read from outside it (`context`): the class's name
    and the class-level names bound before it (to functions, and to list or tuple displays).
    Kept with the unit's parse by the statement's node, under the import aliases the walk
    resolved with (`_summary_keeping_parts`), so that the next version's parse, which an edit
    in one method of a long class splices from this one (`UnitSource.spliced_from`, sharing
    the other members' nodes), walks that method alone."""

    context: tuple
    lists: tuple[tuple[str, tuple], ...]
    sets: tuple[tuple[str, frozenset[str]], ...]
    free_writes: frozenset[str]  # settled into the class body's region
    # Writes to the bindings (False: `_UNBOUND` removes) and displays (True), in order.
    bindings: tuple[tuple[bool, BindingKey, object], ...]


# What each statement of a top-level class's body added to a summary, by the statement.
MemberParts = dict[ast.stmt, _MemberPart]
_NO_PARTS: Mapping[ast.stmt, _MemberPart] = MappingProxyType({})


class _Collector:
    def __init__(
        self, resolver: Resolver, earlier: MemberParts | None = None, recording: bool = False
    ) -> None:
        self.resolver = resolver
        # The parts of an earlier parse that shares members with this one, replayed where what
        # they read is unchanged; this parse's own parts, when recorded (None: not recorded, as
        # for a text analysed once).
        self._earlier: Mapping[ast.stmt, _MemberPart] = earlier or _NO_PARTS
        self.parts: MemberParts | None = {} if recording else None
        # Writes to `_bindings` (False) and `_displays` (True) while a class member is walked
        # for its part.
        self._binding_log: list[tuple[bool, BindingKey, object]] | None = None
        # `_bindings` and `_displays` at the scope of a top-level class's body (`()`).
        self._outermost: dict[str, FunctionRef | None] = {}
        self._outermost_displays: dict[str, tuple[ast.expr, ...]] = {}
        self.summary = UnitSummary()
        self._functions: list[FunctionNode] = []
        # The class of the innermost method at each depth of `_functions` (see
        # `_method_class`), kept as functions are entered: every call asks for it.
        self._method_classes: list[str | None] = [None]
        self._scope_paths: list[tuple[str, ...]] = [()]  # their paths, for each depth
        # Name segments of the enclosing scopes; True marks a class.
        self._segments: list[tuple[str, bool]] = []
        # Names assigned so far, by (scopes, name): the function they still refer to (through
        # `partial` or a transformation), or None when they no longer name a function.
        self._bindings: dict[BindingKey, FunctionRef | None] = {}
        # Names last assigned a list or tuple display, by (scopes, name): its elements (the
        # branches `lax.switch(i, branches, x)` is given by name).
        self._displays: dict[BindingKey, list[ast.expr]] = {}
        self.writes = FreeWrites()
        # Import statements of each enclosing function's own body (None for a class body).
        self._imports: list[list[ast.stmt] | None] = []
        self._open_lambdas: list[ast.Lambda] = []  # the lambdas whose body is being walked

    def visit(self, node: ast.AST) -> None:
        node_type = type(node)
        if node_type is ast.Name:  # the commonest node: only a store matters (free writes)
            if type(node.ctx) is not ast.Load:
                self.writes.name(node)
            return
        handler = _HANDLERS.get(node_type)
        if handler is not None:
            handler(self, node)
            return
        # The children's getter read here, not through a call per node.
        getter = CHILD_GETTERS[node_type]
        if getter is None:
            return
        try:
            children = getter(node)
        except AttributeError:  # a node built by hand without all its fields
            children = child_nodes(node)
        for child in children:
            self.visit(child)

    def generic_visit(self, node: ast.AST) -> None:
        for child in child_nodes(node):
            self.visit(child)

    @property
    def _at_top(self) -> bool:
        return not self._segments

    @property
    def _scopes(self) -> tuple[str, ...]:
        """Paths of the enclosing functions, innermost last (kept beside `_functions`)."""
        return self._scope_paths[-1]

    @property
    def _method_class(self) -> str | None:
        """The class of the innermost method, for resolving `self.method`: a function
        nested in a method closes over its `self` (unless it takes a `self` of its own)."""
        return self._method_classes[-1]

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.writes.enter_opaque()  # decorators and signature run in the enclosing scope
        for decorator in node.decorator_list:
            self.visit(decorator)
        if self._at_top:
            self.summary.top_level_bindings.append(node.name)
        path = ".".join([*(name for name, _ in self._segments), node.name])
        class_name = None
        if self._segments and self._segments[-1][1]:
            class_name = ".".join(name for name, _ in self._segments)
        record = FunctionRecord(
            path, node, class_name, self._functions[-1] if self._functions else None
        )
        self._unbind((self._scopes, node.name))
        self.summary.functions.append(record)
        enclosing = self._functions[-1] if self._functions else None
        for decorator in node.decorator_list:
            registered = _registered_rule(decorator)  # `@f.defjvp`
            if registered is not None and decorator.attr == "defjvp":  # type: ignore[attr-defined]
                self.summary.custom_rules.append(
                    (registered, FunctionRef(path, (), node), "first", decorator, "defjvp")
                )
            found = transform_of(decorator, self.resolver)
            if found:
                spec, keywords = found
                self.summary.applications.append(
                    Application(spec, FunctionRef(path, (), node), keywords, enclosing, decorator)
                )
            elif type(decorator) is ast.Name or (
                type(decorator) is ast.Call and type(decorator.func) is ast.Name
            ):  # `@my_jit`, `@jit_with(static_argnames="n")`
                self.summary.decorations.append((decorator, node, enclosing))
        self._functions.append(node)
        if class_name is None and "self" not in all_params(node):
            self._method_classes.append(self._method_classes[-1])  # closes over the outer's
        else:
            self._method_classes.append(class_name)
        self._scope_paths.append((*self._scope_paths[-1], record.path))
        self._segments.append((node.name, False))
        self.visit(node.args)
        if node.returns:
            self.visit(node.returns)
        self.writes.leave()
        self.writes.enter_function(node)
        self._imports.append([])
        for statement in node.body:
            self.visit(statement)
        record_local_imports(node, self._imports.pop())
        self.writes.leave(node.name)
        self._segments.pop()
        self._method_classes.pop()
        self._scope_paths.pop()
        self._functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        # Lambdas belong to their enclosing function for calls; transforms record them inline.
        self.summary.lambdas.append(node)
        self.writes.enter_opaque()
        self._open_lambdas.append(node)
        self.generic_visit(node)
        self._open_lambdas.pop()
        self.writes.leave()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.writes.enter_opaque()
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        if self._at_top:
            self.summary.top_level_bindings.append(node.name)
            self.summary.classes.append(
                ClassRecord(
                    node.name,
                    node,
                    tuple(self._qualname_of_decorator(d) for d in node.decorator_list),
                    tuple(self.resolver.qualname(b) or "" for b in node.bases),
                    frozenset(
                        self.resolver.qualname(statement.value.func) or ""
                        for statement in node.body
                        if isinstance(statement, ast.AnnAssign)
                        and isinstance(statement.value, ast.Call)
                    ),
                )
            )
        memoised = self.parts is not None and self._at_top and not self._functions
        self._segments.append((node.name, True))
        self._imports.append(None)
        defined: set[str] = set()
        for statement in node.body:
            # A def or class whose name the class defined before sees the bindings of the first
            # one's body: walked.
            name = getattr(statement, "name", None)
            if memoised and name not in defined:
                self._visit_member(statement, node.name)
            else:
                self.visit(statement)
            if name is not None:
                defined.add(name)
        self._imports.pop()
        self._segments.pop()
        self.writes.leave(node.name)

    def _visit_member(self, member: ast.stmt, class_name: str) -> None:
        """Walk a statement of a top-level class's body (a method, mostly), or replay what
        walking it added to the earlier parse's summary when nothing it reads from outside the
        statement has changed; either way, keep what it added."""
        context = (
            class_name,
            tuple(self._outermost.items()),
            tuple(self._outermost_displays.items()),
        )
        part = self._earlier.get(member)
        if part is not None and part.context == context:
            summary = self.summary
            self.parts[member] = part  # type: ignore[index]
            for name, items in part.lists:
                getattr(summary, name).extend(items)
            for name, names in part.sets:
                getattr(summary, name).update(names)
            self.writes.settle(part.free_writes)
            for display, key, value in part.bindings:
                if display:
                    self._display(key, value)  # type: ignore[arg-type]
                elif value is _UNBOUND:
                    self._unbind(key)
                else:
                    self._bind(key, value)  # type: ignore[arg-type]
            return
        summary = self.summary
        lengths = [len(getattr(summary, name)) for name in _LIST_FIELDS]
        before = [frozenset(getattr(summary, name)) for name in _SET_FIELDS]
        settled = self.writes.settled()
        self._binding_log = []
        self.visit(member)
        log, self._binding_log = self._binding_log, None
        part = _MemberPart(
            context,
            tuple(
                (name, tuple(getattr(summary, name)[length:]))
                for name, length in zip(_LIST_FIELDS, lengths, strict=True)
                if len(getattr(summary, name)) > length
            ),
            tuple(
                (name, frozenset(getattr(summary, name)) - old)
                for name, old in zip(_SET_FIELDS, before, strict=True)
                if len(getattr(summary, name)) > len(old)
            ),
            self.writes.settled() - settled,
            tuple(log),
        )
        self.parts[member] = part  # type: ignore[index]

    def _bind(self, key: BindingKey, value: FunctionRef | None) -> None:
        self._bindings[key] = value
        if not key[0]:
            self._outermost[key[1]] = value
        if self._binding_log is not None:
            self._binding_log.append((False, key, value))

    def _unbind(self, key: BindingKey) -> None:
        self._bindings.pop(key, None)
        if not key[0]:
            self._outermost.pop(key[1], None)
        if self._binding_log is not None:
            self._binding_log.append((False, key, _UNBOUND))

    def _display(self, key: BindingKey, elements: list[ast.expr] | None) -> None:
        """`key` now names the list or tuple display of `elements` (None: no display)."""
        if elements is None:
            self._displays.pop(key, None)
            if not key[0]:
                self._outermost_displays.pop(key[1], None)
        else:
            self._displays[key] = elements
            if not key[0]:
                self._outermost_displays[key[1]] = tuple(elements)
        if self._binding_log is not None:
            self._binding_log.append((True, key, elements))

    def _qualname_of_decorator(self, decorator: ast.expr) -> str:
        if isinstance(decorator, ast.Call):
            callee = self.resolver.qualname(decorator.func) or ""
            if callee in PARTIAL and decorator.args:
                return self.resolver.qualname(decorator.args[0]) or ""
            return callee
        return self.resolver.qualname(decorator) or ""

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        mutated = mutated_name(node)  # `x.append(...)`
        if mutated is not None:
            self.summary.mutated_names.add(mutated)
            self.writes.mutated(mutated)
        scopes = self._scopes
        enclosing = self._functions[-1] if self._functions else None
        method_class = self._method_class
        found = transform_of(node.func, self.resolver)
        if found:
            spec, base_keywords = found
            keywords = dict(base_keywords)
            keywords.update({kw.arg: kw.value for kw in node.keywords if kw.arg})
            if spec.function_positions == (0,):
                options = zip(spec.positional_options, node.args[1:], strict=False)
                keywords.update({name: value for name, value in options if name not in keywords})
            forwarded = _forwarded_keywords(node)
            for target in self._transform_targets(spec, node, self._scopes):
                ref = self._target_ref(target, scopes, method_class)
                if ref:
                    self.summary.applications.append(
                        Application(spec, ref, keywords, enclosing, node, forwarded=forwarded)
                    )
            named = self._unit_foreign_branches(spec, node, scopes)
            if named is not None:  # a display of another unit, maybe: the model looks
                application = Application(
                    spec, FunctionRef(named, scopes), keywords, enclosing, node, forwarded=forwarded
                )
                around = (*self._functions, *self._open_lambdas)
                self.summary.branch_lists.append((application, around))
        for given in self._schedules_given(node):
            ref = self._target_ref(given, scopes, method_class)
            if ref is not None:
                self.summary.schedules.append(Application(OPTAX_SCHEDULE, ref, {}, enclosing, node))
        update = self._update_function_given(node)
        if update is not None:
            ref = self._target_ref(update, scopes, method_class)
            if ref is not None:
                application = Application(OPTAX_UPDATE_FUNCTION, ref, {}, enclosing, node)
                self.summary.schedules.append(application)
        if (
            enclosing is not None
            and type(node.func) is ast.Attribute
            and node.func.attr in OPTIMIZER_UPDATES
            and (node.func.attr == "apply_gradients" or len(node.args) >= 2)
        ):
            self.summary.optimizer_updates.append((enclosing, node))
        primal = _registered_rule(node.func)  # `f.defvjp(fwd, bwd)`
        if primal is not None and not node.keywords:
            method = node.func.attr  # type: ignore[attr-defined]
            for rule, role in zip(node.args, RULE_REGISTRATIONS[method], strict=False):
                ref = self._target_ref(rule, scopes, method_class)
                if ref is not None:
                    self.summary.custom_rules.append((primal, ref, role, node, method))
        if type(node.func) is ast.Call:  # `jax.grad(f)(x)`: the transformed `f` runs here
            for application in reversed(self.summary.applications):
                if application.node is not node.func:
                    break
                application.call = node
        ref = self._called_ref(node.func, scopes, method_class)
        if ref and type(node.func) is ast.Attribute and node.func.attr in _METHOD_KEYWORD_CALLS:
            ref = _with_apply_method(ref, node)
        if ref and (ref.node is None or not isinstance(ref.node, ast.Lambda)):
            self.summary.calls.append(CallSite(enclosing, ref, node))
        elif ref:  # `f(x)` of `f = nnx.jit(lambda x: ...)`: what the lambda is given
            self.summary.lambda_calls.append(CallSite(enclosing, ref, node))
        func = node.func
        named = func.attr if type(func) is ast.Attribute else getattr(func, "id", None)
        if named in _TREE_MAP_NAMES and node.args and self.resolver.qualname(func) in TREE_MAPS:
            # `tree_map(f, tree, ...)` calls `f` with the trees' leaves.
            mapped = self._target_ref(node.args[0], scopes, method_class)
            if mapped and mapped.node is None:
                mapped = replace(mapped, leading_args=mapped.leading_args + 1)
                self.summary.calls.append(CallSite(enclosing, mapped, node))
        for keyword in node.keywords:
            value = keyword.value
            if (
                keyword.arg != "apply_fn"
                or not isinstance(value, ast.Attribute)
                or value.attr != "apply"
            ):
                continue
            if isinstance(value.value, ast.Name):  # `TrainState.create(apply_fn=model.apply)`
                self.summary.apply_fns.append((value.value.id, False))
            elif isinstance(value.value, ast.Call) and isinstance(value.value.func, ast.Name):
                self.summary.apply_fns.append((value.value.func.id, True))  # `CNN().apply`
        if self._at_top:
            qualname = self.resolver.qualname(node.func)
            if qualname:
                self.summary.module_calls.append((qualname, node))
            # The class a registration names is a PyTree by that call (`is_registered_pytree`
            # tells which definition of a name defined twice it registers), not a class handed
            # to unknown code.
            registered = qualname in PYTREE_REGISTRATIONS
            self.summary.module_call_arguments.update(
                arg.id
                for index, arg in enumerate(node.args)
                if isinstance(arg, ast.Name) and not (registered and index == 0)
            )

    def _schedules_given(self, node: ast.Call) -> list[ast.expr]:
        """What an optax call may be given as a schedule: the learning rate (by keyword, or
        first), or any hyperparameter of `optax.inject_hyperparams(opt)(...)`."""
        func = node.func
        if type(func) is ast.Call and self.resolver.qualname(func.func) in OPTAX_HYPERPARAMS:
            return [*node.args[:1], *(keyword.value for keyword in node.keywords if keyword.arg)]
        qualname = self.resolver.qualname(func) or ""
        if not qualname.startswith("optax."):
            return []
        given = [kw.value for kw in node.keywords if kw.arg in ("learning_rate", "step_size_fn")]
        if qualname in OPTAX_LEARNING_RATE_FIRST and node.args:
            given.append(node.args[0])
        return given

    def _update_function_given(self, node: ast.Call) -> ast.expr | None:
        """The update function of `optax.GradientTransformation(init, update)`."""
        if self.resolver.qualname(node.func) not in OPTAX_TRANSFORMATIONS:
            return None
        if len(node.args) >= 2:
            return node.args[1]
        return next((k.value for k in node.keywords if k.arg == "update"), None)

    def _called_ref(
        self, func: ast.expr, scopes: tuple[str, ...], method_class: str | None
    ) -> FunctionRef | None:
        """The function a call runs: a name bound to `partial(f, ...)` or `jax.grad(f)` runs
        `f` (with the partial's arguments fixed)."""
        if isinstance(func, ast.Name):
            for depth in range(len(scopes), -1, -1):
                bound = self._bindings.get((scopes[:depth], func.id), _UNBOUND)
                if bound is not _UNBOUND:
                    if bound is None or bound.returned_from is not None:
                        return _function_ref(func, scopes, method_class)
                    return bound
        return _function_ref(func, scopes, method_class)

    def _target_ref(
        self, target: ast.expr, scopes: tuple[str, ...], method_class: str | None
    ) -> FunctionRef | None:
        """The function a transformation receives, seeing through `partial` and through
        another transformation (`jax.jit(jax.grad(f))` traces `f` as jit does)."""
        if isinstance(target, ast.Call) and self.resolver.qualname(target.func) in PARTIAL:
            return _partial_ref(target, scopes, method_class)
        if isinstance(target, ast.Call) and target.args:
            found = transform_of(target.func, self.resolver)
            if found and found[0].function_positions[:1] == (0,):
                return self._target_ref(target.args[0], scopes, method_class)
        if isinstance(target, ast.Name) and (scopes, target.id) in self._bindings:
            return self._bindings[(scopes, target.id)]
        return _function_ref(target, scopes, method_class)

    def _bound_function(self, value: ast.expr, name: str) -> FunctionRef | None:
        """What a name assigned `value` refers to as a function: `partial(f, ...)` and
        `jax.jit(f)` keep referring to `f` (with its bound arguments), a lambda to itself, a
        call of a named function to what it returns (`references` finds the def, if any);
        anything else, nothing."""
        if isinstance(value, ast.Lambda):
            return FunctionRef("<lambda>", self._scopes, value)
        if not isinstance(value, ast.Call):
            return None
        if self.resolver.qualname(value.func) in PARTIAL:
            return _partial_ref(value, self._scopes, self._method_class)
        found = transform_of(value.func, self.resolver)
        if found and value.args and found[0].function_positions[:1] == (0,):
            return self._target_ref(value.args[0], self._scopes, self._method_class)
        if self._scopes and type(value.func) is ast.Name and not found:
            # In a function (at module level, the model's values say what a factory returns).
            return FunctionRef(name, self._scopes, returned_from=value.func.id)
        return None

    def _transform_targets(
        self, spec: TransformSpec, node: ast.Call, scopes: tuple[str, ...]
    ) -> list[ast.expr]:
        keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
        targets = [node.args[i] for i in spec.function_positions if i < len(node.args)]
        targets += [keywords[name] for name in spec.function_keywords if name in keywords]
        if spec.branches_position is not None:
            branches = (
                node.args[spec.branches_position]
                if spec.branches_position < len(node.args)
                else keywords.get("branches")
            )
            if isinstance(branches, ast.List | ast.Tuple):
                targets += branches.elts
            elif isinstance(branches, ast.Name):
                targets += self._display_named(branches.id, scopes)
        return targets

    def _unit_foreign_branches(
        self, spec: TransformSpec, node: ast.Call, scopes: tuple[str, ...]
    ) -> str | None:
        """The name `lax.switch` is given its branches by when no display of this unit binds
        it (None: the branches are a display, or bound here)."""
        if spec.branches_position is None:
            return None
        branches = argument_of(node, spec.branches_position, "branches")
        if not isinstance(branches, ast.Name):
            return None
        name = branches.id
        bound_here = any(
            (scopes[:depth], name) in self._bindings for depth in range(len(scopes) + 1)
        )
        if bound_here or self._display_named(name, scopes):
            return None
        return name

    def _display_named(self, name: str, scopes: tuple[str, ...]) -> list[ast.expr]:
        """The elements of the list or tuple display `name` was last assigned, seen from
        `scopes` (its own scope first, then the enclosing ones)."""
        for depth in range(len(scopes), -1, -1):
            found = self._displays.get((scopes[:depth], name))
            if found is not None:
                return found
        return []

    def _note_store(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            if self._at_top:
                self.summary.top_level_bindings.append(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._note_store(element)
        elif isinstance(target, ast.Starred):
            self._note_store(target.value)
        elif isinstance(target, ast.Subscript | ast.Attribute):
            base = target.value
            while isinstance(base, ast.Subscript | ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id not in ("self", "cls"):
                self.summary.mutated_names.add(base.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            self._note_store(target)
        if len(node.targets) == 1 and type(node.value) is ast.Call:
            self._note_object(node.targets[0], node.value)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            key = (self._scopes, node.targets[0].id)
            self._bind(key, self._bound_function(node.value, node.targets[0].id))
            self._note_construction(node.targets[0], node.value)
            elements = node.value.elts if type(node.value) in _DISPLAYS else None
            self._display(key, elements)
            if self._at_top:
                shown = None if elements is None else tuple(elements)
                self.summary.module_displays.append((node.targets[0].id, shown))
            bound = self._bindings[key]
            lambda_node = bound.node if bound else None
            if self._at_top and type(node.value) is ast.Call and type(lambda_node) is ast.Lambda:
                # `f = nnx.jit(lambda x: ...)`
                self.summary.transformed_lambdas.append((key[1], lambda_node))
            if type(node.value) is ast.Lambda and not (self._segments and self._segments[-1][1]):
                path = ".".join([*self._scope_paths[-1][-1:], node.targets[0].id])
                self.summary.named_lambdas.append((path, node.value))

    def _note_object(self, target: ast.expr, value: ast.Call) -> None:
        """`name = Callee(...)` at module level, `self.attr = Callee(...)` in a method."""
        if type(target) is ast.Name and self._at_top:
            holder = ("", target.id)
        elif (
            type(target) is ast.Attribute
            and type(target.value) is ast.Name
            and target.value.id == "self"
            and self._method_class is not None
        ):
            holder = (self._method_class, target.attr)
        else:
            return
        callee = self.resolver.qualname(value.func) or getattr(value.func, "id", None)
        if callee:
            self.summary.objects.append((*holder, callee))

    def _note_construction(self, target: ast.expr, value: ast.expr | None) -> None:
        if self._segments and self._segments[-1][1]:
            return  # a class attribute
        if type(target) is ast.Name and type(value) is ast.Call and type(value.func) is ast.Name:
            enclosing = self._functions[-1] if self._functions else None
            self.summary.constructions.append((enclosing, target.id, value.func.id))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.generic_visit(node)
        self._note_store(node.target)
        if isinstance(node.target, ast.Name) and self._at_top:
            self.summary.top_level_bindings.append(node.target.id)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self._note_store(node.target)
            self._note_construction(node.target, node.value)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.generic_visit(node)
        self._note_store(node.target)

    visit_AsyncFor = visit_For

    def visit_If(self, node: ast.If) -> None:
        taken = decided_test(node.test, self.resolver, self._bound_in_functions)
        if taken is None:
            self.generic_visit(node)
            return
        # A branch switched off (`if False:`, or for the array library not imported) never
        # runs: nothing in it is applied.
        self.visit(node.test)
        for statement in node.body if taken else node.orelse:
            self.visit(statement)

    def _bound_in_functions(self, name: str) -> bool:
        """`name` is a parameter or a local of an enclosing function (or lambda)."""
        return any(
            name in all_params(function)
            or any(
                isinstance(n, ast.Name) and n.id == name and type(n.ctx) is ast.Store
                for n in ast.walk(function)
            )
            for function in (*self._functions, *self._open_lambdas)
        )

    def visit_Global(self, node: ast.Global) -> None:
        self.summary.global_writes.update(node.names)
        self.writes.declare(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.writes.declare(node.names)

    def visit_Subscript(self, node: ast.Subscript | ast.Attribute) -> None:
        if type(node.ctx) is ast.Store:
            self.writes.mutated(mutated_name(node))
        if type(node.value) is not ast.Name:  # `name.attr`: a loaded name, nothing to note
            self.visit(node.value)
        if type(node) is ast.Subscript:
            self.visit(node.slice)
            if type(node.ctx) is ast.Load and type(node.value) is ast.Name and self._functions:
                self.summary.item_reads.append((self._functions[-1], node.value.id, node))

    visit_Attribute = visit_Subscript

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        if self._at_top:
            self.summary.top_level_bindings.extend(import_bindings([node]))
        elif self._imports and self._imports[-1] is not None:
            self._imports[-1].append(node)

    visit_ImportFrom = visit_Import


# The collector's handlers by node type (NodeVisitor's lookup by name is slower).
_HANDLERS = {
    getattr(ast, name.removeprefix("visit_")): handler
    for name, handler in vars(_Collector).items()
    if name.startswith("visit_") and hasattr(ast, name.removeprefix("visit_"))
}


def _unit_summary(source: UnitSource, aliases: Keyed[Resolver]) -> UnitSummary:
    """The summary of a unit's parse under the module's import aliases. A parse spliced from
    another (an edit inside a class, `UnitSource.spliced_from`) is a version analysed after
    another, and before the next: what its class's members add is kept, and replayed from the
    parse it was spliced from."""
    if source.spliced_from is None:
        return summarize(source.tree, aliases.value)  # type: ignore[arg-type]
    return _summary_keeping_parts(source, aliases)


unit_summary = per_unit(_unit_summary)


def summary_for_later_versions(source: UnitSource, aliases: Keyed[Resolver]) -> UnitSummary:
    """`unit_summary`, with what each statement of its top-level class's body adds kept with
    the parse, for the next version's (a document analysed again after an edit: see
    `Lineage.analysed_again`). A summary made without them (the text was first summarized for
    a model that is not analysed again) is walked again for them, once."""
    summary = source.memo.kept(_unit_summary, aliases)
    if summary is None:
        summary = _summary_keeping_parts(source, aliases)
        source.memo.keep(summary, _unit_summary, aliases)
    elif summary.classes and source.memo.kept(_MemberPart, aliases) is None:  # type: ignore[attr-defined]
        _summary_keeping_parts(source, aliases)
    return summary  # type: ignore[return-value]


def _summary_keeping_parts(source: UnitSource, aliases: Keyed[Resolver]) -> UnitSummary:
    """The unit's summary, what each statement of a top-level class's body adds kept with the
    parse under the aliases (replayed from the parse it was spliced from, where kept there
    under the same aliases)."""
    earlier_source = source.spliced_from() if source.spliced_from is not None else None
    earlier = None
    if earlier_source is not None:
        earlier = earlier_source.memo.kept(_MemberPart, aliases)
    collector = _Collector(aliases.value, earlier, recording=True)  # type: ignore[arg-type]
    collector.visit(source.tree)  # type: ignore[arg-type]
    summary = collector.summary
    summary.free_writes = collector.writes.result
    summary.set_up_writes = collector.writes.set_up
    if summary.classes:
        source.memo.keep(collector.parts, _MemberPart, aliases)
    return summary


def summarize(tree: ast.Module, resolver: Resolver) -> UnitSummary:
    """The unit's summary."""
    collector = _Collector(resolver)
    collector.visit(tree)
    collector.summary.free_writes = collector.writes.result
    collector.summary.set_up_writes = collector.writes.set_up
    return collector.summary


def _with_apply_method(ref: FunctionRef, call: ast.Call) -> FunctionRef | None:
    """`model.apply(..., method=...)` (or `init`) runs the named method, not `__call__`; a
    method given any other way (a function, a variable) is not followed (None)."""
    for keyword in call.keywords:
        if keyword.arg is None:  # `**options` may hold `method=`
            return None
        if keyword.arg != "method":
            continue
        value = keyword.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return replace(ref, apply_method=value.value)
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            return replace(ref, apply_method=value.attr)  # `method=Model.encode`
        return None
    return ref


def _registered_rule(expr: ast.expr) -> str | None:
    """The function `f` of `f.defvjp` / `f.defjvp` (registering differentiation rules)."""
    if (
        isinstance(expr, ast.Attribute)
        and expr.attr in RULE_REGISTRATIONS
        and isinstance(expr.value, ast.Name)
    ):
        return expr.value.id
    return None
