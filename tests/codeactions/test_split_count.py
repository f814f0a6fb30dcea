"""JAX301's fix for a read past the keys `jax.random.split` made: the split makes as many keys
as the function reads (unsafe, left out of `check --fix` without `--unsafe-fixes`). Exact
output text, what gets no fix, and the fixed programs run under JAX: each draw gets a key of
its own, and the draws from the keys read before are unchanged (JAX's default
`jax_threefry_partitionable`: `split(key, 3)[:2]` is `split(key)`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.findings import Applicability
from tests.cli.helpers import jax_lsp
from tests.codeactions.helpers import source
from tests.conftest import findings_of
from tests.runtime import run_snippet

# The trial's VAE sampling (b11): two keys, the prior drawn from `keys[2]`, which JAX clamps
# to `keys[1]`, the posterior's key.
SAMPLING = """
import jax
import jax.numpy as jnp


def reparameterize(key, mu, logvar):
    return mu + jnp.exp(0.5 * logvar) * jax.random.normal(key, mu.shape)


def sample_prior_and_posterior(key, mu, logvar):
    keys = jax.random.split(key)
    z_post = reparameterize(keys[1], mu, logvar)
    z_prior = jax.random.normal(keys[2], mu.shape)  # prior
    return z_post, z_prior


mu = jnp.zeros(3)
logvar = jnp.zeros(3)
zp, zq = sample_prior_and_posterior(jax.random.PRNGKey(0), mu, logvar)
"""
SAMPLING_FIXED = SAMPLING.replace("split(key)", "split(key, 3)")
# The draws differ now, and the posterior's is the one the program drew before.
SAMPLING_CHECK = """
import numpy as np
key = jax.random.PRNGKey(0)
before = reparameterize(jax.random.split(key)[1], mu, logvar)
assert not np.allclose(zp, zq), (zp, zq)
assert np.array_equal(zp, before)
assert np.array_equal(zq, jax.random.normal(jax.random.split(key, 3)[2], (3,)))
"""

# (id, input, expected output)
PAIRS = [
    ("trial-b11", SAMPLING, SAMPLING_FIXED),
    (
        "count-written",
        """
        import jax

        def draws(key):
            keys = jax.random.split(key, 2)
            return [jax.random.normal(keys[0]), jax.random.normal(keys[3])]
        """,
        """
        import jax

        def draws(key):
            keys = jax.random.split(key, 4)
            return [jax.random.normal(keys[0]), jax.random.normal(keys[3])]
        """,
    ),
    (
        "count-as-keyword-raw-key",
        """
        from jax import random

        def draws():
            keys = random.split(random.PRNGKey(1), num=2)
            return random.uniform(keys[1]), random.uniform(keys[2])
        """,
        """
        from jax import random

        def draws():
            keys = random.split(random.PRNGKey(1), num=3)
            return random.uniform(keys[1]), random.uniform(keys[2])
        """,
    ),
    (
        # The count added after the key, the call's layout kept.
        "call-on-several-lines",
        """
        from jax.random import normal, split

        def draws(key):
            keys = split(
                key,  # the caller's key
            )
            first, second = normal(keys[0]), normal(keys[2])
            return first, second
        """,
        """
        from jax.random import normal, split

        def draws(key):
            keys = split(
                key, 3,  # the caller's key
            )
            first, second = normal(keys[0]), normal(keys[2])
            return first, second
        """,
    ),
    (
        # An unpack of three names (which raised with two keys) counts three.
        "unpack-counted",
        """
        import jax

        def draws(key):
            keys = jax.random.split(key)
            a, b, c = keys
            return jax.random.normal(keys[2]), a, b, c
        """,
        """
        import jax

        def draws(key):
            keys = jax.random.split(key, 3)
            a, b, c = keys
            return jax.random.normal(keys[2]), a, b, c
        """,
    ),
]


@pytest.mark.parametrize(("before", "after"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_rewrite(before: str, after: str):
    before = source(before)
    fixes = [finding.fix for finding in findings_of(before, ("JAX301",))]
    assert fixes and all(fix is not None for fix in fixes)
    fix = fixes[0]
    assert fix.applicability is Applicability.UNSAFE
    assert "into" in fix.title and "keys" in fix.title
    assert apply_edits(before, fix.edits) == source(after)


NO_FIX = {
    # The last key now: `keys[2]` after the fix.
    "negative-index": "a = keys[-1]\nb = keys[2]",
    "key-array-passed-on": "a = jax.vmap(jax.random.normal)(keys)\nb = keys[2]",
    "slice": "a = keys[1:]\nb = keys[2]",
    "index-not-a-literal": "i = 0\na = keys[i]\nb = keys[2]",
    # Exactly two keys unpacked: three would raise.
    "unpack-of-two": "a, b = keys\nc = keys[2]",
    "starred-unpack": "a, *rest = keys\nc = keys[2]",
    "read-by-a-nested-function": "b = keys[2]\ndef later():\n    return keys[0]",
    "read-by-a-lambda": "b = keys[2]\nlater = lambda: keys[0]",
    "an-attribute": "n = keys.shape[0]\nb = keys[2]",
    "an-element-stored": "b = keys[2]\nkeys[0] = b",
}


@pytest.mark.parametrize("reads", NO_FIX.values(), ids=NO_FIX.keys())
def test_no_fix_where_a_read_cannot_be_counted(reads: str):
    body = "".join(f"    {line}\n" for line in reads.splitlines())
    text = f"import jax\n\n\ndef draws(key):\n    keys = jax.random.split(key)\n{body}"
    findings = findings_of(text, ("JAX301",))
    assert findings, text
    assert all(finding.fix is None for finding in findings), text


@pytest.mark.parametrize(
    "text",
    [
        # Bound at module level: another module may import and read it.
        "import jax\n\nkeys = jax.random.split(jax.random.key(0))\nb = keys[2]\n",
        # A count not written as a number.
        "import jax\n\n\ndef draws(key):\n    n = 2\n    keys = jax.random.split(key, n)\n"
        "    return keys[2]\n",
        # Rebound later (the tracker still knows the second split's shape).
        "import jax\n\n\ndef draws(key):\n    keys = jax.random.split(key)\n"
        "    a = keys[0]\n    keys = jax.random.split(a)\n    return keys[2]\n",
        # Split into a shape, not a count.
        "import jax\n\n\ndef draws(key):\n    keys = jax.random.split(key, (2, 2))\n"
        "    return keys[2]\n",
    ],
    ids=["module-level", "count-is-a-name", "rebound", "shape"],
)
def test_no_fix_for_other_splits(text: str):
    findings = findings_of(text, ("JAX301",))
    assert findings, text
    assert all(finding.fix is None for finding in findings), text


def test_fixed_sampling_draws_apart_keeping_the_posterior():
    program = source(SAMPLING)
    broken = run_snippet(program, "import numpy as np\nassert np.array_equal(zp, zq)")
    assert broken.error is None, broken.error  # clamped: the prior was the posterior's draw
    (finding,) = findings_of(program, ("JAX301",))
    fixed = apply_edits(program, finding.fix.edits)
    assert findings_of(fixed, ("JAX301",)) == []
    outcome = run_snippet(fixed, SAMPLING_CHECK)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


@pytest.mark.parametrize("seed", [0, 1, 123])
def test_partitionable_split_keeps_the_first_keys(seed: int):
    """What the fix's docs say of JAX's default: more keys, the same first ones."""
    outcome = run_snippet(
        "import jax\n"
        "assert jax.config.jax_threefry_partitionable\n"
        f"for key in (jax.random.key({seed}), jax.random.PRNGKey({seed})):\n"
        "    two = jax.random.key_data(jax.random.split(key))\n"
        "    three = jax.random.key_data(jax.random.split(key, 3))\n"
        "    assert (two == three[:2]).all()\n"
    )
    assert outcome.error is None, outcome.error


def test_check_fix_applies_it_only_with_unsafe_fixes_and_keeps_crlf(tmp_path: Path):
    text = source(SAMPLING)
    path = tmp_path / "sampling.py"
    path.write_bytes(text.replace("\n", "\r\n").encode())

    jax_lsp("check", "--select", "JAX301", "--fix", "sampling.py", cwd=tmp_path)
    assert path.read_bytes() == text.replace("\n", "\r\n").encode()

    run = jax_lsp(
        "check", "--select", "JAX301", "--fix", "--unsafe-fixes", "sampling.py", cwd=tmp_path
    )

    assert run.code == 0, run.stdout + run.stderr
    assert path.read_bytes() == source(SAMPLING_FIXED).replace("\n", "\r\n").encode()
    outcome = run_snippet(source(SAMPLING_FIXED), SAMPLING_CHECK)
    assert outcome.error is None, outcome.error
