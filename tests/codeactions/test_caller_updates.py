"""An in-place update of a parameter that the function never reads again was meant for the
caller's array (`def bump(counts, i): counts[i] += 1`). Rebinding the name to the updated copy
changes nothing the caller sees: the TypeError becomes an update silently lost. Those fixes
(JAX201/JAX202 `.at[...]` and `jnp.where` rewrites, JAX203's assigned result) are unsafe and
say so; one whose rebound array the function reads or returns does not say so (it is unsafe
all the same, the helpers being traced only through their callers:
`test_caller_given_arrays.py`). Run under JAX."""

from __future__ import annotations

import pytest

from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.config import Settings
from jax_lsp.engine import check_source, fix_source
from tests.codeactions.helpers import source
from tests.runtime import run_snippet

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"
LOST = "the caller's `{name}` stays unchanged: return it and use the result"


def _only_fix(text: str):
    findings = [f for f in check_source(text, "a.py", Settings()).findings if f.code < "JAX300"]
    (finding,) = findings
    assert finding.fix is not None, finding
    return finding.fix


def _program(helper: str, call: str) -> str:
    return HEADER + source(helper) + f"\n\n@jax.jit\ndef g(counts):\n    {call}\n"


# (helper, its call in a jitted function, the rebound name or None when the fix is safe)
CASES = {
    "augmented update of a parameter": (
        "def bump(counts, i):\n    counts[i] += 1\n",
        "bump(counts, 0)\n    return counts",
        "counts",
    ),
    "item assignment of a parameter": (
        "def record(buf, s, v):\n    buf[s] = v\n",
        "record(counts, 1, 2.0)\n    return counts",
        "buf",
    ),
    "update in a loop, read by nothing after it": (
        "def each(x):\n    for i in range(3):\n        x[i] += 1\n",
        "each(counts)\n    return counts",
        "x",
    ),
    "discarded `.at` update of a parameter": (
        "def discard(x):\n    x.at[0].set(1.0)\n",
        "discard(counts)\n    return counts",
        "x",
    ),
    "masked assignment of a parameter": (
        "def clear(x):\n    x[x > 0] = 0.0\n",
        "clear(counts)\n    return counts",
        "x",
    ),
    "the updated parameter returned": (
        "def bump(counts, i):\n    counts[i] += 1\n    return counts\n",
        "return bump(counts, 0)",
        None,
    ),
    "the updated parameter read afterwards": (
        "def zero_first(x):\n    x[0] = 0.0\n    return x.sum()\n",
        "return zero_first(counts)",
        None,
    ),
    "read by a closure called afterwards": (
        "def bump(counts, i):\n    def total():\n        return counts.sum()\n"
        "    counts[i] += 1\n    return total()\n",
        "return bump(counts, 0)",
        None,
    ),
    "read again by the loop's next pass": (
        "def cumulate(x):\n    for i in range(1, 3):\n        x[i] += x[i - 1]\n    return x\n",
        "return cumulate(counts)",
        None,
    ),
}


@pytest.mark.parametrize(("helper", "call", "lost"), CASES.values(), ids=CASES.keys())
def test_a_rebinding_the_caller_cannot_see_is_unsafe_and_says_so(helper, call, lost):
    fix = _only_fix(_program(helper, call))
    if lost is None:  # unsafe all the same (`test_caller_given_arrays.py`), for another reason
        assert "caller's" not in fix.title
    else:
        assert not fix.is_safe
        assert LOST.format(name=lost) in fix.title


TRIAL = """
import jax
import jax.numpy as jnp
def bump(counts, i): counts[i] += 1
def record(buf, s, v): buf[s] = v
@jax.jit
def g(counts): bump(counts, 0); return counts
"""


def test_check_fix_leaves_the_trial_program_as_it_is():
    text = source(TRIAL)
    assert fix_source(text, "a.py", Settings()) == (text, 0)


def test_the_unsafe_rewrite_loses_the_update_without_a_word():
    """What the fix left out of `--fix` would do: the TypeError becomes a no-op."""
    text = source(TRIAL)
    raised = run_snippet(text, "g(jnp.zeros(3))")
    assert isinstance(raised.error, TypeError)
    fixed = apply_edits(text, _only_fix(text).edits)
    outcome = run_snippet(fixed, "out = g(jnp.zeros(3))")
    assert outcome.error is None and outcome.namespace["out"].tolist() == [0.0, 0.0, 0.0]


def test_the_rewrite_of_a_returned_update_computes_what_numpy_does():
    helper, call, _ = CASES["the updated parameter returned"]
    text = _program(helper, call)
    fixed, applied = fix_source(text, "a.py", Settings(), unsafe=True)
    assert applied == 1 and "counts = counts.at[i].add(1)" in fixed
    original = run_snippet(text, "import numpy\nexpected = bump(numpy.zeros(3), 0).tolist()")
    outcome = run_snippet(fixed, "out = g(jnp.zeros(3)).tolist()")
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert outcome.namespace["out"] == original.namespace["expected"] == [1.0, 0.0, 0.0]
