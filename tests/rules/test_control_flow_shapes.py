"""Edge cases of JAX701-703 and JAX801-803 beyond the documented examples."""

from __future__ import annotations

import textwrap

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics.control_flow import PythonLogicOnTraced
from jax_lsp.engine import analyze
from tests.conftest import findings_of

CODES = ("JAX701", "JAX702", "JAX703", "JAX801", "JAX802", "JAX803")


def flagged(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source, CODES)]


def test_condition_with_and_is_reported_once_as_a_branch():
    source = """
        import jax

        @jax.jit
        def f(x, y):
            if x > 0 and not y > 0:
                return x
            return y
    """
    assert flagged(source) == [(5, "JAX701")]


def test_logic_in_value_position_is_jax702_once_for_nested_operators():
    source = """
        import jax

        @jax.jit
        def f(x, y):
            return not (x > 0 and y > 0)
    """
    assert flagged(source) == [(5, "JAX702")]


def test_static_first_operand_is_not_flagged():
    source = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="use")
        def f(x, use):
            keep = use and x > 0
            return keep
    """
    assert flagged(source) == []


def test_logic_fix_adds_the_import_when_jax_numpy_is_not_imported():
    source = textwrap.dedent(
        """
        from jax import jit

        @jit
        def f(x):
            return x > 0 and x < 1
        """
    ).lstrip()

    def run(text: str):
        return analyze(Document(text), (PythonLogicOnTraced,)).findings

    fixed, applied = fix_text(source, run)
    assert applied == 1
    assert fixed.startswith("from jax import jit\nimport jax.numpy as jnp\n\n@jit")
    assert "return jnp.logical_and(x > 0, x < 1)" in fixed


def test_non_boolean_or_gets_no_fix():
    source = """
        import jax

        @jax.jit
        def f(x, default):
            return x or default
    """
    (finding,) = findings_of(source, ("JAX702",))
    assert finding.fix is None


def test_positional_in_axes_keep_unbatched_arguments_static():
    source = """
        import jax
        import jax.numpy as jnp

        def pool(x, size):
            if size > 2:
                return jnp.zeros(size)
            return x[:size]

        batched = jax.vmap(pool, (0, None))
    """
    assert flagged(source) == []


def test_loop_body_parameters_beyond_the_carry_are_not_traced():
    source = """
        from jax import lax

        def body(i, carry, causal=None):
            if causal:
                return carry
            return carry + i

        out = lax.fori_loop(0, 3, body, 0)
    """
    assert flagged(source) == []


def test_positional_argnums_of_grad():
    source = """
        import jax

        def loss(a, w):
            return float(w) * a + float(a)

        g = jax.grad(loss, 1)
    """
    assert flagged(source) == [(4, "JAX703")]


def test_int_and_item_are_fine_under_grad_alone():
    source = """
        import jax

        def loss(w):
            return w * int(w) * w.item()

        g = jax.grad(loss)
    """
    assert flagged(source) == []


def test_axis_size_is_static():
    source = """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def shard(x, axis_name):
            n = lax.axis_size(axis_name)
            return jnp.zeros(n) if n > 1 else x

        f = jax.jit(shard, static_argnames="axis_name")
    """
    assert flagged(source) == []


def test_mask_name_rebound_to_a_non_boolean_is_not_a_mask():
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            idx = x > 0
            idx = jnp.argmax(x)
            return x[idx]
    """
    assert flagged(source) == []


def test_numpy_reductions_that_dispatch_to_the_array_are_not_flagged():
    source = """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            return np.sum(x), np.mean(x), np.max(x), np.shape(x)
    """
    assert flagged(source) == []


def test_a_static_comparison_before_a_traced_operand_lets_it_be_tested():
    # Each runs under jax.jit: `f` raises for a 2-D `p`; `g` runs (the guards fail first).
    source = """
        import jax

        @jax.jit
        def f(p):
            if p.ndim > 1 and p.sum() > 0:
                return p
            if p.shape[0] == 3 or p.max() > 1:
                return p
            return p

        @jax.jit
        def g(p, q=None):
            if q is not None and q.sum() > 0:
                return p
            if isinstance(p, float) and p > 0:
                return p
            return p
    """
    assert flagged(source) == [(5, "JAX701"), (7, "JAX701")]


def test_conversion_advice_offers_static_arguments_only_for_parameters():
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def step(w, n):
            loss = jnp.sum(w**2)
            return w * float(n), loss.item()
    """
    messages = [f.message for f in findings_of(source, ("JAX703",))]
    assert len(messages) == 2
    assert "static_argnames" in messages[0] and "`float()`" in messages[0]
    assert "static_argnames" not in messages[1] and "jax.debug.print" in messages[1]


def test_arange_of_one_traced_argument_names_it_the_stop():
    # `jnp.arange(n)` is a length to its writer: the message says `stop`, as JAX
    # reads it; with a start given, the traced one is named as passed
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(n, x):
            return jnp.arange(n) + jnp.arange(n, 10).sum() + x
    """
    messages = [f.message for f in findings_of(source, ("JAX803",))]
    assert len(messages) == 2
    assert messages[0].startswith("The `stop` of `jnp.arange`"), messages[0]
    assert messages[1].startswith("The `start` of `jnp.arange`"), messages[1]


def test_an_update_at_a_traced_boolean_mask_is_told_to_use_where():
    # `.at[mask]` raises NonConcreteBooleanIndexError under jit as `x[mask]` does (a
    # causal mask): the message points to what the fix writes, not to `.at`
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(scores):
            mask = jnp.triu(jnp.ones(scores.shape, dtype=bool), k=1)
            scores[mask] = -jnp.inf
            scores[mask] += 1.0
            scores[0] = 1.0
            return scores
    """
    messages = [f.message for f in findings_of(source, ("JAX201", "JAX202"))]
    assert len(messages) == 3
    assert all("jnp.where(mask, ..., scores)" in m for m in messages[:2]), messages
    assert messages[2].endswith("Use `scores = scores.at[...].set(...)`"), messages[2]


def test_the_masked_fill_the_message_advises_is_the_reductions_identity():
    """`jnp.where(mask, x, 0.0)` feeding a product zeroes it: the message names the identity
    of the reduction that consumes `x[mask]` (as the fix writes it), 0.0 for a sum or any
    other use."""
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            a = x[x > 0].prod()
            b = jnp.max(x[x > 1])
            c = x[x > 2].sum()
            y = x[x > 3]
            return a + b + c + y.min() + x[x > 4]
    """
    advised = [f.message.split("Use `")[1].split("`")[0] for f in findings_of(source, ("JAX801",))]
    assert advised == [
        "jnp.where(x > 0, x, 1)",
        "jnp.where(x > 1, x, -jnp.inf)",
        "jnp.where(x > 2, x, 0.0)",
        "jnp.where(x > 3, x, jnp.inf)",
        "jnp.where(x > 4, x, 0.0)",
    ]
