"""JAX602 reports a consumed key where JAX's checker (`jax.debug_key_reuse`) stops: at its first
reuse on each way through the code. A later use of the same key (a split after the reuse, a
third draw) is never reached with it, and is not reported again. Each program runs under the
checker with every argument listed: the lines where it raises are the lines flagged."""

from __future__ import annotations

import textwrap
import traceback

import pytest

from tests.conftest import findings_of
from tests.runtime import run_snippet

jax = pytest.importorskip("jax")
from jax.errors import KeyReuseError  # noqa: E402  (after the skip: JAX may be missing)

# (id, program defining `f(key, arg)`, the `arg`s that take every way through it)
PROGRAMS = [
    (
        "split-after-reuse",
        """
        import jax

        def f(key, arg):
            a = jax.random.normal(key, (3,))
            b = jax.random.normal(key, (3,))
            key, subkey = jax.random.split(key)
            return a, b, jax.random.normal(subkey, (3,)), key
        """,
        [None],
    ),
    (
        "third-draw",
        """
        import jax

        def f(key, arg):
            a = jax.random.normal(key, (3,))
            b = jax.random.uniform(key, (3,))
            c = jax.random.bernoulli(key, 0.5, (3,))
            return a, b, c
        """,
        [None],
    ),
    (
        "reuse-on-one-way-only",
        """
        import jax

        def f(key, arg):
            a = jax.random.normal(key, (3,))
            if arg:
                a = a + jax.random.normal(key, (3,))
            return a + jax.random.uniform(key, (3,))
        """,
        [True, False],
    ),
    (
        "reuse-on-both-ways",
        """
        import jax

        def f(key, arg):
            a = jax.random.normal(key, (3,))
            if arg:
                b = jax.random.normal(key, (3,))
            else:
                b = jax.random.uniform(key, (3,))
            return a + b + jax.random.uniform(key, (3,))
        """,
        [True, False],
    ),
    (
        "loop-body-reuse-before-the-next-iteration",
        """
        import jax

        def f(key, arg):
            out = []
            for _ in range(3):
                a = jax.random.normal(key, (3,))
                out.append(a + jax.random.uniform(key, (3,)))
            return out
        """,
        [None],
    ),
    (
        "loop-body-reuse-on-some-iterations",
        """
        import jax

        def f(key, arg):
            out = []
            for i in range(3):
                a = jax.random.normal(key, (3,))
                if i == arg:
                    a = a + jax.random.uniform(key, (3,))
                out.append(a)
            return out
        """,
        [0, 5],
    ),
]


def _checker_lines(program: str, arg: object) -> int | None:
    """The program line (1-based) where JAX's checker raises for `f(key, arg)`, or None."""
    check = "with jax.debug_key_reuse(True):\n    f(jax.random.key(0), _arg)\n"
    outcome = run_snippet(program + f"\n_arg = {arg!r}\n", check)
    if not isinstance(outcome.error, KeyReuseError):
        assert outcome.error is None, outcome.error
        return None
    frames = traceback.extract_tb(outcome.error.__traceback__)
    return [frame.lineno for frame in frames if frame.filename == "<example>"][-1]


@pytest.mark.parametrize(("name", "program", "args"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_flagged_where_the_checker_raises(name: str, program: str, args: list):
    program = textwrap.dedent(program)
    flagged = {finding.span.start.line + 1 for finding in findings_of(program, ("JAX602",))}
    raised = {_checker_lines(program, arg) for arg in args}
    assert flagged == raised


def test_a_reuse_left_alone_by_intent_does_not_hide_the_next():
    # The same permutation of inputs and labels is the usual intent (not reported, though
    # the checker stops there); the draw after it is the first reuse reported.
    program = textwrap.dedent(
        """
        import jax

        def f(key, x, y):
            x = jax.random.permutation(key, x)
            y = jax.random.permutation(key, y)
            return x, y, jax.random.normal(key, (3,))
        """
    )
    findings = findings_of(program, ("JAX602",))
    assert [finding.span.start.line + 1 for finding in findings] == [7]


CARRIED = """
import jax
import jax.numpy as jnp


def body(i, carry):
    x, key = carry
    x = x.at[i].set(jax.random.normal(key))
    x = x.at[i].add(jax.random.uniform(key))
    return x, key


def run():
    return jax.lax.fori_loop(0, 3, body, (jnp.zeros(3), jax.random.key(11)))
"""


def test_a_loop_body_reusing_its_carried_key_is_reported_at_the_reuse_only():
    # The checker rejects the body's second draw within its first run; the next iteration,
    # which would draw again from the key the body hands on, is never reached.
    flagged = [f.span.start.line + 1 for f in findings_of(CARRIED, ("JAX602",))]
    assert flagged == [9]
    with jax.debug_key_reuse(True):
        outcome = run_snippet(CARRIED, "run()")
    assert isinstance(outcome.error, KeyReuseError)
    assert "already consumed" in str(outcome.error)  # not "when repeatedly executed"
    # Alone, the draw is the reuse of the next iteration, and reported as that.
    alone = CARRIED.replace("    x = x.at[i].add(jax.random.uniform(key))\n", "")
    (finding,) = findings_of(alone, ("JAX602",))
    assert finding.span.start.line + 1 == 8 and "returns it unchanged" in finding.message
    with jax.debug_key_reuse(True):
        outcome = run_snippet(alone, "run()")
    assert "repeatedly executed" in str(outcome.error)
