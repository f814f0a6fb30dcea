"""Causes of misses and false findings found on JAX's documentation read as notebooks
(bench/heldout-docs2): each with variants and clean counterparts, run under real JAX."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.engine import analyze
from tests.runtime import run_snippet


def codes(source: str) -> list[tuple[int, str]]:
    findings = analyze(Document(textwrap.dedent(source)), ALL_RULES).findings
    return sorted((f.span.start.line, f.code) for f in findings)


def runs_clean(source: str) -> bool:
    return run_snippet(textwrap.dedent(source)).error is None


# -- a jax.Ref passed through a transformation called at once (101-state[25]) -------------
REF_THROUGH_TRANSFORM = """
import jax
import jax.numpy as jnp

def scale_into(x, out_ref):
    out_ref[...] = 2.0 * x

xs = jnp.arange(3.0)
out_ref = jax.new_ref(jnp.zeros(3))
{call}(scale_into)(xs, out_ref)
"""


@pytest.mark.parametrize("call", ["jax.vmap", "jax.jit"])
def test_a_ref_passed_through_a_transformation_is_not_an_array(call):
    source = REF_THROUGH_TRANSFORM.format(call=call)
    assert runs_clean(source)
    assert codes(source) == []


def test_an_array_passed_through_a_transformation_is_still_flagged():
    source = REF_THROUGH_TRANSFORM.format(call="jax.vmap").replace(
        "jax.new_ref(jnp.zeros(3))", "jnp.zeros(3)"
    )
    assert isinstance(run_snippet(textwrap.dedent(source)).error, TypeError)
    assert codes(source) == [(5, "JAX201")]


# -- a module name bound again to the same constant (sharded-computation[17]) ------------
REBOUND_GLOBAL = """
import jax
import jax.numpy as jnp

SCALE = {first}

@jax.jit
def scaled(x):
    return x * SCALE

before = scaled(jnp.ones(2))
SCALE = {second}
after = scaled(jnp.ones(2))
"""


@pytest.mark.parametrize(
    ("first", "second"),
    [("3.0", "3.0"), ("jnp.pi", "jnp.pi"), ("jax.numpy.e", "jnp.e")],
)
def test_a_global_bound_again_to_the_same_constant_does_not_change(first, second):
    source = REBOUND_GLOBAL.format(first=first, second=second)
    outcome = run_snippet(textwrap.dedent(source), "assert float(after[0]) == float(before[0])")
    assert outcome.error is None
    assert codes(source) == []


@pytest.mark.parametrize(("first", "second"), [("3.0", "4.0"), ("jnp.pi", "jnp.e")])
def test_a_global_bound_again_to_another_value_is_still_stale(first, second):
    source = REBOUND_GLOBAL.format(first=first, second=second)
    stale = "assert float(after[0]) == float(before[0]) != float(SCALE)"
    assert run_snippet(textwrap.dedent(source), stale).error is None
    assert codes(source) == [(8, "JAX102")]


def test_an_alias_rebound_to_the_same_import_stays_clean():
    source = """
    import jax
    from jax.sharding import PartitionSpec

    P = jax.sharding.PartitionSpec

    @jax.jit
    def f(x):
        return jax.lax.with_sharding_constraint(x, jax.sharding.NamedSharding(MESH, P()))

    MESH = jax.sharding.Mesh(jax.devices(), ("x",))
    y = f(jax.numpy.ones(2))
    P = PartitionSpec
    """
    assert runs_clean(source)
    assert codes(source) == []


# -- a class name defined twice, as notebooks do (faq[8], 201-jit[23]) -------------------
PLAIN = """
class CustomClass:
    def __init__(self, x, mul=True):
        self.x, self.mul = x, mul

    @jax.jit
    def calc(self, y):
        return self.x * y if self.mul else y
"""
PYTREE = (
    PLAIN
    + """
    def _flatten(self):
        return (self.x,), {"mul": self.mul}

    @classmethod
    def _unflatten(cls, aux_data, children):
        return cls(*children, **aux_data)

jax.tree_util.register_pytree_node(CustomClass, CustomClass._flatten, CustomClass._unflatten)
"""
)


def _redefined(first: str, second: str) -> str:
    return f"import jax\n{first}\nplain_first = CustomClass(2, True)\n{second}\n"


def test_a_registration_registers_the_definition_the_name_holds_then():
    source = _redefined(PLAIN, PYTREE)
    outcome = run_snippet(source, "assert int(CustomClass(2, True).calc(3)) == 6")
    assert outcome.error is None
    assert isinstance(run_snippet(source, "plain_first.calc(3)").error, TypeError)
    first_jit = source.splitlines().index("    @jax.jit")
    assert codes(source) == [(first_jit, "JAX401")]  # the first class's `@jax.jit` only


def test_a_plain_class_defined_after_a_registered_one_is_flagged():
    source = _redefined(PYTREE, PLAIN)
    assert run_snippet(source, "assert int(plain_first.calc(3)) == 6").error is None
    assert isinstance(run_snippet(source, "CustomClass(2, True).calc(3)").error, TypeError)
    assert [code for _, code in codes(source)] == ["JAX401"]
    assert codes(source)[0][0] > PYTREE.count("\n")  # in the second definition


def test_static_self_with_writes_to_a_same_named_class_stays_quiet():
    hashed = PLAIN.replace("@jax.jit", "@partial(jax.jit, static_argnums=0)") + (
        "\n    def __hash__(self):\n        return hash((self.x, self.mul))\n"
        "\n    def __eq__(self, other):\n"
        "        return (self.x, self.mul) == (other.x, other.mul)\n"
    )
    source = (
        "from functools import partial\n"
        + _redefined(PLAIN, hashed)
        + "plain_first.mul = False\nc = CustomClass(2, True)\nvalue = c.calc(3)\n"
    )
    assert run_snippet(source, "assert int(value) == 6").error is None
    assert "JAX402" not in [code for _, code in codes(source)]


# -- an array's shape passed where jax.numpy needs an array (bench/heldout-docs3:
# 4410-omnistaging[6], `jnp.prod(x.shape)` under jit raises TypeError in JAX 0.10) --------
SHAPE_ARGUMENT = """
import math
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def size_of(x):
    return {expression}

size = size_of(jnp.ones((2, 3, 4)))
"""


@pytest.mark.parametrize(
    "expression",
    ["jnp.prod(x.shape)", "jnp.prod(x.shape[1:])", "jnp.sum(x.shape)", "jnp.max(x.shape)"],
)
def test_a_shape_passed_as_an_array_is_flagged(expression):
    source = SHAPE_ARGUMENT.format(expression=expression)
    assert isinstance(run_snippet(textwrap.dedent(source)).error, TypeError)
    assert codes(source) == [(8, "JAX501")]


@pytest.mark.parametrize(
    "expression",
    [
        "math.prod(x.shape)",
        "np.prod(x.shape)",
        "jnp.prod(jnp.array(x.shape))",
        "jnp.sqrt(x.shape[-1])",
        "jnp.zeros(x.shape).sum()",
        "jnp.reshape(x, x.shape).sum()",
    ],
)
def test_a_shape_used_as_a_shape_or_number_stays_clean(expression):
    source = SHAPE_ARGUMENT.format(expression=expression)
    assert runs_clean(source)
    assert codes(source) == []


def test_a_shape_outside_jit_is_flagged_for_jax_and_numpy_arrays():
    source = """
    import jax.numpy as jnp
    import numpy as np

    a = jnp.ones((2, 3))
    h = np.ones((2, 3))
    count = jnp.prod(a.shape)
    total = jnp.sum(h.shape)
    """
    first_line_only = source.replace("    total = jnp.sum(h.shape)\n", "")
    assert isinstance(run_snippet(textwrap.dedent(first_line_only)).error, TypeError)
    second_line_only = source.replace("    count = jnp.prod(a.shape)\n", "")
    assert isinstance(run_snippet(textwrap.dedent(second_line_only)).error, TypeError)
    assert codes(source) == [(6, "JAX501"), (7, "JAX501")]


def test_the_shape_of_an_object_not_known_to_be_an_array_stays_quiet():
    # `batch["tokens"]` may be anything with a `shape`: nothing says it is a tuple.
    source = """
    import jax.numpy as jnp

    def normalizer(batch):
        return jnp.prod(batch["tokens"].shape)
    """
    assert codes(source) == []


def test_a_shape_finding_follows_an_edit_of_the_receiver_in_another_unit():
    # The finding in `size` depends on what the module-level `a` holds (another unit).
    text = (
        "import jax.numpy as jnp\n\n"
        "a = jnp.ones((2, 3))\n\n\n"
        "def size():\n    return jnp.prod(a.shape)\n"
    )
    before = Document(text)
    assert [f.code for f in analyze(before, ALL_RULES).findings] == ["JAX501"]
    edited = text.replace("a = jnp.ones((2, 3))", "a = load_table()")
    after = Document(edited, previous=before)
    assert analyze(after, ALL_RULES).findings == analyze(Document(edited), ALL_RULES).findings
    assert not analyze(after, ALL_RULES).findings
    undone = Document(text, previous=after)
    assert [f.code for f in analyze(undone, ALL_RULES).findings] == ["JAX501"]
