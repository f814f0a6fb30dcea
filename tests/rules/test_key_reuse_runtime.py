"""JAX602 against JAX's own key-reuse checker (`jax.debug_key_reuse`): what the rule flags,
the checker rejects; what it leaves alone, the checker accepts; and the program its fix makes
(unsafe fixes included) passes the checker and draws distinct numbers."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.random import PrngKeyReuse
from jax_lsp.engine import analyze
from tests.runtime import run_snippet

pytestmark = pytest.mark.slow  # programs run under JAX's key-reuse checker

jax = pytest.importorskip("jax")
from jax.errors import KeyReuseError  # noqa: E402  (after the skip: JAX may be missing)

RULE = PrngKeyReuse

# Programs beyond the rule's examples: (id, program, check of the fixed program). Each one
# reuses a typed key (`jax.random.key`: the checker tracks only those) and is flagged.
PROGRAMS = [
    (
        "script-across-statements",
        """
        import jax
        import jax.random as jr

        key = jr.key(0)
        x = jr.uniform(key=key, shape=(4,))
        scale = 2.0
        y = jr.normal(key, shape=(4,)) * scale
        """,
        "import jax.numpy as jnp\nassert not jnp.allclose(x, y / 2.0)",
    ),
    (
        "helper-that-splits",
        """
        import jax

        def init(rng):
            w_key, b_key = jax.random.split(rng)
            return jax.random.normal(w_key, (3,)), jax.random.normal(b_key, (3,))

        def model(rng):
            params = init(rng)
            mask = jax.random.bernoulli(rng, 0.5, (3,))
            return params, mask

        params, mask = model(jax.random.key(1))
        """,
        "assert mask.shape == (3,)",
    ),
    (
        # a VAE's training step: the draw sits in the loss, reached through jax.grad
        "jitted-step-drawing-through-grad-in-a-loop",
        """
        import jax
        import jax.numpy as jnp

        def loss(w, key):
            return jnp.sum(w * jax.random.normal(key, w.shape))

        @jax.jit
        def step(w, key):
            return w - 0.1 * jax.grad(loss)(w, key)

        key = jax.random.key(4)
        ws = [jnp.zeros(2)]
        for epoch in range(2):
            ws.append(step(ws[-1], key))
        """,
        "import jax.numpy as jnp\nassert not jnp.allclose(ws[1] - ws[0], ws[2] - ws[1])",
    ),
    (
        "helper-of-a-helper",
        """
        import jax

        def noise(key):
            return jax.random.normal(key, (2,))

        def layer(key):
            return noise(key) * 2.0

        def net(key):
            return layer(key) + noise(key)

        out = net(jax.random.key(2))
        """,
        "assert out.shape == (2,)",
    ),
    (
        "first-use-in-a-branch",
        """
        import jax

        def sample(key, warm):
            start = 0.0
            if warm:
                start = jax.random.uniform(key)
            return start + jax.random.normal(key)

        a = sample(jax.random.key(3), True)
        b = sample(jax.random.key(3), False)
        """,
        "assert a.shape == b.shape == ()",
    ),
    (
        "two-uses-in-a-loop",
        """
        import jax

        def walk(key, steps):
            out = []
            for _ in range(steps):
                dx = jax.random.normal(key)
                dy = jax.random.uniform(key)
                out.append((dx, dy))
            return out

        out = walk(jax.random.key(4), 3)
        """,
        "assert len({float(dx) for dx, _ in out}) == 3",
    ),
    (
        "carry-tuple-key-of-fori-loop",
        """
        import jax
        import jax.numpy as jnp

        def body(i, carry):
            x, key = carry
            x = x + jax.random.normal(key, x.shape)
            return x, key

        x, key = jax.lax.fori_loop(0, 3, body, (jnp.zeros(2), jax.random.key(0)))
        """,
        "assert x.shape == (2,)",
    ),
    (
        "whole-carry-key-of-scan",
        """
        import jax
        import jax.numpy as jnp


        def step(rng, x):
            return rng, x * jax.random.uniform(rng)


        rng, ys = jax.lax.scan(step, jax.random.key(0), jnp.ones(3))
        """,
        "assert not (ys == ys[0]).all()",
    ),
    (
        "nested-carry-key-through-a-helper",
        """
        import jax
        import jax.numpy as jnp


        def perturb(k, x):
            return x + 0.1 * jax.random.normal(k, x.shape)


        def sweep(i, carry):
            (x, (k, count)) = carry
            x = perturb(k, x)
            return x, (k, count + 1)


        def simulate(x0, seed):
            return jax.lax.fori_loop(0, 10, sweep, (x0, (jax.random.key(seed), 0)))


        x, (k, count) = simulate(jnp.zeros(4), 3)
        """,
        "assert count == 10",
    ),
    (
        "helper-asked-for-other-sizes",
        """
        import jax

        def init(key, n_in, n_out):
            return jax.random.normal(key, (n_in, n_out))

        def make(key, n_in: int, n_hidden: int):
            first = init(key, n_in, n_hidden)
            second = init(key, n_hidden, n_hidden)  # not one transformation of two arrays
            return first, second

        first, second = make(jax.random.key(2), 3, 3)
        """,
        "import jax.numpy as jnp\nassert not jnp.allclose(first, second)",
    ),
]


# Two findings in one loop body (the call at the top of the body reuses the key across
# iterations, the next call reuses it within one): one fix, splitting once before each use.
LOOP_TWO_USES = """
import jax
import jax.numpy as jnp


def dropout(key, x, rate=0.5):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0.0)


key = jax.random.key(0)
masks = []
for i in range(3):
    h = dropout(key, jnp.ones(8))
    masks.append(dropout(key, jnp.ones(8)))
"""
PROGRAMS.append(
    (
        "loop-two-uses-one-fix",
        LOOP_TWO_USES,
        "assert len({tuple(m.tolist()) for m in masks}) == 3",
    )
)


# A comprehension draws from one key for every element: its loop splits the key instead.
PROGRAMS += [
    (
        "comprehension-one-key-per-element",
        """
        import jax

        key = jax.random.key(0)
        noise = [jax.random.normal(key, (3,)) for _ in range(4)]
        """,
        "assert len({tuple(n.tolist()) for n in noise}) == 4",
    ),
    (
        "comprehension-reading-its-index",
        """
        import jax

        def layers(key, sizes):
            return [jax.random.normal(key, (sizes[i], 2)) for i in range(len(sizes))]

        weights = layers(jax.random.key(0), [3, 3])
        """,
        "assert [w.shape for w in weights] == [(3, 2), (3, 2)]\n"
        "assert weights[0].tolist() != weights[1].tolist()",
    ),
]


# A training step the driver defines (or jits) for itself, handed the same key on every
# iteration: each step draws the same numbers.
PROGRAMS += [
    (
        "nested-jitted-step-given-one-key-every-iteration",
        """
        import jax
        import jax.numpy as jnp

        def train(w, key, n_steps):
            @jax.jit
            def step(w, step_key):
                return w + jax.random.normal(step_key, w.shape)

            ws = [w]
            for i in range(n_steps):
                ws.append(step(ws[-1], key))
            return ws

        ws = train(jnp.zeros(2), jax.random.key(0), 2)
        """,
        "import jax.numpy as jnp\nassert not jnp.allclose(ws[1] - ws[0], ws[2] - ws[1])",
    ),
    (
        "local-jit-of-a-helper-given-one-key-every-iteration",
        """
        import jax
        import jax.numpy as jnp

        def draw(key, w):
            return w + jax.random.normal(key, w.shape)

        def train(w, key, n_steps):
            step = jax.jit(draw)
            ws = [w]
            for i in range(n_steps):
                ws.append(step(key, ws[-1]))
            return ws

        ws = train(jnp.zeros(2), jax.random.key(0), 2)
        """,
        "import jax.numpy as jnp\nassert not jnp.allclose(ws[1] - ws[0], ws[2] - ws[1])",
    ),
    (
        "module-level-jit-of-a-helper-given-one-key-every-iteration",
        """
        import jax
        import jax.numpy as jnp

        def draw(key, w):
            return w + jax.random.normal(key, w.shape)

        jitted_draw = jax.jit(draw)

        key = jax.random.key(0)
        ws = [jnp.zeros(2)]
        for i in range(2):
            ws.append(jitted_draw(key, ws[-1]))
        """,
        "import jax.numpy as jnp\nassert not jnp.allclose(ws[1] - ws[0], ws[2] - ws[1])",
    ),
]


def test_a_comprehension_in_a_loop_gets_no_fix():
    # Split in the comprehension's loop, every iteration of the outer loop would split the
    # same key into the same keys.
    source = textwrap.dedent(
        """
        import jax

        key = jax.random.key(0)
        for step in range(3):
            noise = [jax.random.normal(key, (3,)) for _ in range(4)]
        """
    )
    assert [finding.fix for finding in _findings(source)] == [None]


def test_two_reuses_in_a_loop_body_split_once_before_each_use():
    # The checker stops at the second use of the first iteration: the first use, reached
    # with the key again on the next iteration, never is (not reported).
    source = textwrap.dedent(LOOP_TWO_USES)
    (finding,) = _findings(source)
    assert source.split("\n")[finding.span.start.line].startswith("    masks.append(")
    fixed, applied = fix_text(source, _findings, unsafe=True)
    assert applied == 1
    assert fixed.count("jax.random.split(") == 2 and "split(subkey" not in fixed
    assert "    key, subkey = jax.random.split(key)\n    h = dropout(subkey, " in fixed


def _findings(text: str):
    return analyze(Document(text), (RULE,)).findings


def _rejected_by_checker(source: str) -> bool:
    with jax.debug_key_reuse(True):
        outcome = run_snippet(source)
    return isinstance(outcome.error, KeyReuseError)


INVALID = [(f"invalid-{i}", e.code) for i, e in enumerate(RULE.invalid) if e.runnable]
VALID = [(f"valid-{i}", e.code) for i, e in enumerate(RULE.valid) if e.runnable]
FIXABLE = [(f"invalid-{i}", e.code, e.fixed_check) for i, e in enumerate(RULE.invalid) if e.fixed]
PROGRAM_SOURCES = [(name, textwrap.dedent(source), check) for name, source, check in PROGRAMS]


@pytest.mark.parametrize(("name", "source"), INVALID, ids=[n for n, _ in INVALID])
def test_checker_rejects_every_invalid_example(name, source):
    assert _rejected_by_checker(source), f"{name}: JAX's checker accepts it"


# Where the rule is deliberately laxer than the checker: one key for the same shuffle or
# choice of several arrays keeps them aligned, which is what such code means; a test's
# assertion recomputes the expected value from the key the code under test drew from.
# The valid example whose helper draws only when the caller gives no `noise`.
_NONE_GUARDED_EXAMPLE = next(e for e in RULE.valid if "noise=None" in e.code)

ALIGNED = {
    "valid-5": "permutation",
    "valid-6": "choice",
    "valid-9": "assert_allclose",
    "valid-10": "features(key, y",
    "valid-12": "for a in arrays",
    "valid-13": "for array in arrays",
}


@pytest.mark.parametrize(("name", "source"), VALID, ids=[n for n, _ in VALID])
def test_checker_accepts_every_valid_example(name, source):
    if name in ALIGNED:
        assert ALIGNED[name] in source
        assert _rejected_by_checker(source)  # the checker counts it; the rule does not
    else:
        assert not _rejected_by_checker(source)


@pytest.mark.parametrize(
    ("name", "source", "check"),
    FIXABLE + PROGRAM_SOURCES,
    ids=[n for n, _, _ in FIXABLE + PROGRAM_SOURCES],
)
def test_fixed_program_passes_the_checker(name, source, check):
    assert _findings(source), f"{name}: not flagged"
    assert _rejected_by_checker(source), f"{name}: JAX's checker accepts the buggy program"
    fixed, applied = fix_text(source, _findings, unsafe=True)
    assert applied >= 1
    assert _findings(fixed) == []
    assert analyze(Document(fixed), ALL_RULES).findings == []
    with jax.debug_key_reuse(True):
        outcome = run_snippet(fixed, check)
    assert outcome.error is None, f"{name}: the fixed program failed: {outcome.error!r}\n{fixed}"


def test_finding_links_the_first_use():
    source = textwrap.dedent(PROGRAMS[0][1])
    (finding,) = _findings(source)
    assert finding.message.startswith("Split `key` before its first use")
    (related,) = finding.related
    lines = source.split("\n")
    assert "jr.uniform" in lines[related.span.start.line]
    assert related.span.start.line < finding.span.start.line


def test_repeated_body_links_the_loop():
    source = textwrap.dedent(RULE.invalid[5].code)
    (finding,) = _findings(source)
    (related,) = finding.related
    assert "fori_loop" in source.split("\n")[related.span.start.line]
    assert finding.fix is None  # the key must go through the carry: no mechanical fix


def test_closed_over_key_gets_no_fix():
    source = textwrap.dedent(
        """
        import jax

        def outer(key):
            def inner():
                return jax.random.normal(key), jax.random.normal(key)
            return inner()
        """
    )
    (finding,) = _findings(source)
    assert finding.fix is None  # rebinding `key` in inner() would make it a local


def test_reuse_after_a_split_names_the_split_not_a_first_use():
    """`k1, k2 = split(key)` then `normal(key)`: the first use *was* the split, so the advice
    is to use its keys (or split into one more), never "split before its first use"."""
    source = textwrap.dedent(
        """
        import jax

        key = jax.random.key(0)
        k1, k2 = jax.random.split(key)
        w = jax.random.normal(k1, (2,))
        b = jax.random.normal(key, (2,))
        """
    )
    assert _rejected_by_checker(source)
    (finding,) = _findings(source)
    assert finding.message.startswith("`key` was already split by `jax.random.split(...)`")
    assert "one more subkey" in finding.message and "before its first use" not in finding.message


# A loop body that consumes a key held in its carry and returns it unchanged: flagged where
# the key is a path of the carry (no fix: the holder is rebuilt), and the split counterparts
# stay clean (those of keys held by a name are the fixed programs of PROGRAMS). Each is
# checked against JAX's own checker.
CARRIED_PATHS = [
    (
        "dict-carry-of-while-loop",
        """
        import jax
        import jax.numpy as jnp


        def cond(state):
            return state["i"] < 4


        def body(state):
            noise = jax.random.normal(state["key"], state["x"].shape)
            return {"x": state["x"] + noise, "key": state["key"], "i": state["i"] + 1}


        @jax.jit
        def run(x, key):
            return jax.lax.while_loop(cond, body, {"x": x, "key": key, "i": 0})["x"]


        out = run(jnp.zeros(2), jax.random.key(1))
        """,
    ),
    (
        "namedtuple-replace-in-fori-loop",
        """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp


        class Walker(NamedTuple):
            pos: jax.Array
            rng: jax.Array


        def advance(t, walker):
            jitter = jax.random.normal(walker.rng, walker.pos.shape)
            return walker._replace(pos=walker.pos + jitter)


        final = jax.lax.fori_loop(0, 5, advance, Walker(jnp.zeros(3), jax.random.key(2)))
        """,
    ),
]
# Each program's clean counterpart: split the key in the body and carry the new key on.
SPLIT_IN_THE_BODY = {
    "dict-carry-of-while-loop": [
        ("noise = jax.random.normal(state[", 'key, sub = jax.random.split(state["key"])\n'),
        ('normal(state["key"], ', "normal(sub, "),
        ('"key": state["key"], "i"', '"key": key, "i"'),
    ],
    "namedtuple-replace-in-fori-loop": [
        ("jitter = jax.random.normal(", "rng, sub = jax.random.split(walker.rng)\n"),
        ("normal(walker.rng, ", "normal(sub, "),
        ("pos=walker.pos + jitter)", "pos=walker.pos + jitter, rng=rng)"),
    ],
}


def _split_in_the_body(name: str, source: str) -> str:
    """The program with the key split before its use (a line inserted before the line
    holding the first text) and the new key carried on."""
    source = textwrap.dedent(source)
    (before, inserted), *replacements = SPLIT_IN_THE_BODY[name]
    lines = source.split("\n")
    at = next(i for i, line in enumerate(lines) if before in line)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines.insert(at, indent + inserted.rstrip("\n"))
    source = "\n".join(lines)
    for old, new in replacements:
        assert old in source
        source = source.replace(old, new)
    return source


@pytest.mark.parametrize(("name", "source"), CARRIED_PATHS, ids=[n for n, _ in CARRIED_PATHS])
def test_key_passed_on_in_a_carry_path_is_flagged(name, source):
    source = textwrap.dedent(source)
    (finding,) = _findings(source)
    assert "returns it unchanged" in finding.message
    assert "jax.random.normal(" in source.split("\n")[finding.span.start.line]
    assert _rejected_by_checker(source)


@pytest.mark.parametrize(("name", "source"), CARRIED_PATHS, ids=[n for n, _ in CARRIED_PATHS])
def test_key_split_and_carried_on_is_clean(name, source):
    source = _split_in_the_body(name, source)
    assert analyze(Document(source), ALL_RULES).findings == []
    assert not _rejected_by_checker(source)


# flax linen derives every key it uses from the one it is given (`fold_in` with the module's
# path and the rng stream): `init(key)`, `apply(..., rngs={"dropout": key})` and a draw from
# `key` itself give distinct numbers, and JAX's checker accepts the program. Not JAX602.
LINEN_SHARED_KEY = """
import flax.linen as nn
import jax
import jax.numpy as jnp


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(4)(x)
        return nn.Dropout(0.5, deterministic=not train)(x)


key = jax.random.key(0)
x = jax.random.normal(key, (2, 4))
params = Net().init(key, x, train=False)
out = Net().apply(params, x, train=True, rngs={"dropout": key})
"""


def test_linen_init_and_apply_derive_their_keys():
    pytest.importorskip("flax")
    assert _findings(LINEN_SHARED_KEY) == []
    assert not _rejected_by_checker(LINEN_SHARED_KEY)
    check = (
        "kernel = params['params']['Dense_0']['kernel']\n"
        "assert not jnp.allclose(kernel, nn.initializers.lecun_normal()(key, kernel.shape))\n"
        "kept = out != 0\n"
        "assert not bool(jnp.all(kept == jax.random.bernoulli(key, 0.5, kept.shape)))"
    )
    assert run_snippet(LINEN_SHARED_KEY, check).error is None


# The key generator of the rule's VALID example (a property splitting a fresh key per read).
_GENERATOR_EXAMPLE = next(e for e in PrngKeyReuse.valid if "class KeyGen" in e.source)
GENERATOR = (
    textwrap.dedent(_GENERATOR_EXAMPLE.source).split("def noise_pair")[0]
    + """
a = jax.random.normal(gen.rng, (3,))
b = jax.random.normal(gen.rng, (3,))

def pair(state):
    x = jax.random.normal(state.key, (3,))
    y = jax.random.normal(state.key, (3,))
    return x, y
"""
)


def test_attribute_of_an_unseen_object_is_not_one_key_but_a_parameters_is():
    # `gen.rng` may be a property making a new key per read (the checker agrees: no reuse at
    # module level); `state.key` of a parameter is a field, read twice it is one key.
    source = textwrap.dedent(GENERATOR)
    lines = source.split("\n")
    flagged = [lines[f.span.start.line].strip() for f in _findings(source)]
    assert flagged == ["y = jax.random.normal(state.key, (3,))"]
    assert not _rejected_by_checker(source.split("def pair")[0])


# A key drawn from, then rebound in a loop whose body surely runs to its end at least once
# (JAX's random-numbers tutorial: `for i in range(3): ...; key = new_key`, then
# `random.split(key)`). The key after the loop is the rebound one, unless the loop may not
# run, or may leave before the rebinding.
_DRAW_THEN_LOOP = """
import jax

key = jax.random.key(0)
x = jax.random.normal(key, (2,))
for i in {loop}:
    {body}
y = jax.random.normal(key, (2,))
"""
_REBIND = "key = jax.random.fold_in(jax.random.key(1), i)"
SURE_LOOPS = [
    ("range-3", "range(3)", _REBIND, False),
    ("range-1-4", "range(1, 4)", _REBIND, False),
    ("range-0", "range(0)", _REBIND, True),
    ("range-3-1", "range(3, 1)", _REBIND, True),
    ("range-of-a-name", "range(n)", _REBIND, True),
    ("break-before-the-rebinding", "range(3)", f"if i == 0:\n        break\n    {_REBIND}", True),
    ("continue-before-it", "range(3)", f"if i < 3:\n        continue\n    {_REBIND}", True),
]


@pytest.mark.parametrize(
    ("name", "loop", "body", "reused"), SURE_LOOPS, ids=[name for name, *_ in SURE_LOOPS]
)
def test_a_loop_that_surely_runs_rebinds_the_key_after_it(name, loop, body, reused):
    source = _DRAW_THEN_LOOP.format(loop=loop, body=body)
    if "range(n)" in source:
        source = source.replace("key = jax.random.key(0)", "n = 0\nkey = jax.random.key(0)")
    assert _rejected_by_checker(source) is reused
    last_draw = source.split("\n").index("y = jax.random.normal(key, (2,))")
    assert [finding.span.start.line for finding in _findings(source)] == (
        [last_draw] if reused else []
    )


def test_a_helper_given_the_value_its_key_would_draw_uses_no_key():
    source = textwrap.dedent(_NONE_GUARDED_EXAMPLE.code)
    assert "noise=None" in source and _findings(source) == []
    drawn_again = source + "fresh = perturb(x, key)\n"
    assert [f.span.start.line for f in _findings(drawn_again)] == [len(source.split("\n")) - 1]
    none_given = source + "fresh = perturb(x, key, None)\n"
    assert len(_findings(none_given)) == 1


def test_a_value_the_caller_may_not_have_leaves_the_key_used():
    """Handed on from the caller's own parameter, the value may be None: the helper draws."""
    source = textwrap.dedent(_NONE_GUARDED_EXAMPLE.code)
    wrapper = (
        "def shifted(x, key, noise=None):\n"
        "    first = perturb(x, key, noise)\n"
        "    return first + jax.random.normal(key, x.shape)\n"
    )
    (finding,) = _findings(source + wrapper)
    assert "jax.random.normal(key" in (source + wrapper).split("\n")[finding.span.start.line]
    forwarding = (
        "def forward(x, key, noise=None):\n"
        "    return perturb(x, key, noise=noise)\n\n"
        "twice = forward(x, key), forward(x, key)\n"
    )
    assert len(_findings(source + forwarding)) >= 1  # forward consumes its key
