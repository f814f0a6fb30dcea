"""The value model: pytrees, refs, transformed functions, results of calls, narrowing."""

from __future__ import annotations

import ast
import textwrap

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.values import (
    REF,
    Container,
    Function,
    as_jax,
    kind_of,
    merge_values,
    pytree_of,
)
from tests.conftest import findings_of


def model_of(source: str) -> ModuleModel:
    return ModuleModel(Document(textwrap.dedent(source)))


def final_values(source: str, path: str) -> dict:
    """The values of the names of function `path` at its end."""
    model = model_of(source)
    return model.scope_kinds(model.functions[path].node).final_env


def kind_at(source: str, path: str, segment: str) -> Kind:
    """The Kind recorded for the first expression of `path` whose text is `segment`."""
    model = model_of(source)
    node = model.functions[path].node
    text = model._source_of[node].text  # node positions are relative to their unit
    kinds = model.scope_kinds(node).kinds
    for child in ast.walk(node):
        found = isinstance(child, ast.expr) and ast.get_source_segment(text, child) == segment
        if found and child in kinds:
            return kinds[child]
    raise AssertionError(f"no expression {segment!r}")


# -- the values themselves -----------------------------------------------------------------
def test_containers_merge_item_by_item_and_keep_their_kind():
    first = Container("tuple", (Kind.TRACED, Kind.STATIC))
    second = Container("tuple", (Kind.ARRAY, Kind.STATIC))
    assert merge_values(first, second) == Container("tuple", (Kind.TRACED, Kind.STATIC))
    assert kind_of(first) is Kind.SEQUENCE
    assert kind_of(Container("dict")) is Kind.UNKNOWN  # a dict is no array nor sequence
    assert merge_values(first, Kind.TRACED) is Kind.UNKNOWN


def test_joined_python_lists_stay_python_lists():
    values = final_values(
        """
        import jax.numpy as jnp

        def f(flag):
            names = ["a"]
            if flag:
                names += ["b"]
            pair = (1,) + (jnp.ones(2),)
            return names, pair
        """,
        "f",
    )
    names = values["names"]  # either branch: a Python list of Python values
    assert type(names) is Container and names.form == "list"
    assert names.element() is Kind.STATIC
    assert values["pair"] == Container("tuple", (Kind.STATIC, Kind.ARRAY))


def test_as_jax_makes_array_leaves_and_keeps_structure():
    init = Container("dict", (Kind.STATIC, Kind.NUMPY, Kind.UNKNOWN), ("i", "x", "aux"))
    assert as_jax(init, traced=True) == Container(
        "dict", (Kind.TRACED, Kind.TRACED, Kind.UNKNOWN), ("i", "x", "aux")
    )
    assert as_jax(Kind.STATIC, traced=False) is Kind.ARRAY


def test_a_str_index_makes_a_pytree_of_the_same_leaves():
    assert pytree_of(Kind.TRACED) == Container("dict", leaf=Kind.TRACED)
    assert pytree_of(Kind.TRACED).item("x") is Kind.TRACED


# -- through calls -------------------------------------------------------------------------
LOSS = """
import jax
import jax.numpy as jnp

def loss_fn(params, x, y):
    return jnp.mean((x @ params - y) ** 2)
"""


def test_value_and_grad_gives_a_traced_loss_and_gradients_like_params():
    values = final_values(
        LOSS
        + """
@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    pair = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
    return loss
""",
        "step",
    )
    assert values["loss"] is Kind.TRACED
    assert values["grads"] is Kind.TRACED  # params is a traced array
    aux_value, aux_grads = values["pair"].items
    assert aux_value == Container("tuple", (Kind.TRACED, Kind.UNKNOWN))
    assert aux_grads is Kind.TRACED


def test_the_auxiliary_output_is_what_the_function_makes_of_the_tracers_it_is_given():
    # `logits` is computed from the parameters only: traced once jit traces them.
    values = final_values(
        """
import jax

def loss_fn(params, x):
    logits = x @ params
    return logits.sum(), logits

@jax.jit
def step(params, x):
    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x)
    return logits
""",
        "step",
    )
    assert values["loss"] is Kind.TRACED
    assert values["logits"] is Kind.TRACED
    assert values["grads"] is Kind.TRACED


def test_grad_outside_any_trace_gives_concrete_arrays():
    values = final_values(
        LOSS + "\ndef run(w):\n    g = jax.grad(loss_fn)(jnp.ones(3), 1.0, 2.0)\n    return g\n",
        "run",
    )
    assert values["g"] is Kind.ARRAY


def test_a_plain_module_function_gives_what_it_returns():
    values = final_values(
        LOSS
        + """
import numpy as np

def stats(x):
    return np.mean(x), x.shape

@jax.jit
def step(w):
    loss = loss_fn(w, 1.0, 2.0)
    mean, shape = stats(w)
    return loss
""",
        "step",
    )
    assert values["loss"] is Kind.TRACED  # jnp.mean there: a tracer under jit here
    assert values["mean"] is Kind.NUMPY
    assert values["shape"] is Kind.STATIC  # `x.shape` of the tracer `w` passed in


def test_a_jitted_function_returns_arrays_of_its_structure():
    values = final_values(
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def train_step(state, batch):
            loss = jnp.mean(batch)
            return state, loss

        @jax.jit
        def main(data):
            state, loss = train_step(None, data)
            return state

        def eager(data):
            out = train_step(None, data)
            return out
        """,
        "main",
    )
    assert values["loss"] is Kind.TRACED
    assert values["state"] is Kind.UNKNOWN


def test_lax_loops_keep_the_carry_structure():
    values = final_values(
        """
        import jax.numpy as jnp
        from jax import lax

        def run(xs):
            out = lax.while_loop(cond, body, {"x": 1.0, "i": jnp.array(0)})
            total, ys = lax.scan(step, (0.0, jnp.zeros(3)), xs)
            count = lax.fori_loop(0, 3, body, 0)
            return out
        """,
        "run",
    )
    assert values["out"] == Container("dict", (Kind.ARRAY, Kind.ARRAY), ("x", "i"))
    assert values["total"] == Container("tuple", (Kind.ARRAY, Kind.ARRAY))
    assert values["ys"] is Kind.UNKNOWN
    assert values["count"] is Kind.ARRAY


def test_transformed_functions_are_values():
    values = final_values(
        LOSS
        + """
from functools import partial

def make():
    fast = jax.jit(loss_fn)
    grad_fn = jax.grad(loss_fn, argnums=(0, 1))
    static = partial(jax.jit, static_argnums=1)(loss_fn)
    return fast
""",
        "make",
    )
    assert values["fast"] == Function("loss_fn", "jit")
    assert values["grad_fn"] == Function("loss_fn", "grad", (0, 1))
    assert values["static"] == Function("loss_fn", "jit")


# -- pytrees and refs ----------------------------------------------------------------------
def test_a_dict_carry_indexed_by_str_is_no_array():
    source = """
    import jax
    from jax import lax

    @jax.jit
    def f(a):
        def body(carry):
            carry["x"] = carry["x"] + 1
            return carry
        return lax.while_loop(lambda c: c["x"] < 3, body, {"x": a})
    """
    assert kind_at(source, "f.body", 'carry["x"] + 1') is Kind.TRACED
    # The call site shows the structure ...
    assert final_values(source, "f.body")["carry"] == Container("dict", (Kind.TRACED,), ("x",))
    # ... and where it does not, `carry["x"]` is evidence enough.
    unseen = "import jax\n\n@jax.jit\ndef g(carry):\n    carry['x'] = carry['x'] + 1\n"
    assert final_values(unseen, "g")["carry"] == Container("dict", leaf=Kind.TRACED)


def test_refs_and_parameters_that_receive_them():
    source = """
    import jax
    import jax.numpy as jnp

    counts = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def update(ref, x):
        ref[0] += x
        return ref[...]

    def outer(x):
        local = jax.new_ref(x)
        update(local, x)
        update(counts, x)
    """
    model = model_of(source)
    assert model.global_values["counts"] is REF
    assert model.ref_params[model.functions["update"].node] == frozenset({"ref"})
    assert final_values(source, "update")["ref"] is REF


# -- flow ----------------------------------------------------------------------------------
def test_isinstance_narrows_in_its_branch():
    source = """
    import jax
    import numpy as np

    @jax.jit
    def f(x):
        if isinstance(x, np.ndarray):
            a = x
        else:
            b = x
        if not isinstance(x, (int, float)):
            c = x
        else:
            d = x
        return x
    """
    values = final_values(source, "f")
    assert kind_at(source, "f", "a") is Kind.NUMPY
    assert kind_at(source, "f", "b") is Kind.TRACED
    assert kind_at(source, "f", "c") is Kind.TRACED
    assert kind_at(source, "f", "d") is Kind.STATIC
    assert values["x"] is Kind.TRACED  # unchanged after the branches


def test_a_loop_over_a_positive_range_runs_at_least_once():
    source = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        done = 0
        for i in range(8):
            done += x
        maybe = 0
        for i in range(n):
            maybe += x
        return done
    """
    values = final_values(source, "f")
    assert values["done"] is Kind.TRACED
    assert values["maybe"] is Kind.UNKNOWN  # zero iterations keep the Python int


def test_lax_cond_and_switch_give_what_their_branches_return():
    values = final_values(
        """
        import jax.numpy as jnp
        from jax import lax

        def double(x):
            return (jnp.zeros(3), 1)

        def halve(x):
            return (jnp.ones(3), 2)

        def run(p, x):
            a = lax.cond(p, double, halve, x)
            b = lax.switch(p, [double, halve], x)
            c = lax.cond(p, lambda v: v, halve, x)
            return a
        """,
        "run",
    )
    assert values["a"] == Container("tuple", (Kind.ARRAY, Kind.ARRAY))
    assert values["b"] == values["a"]
    assert values["c"] is Kind.UNKNOWN  # a lambda branch: not summarised


def test_an_unseen_call_of_traced_values_is_traced_once_computed_with():
    source = """
    import jax
    from mylib import norm, is_array

    @jax.jit
    def f(v, tol):
        residual = norm(v)
        bigger = residual > 1.0
        shape = len(v)
        same = is_array(v)
        total = residual.sum()
        copied = residual.copy()
        return residual
    """
    values = final_values(source, "f")
    assert kind_of(values["residual"]) is Kind.UNKNOWN  # maybe a pytree or an object ...
    assert values["bigger"] is Kind.TRACED  # ... but compared, only a tracer gives this
    assert values["total"] is Kind.TRACED  # ... or reduced by an array method
    assert kind_of(values["copied"]) is Kind.UNKNOWN  # a dict or a list has `copy` too
    assert values["shape"] is Kind.STATIC  # a static escape


def test_the_shape_of_an_unseen_calls_result_is_a_python_value():
    # dynamiqs's `x = to_jax(x)` in a jitted function: whatever array (or array-like object)
    # the call gives, its shape, ndim and dtype are Python values while tracing.
    source = """
    import jax
    from mylib import to_jax

    @jax.jit
    def f(x):
        y = to_jax(x)
        rows = y.shape[-1]
        same = rows != 3
        bigger = y > 0
        return same, bigger
    """
    values = final_values(source, "f")
    assert values["rows"] is Kind.STATIC
    assert values["same"] is Kind.STATIC
    assert values["bigger"] is Kind.TRACED  # the value itself is still traced once compared


def test_a_helper_returning_a_shape_of_tracers_gives_a_python_value():
    # dynamiqs's `_hdim(x)`: `x.shape[-1]` of its parameter. Of unknown parameters the summary
    # is unknown; of tracers it is a Python int, not something computed from them.
    source = """
    import jax
    from mylib import to_jax

    def _hdim(x):
        return x.shape[-2] if x.shape[-1] == 1 else x.shape[-1]

    def _first(x):
        return x[0]

    @jax.jit
    def f(x):
        y = to_jax(x)
        direct = _hdim(x) != 3
        through = _hdim(y) != 3
        item = _first(x) != 3
        return direct, through, item
    """
    values = final_values(source, "f")
    assert values["direct"] is Kind.STATIC
    assert values["through"] is Kind.STATIC
    assert values["item"] is Kind.TRACED  # an element of a tracer stays traced


def test_a_method_no_array_has_of_a_traced_object_given_nothing_traced_is_unknown():
    # jaxsim's `model.number_of_joints()`: `len` of a static field, a Python int; the same
    # spelling may read a leaf, so the model claims neither. Given a traced argument, or an
    # array method, the call computes with tracers.
    source = """
    import jax
    from mylib import Model

    @jax.jit
    def f(model: Model, x):
        joints = model.number_of_joints() > 0
        energy = model.energy(x) > 0
        total = model.sum() > 0
        return joints, energy, total
    """
    values = final_values(source, "f")
    assert values["joints"] is Kind.UNKNOWN
    assert values["energy"] is Kind.TRACED
    assert values["total"] is Kind.TRACED


def test_no_unseen_call_rule_outside_abstract_tracing():
    values = final_values(
        "from mylib import norm\n\ndef f(v):\n    big = norm(v) > 1.0\n    return big\n", "f"
    )
    assert values["big"] is Kind.UNKNOWN


def test_a_loop_body_carry_is_shaped_like_the_initial_carry():
    source = """
    import jax
    from jax import lax

    @jax.jit
    def f(x):
        def body(carry):
            return carry

        def count(i, state):
            return state

        out = lax.while_loop(lambda c: c[0] < 3, body, (0, x))
        return lax.fori_loop(0, 3, count, {"n": x})
    """
    assert final_values(source, "f.body")["carry"] == Container("tuple", (Kind.TRACED, Kind.TRACED))
    assert final_values(source, "f.count")["state"] == Container("dict", (Kind.TRACED,), ("n",))
    assert final_values(source, "f.count")["i"] is Kind.TRACED


def test_a_carry_leaf_is_traced_whatever_the_initial_value():
    # `(n, 0)` with `n` a parameter of an untraced function: the init's `n` is unknown, yet
    # every leaf of the carry is a tracer in the body; the tuple itself stays a Python tuple.
    source = """
    from jax import lax

    def run(n, opts):
        def body(state):
            return state

        def count(i, state):
            return state

        lax.while_loop(lambda s: s[0] > 1, body, (n, 0))
        return lax.fori_loop(0, 3, count, ({"w": n}, opts))
    """
    assert final_values(source, "run.body")["state"] == Container(
        "tuple", (Kind.TRACED, Kind.TRACED)
    )
    nested = Container("dict", (Kind.TRACED,), ("w",))
    count = final_values(source, "run.count")["state"]
    assert count == Container("tuple", (nested, Kind.TRACED))


def test_slices_and_iteration_of_containers():
    source = """
    import jax
    from jax import lax

    @jax.jit
    def f(x):
        pair = (x, x)
        rest = pair[1:]
        first = pair[0]
        for key in {"a": x}:
            name = key
        return rest
    """
    values = final_values(source, "f")
    assert values["rest"] == Container("tuple", leaf=Kind.TRACED)  # a tuple: truthy
    assert values["first"] is Kind.TRACED
    assert kind_at(source, "f", "name") is Kind.STATIC  # iterating a dict gives its keys


def test_a_top_level_call_of_a_module_function_gives_what_it_returns():
    model = model_of(
        """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def init(key):
            return {"w": jax.random.normal(key, (3, 3)), "b": jnp.zeros(3)}

        def host():
            return np.zeros(3), 1

        params = init(jax.random.PRNGKey(0))
        table, count = host()
        """
    )
    assert model.global_values["params"] == Container("dict", (Kind.ARRAY, Kind.ARRAY), ("w", "b"))
    assert model.global_values["table"] is Kind.NUMPY
    assert model.global_values["count"] is Kind.STATIC


def test_globals_follow_an_edit_of_the_function_top_level_code_calls():
    before = """
        import jax.numpy as jnp

        def make():
            return jnp.zeros(3)

        x = make()
        """
    model = model_of(before)
    assert model.global_values["x"] is Kind.ARRAY
    after = textwrap.dedent(before).replace("jnp.zeros(3)", "[0.0, 0.0]")
    edited = ModuleModel(Document(after, previous=model.document))
    assert edited.global_values["x"] == Container("list", (Kind.STATIC, Kind.STATIC))


def test_self_of_an_untraced_method_holds_what_the_class_assigns():
    source = """
        import jax.numpy as jnp
        import numpy as np

        class Buffer:
            def __init__(self, n):
                self.data = jnp.zeros(n)
                self.host = np.zeros(n)
                self.pos = 0
                self.mixed = jnp.zeros(n)

            def push(self, v):
                self.data = self.data.at[self.pos].set(v)
                self.mixed = np.ones(3)
                data, host, pos, mixed = self.data, self.host, self.pos, self.mixed
        """
    values = final_values(source, "Buffer.push")
    assert values["data"] is Kind.ARRAY  # also after `self.data = self.data.at[...].set(v)`
    assert values["host"] is Kind.NUMPY
    assert values["pos"] is Kind.STATIC
    assert values["mixed"] is Kind.UNKNOWN  # a JAX array here, a NumPy one there


def test_an_attribute_set_from_outside_or_by_a_subclass_is_unknown():
    source = """
        import jax.numpy as jnp
        import numpy as np

        class Buffer:
            def __init__(self, n):
                self.data = jnp.zeros(n)
                self.other = jnp.zeros(n)

            def push(self, v):
                data, other = self.data, self.other

        buffer = Buffer(3)
        buffer.data = np.zeros(3)
        """
    values = final_values(source, "Buffer.push")
    assert values["data"] is Kind.UNKNOWN
    assert values["other"] is Kind.ARRAY
    subclassed = textwrap.dedent(source) + "\nclass Host(Buffer):\n    pass\n"
    assert final_values(subclassed, "Buffer.push")["other"] is Kind.UNKNOWN


def test_a_local_name_of_the_method_does_not_read_a_global_of_that_name():
    values = final_values(
        """
        import jax.numpy as jnp
        import numpy as np

        x = jnp.zeros(3)

        class Buffer:
            def __init__(self):
                x = np.zeros(3)
                self.data = x

            def push(self, v):
                data = self.data
        """,
        "Buffer.push",
    )
    assert values["data"] is Kind.UNKNOWN


def test_a_container_of_tracers_passed_to_a_function_keeps_its_structure():
    source = """
        import jax
        from jax.tree_util import tree_map

        def coords(sizes, scale):
            if not isinstance(sizes, tuple):
                sizes = (sizes,)
            grids = tree_map(axis, sizes)
            first, count = sizes
            return grids

        def axis(n):
            return n

        @jax.jit
        def apply(n):
            return coords((n, 3), 2.0)
        """
    model = model_of(source)
    assert model.trace[model.functions["axis"].node].traced_params == {"n"}  # tree_map leaves
    values = final_values(source, "coords")
    assert values["sizes"] == Container("tuple", (Kind.TRACED, Kind.STATIC))  # no `not` branch
    assert values["first"] is Kind.TRACED
    assert values["count"] is Kind.STATIC


def test_isinstance_of_a_known_tuple_decides_the_branch():
    values = final_values(
        """
        def f(x):
            pair = (x, 1)
            if isinstance(pair, list):
                pair = None
            if isinstance(pair, (tuple, list)):
                kept = pair
            else:
                kept = 0
        """,
        "f",
    )
    assert values["pair"] == Container("tuple", (Kind.UNKNOWN, Kind.STATIC))
    assert values["kept"] == values["pair"]


def test_optax_results_are_shaped_like_their_tree_argument():
    env = final_values(
        """
        import jax.numpy as jnp
        import numpy as np
        import optax
        from optax import tree_utils as otu

        def f(p, u):
            params = {"w": jnp.ones(2), "b": (np.zeros(1), 1.0)}
            new = optax.apply_updates(params, u)
            scaled = otu.tree_scale(0.5, params)
            unknown = optax.apply_updates(p, u)
            return new
        """,
        "f",
    )
    leaves = Container("tuple", (Kind.ARRAY, Kind.ARRAY))  # NumPy leaves come back as jax arrays
    assert env["new"] == Container("dict", (Kind.ARRAY, leaves), ("w", "b"))
    assert env["scaled"] == env["new"]
    assert env["unknown"] is Kind.UNKNOWN  # nothing known of `p`: nothing claimed


def test_an_optax_norm_is_traced_under_jit_even_of_python_values():
    source = """
    import jax
    import optax

    @jax.jit
    def f(grads, x):
        big = optax.global_norm(grads) > 1.0
        sized = optax.global_norm(x.shape) > 1.0
        fixed = optax.global_norm([1.0, 2.0]) > 1.0
        tx = optax.sgd(0.1)
        stepped = optax.apply_updates(grads, grads)
        return big, sized, fixed, tx, stepped
    """
    values = final_values(source, "f")
    assert values["big"] is Kind.TRACED
    # optax computes the norm with jnp, which under jit traces constants too: measured,
    # `if optax.global_norm([1.0, 2.0]) > 1.0:` in a jitted function raises
    # TracerBoolConversionError, as does the norm of `x.shape`
    assert values["sized"] is Kind.TRACED
    assert values["fixed"] is Kind.TRACED
    assert kind_of(values["tx"]) is Kind.UNKNOWN  # an object, built from Python values
    assert kind_of(values["stepped"]) is Kind.TRACED  # shaped like the tree it updates


def test_optax_losses_and_norms_are_jax_arrays_of_numpy_inputs_too():
    source = """
    import numpy as np
    import optax
    from optax import losses

    def f(logits, labels):
        ce = optax.softmax_cross_entropy_with_integer_labels(np.ones((2, 3)), np.zeros(2, int))
        norm = optax.global_norm({"w": np.ones(3)})
        l2 = losses.l2_loss(np.ones(3))
        squared = optax.squared_error(np.ones(3))  # NumPy in, NumPy out: not claimed
        smoothed = optax.smooth_labels(np.ones((2, 3)), 0.1)  # the same
        unknown = optax.softmax_cross_entropy(logits, labels).mean()
        return ce, norm, l2, squared, smoothed, unknown
    """
    values = final_values(source, "f")
    assert values["ce"] is values["norm"] is values["l2"] is Kind.ARRAY
    assert values["unknown"] is Kind.ARRAY  # a JAX array whatever it is given
    assert values["squared"] is values["smoothed"] is Kind.UNKNOWN
    # what optax really gives (the truth the model claims)
    import jax
    import numpy as np
    import optax

    assert isinstance(optax.l2_loss(np.ones(3)), jax.Array)
    assert isinstance(optax.global_norm({"w": np.ones(3)}), jax.Array)
    assert isinstance(optax.squared_error(np.ones(3)), np.ndarray)
    assert isinstance(optax.smooth_labels(np.ones((2, 3)), 0.1), np.ndarray)


def test_a_field_of_a_jit_parameter_of_unknown_class_is_traced_once_compared():
    source = """
    import jax
    import equinox as eqx

    @jax.jit
    def f(state, x: jax.Array, cfg):
        late = state.step > 10
        mode = state.mode == "complex"  # a tracer never equals a str: a Python bool
        shaped = x.shape[0] > 1
        return late, mode, shaped

    @eqx.filter_jit
    def g(model, x):
        scaled = model.s > 1.0  # a float field stays a Python float under filter_jit
        return scaled

    h = jax.jit(f, static_argnames="cfg")
    """
    values = final_values(source, "f")
    assert values["late"] is Kind.TRACED
    assert values["mode"] is Kind.STATIC
    assert values["shaped"] is Kind.STATIC
    assert final_values(source, "g")["scaled"] is Kind.UNKNOWN


def test_a_traced_value_compared_with_none_is_a_python_bool():
    # jax arrays return NotImplemented from `==`/`!=` with None: Python tests identity.
    source = """
    import jax

    @jax.jit
    def f(x, table):
        given = table != None
        missing = None == table
        positive = x != 0
        return given, missing, positive
    """
    values = final_values(source, "f")
    assert values["given"] is Kind.STATIC
    assert values["missing"] is Kind.STATIC
    assert values["positive"] is Kind.TRACED


# -- flags every trace gives a parameter ----------------------------------------------------
FLAG_GUARD = """
import jax
import jax.numpy as jnp

def check(x, strict=False, cache=None):
    {rebind}
    if strict and cache is None:
        if jnp.sum(x) > 0:
            raise ValueError("positive")
    return x

@jax.jit
def first(x):
    return check(x, {first})

@jax.jit
def second(x):
    return check(x, {second})
"""


def _guard_findings(rebind: str = "pass", first: str = "", second: str = "") -> list[int]:
    """The 0-based lines of JAX701 findings: line 7 is `if jnp.sum(x) > 0:`."""
    source = FLAG_GUARD.format(rebind=rebind, first=first, second=second)
    return [f.span.start.line for f in findings_of(source, ("JAX701",))]


def test_a_branch_every_trace_turns_off_with_a_flag_holds_no_tracers():
    assert _guard_findings() == []  # both leave strict=False
    assert _guard_findings(first="strict=False", second="cache=1") == []
    assert _guard_findings(first="True, False", second="strict=True, cache=False") == []
    # strict in both, and a cache that one trace leaves None: the check runs there
    assert _guard_findings(first="True, cache=None", second="strict=True, cache=x") == [7]


def test_a_flag_that_some_trace_turns_on_decides_nothing():
    assert _guard_findings(first="strict=True") == [7]
    assert _guard_findings(first="strict=True", second="strict=True") == [7]


def test_a_rebound_flag_parameter_decides_nothing():
    assert _guard_findings(rebind="strict = not strict") == [7]
    assert _guard_findings(rebind="for strict in (True,): pass") == [7]
