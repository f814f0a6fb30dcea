"""Objects of the module's classes: the classes of parameters, and the values of the fields of
a traced PyTree instance (jax_lsp.analysis.objects and the model's use of them)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.imports import Resolver, import_bindings
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.objects import field_values
from jax_lsp.analysis.values import DERIVED, REF, Container, Instance
from tests.conftest import findings_of
from tests.runtime import run_snippet


def model_of(source: str) -> ModuleModel:
    return ModuleModel(Document(textwrap.dedent(source)))


def trace_of(model: ModuleModel, path: str):
    return model.trace.get(model.functions[path].node)


def fields_of(source: str) -> dict:
    tree = ast.parse(textwrap.dedent(source))
    resolver = Resolver(import_bindings(tree.body))
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    return field_values(classes[-1], resolver)


def codes_at(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line + 1) for f in findings_of(textwrap.dedent(source))]


def test_array_fields_are_traced_and_static_fields_python_values():
    fields = fields_of(
        """
        import dataclasses
        import equinox as eqx
        import jax
        from flax import struct
        from jaxtyping import Array, Float

        class Model(eqx.Module):
            w: jax.Array
            b: Float[Array, "n"]
            depth: int = eqx.field(static=True)
            name: str = struct.field(pytree_node=False)
            size: int = eqx.static_field()
            meta: int = dataclasses.field(metadata={"static": True})
            layers: list
            kept: jax.Array = eqx.field(static=False)
        """
    )
    assert fields == {
        "w": Kind.TRACED,
        "b": Kind.TRACED,
        "depth": Kind.STATIC,
        "name": Kind.STATIC,
        "size": Kind.STATIC,
        "meta": Kind.STATIC,
        "kept": Kind.TRACED,
    }


def test_tree_flatten_children_are_traced_aux_data_static_and_refs_stay_refs():
    fields = fields_of(
        """
        import jax

        @jax.tree_util.register_pytree_node_class
        class State:
            def __init__(self, x, n):
                self.x, self.n = x, n
                self.total = jax.new_ref(0.0)

            def tree_flatten(self):
                children = (self.x, self.total)
                return children, (self.n,)
        """
    )
    assert fields == {"x": Kind.TRACED, "n": Kind.STATIC, "total": REF}


OBJECT_THROUGH_CALLS = """
import equinox as eqx
import jax
import jax.numpy as jnp

class MLP(eqx.Module):
    w: jax.Array
    depth: int = eqx.field(static=True)

    def __call__(self, x):
        return x * self.w

def loss(model, x):
    return jnp.sum(model(x))

@eqx.filter_jit
def step(model, x):
    return eqx.filter_value_and_grad(loss)(model, x)

def train():
    net = MLP(jnp.ones(3), 2)
    return step(net, jnp.ones(3))
"""


def test_a_parameter_given_an_instance_has_its_class_through_calls_and_transforms():
    model = model_of(OBJECT_THROUGH_CALLS)
    by_path = {model.records[node].path: classes for node, classes in model.passed_classes.items()}
    assert by_path == {"step": {"model": "MLP"}, "loss": {"model": "MLP"}}
    # filter_jit traces the object's array leaves and the array given by the call.
    assert trace_of(model, "step").traced_params == {"model", "x"}
    assert trace_of(model, "MLP.__call__").traced_params == {"self", "x"}
    ((name, instance),) = model.object_params(model.functions["MLP.__call__"].node)
    assert name == "self" and type(instance) is Instance
    assert instance.attribute("w") is Kind.TRACED and instance.attribute("depth") is Kind.STATIC


def test_instances_of_two_classes_give_the_parameter_no_class():
    source = (
        OBJECT_THROUGH_CALLS
        + """
class Other(eqx.Module):
    def __call__(self, x):
        return x

def evaluate():
    return step(Other(), jnp.ones(3))
"""
    )
    model = model_of(source)
    assert "model" not in model.passed_classes.get(model.functions["step"].node, {})


def test_fields_of_a_traced_self_decide_branches():
    source = """
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    class Block(eqx.Module):
        w: jax.Array
        skip: bool = eqx.field(static=True)

        def __call__(self, x):
            if self.skip:
                x = x + 1
            if self.w.sum() > 0:
                return x
            return -x

    @eqx.filter_jit
    def step(model, x):
        return model(x)

    step(Block(jnp.ones(3), True), jnp.ones(3))
    """
    assert codes_at(source) == [("JAX701", 13)]


def test_a_closed_over_module_object_is_not_traced():
    source = """
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    class Block(eqx.Module):
        w: jax.Array

        def __call__(self, x):
            if self.w.sum() > 0:  # concrete: the object is a constant of the trace
                return x
            return -x

    block = Block(jnp.ones(3))

    @jax.jit
    def f(x):
        return block(x)
    """
    model = model_of(source)
    assert trace_of(model, "Block.__call__").traced_params == {"x"}
    assert codes_at(source) == []


def test_a_ref_held_in_an_attribute_of_a_traced_object_takes_item_assignment():
    source = """
    import jax
    import jax.numpy as jnp

    @jax.tree_util.register_pytree_node_class
    class Counter:
        def __init__(self, x):
            self.x = x
            self.total = jax.new_ref(jnp.zeros(()))

        def tree_flatten(self):
            return (self.x, self.total), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

        @jax.jit
        def add(self):
            self.total[...] += self.x.sum()
            self.x[0] = 1.0
    """
    assert codes_at(source) == [("JAX201", 21)]


def test_a_method_of_a_module_level_object_run_in_jit_leaks_writes_to_self():
    source = """
    import jax

    class Keys:
        def __init__(self):
            self.key = jax.random.PRNGKey(0)

        def next(self):
            self.key, sub = jax.random.split(self.key)
            return sub

    keys = Keys()

    @jax.jit
    def sample(x):
        return x + jax.random.normal(keys.next())

    def local(x):
        keys = Keys()
        return keys.next()
    """
    model = model_of(source)
    assert {model.records[n].path for n in model.module_object_methods} == {"Keys.next"}
    assert codes_at(source) == [("JAX103", 9)]


def test_shapes_are_carried_across_top_level_statements_until_rebound_unknown():
    source = """
    import jax.numpy as jnp

    n = 2
    x = jnp.zeros(4)
    x = x.reshape(n, n)
    a = x[2]
    for i in range(3):
        x = jnp.zeros(i)
    b = x[9]
    y = jnp.ones(3)
    y = load()
    c = y[5]
    """
    model = model_of(source)
    by_line = {unit.start_line + 1: unit for unit in model.document.units}
    assert model.module_shapes(by_line[7].start_line)["x"].shape == (2, 2)
    assert codes_at(source) == [("JAX301", 7)]


# Fields that stay Python values inside the trace: a float field of an `eqx.Module` under
# `eqx.filter_jit`, a `pytree_node=False` field under `jax.jit`, a config passed static.
STATIC_FIELDS_PROGRAM = """
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
from flax import struct


class Scale(eqx.Module):
    s: float
    w: jax.Array


@eqx.filter_jit
def scaled(model, x):
    if model.s > 1.0:
        return x * model.s * model.w
    return x


@struct.dataclass
class State:
    w: jax.Array
    depth: int = struct.field(pytree_node=False)


@jax.jit
def deep(state: State, x):
    for _ in range(state.depth):
        x = x * state.w
    return x


class Config(NamedTuple):
    layers: int


def run(config, x):
    if config.layers > 1:
        x = x + 1
    return x.sum()


run_jit = jax.jit(run, static_argnames="config")
out = run_jit(Config(2), deep(State(jnp.ones(2), 2), scaled(Scale(2.0, jnp.ones(2)), jnp.ones(2))))
"""


def test_fields_left_python_values_by_the_transformation_are_not_traced():
    assert codes_at(STATIC_FIELDS_PROGRAM) == []
    pytest.importorskip("equinox")
    pytest.importorskip("flax")
    outcome = run_snippet(STATIC_FIELDS_PROGRAM, "assert float(out) == 6.0")
    assert outcome.error is None, repr(outcome.error)


def test_through_jit_every_declared_field_holds_tracers_whatever_its_annotation():
    source = """
        from typing import Any, ClassVar, NamedTuple, Optional
        import jax
        from flax import struct

        @struct.dataclass
        class State:
            w: jax.Array
            step: int
            lr: float
            params: tuple
            grads: dict[str, jax.Array]
            opt_state: Any
            mask: Optional[jax.Array]
            name: str
            depth: int = struct.field(pytree_node=False)
            registry: ClassVar[int] = 0
        """
    tree = ast.parse(textwrap.dedent(source))
    resolver = Resolver(import_bindings(tree.body))
    every_leaf = field_values(tree.body[-1], resolver, every_leaf=True)
    assert every_leaf == {
        "w": Kind.TRACED,
        "step": Kind.TRACED,
        "lr": Kind.TRACED,
        "params": Container("tuple", leaf=Kind.TRACED),
        "grads": Container("dict", leaf=Kind.TRACED),
        "opt_state": DERIVED,
        "mask": DERIVED,
        "name": Kind.UNKNOWN,
        "depth": Kind.STATIC,
    }
    # a filtered transformation (`eqx.filter_jit`) traces the array leaves only
    assert fields_of(source) == {"w": Kind.TRACED, "depth": Kind.STATIC}


def test_a_parameter_traced_by_jit_and_by_filter_jit_keeps_only_its_array_fields():
    source = """
        import equinox as eqx
        import jax

        class Scale(eqx.Module):
            s: float
            w: jax.Array

        def scaled(model: Scale, x):
            if model.s > 1.0:
                return x * model.w
            return x

        a = jax.jit(scaled)
        b = eqx.filter_jit(scaled)
        """
    model = model_of(source)
    assert "model" not in trace_of(model, "scaled").all_leaves
    assert codes_at(source) == []
    assert codes_at(source.replace("b = eqx.filter_jit(scaled)", "")) == [("JAX701", 10)]


def test_fields_a_registration_lists_as_meta_data_stay_python_values_under_jit():
    source = """
        import dataclasses
        import functools
        import jax

        @functools.partial(
            jax.tree_util.register_dataclass, meta_fields=["depth"], data_fields=["w"]
        )
        @dataclasses.dataclass
        class Stack:
            depth: int
            w: jax.Array

        @jax.jit
        def run(s: Stack, y):
            if s.depth > 2:
                y = y * s.w
            return y
        """
    assert codes_at(source) == []
    assert codes_at(source.replace("if s.depth", "if s.w")) == [("JAX701", 16)]


STATIC_METADATA_CALL_PROGRAM = """
import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    weight: float = 30.0
    max_iters: int = dataclasses.field(default=20, metadata=dict(static=True))


@jax.jit
def optimize(x, params):
    history = jnp.zeros((params.max_iters,))
    return history.at[0].set(params.weight * jnp.sum(x))


out = optimize(jnp.ones(3), Params(max_iters=5))
"""


def test_a_field_marked_static_by_a_metadata_dict_call_stays_a_python_value_under_jit():
    # JAX's register_dataclass docs spell the marker `metadata=dict(static=True)`.
    assert codes_at(STATIC_METADATA_CALL_PROGRAM) == []
    outcome = run_snippet(STATIC_METADATA_CALL_PROGRAM, "assert out.shape == (5,)")
    assert outcome.error is None, repr(outcome.error)
    # without the marker the field is a traced leaf: its shape error is found and JAX raises
    traced = STATIC_METADATA_CALL_PROGRAM.replace(
        "dataclasses.field(default=20, metadata=dict(static=True))", "20"
    )
    assert codes_at(traced) == [("JAX803", 17)]
    assert isinstance(run_snippet(traced).error, TypeError)


LAMBDA_GIVEN_AN_OBJECT = """
import jax.numpy as jnp
import optax
from flax import nnx


class Net(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(3, 1, rngs=rngs)

    def __call__(self, x):
        h = self.lin(x)
        print("activations", h.mean())
        return h


@nnx.jit
def step(model, opt, x):
    loss, grads = nnx.value_and_grad(lambda m: (m(x) ** 2).mean())(model)
    opt.update(model, grads)
    return loss


model = Net(nnx.Rngs(0))
opt = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
step(model, opt, jnp.ones((4, 3)))
"""


def test_a_lambda_given_an_object_by_a_transform_calls_its_method():
    # The lambda's `m(x)` runs `Net.__call__` under the trace: its print shows a tracer.
    assert codes_at(LAMBDA_GIVEN_AN_OBJECT) == [("JAX101", 13)]
    outcome = run_snippet(LAMBDA_GIVEN_AN_OBJECT)
    assert outcome.error is None and "activations" in outcome.stdout
    assert "Tracer" in outcome.stdout


def test_a_lambda_parameter_the_function_rebinds_keeps_no_class():
    # `m` is also a name of `step` itself: which one a call in `step` means is unknown.
    rebinding = "    m = jnp.tanh\n    m(x)\n    opt.update(model, grads)\n"
    source = LAMBDA_GIVEN_AN_OBJECT.replace("    opt.update(model, grads)\n", rebinding)
    assert codes_at(source) == []


DERIVED_STRUCT_PROGRAM = """
import jax
import jax.numpy as jnp
from flax import struct


class Base(struct.PyTreeNode):
    scale: jax.Array


class System(Base):
    damping: jax.Array
    iterations: int = struct.field(pytree_node=False)


@jax.jit
def integrate(sys: System, x):
    if sys.iterations == 0:  # a static field of a class deriving from a PyTreeNode
        x = x * sys.damping
    if sys.damping.sum() > 0:
        return x
    return -x


out = integrate(System(jnp.ones(()), jnp.ones(()), 0), jnp.ones(2))
"""


def test_a_class_deriving_from_a_pytree_class_of_the_module_keeps_its_static_fields():
    assert codes_at(DERIVED_STRUCT_PROGRAM) == [("JAX701", 20)]
    outcome = run_snippet(DERIVED_STRUCT_PROGRAM)
    assert type(outcome.error).__name__ == "TracerBoolConversionError"


def test_fields_declared_with_pytree_field_specifiers_make_a_class_a_pytree():
    """`class System(mjx.Model)`: the model cannot see that its base is a PyTreeNode, but
    `struct.field(pytree_node=False)` has meaning only in a PyTree dataclass."""
    source = """
    import jax
    from flax import struct
    from mujoco import mjx


    class System(mjx.Model):
        damping: jax.Array
        iterations: int = struct.field(pytree_node=False)


    @jax.jit
    def integrate(sys: System, x):
        if sys.iterations == 0:
            return x * sys.damping
        if sys.damping > 0:
            return x
        return -x
    """
    assert codes_at(source) == [("JAX701", 16)]
