"""In/out pairs for the fixes of JAX701 (jnp.where), JAX701/703/803 (static_argnames), JAX802
(size=/fill_value=) and JAX1001 (hoisting a jit): exact output text, comments and formatting
kept; and what gets no fix."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import apply_edits, fix_text
from jax_lsp.diagnostics.performance import JitInLoop
from jax_lsp.engine import analyze
from jax_lsp.findings import Applicability, Finding, Fix
from tests.codeactions.helpers import source
from tests.conftest import findings_of


def main_fix(finding: Finding) -> Fix | None:
    return finding.fix


def static_fix(finding: Finding) -> Fix | None:
    chosen = [fix for fix in (finding.fix, *finding.alternatives) if fix and "static" in fix.title]
    return chosen[0] if chosen else None


def fixed(text: str, code: str, pick: Callable[[Finding], Fix | None]) -> tuple[str, list[Fix]]:
    """`text` with the picked fix of every `code` finding applied (they must not overlap)."""
    fixes = [fix for finding in findings_of(text, (code,)) if (fix := pick(finding))]
    return apply_edits(text, [edit for fix in fixes for edit in fix.edits]), fixes


SAFE, UNSAFE = Applicability.SAFE, Applicability.UNSAFE

# (id, code, picker, input, expected output, applicability of every applied fix)
PAIRS = [
    (
        "802-index-functions",
        "JAX802",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def sparse(x, ids, other):
            nz = jnp.nonzero(x > 0)  # positives
            (where_idx,) = jnp.where(~x)
            hits = jnp.argwhere(x)
            flat = jnp.flatnonzero(x.T)
            method = (x > 1).nonzero()
            return nz, where_idx, hits, flat, method
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def sparse(x, ids, other):
            nz = jnp.nonzero(x > 0, size=x.size, fill_value=x.size)  # positives
            (where_idx,) = jnp.where(~x, size=x.size, fill_value=x.size)
            hits = jnp.argwhere(x, size=x.size, fill_value=x.size)
            flat = jnp.flatnonzero(x.T, size=x.T.size, fill_value=x.T.size)
            method = (x > 1).nonzero(size=x.size, fill_value=x.size)
            return nz, where_idx, hits, flat, method
        """,
        UNSAFE,
    ),
    (
        "802-sets-and-selection",
        "JAX802",
        main_fix,
        """
        import jax
        import jax.numpy as np

        @jax.jit
        def sets(x, a, b):
            u = np.unique(a, return_counts=True)
            v, c = np.unique_counts(a)
            both = np.union1d(a, b)
            common = np.intersect1d(a, b)
            only = np.setdiff1d(a + 1, b)
            kept = np.compress(x > 0, x[0])
            picked = np.extract(
                x > 0,
                x,  # the values
            )
            return u, v, c, both, common, only, kept, picked
        """,
        """
        import jax
        import jax.numpy as np

        @jax.jit
        def sets(x, a, b):
            u = np.unique(a, return_counts=True, size=a.size)
            v, c = np.unique_counts(a, size=a.size)
            both = np.union1d(a, b, size=a.size + b.size)
            common = np.intersect1d(a, b, size=a.size)
            only = np.setdiff1d(a + 1, b, size=a.size)
            kept = np.compress(x > 0, x[0], size=x[0].size, fill_value=0)
            picked = np.extract(
                x > 0,
                x, size=x.size, fill_value=0,  # the values
            )
            return u, v, c, both, common, only, kept, picked
        """,
        UNSAFE,
    ),
    (
        "802-fill-value-given-axis-no-fix",
        "JAX802",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            a = jnp.nonzero(x, fill_value=0)
            b = jnp.unique(x, axis=0)
            c = jnp.compress(x > 0, y, 0)
            return a, b, c
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            a = jnp.nonzero(x, fill_value=0, size=x.size)
            b = jnp.unique(x, axis=0)
            c = jnp.compress(x > 0, y, 0)
            return a, b, c
        """,
        UNSAFE,
    ),
    (
        "701-if-else-assign-comments-kept",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, lo):
            # before
            if x > lo:  # inside
                y = jnp.sin(x) * 2
            else:
                y = lo
            return y  # after
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, lo):
            # before
            y = jnp.where(x > lo, jnp.sin(x) * 2, lo)  # inside
            return y  # after
        """,
        SAFE,
    ),
    (
        "701-if-else-return-several-comments",
        "JAX701",
        main_fix,
        """
        import jax
        from jax import numpy as jn

        @jax.vmap
        def f(x):
            if x > 0:
                # positive
                return x
            else:
                return -x  # negative
        """,
        """
        import jax
        from jax import numpy as jn

        @jax.vmap
        def f(x):
            # positive
            # negative
            return jn.where(x > 0, x, -x)
        """,
        SAFE,
    ),
    (
        "701-if-return-then-return",
        "JAX701",
        main_fix,
        """
        import jax

        @jax.jit
        def relu(x):
            if x > 0:
                return x
            return 0.0 * x
        """,
        """
        import jax

        @jax.jit
        def relu(x):
            return jax.numpy.where(x > 0, x, 0.0 * x)
        """,
        SAFE,
    ),
    (
        # jnp.where differentiates the value not selected too: sqrt's derivative is infinite
        # at 0 and NaN below. The "double where" guards sqrt's input (unsafe all the same).
        "701-where-over-sqrt-guards-its-input",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def safe_sqrt(x):
            if x > 0:
                return jnp.sqrt(x)
            return 0.0
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def safe_sqrt(x):
            return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)
        """,
        UNSAFE,
    ),
    (
        "701-where-over-division-by-a-value-is-unsafe",
        "JAX701",
        main_fix,
        """
        import jax

        @jax.jit
        def f(x, n):
            y = x if n == 0 else x / n
            return y
        """,
        """
        import jax

        @jax.jit
        def f(x, n):
            y = jax.numpy.where(n == 0, x, x / jax.numpy.where(n == 0, 1.0, n))
            return y
        """,
        UNSAFE,
    ),
    (
        # exp can overflow to inf where its branch is not taken: its input is guarded there.
        "701-where-over-exp-guards-its-input",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            y = jnp.exp(x) if x < 80 else x
            return y
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            y = jnp.where(x < 80, jnp.exp(jnp.where(x < 80, x, 0.0)), x)
            return y
        """,
        UNSAFE,
    ),
    (
        # cosh overflows too and has no guard known: the plain rewrite, unsafe.
        "701-where-over-cosh-is-unsafe-and-unguarded",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            if x < 80:
                return jnp.cosh(x)
            return x
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return jnp.where(x < 80, jnp.cosh(x), x)
        """,
        UNSAFE,
    ),
    (
        "701-where-over-smooth-values-is-safe",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            z = jnp.maximum(x, 0.5) * y[0] - x**2 / 2 if x > y[1] else -jnp.abs(x)
            return z
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            z = jnp.where(x > y[1], jnp.maximum(x, 0.5) * y[0] - x**2 / 2, -jnp.abs(x))
            return z
        """,
        SAFE,
    ),
    (
        "701-conditional-expression-adds-import",
        "JAX701",
        main_fix,
        """
        from jax import jit

        @jit
        def soft_abs(x):
            return (x if x > 0 else -x) + 1
        """,
        """
        from jax import jit
        import jax.numpy as jnp

        @jit
        def soft_abs(x):
            return (jnp.where(x > 0, x, -x)) + 1
        """,
        SAFE,
    ),
    (
        "701-side-effects-are-unsafe",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, log):
            if x > 0:
                y = record(x, log)
            else:
                y = x
            return y
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, log):
            y = jax.lax.cond(x > 0, lambda: record(x, log), lambda: x)
            return y
        """,
        UNSAFE,
    ),
    (
        "701-if-without-else-selects-the-unchanged-value",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, c):
            y = x + 1
            if c > 0:  # double it
                y = y * 2
            for i in range(2):
                if x > i:
                    x -= jnp.abs(x - i)
            return x, y
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, c):
            y = x + 1
            y = jnp.where(c > 0, y * 2, y)  # double it
            for i in range(2):
                x = jnp.where(x > i, x - jnp.abs(x - i), x)
            return x, y
        """,
        SAFE,
    ),
    (
        # `y`'s shape is not known to be `x`'s: `where` would broadcast `x` against it.
        "701-update-by-a-value-of-unknown-shape-is-unsafe",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            for i in range(2):
                if x > i:
                    x -= jnp.abs(y - i)
            return x
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            for i in range(2):
                x = jnp.where(x > i, x - jnp.abs(y - i), x)
            return x
        """,
        UNSAFE,
    ),
    (
        "701-calls-branch-with-lax-cond",
        "JAX701",
        main_fix,
        """
        from jax import jit, lax
        import jax.numpy as jnp

        def expensive(x):
            return jnp.linalg.inv(x)

        @jit
        def f(x, flag):
            if flag:
                x @= expensive(x)
            if flag > 1:
                return expensive(x) + 1
            return x
        """,
        """
        from jax import jit, lax
        import jax.numpy as jnp

        def expensive(x):
            return jnp.linalg.inv(x)

        @jit
        def f(x, flag):
            x = lax.cond(flag, lambda: x @ expensive(x), lambda: x)
            return lax.cond(flag > 1, lambda: expensive(x) + 1, lambda: x)
        """,
        UNSAFE,
    ),
    (
        "701-no-rewrite-for-recursion-or-an-unbound-name",
        "JAX701",
        main_fix,
        """
        import jax

        @jax.jit
        def is_even(n):
            if n == 0:
                return True
            return is_odd(n - 1)

        @jax.jit
        def is_odd(n):
            return False if n == 0 else check_even(n - 1)

        def check_even(n):
            return is_even(n)

        @jax.jit
        def f(x):
            if x > 0:
                z = x
            return x
        """,
        None,
        None,
    ),
    (
        "701-logic-condition-rewritten",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, lo, hi):
            return x if x > lo and not x > hi else lo
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, lo, hi):
            return jnp.where(jnp.logical_and(x > lo, not x > hi), x, lo)
        """,
        SAFE,
    ),
    (
        "701-no-where-fix-for-elif-tuples-other-names",
        "JAX701",
        main_fix,
        """
        import jax

        @jax.jit
        def f(x):
            if x > 0:
                a = 1
            elif x < -1:
                a = 2
            else:
                a = 3
            if x > 1:
                b = x
            else:
                c = x
            if x > 2:
                return x, [x]
            else:
                return x, [-x]
            if x > 3:
                return x, x
            return x, x, x
            return None if x > 3 else x
        """,
        None,
        None,
    ),
    (
        # A tuple returned by each branch: one `jnp.where` per element, each guarded as needed.
        "701-tuple-returns-select-each-element",
        "JAX701",
        main_fix,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            if x > 0:
                return jnp.log(x), 1
            return -x, 0
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1.0)), -x), jnp.where(x > 0, 1, 0)
        """,
        UNSAFE,
    ),
    (
        "701-static-alternative-wraps-jit-in-partial",
        "JAX701",
        static_fix,
        """
        import jax

        @jax.jit
        def scale(x, training):
            if training:
                x = x * 0.5
            return x
        """,
        """
        import jax
        from functools import partial

        @partial(jax.jit, static_argnames=("training",))
        def scale(x, training):
            if training:
                x = x * 0.5
            return x
        """,
        UNSAFE,
    ),
    (
        "703-static-extends-a-string",
        "JAX703",
        static_fix,
        """
        import functools

        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnames='k', donate_argnums=0)
        def power_sum(x, n, k):
            return sum(x**i for i in range(n)) * k
        """,
        """
        import functools

        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnames=('k', 'n'), donate_argnums=0)
        def power_sum(x, n, k):
            return sum(x**i for i in range(n)) * k
        """,
        UNSAFE,
    ),
    (
        "803-static-extends-list-and-adds-keyword",
        "JAX803",
        static_fix,
        """
        from functools import partial

        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=["m"])
        def pad(x, n: int, m):
            return jnp.zeros(n) * m

        @jax.jit(donate_argnums=0)
        def head(x, n):
            return x[:n]

        @jax.jit()
        def grid(n):
            return jnp.ones((n, 3))

        @partial(
            jax.jit,
            static_argnames=(
                "a",
            ),
        )
        def multi(a, n):
            return jnp.arange(n) * a
        """,
        """
        from functools import partial

        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=["m", "n"])
        def pad(x, n: int, m):
            return jnp.zeros(n) * m

        @jax.jit(donate_argnums=0, static_argnames=("n",))
        def head(x, n):
            return x[:n]

        @jax.jit(static_argnames=("n",))
        def grid(n):
            return jnp.ones((n, 3))

        @partial(
            jax.jit,
            static_argnames=(
                "a", "n",
            ),
        )
        def multi(a, n):
            return jnp.arange(n) * a
        """,
        UNSAFE,
    ),
    (
        "803-no-static-fix",
        "JAX803",
        static_fix,
        """
        import jax
        import jax.numpy as jnp
        from functools import partial

        def body(x, n):
            return jnp.zeros(n)

        jitted = jax.jit(body)

        @partial(jax.jit, static_argnums=0)
        def by_position(x, n):
            return jnp.zeros(n)

        @jax.jit
        def array_like(x, n):
            return jnp.zeros(n[0]) + jnp.zeros(n)

        @jax.jit
        def annotated(x, n: jax.Array):
            return jnp.zeros(n)

        @jax.jit
        @jax.vmap
        def mapped(n):
            return jnp.zeros(n)

        @jax.jit
        def derived(x, n):
            return jnp.zeros(abs(n))
        """,
        None,
        None,
    ),
    (
        "1001-assignment-moves-above-the-loop",
        "JAX1001",
        main_fix,
        """
        import jax

        def run(x, steps, scale):
            total = 0
            for i in range(steps):
                # jitted per step
                step = jax.jit(
                    lambda v: v * scale  # scaled
                )
                x = step(x) + i
            return x
        """,
        """
        import jax

        def run(x, steps, scale):
            total = 0
            step = jax.jit(
                lambda v: v * scale  # scaled
            )
            for i in range(steps):
                # jitted per step
                x = step(x) + i
            return x
        """,
        UNSAFE,
    ),
    (
        "1001-immediate-call-gets-a-fresh-name",
        "JAX1001",
        main_fix,
        """
        import jax

        jitted = None
        while x.sum() < 10:
            x = jax.jit(lambda v: v * 2)(x)
        """,
        """
        import jax

        jitted = None
        jitted_2 = jax.jit(lambda v: v * 2)
        while x.sum() < 10:
            x = jitted_2(x)
        """,
        UNSAFE,
    ),
    (
        "1001-jit-of-a-fresh-grad-gets-a-fresh-name",
        "JAX1001",
        main_fix,
        """
        import jax

        def loss(w, x):
            return (w * x).sum()

        def make_loss(lr):
            return lambda w, x: lr * loss(w, x)

        for i in range(5):
            g = jax.jit(jax.grad(loss))(w, x)  # every step
            w = w - 0.1 * g
        for lr in (0.1, 0.01):
            g = jax.jit(jax.grad(make_loss(lr)))(w, x)
        """,
        # The second reads the loop's `lr`: each iteration makes another function.
        """
        import jax

        def loss(w, x):
            return (w * x).sum()

        def make_loss(lr):
            return lambda w, x: lr * loss(w, x)

        jitted = jax.jit(jax.grad(loss))
        for i in range(5):
            g = jitted(w, x)  # every step
            w = w - 0.1 * g
        for lr in (0.1, 0.01):
            g = jax.jit(jax.grad(make_loss(lr)))(w, x)
        """,
        UNSAFE,
    ),
    (
        "1001-loop-names-keep-it-in-place",
        "JAX1001",
        main_fix,
        """
        import jax

        def run(x, scales):
            for scale in scales:
                step = jax.jit(lambda v: v * scale)
                x = step(x)
            for _ in range(3):
                factor = 2
                x = jax.jit(lambda v: v * factor)(x)
            for _ in range(3):
                x = jax.jit(lambda v: v * 2)(x); y = 1
            for _ in range(3):
                step = jax.jit(lambda v: v)
                step = step if x else None
            return x
        """,
        # Hoisted whatever shares its line; `step`, bound twice, keeps its binding.
        """
        import jax

        def run(x, scales):
            for scale in scales:
                step = jax.jit(lambda v: v * scale)
                x = step(x)
            for _ in range(3):
                factor = 2
                x = jax.jit(lambda v: v * factor)(x)
            jitted = jax.jit(lambda v: v * 2)
            for _ in range(3):
                x = jitted(x); y = 1
            jitted = jax.jit(lambda v: v)
            for _ in range(3):
                step = jitted
                step = step if x else None
            return x
        """,
        UNSAFE,
    ),
]


@pytest.mark.parametrize(
    ("code", "pick", "text", "expected", "applicability"),
    [pair[1:] for pair in PAIRS],
    ids=[pair[0] for pair in PAIRS],
)
def test_fix_pair(code, pick, text, expected, applicability):
    text = source(text)
    output, fixes = fixed(text, code, pick)
    if expected is None:
        assert fixes == []
        return
    assert output == source(expected)
    assert {fix.applicability for fix in fixes} == {applicability}
    ast.parse(output)


def test_where_fix_titles_say_how_gradients_fare():
    titles = {}
    for name in (
        "701-where-over-sqrt-guards-its-input",
        "701-where-over-cosh-is-unsafe-and-unguarded",
    ):
        (pair,) = [p for p in PAIRS if p[0] == name]
        (finding,) = findings_of(source(pair[3]), ("JAX701",))
        titles[name] = finding.fix.title
    assert "guarding the inputs" in titles["701-where-over-sqrt-guards-its-input"]
    assert (
        "NaN where the value not selected" in titles["701-where-over-cosh-is-unsafe-and-unguarded"]
    )


def test_two_jits_in_one_loop_get_distinct_names_through_fix_text():
    """Same-place insertions go to separate passes; the nested loop's jit is left alone."""
    text = source(
        """
        import jax

        for _ in range(3):
            x = jax.jit(lambda v: v * 2)(x)
            for _ in range(2):
                y = jax.jit(lambda v: v + 1)(y)
            z = jax.jit(lambda v: v - 1)(z)
        """
    )
    output, applied = fix_text(
        text, lambda t: analyze(Document(t), (JitInLoop,)).findings, unsafe=True
    )
    assert output == source(
        """
        import jax

        jitted = jax.jit(lambda v: v * 2)
        jitted_2 = jax.jit(lambda v: v - 1)
        for _ in range(3):
            x = jitted(x)
            for _ in range(2):
                y = jax.jit(lambda v: v + 1)(y)
            z = jitted_2(z)
        """
    )
    assert applied == 2
