"""Transformations on methods (JAX401, JAX402): `self` must be a PyTree, or an immutable
hashable static value; and what a PyTree class makes its children (JAX403)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from jax_lsp.analysis.attributes import (
    CONSTRUCTORS,
    bound_method_transforms,
    construction_helpers,
    self_reads,
)
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.nodes import contains, walk_nodes
from jax_lsp.analysis.pytrees import is_registered_pytree as registered_pytree
from jax_lsp.analysis.summary import (
    Application,
    ClassRecord,
    FunctionRef,
    transform_of,
)
from jax_lsp.analysis.traced import TraceInfo, positional_params, trace_info_for
from jax_lsp.codeactions.aux_data import aux_data_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext, Spelled, prefiltered
from jax_lsp.findings import Applicability, Codemod, Finding, Severity

# What a class may be decorated with or derive from and still be an ordinary Python class.
_PLAIN_DECORATORS = frozenset(["dataclasses.dataclass", "functools.total_ordering", "typing.final"])
_PLAIN_BASES = frozenset(["builtins.object", "abc.ABC"])
_DATACLASS = "dataclasses.dataclass"
_NOT_METHODS = frozenset(["builtins.staticmethod", "builtins.classmethod", "builtins.property"])
# Transformations whose traced arguments must be valid JAX types.
_CHECKED_TRANSFORMS = frozenset(
    ["jit", "pmap", "vmap", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian"]
)
_JIT_LIKE = frozenset(["jit"])
# What a method's lines spell where it hands jit an attribute of its object (`jax.jit(self.f)`).
# The unit key holds the module's attribute writes only for units that spell both.
_JITS_AN_ATTRIBUTE_OF_SELF = (Spelled(("(self.",)), Spelled(("jit",)))
# Methods that may set attributes while the object is being built.


def is_registered_pytree(record: ClassRecord, model: ModuleModel) -> bool:
    """Is the class registered as a PyTree (or as a static type) in this module?"""
    return registered_pytree(record, model.summaries)


def is_plain_class(record: ClassRecord, model: ModuleModel, _seen: frozenset[str] = frozenset()):
    """Is the class known to be an ordinary Python class, not a PyTree? Unknown decorators,
    bases, metaclasses, or the class being handed to some module-level call all answer no."""
    if record.name in _seen or is_registered_pytree(record, model):
        return False
    if record.node.keywords or record.name in model.classes_passed_to_calls:
        return False
    if any(decorator not in _PLAIN_DECORATORS for decorator in record.decorators):
        return False
    if any(_defines(record.node, name) for name in ("__init_subclass__", "tree_flatten")):
        return False
    for base, qualname in zip(record.node.bases, record.bases, strict=True):
        if qualname in _PLAIN_BASES:
            continue
        local = model.classes.get(base.id) if isinstance(base, ast.Name) else None
        if local is None or not is_plain_class(local, model, _seen | {record.name}):
            return False
    return True


def _defines(node: ast.ClassDef, name: str) -> ast.stmt | None:
    """The `def name` or `name = ...` statement of a class body."""
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.name == name:
            return statement
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in statement.targets
        ):
            return statement
    return None


@dataclass(frozen=True)
class MethodTransform:
    """A transformation decorating a method, and what it does with `self`."""

    decorator: ast.expr
    label: str
    info: TraceInfo
    class_record: ClassRecord


def _transforms_in(
    decorators: list[ast.expr], node: ast.FunctionDef, path: str, ctx: RuleContext
) -> Iterator[tuple[ast.expr, str, TraceInfo]]:
    """Each checked transformation among `decorators` of `node` (at `path`), with its trace."""
    for decorator in decorators:
        found = transform_of(decorator, ctx.resolvers[-1])
        if found is None or found[0].label not in _CHECKED_TRANSFORMS:
            continue
        spec, keywords = found
        application = Application(spec, FunctionRef(path, ()), keywords, None, decorator)
        yield decorator, spec.label, trace_info_for(application, node, lambda annotation: False)


def method_transforms(node: ast.FunctionDef, ctx: RuleContext) -> Iterator[MethodTransform]:
    """The transformations decorating a method of a module-level class whose first
    parameter is `self`."""
    if not node.decorator_list:
        return
    record = ctx.model.records.get(node)
    if record is None or record.class_name not in ctx.model.classes:
        return
    positional = positional_params(node)
    if not positional or positional[0] != "self":
        return
    qualnames = [ctx.qualname(d) for d in node.decorator_list]
    if any(qualname in _NOT_METHODS for qualname in qualnames):
        return
    class_record = ctx.model.class_of_method(node, record.class_name)
    for decorator, label, info in _transforms_in(node.decorator_list, node, record.path, ctx):
        yield MethodTransform(decorator, label, info, class_record)


def classmethod_transforms(node: ast.FunctionDef, ctx: RuleContext) -> Iterator[MethodTransform]:
    """The transformations a `@classmethod` of a module-level class wraps (listed below it)
    that trace its first positional argument: the class object, bound by `classmethod`."""
    record = ctx.model.records.get(node)
    if record is None or record.class_name not in ctx.model.classes:
        return
    qualnames = [ctx.qualname(d) for d in node.decorator_list]
    positional = positional_params(node)
    if "builtins.classmethod" not in qualnames or not positional:
        return
    class_record = ctx.model.class_of_method(node, record.class_name)
    wrapped = node.decorator_list[qualnames.index("builtins.classmethod") + 1 :]
    for decorator, label, info in _transforms_in(wrapped, node, record.path, ctx):
        if positional[0] in info.traced_params:
            yield MethodTransform(decorator, label, info, class_record)


def _decorator_text(transform: MethodTransform, ctx: RuleContext) -> str:
    return "@" + ctx.segment(transform.decorator)


class JitMethodSelf(Rule):
    code = "JAX401"
    name = "jit-method-self"
    summary = "`@jax.jit` (or vmap/grad) on a method whose class is not a PyTree"
    severity = Severity.ERROR
    what_it_does = """
        Flags `@jax.jit`, `@jax.vmap`, `@jax.grad` (and `partial(jax.jit, ...)`) on a method
        when `self` is one of the transformed arguments and the class is an ordinary Python
        class: not registered as a PyTree (`register_pytree_node_class`, `register_dataclass`,
        `register_pytree_node(Cls, ...)`, `flax.struct.dataclass`) and not an `equinox.Module`
        or Flax module. Also flags a transformation under `@classmethod` that traces its first
        argument: the class object itself, never a valid JAX type.
    """
    why_bad = """
        A transformation decorating a method receives `self` as its first argument, and JAX
        only accepts arrays and PyTrees there: the call raises `TypeError: Error interpreting
        argument to <function Model.calc> as an abstract array` ("not a valid JAX type").
        Register the class as a PyTree (arrays as children, other attributes as auxiliary
        data), or jit a module-level function and pass it the arrays. Marking `self` static
        instead needs an immutable, hashable class (see JAX402).
    """
    fix_safety = """
        Three rewrites are offered. Register the class as a PyTree
        (`@jax.tree_util.register_pytree_node_class` with generated `tree_flatten` and
        `tree_unflatten`; a `@dataclass` gets `register_dataclass`), or move the method body
        into a module-level helper jitted with `static_argnames`: both place each attribute
        from what it is given. Arrays, containers holding arrays, and optional arrays
        (`b=None`, read as `if self.b is not None`) are children; attributes annotated or
        given bool/int/str, lists of sizes, functions, and attributes deciding Python control
        flow (`if self.mul:`, `range(self.n)`) are aux data; a Python float is a child unless
        it decides control flow. Both are safe only when every attribute's place is known:
        where one is a guess (a value the module does not show, a container of such values,
        `**kwargs`, an attribute a base class sets), they are unsafe, since an array placed
        in aux data becomes a constant of the compiled code (zero gradients) and a size
        placed among the children a tracer. Unsafe: mark `self` static and add
        `__hash__`/`__eq__` (stale results if the object mutates), offered only when every
        attribute is a hashable Python value (aux data), since the `__hash__` hashes them
        all and an array raises TypeError. Attributes set after construction (by a method,
        or on an instance by top-level code) are flattened too, which makes the registration
        unsafe; where a traced method reads an attribute no registration can carry (set
        where the fix cannot see) and nothing sets one after construction, `self` is marked
        static with its default identity hash and equality instead (unsafe: its attributes
        become constants of the compiled code).
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef)
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Model:
                def __init__(self, x, mul):
                    self.x = x
                    self.mul = mul

                @jax.jit  # error
                def calc(self, y):
                    return self.x * 2 + y if self.mul else y

            model = Model(jnp.array(2.0), True)
            before = model.calc(1.0)
            model.mul = False
            after = model.calc(1.0)
            """,
            raises="TypeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.tree_util.register_pytree_node_class
            class Model:
                def __init__(self, x, mul):
                    self.x = x
                    self.mul = mul

                @jax.jit
                def calc(self, y):
                    return self.x * 2 + y if self.mul else y

                def tree_flatten(self):
                    children = (self.x,)
                    aux_data = (self.mul,)
                    return children, aux_data

                @classmethod
                def tree_unflatten(cls, aux_data, children):
                    (x,) = children
                    (mul,) = aux_data
                    return cls(x=x, mul=mul)

            model = Model(jnp.array(2.0), True)
            before = model.calc(1.0)
            model.mul = False
            after = model.calc(1.0)
            """,
            fixed_check="assert float(before) == 5.0 and float(after) == 1.0",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            class Layer:
                def __init__(self, weights):
                    self.weights = weights

                @partial(jax.jit, static_argnames=("training",))  # error
                def forward(self, x, training=False):
                    return self.weights @ x

                @jax.grad  # error
                def loss(self, x):
                    return jnp.sum(self.weights @ x)

            Layer(jnp.eye(2)).forward(jnp.ones(2))
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Scaler:
                scale = 2.0

                @jax.vmap  # error
                def apply(self, x):
                    return self.scale * x

            Scaler().apply(jnp.ones(3))
            """,
            raises="TypeError",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Grid:
                @classmethod
                @jax.jit  # error
                def zeros(cls, scale):
                    return jnp.zeros(3) + scale

            Grid.zeros(2.0)
            """,
            raises="TypeError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.tree_util.register_pytree_node_class
            class Model:
                def __init__(self, x, mul):
                    self.x = x
                    self.mul = mul

                def tree_flatten(self):
                    return (self.x,), (self.mul,)

                @classmethod
                def tree_unflatten(cls, aux, children):
                    return cls(*children, *aux)

                @jax.jit
                def calc(self, y):
                    return self.x * 2 + y if self.mul else y

            m = Model(jnp.array(2.0), True)
            first = m.calc(1.0)
            m.mul = False
            second = m.calc(1.0)
            """,
            check="assert float(first) == 5.0 and float(second) == 1.0",
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            class Linear(eqx.Module):
                weight: jax.Array

                @jax.jit
                def __call__(self, x):
                    return self.weight @ x

            out = Linear(jnp.eye(2))(jnp.ones(2))
            """,
            check="assert out.tolist() == [1.0, 1.0]",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            class Model:
                def __init__(self, x):
                    self.x = x

                @partial(jax.grad, argnums=1)  # self is not differentiated
                def slope(self, y):
                    return self.x * y

                def calc(self, y):
                    return _calc(self.x, y)

            @jax.jit
            def _calc(x, y):
                return x * 2 + y

            m = Model(jnp.array(2.0))
            value, slope = m.calc(1.0), m.slope(1.0)
            """,
            check="assert float(value) == 5.0 and float(slope) == 2.0",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            class Grid:
                @classmethod
                @partial(jax.jit, static_argnums=0)  # the class is static
                def zeros(cls, scale):
                    return jnp.zeros(3) + scale

            out = Grid.zeros(2.0)
            """,
            check="assert out.tolist() == [2.0, 2.0, 2.0]",
        ),
    )

    def check(self, node: ast.FunctionDef, ctx: RuleContext) -> Iterator[Finding]:
        for transform in method_transforms(node, ctx):
            if "self" not in transform.info.traced_params:
                continue  # self static (JAX402's business), not differentiated or not mapped
            record = transform.class_record
            if not is_plain_class(record, ctx.model):
                return
            yield ctx.finding(
                self,
                transform.decorator,
                f"`{_decorator_text(transform, ctx)}` on method `{node.name}` passes `self` to "
                f"{transform.label}, but `{record.name}` is not a registered PyTree: calling it "
                f"raises TypeError (not a valid JAX type). Register `{record.name}` as a PyTree "
                f"(`@jax.tree_util.register_pytree_node_class` with `tree_flatten`/"
                f"`tree_unflatten`), or transform a module-level function that takes the arrays",
                deferred=(ctx.deferred(Codemod.PYTREE, node),),
            )
        for transform in classmethod_transforms(node, ctx):
            first = positional_params(node)[0]
            yield ctx.finding(
                self,
                transform.decorator,
                f"`{_decorator_text(transform, ctx)}` under `@classmethod` on `{node.name}` "
                f"passes the class `{transform.class_record.name}` itself as `{first}` to "
                f"{transform.label}: a class is not a valid JAX type, so calling it raises "
                f"TypeError. Mark it static (`@partial(jax.jit, static_argnums=0)`) or move "
                f"the transformation onto a module-level function",
            )


def _dataclass_options(record: ClassRecord) -> dict[str, object] | None:
    """The literal keyword options of the class's `@dataclass(...)`; None if it has none."""
    for decorator, qualname in zip(record.node.decorator_list, record.decorators, strict=True):
        if qualname != _DATACLASS:
            continue
        if not isinstance(decorator, ast.Call):
            return {}
        return {
            k.arg: k.value.value for k in decorator.keywords if isinstance(k.value, ast.Constant)
        }
    return None


def _attribute_writes(
    record: ClassRecord, building: frozenset[str] = frozenset()
) -> Iterator[tuple[str, str]]:
    """(method, attribute) for each `self.attr = ...` outside the constructors and the
    methods in `building` (those only the constructors call)."""
    for statement in record.node.body:
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if statement.name in CONSTRUCTORS or statement.name in building:
            continue
        for node in walk_nodes(statement):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == "self"
            ):
                yield statement.name, "..."
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    yield statement.name, target.attr


def _lineage(record: ClassRecord, model: ModuleModel) -> list[ClassRecord]:
    """The class and its ancestors defined in this module, nearest first. The ancestors are
    asked with their bodies (`class_named`), which the rules read (their methods)."""
    lineage, pending = [], [record]
    while pending:
        current = pending.pop(0)
        if current in lineage:
            continue
        lineage.append(current)
        for base in current.node.bases:
            if isinstance(base, ast.Name) and base.id in model.classes:
                pending.append(model.class_named(base.id))
    return lineage


def _inherited(lineage: list[ClassRecord], name: str) -> ast.stmt | None:
    for record in lineage:
        found = _defines(record.node, name)
        if found is not None:
            return found
    return None


class StaticSelfMutable(Rule):
    code = "JAX402"
    name = "static-self-mutable"
    summary = "`self` marked static on a method of a mutable or identity-hashed class"
    severity = Severity.WARNING
    what_it_does = """
        Flags `partial(jax.jit, static_argnums=0)` (or `static_argnames=("self",)`) on a method
        when an attribute the method reads (itself, or through the methods and properties it
        reaches through `self`) is assigned after construction: by a method of the class
        other than `__init__`/`__post_init__` and the private helpers only they call
        (`self._precompute(...)`), or anywhere in the module (`model.rate = 0.1`), except on
        an object the writing function made of another class (`p = object.__new__(Other)`).
        Also flags a non-frozen `@dataclass` without `__hash__`, which jit rejects. Classes
        whose attributes are set only in the constructor, or whose changing attributes the
        method never reads, are fine, as are `@dataclass(frozen=True)` classes.
        A bound method jitted in a method of its class (`self.apply = jax.jit(self._apply)`,
        `partial(jax.jit, ...)(self._apply)`) holds `self` as a constant the same way: the
        call is flagged when an attribute the method reads is assigned after construction
        (an attribute it reads itself and another method assigns is JAX102's finding).
    """
    why_bad = """
        A static argument is part of jit's cache key, through its hash and equality. With the
        default identity hash, changing an attribute of the same object leaves the key
        unchanged: jit silently returns the result compiled for the old attribute values. A
        value-based `__hash__` does not help when the object is mutated after use, since the
        cached key then aliases the mutated object. A non-frozen `@dataclass` is unhashable
        and raises `ValueError: Non-hashable static arguments are not supported`. Register
        the class as a PyTree instead, or make it immutable (`@dataclass(frozen=True)` and
        `dataclasses.replace`).
    """
    fix_safety = """
        Safe: register the class as a PyTree (generated `tree_flatten`/`tree_unflatten`, as for
        JAX401) and jit the method plainly, so `self` is traced: arrays become children and the
        attributes used in Python control flow aux data, and a changed attribute is seen on the
        next call. Offered when the decorator is `partial(jax.jit, static_argnums=0)` with no
        other option. The `partial` (or `functools`) import goes too when nothing else uses it.
        Attributes set after construction (by a method, or on an instance by top-level code:
        `sim.scale = 3.0`) are flattened too, and make it unsafe (an object flattened before
        they are set raises AttributeError). No fix where a traced method reads an attribute
        the registration could not carry. A static `self` cannot be kept instead: jit does
        not see a change of the same object's attributes even with a value `__hash__` and
        `__eq__` (measured), so only a new object per change would retrace.
    """
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef)
    invalid = (
        Example(
            """
            from functools import partial

            import jax

            class Model:
                def __init__(self, x, mul):
                    self.x = x
                    self.mul = mul

                @partial(jax.jit, static_argnums=0)  # error
                def calc(self, y):
                    return self.x * 2 + y if self.mul else y

            m = Model(2.0, True)
            first = m.calc(1.0)
            m.mul = False
            second = m.calc(1.0)
            """,
            check="assert float(first) == 5.0 and float(second) == 5.0  # stale: should be 1.0",
            fixed="""
            import jax

            @jax.tree_util.register_pytree_node_class
            class Model:
                def __init__(self, x, mul):
                    self.x = x
                    self.mul = mul

                @jax.jit
                def calc(self, y):
                    return self.x * 2 + y if self.mul else y

                def tree_flatten(self):
                    children = (self.x,)
                    aux_data = (self.mul,)
                    return children, aux_data

                @classmethod
                def tree_unflatten(cls, aux_data, children):
                    (x,) = children
                    (mul,) = aux_data
                    return cls(x=x, mul=mul)

            m = Model(2.0, True)
            first = m.calc(1.0)
            m.mul = False
            second = m.calc(1.0)
            """,
            fixed_check="assert float(first) == 5.0 and float(second) == 1.0",
        ),
        Example(
            """
            from functools import partial

            import jax

            class Scaled:
                def __init__(self, x):
                    self.x = x

                def __hash__(self):
                    return hash(self.x)

                def __eq__(self, other):
                    return isinstance(other, Scaled) and self.x == other.x

                def set_x(self, x):
                    self.x = x

                @partial(jax.jit, static_argnames=("self",))  # error
                def calc(self, y):
                    return self.x * 2 + y

            a = Scaled(5.0)
            before = a.calc(1.0)
            a.set_x(7.0)
            after = Scaled(7.0).calc(1.0)
            """,
            check="assert float(before) == 11.0 and float(after) == 11.0  # stale: should be 15",
        ),
        Example(
            """
            from dataclasses import dataclass
            from functools import partial

            import jax

            @dataclass
            class Config:
                scale: float

                @partial(jax.jit, static_argnums=0)  # error
                def apply(self, y):
                    return self.scale * y

            Config(2.0).apply(1.0)
            """,
            raises="ValueError",
        ),
        Example(
            """
            from functools import partial

            import jax

            class Schedule:
                def __init__(self, base):
                    self.base = base
                    self.decay = 1.0

                @property
                def rate(self):
                    return self.base * self.decay

                def anneal(self):
                    self.decay = self.decay / 2

                @partial(jax.jit, static_argnums=0)  # error
                def step(self, x):
                    return x - self.rate * x

            schedule = Schedule(0.5)
            before = schedule.step(1.0)
            schedule.anneal()
            after = schedule.step(1.0)
            """,
            check="assert float(before) == float(after) == 0.5  # stale: should be 0.75",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Scaler:
                def __init__(self, factor):
                    self.factor = factor
                    self.apply = jax.jit(self._apply)  # error

                def _apply(self, x):
                    return x * self.factor

            s = Scaler(2.0)
            first = s.apply(jnp.ones(2))
            s.factor = 10.0
            second = s.apply(jnp.ones(2))
            """,
            check="assert float(second[0]) == 2.0  # stale: should be 10.0",
        ),
        Example(
            """
            from functools import partial

            import jax

            class Scaler:  # a first version, as a notebook's earlier cell defines it
                def __init__(self, factor):
                    self.factor = factor

            class Scaler:
                def __init__(self, factor, on):
                    self.factor = factor
                    self.on = on

                @partial(jax.jit, static_argnums=0)  # error
                def apply(self, y):
                    return y * self.factor if self.on else y

            s = Scaler(2.0, True)
            first = s.apply(1.0)
            s.on = False
            second = s.apply(1.0)
            """,
            check="assert float(second) == 2.0  # stale: should be 1.0",
        ),
    )
    valid = (
        Example(
            """
            from functools import partial

            import jax

            class Scaler:
                def __init__(self, factor, on):
                    self.factor = factor
                    self.on = on

                @partial(jax.jit, static_argnums=0)
                def apply(self, y):
                    return y * self.factor if self.on else y

            frozen = Scaler(2.0, True)
            first = frozen.apply(1.0)

            class Scaler:  # redefined: its instances are changed, not the jitted class's
                def __init__(self, factor, on):
                    self.factor = factor
                    self.on = on

            loose = Scaler(2.0, True)
            loose.on = False
            second = frozen.apply(1.0)
            """,
            check="assert float(first) == float(second) == 2.0",
        ),
        Example(
            """
            import dataclasses
            from functools import partial

            import jax

            @dataclasses.dataclass(frozen=True)
            class Model:
                x: float
                mul: bool

                @partial(jax.jit, static_argnums=0)
                def calc(self, y):
                    return self.x * 2 + y if self.mul else y

            m = Model(2.0, True)
            first = m.calc(1.0)
            m = dataclasses.replace(m, mul=False)
            second = m.calc(1.0)
            """,
            check="assert float(first) == 5.0 and float(second) == 1.0",
        ),
        Example(
            """
            import dataclasses
            from functools import partial

            import jax
            import jax.numpy as jnp

            @partial(jax.tree_util.register_dataclass, data_fields=["x"], meta_fields=["mul"])
            @dataclasses.dataclass
            class Model:
                x: jax.Array
                mul: bool

                @jax.jit
                def calc(self, y):
                    return self.x * 2 + y if self.mul else y

            m = Model(jnp.array(2.0), True)
            first = m.calc(1.0)
            m.mul = False
            second = m.calc(1.0)
            """,
            check="assert float(first) == 5.0 and float(second) == 1.0",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            class Trainer:
                def __init__(self, lr):
                    self.lr = lr  # set once: the compiled step never goes stale
                    self.done = False
                    self.history = []

                @partial(jax.jit, static_argnums=0)
                def step(self, w, g):
                    return w - self.lr * g

                def fit(self, w, steps):
                    for _ in range(steps):
                        w = self.step(w, jnp.ones_like(w))
                        self.history.append(float(w.sum()))
                    self.done = True  # never read by the compiled step
                    return w

            w = Trainer(0.5).fit(jnp.zeros(2), 3)
            """,
            check="assert w.tolist() == [-1.5, -1.5]",
        ),
        Example(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp

            class Planner:
                def __init__(self, area):
                    self._precompute(area)

                def _precompute(self, area):  # only the constructor calls it
                    self.table = jnp.cumsum(area)

                @partial(jax.jit, static_argnums=(0,))
                def lookup(self, i):
                    return self.table[i]

            value = Planner(jnp.arange(4.0)).lookup(2)
            """,
            check="assert float(value) == 3.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Problem:
                def __init__(self, weights):
                    self.weights = weights

            def problem_from(weights):
                problem = object.__new__(Problem)
                problem.weights = weights  # a new Problem: no Solver changes
                return problem

            class Solver:
                def __init__(self, weights):
                    self.weights = weights
                    self.solve = jax.jit(self._solve)

                def _solve(self, x):
                    return x * self.weights

            solver = Solver(2.0)
            first = solver.solve(jnp.ones(2))
            problem = problem_from(3.0)
            second = solver.solve(jnp.ones(2))
            """,
            check="assert float(first[0]) == float(second[0]) == 2.0 and problem.weights == 3.0",
        ),
    )

    def check(self, node: ast.FunctionDef, ctx: RuleContext) -> Iterator[Finding]:
        for transform in method_transforms(node, ctx):
            if transform.label not in _JIT_LIKE or "self" not in transform.info.static_params:
                continue
            record = transform.class_record
            if not is_plain_class(record, ctx.model):
                return
            problem = _static_self_problem(record, ctx.model, node)
            if problem is None:
                return
            yield ctx.finding(
                self,
                transform.decorator,
                f"`self` is static in `{node.name}`: {problem}. Register `{record.name}` as a "
                f"PyTree instead, or make it immutable (`@dataclass(frozen=True)`)",
                deferred=(ctx.deferred(Codemod.PYTREE_UNSTATIC, transform.decorator),),
            )
        yield from self._bound_methods(node, ctx)

    @prefiltered(*_JITS_AN_ATTRIBUTE_OF_SELF)
    def _bound_methods(self, node: ast.FunctionDef, ctx: RuleContext) -> Iterator[Finding]:
        """`jax.jit(self.method)` in a method: the bound method's object is a constant of
        the compiled function, read once at trace time, as a static `self` is."""
        record = ctx.model.records.get(node)
        positional = positional_params(node)
        if record is None or record.class_name not in ctx.model.classes or not positional:
            return
        if positional[0] != "self":
            return
        class_record = ctx.model.class_of_method(node, record.class_name)
        lineage: list[ClassRecord] | None = None
        for call, name in bound_method_transforms(node, ctx.resolvers[-1], _JIT_LIKE):
            if lineage is None:
                if not is_plain_class(class_record, ctx.model):
                    return
                lineage = _lineage(class_record, ctx.model)
            method = _method_of(lineage, name)
            if method is None:
                continue
            # JAX102 flags `self.x`, read by the method itself, that a method assigns.
            direct = self_reads(method, lambda called: None)
            problem = _stale_problem(class_record, lineage, ctx.model, method, direct)
            if problem is not None:
                yield ctx.finding(
                    self,
                    call,
                    f"`{ctx.segment(call)}` compiles a bound method: "
                    "`self` is a constant of the compiled function, read once when it is "
                    f"traced. {problem}. Pass "
                    f"the values the method reads as arguments, or register `{record.class_name}`"
                    f" as a PyTree and jit a function taking the object",
                )


def _static_self_problem(
    record: ClassRecord, model: ModuleModel, method: ast.FunctionDef | ast.AsyncFunctionDef
) -> str | None:
    """Why a static `self` of this class misbehaves under jit; None if it is fine."""
    lineage = _lineage(record, model)
    options = _dataclass_options(record)
    if options and options.get("frozen") is True:
        return None
    unhashable = options is not None and options.get("eq", True) and not options.get("unsafe_hash")
    if unhashable and _defines(record.node, "__hash__") is None:
        return (
            f"the dataclass `{record.name}` is unhashable, so the call raises ValueError "
            f"(non-hashable static arguments)"
        )
    return _stale_problem(record, lineage, model, method)


def _stale_problem(
    record: ClassRecord,
    lineage: list[ClassRecord],
    model: ModuleModel,
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    reported: frozenset[str] = frozenset(),
) -> str | None:
    """Why a compiled method that holds its object as a constant goes stale: an attribute it
    reads is assigned after construction; None if none is. Writes by methods of the class
    to the attributes in `reported` are left out (another rule names them)."""
    # Stale results need an attribute the compiled method reads to change after the object
    # is built: attributes set only in `__init__`, or never read here, change nothing.
    reads = self_reads(method, lambda name: _method_of(lineage, name))
    building = construction_helpers([ancestor.node for ancestor in lineage])
    inside = [
        (writer.startswith(_LAZY_INIT), attribute, writer)
        for ancestor in lineage
        for writer, attribute in _attribute_writes(ancestor, building)
        if (attribute in reads or attribute == "...") and attribute not in reported
    ]
    if inside:
        # Name a write by an ordinary method before one by a lazy initialiser.
        _, attribute, writer = min(inside)
        shown = "an attribute (`setattr`)" if attribute == "..." else f"`self.{attribute}`"
        return (
            f"`{record.name}.{writer}` assigns {shown}, which `{method.name}` reads, and jit "
            f"keeps returning the result cached for the old value (stale results, no error)"
        )
    if model.class_defined_twice(record.name):
        # Writes anywhere may be to another class of the same name: only those to a name
        # bound to an instance of this very definition count.
        written = model.attributes_set_on_instances(record.node)
    else:
        written = model.assigned_attributes | _written_on_instances(record, model)
    outside = sorted(reads & written)
    if outside:
        return (
            f"`.{outside[0]}`, which `{method.name}` reads, is assigned after construction, "
            f"and jit keeps returning the result cached for the old value (stale results, no "
            f"error)"
        )
    return None


def _written_on_instances(record: ClassRecord, model: ModuleModel) -> frozenset[str]:
    """Attributes written on an object its function made (`m = Model(); m.rate = 0.1`)
    that may be an instance of `record`'s class: one of it or of a subclass of the module,
    or of a name that is no class of the module (perhaps a factory). An object made by
    `object.__new__(Other)` with `Other` imported is an `Other`, none of this class."""
    found = set()
    for write in model.fresh_attribute_writes:
        made = model.classes.get(write.class_name)
        if made is None:
            if not write.certain:
                found.add(write.attribute)
        elif record in _lineage(made, model):
            found.add(write.attribute)
    return frozenset(found)


_LAZY_INIT = ("init", "_init", "setup", "_setup", "build", "_build")


def _method_of(lineage: list[ClassRecord], name: str) -> ast.FunctionDef | None:
    found = _inherited(lineage, name)
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None


class StaticAttributeAsChild(Rule):
    code = "JAX403"
    name = "static-attribute-as-child"
    summary = "A PyTree child that holds a Python int, bool, str, callable or config object"
    severity = Severity.WARNING
    what_it_does = """
        Flags a child of a class registered as a PyTree (returned among the children by its
        `tree_flatten` or by the flatten function given to `register_pytree_node`, or named
        in `register_dataclass`'s `data_fields`) that holds a Python value a trace cannot take:
        a str, a callable or an object of a plain class of the module (a config), whatever
        the code does with it; and a Python int or bool that a method of the class uses where
        Python needs its value (`if self.rank > 0:`, `range(self.n)`, `int(...)`, a slice
        bound, the shape given to `jnp.zeros`/`reshape`). What an attribute holds is known
        from `__init__` (a parameter's annotation or default, a literal, a lambda) or from the
        class's field annotations. Not flagged (measured under `jit`): an int or bool used in
        arithmetic only (`x * self.n` computes the same traced) or as an array index
        (`x[self.i]` indexes dynamically), a child that holds None (an empty subtree: None
        again under `jit`, so `is None` tests hold), and a float child (a scale or a rate is
        usually meant to be traced; a float in a Python condition fails too, but is not
        known to be a setting). A `Callable` annotation is taken at its word: a callable
        PyTree (an equinox module) given there would be fine as a child.
    """
    why_bad = """
        JAX flattens an instance into its children when it enters `jax.jit` (`vmap`, `grad`,
        a `lax` loop) and rebuilds it from tracers: every child is traced. A str, a function
        or a config object is no JAX type, so the call raises TypeError; an int or bool child
        becomes a traced scalar, so `if self.training:` raises TracerBoolConversionError,
        `range(self.n)` TracerIntegerConversionError, `x[:self.n]` IndexError and
        `jnp.zeros(self.n)` TypeError (and `vmap` tries to map over it: ValueError).
        Settings belong in the aux data, which stays Python and is part of the compilation
        cache key.
    """
    fix_safety = """
        Moves the flagged children to the aux data: the flatten function returns them after
        its aux data (`(aux, (self.n,))`) and the unflatten function takes them back out and
        rebuilds the children as they were, or `register_dataclass` lists them in
        `meta_fields` instead of `data_fields`. Offered when the flatten function returns a
        tuple or list literal of children (or a name bound once to one) and both functions
        are in the same statement as the finding (a class's `tree_flatten` /
        `tree_unflatten`). Unsafe: each new value of the moved attribute compiles again, and
        code that reads the children or aux data by position sees the new layout.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    fix_in_some_cases_only = True
    node_types = (ast.ClassDef, ast.Call)
    call_names = frozenset({"register_pytree_node", "register_dataclass"})
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.tree_util.register_pytree_node_class
            class Dense:
                def __init__(self, weight, rank: int):
                    self.weight = weight
                    self.rank = rank

                def __call__(self, x):
                    if self.rank > 0:
                        return x @ self.weight
                    return x

                def tree_flatten(self):
                    return (self.weight, self.rank), None  # error

                @classmethod
                def tree_unflatten(cls, aux_data, children):
                    return cls(*children)

            @jax.jit
            def apply(layer, x):
                return layer(x)

            y = apply(Dense(jnp.eye(2), 1), jnp.ones(2))
            """,
            raises="jax.errors.TracerBoolConversionError",
            fixed="""
            import jax
            import jax.numpy as jnp

            @jax.tree_util.register_pytree_node_class
            class Dense:
                def __init__(self, weight, rank: int):
                    self.weight = weight
                    self.rank = rank

                def __call__(self, x):
                    if self.rank > 0:
                        return x @ self.weight
                    return x

                def tree_flatten(self):
                    return (self.weight,), (None, (self.rank,))

                @classmethod
                def tree_unflatten(cls, aux_data, children):
                    aux_data, aux_children = aux_data
                    children = (children[0], aux_children[0])
                    return cls(*children)

            @jax.jit
            def apply(layer, x):
                return layer(x)

            y = apply(Dense(jnp.eye(2), 1), jnp.ones(2))
            """,
            fixed_check="assert y.tolist() == [1.0, 1.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            class Stack:
                def __init__(self, weight, depth=3):
                    self.weight = weight
                    self.depth = depth

                def apply(self, x):
                    for _ in range(self.depth):
                        x = jnp.tanh(x * self.weight)
                    return x

            def flatten(stack):
                return (stack.weight, stack.depth), None

            def unflatten(aux_data, children):
                return Stack(*children)

            jax.tree_util.register_pytree_node(Stack, flatten, unflatten)  # error

            out = jax.jit(lambda s, x: s.apply(x))(Stack(jnp.ones(2)), jnp.ones(2))
            """,
            raises="jax.errors.TracerIntegerConversionError",
        ),
        Example(
            """
            import dataclasses
            from collections.abc import Callable

            import jax
            import jax.numpy as jnp

            @dataclasses.dataclass
            class Block:
                weight: jax.Array
                activation: Callable

            jax.tree_util.register_dataclass(
                Block, data_fields=["weight", "activation"], meta_fields=[]  # error
            )

            @jax.jit
            def forward(block, x):
                return block.activation(x * block.weight)

            y = forward(Block(jnp.ones(2), jnp.tanh), jnp.ones(2))
            """,
            raises="TypeError",
            fixed="""
            import dataclasses
            from collections.abc import Callable

            import jax
            import jax.numpy as jnp

            @dataclasses.dataclass
            class Block:
                weight: jax.Array
                activation: Callable

            jax.tree_util.register_dataclass(
                Block, data_fields=["weight"], meta_fields=["activation"]
            )

            @jax.jit
            def forward(block, x):
                return block.activation(x * block.weight)

            y = forward(Block(jnp.ones(2), jnp.tanh), jnp.ones(2))
            """,
            fixed_check="assert abs(float(y[0]) - 0.7615942) < 1e-5",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.tree_util.register_pytree_node_class
            class Scaled:
                def __init__(self, weight, scale: float, count: int, bias=None):
                    self.weight = weight
                    self.scale = scale
                    self.count = count
                    self.bias = bias

                def __call__(self, x):
                    y = x * self.weight * self.scale * self.count  # arithmetic: a tracer serves
                    return y if self.bias is None else y + self.bias

                def tree_flatten(self):
                    return (self.weight, self.scale, self.count, self.bias), None

                @classmethod
                def tree_unflatten(cls, aux_data, children):
                    return cls(*children)

            y = jax.jit(lambda m, x: m(x))(Scaled(jnp.ones(2), 0.5, 2), jnp.ones(2))
            """,
            check="assert y.tolist() == [1.0, 1.0]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            @jax.tree_util.register_pytree_node_class
            class Dense:
                def __init__(self, weight, rank: int):
                    self.weight = weight
                    self.rank = rank

                def __call__(self, x):
                    if self.rank > 0:
                        return x @ self.weight
                    return x

                def tree_flatten(self):
                    return (self.weight,), (self.rank,)  # the setting is aux data

                @classmethod
                def tree_unflatten(cls, aux_data, children):
                    return cls(*children, *aux_data)

            y = jax.jit(lambda layer, x: layer(x))(Dense(jnp.eye(2), 1), jnp.ones(2))
            """,
            check="assert y.tolist() == [1.0, 1.0]",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        listed = ctx.model.pytree_static_children.get(node)
        if not listed:
            return
        fix = aux_data_fix(ctx, listed)
        for child in listed:
            where = child.listed if contains(node, child.listed) else node
            if child.needs_concrete is None:
                why = (
                    f"it holds {child.holds}, which is no JAX type, so `jax.jit` (`vmap`, "
                    "`grad`) raises TypeError when it flattens an instance"
                )
            else:
                why = (
                    f"it holds {child.holds}, which becomes a tracer under `jax.jit`, and "
                    f"`{child.needs_concrete}` needs its value, which a tracer does not have "
                    "(it raises)"
                )
            yield ctx.finding(
                self,
                where,
                f"`{child.attribute}` of the PyTree class `{child.class_name}` is a child: "
                f"{why}. Return it in the aux data (static: part of the compilation key)",
                fix=fix,
            )


RULES: tuple[type[Rule], ...] = (JitMethodSelf, StaticSelfMutable, StaticAttributeAsChild)
