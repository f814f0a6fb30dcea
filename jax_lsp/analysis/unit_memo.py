"""Per-unit memos of computations that look up facts of other units.

A result memoised on a unit's parse (`UnitSource.memo`) is reused on every later version of
the document in which the unit's text is unchanged. That is only honest when the result
depends on the unit's text and on what its key holds. Some per-unit facts also look up other
units (the signature of a function named in a `jax.jit(f, static_argnames=...)`, the static
signature a called name is bound to): a key cannot list those in advance. `reuse_reading`
is the mechanism of `recorded` with one lookup as what the computation reads: every question
is recorded with its answer, and the result is reused only while each still gets an equal
answer, so a fact can never be served stale when the unit it looked into changed
(tests/analysis/test_unit_memo.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from jax_lsp.analysis import recorded
from jax_lsp.analysis.recorded import ReadLog, entries_hold, recorded_call

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")


def reuse_reading(
    memo: dict,
    key: Hashable,
    lookup: Callable[[K], object],
    compute: Callable[[Callable[[K], object]], R],
) -> R:
    """`compute(lookup)` memoised in `memo` under `key`, reused while `lookup` answers every
    question the computation asked as it did then (its calls recorded in a `ReadLog`)."""
    entry = memo.get(key)
    if entry is not None:
        result, asked = entry
        if entries_hold(lookup, asked):
            if recorded.VERIFY_REUSE and not recorded.same(result, compute(lookup)):
                raise AssertionError(f"{key!r}: kept {result!r}, computed afresh differs")
            return result
    log = ReadLog()
    result = compute(recorded_call("lookup", lookup, log))
    memo[key] = (result, log.facts.get("lookup", {}))
    return result
