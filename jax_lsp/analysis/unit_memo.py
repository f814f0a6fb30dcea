"""Per-unit memos of computations that look up facts of other units.

A result memoised on a unit's parse (`UnitSource.memo`) is reused on every later version of
the document in which the unit's text is unchanged. That is only honest when the result
depends on the unit's text and on what its key holds. Some per-unit facts also look up other
units (the signature of a function named in a `jax.jit(f, static_argnames=...)`, the static
signature a called name is bound to): a key cannot list those in advance. `reuse_reading`
records every lookup a computation makes with the answer it got, and reuses the result only
while each lookup still gives an equal answer, so a fact can never be served stale when the
unit it looked into changed (tests/analysis/test_unit_memo.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")


class _RecordingLookup:
    """A lookup that remembers each question and its answer."""

    __slots__ = ("_lookup", "answers")

    def __init__(self, lookup: Callable) -> None:
        self._lookup = lookup
        self.answers: dict = {}

    def __call__(self, question):
        if question in self.answers:
            return self.answers[question]
        answer = self.answers[question] = self._lookup(question)
        return answer


def _same(old: object, new: object) -> bool:
    # Syntax nodes have no equality of their own (identity: an unchanged unit keeps its
    # nodes); facts such as signatures are frozen dataclasses compared by value.
    return old is new or old == new


def reuse_reading(
    memo: dict,
    key: Hashable,
    lookup: Callable[[K], object],
    compute: Callable[[Callable[[K], object]], R],
) -> R:
    """`compute(lookup)` memoised in `memo` under `key`, reused while `lookup` answers every
    question the computation asked as it did then."""
    entry = memo.get(key)
    if entry is not None:
        result, answers = entry
        if all(_same(answer, lookup(question)) for question, answer in answers.items()):
            return result
    recording = _RecordingLookup(lookup)
    result = compute(recording)
    memo[key] = (result, recording.answers)
    return result
