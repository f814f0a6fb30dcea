"""JAX701's `jnp.where` rewrite of an `if` whose branches assign several names: one `where` per
name, in order (with no `else`, each name keeps its value if false); with an `else`, only
where that order computes what the branches did. Exact output text (comments kept), what
gets no fix, and the fixed programs run under JAX computing what the original computes
without jit (under `jax.vmap` and `jax.jit`), CRLF files kept CRLF by `check --fix`."""

from __future__ import annotations

from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import apply_edits, fix_text
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from jax_lsp.findings import Applicability
from tests.cli.helpers import jax_lsp
from tests.codeactions.helpers import main_fixes_only, source
from tests.conftest import findings_of
from tests.runtime import run_snippet

SAFE, UNSAFE = Applicability.SAFE, Applicability.UNSAFE

# The trial's gridworld (b14): an episode's end resets two fields, no `else`.
GRIDWORLD = """
from typing import NamedTuple

import jax
import jax.numpy as jnp


class EnvState(NamedTuple):
    pos: jax.Array
    t: jax.Array


class GridWorld:
    MOVES = jnp.array([[0, 1], [0, -1], [1, 0], [-1, 0]])

    def __init__(self, size=5, max_steps=20):
        self.size = size
        self.max_steps = max_steps
        self.goal = jnp.array([size - 1, size - 1])

    def step(self, state, action):
        pos = jnp.clip(state.pos + self.MOVES[action], 0, self.size - 1)
        at_goal = jnp.all(pos == self.goal)
        reward = jnp.where(at_goal, 1.0, -0.01)
        t = state.t + 1
        done = at_goal | (t >= self.max_steps)
        if done:  # episode over
            pos = jnp.zeros(2, dtype=pos.dtype)
            t = jnp.array(0)
        return EnvState(pos, t), reward, done
"""
GRIDWORLD_FIXED = GRIDWORLD.replace(
    """        if done:  # episode over
            pos = jnp.zeros(2, dtype=pos.dtype)
            t = jnp.array(0)
""",
    """        pos = jnp.where(done, jnp.zeros(2, dtype=pos.dtype), pos)  # episode over
        t = jnp.where(done, jnp.array(0), t)
""",
)
# Steps of 6 environments, some reaching the goal or the step limit: run eagerly (the `if`
# on concrete values) and as the trial's trainer does, `jax.jit(jax.vmap(env.step))`.
GRIDWORLD_RUN = """
env = GridWorld(size=3, max_steps=4)
states = EnvState(jnp.array([[2, 1], [1, 2], [0, 0], [1, 1], [2, 2], [0, 1]]),
                  jnp.array([0, 3, 3, 1, 2, 0]))
actions = jnp.array([0, 2, 1, 3, 0, 2])
step = jax.jit(jax.vmap(env.step))
"""
GRIDWORLD_CHECK = """
import numpy as np
eager = [env.step(EnvState(states.pos[i], states.t[i]), actions[i]) for i in range(6)]
batched, rewards, dones = step(states, actions)
assert np.array_equal(batched.pos, np.stack([s.pos for s, _, _ in eager]))
assert np.array_equal(batched.t, np.array([s.t for s, _, _ in eager]))
assert np.allclose(rewards, [r for _, r, _ in eager])
assert dones.tolist() == [bool(d) for _, _, d in eager] == [True, True, True, False, True, False]
assert batched.t.tolist() == [0, 0, 0, 2, 0, 1] and batched.pos[0].tolist() == [0, 0]
"""

# (id, input, expected output, applicability)
PAIRS = [
    (
        "gridworld-two-names-no-else",
        GRIDWORLD + GRIDWORLD_RUN,
        GRIDWORLD_FIXED + GRIDWORLD_RUN,
        UNSAFE,
    ),
    (
        # Both branches assign `a` then `b` from it: in order, each `where` sees `a` as its
        # branch did. Values over `x` alike, pure and smooth: safe.
        "else-same-order",
        """
        import jax

        @jax.jit
        def f(x, c):
            if c > 0:
                a = x * 2
                b = a + 1  # from the new a
            else:
                a = x * 3
                b = a - 1
            return a, b
        """,
        """
        import jax

        @jax.jit
        def f(x, c):
            a = jax.numpy.where(c > 0, x * 2, x * 3)  # from the new a
            b = jax.numpy.where(c > 0, a + 1, a - 1)
            return a, b
        """,
        SAFE,
    ),
    (
        # `jnp` imported where the module imports nothing of `jax.numpy`. `a` and `x * 2` are
        # not known to have one shape: unsafe.
        "adds-the-import",
        """
        from jax import jit


        @jit
        def f(x, c):
            a = x
            b = x
            if c > 0:
                a = x * 2
                b = a + 1
            return a, b
        """,
        """
        from jax import jit
        import jax.numpy as jnp


        @jit
        def f(x, c):
            a = x
            b = x
            a = jnp.where(c > 0, x * 2, a)
            b = jnp.where(c > 0, a + 1, b)
            return a, b
        """,
        UNSAFE,
    ),
    (
        # A condition that calls something is computed once, into a name of its own.
        "condition-computed-once",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            lo = x * 0.0
            hi = x
            if x.sum() > 0:
                lo = x - 1
                hi += 1
            return lo, hi
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            lo = x * 0.0
            hi = x
            condition = x.sum() > 0
            lo = jnp.where(condition, x - 1, lo)
            hi = jnp.where(condition, hi + 1, hi)
            return lo, hi
        """,
        UNSAFE,
    ),
    (
        # The branch resets the flag it tests: the later `where` must see the flag as the
        # `if` tested it.
        "condition-reads-a-name-assigned",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            done = x > 1
            t = x
            if done:
                done = x < -10
                t = x * 0.0
            return done, t
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            done = x > 1
            t = x
            condition = done
            done = jnp.where(condition, x < -10, done)
            t = jnp.where(condition, x * 0.0, t)
            return done, t
        """,
        UNSAFE,
    ),
    (
        # Each name's NaN-prone value guarded ("double where"); comments on lines of their own.
        "guards-for-each-name",
        """
        import jax
        import jax.numpy as jnp

        def f(x):
            root = x * 0.0
            logged = x * 0.0
            if x > 0:
                # only for positive x
                root = jnp.sqrt(x)
                logged = jnp.log(x)  # natural log
            return root + logged

        g = jax.vmap(f)
        """,
        """
        import jax
        import jax.numpy as jnp

        def f(x):
            root = x * 0.0
            logged = x * 0.0
            # only for positive x
            # natural log
            root = jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), root)
            logged = jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1.0)), logged)
            return root + logged

        g = jax.vmap(f)
        """,
        UNSAFE,
    ),
    (
        # A value that calls a function: one `lax.cond` returning both, only the branch taken
        # runs.
        "lax-cond-tuple",
        """
        import jax

        def noisy(x):
            jax.debug.print("computed {}", x)
            return x * 10

        @jax.jit
        def f(x):
            y = x
            z = x
            if x > 0:
                y = noisy(x)
                z = x + 1
            return y, z
        """,
        """
        import jax

        def noisy(x):
            jax.debug.print("computed {}", x)
            return x * 10

        @jax.jit
        def f(x):
            y = x
            z = x
            y, z = jax.lax.cond(x > 0, lambda: (noisy(x), x + 1), lambda: (y, z))
            return y, z
        """,
        UNSAFE,
    ),
]


@pytest.mark.parametrize(
    ("before", "after", "safety"),
    [pair[1:] for pair in PAIRS],
    ids=[pair[0] for pair in PAIRS],
)
def test_rewrite(before: str, after: str, safety: Applicability):
    before = source(before)
    fixes = [f.fix for f in findings_of(before, ("JAX701",))]
    assert len(fixes) == 1 and fixes[0] is not None
    (fix,) = fixes
    assert fix.applicability is safety
    assert apply_edits(before, fix.edits) == source(after)


NO_FIX = {
    # The `else` assigns `b` before `a` and reads `a`: the old one there, the new one after
    # a `where` for `a` first.
    "else-reads-a-name-in-another-order": """
        if c > 0:
            a = x * 2
            b = a + 1
        else:
            b = a - 1
            a = x * 3
        """,
    # `tmp` has no value if false.
    "name-not-bound-before": """
        if c > 0:
            tmp = x * 2
            a = tmp + 1
        """,
    "else-assigns-other-names": """
        if c > 0:
            a = x * 2
            b = x + 1
        else:
            a = x * 3
        """,
    "a-name-assigned-twice-with-else": """
        if c > 0:
            a = x * 2
            a = a + 1
        else:
            a = x * 3
            b = x
        """,
    "a-statement-that-assigns-nothing": """
        if c > 0:
            a = x * 2
            print(a)
        """,
    "two-names-at-once": """
        if c > 0:
            a, b = x * 2, x + 1
            b = a
        """,
    # One `lax.cond` for both: its lambdas would see the old `a`.
    "called-value-reads-the-name-above-it": """
        if c > 0:
            a = helper(x)
            b = a + 1
        """,
    # Tracing `f`'s branch would call `f` again, forever.
    "recursion": """
        if c > 0:
            a = f(x - 1, c - 1)[0]
            b = x + 1
        """,
}


@pytest.mark.parametrize("branch", NO_FIX.values(), ids=NO_FIX.keys())
def test_no_fix(branch: str):
    body = "".join(f"    {line}\n" for line in source(branch).splitlines())
    text = (
        "import jax\n\n\ndef helper(v):\n    return v\n\n\n@jax.jit\ndef f(x, c):\n"
        "    a = x\n    b = x\n" + body + "    return a, b\n"
    )
    (finding,) = findings_of(text, ("JAX701",))
    assert finding.fix is None, text


def _fixed(program: str) -> str:
    rules = (RULES_BY_CODE["JAX701"],)
    run = main_fixes_only(lambda t: analyze(Document(t), rules).findings)
    fixed, applied = fix_text(program, run, unsafe=True)
    assert applied == 1, fixed
    assert analyze(Document(fixed), rules).findings == []
    return fixed


def test_gridworld_runs_under_jit_of_vmap_as_it_does_eagerly():
    program = source(GRIDWORLD) + source(GRIDWORLD_RUN)
    broken = run_snippet(program, "step(states, actions)")
    assert "TracerBoolConversionError" in type(broken.error).__name__, broken.error
    fixed = _fixed(program)
    assert source(GRIDWORLD_FIXED) in fixed
    outcome = run_snippet(fixed, GRIDWORLD_CHECK)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


# Programs whose fixed form must compute, under jit and under vmap, what the original computes
# eagerly at each point (`call` of `v`), and, with `grads`, the same gradients of the sum of
# the results with `jax_debug_nans` on (which raises on a NaN anywhere in the backward pass).
RUNS = {
    "else-same-order": (PAIRS[1][1], "f(v, v - 1.0)", True),
    "adds-the-import": (PAIRS[2][1], "f(v, v - 1.0)", True),
    "condition-computed-once": (PAIRS[3][1], "f(v)", False),
    "condition-reads-a-name-assigned": (PAIRS[4][1], "f(v)", False),
    "guards-for-each-name": (PAIRS[5][1], "f(v)", True),
    "lax-cond-tuple": (PAIRS[6][1], "f(v)", False),
    "no-else-later-reads-earlier": (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            a = x
            b = x * 0.5
            if x > 1:
                a = b * 2  # reads the old b
                b = a + 3  # reads the new a
                a *= 2
            return a, b
        """,
        "f(v)",
        True,
    ),
}
POINTS = [-2.0, 0.0, 0.5, 1.5, 4.0]


@pytest.mark.parametrize(("program", "call", "grads"), RUNS.values(), ids=RUNS.keys())
def test_fixed_program_computes_what_the_eager_original_does(program: str, call: str, grads):
    program = source(program)
    fixed = _fixed(program)
    check = f"""
import jax
import jax.numpy as jnp
import numpy as np

original = {{}}
exec({program!r}, original)
call = lambda v: {call}
call_original = lambda v: eval({call!r}, original, {{"v": v}})
total = lambda function: lambda v: sum(jax.tree.leaves(function(v)))
with jax.disable_jit():
    eager = [jax.tree.leaves(call_original(jnp.float32(v))) for v in {POINTS}]
    eager_grads = [float(jax.grad(total(call_original))(v)) for v in {POINTS}]
batched = jax.tree.leaves(jax.vmap(call)(jnp.array({POINTS})))
for i, v in enumerate({POINTS}):
    assert np.allclose(jax.tree.leaves(jax.jit(call)(v)), eager[i]), (v, eager[i])
    assert np.allclose([leaf[i] for leaf in batched], eager[i]), (v, eager[i])
if {grads}:
    with jax.debug_nans(True):
        fixed_grads = [float(jax.jit(jax.grad(total(call)))(v)) for v in {POINTS}]
    assert np.allclose(fixed_grads, eager_grads), (fixed_grads, eager_grads)
"""
    outcome = run_snippet(fixed, check)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


def test_check_fix_keeps_crlf_and_the_fixed_file_runs(tmp_path: Path):
    text = source(GRIDWORLD) + source(GRIDWORLD_RUN)
    path = tmp_path / "gridworld.py"
    path.write_bytes(text.replace("\n", "\r\n").encode())

    run = jax_lsp(
        "check", "--select", "JAX701", "--fix", "--unsafe-fixes", "gridworld.py", cwd=tmp_path
    )

    assert run.code == 0, run.stdout + run.stderr
    data = path.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    fixed = data.decode().replace("\r\n", "\n")
    assert source(GRIDWORLD_FIXED) in fixed
    outcome = run_snippet(fixed, GRIDWORLD_CHECK)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


def test_check_fix_without_unsafe_leaves_the_gridworld_alone(tmp_path: Path):
    path = tmp_path / "gridworld.py"
    path.write_text(source(GRIDWORLD))

    jax_lsp("check", "--select", "JAX701", "--fix", "gridworld.py", cwd=tmp_path)

    assert path.read_text() == source(GRIDWORLD)
