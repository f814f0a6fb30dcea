"""Traced scopes: which code JAX traces, with which parameters traced, and why."""

from __future__ import annotations

import ast
import textwrap
from typing import ClassVar

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.diagnostics.base import Rule, RuleContext
from jax_lsp.engine import analyze
from jax_lsp.findings import Span
from tests.conftest import findings_of


def model_of(source: str) -> ModuleModel:
    return ModuleModel(Document(textwrap.dedent(source)))


def trace_of(model: ModuleModel, path: str):
    return model.trace.get(model.functions[path].node)


def lines_of(source: str, code: str) -> list[int]:
    return [f.span.start.line for f in findings_of(source) if f.code == code]


# -- transform context carried inward -------------------------------------------------------
LOSS_IN_JIT = """
import jax
import jax.numpy as jnp


def loss_fn(params, x, y):
    if x.sum() > 0:
        return jnp.sum(params)
    return jnp.mean((params * x - y) ** 2)


@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return params - grads, loss
"""


def test_function_given_to_grad_inside_jit_is_traced_in_every_argument():
    info = trace_of(model_of(LOSS_IN_JIT), "loss_fn")
    assert info.abstract
    assert info.traced_params == {"params", "x", "y"}


def test_grad_outside_jit_traces_only_its_argnums():
    source = LOSS_IN_JIT.replace("@jax.jit\n", "")
    info = trace_of(model_of(source), "loss_fn")
    assert not info.abstract
    assert info.traced_params == {"params"}


def test_branch_in_loss_given_to_grad_inside_jit_is_found():
    assert lines_of(LOSS_IN_JIT, "JAX701") == [6]


def test_name_bound_to_a_transformed_function_calls_it():
    source = """
    import jax

    def loss_fn(params, batch):
        return params * batch

    @jax.jit
    def step(params, batch):
        grad_fn = jax.grad(loss_fn)
        return grad_fn(params, batch)
    """
    assert trace_of(model_of(source), "loss_fn").traced_params == {"params", "batch"}


def test_while_loop_body_closing_over_a_traced_parameter():
    source = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def sample(logits, temperature):
        def step(carry):
            logits, i = carry
            if temperature > 0.0:
                logits = logits / temperature
            return logits, i + 1

        return jax.lax.while_loop(lambda c: c[1] < 3, step, (logits, 0))
    """
    assert lines_of(source, "JAX701") == [8]


# -- objects -------------------------------------------------------------------------------
LINEN = """
import jax
import flax.linen as nn


class Block(nn.Module):
    @nn.compact
    def __call__(self, x, training):
        return nn.Dropout(0.1, deterministic=not training)(x)


class Model(nn.Module):
    @nn.compact
    def __call__(self, x, training):
        return Block()(nn.Dense(4)(x), training)


model = Model()
"""


def test_jitted_linen_apply_traces_call_without_the_variables():
    model = model_of(LINEN + "apply = jax.jit(model.apply)\n")
    info = trace_of(model, "Model.__call__")
    assert info.abstract and info.traced_params == {"x", "training"}
    assert "self" not in info.traced_params
    # `nn.Dense(4)(x)` of a traced `x` is a traced array: Block gets it.
    assert trace_of(model, "Block.__call__").traced_params == {"x", "training"}


def test_linen_apply_in_a_jitted_step_reaches_the_module():
    source = LINEN + textwrap.dedent(
        """
        @jax.jit
        def train_step(params, x, training):
            return model.apply(params, x, training)
        """
    )
    assert trace_of(model_of(source), "Model.__call__").traced_params == {"x", "training"}
    assert lines_of(source, "JAX702") == [8]


def test_module_instance_or_annotated_parameter_called_in_traced_code_reaches_call():
    source = """
    import jax
    import equinox as eqx

    class MLP(eqx.Module):
        def __call__(self, x):
            return x

    class Head(eqx.Module):
        def __call__(self, y):
            return y

    mlp = MLP()

    @jax.jit
    def f(x):
        return mlp(x)

    @eqx.filter_jit
    def step(head: Head, y: jax.Array):
        return head(y)
    """
    model = model_of(source)
    assert trace_of(model, "MLP.__call__").traced_params == {"x"}
    # `head` is given to `eqx.filter_jit`: its array leaves are tracers, so `self` is traced.
    assert trace_of(model, "Head.__call__").traced_params == {"self", "y"}


def test_bound_method_given_to_jit_fixes_self():
    source = """
    import jax

    class Sampler:
        def __init__(self):
            self.step = jax.jit(self._step)

        def _step(self, x):
            return x
    """
    info = trace_of(model_of(source), "Sampler._step")
    assert info.traced_params == {"x"}
    assert info.static_params == {"self"}


def test_self_is_traced_only_in_pytree_classes():
    source = """
    import jax

    class Plain:
        @jax.jit
        def f(self, x):
            return x

    @jax.tree_util.register_pytree_node_class
    class Tree:
        @jax.jit
        def f(self, x):
            return x
    """
    model = model_of(source)
    assert trace_of(model, "Plain.f").traced_params == {"x"}
    assert trace_of(model, "Tree.f").traced_params == {"self", "x"}


# -- per definition ------------------------------------------------------------------------
def test_jit_binds_the_definition_visible_at_its_line():
    source = """
    import jax

    def f(x):
        if x > 0:
            return x
        return -x

    g = jax.jit(f)

    def f(x):
        return x
    """
    model = model_of(source)
    first, second = (n for n in model.records if getattr(n, "name", None) == "f")
    assert model.trace[first].abstract
    assert second not in model.trace
    assert lines_of(source, "JAX701") == [4]


# -- where code is not traced --------------------------------------------------------------
class _TracedCalls(Rule):
    """Records, for each call of a bare name, whether the walker stands in traced code."""

    code = "TEST1"
    name = "traced-calls"
    node_types = (ast.Call,)

    seen: ClassVar[dict[str, bool]] = {}

    def check(self, node: ast.AST, ctx: RuleContext) -> list:
        if isinstance(node.func, ast.Name):
            self.seen[node.func.id] = ctx.in_traced
        return []


def test_decorator_arguments_defaults_and_annotations_are_not_traced_code():
    source = """
    import jax
    from functools import partial

    @partial(jax.jit, static_argnames=names())
    def f(x: annotation(), n=default(), *, k=keyword_default()) -> returned():
        return body(x)
    """
    _TracedCalls.seen.clear()
    analyze(Document(textwrap.dedent(source)), (_TracedCalls,))
    assert _TracedCalls.seen == {
        "partial": False,
        "names": False,
        "annotation": False,
        "default": False,
        "keyword_default": False,
        "returned": False,
        "body": True,
    }


def test_shard_map_runs_eagerly_outside_jit():
    source = """
    import jax
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((1,), ("x",))

    def eager(x):
        print(x)
        return x

    def traced(x):
        print(x)
        return x

    y = jax.shard_map(eager, mesh=mesh, in_specs=P(), out_specs=P())(1.0)

    @jax.jit
    def g(x):
        return jax.shard_map(traced, mesh=mesh, in_specs=P(), out_specs=P())(x)
    """
    model = model_of(source)
    assert trace_of(model, "eager").eager  # only truth tests and conversions fail there
    assert trace_of(model, "traced").abstract and not trace_of(model, "traced").eager
    assert lines_of(source, "JAX101") == [11]


def test_disable_jit_at_module_level_turns_later_jit_off():
    source = """
    import jax

    @jax.jit
    def before(x):
        return x

    jax.config.update("jax_disable_jit", True)

    @jax.jit
    def after(x):
        return x
    """
    model = model_of(source)
    assert trace_of(model, "before") is not None
    assert trace_of(model, "after") is None


# -- why is this traced? -------------------------------------------------------------------
def test_findings_explain_the_trace_through_the_call_chain():
    source = """
    import jax

    def helper(v):
        return int(v)

    @jax.jit
    def step(x):
        return helper(x)
    """
    (finding,) = findings_of(source, ("JAX703",))
    assert "in `helper` (called from `step`; `step` traced by `jax.jit`)" in finding.message
    assert [(r.span.start.line, r.message) for r in finding.related] == [
        (8, "`helper` is called here from `step`"),
        (6, "`jax.jit` traces `step` here"),
    ]


def test_related_place_in_the_same_statement_moves_with_the_finding():
    source = """
    import jax

    @jax.jit
    def step(x):
        if x > 0:
            return x
        return -x
    """
    (finding,) = findings_of(source, ("JAX701",))
    assert finding.related[0].span == Span.of(3, 1, 3, 8)  # the decorator `jax.jit`
    assert "`step` (traced by `jax.jit`)" in finding.message


def test_helper_parameter_given_python_values_at_every_traced_call_is_static():
    source = """
    import jax
    import jax.numpy as jnp

    def layer(x, i, scale=2.0):
        return x * i * scale

    def other(x, n):
        return x * n

    @jax.jit
    def forward(x):
        total = 0.0
        for i in range(3):
            total = total + layer(x, i)
        return other(x, 3) + other(x, x.shape[0] + x)
    """
    model = model_of(source)
    layer = trace_of(model, "layer")
    assert layer.traced_params == {"x"} and layer.static_params == {"i", "scale"}
    other = trace_of(model, "other")
    assert other.traced_params == {"x", "n"} and other.static_params == set()


def test_objects_held_in_attributes_reach_their_methods():
    source = """
    import jax
    import equinox as eqx
    import flax.linen as nn
    from flax import struct

    class Head(nn.Module):
        @nn.compact
        def __call__(self, x, train):
            return x

    class Layer(eqx.Module):
        def __call__(self, x):
            return x

    class Net(eqx.Module):
        def __init__(self):
            self.layer = Layer()

        @jax.jit
        def __call__(self, x):
            return self.layer(x)

    class World(struct.PyTreeNode):
        head: nn.Module = struct.field(pytree_node=False)

        @jax.jit
        def q(self, params, z, train):
            return self.head.apply(params, z, train)

    world = World(head=Head())
    """
    model = model_of(source)
    # `Net` is jitted with itself: the object its field holds is traced too. A static field
    # holds configuration.
    assert trace_of(model, "Layer.__call__").traced_params == {"self", "x"}
    assert trace_of(model, "Head.__call__").traced_params == {"x", "train"}


def test_jit_of_a_transformed_function_traces_it_as_jit_does():
    source = """
    import jax
    import jax.numpy as jnp

    def functional(x, m, n):
        return jnp.reshape(x, (m, n)).sum()

    gradient = jax.jit(jax.grad(functional))
    """
    info = trace_of(model_of(source), "functional")
    assert info.abstract and info.via == "jit"
    assert info.traced_params == {"x", "m", "n"}
    assert lines_of(source, "JAX803") == [5]


def test_train_state_apply_fn_reaches_the_linen_module():
    source = LINEN + textwrap.dedent(
        """
        from flax.training import train_state

        state = train_state.TrainState.create(apply_fn=model.apply, params={}, tx=None)

        @jax.jit
        def train_step(state, x, training):
            return state.apply_fn(state.params, x, training)
        """
    )
    assert trace_of(model_of(source), "Model.__call__").traced_params == {"x", "training"}


def test_tree_map_calls_the_function_with_traced_leaves():
    source = """
    import jax

    def update(p, g, lr=0.1):
        return p - lr * g

    @jax.jit
    def sgd(params, grads):
        return jax.tree_util.tree_map(update, params, grads)
    """
    info = trace_of(model_of(source), "update")
    assert info.traced_params == {"p", "g"} and info.static_params == {"lr"}


# -- sequences and dicts returned by helpers --------------------------------------------------
HELPER_RESULTS = """
import jax
import jax.numpy as jnp


def stats(x):
    return x.mean(), x.std()


def pick(x, n):
    return x.mean(), n


def loss_fn(w):
    return jnp.sum(w**2), {"acc": jnp.mean(w > 0), "n": 3}


@jax.jit
def f(x):
    mu, sigma = stats(x)
    if sigma == 0:
        x = x + 1
    total, n = pick(x, 3)
    if n > 2:
        x = x + 1
    (loss, aux), g = jax.value_and_grad(loss_fn, has_aux=True)(x)
    if aux["n"] > 2:
        x = x + 1
    acc = float(aux["acc"])
    return x, acc
"""


def test_items_a_helper_computes_from_tracers_are_traced():
    # `sigma == 0` is traced; `n` holds the Python int passed in (runs under jit).
    assert lines_of(HELPER_RESULTS, "JAX701") == [20]  # 0-based


def test_has_aux_output_keeps_the_helpers_arrays_and_python_values():
    # `aux["acc"]` is a tracer; `aux["n"]` the Python int the function returns.
    assert lines_of(HELPER_RESULTS, "JAX703") == [28]


HELPER_CHAIN = """
import jax
import jax.numpy as jnp


def scale(p):
    return p * 0.5


def clip(g):
    if jnp.linalg.norm(g) > 1:
        return g / jnp.linalg.norm(g)
    return g


def zero_first(g):
    g[0] = 0.0
    return g


def width(p):
    return p.shape[0]


def leaves(p):
    return jax.tree.leaves(p)


@jax.jit
def update(params):
    grads = scale(params)
    print(grads)
    grads = zero_first(clip(grads))
    n = width(params)
    if n > 2:
        grads = grads * 2
    if leaves(params):
        grads = grads + 1
    return params - grads
"""


def test_a_helper_given_tracers_returns_what_it_makes_of_them():
    # `scale(params)` is `params * 0.5`, a tracer: printed, and passed on to helpers that
    # branch on it and assign into it; a shape and a list of leaves are Python values.
    assert lines_of(HELPER_CHAIN, "JAX101") == [31]  # 0-based
    assert lines_of(HELPER_CHAIN, "JAX701") == [10]
    assert lines_of(HELPER_CHAIN, "JAX201") == [16]
